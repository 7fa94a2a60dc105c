package slo

import (
	"context"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// paperDump builds the dump of spec "paper:TURNS:SEED[:LIMIT]": the
// largest component of paperInstance(TURNS, SEED) at SLO 1,900 tokens with
// the served set of Violations without a time limit (deterministic), or
// under LIMIT seconds.
func paperDump(t testing.TB, spec string) programFile {
	f := strings.Split(spec, ":")
	turns, _ := strconv.Atoi(f[1])
	seed, _ := strconv.Atoi(f[2])
	var opt Options
	if len(f) > 3 {
		// paper:TURNS:SEED:LIMIT: the schedule of Violations under a time
		// limit of LIMIT seconds (not deterministic)
		sec, _ := strconv.Atoi(f[3])
		opt.TimeLimit = time.Duration(sec) * time.Second
	}
	c := largestProgram(t, turns, uint64(seed), opt)
	t.Logf("paper instance %d turns, seed %d: Violations [%d, %d]", turns, seed, c.Lower, c.Upper)
	return c
}

// TestWideWindowReference is a measuring tool, not a check: with
// TAILBOUND_WIDE_COMPONENT naming a component dump (JSON with d, lo, hi,
// segCap and x, the served set; the coordinator's reference windows of
// issue 32), or "paper:TURNS:SEED" to build it (paperDump; written to
// TAILBOUND_WIDE_DUMP when set, for an outside solver), it builds the wide window of segments [s0, s0+W) exactly as
// the HiGHS reference script does — every pair intersecting it freed, the
// others kept at x — and logs the wide-window solver's nodes, time and
// result. TAILBOUND_WIDE_WINDOWS lists s0 values (default 450), W from
// TAILBOUND_WIDE_W (default 300).
func TestWideWindowReference(t *testing.T) {
	path := os.Getenv("TAILBOUND_WIDE_COMPONENT")
	if path == "" {
		t.Skip("measuring tool: set TAILBOUND_WIDE_COMPONENT")
	}
	var c programFile
	if strings.HasPrefix(path, "paper:") {
		c = paperDump(t, path)
		if out := os.Getenv("TAILBOUND_WIDE_DUMP"); out != "" {
			raw, err := json.Marshal(c)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(out, raw, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	} else {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatal(err)
		}
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
	// TAILBOUND_WIDE_LONG=L frees the pairs spanning at least L segments
	// instead (the long-pairs neighbourhood; the window is then unused).
	longL, _ := strconv.ParseInt(os.Getenv("TAILBOUND_WIDE_LONG"), 10, 64)
	for _, s0 := range starts {
		m, pick := c.windowLong(s0, W, longL)
		if !m.fits(pick) {
			t.Fatalf("window %d: the current choice does not fit", s0)
		}
		free := pick // for its length
		cur := count(pick)
		cfgs := []wideOptions{{nodeLimit: nodes, dom: true, rcFix: true}, {nodeLimit: nodes, rcFix: true}, {nodeLimit: nodes, dom: true}, {nodeLimit: nodes, dom: true, rcFix: true, rootIter: 100}}
		if os.Getenv("TAILBOUND_WIDE_ONE") != "" {
			cfgs = cfgs[:1]
		}
		if os.Getenv("TAILBOUND_WIDE_HIGH") != "" {
			cfgs = []wideOptions{{nodeLimit: nodes, dom: true, rcFix: true, branchHigh: true}}
		}
		if r := os.Getenv("TAILBOUND_WIDE_ROOT"); r != "" {
			it, _ := strconv.Atoi(r)
			for k := range cfgs {
				cfgs[k].rootIter = it
			}
		}
		for _, cfg := range cfgs {
			p := append([]bool(nil), pick...)
			start := time.Now()
			st, err := m.solveWide(context.Background(), p, cfg)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("window %d: %d free, %d rows, cur %d -> %d; dom %v rcFix %v high %v rootIter %d: root %.2f, %d nodes, exact %v, %d relations, %d rc-fixed, %.2fs",
				s0, len(free), len(m.rowSeg), cur, count(p), cfg.dom, cfg.rcFix, cfg.branchHigh, cfg.rootIter, st.Root, st.Nodes, st.Exact, st.Relations, st.RCFixed, time.Since(start).Seconds())
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
// set (W,nodes,seed,turns[,limit,sweepLimit]), it runs Violations
// (under limit seconds, if given) on the paper instance of that seed and
// turns, then sweeps windows of W segments over its schedule (sweepWide,
// stride W/2) and logs the violations before and after and the time.
func TestWideSweepReference(t *testing.T) {
	spec := os.Getenv("TAILBOUND_WIDE_SWEEP")
	if spec == "" {
		t.Skip("measuring tool: set TAILBOUND_WIDE_SWEEP=W,nodes,seed,turns[,limit s,sweep limit s]")
	}
	f := splitComma(spec)
	size, _ := strconv.Atoi(f[0]) // W, segments
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
		rootIter, _ := strconv.Atoi(os.Getenv("TAILBOUND_WIDE_ROOT"))
		one := os.Getenv("TAILBOUND_WIDE_HIGH") != ""
		sw, err := pr.sweepWide(ctx, served, size, size/2, 1, wideOptions{nodeLimit: nodes, dom: true, rcFix: true, rootIter: rootIter, oneRule: one, branchHigh: one})
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

// BenchmarkWideWindow solves the wide window of segments 600..899 of the
// 10^4-turn seed-1 component (333 free pairs, the search's deterministic
// schedule elsewhere; one pair to gain, HiGHS closes it at its root) by
// each device set, reporting nodes per solve beside the time: the
// baseline is the plain flow-LP bound.
func BenchmarkWideWindow(b *testing.B) {
	c := paperDump(b, "paper:10000:1")
	m, pick := c.window(600, 300)
	for _, bc := range []struct {
		name string
		opt  wideOptions
	}{
		{"plain", wideOptions{nodeLimit: 3000}},
		{"dominance", wideOptions{nodeLimit: 3000, dom: true}},
		{"rcfix", wideOptions{nodeLimit: 3000, rcFix: true}},
		{"both", wideOptions{nodeLimit: 3000, dom: true, rcFix: true}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var nodes, got int
			for b.Loop() {
				p := append([]bool(nil), pick...)
				st, err := m.solveWide(context.Background(), p, bc.opt)
				if err != nil {
					b.Fatal(err)
				}
				nodes, got = st.Nodes, count(p)
			}
			b.ReportMetric(float64(nodes), "nodes")
			b.ReportMetric(float64(got), "served")
		})
	}
}

// window builds the wide window of segments [s0, s0+W) of c as the HiGHS
// reference script does: every pair intersecting it freed (or, with
// longL > 0, every pair spanning at least longL segments), the others kept
// at x; it returns the window's program and the current choice.
func (c programFile) window(s0, W int) (*component, []bool) {
	return c.windowLong(s0, W, 0)
}

func (c programFile) windowLong(s0, W int, longL int64) (*component, []bool) {
	s1 := s0 + W
	var free []int
	load := make([]int64, len(c.SegCap)+1)
	for i := range c.D {
		if longL > 0 && c.Hi[i]-c.Lo[i] >= longL || longL == 0 && c.Lo[i] < int64(s1) && c.Hi[i] > int64(s0) {
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
	return m, pick
}

// TestWideComponentSweepReference is a measuring tool: with
// TAILBOUND_WIDE_CSWEEP=W,stride,nodes and TAILBOUND_WIDE_COMPONENT (as
// TestWideWindowReference) it sweeps windows of W segments of the
// component, stride apart, as the HiGHS reference script does, each
// solved with the largest-fraction rule and then, when that gained
// nothing, the most-fractional rule (nodes each), passing again while a
// pass gains; it logs the served count after each window that gains.
func TestWideComponentSweepReference(t *testing.T) {
	spec, path := os.Getenv("TAILBOUND_WIDE_CSWEEP"), os.Getenv("TAILBOUND_WIDE_COMPONENT")
	if spec == "" || path == "" {
		t.Skip("measuring tool: set TAILBOUND_WIDE_CSWEEP=W,stride,nodes and TAILBOUND_WIDE_COMPONENT")
	}
	f := splitComma(spec)
	W, _ := strconv.Atoi(f[0])
	stride, _ := strconv.Atoi(f[1])
	nodes, _ := strconv.Atoi(f[2])
	var c programFile
	if strings.HasPrefix(path, "paper:") {
		c = paperDump(t, path)
	} else {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatal(err)
		}
	}
	served := 0
	for _, x := range c.X {
		served += x
	}
	start := time.Now()
	t.Logf("start: %d served", served)
	for pass := 0; pass < 3; pass++ {
		gained := 0
		for s0 := 0; s0 < len(c.SegCap)-W/2; s0 += stride {
			m, pick := c.window(s0, W)
			cur := count(pick)
			for _, high := range []bool{true, false} {
				p := append([]bool(nil), pick...)
				if _, err := m.solveWide(context.Background(), p, wideOptions{nodeLimit: nodes, dom: true, rcFix: true, branchHigh: high}); err != nil {
					t.Fatal(err)
				}
				if got := count(p); got > cur {
					// write the window's point back into c.X
					k := 0
					for i := range c.D {
						if c.Lo[i] < int64(s0+W) && c.Hi[i] > int64(s0) {
							c.X[i] = 0
							if p[k] {
								c.X[i] = 1
							}
							k++
						}
					}
					gained += got - cur
					served += got - cur
					t.Logf("pass %d window %d: %d -> %d (high %v), %d served, %.1fs", pass, s0, cur, got, high, served, time.Since(start).Seconds())
					break
				}
			}
		}
		t.Logf("pass %d: gained %d, %d served, %.1fs", pass, gained, served, time.Since(start).Seconds())
		if gained == 0 {
			break
		}
	}
	// the final set must fit every segment
	load := make([]int64, len(c.SegCap)+1)
	for i, x := range c.X {
		if x == 1 {
			load[c.Lo[i]] += c.D[i]
			load[c.Hi[i]] -= c.D[i]
		}
	}
	var run int64
	for s, cp := range c.SegCap {
		run += load[s]
		if run > cp {
			t.Fatalf("segment %d over capacity", s)
		}
	}
}
