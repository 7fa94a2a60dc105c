package slo

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/exhaustive"
	"github.com/tailbound/tailbound/lp/gonumlp"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/trace"
)

// randomContested draws an instance and an SLO where returns compete for
// capacity: minTurns..maxTurns turns over 3..5 conversations (prompts of
// 1..2, responses of 0..1 tokens), B in 1..4, s of 1..4 tokens, and a
// capacity between the largest demand of a candidate pair and the
// largest load of all of them at one step (with 64 blocks first, to find
// them), so that some step binds whenever two candidates overlap.
func randomContested(t testing.TB, r *rand.Rand, minTurns, maxTurns int, forced bool) (tiny, int64) {
	for try := 0; ; try++ {
		c, s, ok := drawContested(t, r, minTurns, maxTurns, forced)
		if ok || try == 20 {
			return c, s
		}
	}
}

// drawContested is one draw of randomContested; ok says some step binds.
func drawContested(t testing.TB, r *rand.Rand, minTurns, maxTurns int, forced bool) (tiny, int64, bool) {
	tr := &trace.Trace{}
	convs := 3 + r.IntN(3)
	turns := minTurns + r.IntN(maxTurns-minTurns+1)
	for k := 0; k < turns; k++ {
		tr.Append(float64(k), fmt.Sprint("c", r.IntN(convs)), 1+r.Int64N(2), r.Int64N(2))
	}
	b := []int64{1, 1, 2, 3, 4}[r.IntN(5)]
	s := 1 + r.Int64N(4)
	c := tiny{tr, instance.Params{Capacity: 64 * b, BlockSize: b, Forced: forced}}
	in := mustInstance(t, c)
	pr := reduce(in, s)
	load := make([]int64, len(tr.Turns)+1)
	var maxD int64 = 1
	add := func(a, n int, d int64) {
		maxD = max(maxD, d)
		for k := a; k < n; k++ {
			load[k] += d
		}
	}
	for _, p := range pr.cands {
		add(p.a, p.n, p.d)
	}
	for n, x := range pr.x { // the free pairs (all of them, at 64 blocks)
		if p := in.Prev[n]; p >= 0 && x > 0 && !(forced && n == p+1) {
			a := p
			if forced {
				a = p + 1
			}
			add(a, n, x/b)
		}
	}
	L := slices.Max(load)
	if L <= maxD {
		return c, s, false
	}
	c.p.Capacity = b * (maxD + r.Int64N(L-maxD))
	return c, s, true
}

// componentsOf returns the members (candidate indices) of each component.
func componentsOf(pr *problem) [][]int {
	members := pr.members()
	return members
}

// TestCutsHold: on random small instances (optional and forced caching,
// B = 1..4), every cardinality and extended cover inequality holds at
// every admissible schedule (enumerated by exhaustive.AllUncached) in
// which the free turns meet the SLO, and those schedules include an
// optimal one (their best equals exhaustive.MaxMeeting): no cut removes
// every integer optimum.
func TestCutsHold(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 1))
	families := map[string]int{}
	for i := 0; i < 400; i++ {
		c, s := randomContested(t, r, 5, 6, i%2 == 1)
		in := mustInstance(t, c)
		cs, err := EnumerateCuts(in, s, 16)
		if err != nil {
			t.Fatal(err)
		}
		for _, ct := range cs.Cuts {
			families[ct.Family]++
		}
		best := -1
		exhaustive.AllUncached(c.tr, c.p, func(b []int64) {
			for _, n := range cs.Free {
				if b[n] > s {
					return
				}
			}
			meet := 0
			for _, v := range b {
				if v <= s {
					meet++
				}
			}
			best = max(best, meet)
			for _, ct := range cs.Cuts {
				got := 0
				for _, n := range ct.Turns {
					if b[n] <= s {
						got++
					}
				}
				if got > ct.Max {
					t.Fatalf("%v s=%d: %s cut at step %d (turns %v ≤ %d) broken by uncached %v", c, s, ct.Family, ct.Step, ct.Turns, ct.Max, b)
				}
			}
		})
		if want := exhaustive.MaxMeeting(c.tr, c.p, s); best != want {
			t.Fatalf("%v s=%d: best schedule serving the free turns meets %d, exhaustive %d", c, s, best, want)
		}
	}
	// The families must have been exercised, not vacuously true.
	if families["cardinality"] < 50 || families["cover"] < 50 {
		t.Fatalf("too few cuts drawn: %v", families)
	}
}

// lpRelaxation solves max Σ p_i y_i over the rows of m, y ∈ [0, 1], the
// fixed members at their value, by gonum's simplex: a second solver for
// flowBound.
func lpRelaxation(t *testing.T, m *component, p []float64, fix []int8) (float64, bool) {
	t.Helper()
	prob := &lp.Problem{NumCols: len(m.members), ColStart: []int{0}}
	byCol := make([][]int, len(m.members))
	for j := range m.segCap {
		row := len(prob.RowUp)
		any := false
		for i := range m.members {
			if m.lo[i] <= int32(j) && int32(j) < m.hi[i] {
				byCol[i] = append(byCol[i], row)
				any = true
			}
		}
		if any {
			prob.RowLo = append(prob.RowLo, math.Inf(-1))
			prob.RowUp = append(prob.RowUp, float64(m.segCap[j]))
		}
	}
	prob.NumRows = len(prob.RowUp)
	for i := range m.members {
		prob.Obj = append(prob.Obj, -p[i])
		lo, up := 0.0, 1.0
		if fix != nil && fix[i] == 1 {
			lo = 1
		}
		if fix != nil && fix[i] == -1 {
			up = 0
		}
		prob.ColLo = append(prob.ColLo, lo)
		prob.ColUp = append(prob.ColUp, up)
		for _, r := range byCol[i] {
			prob.RowIndex = append(prob.RowIndex, r)
			prob.Value = append(prob.Value, float64(m.d[i]))
		}
		prob.ColStart = append(prob.ColStart, len(prob.Value))
	}
	sol, err := gonumlp.Backend{}.Solve(context.Background(), prob, lp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sol.Status == lp.Infeasible {
		return 0, false
	}
	if sol.Status != lp.Optimal {
		t.Fatalf("gonum: %v", sol.Status)
	}
	return -sol.Obj, true
}

// TestFlowBoundAgainstSimplex: for random dyadic multipliers on the
// separated cuts and random fixings, flowBound's certified value is at
// least the LP optimum computed by gonum's simplex (plus Σ μ r) and above
// it by no more than its stated rounding Σ d·2^−S; its infeasibility
// verdict agrees with the simplex's.
func TestFlowBoundAgainstSimplex(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 2))
	checked := 0
	for i := 0; i < 400; i++ {
		c, s := randomContested(t, r, 6, 12, i%2 == 1)
		in := mustInstance(t, c)
		pr := reduce(in, s)
		for _, mem := range componentsOf(pr) {
			m := pr.newComponent(mem)
			y := make([]float64, len(mem))
			for k := range y {
				y[k] = r.Float64()
			}
			l := &lagrangian{m: m, pool: newCutPool()}
			l.pool.add(m.separate(y, -10)) // any cover found
			l.mu = make([]int64, len(l.pool.cuts))
			for k := range l.mu {
				l.mu[k] = r.Int64N(3 << muBits / 2)
			}
			P, muR := l.profits()
			var fix []int8
			if r.IntN(2) == 0 {
				fix = make([]int8, len(mem))
				for k := range fix {
					fix[k] = int8(r.IntN(3) - 1)
				}
			}
			b, _, err := m.flowBound(context.Background(), P, muR, fix)
			p := make([]float64, len(mem))
			var sumD int64
			for k := range p {
				p[k] = float64(P[k]) / (1 << muBits)
				sumD += m.d[k]
			}
			want, feasible := lpRelaxation(t, m, p, fix)
			if !feasible {
				if err != errInfeasible {
					t.Fatalf("%v: simplex says infeasible, flowBound %v", c, err)
				}
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			mr, _ := new(big.Rat).SetFrac(muR, big.NewInt(1<<muBits)).Float64()
			want += mr
			got := b.value()
			slack := float64(sumD)*math.Ldexp(1, -int(b.S)) + 1e-7
			if got < want-1e-7 || got > want+slack {
				t.Fatalf("%v: flowBound %v, simplex %v (slack %v)", c, got, want, slack)
			}
			checked++
		}
	}
	if checked < 100 {
		t.Fatalf("only %d components checked", checked)
	}
}

// TestCutBound: the Lagrangian bound with cuts never goes below the
// exhaustive optimum (pairs served, summed over components) and never
// above the plain LP's, on random small instances, optional and forced,
// B = 1..4.
func TestCutBound(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 3))
	gained := 0
	for i := 0; i < 600; i++ {
		c, s := randomContested(t, r, 6, 12, i%2 == 1)
		in := mustInstance(t, c)
		pr := reduce(in, s)
		want := exhaustive.MaxMeeting(c.tr, c.p, s) - pr.always
		var cutSum, lpSum int
		for _, mem := range componentsOf(pr) {
			m := pr.newComponent(mem)
			_, b, st, err := m.lagrangeBound(context.Background(), context.Background(), 0, 50)
			if err != nil {
				t.Fatal(err)
			}
			if st.Best > st.Root {
				t.Fatalf("%v: cut bound %v above the LP's %v", c, st.Best, st.Root)
			}
			cutSum += b.floor(len(mem))
			lpSum += int(math.Floor(st.Root + 1e-9))
		}
		if cutSum < want {
			t.Fatalf("%v s=%d: cut bound %d pairs served, exhaustive optimum %d", c, s, cutSum, want)
		}
		if cutSum < lpSum {
			gained++
		}
	}
	if gained == 0 {
		t.Fatal("the cuts never improved on the LP")
	}
	t.Logf("cuts tightened the bound on %d of 600 instances", gained)
}

// TestBranchAndBoundAgainstExhaustive: the branch and bound alone, from an
// empty schedule (no heuristic, no LP rounding), proves every component of
// random small instances (optional and forced, B = 1..4), and the pairs
// it serves plus the turns meeting the SLO anyway equal the exhaustive
// optimum; its schedule is feasible.
func TestBranchAndBoundAgainstExhaustive(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 4))
	for i := 0; i < testInstances; i++ {
		c, s := randomContested(t, r, 6, 12, i%2 == 1)
		in := mustInstance(t, c)
		pr := reduce(in, s)
		served := make([]bool, len(pr.cands))
		total := 0
		for _, mem := range componentsOf(pr) {
			got, st, err := pr.branchAndBound(context.Background(), mem, served, nil, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			if !st.Proven {
				t.Fatalf("%v s=%d: not proven (%s)", c, s, st.Stopped)
			}
			n := 0
			for _, i := range mem {
				if served[i] {
					n++
				}
			}
			if n != got {
				t.Fatalf("%v s=%d: optimum %d but the schedule serves %d", c, s, got, n)
			}
			total += got
		}
		// feasibility of the served set, step by step
		load := make([]int64, in.K())
		for i, p := range pr.cands {
			if served[i] {
				for k := p.a; k < p.n; k++ {
					load[k] += p.d
				}
			}
		}
		for k := range load {
			if load[k] > pr.cap[k] {
				t.Fatalf("%v s=%d: step %d carries %d blocks, capacity %d", c, s, k, load[k], pr.cap[k])
			}
		}
		if want := exhaustive.MaxMeeting(c.tr, c.p, s) - pr.always; total != want {
			t.Fatalf("%v s=%d: branch and bound serves %d pairs, exhaustive %d", c, s, total, want)
		}
	}
}

// TestImproverHook: the branch and bound calls its improver once per
// component with the members in order, and starts from what it returns:
// given an optimal schedule (from a first search) it proves that one, and
// the answer stays the exhaustive one.
func TestImproverHook(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 5))
	calls := 0
	for i := 0; i < 200; i++ {
		c, s := randomContested(t, r, 6, 12, i%2 == 1)
		in := mustInstance(t, c)
		pr := reduce(in, s)
		best := make([]bool, len(pr.cands))
		for _, mem := range componentsOf(pr) {
			if _, _, err := pr.branchAndBound(context.Background(), mem, best, nil, 0, 0); err != nil {
				t.Fatal(err)
			}
		}
		served := make([]bool, len(pr.cands))
		total := 0
		for _, mem := range componentsOf(pr) {
			got, st, err := pr.branchAndBound(context.Background(), mem, served, func(_ context.Context, members []int, sv []bool) {
				calls++
				if !slices.Equal(members, mem) {
					t.Errorf("improver got members %v, want %v", members, mem)
				}
				for _, i := range members {
					sv[i] = best[i]
				}
			}, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			opt := 0
			for _, i := range mem {
				if best[i] {
					opt++
				}
			}
			if !st.Proven || got != opt {
				t.Fatalf("%v s=%d: started from an optimum of %d pairs, proven %v at %d", c, s, opt, st.Proven, got)
			}
			total += got
		}
		if want := exhaustive.MaxMeeting(c.tr, c.p, s) - pr.always; total != want {
			t.Fatalf("%v s=%d: %d pairs, exhaustive %d", c, s, total, want)
		}
	}
	if calls == 0 {
		t.Fatal("the improver was never called")
	}
}
