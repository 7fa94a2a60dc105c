package birthdeath_test

import (
	"fmt"
	"math"

	"github.com/tailbound/tailbound/models/birthdeath"
)

// Fit recovers the model from a trace it generated: here conversations
// born twice a second, turning every 30 s and living 2 minutes on average
// (a follow-up probability of 0.8).
func ExampleFit() {
	p := birthdeath.Params{LambdaConv: 2, Mu: 1.0 / 120, Classes: []birthdeath.RateClass{{Rate: 1.0 / 30, Weight: 1}},
		Prompt: birthdeath.LogNormal{Mu: 5, Sigma: 1, Min: 1}, Response: birthdeath.LogNormal{Mu: 5, Sigma: 1}, Duration: 3600}
	tr, err := birthdeath.Trace(p, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	f, err := birthdeath.Fit(tr)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("births %.1f/s, turn every %.0f s, mean life %.0f s\n", f.Params.LambdaConv, 10*math.Round(0.1/f.Params.Classes[0].Rate), 10*math.Round(0.1/f.Params.Mu))
	// Output: births 2.0/s, turn every 30 s, mean life 120 s
}
