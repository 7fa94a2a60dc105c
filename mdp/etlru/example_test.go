package etlru_test

import (
	"fmt"
	"math"

	"github.com/tailbound/tailbound/mdp/etlru"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/instance"
)

// One ET-LRU decision: two conversations, capacity 4 blocks of 1 token, ξ
// = 0, the next prompt 0 or 4 tokens with equal chance. A (history 4,
// turning at rate 1/s) is worth 1 per block; B (history 4, rate 0.5/s) is
// worth 0.5. The greedy keeps A whole and drops B, as the exact program.
func Example() {
	q, _ := etlru.NewKnown(birthdeath.Atoms{Values: []int64{0, 4}, Probs: []float64{0.5, 0.5}})
	p := &etlru.Problem{Params: instance.Params{Capacity: 4, BlockSize: 1, Xi: 0}, Prompt: q, Items: []etlru.Item{
		{LogWeight: math.Log(1), History: 4, Upper: 4, Recency: 2},
		{LogWeight: math.Log(0.5), History: 4, Upper: 4, Recency: 1},
	}}
	y, _ := etlru.Greedy(p)
	_, best, _ := etlru.Exact(p)
	fmt.Println(y, p.Objective(y), best)
	// Output: [4 0] 5 5
}
