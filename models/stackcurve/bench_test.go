package stackcurve_test

import (
	"math"
	"testing"

	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/replay"
	"github.com/tailbound/tailbound/models/stackcurve"
)

// BenchmarkLRUCurve replays the embedded birth–death workload at 1 and at
// 32 capacities (2^10·16 tokens up, ×2^0.4 apart) in one pass; compare the
// two to see what a curve costs over a point.
func BenchmarkLRUCurve(b *testing.B) {
	tr, err := birthdeath.Trace(birthdeath.Default(), 1)
	if err != nil {
		b.Fatal(err)
	}
	var caps []int64
	for i := 0; i < 32; i++ {
		caps = append(caps, 16*int64(1024*math.Exp2(0.4*float64(i))))
	}
	opt := replay.Options{Params: instance.Params{BlockSize: 16, Xi: 1000}, Model: latency.Default(), SLOMs: 200}
	for _, n := range []int{1, 32} {
		b.Run(map[int]string{1: "one", 32: "curve32"}[n], func(b *testing.B) {
			for b.Loop() {
				if _, err := stackcurve.LRU(replay.SliceSource(tr.Turns), "lru", caps[:n], opt, 1); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(tr.Turns))*float64(b.N)/b.Elapsed().Seconds(), "turns/s")
		})
	}
}
