package suite

import (
	"bytes"
	"context"
	"maps"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/slo"
	"github.com/tailbound/tailbound/lp/solvers"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/policy"
	"github.com/tailbound/tailbound/models/replay"
	"github.com/tailbound/tailbound/models/trace"
)

// TestReachOfHandWorked: LRU at 100, T-LRU at 85, optimum in [60, 70]:
// T-LRU gains 15 %, the best schedule between 30 % (100 − 70) and 40 %
// (100 − 60), so T-LRU reaches 15/40 = 37.5 % to 15/30 = 50 % of it. A
// policy worse than LRU (110) has a negative share, ordered low to high;
// a zero baseline, or an interval reaching the baseline, has none.
func TestReachOfHandWorked(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		base, value, lo, hi float64
		want                Reach
	}{
		{100, 85, 60, 70, Reach{15, 30, 40, 37.5, 50}},
		{100, 110, 60, 70, Reach{-10, 30, 40, -100.0 / 3, -25}},
		{200, 200, 50, 50, Reach{0, 75, 75, 0, 0}},
		{0, 0, 0, 0, Reach{nan, nan, nan, nan, nan}},
		{100, 90, 80, 100, Reach{10, 0, 20, nan, nan}},
	}
	same := func(a, b float64) bool { return math.IsNaN(a) && math.IsNaN(b) || math.Abs(a-b) < 1e-12 }
	for _, c := range cases {
		g := ReachOf(c.base, c.value, c.lo, c.hi)
		if !same(g.Gain, c.want.Gain) || !same(g.PossibleLo, c.want.PossibleLo) || !same(g.PossibleHi, c.want.PossibleHi) ||
			!same(g.ShareLo, c.want.ShareLo) || !same(g.ShareHi, c.want.ShareHi) {
			t.Errorf("ReachOf(%v, %v, %v, %v) = %+v, want %+v", c.base, c.value, c.lo, c.hi, g, c.want)
		}
	}
}

// smallBirthDeath writes a birth–death trace of n turns (seed 5) and
// returns its path.
func smallBirthDeath(t *testing.T, n int) (string, *trace.Trace) {
	t.Helper()
	p := birthdeath.Default()
	p.MaxTurns = n
	tr, err := birthdeath.Trace(p, 5)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "bd.jsonl")
	var buf bytes.Buffer
	if err := trace.WriteTrace(&buf, tr); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, tr
}

// direct bounds objective name (slo at 200 ms = 1,900 tokens at α = 0.1,
// β = 10, worked by hand: (200 − 10)/0.1; or p90) on tr at capacity c,
// B = 16, by lp/slo called directly, with backend be (nil: bounds only).
func direct(t *testing.T, tr *trace.Trace, c int64, name string, be lp.Backend) (lo, hi float64, proven bool) {
	t.Helper()
	in, err := lp.NewInstance(tr, instance.Params{Capacity: c, BlockSize: 16})
	if err != nil {
		t.Fatal(err)
	}
	opt := slo.Options{Backend: be}
	switch name {
	case "slo":
		r, err := slo.Violations(context.Background(), in, 1900, opt)
		if err != nil {
			t.Fatal(err)
		}
		return float64(r.Lower), float64(r.Upper), r.Proven
	case "p90":
		r, err := slo.Percentile(context.Background(), in, 90, opt)
		if err != nil {
			t.Fatal(err)
		}
		return float64(r.Lower), float64(r.Upper), r.Proven
	}
	t.Fatalf("objective %s", name)
	return 0, 0, false
}

// TestOptimalityGapTailBounds: the suite's bound cells equal lp/slo called
// directly on the same instance (flow bounds; and with the 0/1 program by
// gonum or CBC), each policy's value beside them equals
// the replay engine's own count or percentile, and the rendered share
// reached is ReachOf of those numbers.
func TestOptimalityGapTailBounds(t *testing.T) {
	m := latency.Default()
	// --tail-bounds ip solves open components by CBC where built, else by
	// gonum; the direct call uses the same backend (a proven optimum is
	// the same number whichever solver proves it).
	ipName := "gonum"
	if solvers.Coin() {
		ipName = "cbc"
	}
	ipBackend, err := solvers.Backend(ipName)
	if err != nil {
		t.Fatal(err)
	}
	// The flow bounds on 300 turns; the 0/1 program (gonum's branch and
	// bound, which has no time limit in the direct call) on 60.
	for _, mode := range []string{"flow", "ip"} {
		n := 300
		if mode == "ip" {
			n = 60
		}
		path, tr := smallBirthDeath(t, n)
		f, err := Run(context.Background(), OptimalityGap(), Options{Seed: 1, Workers: 2, Params: map[string]string{"trace": path,
			"capacities": "2048,4096", "xis": "1900", "policies": "lru", "tail-bounds": mode}}, Shard{1, 1})
		if err != nil {
			t.Fatal(err)
		}
		var be lp.Backend
		if mode == "ip" {
			be = ipBackend
		}
		bounds := 0
		for _, r := range f.Records {
			p := f.Grid[r.Point]
			if p[boundKey] == "" {
				continue
			}
			c, _ := strconv.ParseInt(p["capacity"], 10, 64)
			if r.Key == optKey {
				bounds++
				lo, hi, proven := direct(t, tr, c, p[boundKey], be)
				if r.V("lo") != lo || r.V("hi") != hi || (r.V("proven") == 1) != proven {
					t.Errorf("%s C=%d %s: suite [%v, %v] proven %v, lp/slo [%v, %v] %v", mode, c, p[boundKey], r.V("lo"), r.V("hi"),
						r.V("proven"), lo, hi, proven)
				}
				if mode == "ip" && !proven {
					t.Errorf("C=%d %s: the 0/1 program left [%v, %v] open on 60 turns", c, p[boundKey], lo, hi)
				}
				if p[boundKey] == "p90" && r.V("hi_ms") != m.TTFTMs(hi) {
					t.Errorf("C=%d: p90 upper %v ms, want %v", c, r.V("hi_ms"), m.TTFTMs(hi))
				}
				continue
			}
			fac := map[string]policy.Factory{"lru": policy.NewLRU, "tlru": policy.NewTLRU}[r.Key]
			if fac == nil {
				continue
			}
			ps := instance.Params{Capacity: c, BlockSize: 16, Xi: r.V("xi")}
			pol, err := fac(policy.Config{Params: ps, Threshold: policy.DefaultThreshold})
			if err != nil {
				t.Fatal(err)
			}
			out, err := replay.Replay(replay.SliceSource(tr.Turns), []replay.Named{{Name: r.Key, Policy: pol}},
				replay.Options{Params: ps, Model: m, SLOMs: 200})
			if err != nil {
				t.Fatal(err)
			}
			want, got := float64(out[0].Summary.Violations), r.V("value")
			if p[boundKey] == "p90" {
				want, got = out[0].Summary.P90, r.V("value_ms")
			}
			if math.Abs(got-want) > 1e-9 {
				t.Errorf("C=%d %s %s: suite %v, replay %v", c, p[boundKey], r.Key, got, want)
			}
		}
		if bounds != 4 {
			t.Errorf("%s: %d bound records, want 4 (2 capacities × p90, slo)", mode, bounds)
		}
		// The rendered table's share cells are ReachOf of the records.
		var buf bytes.Buffer
		if err := Render(&buf, OptimalityGap(), f, "json"); err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(buf.Bytes(), []byte(`"hindsight_bounds"`)) {
			t.Errorf("%s: JSON has no hindsight_bounds", mode)
		}
	}
}

// TestTailLatencyTailBounds: the tail-latency suite's bound records equal
// lp/slo called directly, and its reach table is computed from the LRU and
// T-LRU records and that interval.
func TestTailLatencyTailBounds(t *testing.T) {
	path, tr := smallBirthDeath(t, 300)
	f, err := Run(context.Background(), TailLatency(), Options{Seed: 1, Workers: 2, Params: map[string]string{"trace": path,
		"capacity": "4096", "xis-ms": "200", "tail-bounds": "flow", "tail-objectives": "slo,p90"}}, Shard{1, 1})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range f.Records {
		p := f.Grid[r.Point]
		if p[boundKey] == "" {
			continue
		}
		n++
		lo, hi, proven := direct(t, tr, 4096, p[boundKey], nil)
		if r.V("lo") != lo || r.V("hi") != hi || (r.V("proven") == 1) != proven {
			t.Errorf("%s: suite [%v, %v] proven %v, lp/slo [%v, %v] %v", p[boundKey], r.V("lo"), r.V("hi"), r.V("proven"), lo, hi, proven)
		}
	}
	if n != 2 {
		t.Fatalf("%d bound records, want 2", n)
	}
	_, rows, ok := tailReachTable(f.Grid, f.Records, datasetBirthDeath, "")
	if !ok || len(rows) != 2 {
		t.Fatalf("reach table: ok %v, %d rows", ok, len(rows))
	}
	for _, row := range rows {
		want := ReachOf(float64(row.LRU), float64(row.TLRU), float64(row.Lower), float64(row.Upper))
		if float64(row.GainPct) != want.Gain || float64(row.PossibleLo) != want.PossibleLo || float64(row.PossibleHi) != want.PossibleHi {
			t.Errorf("%s: row %+v, ReachOf %+v", row.Objective, row, want)
		}
		if float64(row.Lower) > float64(row.TLRU) || float64(row.Lower) > float64(row.LRU) {
			t.Errorf("%s: a policy (LRU %v, T-LRU %v) below the certified lower bound %v", row.Objective, row.LRU, row.TLRU, row.Lower)
		}
	}
}

// TestTailTimeLimit: --tail-time-limit reaches the bounds of both suites:
// their records carry it, their intervals hold the optimum the 0/1
// program proves without one, and their bound tables say so in the
// title (and say nothing without one); values out of range are refused
// naming the flag.
func TestTailTimeLimit(t *testing.T) {
	path, tr := smallBirthDeath(t, 300)
	be, err := solvers.Backend("gonum")
	if err != nil {
		t.Fatal(err)
	}
	suites := []struct {
		s      *Suite
		params map[string]string
	}{
		{TailLatency(), map[string]string{"trace": path, "capacity": "4096", "xis-ms": "200", "tail-bounds": "ip", "tail-objectives": "slo,p90"}},
		{OptimalityGap(), map[string]string{"trace": path, "capacities": "4096", "xis": "1900", "policies": "lru", "tail-bounds": "ip"}},
	}
	for _, sc := range suites {
		for _, limit := range []float64{0, 5} {
			params := maps.Clone(sc.params)
			params["tail-time-limit"] = strconv.FormatFloat(limit, 'g', -1, 64)
			f, err := Run(context.Background(), sc.s, Options{Seed: 1, Workers: 2, Params: params}, Shard{1, 1})
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, r := range f.Records {
				p := f.Grid[r.Point]
				if r.Key != optKey {
					continue
				}
				n++
				lo, hi, proven := direct(t, tr, 4096, p[boundKey], be)
				if !proven || lo != hi {
					t.Fatalf("%s: the 0/1 program left [%v, %v] open on 300 turns", p[boundKey], lo, hi)
				}
				if r.V("lo") > lo || r.V("hi") < lo || r.V("time_limit_s") != limit {
					t.Errorf("%s, limit %v s: [%v, %v] (time_limit_s %v) does not hold the optimum %v", p[boundKey], limit, r.V("lo"), r.V("hi"),
						r.V("time_limit_s"), lo)
				}
			}
			if n != 2 {
				t.Fatalf("%d bound records, want 2", n)
			}
			var buf bytes.Buffer
			if err := Render(&buf, sc.s, f, "table"); err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(buf.String(), "time limit of 5 s"); got != (limit > 0) {
				t.Errorf("limit %v s: the time limit named in the tables: %v", limit, got)
			}
		}
		for _, bad := range []string{"-1", "abc", "1e7", "0.0001", "NaN"} {
			params := maps.Clone(sc.params)
			params["tail-time-limit"] = bad
			_, err := Run(context.Background(), sc.s, Options{Seed: 1, Workers: 2, Params: params}, Shard{1, 1})
			if err == nil || !strings.Contains(err.Error(), "tail-time-limit") {
				t.Errorf("--tail-time-limit %s: error %v, want one naming the flag", bad, err)
			}
		}
	}
}
