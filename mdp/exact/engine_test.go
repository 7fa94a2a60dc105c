package exact

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/mdp/etlru"
	"github.com/tailbound/tailbound/models/policy"
)

// TestEngineMatchesDeciders: on random prefix-rooted instances, replaying
// the engine's LRU, T-LRU (fixed Q̂) and ET-LRU (each belief, told the
// instance's μ, rate and prompt distribution) over the whole event tree
// gives the same value as the solver's own deciders, to 1e-9 relative. This
// is what lets the solver evaluate the engine policies fast and exactly.
func TestEngineMatchesDeciders(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	n := 40
	if testing.Short() {
		n = 10
	}
	for k := 0; k < n; k++ {
		in := randomInstance(r, 2+r.IntN(2), 1+r.IntN(3))
		rate := in.Seats[0].Rate
		for i := range in.Seats {
			in.Seats[i].Rate = rate // the engine's belief has one rate class
		}
		in.Prefix = nil
		before := 2 + r.IntN(5)
		for before >= 0 {
			in.Prefix = append(in.Prefix, PrefixTurn{Seat: r.IntN(len(in.Seats)), Before: before, Prompt: int64(1 + r.IntN(4)), Response: int64(r.IntN(2))})
			if before == 0 {
				break
			}
			before = max(before-1-r.IntN(2), 0)
		}
		var pmf []string
		for i, v := range in.Prompt.Values {
			pmf = append(pmf, fmt.Sprintf("%d:%g", v, in.Prompt.Probs[i]))
		}
		opts := func(w World) map[string]string {
			return map[string]string{"belief": w.String(), "mu": strconv.FormatFloat(in.Mu, 'g', -1, 64),
				"rates": strconv.FormatFloat(rate, 'g', -1, 64), "prompt": "pmf:" + strings.Join(pmf, ",")}
		}
		cases := []struct {
			d   Decider
			f   policy.Factory
			cfg policy.Config
		}{
			{LRU{}, policy.NewLRU, policy.Config{}},
			{TLRU{QHat: 2.5}, policy.NewTLRU, policy.Config{QHat: 2.5}},
			{ETLRU{Belief: Paper}, etlru.New, policy.Config{Options: opts(Paper)}},
			{ETLRU{Belief: Bayes}, etlru.New, policy.Config{Options: opts(Bayes)}},
		}
		for _, c := range cases {
			want, err := Evaluate(in, c.d)
			if err != nil {
				t.Fatal(err)
			}
			got, err := EvaluateEngine(in, c.f, c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got-want.Value) > 1e-9*(1+want.Value) {
				t.Fatalf("instance %d, %s: engine %.12g, decider %.12g: %+v", k, c.d.Name(), got, want.Value, in)
			}
		}
	}
}
