// Claim 7 of SPEC §6 (its §5 defines the beliefs): the belief of the
// tail-latency paper (seed ../shared/seeds/003_d50602792df89471.txt, the
// belief MDP of its stochastic conversation model), π_i = exp(−μ·s) for a
// conversation silent for s seconds, and the exact birth–death posterior,
// each against the fraction of sampled silent conversations that are
// alive (Monte Carlo of the generator, mdp/belief.Calibrate).

package proofscheck

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/tailbound/tailbound/mdp/belief"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/proofs-check/claim"
)

// BeliefCase is one Monte Carlo comparison of a belief with the sampled
// fraction of silent conversations still alive.
type BeliefCase struct {
	Belief     string                 // "paper" or "bayes": the belief under test
	Classes    []birthdeath.RateClass // turn-rate classes, per second
	Mu         float64                // death rate, per second
	LambdaConv float64                // births per second
	Duration   float64                // seconds of births; the snapshot is at its end
	Reps       int                    // independent traces
	Seed       uint64
	Edges      []float64 // silence bins, seconds
}

// Size implements claim.Instance (a statistical instance does not shrink).
func (b *BeliefCase) Size() int { return len(b.Classes) }

// Shrink implements claim.Instance.
func (b *BeliefCase) Shrink() []claim.Instance { return nil }

// Export implements claim.Instance.
func (b *BeliefCase) Export() any {
	return map[string]any{"belief": b.Belief, "rates": rateList(b.Classes), "mu_per_s": b.Mu, "lambda_conv_per_s": b.LambdaConv,
		"duration_s": b.Duration, "reps": b.Reps, "seed": b.Seed, "silence_bins_s": b.Edges}
}

// Command implements claim.Runnable: the generator run of the first of
// the case's traces, with its hidden death times (belief.Calibrate draws
// replication r with seed Seed·1000003 + r and snapshots at Duration).
func (b *BeliefCase) Command() string {
	return fmt.Sprintf("tailbound gen birth-death --rates %s --mu %v --lambda-conv %v --duration %v --seed %d --deaths deaths.jsonl > trace.jsonl",
		rateList(b.Classes), b.Mu, b.LambdaConv, b.Duration, b.Seed*1000003)
}

// rateList formats rate classes as gen's --rates RATE:WEIGHT,… (per s).
func rateList(cs []birthdeath.RateClass) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = fmt.Sprintf("%v:%v", c.Rate, c.Weight)
	}
	return strings.Join(parts, ",")
}

// zLimit is the largest |z| a bin may show: with 8 bins, a correct belief
// fails with probability below 10⁻⁴.
const zLimit = 4.5

// beliefClaims is claim 7 for the exact posterior and the paper's belief.
func beliefClaims(Sizes) []claim.Claim {
	return []claim.Claim{beliefClaim("bayes"), beliefClaim("paper")}
}

// beliefClaim is claim 7: the belief (paper: exp(−μs); bayes: the exact
// posterior) against the fraction of sampled conversations, silent for s,
// that are alive (belief.Calibrate). Each instance draws rate classes, μ
// and a seed; in every silence bin the fraction alive must be within 4.5
// standard deviations of the belief's mean prediction.
func beliefClaim(which string) claim.Claim {
	return claim.Claim{
		Name: "belief-" + which,
		Statement: "Belief (SPEC §5): the " + which + " belief of a conversation silent for s seconds being alive, against the sampled fraction alive (birth–death generator, hidden deaths), per silence bin within " +
			fmt.Sprint(zLimit) + " sd",
		Fixed: 3,
		Generate: func(r *rand.Rand) claim.Instance {
			b := &BeliefCase{Belief: which, Mu: 1 / (60 + 120*r.Float64()), LambdaConv: 10, Duration: 1200, Reps: 3,
				Seed: r.Uint64(), Edges: []float64{0, 5, 15, 30, 60, 100, 150, 250, 400}}
			for i := 1 + r.IntN(2); i > 0; i-- {
				b.Classes = append(b.Classes, birthdeath.RateClass{Rate: 1 / (10 + 80*r.Float64()), Weight: 1 + r.Float64()})
			}
			return b
		},
		Check: checkBelief,
	}
}

// checkBelief runs one BeliefCase.
func checkBelief(c claim.Instance) (bool, string, error) {
	b := c.(*BeliefCase)
	p := birthdeath.Default()
	p.Classes, p.Mu, p.LambdaConv, p.Duration = b.Classes, b.Mu, b.LambdaConv, b.Duration
	prior := belief.Prior{Classes: b.Classes}
	var bl belief.Belief
	var err error
	if b.Belief == "paper" {
		bl, err = belief.NewPaper(b.Mu, prior)
	} else {
		bl, err = belief.NewBayes(b.Mu, prior)
	}
	if err != nil {
		return false, "", err
	}
	bins, err := belief.Calibrate(p, []belief.Belief{bl}, b.Edges, b.Reps, b.Seed)
	if err != nil {
		return false, "", err
	}
	worst := -1
	for i, bin := range bins {
		if bin.N > 0 && (worst < 0 || math.Abs(bin.ZFirst) > math.Abs(bins[worst].ZFirst)) {
			worst = i
		}
	}
	if worst < 0 {
		return false, "", fmt.Errorf("checks: no sampled conversation in the silence bins")
	}
	w := bins[worst]
	detail := fmt.Sprintf("silence [%g, %g) s: %d conversations, %.4f alive, %s belief %.4f (z = %.1f)", w.Lo, w.Hi, w.N, w.Alive, b.Belief, w.Mean[0], w.ZFirst)
	return math.Abs(w.ZFirst) <= zLimit, detail, nil
}
