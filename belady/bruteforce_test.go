package belady_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tailbound/tailbound/belady"
	"github.com/tailbound/tailbound/experiments/replay"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/policy"
	"github.com/tailbound/tailbound/models/trace"
)

// bruteForce returns the least TEL (tokens) over every admissible schedule
// of cached amounts, by depth-first search over all decisions after each
// turn: the served conversation keeps any whole number of blocks up to its
// new history (and the capacity), every other conversation any whole number
// of blocks up to what it holds, with the total within capacity. It shares
// no code with the policies.
func bruteForce(tr *trace.Trace, capacity, block int64, xi float64, forced bool) float64 {
	n := tr.Conversations()
	hist := make([]int64, n)
	x := make([]int64, n)
	best := math.Inf(1)
	var dfs func(k int, tel float64)
	dfs = func(k int, tel float64) {
		if tel >= best {
			return
		}
		if k == len(tr.Turns) {
			best = tel
			return
		}
		t := tr.Turns[k]
		c := t.Conv
		b := hist[c] + t.Prompt - x[c]
		tel += math.Max(float64(b)-xi, 0)
		oldH, oldX := hist[c], append([]int64(nil), x...)
		hist[c] += t.Prompt + t.Response
		// Choose amounts conversation by conversation.
		var choose func(i int, total int64)
		choose = func(i int, total int64) {
			if i == n {
				dfs(k+1, tel)
				return
			}
			hi := oldX[i]
			lo := int64(0)
			if i == c {
				hi = min(hist[c]/block*block, capacity)
				if forced {
					lo = hi
				}
			}
			for a := lo; a <= hi; a += block {
				if total+a > capacity {
					break
				}
				x[i] = a
				choose(i+1, total+a)
			}
			x[i] = oldX[i]
		}
		choose(0, 0)
		hist[c] = oldH
		copy(x, oldX)
	}
	dfs(0, 0)
	return best
}

// randomTrace draws a tiny trace: k turns over n conversations with prompt
// and response lengths up to maxLen tokens.
func randomTrace(r *rand.Rand, k, n int, maxLen int64) *trace.Trace {
	tr := &trace.Trace{}
	names := []string{"a", "b", "c", "d"}
	for i := 0; i < k; i++ {
		tr.Append(float64(i), names[r.IntN(n)], 1+r.Int64N(maxLen), r.Int64N(maxLen+1))
	}
	return tr
}

func replayTEL(t *testing.T, tr *trace.Trace, f policy.Factory, capacity, block int64, xi float64, forced bool) float64 {
	t.Helper()
	p, err := f(policy.Config{Capacity: capacity, BlockSize: block, Xi: xi, Forced: forced,
		Future: trace.NewHindsight(tr.Turns, tr.Conversations())})
	if err != nil {
		t.Fatal(err)
	}
	res, err := replay.Replay(replay.SliceSource(tr.Turns), []replay.Named{{Name: "p", Policy: p}},
		replay.Options{Capacity: capacity, BlockSize: block, Xi: xi, Model: latency.Default(), SLOMs: 200, Forced: forced})
	if err != nil {
		t.Fatal(err)
	}
	return res[0].Summary.TELTokens
}

// TestTailOptimizedBeladyIsOptimal checks Theorem 1 against brute force on
// random tiny instances, under optional and forced caching. The theorem's
// proof counts every cached block as one unit of saved excess, which holds
// when B = 1 and ξ is a whole number of tokens: there no schedule may beat
// Tail-Optimized Belady, and the test fails if one does. When a block can be
// worth less than B tokens of excess — B > 1, or a fractional ξ — the test
// reports, without failing, how often some schedule beats it and the
// smallest such instance: that is a finding about the theorem's scope.
func TestTailOptimizedBeladyIsOptimal(t *testing.T) {
	const tol = 1e-9 // TEL sums a few dozen integers and one fractional ξ
	cases := []struct {
		block      int64
		fractional bool // ξ = integer + 0.5
		mustHold   bool
	}{
		{1, false, true}, {1, true, false}, {2, false, false}, {3, false, false},
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range cases {
		for _, forced := range []bool{false, true} {
			worse, tried := 0, 0
			var smallest *trace.Trace
			var smallestGap, smallestXi float64
			var smallestC int64
			for i := 0; i < 300; i++ {
				tr := randomTrace(r, 2+r.IntN(5), 1+r.IntN(3), 4)
				capacity := tc.block * r.Int64N(6)
				xi := float64(r.IntN(8))
				if tc.fractional {
					xi += 0.5
				}
				opt := bruteForce(tr, capacity, tc.block, xi, forced)
				got := replayTEL(t, tr, belady.NewTailOptimized, capacity, tc.block, xi, forced)
				tried++
				switch {
				case got < opt-tol:
					t.Fatalf("B=%d forced=%v: to-belady TEL %v below the brute-force optimum %v: the brute force or the replay is wrong", tc.block, forced, got, opt)
				case got > opt+tol && tc.mustHold:
					t.Errorf("B=%d ξ=%v forced=%v C=%d: to-belady TEL %v > optimum %v on %+v", tc.block, xi, forced, capacity, got, opt, tr.Turns)
				case got > opt+tol:
					worse++
					if smallest == nil || len(tr.Turns) < len(smallest.Turns) {
						smallest, smallestGap, smallestXi, smallestC = tr, got-opt, xi, capacity
					}
				}
			}
			if !tc.mustHold {
				t.Logf("B=%d fractional ξ=%v forced=%v: to-belady above the optimum on %d of %d instances", tc.block, tc.fractional, forced, worse, tried)
				if smallest != nil {
					t.Logf("  smallest: C=%d ξ=%v, %d turns, gap %v tokens: %+v", smallestC, smallestXi, len(smallest.Turns), smallestGap, smallest.Turns)
				}
			}
		}
	}
}
