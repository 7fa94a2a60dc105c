// Package checks states SPEC §6 claims 4–7 — Lemma 1, the corollaries of
// Theorem 2, Theorem 2 itself and the belief — as seeded random checks
// with shrinkable counterexamples, for 'tailbound check' (proofs-check) to
// run. Each claim draws an instance from a *rand.Rand, checks it with a
// solver independent of the code under test (an exact dynamic program, the
// exact belief-MDP solver, a second policy, Monte Carlo), and explains a
// failure with the values on both sides. A failing claim is a result.
package checks

import (
	"math/rand/v2"
	"sort"
)

// Case is one random instance of a claim. It has the shape of
// proofs-check's Instance: Size orders instances for shrinking, Shrink
// returns simpler variants, Export is a JSON-ready, re-runnable form.
type Case interface {
	Size() int
	Shrink() []Case
	Export() any
}

// Claim is one checkable statement.
type Claim struct {
	// Name is the command-line name, e.g. "lemma1".
	Name string
	// Statement says what is claimed and where it comes from.
	Statement string
	// Generate draws an instance.
	Generate func(r *rand.Rand) Case
	// Check reports whether the claim holds on c, with a detail that
	// explains a failure.
	Check func(c Case) (ok bool, detail string, err error)
	// Fixed is the number of instances the claim always runs (0: as many
	// as asked). Claim 7 samples thousands of conversations per instance.
	Fixed int
}

// Counterexample is a failing instance after shrinking.
type Counterexample struct {
	Instance any    `json:"instance"`
	Detail   string `json:"detail"`
	Size     int    `json:"size"`
}

// Run draws one instance of c from r and checks it: the one-call form
// func(rng, params) (passed, counterexample, err). On failure the instance
// is shrunk greedily to the smallest failing variant.
func Run(c Claim, r *rand.Rand) (passed bool, counterexample *Counterexample, err error) {
	inst := c.Generate(r)
	ok, detail, err := c.Check(inst)
	if err != nil || ok {
		return ok, nil, err
	}
	small, detail, err := Shrink(c, inst, detail)
	if err != nil {
		return false, nil, err
	}
	return false, &Counterexample{Instance: small.Export(), Detail: detail, Size: small.Size()}, nil
}

// Shrink replaces a failing instance by a smaller failing variant until
// none of its variants fails (at most 10000 steps).
func Shrink(c Claim, inst Case, detail string) (Case, string, error) {
	for steps := 0; steps < 10000; steps++ {
		cands := inst.Shrink()
		sort.SliceStable(cands, func(i, j int) bool { return cands[i].Size() < cands[j].Size() })
		improved := false
		for _, s := range cands {
			if s.Size() >= inst.Size() {
				continue
			}
			ok, d, err := c.Check(s)
			if err != nil {
				return nil, "", err
			}
			if !ok {
				inst, detail, improved = s, d, true
				break
			}
		}
		if !improved {
			break
		}
	}
	return inst, detail, nil
}

// Sizes bound the random instances.
type Sizes struct {
	// Seats is the largest number of conversation seats of an MDP instance
	// (2 or 3).
	Seats int
	// Horizon is the largest MDP horizon, steps.
	Horizon int
	// Items is the largest number of conversations of a one-step problem.
	Items int
	// Turns is the largest number of turns of a trace instance.
	Turns int
}

// DefaultSizes are the sizes 'tailbound check' uses unless told otherwise.
// On this 2-core machine 200 instances take milliseconds per one-step or
// trace claim and 1–8 s per Theorem 2 scope (instances of 3 seats and 6
// steps dominate); the belief claims take about 0.1 s per instance.
func DefaultSizes() Sizes { return Sizes{Seats: 3, Horizon: 6, Items: 6, Turns: 12} }
