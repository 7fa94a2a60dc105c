package proofscheck

import (
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/tailbound/tailbound/models/instance"
)

// TestOneStepExport: a one-step counterexample prints its fields with
// their units (written out by hand here), not as a Go struct; Forced,
// which one step does not use (an item is Fixed instead), is not printed.
func TestOneStepExport(t *testing.T) {
	o := &OneStep{Weights: []float64{0.5}, History: []int64{4}, Upper: []int64{2}, Fixed: []bool{false},
		Params: instance.Params{Capacity: 2, BlockSize: 2, Xi: 1.5, Forced: true}, Prompt: []int64{3}, Probs: []float64{1}}
	got, err := json.Marshal(o.Export())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"block_size_tokens":2,"capacity_tokens":2,"fixed":[false],"history_tokens":[4],"prompt_probs":[1],"prompt_tokens":[3],"rates_per_s":[0.5],"upper_tokens":[2],"xi_tokens":1.5}`
	if string(got) != want {
		t.Errorf("exported\n%s\nwant\n%s", got, want)
	}
}

// TestOneStepShrinkKeepsValid: every shrink candidate of random one-step
// problems is a valid problem, smaller than its parent.
func TestOneStepShrinkKeepsValid(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	for k := 0; k < 200; k++ {
		o := RandomOneStep(r, DefaultSizes().Items)
		for _, c := range o.Shrink() {
			p, err := c.(*OneStep).Problem()
			if err == nil {
				err = p.Validate()
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Size() >= o.Size() {
				t.Fatalf("shrink grew the size: %d ≥ %d", c.Size(), o.Size())
			}
		}
	}
}
