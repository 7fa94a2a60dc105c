package exactgap

import (
	"math"
	"testing"

	"github.com/tailbound/tailbound/mdp/exact"
)

// TestRun: the one-seat instance worked by hand (see mdp/exact's Example):
// the optimum is 0.25·(2 + 0.25·3) + 0.75·0.25·e^{−0.25}·2 tokens, keeping
// 2 tokens; it comes first, then the policies asked for, none below it.
func TestRun(t *testing.T) {
	s := exact.Settings{Seats: "1:3:0:0", World: "paper", Mu: 1, Step: 0.25, Horizon: 2, Capacity: 2, Block: 1,
		Prompt: "fixed:1", Response: "fixed:0", Discount: 1, Policies: "lru,tlru", MaxStates: exact.DefaultMaxStates}
	doc, tables, err := Run(s)
	if err != nil {
		t.Fatal(err)
	}
	rows := doc.(map[string]any)["policies"].([]exact.Row)
	want := 0.25*(2+0.25*3) + 0.75*0.25*math.Exp(-0.25)*2
	if len(rows) != 3 || rows[0].Name != "optimum" || math.Abs(rows[0].Value-want) > 1e-12 || rows[0].Decision[0] != 2 {
		t.Fatalf("got %+v, want the optimum %v keeping 2", rows, want)
	}
	for _, r := range rows {
		if r.Gap < -1e-12 {
			t.Errorf("%s below the optimum by %v", r.Name, -r.Gap)
		}
	}
	if len(tables) != 1 || len(tables[0].Rows) != 3 {
		t.Errorf("tables %+v", tables)
	}
	s.Policies = "nope"
	if _, _, err := Run(s); err == nil {
		t.Error("unknown policy: no error")
	}
}
