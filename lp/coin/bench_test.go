//go:build coin

package coin

import (
	"context"
	"fmt"
	"testing"

	"github.com/tailbound/tailbound/lp"
)

// benchSpan is the mean number of steps a synthetic carried amount spans:
// in birth–death traces with the default parameters (birthdeath.Default,
// no duration bound) a conversation's next turn comes 218 turns later on
// average at 10^4 turns and 227 at 10^5 (median 138 and 143).
const benchSpan = 220

// BenchmarkCLPInterval solves the synthetic interval LP (intervalLP) of n
// turns, 2n columns, with each CLP method. The target is the
// compact TEL LP of 10^5 turns within 60 s.
func BenchmarkCLPInterval(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		p := intervalLP(n, benchSpan, 1)
		for _, m := range []Method{Automatic, Dual, Primal} {
			b.Run(fmt.Sprintf("turns=%d/%v", n, m), func(b *testing.B) {
				benchSolve(b, CLP{Method: m}, p, lp.Options{})
			})
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
