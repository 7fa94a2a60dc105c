//go:build coin

package slo

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/tailbound/tailbound/lp/coin"
)

// BenchmarkMIPStretches solves the stretches of the 10^4-turn instance of
// docs/tail-bounds.md (seed 1, its one open component) by CBC, each within
// a minute, and reports their bound (pairs served, at most) and wall time:
// "split-R", stretches of R rows at the LP's split; "carried-333",
// stretches of 333 rows whose shares are those of stretches of 37 rows
// after at most 30 s of the pure-Go bundle method's steps, summed
// (mipStretchBound's start). "go-167" solves the first four stretches of
// split-167 by the pure-Go branch and bound with a budget of 10^6 nodes
// each and reports how far its answers lie above CBC's (pairs, all four
// together; 0 when it closes them). "flow-R" solves the stretches of
// split-R by the pure-Go flow LP's branch and bound (stretchflow.go) on
// every core (CBC solves one at a time), without a time limit. The bounds
// are logged to four decimals. A measurement, about 20 minutes:
//
//	go test -tags coin ./lp/slo -run '^$' -bench MIPStretches -benchtime 1x -timeout 60m
func BenchmarkMIPStretches(b *testing.B) {
	split := func(b *testing.B, span int) *stretchDecomp {
		m, _ := stretchBenchComponent(b, 1)
		return lpSplit(b, m, span)
	}
	// solve solves sd's stretches by CBC, or by the flow branch and
	// bound when flow is set, and reports their bound
	solve := func(b *testing.B, sd *stretchDecomp, flow bool) {
		sd.mip, sd.mipLimit = coin.CBC{}, mipStretchLimit
		if flow {
			sd.mip, sd.mipLimit = nil, 0
			sd.useFlow()
		}
		start := time.Now()
		v := bound{num: sd.solveAll(context.Background()), S: muBits}.value()
		exact := 0
		for _, w := range sd.wins {
			if w.exact {
				exact++
			}
		}
		b.ReportMetric(v, "pairs")
		b.ReportMetric(float64(exact), "closed")
		b.ReportMetric(time.Since(start).Seconds(), "s")
		b.Logf("%.4f pairs served at most", v)
	}
	for _, flow := range []bool{false, true} {
		for _, span := range []int{167, 333} {
			name := "split-"
			if flow {
				name = "flow-"
			}
			b.Run(name+strconv.Itoa(span), func(b *testing.B) {
				for b.Loop() {
					solve(b, split(b, span), flow)
				}
			})
		}
	}
	b.Run("carried-333", func(b *testing.B) {
		for b.Loop() {
			m, _ := stretchBenchComponent(b, 1)
			start := time.Now()
			ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
			_, st, ok := m.mipStretchBound(ctx, coin.CBC{}, 333, 0, 0)
			cancel()
			if !ok {
				b.Fatal("no bound")
			}
			b.ReportMetric(st.Start, "pairs")
			b.ReportMetric(float64(st.Exact), "closed")
			b.ReportMetric(time.Since(start).Seconds(), "s")
		}
	})
	b.Run("go-167", func(b *testing.B) {
		for b.Loop() {
			sd := split(b, 167)
			sd.wins = sd.wins[:4]
			var ws stretchSolver
			var goSum, cbcSum int64
			for _, w := range sd.wins {
				ws.solve(context.Background(), sd, w, 1_000_000)
				goSum += w.val
				if !sd.stretchMIP(context.Background(), w, coin.CBC{}, mipStretchLimit) || !w.exact {
					b.Fatal("CBC did not close a stretch")
				}
				cbcSum += w.val
			}
			b.ReportMetric(float64(goSum-cbcSum)/(1<<muBits), "excess-pairs")
		}
	})
}
