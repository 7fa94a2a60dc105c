package lp_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/exhaustive"
	"github.com/tailbound/tailbound/lp/mcf"
	"github.com/tailbound/tailbound/models/importer/importertest"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/trace"
	"pgregory.net/rapid"
)

// checkCurve solves the curve of in at caps, warm (and cold too when cold
// is set), and checks
// every capacity's result: optimal, its schedule admissible, and its TEL
// equal to SolveFlow's at that capacity alone and to the network simplex's
// on SolveFlow's network (a solver sharing no code with the primal–dual
// method). It returns the warm curve's results.
func checkCurve(t testing.TB, fail func(string, ...any), in *lp.Instance, caps []int64, simplex, cold bool) []*lp.Result {
	t.Helper()
	ctx := context.Background()
	var out []*lp.Result
	for _, warm := range []bool{true, false} {
		if !warm && !cold {
			break
		}
		rs, err := lp.SolveFlowCurve(ctx, in, caps, lp.Options{}, warm)
		if err != nil {
			fail("curve %v (warm %v): %v", caps, warm, err)
			return nil
		}
		for i, c := range caps {
			r := rs[i]
			if r.Status != lp.Optimal || r.ScheduleErr != nil {
				fail("C=%d (warm %v): %v %v (%s)", c, warm, r.Status, r.ScheduleErr, r.Detail)
				return nil
			}
			one := *in
			one.Capacity = c
			sep, err := lp.SolveFlow(ctx, &one, lp.Options{})
			if err != nil || sep.Status != lp.Optimal {
				fail("C=%d: SolveFlow %v", c, err)
				return nil
			}
			if !near(r.TEL, sep.TEL) {
				fail("C=%d (warm %v, %s): curve TEL %v tokens, SolveFlow %v", c, warm, r.Detail, r.TEL, sep.TEL)
				return nil
			}
			if simplex {
				ns, err := lp.SolveFlowWith(ctx, &one, lp.Options{}, mcf.NetworkSimplex)
				if err != nil || ns.Status != lp.Optimal {
					fail("C=%d: network simplex %v", c, err)
					return nil
				}
				if !near(r.TEL, ns.TEL) {
					fail("C=%d (warm %v): curve TEL %v tokens, network simplex %v", c, warm, r.TEL, ns.TEL)
					return nil
				}
			}
		}
		if warm {
			out = rs
		}
	}
	return out
}

// TestFlowCurveRapid: on random traces (many interleaved conversations),
// optional and forced caching, B = 1..16, whole and fractional ξ, and
// capacity lists with zero, duplicates and any order, the warm-started
// curve's optimum at every capacity equals SolveFlow's at that capacity
// alone and the network simplex's, and so does the cold curve's.
func TestFlowCurveRapid(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		r := rand.New(rand.NewPCG(rapid.Uint64().Draw(rt, "seed"), 2))
		tr := &trace.Trace{}
		convs := 2 + r.IntN(10)
		for k := 10 + r.IntN(150); k > 0; k-- {
			tr.Append(float64(k), fmt.Sprint("c", r.IntN(convs)), 1+r.Int64N(60), r.Int64N(60))
		}
		block := rapid.SampledFrom([]int64{1, 2, 3, 8, 16}).Draw(rt, "block")
		p := instance.Params{Capacity: block, BlockSize: block,
			Xi:     rapid.SampledFrom([]float64{0, 3, 10.5, 25, -2.25, 100}).Draw(rt, "xi"),
			Forced: rapid.Bool().Draw(rt, "forced")}
		in, err := lp.NewInstance(tr, p)
		if err != nil {
			rt.Fatal(err)
		}
		blocks := rapid.SliceOfN(rapid.Int64Range(0, 40), 1, 8).Draw(rt, "blocks")
		caps := make([]int64, len(blocks))
		for i, b := range blocks {
			caps[i] = b * block
		}
		checkCurve(t, rt.Fatalf, in, caps, true, true)
	})
}

// TestFlowCurveBrute: on tiny traces the curve's optimum at every capacity
// equals the exhaustive enumeration of schedules (lp/exhaustive), which
// knows nothing of flows.
func TestFlowCurveBrute(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	ctx := context.Background()
	for i := 0; i < 300; i++ {
		c := randomTiny(r, 6, 20, int64(1+r.IntN(4)), i%2 == 1)
		in := mustInstance(t, c)
		caps := []int64{3 * c.BlockSize, 0, c.BlockSize, 3 * c.BlockSize, 2 * c.BlockSize, 5 * c.BlockSize}
		rs, err := lp.SolveFlowCurve(ctx, in, caps, lp.Options{}, true)
		if err != nil {
			t.Fatalf("case %d %v: %v", i, c, err)
		}
		for k, cap := range caps {
			p := c.Params
			p.Capacity = cap
			if want := exhaustive.Optimum(c.tr, p); rs[k].Status != lp.Optimal || !near(rs[k].TEL, want) {
				t.Fatalf("case %d %v, C=%d: curve %v TEL %v tokens, enumeration %v", i, c, cap, rs[k].Status, rs[k].TEL, want)
			}
		}
	}
}

// TestFlowCurveBirthDeath: 2,000 turns of the default birth–death workload,
// B = 16, ξ = 300 tokens, 16 capacities from 8,192 to 262,144 tokens in
// steps of 2^(1/3) (rounded to blocks), optional and forced: every warm
// point equals a separate SolveFlow, and the optimum does not increase
// with capacity (a larger cache can hold whatever a smaller one holds).
func TestFlowCurveBirthDeath(t *testing.T) {
	tr := birthDeath(t, 2000)
	caps := curveCapacities(8192, 16)
	for _, forced := range []bool{false, true} {
		in, err := lp.NewInstance(tr, instance.Params{Capacity: 16, BlockSize: 16, Xi: 300, Forced: forced})
		if err != nil {
			t.Fatal(err)
		}
		rs := checkCurve(t, t.Fatalf, in, caps, false, false)
		for i := 1; i < len(rs) && !forced; i++ {
			if rs[i].TEL > rs[i-1].TEL+1e-6 {
				t.Errorf("optional caching: TEL_opt %v at C=%d above %v at C=%d", rs[i].TEL, caps[i], rs[i-1].TEL, caps[i-1])
			}
		}
	}
}

// curveCapacities returns n capacities from lo tokens up in steps of
// 2^(1/3), each rounded down to a multiple of 16 tokens.
func curveCapacities(lo int64, n int) []int64 {
	caps := make([]int64, n)
	for k := range caps {
		c := float64(lo)
		for range k {
			c *= 1.2599210498948732
		}
		caps[k] = int64(c) / 16 * 16
	}
	return caps
}

// TestFlowCurveMooncake: on the Mooncake conversation trace (12,031 turns)
// at capacities 2^14, 2^17 (twice), 1.25·2^17, 2^20, 1.25·2^20 and 2^23
// tokens (unsorted), B = 16, ξ = 1900 tokens, optional and forced caching,
// the warm-started curve equals separate SolveFlow solves; the two
// capacities 1.25× their neighbour are solved warm, with windows of more
// than 2,048 nodes (a first scaling phase above ε = 1), and the others,
// 8× their neighbour or more, from scratch.
func TestFlowCurveMooncake(t *testing.T) {
	if testing.Short() {
		t.Skip("seconds of solves on a real trace")
	}
	tr := importertest.MooncakeConversations(t)
	caps := []int64{1 << 23, 1 << 14, 5 << 18, 1 << 17, 1 << 20, 1 << 17, 5 << 15}
	warm := map[int64]bool{5 << 18: true, 5 << 15: true}
	for _, forced := range []bool{false, true} {
		in, err := lp.NewInstance(tr, instance.Params{Capacity: 16, BlockSize: 16, Xi: 1900, Forced: forced})
		if err != nil {
			t.Fatal(err)
		}
		rs := checkCurve(t, t.Fatalf, in, caps, false, false)
		for i, c := range caps {
			if got := strings.Contains(rs[i].Detail, "warm from"); got != warm[c] {
				t.Errorf("forced %v, C=%d: warm %v, want %v (%s)", forced, c, got, warm[c], rs[i].Detail)
			}
			if warm[c] && !strings.Contains(rs[i].Detail, "(3 warm-started)") {
				t.Errorf("forced %v, C=%d: not every window warm-started (%s)", forced, c, rs[i].Detail)
			}
		}
	}
}

// TestCurveWarmStarts: a curve warm-starts when some capacity is at most
// 1.5× the next smaller positive one, in any order, duplicates aside.
func TestCurveWarmStarts(t *testing.T) {
	for _, tc := range []struct {
		caps []int64
		want bool
	}{
		{nil, false},
		{[]int64{64}, false},
		{[]int64{0, 16}, false},       // nothing to start from at 0
		{[]int64{32, 48}, true},       // 48 = 1.5·32
		{[]int64{32, 64}, false},      // 2×
		{[]int64{64, 32, 32}, false},  // a duplicate is not a neighbour
		{[]int64{512, 32, 40}, true},  // 40 after 32, unsorted
		{[]int64{32, 49, 512}, false}, // 49 > 48
	} {
		if got := lp.CurveWarmStarts(tc.caps); got != tc.want {
			t.Errorf("CurveWarmStarts(%v) = %v, want %v", tc.caps, got, tc.want)
		}
	}
}

// TestFlowCurveFractionalXiEnds reproduces issue 35's hang: the three-turn
// trace below, B = 1 token, forced caching, capacities 16 and 20 tokens,
// at the fractional ξ seen to hang (0.1, 1.1, 33.3 tokens; costs scaled by
// 2^30): the warm solve at 20 looped inside cost scaling's augment. Every
// point must now come out optimal, well inside a 20 s time limit (a guard
// that the solve honours since the fix), at the exhaustive enumeration's
// optimum, warm and cold.
func TestFlowCurveFractionalXiEnds(t *testing.T) {
	tr := &trace.Trace{}
	tr.Append(0, "a", 2, 0)
	tr.Append(1, "b", 15, 0)
	tr.Append(2, "a", 33, 0)
	for _, xi := range []float64{0.1, 1.1, 33.3} {
		p := instance.Params{Capacity: 16, BlockSize: 1, Xi: xi, Forced: true}
		in, err := lp.NewInstance(tr, p)
		if err != nil {
			t.Fatal(err)
		}
		caps := []int64{16, 20}
		for _, warm := range []bool{true, false} {
			rs, err := lp.SolveFlowCurve(context.Background(), in, caps, lp.Options{TimeLimit: 20 * time.Second}, warm)
			if err != nil {
				t.Fatalf("ξ=%v warm %v: %v", xi, warm, err)
			}
			for i, c := range caps {
				p.Capacity = c
				if want := exhaustive.Optimum(tr, p); rs[i].Status != lp.Optimal || !near(rs[i].TEL, want) {
					t.Errorf("ξ=%v C=%d warm %v: %v TEL %v tokens (%s), enumeration %v", xi, c, warm, rs[i].Status, rs[i].TEL, rs[i].Detail, want)
				}
			}
		}
	}
}
