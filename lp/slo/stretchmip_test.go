package slo

import (
	"context"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/tailbound/tailbound/lp"
)

// enumBackend solves a 0/1 program with rows Σ a x ≤ up by trying every
// point (at most 20 columns): an exact backend independent of the
// branch and bounds under test, reporting its optimum as its bound.
type enumBackend struct{}

func (enumBackend) Name() string { return "enum" }

func (enumBackend) Solve(_ context.Context, p *lp.Problem, _ lp.Options) (lp.Solution, error) {
	n := p.NumCols
	if n > 20 {
		return lp.Solution{Status: lp.TooLarge}, nil
	}
	best, bestMask := math.Inf(1), -1
	row := make([]float64, p.NumRows)
	for mask := 0; mask < 1<<n; mask++ {
		clear(row)
		obj := 0.0
		for j := range n {
			if mask&(1<<j) == 0 {
				continue
			}
			obj += p.Obj[j]
			for k := p.ColStart[j]; k < p.ColStart[j+1]; k++ {
				row[p.RowIndex[k]] += p.Value[k]
			}
		}
		ok := true
		for q, v := range row {
			if v > p.RowUp[q] {
				ok = false
				break
			}
		}
		if ok && obj < best {
			best, bestMask = obj, mask
		}
	}
	x := make([]float64, n)
	for j := range n {
		if bestMask&(1<<j) != 0 {
			x[j] = 1
		}
	}
	return lp.Solution{Status: lp.Optimal, Obj: best, X: x, Bound: best, HasBound: true}, nil
}

// mostServed is the most members of m any schedule serves, by trying every
// subset (m.fits checks every segment).
func mostServed(m *component) int {
	n := len(m.members)
	pick := make([]bool, n)
	best := 0
	for mask := 0; mask < 1<<n; mask++ {
		c := 0
		for i := range n {
			pick[i] = mask&(1<<i) != 0
			if pick[i] {
				c++
			}
		}
		if c > best && m.fits(pick) {
			best = c
		}
	}
	return best
}

// contestedComponents calls f on every component with rows and at most
// maxMembers members of draws random contested instances of minTurns to
// maxTurns turns (randomContested; optional caching on even draws, forced
// on odd), i the draw.
func contestedComponents(t *testing.T, r *rand.Rand, draws, minTurns, maxTurns, maxMembers int, f func(i int, c tiny, s int64, m *component)) {
	t.Helper()
	for i := 0; i < draws; i++ {
		c, s := randomContested(t, r, minTurns, maxTurns, i%2 == 1)
		pr := reduce(mustInstance(t, c), s)
		for _, mem := range pr.members() {
			if m := pr.newComponent(mem); len(m.rowSeg) > 0 && len(mem) <= maxMembers {
				f(i, c, s, m)
			}
		}
	}
}

// TestStretchMIPMatchesStretchSolver: a stretch's 0/1 program as
// stretchMIP states it, solved by trying every point, has the value the
// stretches' own branch and bound finds (to the one unit of 2^−muBits the
// certification may add), at the LP's split of random contested instances
// (optional and forced caching, B = 1..4) cut into stretches of 1–3 rows.
func TestStretchMIPMatchesStretchSolver(t *testing.T) {
	r := rand.New(rand.NewPCG(50, 1))
	checked := 0
	contestedComponents(t, r, 400, 6, 14, 20, func(i int, c tiny, s int64, m *component) {
		sd := lpSplit(t, m, 1+i%3)
		var ws stretchSolver
		for _, w := range sd.wins {
			ws.solve(context.Background(), sd, w, 1<<30)
			want, exact := w.val, w.exact
			if !exact {
				t.Fatalf("draw %d: the branch and bound did not finish", i)
			}
			clear(w.z)
			if !sd.stretchMIP(context.Background(), w, enumBackend{}, 0) {
				t.Fatalf("draw %d: no bound", i)
			}
			if w.val < want || w.val > want+1 || !w.exact {
				t.Fatalf("draw %d (%v, s=%d): stretch rows %d..%d: stretchMIP %d (exact %v), branch and bound %d", i, c, s, w.r0, w.r1, w.val, w.exact, want)
			}
			checked++
		}
	})
	t.Logf("%d stretches checked", checked)
	if checked < 200 {
		t.Fatalf("only %d stretches checked", checked)
	}
}

// TestMIPStretchBoundHoldsTheOptimum: the stretches' bound with each
// stretch solved by a backend never falls below the most pairs a
// component serves (every subset tried), for spans of 1–3 rows, with
// either backend answer: exact (enumBackend), or none at all (every
// stretch then takes its Lagrangian value), and with the pure-Go flow
// branch and bound in place of a backend (nil).
func TestMIPStretchBoundHoldsTheOptimum(t *testing.T) {
	r := rand.New(rand.NewPCG(50, 2))
	tight := 0
	contestedComponents(t, r, 400, 6, 14, 16, func(i int, c tiny, s int64, m *component) {
		want := mostServed(m)
		for _, be := range []lp.Backend{enumBackend{}, noBound{}, nil} {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			b, st, ok := m.mipStretchBound(ctx, be, 1+i%3, 0, 3)
			cancel()
			if !ok {
				t.Fatalf("draw %d: no bound", i)
			}
			if got := b.floor(len(m.members)); got < want {
				t.Fatalf("draw %d (%v, s=%d), %v: bound %d (%.3f), but %d pairs fit", i, c, s, be, got, st.Best, want)
			} else if got == want {
				tight++
			}
		}
	})
	t.Logf("bound met the optimum %d times", tight)
	if tight == 0 {
		t.Fatal("the bound never met the optimum")
	}
}

// noBound is a backend that answers without a bound.
type noBound struct{}

func (noBound) Name() string { return "none" }
func (noBound) Solve(context.Context, *lp.Problem, lp.Options) (lp.Solution, error) {
	return lp.Solution{Status: lp.TimeLimit}, nil
}

// lpSplit is m cut into stretches of span rows (one layer) at the LP's
// split, not yet solved.
func lpSplit(t testing.TB, m *component, span int) *stretchDecomp {
	t.Helper()
	P := wholeShares(len(m.members))
	_, y, err := m.flowBound(context.Background(), P, new(big.Int), nil)
	if err != nil {
		t.Fatal(err)
	}
	sd := m.newStretchDecomp(span, 1)
	sd.lpShares(m.rowDuals(P, y))
	return sd
}

// containsStretches reports whether a solve's Detail notes the MIP
// stretches (startMIPStretches).
func containsStretches(detail string) bool { return strings.Contains(detail, " rows by ") }
