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
		cfgs := []wideOptions{{nodeLimit: nodes, dom: true, rcFix: true}, {nodeLimit: nodes, rcFix: true}, {nodeLimit: nodes, dom: true}, {nodeLimit: nodes, dom: true, rcFix: true, rootIter: 100}}
		if os.Getenv("TAILBOUND_WIDE_ONE") != "" {
			cfgs = cfgs[:1]
		}
		for _, cfg := range cfgs {
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

// TestWideSweepReference is a measuring tool: with TAILBOUND_WIDE_SWEEP
// set (size,nodes,seed,turns[,limit,sweepLimit]), it runs Violations
// (under limit seconds, if given) on the paper instance of that seed and
// turns, then sweeps wide windows over
// its schedule and logs the violations before and after and the time.
func TestWideSweepReference(t *testing.T) {
	spec := os.Getenv("TAILBOUND_WIDE_SWEEP")
	if spec == "" {
		t.Skip("measuring tool: set TAILBOUND_WIDE_SWEEP=size,nodes,seed,turns[,limit s,sweep limit s]")
	}
	f := splitComma(spec)
	size, _ := strconv.Atoi(f[0])
	nodes, _ := strconv.Atoi(f[1])
	seed, _ := strconv.Atoi(f[2])
	turns, _ := strconv.Atoi(f[3])
	in := paperInstance(t, turns, uint64(seed))
	start := time.Now()
	var limit, sweepLimit time.Duration
	if len(f) > 5 {
		a, _ := strconv.Atoi(f[4])
		b, _ := strconv.Atoi(f[5])
		limit, sweepLimit = time.Duration(a)*time.Second, time.Duration(b)*time.Second
	}
	r, err := Violations(context.Background(), in, 1900, Options{TimeLimit: limit})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Violations: [%d, %d] in %.1fs", r.Lower, r.Upper, time.Since(start).Seconds())
	pr := reduce(in, 1900)
	served := pr.fromSchedule(r.Schedule)
	base := in.K() - pr.always
	t.Logf("start: %d violations", base-count(served))
	ctx := context.Background()
	if sweepLimit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, sweepLimit)
		defer cancel()
	}
	for pass := 0; pass < 4; pass++ {
		start = time.Now()
		sw, err := pr.sweepWide(ctx, served, size, 1, wideOptions{nodeLimit: nodes, dom: true, rcFix: true})
		if err != nil {
			t.Fatal(err)
		}
		x := pr.schedule(served)
		if err := in.CheckSchedule(x); err != nil {
			t.Fatal(err)
		}
		t.Logf("pass %d: %+v -> %d violations (Count %d), %.1fs", pass, sw, base-count(served), Count(in, x, 1900), time.Since(start).Seconds())
		if sw.Gained == 0 {
			break
		}
	}
}
