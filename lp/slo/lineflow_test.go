package slo

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// seeded prefixes a test's failures with the seed of the draw.
type seeded struct {
	t    *testing.T
	seed int
}

func (s *seeded) Fatalf(format string, args ...any) {
	s.t.Helper()
	s.t.Fatalf("seed %d: %s", s.seed, fmt.Sprintf(format, args...))
}

// lineObjective is Σ w_i f_i over the members with arcs, the part of the
// LP's value that depends on the flow.
func lineObjective(lf *lineFlow) int64 {
	var v int64
	for i, f := range lf.f {
		if lf.w[i] > 0 {
			v += lf.w[i] * f
		}
	}
	return v
}

// checkCertificate fails unless lf's state is a feasible flow for its
// fixings (balanced, within every bound, fixed members at theirs) whose
// potentials give every residual arc a reduced cost ≥ 0, which proves it
// optimal.
func checkCertificate(t interface{ Fatalf(string, ...any) }, lf *lineFlow) {
	m := lf.m
	load := make([]int64, len(lf.s))
	for i, f := range lf.f {
		if f < 0 || f > m.d[i] {
			t.Fatalf("member %d: flow %d outside [0, %d]", i, f, m.d[i])
		}
		switch {
		case lf.fix[i] == 1 && f != m.d[i], lf.fix[i] == -1 && f != 0, lf.fix[i] == 0 && lf.w[i] <= 0 && f != 0:
			t.Fatalf("member %d (fix %d, w %d): flow %d", i, lf.fix[i], lf.w[i], f)
		}
		for j := m.lo[i]; j < m.hi[i]; j++ {
			load[j] += f
		}
		if !lf.arc(int32(i)) {
			continue
		}
		r := -lf.w[i] + lf.pi[m.lo[i]] - lf.pi[m.hi[i]]
		if f < m.d[i] && r < 0 || f > 0 && r > 0 {
			t.Fatalf("member %d: flow %d of %d at reduced cost %d", i, f, m.d[i], r)
		}
	}
	for j, s := range lf.s {
		if s != m.segCap[j]-load[j] || s < 0 {
			t.Fatalf("segment %d: flow %d, capacity %d, load %d", j, s, m.segCap[j], load[j])
		}
		r := lf.pi[j] - lf.pi[j+1]
		if s < m.segCap[j] && r < 0 || s > 0 && r > 0 {
			t.Fatalf("segment %d: flow %d of %d at reduced cost %d", j, s, m.segCap[j], r)
		}
	}
	for v, e := range lf.ex {
		if e != 0 {
			t.Fatalf("node %d: excess %d", v, e)
		}
	}
}

// agree solves fix by warm (carried when it can) and by ref from scratch
// and fails unless both are infeasible or warm's flow is proven optimal
// at ref's value; it reports whether fix is feasible.
func agree(t interface{ Fatalf(string, ...any) }, label string, warm, ref *lineFlow, fix []int8) bool {
	ctx := context.Background()
	errW, errR := warm.solve(ctx, fix), ref.cold(ctx, fix)
	if errors.Is(errR, errInfeasible) {
		if !errors.Is(errW, errInfeasible) {
			t.Fatalf("%s: cold infeasible, carried %v", label, errW)
		}
		return false
	}
	if errR != nil || errW != nil {
		t.Fatalf("%s: cold %v, carried %v", label, errR, errW)
	}
	checkCertificate(t, warm)
	if a, b := lineObjective(warm), lineObjective(ref); a != b {
		t.Fatalf("%s: carried value %d, cold %d", label, a, b)
	}
	return true
}

// lineComponent draws a line of 1..maxSeg segments of capacity 0..40
// blocks and 1..maxItems members of demand 1..12 blocks over random spans.
func lineComponent(r *rand.Rand, maxSeg, maxItems int) *component {
	caps := make([]int64, 1+r.IntN(maxSeg))
	for j := range caps {
		caps[j] = r.Int64N(41)
	}
	items := make([][3]int64, 1+r.IntN(maxItems))
	for i := range items {
		lo := r.Int64N(int64(len(caps)))
		hi := lo + 1 + r.Int64N(min(int64(len(caps))-lo, 8))
		items[i] = [3]int64{lo, hi, 1 + r.Int64N(12)}
	}
	return handComponent(caps, items)
}

// TestLineFlowCarryMatchesCold: along random chains of fixings (each
// extending the last, as a branch and bound goes down), the flow carried
// by successive shortest paths has the cold solve's (network simplex)
// value at every step, carries a certificate of optimality, and reports
// infeasibility exactly when the cold solve does; a saved state loaded
// back carries on as before.
func TestLineFlowCarryMatchesCold(t *testing.T) {
	steps, carried := 0, 0
	for seed := range 3000 {
		r := rand.New(rand.NewPCG(uint64(seed), 2))
		m := lineComponent(r, 1+r.IntN(60), 1+r.IntN(120))
		rt := &seeded{t, seed}
		n := len(m.members)
		most := int64(1 << 40)
		if seed%8 == 0 {
			// demands beyond an int32: the snapshots keep int64 flows
			for i := range m.d {
				m.d[i] <<= 32
			}
			for j := range m.segCap {
				m.segCap[j] <<= 32
			}
			most = 1 << 20
		}
		w := make([]int64, n)
		for i := range w {
			if r.IntN(6) > 0 {
				w[i] = r.Int64N(most)
			}
		}
		warm, ref := newLineFlow(m, w), newLineFlow(m, w)
		if warm.big != (seed%8 == 0) {
			rt.Fatalf("big %v", warm.big)
		}
		fix := make([]int8, n)
		var saved flowState
		savedAt := -1
		for step := 0; step < 2*n; step++ {
			if step > 0 {
				i := r.IntN(n)
				if fix[i] != 0 {
					continue
				}
				fix[i] = -1
				if r.IntN(3) == 0 {
					fix[i] = 1
				}
			}
			if warm.valid {
				carried++
			}
			if !agree(rt, fmt.Sprintf("step %d", step), warm, ref, fix) {
				break
			}
			steps++
			if savedAt < 0 && r.IntN(4) == 0 {
				warm.save(&saved)
				savedAt = step
			}
		}
		// a sibling: one fixing undone, another flipped; the state does
		// not extend to it and must be solved afresh
		for i := range fix {
			if fix[i] != 0 {
				fix[i] = 0
				break
			}
		}
		for i := len(fix) - 1; i >= 0; i-- {
			if fix[i] != 0 {
				fix[i] = -fix[i]
				break
			}
		}
		agree(rt, "sibling", warm, ref, fix)
		if savedAt >= 0 {
			// back to the saved node and down again by another chain
			warm.load(&saved)
			for i, v := range saved.fix {
				fix[i] = v
			}
			for i := range fix {
				if fix[i] == 0 && r.IntN(3) == 0 {
					fix[i] = -1
				}
			}
			if !warm.extends(fix) {
				rt.Fatalf("fixings do not extend the saved state's")
			}
			agree(rt, "after load", warm, ref, fix)
		}
	}
	t.Logf("%d steps checked, %d of them carried", steps, carried)
	if carried < 100 {
		t.Fatalf("only %d carried steps", carried)
	}
}

// BenchmarkLineFlow solves the flow LP of the first 333-row stretch of
// the 10^4-turn instance (seed 1, at the LP's split) along a dive of 40
// fixings, each member fixed to the side of its LP value, by carrying
// the flow from the last node (carried) and from scratch by the network
// simplex (cold), the baseline; both report the LPs solved per second
// beside the time.
func BenchmarkLineFlow(b *testing.B) {
	m, _ := stretchBenchComponent(b, 1)
	sd := lpSplit(b, m, 333)
	c, P, _ := sd.stretchComponent(sd.wins[0])
	w := make([]int64, len(P))
	for i, p := range P {
		if p > 0 {
			w[i] = (p << (flowScale - muBits)) / c.d[i]
		}
	}
	// the dive: fixings taken from the cold solve's points
	ctx := context.Background()
	ref := newLineFlow(c, w)
	fix := make([]int8, len(P))
	var chain [][]int8
	for range 40 {
		if err := ref.cold(ctx, fix); err != nil {
			break
		}
		// the most fractional free member, else the first free one
		br, best := -1, math.Inf(1)
		for i := range fix {
			if fix[i] != 0 || w[i] <= 0 {
				continue
			}
			if f := math.Abs(2*float64(ref.f[i])/float64(c.d[i]) - 1); f < best {
				br, best = i, f
			}
		}
		if br < 0 {
			break
		}
		fix[br] = -1
		if 2*ref.f[br] >= c.d[br] {
			fix[br] = 1
		}
		chain = append(chain, slices.Clone(fix))
	}
	for _, mode := range []string{"carried", "cold"} {
		b.Run(mode, func(b *testing.B) {
			lps := 0
			for b.Loop() {
				lf := newLineFlow(c, w)
				if err := lf.cold(ctx, make([]int8, len(P))); err != nil {
					b.Fatal(err)
				}
				for _, f := range chain {
					solve := lf.solve
					if mode == "cold" {
						solve = lf.cold
					}
					if err := solve(ctx, f); err != nil && !errors.Is(err, errInfeasible) {
						b.Fatal(err)
					}
					lps++
				}
			}
			b.ReportMetric(float64(lps)/b.Elapsed().Seconds(), "LPs/s")
		})
	}
}
