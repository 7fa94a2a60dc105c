package proofscheck_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/tailbound/tailbound/belady"
	"github.com/tailbound/tailbound/models/policy"
	proofscheck "github.com/tailbound/tailbound/proofs-check"
	"github.com/tailbound/tailbound/proofs-check/claim"
)

// Running one claim on one seeded instance: Lemma 1 holds, so there is no
// counterexample.
func Example_lemma1() {
	cs, err := proofscheck.Select([]string{"lemma1"})
	if err != nil {
		fmt.Println(err)
		return
	}
	ok, ce, err := claim.Once(cs[0], rand.New(rand.NewPCG(1, 2)))
	fmt.Println(cs[0].Name, ok, ce == nil, err)
	// Output: lemma1 true true <nil>
}

// Adding a claim: one file, proofs-check/<family>.go, holds a Family — a
// function returning the family's claims — and one line at the end of
// defaultFamilies in proofs-check/claims.go registers it, after which
// 'tailbound check' runs it (and 'tailbound check belady-vs-lru' selects
// it). Here the family is defined and run the way 'tailbound check
// --instances 100 --seed 1' would run it. The claim follows from Theorem 1
// (Tail-Optimized Belady is optimal at B = 1 with whole-token ξ), so it
// holds on every instance.
func Example_addingAClaim() {
	// proofs-check/beladyvslru.go:
	var beladyVsLRUClaims proofscheck.Family = func(proofscheck.Sizes) []claim.Claim {
		return []claim.Claim{{
			Name:      "belady-vs-lru",
			Statement: "Tail-Optimized Belady's TEL is at most LRU's (tail-latency paper, Theorem 1), B = 1 token, whole-token ξ",
			Generate: func(r *rand.Rand) claim.Instance {
				return proofscheck.RandomInstance(r, 6, 3, 4, 1, false, false)
			},
			Check: func(i claim.Instance) (bool, string, error) {
				in := i.(*proofscheck.TraceInstance)
				b, err := proofscheck.PolicyTEL(in, belady.NewTailOptimized)
				if err != nil {
					return false, "", err
				}
				l, err := proofscheck.PolicyTEL(in, policy.NewLRU)
				if err != nil {
					return false, "", err
				}
				return b <= l, fmt.Sprintf("to-belady TEL %v tokens > LRU TEL %v tokens", b, l), nil
			},
		}}
	}
	// proofs-check/claims.go, at the end of defaultFamilies:
	//	beladyVsLRUClaims, // 11: beladyvslru.go

	reports, err := claim.Run(beladyVsLRUClaims(proofscheck.DefaultSizes()), 100, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range reports {
		fmt.Printf("%s: %d of %d passed, counterexample %v\n", r.Name, r.Passed, r.Instances, r.Counterexample)
	}
	// Output: belady-vs-lru: 100 of 100 passed, counterexample <nil>
}
