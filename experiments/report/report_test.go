package report

import (
	"bytes"
	"strings"
	"testing"
)

func TestFormats(t *testing.T) {
	tab := Table{Title: "t", Header: []string{"a (tokens)", "b|c"}, Rows: [][]string{{"1", "x,y"}}}
	cases := map[string]string{
		"markdown": "| a (tokens) | b\\|c |\n| --- | --- |\n| 1 | x,y |\n",
		"csv":      "a (tokens),b|c\n1,\"x,y\"\n",
		"json":     "{\n  \"k\": 1\n}\n",
	}
	for f, want := range cases {
		var b bytes.Buffer
		if err := Emit(&b, f, map[string]int{"k": 1}, tab); err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(b.String(), want) {
			t.Errorf("%s: got %q, want it to end with %q", f, b.String(), want)
		}
	}
	var b bytes.Buffer
	if err := Emit(&b, "table", nil, tab); err != nil || !strings.Contains(b.String(), "a (tokens)") {
		t.Errorf("table: %v %q", err, b.String())
	}
	if err := Emit(&b, "yaml", nil, tab); err == nil {
		t.Error("unknown format accepted")
	}
}

// TestCSVOneTable: several tables become one CSV table in long form
// (table, row, column, value); cells are plain values, worked by hand:
// "3 (1.5%)" keeps its count, a column of percentages becomes fractions
// with its name marked, "n/a" is empty, an infinite gap "inf".
func TestCSVOneTable(t *testing.T) {
	a := Table{Title: "metrics", Header: []string{"policy", "SLO viol."}, Rows: [][]string{{"lru", "3 (1.5%)"}, {"tlru", "n/a"}}}
	b := Table{Title: "improvement", Header: []string{"policy", "TEL"}, Rows: [][]string{{"tlru", "12.5%"}, {"x", "-2.0%"}}}
	c := Table{Title: "gap", Header: []string{"policy", "gap"}, Rows: [][]string{{"lru", "∞ (opt 0)"}, {"tlru", "0% (both 0)"}}}
	var buf bytes.Buffer
	if err := Emit(&buf, "csv", nil, a, b, c); err != nil {
		t.Fatal(err)
	}
	want := "table,row,column,value\n" +
		"metrics,1,policy,lru\nmetrics,1,SLO viol.,3\nmetrics,2,policy,tlru\nmetrics,2,SLO viol.,\n" +
		"improvement,1,policy,tlru\nimprovement,1,TEL (fraction),0.125\nimprovement,2,policy,x\nimprovement,2,TEL (fraction),-0.02\n" +
		"gap,1,policy,lru\ngap,1,gap,inf\ngap,2,policy,tlru\ngap,2,gap,0\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
}
