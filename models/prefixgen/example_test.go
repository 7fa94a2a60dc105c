package prefixgen_test

import (
	"bytes"
	"context"
	"fmt"
	"math"

	"github.com/tailbound/tailbound/models/importer"
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

// Fit a model to a trace (here one generated from a preset, read back by
// the Mooncake importer) and generate its twin from the fit.
func ExampleFit() {
	var trace bytes.Buffer
	m, _ := prefixgen.Preset("agentic")
	if _, err := prefixgen.Write(context.Background(), prefixgen.GenOptions{Model: m, Seed: 1, Requests: 20000}, &trace); err != nil {
		panic(err)
	}
	f, err := prefixgen.Fit(importer.NewMooncake(&trace, "agentic", importer.DefaultOptions()), prefixgen.FitOptions{})
	if err != nil {
		panic(err)
	}
	// The preset's tree: 4 system prompts of 2 blocks, each with 32 tool
	// prefixes of 6 blocks; the rarest tool prefixes are seen by fewer
	// than two sessions in a sample this small, so the fitted fanout is
	// a lower bound.
	l1, l2 := f.Model.Tree.Levels[0], f.Model.Tree.Levels[1]
	fmt.Printf("level 1: %d prompts of %d blocks\n", l1.Fanout, l1.Blocks)
	fmt.Printf("level 2: tool prefixes of %d blocks, at most 32 per prompt: %v\n", l2.Blocks, l2.Fanout <= 32)
	fmt.Println("reuse-time law:", f.Model.Categories[0].Gap.Law)
	var twin bytes.Buffer
	st, err := prefixgen.Write(context.Background(), prefixgen.GenOptions{Model: f.Model, Seed: 2, DurationS: f.SpanS}, &twin)
	if err != nil {
		panic(err)
	}
	fmt.Println("twin written:", st.Requests > 0)
	// Output:
	// level 1: 4 prompts of 2 blocks
	// level 2: tool prefixes of 6 blocks, at most 32 per prompt: true
	// reuse-time law: exponential
	// twin written: true
}
