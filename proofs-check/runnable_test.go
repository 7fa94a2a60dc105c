package proofscheck

import (
	"testing"

	"github.com/tailbound/tailbound/proofs-check/claim"
)

// TestEveryClaimRunnable: every claim's instances say how to reproduce
// them from the command line (claim.Runnable), so a counterexample of any
// claim can carry a command; the MDP says none only where 'tailbound mdp
// solve' cannot state it (the one-step problems always have one: see their
// Command and TestOneStepEveryCommand).
func TestEveryClaimRunnable(t *testing.T) {
	for _, c := range append(All(), OnRequest()...) {
		inst := c.Generate(claim.Stream(1, c.Name))
		if _, ok := inst.(claim.Runnable); !ok {
			t.Errorf("%s: instance %T has no command line (implement claim.Runnable)", c.Name, inst)
		}
	}
}
