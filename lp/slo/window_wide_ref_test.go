package slo

import (
	"context"
	"encoding/json"
	"os"
	"strconv"
	"testing"
	"time"
)

// TestWideWindowReference is a measuring tool, not a check: with
// TAILBOUND_WIDE_COMPONENT naming a component dump (JSON with d, lo, hi,
// segCap and x, the served set; the coordinator's reference windows of
// issue 32) it builds the wide window of segments [s0, s0+W) exactly as
// the HiGHS reference script does — every pair intersecting it freed, the
// others kept at x — and logs the wide-window solver's nodes, time and
// result. TAILBOUND_WIDE_WINDOWS lists s0 values (default 450), W from
// TAILBOUND_WIDE_W (default 300).
func TestWideWindowReference(t *testing.T) {
	path := os.Getenv("TAILBOUND_WIDE_COMPONENT")
	if path == "" {
		t.Skip("measuring tool: set TAILBOUND_WIDE_COMPONENT")
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		D, Lo, Hi, SegCap []int64
		X                 []int
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	W := 300
	if s := os.Getenv("TAILBOUND_WIDE_W"); s != "" {
		W, _ = strconv.Atoi(s)
	}
	starts := []int{450}
	if s := os.Getenv("TAILBOUND_WIDE_WINDOWS"); s != "" {
		starts = nil
		for _, f := range splitComma(s) {
			v, _ := strconv.Atoi(f)
			starts = append(starts, v)
		}
	}
	nodes := 20000
	if s := os.Getenv("TAILBOUND_WIDE_NODES"); s != "" {
		nodes, _ = strconv.Atoi(s)
	}
	for _, s0 := range starts {
		s1 := s0 + W
		var free []int
		load := make([]int64, len(c.SegCap)+1)
		for i := range c.D {
			if c.Lo[i] < int64(s1) && c.Hi[i] > int64(s0) {
				free = append(free, i)
			} else if c.X[i] == 1 {
				load[c.Lo[i]] += c.D[i]
				load[c.Hi[i]] -= c.D[i]
			}
		}
		resid := make([]int64, len(c.SegCap))
		var run int64
		for s := range resid {
			run += load[s]
			resid[s] = c.SegCap[s] - run
		}
		a, e, d := make([]int, len(free)), make([]int, len(free)), make([]int64, len(free))
		pick := make([]bool, len(free))
		for k, i := range free {
			a[k], e[k], d[k], pick[k] = int(c.Lo[i]), int(c.Hi[i]), c.D[i], c.X[i] == 1
		}
		m := windowComponent(a, e, d, func(lo, hi int) int64 {
			r := resid[lo]
			for s := lo; s <= hi; s++ {
				r = min(r, resid[s])
			}
			return r
		})
		if !m.fits(pick) {
			t.Fatalf("window %d: the current choice does not fit", s0)
		}
		cur := count(pick)
		for _, cfg := range []wideOptions{{nodeLimit: nodes, dom: true, rcFix: true}, {nodeLimit: nodes, rcFix: true}, {nodeLimit: nodes, dom: true}, {nodeLimit: nodes, dom: true, rcFix: true, rootIter: 100}} {
			p := append([]bool(nil), pick...)
			start := time.Now()
			st, err := m.solveWide(context.Background(), p, cfg)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("window %d: %d free, %d rows, cur %d -> %d; dom %v rcFix %v rootIter %d: root %.2f, %d nodes, exact %v, %d relations, %d rc-fixed, %.2fs",
				s0, len(free), len(m.rowSeg), cur, count(p), cfg.dom, cfg.rcFix, cfg.rootIter, st.Root, st.Nodes, st.Exact, st.Relations, st.RCFixed, time.Since(start).Seconds())
		}
	}
}

func splitComma(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ',' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return out
}
