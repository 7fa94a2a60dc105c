package gap

import (
	"context"
	"encoding/json"
	"math"
	"testing"

	"github.com/tailbound/tailbound/models/birthdeath"
)

// TestWindowedSeedsAgainstPerSeedRuns: gap --windows 2 --seeds 3 on a
// 300-turn embedded workload gives, for every row and numeric field, the
// per-seed runs' values (gap --windows 2 --seed s, each alone) and, where
// they differ, their mean and the 95 % Student-t half-width worked here
// from t₀.₉₇₅,₂ = 4.302652729911275 (the 97.5 % quantile of Student's t
// with 2 degrees of freedom, from a table), s/√3.
func TestWindowedSeedsAgainstPerSeedRuns(t *testing.T) {
	wl := birthdeath.Default()
	wl.MaxTurns = 300
	base := Command{Level: "turn", Format: "json", Capacities: "0,1024,8192", Xis: "0,400", Block: 16, AlphaMs: 0.1, Policies: "lru,to-belady",
		QHat: "auto", Solver: "flow", Workers: 2, TraceFormat: "canonical", LPSolver: "auto", IPSolver: "none", ExecTimeout: 10, Seed: 7,
		Windows: 2, Workload: wl}
	decode := func(doc any) any {
		b, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	var per [][]any // per seed, its rows
	for _, s := range []uint64{7, 8, 9} {
		c := base
		c.Seed, c.Given = s, givenSet("seed")
		doc, _, err := c.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		rows := decode(doc).(map[string]any)["rows"].([]any)
		if len(rows) != 3*2*2 {
			t.Fatalf("seed %d: %d rows, want 12", s, len(rows))
		}
		per = append(per, rows)
	}
	c := base
	c.Seeds, c.Given = "3", givenSet("seed", "seeds")
	doc, tables, err := c.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(tables) != 1 || len(tables[0].Rows) != 12 {
		t.Fatalf("%d tables, want one of 12 rows", len(tables))
	}
	sum := decode(doc).(map[string]any)
	rows := sum["summary"].(map[string]any)["rows"].([]any)
	if len(rows) != 12 {
		t.Fatalf("summary: %d rows, want 12", len(rows))
	}
	const t975 = 4.302652729911275
	differs := 0
	for i, r := range rows {
		row := r.(map[string]any)
		for key, v := range per[0][i].(map[string]any) {
			x, ok := v.(float64)
			if !ok {
				if key == "policy" && row[key] != v {
					t.Errorf("row %d: policy %v, want %v", i, row[key], v)
				}
				continue
			}
			xs := []float64{x, per[1][i].(map[string]any)[key].(float64), per[2][i].(map[string]any)[key].(float64)}
			if xs[0] == xs[1] && xs[1] == xs[2] {
				if row[key] != x {
					t.Errorf("row %d %s: %v, want %v (the same on every seed)", i, key, row[key], x)
				}
				continue
			}
			differs++
			est, ok := row[key].(map[string]any)
			if !ok {
				t.Fatalf("row %d %s: %v, want an estimate of %v", i, key, row[key], xs)
			}
			mean := (xs[0] + xs[1] + xs[2]) / 3
			ss := 0.0
			for _, y := range xs {
				ss += (y - mean) * (y - mean)
			}
			half := t975 * math.Sqrt(ss/2) / math.Sqrt(3)
			close := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*max(1, math.Abs(b)) }
			ps := est["per_seed"].([]any)
			if !close(est["mean"].(float64), mean) || !close(est["ci95_low"].(float64), mean-half) || !close(est["ci95_high"].(float64), mean+half) ||
				len(ps) != 3 || ps[0] != xs[0] || ps[1] != xs[1] || ps[2] != xs[2] {
				t.Errorf("row %d %s: %v, want mean %v ± %v of %v", i, key, est, mean, half, xs)
			}
		}
	}
	if differs == 0 {
		t.Fatal("no figure differs across the seeds: the test shows nothing")
	}
	if got := sum["seeds"].([]any); len(got) != 3 || got[0] != 7.0 || got[2] != 9.0 {
		t.Errorf("seeds %v, want [7 8 9]", got)
	}
}
