package slo

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/tailbound/tailbound/models/birthdeath"
)

// BenchmarkPercentileSplit is the percentile's lower side's probe
// (splitLower) on the embedded workload (seed 1, 36,392 turns, C =
// 131,072 tokens, B = 16) at τ = 1,267 tokens, just above the p90's
// lower end in two minutes, for stretches of 167, 250 and 333 rows: the
// stretches at the LP's split, then steps on their shares for up to 90 s.
// It reports the lower bound on violations after the split
// (split-violations) and after the steps (violations), the steps taken
// and the seconds the split took (split-s); p90 > 1,267
// needs 3,640 violations (at most 3,639 turns above the 90th
// percentile). docs/tail-bounds.md, "The percentile's sides at the
// SLO's strength", has the figures.
//
//	go test ./lp/slo -run '^$' -bench BenchmarkPercentileSplit -benchtime 1x -timeout 20m
func BenchmarkPercentileSplit(b *testing.B) {
	in := paperInstanceOf(b, birthdeath.Default(), 1)
	const tau = 1267
	for _, span := range []int{167, 250, 333} {
		b.Run(fmt.Sprintf("span-%d", span), func(b *testing.B) {
			for range b.N {
				pr := reduce(in, tau)
				if _, _, _, complete, err := pr.lpBoundFrom(context.Background(), nil); err != nil || !complete {
					b.Fatalf("LP: complete %v, %v", complete, err)
				}
				mem := pr.largestMembers()
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
				run.steps(ctx, 0, stretchIter, nil)
				cancel()
				b.ReportMetric(violations(), "violations")
				b.ReportMetric(float64(run.st.Iterations), "steps")
				b.ReportMetric(run.split.Seconds(), "split-s")
			}
		})
	}
}
