package proofscheck

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/mdp/etlru"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/trace"
	"github.com/tailbound/tailbound/proofs-check/claim"
)

// TestTLRUBlocksCounterexample works by hand why ET-LRU and T-LRU part at
// B = 2: two conversations of 6 tokens at the same time, prompts of 6, ξ =
// 9, C = 4. Each TEL-safe budget is ⌈(6 + 6 − 9)/2⌉·2 = 4 tokens, of which
// the second block covers one needed token only. T-LRU trims the served
// conversation to its budget, then evicts the older one whole: [0 4].
// ET-LRU evicts the two half-useful blocks first: [2 2], whose expected
// next-turn TEL λ·(1 + 1) is below T-LRU's λ·(3 + 0).
func TestTLRUBlocksCounterexample(t *testing.T) {
	p := &Pair{Turns: []trace.Record{{T: 2, Conv: "c0", Prompt: 6}, {T: 2, Conv: "c1", Prompt: 6}},
		Params: instance.Params{Capacity: 4, BlockSize: 2, Xi: 9}, QHat: 6, Other: "tlru",
		Options: map[string]string{"belief": "paper", "mu": "0.5", "rates": "0.5", "prompt": "fixed:6"}}
	k, et, other, err := p.Compare()
	if err != nil {
		t.Fatal(err)
	}
	if k != 1 || et[0] != 2 || et[1] != 2 || other[0] != 0 || other[1] != 4 {
		t.Fatalf("turn %d: ET-LRU %v, T-LRU %v; want turn 1, [2 2], [0 4]", k, et, other)
	}
	ok, detail, _ := pairCheck(p)
	if ok || !strings.Contains(detail, "after turn 1") {
		t.Errorf("check passed or explained badly: %q", detail)
	}
}

// TestUnitPageRule: a hand-worked unit-page decision: rates 0.3, 0.9, 0.5,
// 0.1, all pages cached, room for two: keep the 0.9 and 0.5 pages.
func TestUnitPageRule(t *testing.T) {
	u := &UnitPage{Weights: []float64{0.3, 0.9, 0.5, 0.1}, Cached: []bool{true, true, true, true}, Capacity: 2}
	ok, detail, err := corollaryUnitPage(DefaultSizes()).Check(u)
	if err != nil || !ok {
		t.Fatalf("%v %s", err, detail)
	}
	q, _ := etlru.NewKnown(birthdeath.Atoms{Values: []int64{0}, Probs: []float64{1}})
	p := &etlru.Problem{Params: instance.Params{Capacity: 2, BlockSize: 1}, Prompt: q}
	for i, w := range u.Weights {
		p.Items = append(p.Items, etlru.Item{LogWeight: math.Log(w), History: 1, Upper: 1, Recency: int64(i)})
	}
	y, _ := etlru.Greedy(p)
	if y[0] != 0 || y[1] != 1 || y[2] != 1 || y[3] != 0 {
		t.Errorf("kept %v, want [0 1 1 0]", y)
	}
}

// TestPairExport: a pair's counterexample prints the trace and parameters
// under the names and units of the command-line contract (written out by
// hand here), not as a Go struct.
func TestPairExport(t *testing.T) {
	turns := []trace.Record{{T: 0, Conv: "c0", Prompt: 3, Response: 1}}
	for _, tc := range []struct {
		name string
		inst claim.Instance
		want string
	}{
		{"pair", &Pair{Turns: turns, Params: instance.Params{Capacity: 4, BlockSize: 2, Xi: 7}, QHat: 3,
			Options: map[string]string{"belief": "paper"}, Other: "tlru"},
			`{"block_size_tokens":2,"capacity_tokens":4,"etlru_options":{"belief":"paper"},"forced":false,"other_policy":"tlru","qhat_tokens":3,"trace":[{"t":0,"conv":"c0","prompt":3,"response":1}],"xi_tokens":7}`},
		{"forced pair", &Pair{Turns: turns, Params: instance.Params{Capacity: 4, BlockSize: 2, Xi: 7, Forced: true}, Other: "lru"},
			`{"block_size_tokens":2,"capacity_tokens":4,"etlru_options":null,"forced":true,"other_policy":"lru","qhat_tokens":0,"trace":[{"t":0,"conv":"c0","prompt":3,"response":1}],"xi_tokens":7}`},
	} {
		got, err := json.Marshal(tc.inst.Export())
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tc.want {
			t.Errorf("%s: exported\n%s\nwant\n%s", tc.name, got, tc.want)
		}
	}
}
