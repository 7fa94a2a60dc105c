package policy_test

import (
	"fmt"

	"github.com/tailbound/tailbound/models/cache"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/policy"
	"github.com/tailbound/tailbound/models/trace"
)

// A policy is driven turn by turn through the cache state: Begin grows the
// served conversation's history, Update decides, End checks the invariants.
func ExampleNewTLRU() {
	tr := &trace.Trace{}
	tr.Append(0, "A", 100, 0)
	tr.Append(1, "B", 100, 0)
	p, _ := policy.NewTLRU(policy.Config{Params: instance.Params{Capacity: 100, BlockSize: 1, Xi: 150}, QHat: 100})
	s, _ := cache.New(instance.Params{Capacity: 100, BlockSize: 1})
	for _, t := range tr.Turns {
		s.Begin(t.Conv, t.Prompt, t.Response)
		_ = p.Update(s, t)
		_ = s.End()
	}
	fmt.Println("A:", s.Cached(0), "B:", s.Cached(1))
	// Output: A: 50 B: 50
}

// lastWins is a complete custom policy: keep the served conversation whole
// and evict the conversation with the largest id first. Register it with
// one line in experiments/policies.All.
type lastWins struct{ noBudget }

type noBudget struct{}

func (noBudget) Value(*cache.State, int) float64 { return -1 }
func (noBudget) Threshold() float64              { return 0 }
func (noBudget) Budget(*cache.State, int) int64  { return 0 }

func (lastWins) Keep(s *cache.State, _ trace.Turn) int64 { return s.MaxServed() }
func (lastWins) Key(_ *cache.State, t trace.Turn, _ policy.Key, _ bool) policy.Key {
	return policy.Key{A: -int64(t.Conv)}
}

func ExampleNewRanked() {
	p := policy.NewRanked(lastWins{})
	s, _ := cache.New(instance.Params{Capacity: 30, BlockSize: 10})
	for c := 0; c < 3; c++ {
		t := trace.Turn{Index: c, Conv: c, Prompt: 20}
		s.Begin(c, t.Prompt, 0)
		_ = p.Update(s, t)
		_ = s.End()
	}
	// Turn 1 trims conversation 1 to 10 tokens; turn 2 overflows by 20 and
	// conversation 2, the largest id, gives up all of its 20.
	fmt.Println(s.Cached(0), s.Cached(1), s.Cached(2))
	// Output: 20 10 0
}
