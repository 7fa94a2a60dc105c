package etlru

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/tailbound/tailbound/mdp/belief"
	"github.com/tailbound/tailbound/models/birthdeath"
)

// Options are ET-LRU's settings, read from policy.Config.Options
// (--policy-opt key=value on the command line; keys may also be written
// "etlru.key"):
//
//	belief=paper|bayes   the belief behind λ_i (default paper: exp(−μs))
//	mu=RATE              death rate μ, per second (default: the embedded workload's 1/120)
//	rates=R:W,…          rate classes, per second (default: the embedded workload's)
//	gamma=SHAPE:MEAN     Gamma rate prior instead of classes (mean per second)
//	prompt=SPEC          next-prompt distribution: online (default: the
//	                     prompts seen so far), pmf:TOKENS:PROB,…, fixed:N,
//	                     geometric:MEAN, lognormal:MU,SIGMA, empirical:FILE
type Options struct {
	Belief belief.Belief
	Prompt *Known // nil: fitted online
	// Rescore makes every overflowing turn re-score every cached
	// conversation (Greedy over all of them) instead of using the
	// incremental index (incremental.go under the paper's belief,
	// bayes_incremental.go under the Bayes belief), which gives the same
	// decisions; tests use it as the oracle.
	Rescore bool
}

// ParseOptions reads ET-LRU's options from kv. Keys of other policies
// ("name.key" with another name) are ignored; any other unknown key is an
// error.
func ParseOptions(kv map[string]string) (Options, error) {
	def := birthdeath.Default()
	set := map[string]string{"belief": "paper", "mu": strconv.FormatFloat(def.Mu, 'g', -1, 64), "prompt": "online"}
	keys := make([]string, 0, len(kv))
	for k := range kv {
		keys = append(keys, k)
	}
	sort.Strings(keys) // report the first bad key deterministically
	for _, k := range keys {
		name := k
		if pre, rest, ok := strings.Cut(k, "."); ok {
			if pre != "etlru" {
				continue
			}
			name = rest
		}
		switch name {
		case "belief", "mu", "rates", "gamma", "prompt":
			set[name] = kv[k]
		default:
			return Options{}, fmt.Errorf("etlru: unknown option %q (known: belief, mu, rates, gamma, prompt)", k)
		}
	}
	mu, err := strconv.ParseFloat(set["mu"], 64)
	if err != nil {
		return Options{}, fmt.Errorf("etlru: option mu=%q: not a number (per second)", set["mu"])
	}
	prior := belief.Prior{Classes: def.Classes}
	if r, ok := set["rates"]; ok {
		if prior.Classes, err = birthdeath.ParseRates(r); err != nil {
			return Options{}, fmt.Errorf("etlru: option rates: %w", err)
		}
	}
	if g, ok := set["gamma"]; ok {
		if _, both := set["rates"]; both {
			return Options{}, fmt.Errorf("etlru: options rates and gamma: give one rate prior, not both")
		}
		gd, err := birthdeath.ParseGamma(g)
		if err != nil {
			return Options{}, fmt.Errorf("etlru: option gamma: %w", err)
		}
		prior = belief.Prior{Gamma: &gd}
	}
	var o Options
	switch set["belief"] {
	case "paper":
		o.Belief, err = belief.NewPaper(mu, prior)
	case "bayes":
		o.Belief, err = belief.NewBayes(mu, prior)
	default:
		return Options{}, fmt.Errorf("etlru: option belief=%q: want paper or bayes", set["belief"])
	}
	if err != nil {
		return Options{}, fmt.Errorf("etlru: %w", err)
	}
	if o.Prompt, err = ParsePrompt(set["prompt"]); err != nil {
		return Options{}, fmt.Errorf("etlru: option prompt: %w", err)
	}
	return o, nil
}
