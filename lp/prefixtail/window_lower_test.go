package prefixtail

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"

	"pgregory.net/rapid"

	"github.com/tailbound/tailbound/lp/exhaustive"
	"github.com/tailbound/tailbound/lp/gonumlp"
	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// overlapTrace is one-block requests [1] [2] [1] [2] of 512 tokens each
// (examples/block/overlap-example.jsonl).
func overlapTrace(t *testing.T) []prefixcache.Req {
	t.Helper()
	rs := make([]blocktrace.Request, 4)
	for i := range rs {
		rs[i] = blocktrace.Request{Index: i, Time: float64(i), Input: 512, Hashes: []int64{int64(1 + i%2)}, Conv: -1}
	}
	reqs, err := prefixcache.InternAll(rs)
	if err != nil {
		t.Fatal(err)
	}
	return reqs
}

// TestLowerOverlapHandWorked: requests [1] [2] [1] [2] of 512 tokens, B =
// 512, C = 1 block, ξ = 200 tokens (a miss costs 312). With one block of
// room every chain fills the cache (C − |chain| = 0 at every step), so
// nothing is kept across a request and every request misses: OPT =
// 4·312 = 1,248 (the restrictions, [1] [2] twice, cost 624 each, so the
// upper end is 1,248 too). Two windows, {0, 1} and {2, 3}:
//
//   - no overlap: window 1's relaxation takes block 1's interval (0, 2),
//     which ends at its first request and spans none of its steps, for
//     free: request 2 hits, request 3 misses (block 2's interval (1, 3)
//     spans step 2, whose row allows 0). Lower = 624 + 312 = 936.
//   - overlap 1: window 1 reaches back to request 1, weighted 512/1024 =
//     1/2 in it and 1/2 in window 0. Block 1's interval (0, 2) now spans
//     step 1, whose row allows 0: request 2 misses. Window 0: 312 + 156 =
//     468; window 1: 156 + 312 + 312 = 780. Lower = 1,248 = OPT, proven.
//   - overlap 2 (the most: ⌊4/2⌋): weights 341/1024 and 682/1024 on
//     requests 0 and 1 in window 1 (683 and 342 in window 0): window 0
//     312·1,025/1,024, window 1 312·1,023/1,024 + 624; lower = 1,248.
//
// SLO with s = 400 tokens (every miss violates): 3 violations without the
// overlap, 1.5 + 2.5 = 4 with overlap 1, and with overlap 2 the windows'
// 1025/1024 + 3071/1024 = 4.
func TestLowerOverlapHandWorked(t *testing.T) {
	reqs := overlapTrace(t)
	for _, tc := range []struct {
		obj          Objective
		overlap      int
		lower, upper float64
		per          [2]float64
	}{
		{Objective{Kind: TEL, XiTokens: 200}, 0, 936, 1248, [2]float64{624, 312}},
		{Objective{Kind: TEL, XiTokens: 200}, 1, 1248, 1248, [2]float64{468, 780}},
		{Objective{Kind: TEL, XiTokens: 200}, 2, 1248, 1248, [2]float64{312.0 * 1025 / 1024, 312.0*1023/1024 + 624}},
		{Objective{Kind: TEL, XiTokens: 200}, 9, 1248, 1248, [2]float64{312.0 * 1025 / 1024, 312.0*1023/1024 + 624}},
		{Objective{Kind: SLO, SLOTokens: 400}, 0, 3, 4, [2]float64{2, 1}},
		{Objective{Kind: SLO, SLOTokens: 400}, 1, 4, 4, [2]float64{1.5, 2.5}},
		{Objective{Kind: SLO, SLOTokens: 400}, 2, 4, 4, [2]float64{1025.0 / 1024, 3071.0 / 1024}},
	} {
		for _, opt := range []Options{{IP: gonumlp.Backend{}}, {LP: gonumlp.Backend{}}, {Lagrange: &LagrangeOptions{}}} {
			wb, err := Windowed(context.Background(), reqs, 512, 1, tc.obj, 2, WindowOptions{LowerOverlapRequests: tc.overlap}, opt)
			if err != nil {
				t.Fatal(err)
			}
			const eps = 1e-6 // the Lagrangian's slack is 10⁻⁹ of the window's base, under 10⁻⁶ here
			if math.Abs(wb.Lower-tc.lower) > eps || wb.Upper != tc.upper || wb.Proven != (tc.lower == tc.upper) {
				t.Errorf("%v overlap %d, opt %+v: [%v, %v] proven %v, want [%v, %v]", tc.obj, tc.overlap, opt, wb.Lower, wb.Upper, wb.Proven, tc.lower, tc.upper)
			}
			for k, f := range wb.PerWindow {
				if math.Abs(f.Lower-tc.per[k]) > eps {
					t.Errorf("%v overlap %d, opt %+v: window %d lower %v, want %v", tc.obj, tc.overlap, opt, k, f.Lower, tc.per[k])
				}
			}
			if want := min(tc.overlap, 2); wb.LowerOverlapRequests != want {
				t.Errorf("overlap %d: reported %d, want %d", tc.overlap, wb.LowerOverlapRequests, want)
			}
		}
	}
}

// TestOverlapWeightsSumToOne: over random trace lengths, window counts and
// overlaps, every request's weights over the windows whose relaxations
// hold it add up to exactly 1, each in [0, 1], and a relaxation range is
// the window widened back by at most the window before's length.
func TestOverlapWeightsSumToOne(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 300).Draw(rt, "requests")
		windows := rapid.IntRange(1, n).Draw(rt, "windows")
		wo := WindowOptions{LowerOverlapRequests: rapid.IntRange(0, n+2).Draw(rt, "overlap"),
			LowerOverlapWeights: rapid.SampledFrom([]OverlapWeighting{RampWeights, HalfWeights}).Draw(rt, "weights")}
		sum := make([]float64, n)
		for w := 0; w < windows; w++ {
			lo, hi := RelaxationRange(n, windows, w, wo)
			if hi != (w+1)*n/windows || (w > 0 && lo < (w-1)*n/windows) || lo > w*n/windows {
				rt.Fatalf("window %d: range [%d, %d)", w, lo, hi)
			}
			wt := overlapWeights(n, windows, w, wo)
			for i := 0; i < hi-lo; i++ {
				v := 1.0
				if wt != nil {
					v = wt[i]
				}
				if !(v >= 0 && v <= 1) {
					rt.Fatalf("window %d, request %d: weight %v", w, lo+i, v)
				}
				sum[lo+i] += v
			}
		}
		for i, s := range sum {
			if s != 1 {
				rt.Fatalf("request %d: weights add up to %v", i, s)
			}
		}
	})
}

// TestWeightedProblemExhaustive: a problem whose requests' costs are
// weighted (the overlap's relaxations, with no history) has, by the
// integer program, the optimum that exhaustive search over eviction
// sequences finds for the weighted costs, and LP ≤ that ≥ Lagrangian:
// the program and both lower bounds take the weights as they are.
func TestWeightedProblemExhaustive(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		r := rand.New(rand.NewPCG(rapid.Uint64().Draw(rt, "seed"), 3))
		block := int64(rapid.IntRange(1, 4).Draw(rt, "block"))
		reqs := randomTrace(r, rapid.IntRange(2, 10).Draw(rt, "requests"), rapid.IntRange(4, 14).Draw(rt, "nodes"), block)
		capacity := longest(reqs) + rapid.IntRange(0, 3).Draw(rt, "extra")
		obj := randomObjective(r, rapid.SampledFrom([]Kind{TEL, SLO}).Draw(rt, "kind"), block)
		wt := make([]float64, len(reqs))
		for i := range wt {
			wt[i] = float64(r.IntN(OverlapDenominator+1)) / OverlapDenominator
		}
		want, err := exhaustive.PrefixOptimum(reqs, capacity, func(i, k int) float64 { return wt[i] * obj.Cost(reqs[i].Input, k, block) })
		if err != nil {
			rt.Fatal(err)
		}
		p, err := NewRelaxationWeighted(nil, reqs, wt, block, capacity, obj)
		if err != nil {
			rt.Fatal(err)
		}
		eps := 1e-6 * math.Max(1, want)
		b, err := p.Bound(context.Background(), Options{IP: gonumlp.Backend{}, LP: gonumlp.Backend{}, Lagrange: &LagrangeOptions{Iterations: 6}})
		if err != nil {
			rt.Fatal(err)
		}
		if b.IP == nil || b.IP.Value == nil || math.Abs(*b.IP.Value-want) > eps {
			rt.Fatalf("IP %+v, exhaustive %v", b.IP, want)
		}
		if b.LP == nil || b.LP.Value == nil || *b.LP.Value > want+eps {
			rt.Fatalf("LP %+v above the optimum %v", b.LP, want)
		}
		if b.Lagrangian != nil && b.Lagrangian.Lower > *b.LP.Value+eps {
			rt.Fatalf("Lagrangian %v above the LP's %v", b.Lagrangian.Lower, *b.LP.Value)
		}
		if b.Upper < want-eps || b.Lower > want+eps {
			rt.Fatalf("[%v, %v] misses the weighted optimum %v", b.Lower, b.Upper, want)
		}
	})
}

// TestWindowedOverlapRapid: on random small chain traces, block sizes
// 1–4 tokens, TEL and SLO, any number of windows, any lower overlap and
// any lower-bound solver, lower ≤ OPT ≤ upper with OPT from exhaustive
// search over eviction sequences; the windows cut into random runs
// (WindowedRange, as shards) give the one process's per-window figures,
// and their lower bounds' sum, rounded up for SLO with an overlap as
// merge does (TotalLower), is the one process's lower bound and still at
// most OPT. (The block level has one caching mode: the whole chain is
// admitted; there is no optional/forced choice to vary.)
func TestWindowedOverlapRapid(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		c := drawWindowCase(rt, 4, []int64{1, 2, 3, 4}, 12)
		block, reqs, capacity, obj, windows := c.block, c.reqs, c.capacity, c.obj, c.windows
		wo := WindowOptions{LowerOverlapRequests: rapid.IntRange(0, len(reqs)).Draw(rt, "overlap"),
			LowerOverlapWeights: rapid.SampledFrom([]OverlapWeighting{RampWeights, HalfWeights}).Draw(rt, "weights"),
			SeamRequests:        rapid.SampledFrom([]int{0, 0, 2}).Draw(rt, "seam")}
		opts := []Options{{}, {IP: gonumlp.Backend{}}, {LP: gonumlp.Backend{}}, {Lagrange: &LagrangeOptions{}}}
		k := rapid.IntRange(0, len(opts)-1).Draw(rt, "solver")
		want := brute(t, reqs, capacity, block, obj)
		eps := 1e-6 * math.Max(1, want)
		one, err := Windowed(context.Background(), reqs, block, capacity, obj, windows, wo, opts[k])
		if err != nil {
			rt.Fatal(err)
		}
		if one.Lower > want+eps || one.Upper < want-eps {
			rt.Fatalf("interval [%v, %v] misses OPT %v (%d windows, overlap %d, %v weights, solver %d)", one.Lower, one.Upper, want, windows, wo.LowerOverlapRequests, wo.LowerOverlapWeights, k)
		}
		l := one.LowerOverlapRequests
		if obj.Kind == SLO && l > 0 && one.Lower != math.Round(one.Lower) {
			rt.Fatalf("SLO lower bound %v with an overlap: not rounded up", one.Lower)
		}
		sum, w := 0.0, 0
		for w < windows {
			last := rapid.IntRange(w, windows-1).Draw(rt, "run end")
			run, err := WindowedRange(context.Background(), reqs, block, capacity, obj, windows, w, last, wo, opts[k])
			if err != nil {
				rt.Fatal(err)
			}
			for i, f := range run.PerWindow {
				g := one.PerWindow[w+i]
				g.Seconds, f.Seconds = 0, 0
				if f != g {
					rt.Fatalf("window %d: run's %+v, Windowed's %+v", w+i, f, g)
				}
			}
			for _, f := range run.PerWindow {
				sum += f.Lower
			}
			w = last + 1
		}
		if got := TotalLower(obj.Kind, l, sum); got != one.Lower {
			rt.Fatalf("runs' lower %v (sum %v), Windowed's %v", got, sum, one.Lower)
		}
		if windows == 1 && k == 1 && (math.Abs(one.Lower-want) > eps || math.Abs(one.Upper-want) > eps) {
			rt.Fatalf("one window with the IP: [%v, %v], OPT %v", one.Lower, one.Upper, want)
		}
	})
}

// TestLowerOverlapZeroUnchanged: an overlap of 0 requests is the windowed
// bound without one, field for field and in JSON byte for byte (the
// overlap's field is left out), on random traces, solvers and seams; so
// is an overlap with one window (nothing to reach back into).
func TestLowerOverlapZeroUnchanged(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		c := drawWindowCase(rt, 5, []int64{1, 2, 3, 4}, 14)
		block, reqs, capacity, obj, windows := c.block, c.reqs, c.capacity, c.obj, c.windows
		opts := []Options{{}, {LP: gonumlp.Backend{}}, {Lagrange: &LagrangeOptions{}}}
		opt := opts[rapid.IntRange(0, len(opts)-1).Draw(rt, "solver")]
		wo := WindowOptions{SeamRequests: rapid.IntRange(0, 3).Draw(rt, "seam")}
		base, err := Windowed(context.Background(), reqs, block, capacity, obj, windows, wo, opt)
		if err != nil {
			rt.Fatal(err)
		}
		wo0 := wo
		if windows == 1 {
			wo0.LowerOverlapRequests = rapid.IntRange(0, len(reqs)).Draw(rt, "overlap")
		}
		got, err := Windowed(context.Background(), reqs, block, capacity, obj, windows, wo0, opt)
		if err != nil {
			rt.Fatal(err)
		}
		for _, b := range []*WindowBounds{base, got} {
			for i := range b.PerWindow {
				b.PerWindow[i].Seconds = 0
			}
		}
		j1, _ := json.Marshal(base)
		j2, _ := json.Marshal(got)
		if string(j1) != string(j2) {
			rt.Fatalf("overlap %d:\n%s\nwithout:\n%s", wo0.LowerOverlapRequests, j2, j1)
		}
	})
}

// TestTotalLower: the windows' sum is rounded up only for SLO with an
// overlap (a bound on an integer from bounds on weighted counts), less
// 10⁻⁶ for the float sum; TEL and SLO without an overlap keep the sum.
func TestTotalLower(t *testing.T) {
	for _, tc := range []struct {
		k       Kind
		overlap int
		sum     float64
		want    float64
	}{
		{SLO, 1, 3.4, 4}, {SLO, 1, 4, 4}, {SLO, 1, 4 + 1e-9, 4}, {SLO, 1, 4.01, 5}, {SLO, 0, 3.4, 3.4}, {TEL, 5, 3.4, 3.4},
	} {
		if got := TotalLower(tc.k, tc.overlap, tc.sum); got != tc.want {
			t.Errorf("TotalLower(%v, %d, %v) = %v, want %v", tc.k, tc.overlap, tc.sum, got, tc.want)
		}
	}
}

// TestParseOverlapWeighting: the weightings' names read back to the
// weightings, and any other name is refused.
func TestParseOverlapWeighting(t *testing.T) {
	for _, o := range []OverlapWeighting{RampWeights, HalfWeights} {
		if got, err := ParseOverlapWeighting(o.String()); err != nil || got != o {
			t.Errorf("%v: read back as %v, %v", o, got, err)
		}
	}
	if _, err := ParseOverlapWeighting("flat"); err == nil {
		t.Error("flat: no error")
	}
}
