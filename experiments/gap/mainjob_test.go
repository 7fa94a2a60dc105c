package gap

import (
	"context"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/solvers"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/instance"
)

// TestOptimumTable: the main job's optimum table on a small birth–death
// workload. TEL_opt is checked against the compact IP solved by gonum's
// simplex with branch and bound (a second solver; the table uses flow);
// the policies' TELs are set by hand to 2·TEL_opt and TEL_opt, so their
// rows read 2.00× / 100.00% and 1.00× / 0.00%. With ξ beyond every
// prefill, TEL_opt = 0: a policy with TEL 0 shows no gap, one with TEL > 0
// an infinite one.
func TestOptimumTable(t *testing.T) {
	wl := birthdeath.Default()
	wl.Duration, wl.MaxTurns = 40, 24
	tr, err := birthdeath.Trace(wl, 3)
	if err != nil {
		t.Fatal(err)
	}
	p := instance.Params{Capacity: 1024, BlockSize: 16, Xi: 300}
	in, err := lp.NewInstance(tr, p)
	if err != nil {
		t.Fatal(err)
	}
	ip, err := solvers.Solve(context.Background(), in, lp.Compact, "gonum", false, lp.Options{})
	if err != nil || ip.Status != lp.Optimal {
		t.Fatalf("gonum: %v %v", err, ip)
	}
	if ip.TEL <= 0 {
		t.Fatalf("instance too easy: TEL_opt %v", ip.TEL)
	}
	doc := func(xi float64, tels ...float64) map[string]any {
		var ps []map[string]any
		for i, v := range tels {
			ps = append(ps, map[string]any{"name": string(rune('a' + i)), "tel_tokens": v})
		}
		return map[string]any{"settings": map[string]any{"capacity_tokens": p.Capacity, "block_size_tokens": p.BlockSize,
			"xi_tokens": xi, "forced": false, "alpha_ms_per_token": 0.1}, "policies": ps}
	}
	cases := []struct {
		name  string
		doc   map[string]any
		title string
		rows  [][]string
	}{
		{"positive", doc(300, 2*ip.TEL, ip.TEL), "TEL_opt = " + report.F(ip.TEL, 0) + " tokens (" + report.F(ip.TEL*0.1, 1) + " ms)",
			[][]string{{"a", report.F(2*ip.TEL, 0), "2.00×", "100.00%"}, {"b", report.F(ip.TEL, 0), "1.00×", "0.00%"}}},
		{"zero", doc(1e9, 0, 5), "TEL_opt = 0 tokens (0.0 ms)",
			[][]string{{"a", "0", "—", "0% (both 0)"}, {"b", "5", "—", "∞ (opt 0)"}}},
	}
	for _, c := range cases {
		tab, err := OptimumTable(context.Background(), c.doc, wl, 3)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !strings.Contains(tab.Title, c.title) {
			t.Errorf("%s: title %q lacks %q", c.name, tab.Title, c.title)
		}
		for i, want := range c.rows {
			if got := strings.Join(tab.Rows[i], "|"); got != strings.Join(want, "|") {
				t.Errorf("%s row %d: %s, want %s", c.name, i, got, strings.Join(want, "|"))
			}
		}
	}
}

// TestTailCommandsTable: the commands the main job names carry the
// workload's seed and settings as gap's flags, written out here by hand
// for two settings (gap's default latency model, whose flags are left
// out, and another, whose flags are added to the SLO command only: P90 is
// in tokens, which α and β do not change).
func TestTailCommandsTable(t *testing.T) {
	for _, c := range []struct {
		doc      map[string]any
		seed     uint64
		slo, p90 string
	}{
		{
			map[string]any{"settings": map[string]any{"capacity_tokens": 131072, "block_size_tokens": 16, "xi_tokens": 1900,
				"forced": false, "slo_ms": 200, "alpha_ms_per_token": 0.1, "beta_ms": 10}}, 1,
			"tailbound gap --seed 1 --capacities 131072 --block-size 16 --xis 1900 --forced=false --policies lru,tlru,to-belady --objective slo --slo-ms 200",
			"tailbound gap --seed 1 --capacities 131072 --block-size 16 --xis 1900 --forced=false --policies lru,tlru,to-belady --objective p90",
		},
		{
			map[string]any{"settings": map[string]any{"capacity_tokens": 4096, "block_size_tokens": 4, "xi_tokens": 950,
				"forced": true, "slo_ms": 150, "alpha_ms_per_token": 0.2, "beta_ms": 5}}, 7,
			"tailbound gap --seed 7 --capacities 4096 --block-size 4 --xis 950 --forced=true --policies lru,tlru,to-belady --objective slo --slo-ms 150 --alpha-ms 0.2 --beta-ms 5",
			"tailbound gap --seed 7 --capacities 4096 --block-size 4 --xis 950 --forced=true --policies lru,tlru,to-belady --objective p90",
		},
	} {
		tab, err := TailCommandsTable(c.doc, c.seed)
		if err != nil {
			t.Fatal(err)
		}
		if len(tab.Rows) != 2 || tab.Rows[0][1] != c.slo || tab.Rows[1][1] != c.p90 {
			t.Errorf("rows %q\nwant %q and %q", tab.Rows, c.slo, c.p90)
		}
	}
}
