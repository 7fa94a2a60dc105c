package lp

import (
	"context"
	"flag"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tailbound/tailbound/belady"
	"github.com/tailbound/tailbound/experiments/policies"
	"github.com/tailbound/tailbound/experiments/sim"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/replay"
	"github.com/tailbound/tailbound/models/trace"
)

var long = flag.Bool("lp.long", false, "run the long random cross-checks (thousands of instances)")

// tol is the TEL tolerance, tokens: TELs here are sums of at most a few
// dozen terms of at most a few hundred tokens with quarter fractions, exact
// in float64, and LP solvers are accurate to 1e-9 relative.
const tol = 1e-6

func near(a, b float64) bool { return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b)) }

func mustInstance(t testing.TB, c tinyCase) *Instance {
	t.Helper()
	in, err := NewInstance(c.tr, c.capacity, c.block, c.xi, c.forced)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// TestSavingsExact checks the pieces against the excess function at every
// whole number of blocks up to the cap.
func TestSavingsExact(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 3000; i++ {
		c := randomTiny(r, 6, 40, int64(1+r.IntN(8)), false)
		c.capacity = c.block * r.Int64N(30)
		c.xi = []float64{0, 3, -4, 0.5, 17.75, 100, -0.25, 1e-9, 7.1}[r.IntN(9)]
		in := mustInstance(t, c)
		h := in.FracH()
		for n := range in.Turns {
			p := in.Prev[n]
			if p < 0 {
				continue
			}
			segs := in.Savings(n)
			var z int64
			saved := 0.0
			check := func() {
				want := in.Excess(n, 0) - in.Excess(n, z*in.Block)
				if math.Abs(saved-want) > 1e-9 {
					t.Fatalf("%v turn %d: %d blocks save %v by pieces %v, %v by the excess", c, n, z, saved, segs, want)
				}
			}
			check()
			for _, sg := range segs {
				if sg.PerBlock(h) <= 0 || sg.PerBlock(h) > float64(in.Block) {
					t.Fatalf("%v: piece %v saves %v per block", c, sg, sg.PerBlock(h))
				}
				for b := int64(0); b < sg.Blocks; b++ {
					z++
					saved += sg.PerBlock(h)
					check()
				}
			}
			for ; z < in.MaxKeep(p); z++ { // blocks beyond the pieces save nothing
				check()
			}
			check()
		}
	}
}

// TestTinyAgainstEnumeration: every formulation × {IP, LP} × backend on tiny
// instances against the exhaustive optimum.
func TestTinyAgainstEnumeration(t *testing.T) {
	n := 150
	if *long {
		n = 3000
	}
	r := rand.New(rand.NewPCG(3, 4))
	ctx := context.Background()
	lpDiff := 0
	for i := 0; i < n; i++ {
		block := int64(1 + r.IntN(3))
		forced := i%4 == 3
		c := randomTiny(r, 5, 4, block, forced)
		in := mustInstance(t, c)
		opt := bruteOpt(c.tr, c.capacity, c.block, c.xi, c.forced)

		fl, err := SolveFlow(ctx, in, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if fl.Status != Optimal || !near(fl.TEL, opt) || fl.ScheduleErr != nil {
			t.Fatalf("%v: flow %v TEL %v (schedule %v), enumeration %v", c, fl.Status, fl.TEL, fl.ScheduleErr, opt)
		}
		var lps []float64
		for _, bo := range []BuildOptions{{}, {IntervalRows: true}} {
			for _, f := range []Formulation{Compact, Paper} {
				m, err := Build(in, f, bo)
				if err != nil {
					t.Fatal(err)
				}
				ip, err := SolveModel(ctx, m, Gonum{}, false, Options{})
				if err != nil {
					t.Fatal(err)
				}
				if ip.Status != Optimal || !near(ip.TEL, opt) || !ip.Integral || ip.ScheduleErr != nil || !near(ip.ScheduleTEL, opt) {
					t.Fatalf("%v: %s IP %v TEL %v schedule TEL %v (%v), enumeration %v", c, f, ip.Status, ip.TEL, ip.ScheduleTEL, ip.ScheduleErr, opt)
				}
				rl, err := SolveModel(ctx, m, Gonum{}, true, Options{})
				if err != nil {
					t.Fatal(err)
				}
				if rl.Status != Optimal || rl.TEL > opt+tol {
					t.Fatalf("%v: %s LP %v %v above the IP optimum %v", c, f, rl.Status, rl.TEL, opt)
				}
				lps = append(lps, rl.TEL)
			}
		}
		for _, v := range lps[1:] {
			if !near(v, lps[0]) {
				t.Fatalf("%v: LP relaxations differ: %v", c, lps)
			}
		}
		// Interval-matrix LP with unit coefficients is integral at B = 1
		// with whole-token ξ.
		if block == 1 && c.xi == math.Floor(c.xi) && !near(lps[0], opt) {
			t.Fatalf("%v: B=1 integer ξ LP %v ≠ IP %v", c, lps[0], opt)
		}
		if !near(lps[0], opt) {
			lpDiff++
		}
		if !forced {
			aw := bruteAsWritten(c.tr, c.capacity, c.block, c.xi)
			m, err := Build(in, PaperAsWritten, BuildOptions{})
			if err != nil {
				t.Fatal(err)
			}
			ip, err := SolveModel(ctx, m, Gonum{}, false, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if ip.Status != Optimal || !near(ip.TEL, aw) {
				t.Fatalf("%v: paper-as-written IP %v %v, its enumeration %v", c, ip.Status, ip.TEL, aw)
			}
		}
	}
	t.Logf("%d instances; the LP relaxation is below the IP optimum on %d", n, lpDiff)
}

// toBeladyTEL replays Tail-Optimized Belady.
func toBeladyTEL(t testing.TB, in *Instance, tr *trace.Trace) float64 {
	t.Helper()
	es, err := policies.Parse("to-belady")
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Trace(tr, es, sim.Settings{Options: replay.Options{Params: instance.Params{Capacity: in.Capacity, BlockSize: in.Block, Xi: in.Xi, Forced: in.Forced},
		Model: latency.Default(), SLOMs: latency.DefaultSLOMs}})
	if err != nil {
		t.Fatal(err)
	}
	return res[0].Summary.TELTokens
}

var _ = belady.NewTailOptimized

// TestFlowAgainstIP: flow equals the gonum branch-and-bound optimum of the
// compact IP on random instances at B = 1..8, and Tail-Optimized Belady's
// TEL at B = 1 with whole-token ξ (Theorem 1).
func TestFlowAgainstIP(t *testing.T) {
	n := 300
	if *long {
		n = 3000
	}
	r := rand.New(rand.NewPCG(5, 6))
	ctx := context.Background()
	for i := 0; i < n; i++ {
		block := int64(1 + i%8)
		c := randomTiny(r, 9, 6*block, block, i%5 == 4)
		c.capacity = block * r.Int64N(8)
		in := mustInstance(t, c)
		fl, err := SolveFlow(ctx, in, Options{})
		if err != nil {
			t.Fatal(err)
		}
		ip, err := SolveInstance(ctx, in, Compact, Gonum{}, false, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if ip.Status != Optimal {
			t.Fatalf("%v: gonum %v %s", c, ip.Status, ip.Detail)
		}
		if fl.Status != Optimal || !near(fl.TEL, ip.TEL) || fl.ScheduleErr != nil {
			t.Fatalf("%v: flow %v %v (%v), IP %v", c, fl.Status, fl.TEL, fl.ScheduleErr, ip.TEL)
		}
		if block == 1 && c.xi == math.Floor(c.xi) {
			if b := toBeladyTEL(t, in, c.tr); !near(b, fl.TEL) {
				t.Fatalf("%v: to-belady %v ≠ flow %v at B=1", c, b, fl.TEL)
			}
		}
	}
}

// TestFlowMethodsAgree: the min-cost flow algorithms give the same
// optimum on random instances (and the enumeration on the tiny ones).
func TestFlowMethodsAgree(t *testing.T) {
	n := 400
	if *long {
		n = 5000
	}
	r := rand.New(rand.NewPCG(7, 8))
	ctx := context.Background()
	for i := 0; i < n; i++ {
		block := int64(1 + r.IntN(6))
		c := randomTiny(r, 30, 8*block, block, i%4 == 3)
		c.capacity = block * r.Int64N(12)
		in := mustInstance(t, c)
		var tels []float64
		for _, m := range FlowMethods() {
			res, err := SolveFlowWith(ctx, in, Options{}, m)
			if err != nil || res.Status != Optimal || res.ScheduleErr != nil {
				t.Fatalf("%v: %s: %v %v %v %s", c, m, err, res.Status, res.ScheduleErr, res.Detail)
			}
			tels = append(tels, res.TEL)
		}
		for _, tel := range tels {
			if !near(tel, tels[0]) {
				t.Fatalf("%v: %v: %v", c, FlowMethods(), tels)
			}
		}
		if len(c.tr.Turns) <= 5 && c.capacity <= 4*block {
			if opt := bruteOpt(c.tr, c.capacity, c.block, c.xi, c.forced); !near(tels[0], opt) {
				t.Fatalf("%v: flow %v, enumeration %v", c, tels[0], opt)
			}
		}
	}
}

// TestCensus counts, on random instances with many interleaved
// conversations, where the plain LP relaxation of the compact IP falls
// below the flow optimum (claim 10) and where Tail-Optimized Belady misses
// it (Theorem 1's scope), by block size and kind of ξ. It asserts only
// what must hold (LP ≤ IP = flow ≤ to-belady; LP = IP and to-belady = IP
// at B = 1 with whole-token ξ) and logs the counts.
func TestCensus(t *testing.T) {
	n := 40
	if *long {
		n = 2000
	}
	ctx := context.Background()
	for _, block := range []int64{1, 2, 4, 8} {
		for _, frac := range []bool{false, true} {
			r := rand.New(rand.NewPCG(uint64(block), map[bool]uint64{false: 1, true: 2}[frac]))
			lpBelow, belOff := 0, 0
			for i := 0; i < n; i++ {
				tr := &trace.Trace{}
				for k := 0; k < 14; k++ {
					tr.Append(float64(k), string(rune('a'+r.IntN(5))), 1+r.Int64N(3*block), r.Int64N(3*block))
				}
				xi := float64(r.IntN(4 * int(block)))
				if frac {
					xi += 0.5
				}
				in, err := NewInstance(tr, block*(1+r.Int64N(4)), block, xi, false)
				if err != nil {
					t.Fatal(err)
				}
				fl, err := SolveFlow(ctx, in, Options{})
				if err != nil {
					t.Fatal(err)
				}
				ip, err := SolveInstance(ctx, in, Compact, Gonum{}, false, Options{})
				if err != nil || ip.Status != Optimal || !near(ip.TEL, fl.TEL) {
					t.Fatalf("IP %v %v ≠ flow %v", err, ip, fl.TEL)
				}
				rl, err := SolveInstance(ctx, in, Compact, Gonum{}, true, Options{})
				if err != nil || rl.Status != Optimal || rl.TEL > fl.TEL+tol {
					t.Fatalf("LP %v %v above flow %v", err, rl, fl.TEL)
				}
				bel := toBeladyTEL(t, in, tr)
				if bel < fl.TEL-tol {
					t.Fatalf("to-belady %v below the optimum %v", bel, fl.TEL)
				}
				if !near(rl.TEL, fl.TEL) {
					lpBelow++
				}
				if !near(bel, fl.TEL) {
					belOff++
				}
				if block == 1 && !frac && (lpBelow > 0 || belOff > 0) {
					t.Fatalf("B=1, whole-token ξ: LP %v, to-belady %v, optimum %v", rl.TEL, bel, fl.TEL)
				}
			}
			t.Logf("B=%d fractional ξ=%v: LP relaxation below the optimum on %d/%d, to-belady above it on %d/%d", block, frac, lpBelow, n, belOff, n)
		}
	}
}
