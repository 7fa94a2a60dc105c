package proofscheck

import (
	"math/rand/v2"
	"testing"

	"github.com/tailbound/tailbound/proofs-check/claim"
)

// The claims of issue 22 that hold pass on 300 instances each; the
// furthest-next-use conjecture fails on the hand instance below (C = 4,
// B = 1, s = 4): c0 (4 tokens), c1 (2 + 2), c2 (2 + 1) open, c2 returns
// with 2 (needs 1 cached), c1 with 4 (needs 4), c0 with 1 (needs 1). The
// rule drops c0 (furthest) for c1, then c1 (further than c2) for c2:
// c1 and c0 violate, 2; keeping c0 and c2 (1 token each) leaves only c1: 1.
func TestTailClaims(t *testing.T) {
	for _, c := range tailClaims(DefaultSizes()) {
		if c.Name == "slo-fnu-b1" {
			continue
		}
		r := rand.New(rand.NewPCG(22, uint64(len(c.Name))))
		for k := 0; k < 300; k++ {
			ok, ce, err := claim.Once(c, r)
			if err != nil {
				t.Fatalf("%s: %v", c.Name, err)
			}
			if !ok {
				t.Fatalf("%s fails: %+v", c.Name, ce)
			}
		}
	}
	inst := &SLOInstance{&TraceInstance{Turns: []TinyTurn{{0, 4, 0}, {1, 2, 2}, {2, 2, 1}, {2, 2, 0}, {1, 4, 0}, {0, 1, 0}}}, 4}
	inst.Capacity, inst.BlockSize = 4, 1
	if got := minViolations(inst); got != 1 {
		t.Fatalf("optimum %d, want 1", got)
	}
	ok, detail, err := sloFNUClaim().Check(inst)
	if err != nil || ok || detail != "furthest-next-use rule 2 violations, optimum 1" {
		t.Fatalf("conjecture on the hand instance: %v %q %v", ok, detail, err)
	}
}
