package lp

import (
	"context"
	"fmt"
	"testing"

	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/trace"
)

// benchCapacity is the capacity of the size benchmarks, tokens: about a
// third of what the default birth–death workload's live conversations hold.
const benchCapacity = 131072

// birthDeath returns the default birth–death workload cut at turns turns.
func birthDeath(tb testing.TB, turns int) *trace.Trace {
	tb.Helper()
	p := birthdeath.Default()
	p.Duration = 0
	p.MaxTurns = turns
	tr, err := birthdeath.Trace(p, 1)
	if err != nil {
		tb.Fatal(err)
	}
	return tr
}

func benchInstance(b *testing.B, turns int, block int64) *Instance {
	tr := birthDeath(b, turns)
	in, err := NewInstance(tr, benchCapacity, block, 300, false)
	if err != nil {
		b.Fatal(err)
	}
	return in
}

// BenchmarkFlow times the flow solver on birth–death traces (B = 16).
func BenchmarkFlow(b *testing.B) {
	for _, k := range []int{1000, 10000, 100000, 1000000} {
		b.Run(fmt.Sprint(k), func(b *testing.B) {
			in := benchInstance(b, k, 16)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				r, err := SolveFlow(context.Background(), in, Options{})
				if err != nil || r.Status != Optimal {
					b.Fatal(err, r.Status)
				}
				b.ReportMetric(r.Solve.Seconds(), "solve-s")
				b.ReportMetric(r.TEL, "TEL-tokens")
			}
		})
	}
}
