package birthdeath

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/models/trace"
)

// The deaths of a generated trace agree with the trace (each conversation's
// turn count and first-turn time, counted from the turns themselves) and
// survive a write and a read unchanged.
func TestDeathsRoundTrip(t *testing.T) {
	p := Default()
	p.Duration = 60
	var d Deaths
	turns := map[string]int{}
	first := map[string]float64{}
	err := Generate(p, 5, func(tn Turn) error {
		d.Add(tn)
		if _, ok := first[tn.Conv]; !ok {
			first[tn.Conv] = tn.T
		}
		turns[tn.Conv]++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ds := d.List()
	if len(ds) == 0 || len(ds) != len(turns) {
		t.Fatalf("%d deaths for %d conversations", len(ds), len(turns))
	}
	for _, h := range ds {
		if h.Turns != turns[h.Conv] || h.Birth != first[h.Conv] || h.Death < h.Birth {
			t.Errorf("%+v: want %d turns, birth %v, death after it", h, turns[h.Conv], first[h.Conv])
		}
	}
	var buf bytes.Buffer
	if err := WriteDeaths(&buf, ds); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), "\n"); n != len(ds) {
		t.Errorf("%d lines, want %d", n, len(ds))
	}
	back, err := ReadDeaths(&buf, "deaths.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, ds) {
		t.Error("read back differs from what was written")
	}
}

func TestReadDeathsBadLines(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"conv":"c0","birth_s":1,"death_s":0.5,"rate_per_s":1,"turns":1}`, `d:1: field "death_s"`},
		{"\n" + `{"conv":"c0","birth_s":1,"death_s":2,"rate_per_s":0,"turns":1}`, `d:2: field "rate_per_s"`},
		{`{"conv":"","birth_s":1,"death_s":2,"rate_per_s":1,"turns":1}`, `d:1: field "conv"`},
		{`{"conv":"c0","birth_s":1,"death_s":2,"rate_per_s":1,"turns":0}`, `d:1: field "turns"`},
		{`{"conv":"c0","birth":1}`, "d:1: "},
		{`not json`, "d:1: "},
	}
	for _, c := range cases {
		_, err := ReadDeaths(strings.NewReader(c.in), "d")
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one starting %q", c.in, err, c.want)
		}
	}
}

// Write's output reads back as the trace Trace generates, and records a
// death per conversation.
func TestWrite(t *testing.T) {
	p := Default()
	p.Duration = 30
	var buf bytes.Buffer
	var d Deaths
	if err := Write(&buf, p, 9, &d); err != nil {
		t.Fatal(err)
	}
	got, err := trace.ReadAll(&buf, "w.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want, err := Trace(p, 9)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Turns, want.Turns) || len(d.List()) != want.Conversations() {
		t.Errorf("%d turns and %d deaths, want %d turns and %d conversations", len(got.Turns), len(d.List()), len(want.Turns), want.Conversations())
	}
}

func TestReadOrGenerate(t *testing.T) {
	want, err := Trace(Default(), 4)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadOrGenerate("", 4)
	if err != nil || !reflect.DeepEqual(got.Turns, want.Turns) {
		t.Errorf("embedded: %d turns, %v; want %d", len(got.Turns), err, len(want.Turns))
	}
	if _, err := ReadOrGenerate("/nonexistent/t.jsonl", 4); err == nil {
		t.Error("a missing file: no error")
	}
}
