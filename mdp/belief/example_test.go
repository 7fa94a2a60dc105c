package belief_test

import (
	"fmt"

	"github.com/tailbound/tailbound/mdp/belief"
	"github.com/tailbound/tailbound/models/birthdeath"
)

// A conversation chatting every 20 s on average (λ̄ = 0.05/s) that lives
// 2 minutes on average (μ = 1/120 s): after a minute of silence the paper's
// belief still gives it e^{−0.5} ≈ 61% of being alive, while the posterior,
// which hears the silence, gives 18%: e^{−3.5}/(e^{−3.5} + (1/7)(1 − e^{−3.5})).
func Example() {
	prior := belief.Prior{Classes: []birthdeath.RateClass{{Rate: 0.05, Weight: 1}}}
	paper, _ := belief.NewPaper(1.0/120, prior)
	bayes, _ := belief.NewBayes(1.0/120, prior)
	h := belief.History{First: 0, Last: 100, Turns: 3}
	fmt.Printf("paper %.2f, bayes %.2f\n", paper.Alive(h, 160), bayes.Alive(h, 160))
	// Output: paper 0.61, bayes 0.18
}
