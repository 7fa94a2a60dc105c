package slo

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/tailbound/tailbound/internal/segtree"

	"pgregory.net/rapid"
)

// The span index's query equals a scan of every candidate in the order of
// one list sorted by start (ties by index): spanning returns those with a
// step in lo..hi (a ≤ hi and n − 1 ≥ lo).
func TestSpanIndexAgainstScan(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		in, s := randomMedium(rt)
		pr := reduce(in, s)
		idx := pr.newSpanIndex()
		K := in.K()
		lo := rapid.IntRange(0, K-1).Draw(rt, "lo")
		hi := rapid.IntRange(lo, K-1).Draw(rt, "hi")
		byStart := seq(len(pr.cands))
		slices.SortStableFunc(byStart, func(i, j int) int { return pr.cands[i].a - pr.cands[j].a })
		var want []int
		for _, i := range byStart {
			if c := pr.cands[i]; c.a <= hi && c.n-1 >= lo {
				want = append(want, i)
			}
		}
		if got := idx.spanning(lo, hi, nil); !slices.Equal(got, want) {
			rt.Fatalf("spanning(%d, %d) = %v, scan %v", lo, hi, got, want)
		}
	})
}

// plainEject is the ejection pass written as a scan of the component's
// members at every step (the pass before the span index): the reference
// the indexed one must match move for move.
func (pr *problem) plainEject(st *segtree.Max, served []bool, members []int) {
	type move struct {
		i  int
		in bool
	}
	for n, u := range members {
		if n >= ejectAttempts {
			return
		}
		if served[u] {
			continue
		}
		var log []move
		set := func(i int, in bool) {
			c := pr.cands[i]
			w := c.d
			if !in {
				w = -w
			}
			st.Add(c.a, c.n-1, w)
			served[i] = in
			log = append(log, move{i, in})
		}
		cu := pr.cands[u]
		set(u, true)
		gain := 1
		ok := true
		for st.Max(cu.a, cu.n-1) > 0 {
			t := st.Argmax(cu.a, cu.n-1)
			out := -1
			for _, j := range members {
				cj := pr.cands[j]
				if j != u && served[j] && cj.a <= t && t < cj.n && (out < 0 || cj.d > pr.cands[out].d) {
					out = j
				}
			}
			if out < 0 {
				ok = false
				break
			}
			set(out, false)
			gain--
		}
		if ok {
			for _, j := range members {
				cj := pr.cands[j]
				if !served[j] && st.Max(cj.a, cj.n-1)+cj.d <= 0 {
					set(j, true)
					gain++
				}
			}
		}
		if ok && gain > 0 {
			continue
		}
		for k := len(log) - 1; k >= 0; k-- {
			m := log[k]
			c := pr.cands[m.i]
			w := c.d
			if m.in {
				w = -w
			}
			st.Add(c.a, c.n-1, w)
			served[m.i] = !m.in
		}
	}
}

// The indexed ejection pass makes the same moves as the plain scan of
// every member, from a greedy start in a random order (every left-out
// candidate then does not fit, as after improve's fill).
func TestEjectMatchesPlainScan(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		in, s := randomMedium(rt)
		pr := reduce(in, s)
		m := len(pr.cands)
		order := rapid.Permutation(seq(m)).Draw(rt, "order")
		served := make([]bool, m)
		st := pr.slackOf(served)
		for _, i := range order {
			if c := pr.cands[i]; st.Max(c.a, c.n-1)+c.d <= 0 {
				served[i] = true
				st.Add(c.a, c.n-1, c.d)
			}
		}
		rank := make([]int, m)
		for r, i := range order {
			rank[i] = r
		}
		byComp := make([][]int, pr.ncomp)
		for _, i := range order {
			byComp[pr.comp[i]] = append(byComp[pr.comp[i]], i)
		}
		want := slices.Clone(served)
		stWant := pr.slackOf(want)
		idx := pr.newSpanIndex()
		for _, members := range byComp {
			pr.plainEject(stWant, want, members)
			pr.eject(context.Background(), st, served, members, idx, rank)
		}
		if !slices.Equal(served, want) {
			rt.Fatalf("indexed ejection serves %v, plain scan %v", served, want)
		}
	})
}

// seq is 0, 1, …, n−1.
func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// The search on several cores (lnsParallel, 2 and 3 workers, a few rounds
// of a 30 ms limit) never serves fewer candidates than its greedy start
// and keeps every step within capacity, loads recomputed here from the
// served set.
func TestLNSParallelNeverWorse(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		in, s := randomMedium(rt)
		pr := reduce(in, s)
		m := len(pr.cands)
		served := make([]bool, m)
		pr.improve(context.Background(), served)
		before := count(served)
		workers := rapid.IntRange(2, 3).Draw(rt, "workers")
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
		defer cancel()
		opt := defaultLNS()
		opt.stall = 50
		opt.windows = 0
		pr.lnsParallel(ctx, served, nil, opt, workers)
		checkNeverWorse(rt, pr, served, before)
	})
}

// benchProblem is the reduced SLO problem (SLO 1,900 tokens, C = 131,072
// tokens, B = 16) of the default birth–death workload cut at turns turns,
// with the greedy fill of improve (area order) as served, its slack tree,
// the members of each component in that order and the ranks.
func benchProblem(b testing.TB, turns int) (*problem, []bool, [][]int, []int) {
	b.Helper()
	in := paperInstance(b, turns, 1)
	pr := reduce(in, 1900)
	order := seq(len(pr.cands))
	slices.SortStableFunc(order, func(i, j int) int {
		ci, cj := pr.cands[i], pr.cands[j]
		return cmp.Compare(ci.d*int64(ci.n-ci.a), cj.d*int64(cj.n-cj.a))
	})
	served := make([]bool, len(pr.cands))
	st := pr.slackOf(served)
	for _, i := range order {
		if c := pr.cands[i]; st.Max(c.a, c.n-1)+c.d <= 0 {
			served[i] = true
			st.Add(c.a, c.n-1, c.d)
		}
	}
	rank := make([]int, len(order))
	byComp := make([][]int, pr.ncomp)
	for r, i := range order {
		rank[i] = r
		byComp[pr.comp[i]] = append(byComp[pr.comp[i]], i)
	}
	return pr, served, byComp, rank
}

// BenchmarkEject times one ejection pass (3,000 attempts per component)
// from the greedy fill, the plain scan of every member (the pass before
// the span index) against the indexed one, at 10^4 and 10^5 turns.
func BenchmarkEject(b *testing.B) {
	for _, turns := range []int{10_000, 100_000} {
		pr, start, byComp, rank := benchProblem(b, turns)
		idx := pr.newSpanIndex()
		for _, plain := range []bool{true, false} {
			name := fmt.Sprintf("turns=%d/indexed", turns)
			if plain {
				name = fmt.Sprintf("turns=%d/plain", turns)
			}
			b.Run(name, func(b *testing.B) {
				for b.Loop() {
					served := slices.Clone(start)
					st := pr.slackOf(served)
					for _, members := range byComp {
						if plain {
							pr.plainEject(st, served, members)
						} else {
							pr.eject(context.Background(), st, served, members, idx, rank)
						}
					}
				}
			})
		}
	}
}

// BenchmarkLNSWindows times 500 windows of the search from the greedy
// fill at 10^4 turns.
func BenchmarkLNSWindows(b *testing.B) {
	pr, start, _, _ := benchProblem(b, 10_000)
	opt := defaultLNS()
	opt.windows, opt.stall = 500, 500
	for b.Loop() {
		served := slices.Clone(start)
		pr.lns(context.Background(), served, nil, nil, opt)
	}
}

// BenchmarkLPBound times the LP relaxation (lpBound: the windows' cost
// scaling, the primal–dual stage and both bounds) of the default
// birth–death workload cut at 10^4 turns at SLO 1,950 tokens, from
// scratch and started from the prices of the LP at 1,900 (a percentile
// search's neighbouring probe).
func BenchmarkLPBound(b *testing.B) {
	pr, _, _, _ := benchProblem(b, 10_000)
	if _, _, _, _, err := pr.lpBound(context.Background()); err != nil {
		b.Fatal(err)
	}
	next := reduce(pr.in, 1950)
	for _, warm := range []bool{false, true} {
		name := "cold"
		var from *lpPrices
		if warm {
			name, from = "warm", pr.prices
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, _, _, _, err := next.lpBoundFrom(context.Background(), from); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
