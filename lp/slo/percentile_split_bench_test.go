package slo

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/objective"
)

// embeddedP90 is the embedded workload (seed 1, 36,392 turns, C =
// 131,072 tokens, B = 16) and M, the turns its p90 lets exceed the
// threshold: K − ⌈0.9·K⌉ = 36,392 − 32,753 = 3,639.
func embeddedP90(b *testing.B) (*lp.Instance, int) {
	in := paperInstanceOf(b, birthdeath.Default(), 1)
	return in, in.K() - objective.Rank(in.K(), 90)
}

// BenchmarkPercentileSplit is the percentile's lower side's probe
// (splitLower) on the embedded workload (seed 1, 36,392 turns, C =
// 131,072 tokens, B = 16) at τ = 1,267 tokens, just above the p90's
// lower end in two minutes, for stretches of 167, 250 and 333 rows: the
// stretches at the LP's split, then steps on their shares for up to 90 s.
// It reports the lower bound on violations after the split
// (split-violations) and after the steps (violations), the steps taken
// and the seconds the split took (split-s); p90 > 1,267
// needs 3,640 violations (at most 3,639 turns above the 90th
// percentile). A last run, stop-333, is the lower side's probe as
// splitLower runs it: 333-row stretches whose steps stop once the bound
// proves 3,640, and reports the seconds that took (prove-s, split and
// steps; the 90 s cut it short when violations is below 3,640).
// docs/tail-bounds.md, "The percentile's sides at the SLO's strength"
// and "The line's flow LP settles ...", has the figures.
//
//	go test ./lp/slo -run '^$' -bench BenchmarkPercentileSplit -benchtime 1x -timeout 20m
func BenchmarkPercentileSplit(b *testing.B) {
	in, M := embeddedP90(b)
	const tau = 1267
	for _, c := range []struct {
		span int
		stop bool // the steps stop at the proof of M + 1
	}{{167, false}, {250, false}, {333, false}, {333, true}} {
		span := c.span
		name := fmt.Sprintf("span-%d", span)
		if c.stop {
			name = fmt.Sprintf("stop-%d", span)
		}
		b.Run(name, func(b *testing.B) {
			for range b.N {
				pr := reduce(in, tau)
				if _, _, _, complete, err := pr.lpBoundFrom(context.Background(), nil); err != nil || !complete {
					b.Fatalf("LP: complete %v, %v", complete, err)
				}
				mem := pr.largestMembers()
				t0 := time.Now()
				ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
				run := pr.scaleBound(ctx, mem, span, true)
				if run == nil {
					cancel()
					b.Fatal("no stretches")
				}
				// every pair of the other components served: a lower bound
				violations := func() float64 {
					return float64(in.K() - pr.always - (len(pr.cands) - len(mem)) - run.best.floor(len(mem)))
				}
				b.ReportMetric(violations(), "split-violations")
				stop := 0 // the pairs this component may serve at most with M + 1 violations
				if c.stop {
					stop = pr.servedAbove(M) - (len(pr.cands) - len(mem))
				}
				run.steps(ctx, stop, stretchIter, nil)
				cancel()
				b.ReportMetric(violations(), "violations")
				b.ReportMetric(float64(run.st.Iterations), "steps")
				b.ReportMetric(run.split.Seconds(), "split-s")
				if c.stop {
					b.ReportMetric(time.Since(t0).Seconds(), "prove-s")
				}
			}
		})
	}
}
