package proofscheck

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/tailbound/tailbound/models/policy"
	"github.com/tailbound/tailbound/models/trace"
)

// TestTheorem1 requires Theorem 1 where its proof applies (B = 1, whole-token
// ξ, optional and forced caching) and logs, as findings, how often it fails
// where a block can be worth less than a whole unit (fractional ξ, B > 1).
func TestTheorem1(t *testing.T) {
	claims, err := Select([]string{"theorem1"})
	if err != nil {
		t.Fatal(err)
	}
	reports, err := Run(claims, 300, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range reports {
		switch r.Name {
		case "theorem1", "theorem1-forced":
			if r.Failed > 0 {
				ce, _ := json.Marshal(r.Counterexample)
				t.Errorf("%s: %d of %d instances fail: %s", r.Name, r.Failed, r.Instances, ce)
			}
		default:
			ce, _ := json.Marshal(r.Counterexample)
			t.Logf("finding: %s fails on %d of %d instances; smallest: %s", r.Name, r.Failed, r.Instances, ce)
		}
	}
}

func TestFigure1(t *testing.T) {
	r, err := Run([]Claim{figure1()}, 50, 1)
	if err != nil {
		t.Fatal(err)
	}
	if r[0].Instances != 1 || r[0].Failed != 0 {
		t.Errorf("figure1: %+v", r[0])
	}
}

// TestShrinkFindsRealCounterexample checks the machinery on a false claim,
// "LRU is TEL-optimal": the reported counterexample must really fail when
// re-checked independently, and be no larger than some failing draw.
func TestShrinkFindsRealCounterexample(t *testing.T) {
	lruOptimal := Claim{
		Name: "lru-optimal",
		Generate: func(r *rand.Rand) Instance {
			return RandomInstance(r, 6, 3, 4, 1, false, false)
		},
		Check: func(i Instance) (bool, string, error) {
			in := i.(*TraceInstance)
			got, err := PolicyTEL(in, policy.NewLRU)
			if err != nil {
				return false, "", err
			}
			return got <= Exhaustive(in.Trace(), in.Capacity, in.Block, in.Xi, false)+telTol, "", nil
		},
	}
	a, err := Run([]Claim{lruOptimal}, 300, 9)
	if err != nil {
		t.Fatal(err)
	}
	if a[0].Failed == 0 || a[0].Counterexample == nil {
		t.Fatal("LRU never beaten on 300 random instances: the generator is too weak")
	}
	// Rebuild the exported instance and check it fails.
	exp := a[0].Counterexample.Instance.(map[string]any)
	var in TraceInstance
	in.Capacity, in.Block, in.Xi = exp["capacity_tokens"].(int64), exp["block_size_tokens"].(int64), exp["xi_tokens"].(float64)
	names := map[string]int{}
	for _, rec := range exp["trace"].([]trace.Record) {
		if _, ok := names[rec.Conv]; !ok {
			names[rec.Conv] = len(names)
		}
		in.Turns = append(in.Turns, TinyTurn{Conv: names[rec.Conv], Prompt: rec.Prompt, Response: rec.Response})
	}
	lru, _ := PolicyTEL(&in, policy.NewLRU)
	if opt := Exhaustive(in.Trace(), in.Capacity, in.Block, in.Xi, false); lru <= opt+telTol {
		t.Errorf("reported counterexample does not fail: LRU %v, optimum %v", lru, opt)
	}
	if len(in.Turns) > 3 {
		t.Logf("shrunk counterexample has %d turns", len(in.Turns))
	}
	b, _ := Run([]Claim{lruOptimal}, 300, 9)
	if !reflect.DeepEqual(a, b) {
		t.Error("the same seed gave different reports")
	}
}
