package slo

import (
	"context"
	"fmt"
	"slices"
	"testing"
)

// BenchmarkSlabSweep asks whether the search's schedule on the 10^4-turn
// instances of docs/tail-bounds.md (seeds 1–3, C = 131,072 tokens, B =
// 16, SLO 1,900 tokens; Violations without a time limit or backend: the
// LP's rounding, the greedy stages and the search's window budget,
// deterministic) can be improved inside any slab of size candidates: a
// sweep of slabs around every 150th step, each solved exactly by the
// stretch solver within 200,000 nodes. It reports the search's
// violations, the slabs, those solved to the end and the pairs gained.
func BenchmarkSlabSweep(b *testing.B) {
	for seed := uint64(1); seed <= 3; seed++ {
		in := paperInstance(b, 10_000, seed)
		r, err := Violations(context.Background(), in, 1900, Options{})
		if err != nil {
			b.Fatal(err)
		}
		pr := reduce(in, 1900)
		start := pr.fromSchedule(r.Schedule)
		for _, size := range []int{60, 120, 200} {
			b.Run(fmt.Sprintf("seed=%d/size=%d", seed, size), func(b *testing.B) {
				var sw slabSweep
				served := slices.Clone(start)
				for b.Loop() {
					copy(served, start)
					sw = pr.sweepSlabs(context.Background(), served, size, 150, 200_000)
				}
				b.ReportMetric(float64(r.Upper), "violations")
				b.ReportMetric(float64(sw.Slabs), "slabs")
				b.ReportMetric(float64(sw.Exact), "exact")
				b.ReportMetric(float64(sw.Gained), "gained")
			})
		}
	}
}
