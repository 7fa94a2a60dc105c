package trace

import (
	"bytes"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestConvTable: names get ids in order of first appearance, a repeat its
// first id, and Name gives each back; worked by hand.
func TestConvTable(t *testing.T) {
	cases := []struct {
		names []string
		ids   []int
	}{
		{nil, nil},
		{[]string{"a"}, []int{0}},
		{[]string{"a", "b", "a", "c", "b"}, []int{0, 1, 0, 2, 1}},
		{[]string{"c1", "c10", "c1", "c100", "c10"}, []int{0, 1, 0, 2, 1}}, // prefixes of one another
		{[]string{"", "x", ""}, []int{0, 1, 0}},                            // the empty name is a name
	}
	for _, c := range cases {
		var tab ConvTable
		for i, n := range c.names {
			id, added, ok := tab.Intern([]byte(n))
			first := true // not among the names before it
			for _, m := range c.names[:i] {
				first = first && m != n
			}
			if !ok || id != c.ids[i] || added != first {
				t.Errorf("%q: name %d %q: id %d added %v ok %v, want id %d added %v", c.names, i, n, id, added, ok, c.ids[i], first)
			}
		}
		for i, n := range c.names {
			if id, ok := tab.Lookup([]byte(n)); !ok || id != c.ids[i] || string(tab.Name(id)) != n {
				t.Errorf("%q: Lookup(%q) = %d, %v; Name %q", c.names, n, id, ok, tab.Name(id))
			}
		}
		if _, ok := tab.Lookup([]byte("absent")); ok {
			t.Errorf("%q: Lookup of an absent name found it", c.names)
		}
	}
}

// TestConvTableRapid: any sequence of names, across the index's growth,
// gets the ids a map numbering first appearances gives, and Lookup finds
// exactly the names interned.
func TestConvTableRapid(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		names := rapid.SliceOfN(rapid.StringMatching(`[ab]{0,4}|c[0-9]{1,6}`), 0, 3000).Draw(rt, "names")
		var tab ConvTable
		ref := map[string]int{}
		for _, n := range names {
			want, seen := ref[n]
			if !seen {
				want = len(ref)
				ref[n] = want
			}
			if id, ok := tab.Lookup([]byte(n)); ok != seen || (ok && id != want) {
				rt.Fatalf("Lookup(%q) before Intern = %d, %v; want %d, %v", n, id, ok, want, seen)
			}
			id, added, ok := tab.Intern([]byte(n))
			if !ok || id != want || added == seen {
				rt.Fatalf("Intern(%q) = %d added %v; want %d added %v", n, id, added, want, !seen)
			}
		}
		if tab.Len() != len(ref) {
			rt.Fatalf("Len %d, want %d", tab.Len(), len(ref))
		}
		for n, id := range ref {
			if got := string(tab.Name(id)); got != n {
				rt.Fatalf("Name(%d) = %q, want %q", id, got, n)
			}
		}
		probe := rapid.StringMatching(`[abc][0-9]{0,3}`).Draw(rt, "probe")
		if id, ok := tab.Lookup([]byte(probe)); ok != (func() bool { _, ok := ref[probe]; return ok }()) || (ok && id != ref[probe]) {
			rt.Fatalf("Lookup(%q) = %d, %v", probe, id, ok)
		}
	})
}

// compactCalls is calls for a reader with CompactNames, its names given
// back by ConvName.
func compactCalls(rd *Reader, limit int) []string {
	out := calls(rd, limit)
	names := make([]string, rd.Conversations())
	for c := range names {
		names[c] = rd.ConvName(c)
	}
	out[len(out)-1] = strings.Join(names, ",")
	return out
}

// sameCompact reports the first difference between the reader with and
// without CompactNames on data: turns, ids, errors, lines and names.
func sameCompact(data []byte) error {
	limit := bytes.Count(data, []byte{'\n'}) + 4
	want := calls(NewReader(bytes.NewReader(data), "t.jsonl"), limit)
	rd := NewReader(bytes.NewReader(data), "t.jsonl")
	rd.CompactNames = true
	got := compactCalls(rd, limit)
	for i := range max(len(got), len(want)) {
		if i >= len(got) || i >= len(want) || got[i] != want[i] {
			return fmt.Errorf("call %d: compact %v, strings %v", i, got[min(i, len(got)-1)], want[min(i, len(want)-1)])
		}
	}
	return nil
}

// TestCompactNames: the reader that interns names into a ConvTable reads
// every trace as the one that keeps strings does, call for call: valid
// traces with repeated names, and each kind of error.
func TestCompactNames(t *testing.T) {
	var big strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&big, "{\"t\": %d.5, \"conv\": \"c%d\", \"prompt\": %d, \"response\": %d}\n", i, (i*7919)%1201, 1+i%900, i%300)
	}
	inputs := []string{
		"",
		`{"t": 1, "conv": "a", "prompt": 1, "response": 0}`,
		"{\"t\": 3, \"conv\": \"a\", \"prompt\": 1, \"response\": 1}\n{\"t\": 2, \"conv\": \"b\", \"prompt\": 1, \"response\": 1}\n",
		"{\"t\": 3, \"conv\": \"a\", \"prompt\": 1, \"response\": 1}\n\nnot json\n",
		"{\"t\": 1, \"conv\": \"\\u00e9\", \"prompt\": 1, \"response\": 0}\n{\"t\": 1, \"conv\": \"é\", \"prompt\": 2, \"response\": 0}\n",
		"{\"t\": 1, \"conv\": \"\", \"prompt\": 1, \"response\": 0}\n",
		fmt.Sprintf("{\"t\": 1, \"conv\": \"a\", \"prompt\": %d, \"response\": 0}\n", int64(MaxTurnTokens)+1),
		big.String(),
	}
	for i, in := range inputs {
		if err := sameCompact([]byte(in)); err != nil {
			t.Errorf("input %d: %v", i, err)
		}
	}
}

// FuzzCompactNames compares the two ways of interning names on any input.
func FuzzCompactNames(f *testing.F) {
	f.Add([]byte("{\"t\": 1, \"conv\": \"a\", \"prompt\": 1, \"response\": 0}\n{\"t\": 2, \"conv\": \"b\", \"prompt\": 1, \"response\": 0}\n{\"t\": 3, \"conv\": \"a\", \"prompt\": 1, \"response\": 0}"))
	f.Add([]byte("\n{\"t\": 1, \"conv\": \"\\u00e9\", \"prompt\": 1, \"response\": 0, \"user\": \"u\"}\r\n\n{bad\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := sameCompact(data); err != nil {
			t.Fatal(err)
		}
	})
}

// BenchmarkConvTableGC: one full garbage collection (ns/op) with the names
// of 4·10^6 conversations ("c0", "c1", …) held as the Reader held them,
// a map[string]int and a []string ("map"), and as a ConvTable ("table"),
// with the heap they take per conversation (B/conv). A 10^8-turn trace has
// 2·10^7 of them.
func BenchmarkConvTableGC(b *testing.B) {
	const n = 4_000_000
	for _, kind := range []string{"map", "table"} {
		b.Run(kind, func(b *testing.B) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			var ids map[string]int
			var names []string
			var tab ConvTable
			buf := []byte{}
			if kind == "map" {
				ids = map[string]int{}
			}
			for i := range n {
				buf = strconv.AppendInt(append(buf[:0], 'c'), int64(i), 10)
				if kind == "map" {
					s := string(buf)
					ids[s], names = len(names), append(names, s)
				} else {
					tab.Intern(buf)
				}
			}
			runtime.GC()
			runtime.ReadMemStats(&after)
			for b.Loop() {
				runtime.GC()
			}
			b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n, "B/conv")
			runtime.KeepAlive(ids)
			runtime.KeepAlive(names)
			runtime.KeepAlive(&tab)
		})
	}
}
