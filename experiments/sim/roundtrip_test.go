package sim_test

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/tailbound/tailbound/experiments/policies"
	"github.com/tailbound/tailbound/experiments/sim"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/importer/importertest"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/metrics"
	"github.com/tailbound/tailbound/models/replay"
	"github.com/tailbound/tailbound/models/schedule"
	"github.com/tailbound/tailbound/models/trace"
)

// embedded returns the embedded birth–death workload cut to seconds of
// births.
func embedded(t testing.TB, seconds float64) *trace.Trace {
	t.Helper()
	p := birthdeath.Default()
	p.Duration = seconds
	tr, err := birthdeath.Trace(p, 1)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// sameSummary compares two summaries field by field, NaN equal to NaN.
func sameSummary(a, b metrics.Summary) bool {
	f := func(x, y float64) bool { return x == y || math.IsNaN(x) && math.IsNaN(y) }
	return a.Turns == b.Turns && f(a.TELTokens, b.TELTokens) && f(a.TELMs, b.TELMs) && f(a.MeanTTFTMs, b.MeanTTFTMs) &&
		f(a.P50, b.P50) && f(a.P90, b.P90) && f(a.P95, b.P95) && f(a.P99, b.P99) && a.Violations == b.Violations &&
		f(a.ViolationPct, b.ViolationPct) && f(a.HitRatio, b.HitRatio) && f(a.HistoryHit, b.HistoryHit) &&
		a.MaxUncached == b.MaxUncached && f(a.UncachedSum, b.UncachedSum)
}

// TestRoundTrip: for every registered policy, --emit-schedule then
// --schedule reproduces its metrics exactly (evictions included) in the
// decision form, and every metric but the eviction counts in the arrival
// form (the "cached" column alone), which counts evictions on the least
// occupancy.
func TestRoundTrip(t *testing.T) {
	cases := []struct {
		name     string
		tr       func(testing.TB) *trace.Trace
		capacity int64
		block    int64
		xi       float64
		forced   bool
	}{
		{"embedded", func(t testing.TB) *trace.Trace { return embedded(t, 600) }, 32768, 16, 1500.5, false},
		{"embedded-forced", func(t testing.TB) *trace.Trace { return embedded(t, 600) }, 32768, 16, 1500.5, true},
		{"mooncake", importertest.MooncakeConversations, 1 << 20, 512, 1900, false},
	}
	all := policies.All()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := c.tr(t)
			dir := t.TempDir()
			s := sim.Settings{Options: replay.Options{Params: instance.Params{Capacity: c.capacity, BlockSize: c.block, Xi: c.xi, Forced: c.forced},
				Model: latency.Default(), SLOMs: 200}, Threshold: 1024,
				EmitSchedule: filepath.Join(dir, "s.jsonl")}
			want, err := sim.Trace(tr, all, s)
			if err != nil {
				t.Fatal(err)
			}
			s.EmitSchedule = ""
			for _, e := range all {
				path := schedule.Path(filepath.Join(dir, "s.jsonl"), e.Name, true)
				dec, err := schedule.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				arr, err := schedule.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				arr.Decisions = false
				for i := range arr.Lines {
					arr.Lines[i].Keep, arr.Lines[i].Shrink = nil, nil
				}
				s.Schedules = []*schedule.Schedule{dec, arr}
				got, err := sim.Trace(tr, nil, s)
				if err != nil {
					t.Fatalf("%s: %v", e.Name, err)
				}
				var w replay.Result
				for _, r := range want {
					if r.Name == e.Name {
						w = r
					}
				}
				if !sameSummary(got[0].Summary, w.Summary) || got[0].Evictions != w.Evictions || got[0].EvictedTokens != w.EvictedTokens {
					t.Errorf("%s decision form: %+v, %d evictions of %d tokens; policy %+v, %d of %d", e.Name,
						got[0].Summary, got[0].Evictions, got[0].EvictedTokens, w.Summary, w.Evictions, w.EvictedTokens)
				}
				if !sameSummary(got[1].Summary, w.Summary) {
					t.Errorf("%s arrival form: %+v; policy %+v", e.Name, got[1].Summary, w.Summary)
				}
				if w.Evictions == 0 {
					t.Errorf("%s: no evictions at this capacity; the test would not exercise shrinks", e.Name)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "s.jsonl")); err == nil {
				t.Errorf("several policies wrote the unsuffixed file too")
			}
		})
	}
}
