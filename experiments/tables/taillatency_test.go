package tables

import (
	"strconv"
	"testing"

	"github.com/tailbound/tailbound/experiments/policies"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/experiments/sim"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/replay"
)

// TestTable1MatchesSeparateRuns recomputes Table 1's P90 cell at each ξ_s
// from separate single-policy replays of LRU and T-LRU, and Table 3's cell
// from their violation counts; CSV carries Table 1's cell unrounded, as
// the fraction.
func TestTable1MatchesSeparateRuns(t *testing.T) {
	p := birthdeath.Default()
	p.Duration = 600
	tr, err := birthdeath.Trace(p, 3)
	if err != nil {
		t.Fatal(err)
	}
	s := sim.Settings{Options: replay.Options{Params: instance.Params{Capacity: 65536, BlockSize: 16}, Model: latency.Default(), SLOMs: 200}}
	xis := []float64{150, 250}
	rows, err := TailLatency(tr, xis, s)
	if err != nil {
		t.Fatal(err)
	}
	tabs := Tables(rows, 200)
	for i, x := range xis {
		s.Xi = s.Model.XiTokens(x)
		one := func(name string) replay.Result {
			e, _ := policies.Parse(name)
			r, err := sim.Trace(tr, e, s)
			if err != nil {
				t.Fatal(err)
			}
			return r[0]
		}
		l, q := one("lru"), one("tlru")
		frac := (l.Summary.P90 - q.Summary.P90) / l.Summary.P90
		want := report.Pct(frac)
		if got := tabs[0].Rows[i][2]; got != want {
			t.Errorf("ξ_s=%v: Table 1 P90 %s, separate runs give %s", x, got, want)
		}
		if got, want := tabs[0].Plain[i][2], strconv.FormatFloat(frac, 'g', -1, 64); got != want {
			t.Errorf("ξ_s=%v: Table 1 P90 in CSV %s, separate runs give %s", x, got, want)
		}
		v := float64(l.Summary.Violations)
		want3 := report.Pct((v - float64(q.Summary.Violations)) / v)
		if got := tabs[2].Rows[i][1]; got != want3 {
			t.Errorf("ξ_s=%v: Table 3 %s, separate runs give %s", x, got, want3)
		}
	}
}
