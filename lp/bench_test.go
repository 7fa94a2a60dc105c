package lp_test

import (
	"context"
	"fmt"
	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/gonumlp"
	"github.com/tailbound/tailbound/lp/mcf"
	"testing"

	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/instance"
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

func benchInstance(b *testing.B, turns int, block int64) *lp.Instance {
	tr := birthDeath(b, turns)
	in, err := lp.NewInstance(tr, instance.Params{Capacity: benchCapacity, BlockSize: block, Xi: 300})
	if err != nil {
		b.Fatal(err)
	}
	return in
}

// BenchmarkFlowMethods times each min-cost flow method on 10^4 turns.
func BenchmarkFlowMethods(b *testing.B) {
	in := benchInstance(b, 10000, 16)
	for _, m := range mcf.Methods() {
		b.Run(string(m), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				r, err := lp.SolveFlowWith(context.Background(), in, lp.Options{}, m)
				if err != nil || r.Status != lp.Optimal {
					b.Fatal(err, r.Status)
				}
			}
		})
	}
}

// BenchmarkGonum times the gonum backend on the compact formulation of 40
// turns (about its size limit), LP and branch and bound.
func BenchmarkGonum(b *testing.B) {
	in := benchInstance(b, 40, 16)
	for _, relax := range []bool{true, false} {
		b.Run(fmt.Sprint("relax=", relax), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				r, err := lp.SolveInstance(context.Background(), in, lp.Compact, gonumlp.Backend{}, relax, lp.Options{})
				if err != nil || r.Status != lp.Optimal {
					b.Fatal(err, r.Status, r.Detail)
				}
			}
		})
	}
}

// BenchmarkFlow times the flow solver on birth–death traces (B = 16).
func BenchmarkFlow(b *testing.B) {
	for _, k := range []int{1000, 10000, 100000, 1000000} {
		b.Run(fmt.Sprint(k), func(b *testing.B) {
			in := benchInstance(b, k, 16)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				r, err := lp.SolveFlow(context.Background(), in, lp.Options{})
				if err != nil || r.Status != lp.Optimal {
					b.Fatal(err, r.Status)
				}
				b.ReportMetric(r.Solve.Seconds(), "solve-s")
				b.ReportMetric(r.TEL, "TEL-tokens")
			}
		})
	}
}

// BenchmarkFlowLarge times the default method (windows) against plain cost
// scaling on the same birth–death instances (B = 16), for the ratio in the
// README; at 10^6 turns cost scaling takes minutes, so run it with
// -benchtime 1x.
func BenchmarkFlowLarge(b *testing.B) {
	for _, k := range []int{100000, 1000000} {
		in := benchInstance(b, k, 16)
		for _, m := range []mcf.Method{mcf.Windows, mcf.CostScaling} {
			b.Run(fmt.Sprintf("%d/%s", k, m), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					r, err := lp.SolveFlowWith(context.Background(), in, lp.Options{}, m)
					if err != nil || r.Status != lp.Optimal {
						b.Fatal(err, r.Status)
					}
					b.ReportMetric(r.Solve.Seconds(), "solve-s")
					b.ReportMetric(r.TEL, "TEL-tokens")
				}
			})
		}
	}
}

// BenchmarkFlowCurve times the optimum's capacity curve at 8 capacities
// 32,768·2^(k/3) tokens (B = 16, ξ = 300 tokens) on birth–death
// instances, warm-started and solved from scratch, for the ratio of the
// two in one run (-benchtime 1x at 10^5 turns).
func BenchmarkFlowCurve(b *testing.B) {
	caps := curveCapacities(32768, 8)
	for _, k := range []int{10000, 100000} {
		in := benchInstance(b, k, 16)
		for _, warm := range []bool{false, true} {
			b.Run(fmt.Sprintf("%d/warm=%v", k, warm), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					rs, err := lp.SolveFlowCurve(context.Background(), in, caps, lp.Options{}, warm)
					if err != nil {
						b.Fatal(err)
					}
					for _, r := range rs {
						if r.Status != lp.Optimal {
							b.Fatal(r.Status, r.Detail)
						}
					}
				}
			})
		}
	}
}
