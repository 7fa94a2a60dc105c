package prefixgen_test

import (
	"fmt"
	"math"

	"github.com/tailbound/tailbound/models/prefixgen"
)

// A session of three turns over a one-block system prompt: each turn
// re-sends the previous input and output plus 400 new tokens, keeps the
// full blocks it shared and gets fresh ids for the rest (the partial last
// block changes every turn).
func ExampleGenerator() {
	fixed := func(n float64) prefixgen.LogNormal { return prefixgen.LogNormal{Mu: math.Log(n), Min: 1} }
	m := prefixgen.Model{
		SessionsPerS: 1e-6,
		Tree:         prefixgen.Tree{Levels: []prefixgen.Level{{Fanout: 1, Blocks: 1}}},
		Categories: []prefixgen.Category{{Name: "chat", Weight: 1, PrefixProb: 1,
			First: fixed(700), Increment: fixed(400), Output: fixed(100),
			NextTurn: []float64{1, 1, 0}, Gap: prefixgen.Gap{OffsetS: 10}}},
	}
	g, err := prefixgen.NewGenerator(m, 1)
	if err != nil {
		panic(err)
	}
	for i := 0; i < 3; i++ {
		r := g.Next()
		fmt.Println(r.Turn, r.Input, r.Hashes)
	}
	fmt.Println("live sessions:", g.Stats().Live)
	// Output:
	// 1 1212 [0 1 2]
	// 2 1712 [0 1 3 4]
	// 3 2212 [0 1 3 5 6]
	// live sessions: 0
}
