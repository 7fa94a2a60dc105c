package policies_test

import (
	"slices"
	"testing"

	"github.com/tailbound/tailbound/experiments/policies"
	"github.com/tailbound/tailbound/models/cache"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/policy"
	"github.com/tailbound/tailbound/models/trace"
)

// handTrace is worked by hand for every policy below (C = 20, B = 1,
// ξ = 10, Q̂ = 5, Threshold-LRU T = 12):
//
//	turn  0  1  2  3  4  5
//	conv  A  B  A  C  B  A
//	p    10 10  5 10  5  5   (responses 0)
func handTrace() *trace.Trace {
	tr := &trace.Trace{}
	for i, s := range []struct {
		c string
		p int64
	}{{"A", 10}, {"B", 10}, {"A", 5}, {"C", 10}, {"B", 5}, {"A", 5}} {
		tr.Append(float64(i), s.c, s.p, 0)
	}
	return tr
}

// TestHandWorked replays handTrace under each policy and compares the
// uncached tokens b_k of every turn with the values worked out by hand
// (the derivations are in the comments).
func TestHandWorked(t *testing.T) {
	want := map[string][]int64{
		// LRU: t2 trims B to 5; t3 drops B, trims A to 10; t4 drops A and C to 5;
		// t5 finds A empty (b = 20).
		"lru": {10, 10, 5, 10, 15, 20},
		// FIFO: A entered first, so t2 trims A to 10 and t3 drops it; t4 hits
		// B's 10; t5 finds A empty.
		"fifo": {10, 10, 5, 10, 5, 20},
		// LFU (turn count, then LRU): t2 trims B (1 turn) to 5; t3 drops B
		// and trims C (1 turn) to 5; t4 drops C, trims A to 5; t5 hits 5.
		"lfu": {10, 10, 5, 10, 15, 15},
		// Threshold-LRU, T = 12: histories of 10 are not cached; t4 trims A
		// to 5 to fit B's 15.
		"threshold-lru": {10, 10, 15, 10, 15, 15},
		// T-LRU, budget (H + 5 − 10)⁺: t2 trims B to 5; t3 trims A to 10
		// and C to 5; t4 trims B to 10, then LRU takes 5 from A.
		"tlru": {10, 10, 5, 10, 10, 15},
		// End-aware: C and (after t4) B never return, so their budget is 0:
		// t3 trims A to 10 then C to 5; t4 drops C and trims B to 10.
		"end-aware-tlru": {10, 10, 5, 10, 10, 10},
		// Length-aware: the true next prompts are 5, as Q̂: same as end-aware.
		"length-aware-tlru": {10, 10, 5, 10, 10, 10},
		// Tail-Optimized Belady: t2 trims A (next at t5, furthest) to 10;
		// t3 drops C (never returns); t4 trims B (never returns) to 10.
		"to-belady": {10, 10, 5, 10, 5, 10},
		// Belady (ξ = 0): t2 takes 5 from A (furthest); t3 drops C; t4 B.
		"belady": {10, 10, 5, 10, 5, 10},
	}
	tr := handTrace()
	fut := trace.NewHindsight(tr.Turns, tr.Conversations())
	for _, e := range policies.All() {
		w, ok := want[e.Name]
		if !ok {
			continue // a policy registered later brings its own hand-worked test
		}
		p, err := e.New(policy.Config{Params: instance.Params{Capacity: 20, BlockSize: 1, Xi: 10}, QHat: 5, Threshold: 12, Future: fut})
		if err != nil {
			t.Fatal(err)
		}
		s, err := cache.New(instance.Params{Capacity: 20, BlockSize: 1})
		if err != nil {
			t.Fatal(err)
		}
		var got []int64
		for _, u := range tr.Turns {
			h, x := s.Begin(u.Conv, u.Prompt, u.Response)
			got = append(got, h+u.Prompt-x)
			if err := p.Update(s, u); err != nil {
				t.Fatalf("%s: turn %d: %v", e.Name, u.Index, err)
			}
			if err := s.End(); err != nil {
				t.Fatalf("%s: turn %d: %v", e.Name, u.Index, err)
			}
		}
		if !slices.Equal(got, w) {
			t.Errorf("%s: uncached tokens per turn %v, want %v", e.Name, got, w)
		}
	}
}
