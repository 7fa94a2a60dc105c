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
		"csv":      "# t\na (tokens),b|c\n1,\"x,y\"\n",
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
