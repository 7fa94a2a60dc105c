package exact_test

import (
	"fmt"

	"github.com/tailbound/tailbound/mdp/exact"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/instance"
)

// One seat turning at 1/s (a turn in the next 0.25 s step with probability
// 0.25·e^{−μs}), μ = 1/s, its history of 3 tokens just served, capacity 2
// tokens, ξ = 0, prompts of 1 token, over two steps. Keeping 2 tokens is
// optimal and the expected TEL is, by hand,
// 0.25·(2 + 0.25·3) + 0.75·0.25·e^{−0.25}·2 = 0.97955… tokens.
func Example() {
	in := &exact.Instance{World: exact.Paper, Seats: []exact.Seat{{Rate: 1, History: 3}}, Served: 0,
		Mu: 1, Step: 0.25, Horizon: 2, Params: instance.Params{Capacity: 2, BlockSize: 1, Xi: 0},
		Prompt:   birthdeath.Atoms{Values: []int64{1}, Probs: []float64{1}},
		Response: birthdeath.Atoms{Values: []int64{0}, Probs: []float64{1}}}
	res, _ := exact.Solve(in)
	fmt.Printf("%.4f tokens, keep %v\n", res.Value, res.Decision)
	// Output: 0.9796 tokens, keep [2]
}

// The policies mdp solve evaluates, by name.
func ExampleDeciders() {
	ds, err := exact.Deciders("lru,etlru-bayes", 0)
	for _, d := range ds {
		fmt.Println(d.Name())
	}
	fmt.Println(err)
	_, err = exact.Deciders("mru", 0)
	fmt.Println(err)
	// Output:
	// lru
	// etlru-bayes
	// <nil>
	// unknown policy "mru" (want lru, tlru, etlru-paper, etlru-bayes)
}
