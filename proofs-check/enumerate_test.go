package proofscheck

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/tailbound/tailbound/belady"
	"github.com/tailbound/tailbound/lp/exhaustive"
	"github.com/tailbound/tailbound/proofs-check/claim"
)

// stirling2 is S(n, k), the number of partitions of n turns into k
// non-empty conversations, by its recurrence S(n,k) = k·S(n−1,k) + S(n−1,k−1).
func stirling2(n, k int) int {
	switch {
	case n == 0 && k == 0:
		return 1
	case n == 0 || k == 0:
		return 0
	}
	return k*stirling2(n-1, k) + stirling2(n-1, k-1)
}

// closedCount is the size of s in closed form: for K turns over exactly m
// conversations, S(K, m) conversation patterns, MaxPrompt^K prompts and
// (MaxResponse+1)^(K−1) responses (the last is 0), times the block sizes,
// capacities, ξ values and modes.
func closedCount(s TraceSpace) int {
	pow := func(b int64, e int) int {
		r := 1
		for ; e > 0; e-- {
			r *= int(b)
		}
		return r
	}
	traces := 0
	for k := s.MinTurns; k <= s.MaxTurns; k++ {
		for m := 1; m <= min(k, s.MaxConvs); m++ {
			traces += stirling2(k, m) * pow(s.MaxPrompt, k) * pow(s.MaxResponse+1, k-1)
		}
	}
	modes := 1
	if s.Both {
		modes = 2
	}
	return traces * len(s.Blocks) * int(s.MaxCapacityBlocks) * len(s.Xis) * modes
}

// TestEnumerationCount: every space enumerates exactly its closed-form
// number of instances, each once (no two alike), every one inside the
// bounds, and the number of distinct conversation patterns of K turns is
// the Bell-type sum of S(K, m).
func TestEnumerationCount(t *testing.T) {
	for _, s := range []TraceSpace{
		theorem1Space([]int64{1}, false, false),
		theorem1Space([]int64{2, 3}, true, true),
		optimumSpace([]int64{1, 2, 3}, "compact"),
		optimumSpace([]int64{1}, "paper-as-written"),
		{MinTurns: 2, MaxTurns: 5, MaxConvs: 3, MaxPrompt: 1, MaxResponse: 2, Blocks: []int64{4}, MaxCapacityBlocks: 1, Xis: []float64{0}},
	} {
		seen := map[string]bool{}
		n := 0
		s.EachTrace("", func(in *TraceInstance) bool {
			n++
			key := fmt.Sprint(in.Turns, in.Params)
			if seen[key] {
				t.Errorf("%s: %s enumerated twice", s.Bound(), key)
			}
			seen[key] = true
			convs := 0
			for i, tt := range in.Turns {
				if tt.Conv > convs || tt.Prompt < 1 || tt.Prompt > s.MaxPrompt || tt.Response < 0 || tt.Response > s.MaxResponse ||
					(i == len(in.Turns)-1 && tt.Response != 0) {
					t.Errorf("%s: %v outside the bounds", s.Bound(), in.Turns)
				}
				convs = max(convs, tt.Conv+1)
			}
			if convs > s.MaxConvs || len(in.Turns) < s.MinTurns || len(in.Turns) > s.MaxTurns {
				t.Errorf("%s: %v outside the bounds", s.Bound(), in.Turns)
			}
			return true
		})
		if want := closedCount(s); n != want {
			t.Errorf("%s: %d instances, closed form %d", s.Bound(), n, want)
		}
	}
	// The stated sizes of the default run, by hand: 1,170 traces of
	// theorem1Space × 2 capacities × 4 ξ values.
	if n := closedCount(theorem1Space([]int64{1}, false, false)); n != 9360 {
		t.Errorf("theorem1 space %d, want 9360", n)
	}
	// Stopping: yield returning false ends the enumeration at once.
	n := 0
	theorem1Space([]int64{1}, false, false).EachTrace("", func(*TraceInstance) bool { n++; return n < 7 })
	if n != 7 {
		t.Errorf("enumeration went on after yield returned false: %d calls", n)
	}
}

// TestExhaustiveFindsTheorem1Counterexamples: the enumerations alone (no
// random instance) find Theorem 1's failures at B > 1 and at fractional ξ,
// and their smallest counterexamples have 4 turns (the enumeration holds
// every 3-turn instance of the scope, so none fails there). The two
// 4-turn instances below are worked by hand:
//
// B = 2, C = 1 block, ξ = 2: a(1,1) b(1,1) a(1,0) b(2,0). Turn 3 (D = 3)
// costs 1 uncached unless a keeps its block; turn 4 (D = 4) costs 2 unless
// b keeps its block; one block fits, and both budgets ⌈(H+Q−ξ)/B⌉ are one
// block. Keeping b costs 1 (the optimum); Tail-Optimized Belady evicts b,
// whose next turn is furthest, and pays 2.
//
// B = 1, C = 1, ξ = 1.5: a(1,0) b(1,0) a(1,0) b(2,0). Keeping a costs 1.5
// at turn 4, keeping b costs 0.5 + 0.5 = 1; both budgets are 1 token and
// Tail-Optimized Belady again keeps a: 1.5 > 1.
func TestExhaustiveFindsTheorem1Counterexamples(t *testing.T) {
	var claims []claim.Claim // theorem1-fractional-xi, theorem1-blocks
	for _, c := range All() {
		if c.Name == "theorem1-fractional-xi" || c.Name == "theorem1-blocks" {
			claims = append(claims, c)
		}
	}
	reports, err := claim.RunOptions(claims, claim.Options{Instances: 0, Seed: 1, Exhaustive: true})
	if err != nil {
		t.Fatal(err)
	}
	// The enumeration replays 28,080 tiny traces; each replay's batches
	// are garbage once it returns. When fanout kept them in a sync.Pool
	// made per call, the heap the collector saw as live doubled
	// collection after collection (2.6 GB for theorem1-blocks alone);
	// HeapSys is the heap's high-water mark.
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if ms.HeapSys > 512<<20 {
		t.Errorf("heap obtained from the system: %d MB after the enumerations, want ≤ 512 MB", ms.HeapSys>>20)
	}
	for _, r := range reports {
		if r.Random != 0 || r.Exhaustive == 0 || r.Instances != r.Exhaustive || r.ExhaustiveFailed == 0 || r.Counterexample == nil {
			t.Errorf("%s: %+v, want failures found by the enumeration alone", r.Name, r)
			continue
		}
		if r.Counterexample.Size/1000 != 4 {
			t.Errorf("%s: smallest counterexample %+v, want 4 turns", r.Name, r.Counterexample)
		}
		if r.ExhaustiveBound == "" {
			t.Errorf("%s: no bound stated", r.Name)
		}
	}
	for _, c := range []struct {
		in       *TraceInstance
		to, opt  float64
		claimIdx int
	}{
		{&TraceInstance{Turns: []TinyTurn{{0, 1, 1}, {1, 1, 1}, {0, 1, 0}, {1, 2, 0}}}, 2, 1, 1},
		{&TraceInstance{Turns: []TinyTurn{{0, 1, 0}, {1, 1, 0}, {0, 1, 0}, {1, 2, 0}}}, 1.5, 1, 0},
	} {
		if c.claimIdx == 1 {
			c.in.BlockSize, c.in.Capacity, c.in.Xi = 2, 2, 2
		} else {
			c.in.BlockSize, c.in.Capacity, c.in.Xi = 1, 1, 1.5
		}
		to, err := PolicyTEL(c.in, belady.NewTailOptimized)
		if err != nil {
			t.Fatal(err)
		}
		if opt := exhaustive.Optimum(c.in.Trace(), c.in.Params); to != c.to || opt != c.opt {
			t.Errorf("%+v: to-belady %v, optimum %v; by hand %v and %v", c.in, to, opt, c.to, c.opt)
		}
		// The instance is inside the enumerated scope of its claim.
		found := false
		claims[c.claimIdx].Exhaustive.Each(func(i claim.Instance) bool {
			in := i.(*TraceInstance)
			found = fmt.Sprint(in.Turns, in.Params) == fmt.Sprint(c.in.Turns, c.in.Params)
			return !found
		})
		if !found {
			t.Errorf("%+v is not in %s's enumeration", c.in, claims[c.claimIdx].Name)
		}
	}
}
