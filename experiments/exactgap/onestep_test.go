package exactgap

import (
	"errors"
	"slices"
	"testing"

	"github.com/tailbound/tailbound/internal/option"
	"github.com/tailbound/tailbound/mdp/etlru"
)

// TestOneStepByHand: two items, C = 2, B = 1, ξ = 0, prompts of 1 token.
// Item 0 (λ = 1/s, H = 3, bound 2) and item 1 (λ = 0.5/s, H = 2, bound 2).
// Keeping (y0, y1) costs 1·(4 − y0) + 0.5·(3 − y1): (2,0) 3.5, (1,1) 4,
// (0,2) 4.5 tokens/s. The greedy evicts item 1's blocks (marginal value
// 0.5 < 1) and keeps (2,0), the optimum: both rows 3.5, gap 0.
func TestOneStepByHand(t *testing.T) {
	_, tables, err := OneStep(etlru.OneStepOptions{Items: "1:3:2,0.5:2:2", Capacity: 2, BlockSize: 1, Prompt: "pmf:1:1"})
	if err != nil {
		t.Fatal(err)
	}
	if len(tables) != 1 {
		t.Fatalf("%d tables, want 1", len(tables))
	}
	tbl := tables[0]
	want := [][]string{{"etlru", "3.500000000", "0.000000000", "[2 0]"}, {"optimum", "3.500000000", "0.000000000", "[2 0]"}}
	for i, w := range want {
		if !slices.Equal(tbl.Rows[i], w) {
			t.Errorf("row %d: %v, want %v", i, tbl.Rows[i], w)
		}
	}
	if len(tbl.Plain) != 2 || tbl.Plain[0][1] != "3.5" {
		t.Errorf("CSV cells %v, want the objective 3.5 at full precision", tbl.Plain)
	}
}

// TestOneStepRefuses: a bad option comes back as the library's error,
// naming its flag.
func TestOneStepRefuses(t *testing.T) {
	_, _, err := OneStep(etlru.OneStepOptions{Items: "1:3:2", Capacity: 3, BlockSize: 2, Prompt: "pmf:1:1"})
	var oe *option.Error
	if !errors.As(err, &oe) || !slices.Equal(oe.Flags, []string{"capacity"}) {
		t.Errorf("error %v, want one naming --capacity", err)
	}
}
