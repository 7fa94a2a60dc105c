package etlru

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/trace"
)

// TestBayesIncrementalEqualsRescoring: on random traces (skewedTrace:
// fractional times, ties in time, conversations of different rates), block sizes, capacities, caching
// modes, thresholds ξ, death rates, rate-class priors (one to four classes
// of random rates and weights) and Gamma priors (random shape and mean),
// and online, fixed and multi-point prompt distributions, the Bayes
// belief's incremental index makes exactly the decisions of re-scoring
// every cached conversation at every overflow, change for change.
func TestBayesIncrementalEqualsRescoring(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		tr := skewedTrace().Draw(rt, "trace")
		block := rapid.Int64Range(1, 8).Draw(rt, "block")
		prm := instance.Params{Capacity: block * rapid.Int64Range(0, 40).Draw(rt, "capacity blocks"), BlockSize: block,
			Xi: rapid.Float64Range(-20, 120).Draw(rt, "xi"), Forced: rapid.Bool().Draw(rt, "forced")}
		opts := map[string]string{
			"belief": "bayes",
			"prompt": rapid.SampledFrom([]string{"online", "fixed:30", "pmf:5:0.5,50:0.5", "pmf:1:0.2,20:0.3,90:0.5"}).Draw(rt, "prompt"),
			"mu":     rapid.SampledFrom([]string{"0.001", "0.05", "1", "7"}).Draw(rt, "mu"),
		}
		if rapid.Bool().Draw(rt, "gamma prior") {
			opts["gamma"] = fmt.Sprintf("%g:%g", rapid.Float64Range(0.2, 20).Draw(rt, "shape"), rapid.Float64Range(0.001, 5).Draw(rt, "mean rate"))
		} else {
			var cl []string
			for range rapid.IntRange(1, 4).Draw(rt, "classes") {
				cl = append(cl, fmt.Sprintf("%g:%g", rapid.Float64Range(0.0005, 20).Draw(rt, "rate"), rapid.Float64Range(0.01, 10).Draw(rt, "weight")))
			}
			opts["rates"] = strings.Join(cl, ",")
		}
		a, b := decisions(t, tr, prm, opts, false), decisions(t, tr, prm, opts, true)
		if !slices.Equal(a, b) {
			rt.Fatalf("%s", firstDiff(a, b))
		}
	})
}

// skewedTrace generates traces whose conversations turn at different
// rates (each turn's conversation is the least of one to three uniform
// draws, a draw count per conversation count) with irregular gaps: 0 (a tie
// in time), short or long, scaled by a per-trace time unit, so that the
// posteriors' decay rates differ and their values cross over time.
func skewedTrace() *rapid.Generator[*trace.Trace] {
	return rapid.Custom(func(t *rapid.T) *trace.Trace {
		convs := rapid.IntRange(1, 12).Draw(t, "conversations")
		skew := rapid.IntRange(1, 3).Draw(t, "skew")
		unit := rapid.Float64Range(0.01, 50).Draw(t, "seconds per unit")
		tr := &trace.Trace{}
		now := 0.0
		for k := rapid.IntRange(1, 120).Draw(t, "turns"); k > 0; k-- {
			c := convs
			for range skew {
				c = min(c, rapid.IntRange(0, convs-1).Draw(t, "conv"))
			}
			now += unit * rapid.SampledFrom([]float64{0, 0.1, 0.5, 1, 3, 20}).Draw(t, "gap")
			tr.Append(now, string(rune('a'+c)), rapid.Int64Range(1, 60).Draw(t, "prompt"), rapid.Int64Range(0, 60).Draw(t, "response"))
		}
		return tr
	})
}

// TestBayesIncrementalEmbeddedWorkload: on the embedded birth–death
// workload (seed 1, ≈36,000 turns) at the simulate command's default cache
// and ξ, and forced with ξ = 0 and a smaller cache, under the Bayes belief
// with the default class prior and a Gamma prior, online prompts (and a
// three-point prompt distribution for the class prior), the incremental
// index's decisions equal the re-scoring ones (≈25 s of CPU, most of it
// the re-scoring oracle under the Gamma prior).
func TestBayesIncrementalEmbeddedWorkload(t *testing.T) {
	if testing.Short() {
		t.Skip("≈25 s")
	}
	tr, err := birthdeath.Trace(birthdeath.Default(), 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, prm := range []instance.Params{
		{Capacity: 131072, BlockSize: 16, Xi: 1900},
		{Capacity: 32768, BlockSize: 16, Xi: 0, Forced: true},
	} {
		for _, opts := range []map[string]string{
			{"belief": "bayes", "prompt": "online"},
			{"belief": "bayes", "prompt": "pmf:100:0.3,400:0.4,2500:0.3"},
			{"belief": "bayes", "prompt": "online", "gamma": "2:0.03"},
		} {
			a, b := decisions(t, tr, prm, opts, false), decisions(t, tr, prm, opts, true)
			if !slices.Equal(a, b) {
				t.Errorf("%+v %v: %s", prm, opts, firstDiff(a, b))
			}
			if len(a) < 1000 {
				t.Errorf("%+v %v: only %d changes: the cache does not overflow enough to test", prm, opts, len(a))
			}
		}
	}
}
