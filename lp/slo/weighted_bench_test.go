package slo

import (
	"context"
	"testing"
)

// BenchmarkWeightedLower compares the weighted LP bound with the
// unweighted one (Violations with NoImprove and NoLNS: the LP alone) on
// the 10^4-turn birth–death instance of seed 3 (C = 131,072 tokens, B =
// 16, SLO 1,900 tokens): weights all 1 (the same network), and the ramp
// of lp/window's overlap over every turn (k/1024 rising, then falling:
// many distinct costs). It reports the bound, turns.
func BenchmarkWeightedLower(b *testing.B) {
	in := paperInstance(b, 10_000, 3)
	ctx := context.Background()
	b.Run("unweighted", func(b *testing.B) {
		var r *Result
		var err error
		for b.Loop() {
			if r, err = Violations(ctx, in, 1900, Options{NoImprove: true, NoLNS: true}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(r.Lower), "lower")
	})
	ones := make([]int64, in.K())
	ramp := make([]int64, in.K())
	for n := range ones {
		ones[n] = 1024
		ramp[n] = int64(1 + 1023*min(n, in.K()-1-n)*2/in.K())
	}
	for _, c := range []struct {
		name string
		wt   []int64
	}{{"ones", ones}, {"ramp", ramp}} {
		b.Run(c.name, func(b *testing.B) {
			var r *WeightedBound
			var err error
			for b.Loop() {
				if r, err = WeightedLower(ctx, in, 1900, c.wt, 1024, Options{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(r.Value(), "lower")
		})
	}
}
