//go:build coin

package coin

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/tailbound/tailbound/lp"
)

// benchSpan is the mean number of steps a synthetic carried amount spans:
// in birth–death traces with the default parameters (birthdeath.Default,
// no duration bound) a conversation's next turn comes 218 turns later on
// average at 10^4 turns and 227 at 10^5 (median 138 and 143).
const benchSpan = 220

// BenchmarkCLPInterval solves the synthetic interval LP (intervalLP) of n
// turns, 2n columns, with each CLP method, as given (CLP.Direct) and
// through the compact reduction, which its excess rows z + u ≥ d have. The
// issue's target is the compact TEL LP of 10^5 turns within 60 s.
func BenchmarkCLPInterval(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		p := intervalLP(n, benchSpan, 1)
		for _, m := range []Method{Automatic, Dual, Primal} {
			for _, direct := range []bool{true, false} {
				how := "reduced"
				if direct {
					how = "direct"
				}
				b.Run(fmt.Sprintf("turns=%d/%v/%s", n, m, how), func(b *testing.B) {
					benchSolve(b, CLP{Method: m, Direct: direct}, p, lp.Options{})
				})
			}
		}
	}
}

// BenchmarkCBCInterval solves the interval LP of n turns as a MIP with the
// carried amounts z integer. The capacity rows form an interval matrix,
// which is totally unimodular, and all data are integers, so the LP
// optimum is already integral: this measures CBC's overhead at the root.
func BenchmarkCBCInterval(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		p := intervalLP(n, benchSpan, 1)
		p.Integer = make([]bool, p.NumCols)
		for j := 0; j < n; j++ {
			p.Integer[j] = true
		}
		b.Run(fmt.Sprintf("turns=%d", n), func(b *testing.B) {
			benchSolve(b, CBC{}, p, lp.Options{})
		})
	}
}

// BenchmarkCompact solves the compact TEL program (lp.BuildCompact) of
// default birth–death traces of 10^3, 10^4 and 10^5 turns (no duration
// bound, seed 1) with capacity 131072 tokens, blocks of 16 tokens, ξ = 300
// tokens and optional caching — the parameters of package lp's benchmarks
// — in both capacity-row forms: CLP (automatic and dual) on the LP
// relaxation, CBC on the integer program. Each solve has the 60 s
// limit; a solve that stops on it reports optimal = 0 instead of failing.
func BenchmarkCompact(b *testing.B) {
	for _, turns := range []int{1000, 10000, 100000} {
		in := compactInstance(b, turns, 1, 131072, 16, 300)
		for _, form := range []string{"balance", "interval"} {
			m := lp.BuildCompact(in, lp.BuildOptions{IntervalRows: form == "interval"})
			for _, s := range []struct {
				name  string
				be    lp.Backend
				relax bool
			}{
				{"clp", CLP{}, true},
				{"clp-dual", CLP{Method: Dual}, true},
				{"cbc", CBC{}, false},
			} {
				b.Run(fmt.Sprintf("turns=%d/%s/%s", turns, form, s.name), func(b *testing.B) {
					p := m.Problem
					b.ReportMetric(float64(p.NumCols), "columns")
					b.ReportMetric(float64(p.NonZeros()), "nonzeros")
					for i := 0; i < b.N; i++ {
						sol, err := s.be.Solve(context.Background(), p, lp.Options{Relax: s.relax, TimeLimit: 60 * time.Second})
						if err != nil {
							b.Fatal(err)
						}
						ok := 0.0
						if sol.Status == lp.Optimal {
							ok = 1
							b.ReportMetric(sol.Obj+m.Offset, "TEL-tokens")
						}
						b.ReportMetric(ok, "optimal")
					}
				})
			}
		}
	}
}

func benchSolve(b *testing.B, be lp.Backend, p *lp.Problem, opt lp.Options) {
	b.ReportMetric(float64(p.NumCols), "columns")
	b.ReportMetric(float64(p.NonZeros()), "nonzeros")
	var iters int
	for i := 0; i < b.N; i++ {
		sol, err := be.Solve(context.Background(), p, opt)
		if err != nil {
			b.Fatal(err)
		}
		if sol.Status != lp.Optimal {
			b.Fatalf("%v: %s", sol.Status, sol.Detail)
		}
		iters = sol.Iterations
	}
	b.ReportMetric(float64(iters), "iterations")
}

// BenchmarkCompactLP times the compact LP relaxation of the birth–death
// traces of BenchmarkCompact at 5·10^4 and 10^5 turns in both row forms:
// "direct" is CLP on the rows as built (the binding before the compact
// reduction; the dual simplex was its fastest), "reduced" the default
// CLP.Solve, which applies the compact reduction (reduce.go), with each
// method. It reports the TEL bound and /proc/loadavg's one-minute load
// before each solve. 60 s limit as in BenchmarkCompact.
func BenchmarkCompactLP(b *testing.B) {
	for _, turns := range []int{50000, 100000} {
		in := compactInstance(b, turns, 1, 131072, 16, 300)
		for _, form := range []string{"interval", "balance"} {
			m := lp.BuildCompact(in, lp.BuildOptions{IntervalRows: form == "interval"})
			for _, s := range []struct {
				name string
				be   CLP
			}{
				{"direct-dual", CLP{Method: Dual, Direct: true}},
				{"reduced-automatic", CLP{}},
				{"reduced-dual", CLP{Method: Dual}},
				{"reduced-primal", CLP{Method: Primal}},
			} {
				b.Run(fmt.Sprintf("turns=%d/%s/%s", turns, form, s.name), func(b *testing.B) {
					for i := 0; i < b.N; i++ {
						b.ReportMetric(loadAvg(), "load1")
						sol, err := s.be.Solve(context.Background(), m.Problem, lp.Options{Relax: true, TimeLimit: 60 * time.Second})
						if err != nil {
							b.Fatal(err)
						}
						ok := 0.0
						if sol.Status == lp.Optimal {
							ok = 1
							b.ReportMetric(sol.Obj+m.Offset, "TEL-tokens")
						}
						b.ReportMetric(ok, "optimal")
						b.ReportMetric(float64(sol.Iterations), "iterations")
					}
				})
			}
		}
	}
}

// loadAvg returns the one-minute load average, or -1.
func loadAvg() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return -1
	}
	var l float64
	if _, err := fmt.Sscan(string(b), &l); err != nil {
		return -1
	}
	return l
}
