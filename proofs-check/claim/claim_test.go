package claim

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

// number is a toy instance: an integer that shrinks by one or by half.
type number int

func (n number) Size() int { return int(n) }
func (n number) Shrink() []Instance {
	return []Instance{n - 1, n / 2}
}
func (n number) Export() any { return int(n) }

// below10 claims every number drawn from [0, 100) is below 10: false, and
// the smallest counterexample is exactly 10, which shrinking must reach
// from any failing draw (halving can jump below 10, stepping by one cannot
// be skipped).
var below10 = Claim{
	Name:     "below10",
	Generate: func(r *rand.Rand) Instance { return number(r.IntN(100)) },
	Check: func(i Instance) (bool, string, error) {
		return i.(number) < 10, "too big", nil
	},
}

func TestRunShrinksToSmallest(t *testing.T) {
	reps, err := Run([]Claim{below10}, 50, 7)
	if err != nil {
		t.Fatal(err)
	}
	r := reps[0]
	if r.Instances != 50 || r.Passed+r.Failed != 50 || r.Failed == 0 {
		t.Fatalf("report %+v", r)
	}
	if r.Counterexample == nil || r.Counterexample.Instance != 10 || r.Counterexample.Size != 10 {
		t.Errorf("counterexample %+v, want 10", r.Counterexample)
	}
	// Passed counts the draws below 10, recomputed from the same stream.
	g := Stream(7, "below10")
	want := 0
	for i := 0; i < 50; i++ {
		if g.IntN(100) < 10 {
			want++
		}
	}
	if r.Passed != want {
		t.Errorf("passed %d, want %d", r.Passed, want)
	}
}

func TestRunDeterministic(t *testing.T) {
	cs := []Claim{below10, below10, below10}
	a, err := Run(cs, 20, 3)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Run(cs, 20, 3)
	if !reflect.DeepEqual(a, b) {
		t.Error("same seed, different reports")
	}
}

func TestFixed(t *testing.T) {
	c := below10
	c.Fixed = 2
	reps, _ := Run([]Claim{c}, 500, 1)
	if reps[0].Instances != 2 {
		t.Errorf("fixed claim ran %d instances", reps[0].Instances)
	}
}

func TestOnce(t *testing.T) {
	ok, ce, err := Once(below10, rand.New(rand.NewPCG(1, 1)))
	if err != nil || ok == (ce != nil) {
		t.Fatalf("ok %v ce %+v err %v", ok, ce, err)
	}
	if ce != nil && ce.Instance != 10 {
		t.Errorf("counterexample %v, want 10", ce.Instance)
	}
}

// TestExhaustiveFirst: a claim "every number is below 10 or not 13" is
// false only at 13, which random draws from [0, 10) never reach; its
// enumeration of 0..19 finds it. Run without Exhaustive checks the random
// draws only; RunOptions with it checks the 20 enumerated numbers, then
// the draws, and counts each part.
func TestExhaustiveFirst(t *testing.T) {
	c := Claim{
		Name:     "not13",
		Generate: func(r *rand.Rand) Instance { return number(r.IntN(10)) },
		Check:    func(i Instance) (bool, string, error) { return i.(number) != 13, "13", nil },
		Exhaustive: &Enumeration{Bound: "0–19", Each: func(yield func(Instance) bool) {
			for n := 0; n < 20 && yield(number(n)); n++ {
			}
		}},
	}
	plain, err := Run([]Claim{c}, 30, 2)
	if err != nil {
		t.Fatal(err)
	}
	if r := plain[0]; r.Failed != 0 || r.Exhaustive != 0 || r.Random != 30 || r.ExhaustiveBound != "" {
		t.Errorf("random only: %+v", r)
	}
	reps, err := RunOptions([]Claim{c}, Options{Instances: 30, Seed: 2, Exhaustive: true})
	if err != nil {
		t.Fatal(err)
	}
	r := reps[0]
	if r.Instances != 50 || r.Exhaustive != 20 || r.Random != 30 || r.Passed != 49 || r.Failed != 1 ||
		r.ExhaustiveFailed != 1 || r.ExhaustiveBound != "0–19" {
		t.Errorf("report %+v, want 20 enumerated + 30 random, one failure (13)", r)
	}
	// 13 shrinks to nothing smaller that fails (12 and 6 pass).
	if r.Counterexample == nil || r.Counterexample.Instance != 13 {
		t.Errorf("counterexample %+v, want 13", r.Counterexample)
	}
}
