package checks_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/tailbound/tailbound/mdp/checks"
	"github.com/tailbound/tailbound/proofs-check/claim"
)

// Running one claim on one seeded instance: Lemma 1 holds, so there is no
// counterexample.
func ExampleLemma1() {
	c := checks.Lemma1(checks.DefaultSizes())
	ok, ce, err := claim.Once(c, rand.New(rand.NewPCG(1, 2)))
	fmt.Println(c.Name, ok, ce == nil, err)
	// Output: lemma1 true true <nil>
}
