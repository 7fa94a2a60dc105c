package proofscheck

import (
	"reflect"
	"testing"

	"github.com/tailbound/tailbound/proofs-check/claim"
)

// TestVerdictIndependentOfSelection: with a fixed seed, every claim's
// report (instances, passed, failed, counterexample) is the same run alone
// as within the full run, and naming a family together with one of its
// members runs that member once.
func TestVerdictIndependentOfSelection(t *testing.T) {
	const instances, seed = 6, 1
	if testing.Short() {
		t.Skip("runs every claim twice")
	}
	all := All()
	full, err := claim.Run(all, instances, seed)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range all {
		alone, err := claim.Run([]claim.Claim{c}, instances, seed)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(alone[0], full[i]) {
			t.Errorf("%s alone: %+v; in the full run: %+v", c.Name, alone[0], full[i])
		}
	}
	sel, err := Select([]string{"theorem1-blocks", "theorem1", "theorem1-blocks"})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, c := range sel {
		seen[c.Name]++
	}
	if seen["theorem1-blocks"] != 1 || len(sel) != len(seen) {
		t.Errorf("selection %v runs a claim twice", seen)
	}
}
