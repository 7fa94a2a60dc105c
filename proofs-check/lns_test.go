package proofscheck

import (
	"math/rand/v2"
	"testing"

	"github.com/tailbound/tailbound/proofs-check/claim"
)

// The search's claim holds on 300 instances.
func TestLNSClaim(t *testing.T) {
	c := sloLNSClaim()
	r := rand.New(rand.NewPCG(32, 2))
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
