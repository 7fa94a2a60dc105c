package gap

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/tailbound/tailbound/experiments/policies"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/objective"
	"github.com/tailbound/tailbound/models/trace"
)

// handFile is lp/slo's hand-worked instance: a and b each open with 10
// prompt tokens and return with 5 (D = 15) at B = 1, C = 10.
func handFile(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "hand.jsonl")
	lines := `{"t":0,"conv":"a","prompt":10,"response":0}
{"t":1,"conv":"b","prompt":10,"response":0}
{"t":2,"conv":"a","prompt":5,"response":0}
{"t":3,"conv":"b","prompt":5,"response":0}
`
	if err := os.WriteFile(p, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// solve --objective on the hand-worked instance: with s = 6 tokens one
// return must violate (9 + 9 > 10) and both first turns do: 3; the SLO
// of 70 ms at α = 10 ms/token, β = 10 ms is (70 − 10)/10 = 6 tokens, the
// same; p50 (rank 2 of 4) is 10 tokens, TTFT 10 + 10·10 = 110 ms. The JSON
// carries the fields the issue names.
func TestSolveTailCommand(t *testing.T) {
	tr := handFile(t)
	m := latency.Model{AlphaMs: 10, BetaMs: 10}
	base := SolveCommand{Trace: tr, Capacity: 10, CapacityGiven: true, Block: 1, Model: m, Formulation: "compact",
		Solver: "gonum", SLO: objective.DefaultSLOSettings()}
	for _, c := range []struct {
		name    string
		obj     string
		slo     objective.SLOSettings
		given   []string
		optimum int64
		ttft    float64 // 0: none
	}{
		{"slo tokens", "slo", objective.SLOSettings{SLOTokens: 6}, []string{"slo-tokens"}, 3, 0},
		{"slo ms", "slo", objective.SLOSettings{SLOMs: 70}, []string{"slo-ms"}, 3, 0},
		{"p50", "p50", objective.DefaultSLOSettings(), nil, 10, 110},
	} {
		cmd := base
		cmd.Objective, cmd.SLO = c.obj, c.slo
		cmd.Given = func(f string) bool { return slices.Contains(c.given, f) }
		cmd.Schedule = filepath.Join(t.TempDir(), "s.csv")
		doc, tables, err := cmd.Run(context.Background())
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		b, _ := json.Marshal(doc)
		var got map[string]any
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"objective", "optimum", "lower_bound", "upper_bound", "proven_optimal", "solver", "solve_seconds"} {
			if _, ok := got[k]; !ok {
				t.Errorf("%s: no %q in %s", c.name, k, b)
			}
		}
		if got["objective"] != c.obj || got["optimum"] != float64(c.optimum) || got["proven_optimal"] != true || len(tables) != 1 {
			t.Errorf("%s: %s", c.name, b)
		}
		if c.ttft > 0 && got["optimum_ttft_ms"] != c.ttft {
			t.Errorf("%s: optimum_ttft_ms %v, want %v", c.name, got["optimum_ttft_ms"], c.ttft)
		}
		if st, err := os.Stat(cmd.Schedule); err != nil || st.Size() == 0 {
			t.Errorf("%s: no schedule written (%v)", c.name, err)
		}
	}
	// refusals name their flag
	for _, c := range []struct {
		name  string
		edit  func(*SolveCommand)
		flags []string
		msg   string
	}{
		{"bad objective", func(c *SolveCommand) { c.Objective = "p100" }, []string{"objective"}, `flag --objective: objective "p100": percentile 100 is not in (0, 100)`},
		{"relax", func(c *SolveCommand) { c.Objective, c.Relax = "slo", true }, []string{"relax"},
			"flag --relax: for --objective tel only (the tail objectives report their LP bound with the interval)"},
		{"slo with tel", func(c *SolveCommand) {
			c.Objective, c.Given = "tel", func(f string) bool { return f == "slo-ms" }
		}, []string{"slo-ms"}, "flag --slo-ms: for --objective slo only"},
		{"slo with p90", func(c *SolveCommand) {
			c.Objective, c.Given = "p90", func(f string) bool { return f == "slo-tokens" }
		}, []string{"slo-tokens"}, "flag --slo-tokens: for --objective slo only (a percentile needs no SLO)"},
		{"clp", func(c *SolveCommand) { c.Objective, c.Solver = "slo", "clp" }, []string{"solver"},
			"flag --solver: solver clp: for --objective slo|pQ use auto, cbc, gonum or flow (bounds and a schedule only)"},
	} {
		cmd := base
		c.edit(&cmd)
		_, _, err := cmd.Run(context.Background())
		wantOption(t, c.name, err, c.flags, c.msg)
	}
}

// gap --objective slo on the hand-worked instance: LRU keeps the latest
// conversation whole (10 tokens of b when a returns, then a's 10 when b
// returns), so both returns find nothing and all 4 turns violate s = 6
// tokens, one above the optimum 3.
func TestGapTailCommand(t *testing.T) {
	c := Command{Level: "turn", Trace: handFile(t), Format: "json", Policies: "lru", Capacities: "10", Xis: "6", Block: 1,
		AlphaMs: 0.1, QHat: "auto", Solver: "gonum", Workers: 1, ExecTimeout: 1, Objective: "slo",
		SLO: objective.SLOSettings{SLOTokens: 6}, Given: func(f string) bool { return f == "slo-tokens" || f == "solver" }}
	doc, _, err := c.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rows := doc.(map[string]any)["rows"].([]TailRow)
	if len(rows) != 1 || rows[0].Value != 4 || rows[0].LowerBound != 3 || rows[0].UpperBound != 3 || !rows[0].Proven || rows[0].AboveLower != 1 {
		t.Fatalf("rows %+v, want lru 4 against [3, 3]", rows)
	}
}

// TestRunTailTimeLimit: RunTail takes each interval's time limit from
// Config, reports it in every row, and refuses a TailSpec limit that
// differs rather than dropping it (the optimality-gap suite once passed
// its limit there and lost it).
func TestRunTailTimeLimit(t *testing.T) {
	tr := &trace.Trace{}
	for k, c := range []string{"a", "b", "a", "b"} {
		tr.Append(float64(k), c, []int64{10, 10, 5, 5}[k], 0)
	}
	cfg := Config{Block: 1, Capacities: []int64{10}, Xis: []float64{0}, Policies: policies.All()[:1], Model: latency.Default(), Workers: 1}
	spec := TailSpec{Objective: objective.Objective{Kind: objective.SLO}, SLOTokens: 4, Solver: "flow", Model: cfg.Model}
	for _, c := range []struct {
		cfg, spec time.Duration
		ok        bool
	}{{0, 0, true}, {5 * time.Second, 0, true}, {5 * time.Second, 5 * time.Second, true}, {0, 5 * time.Second, false}, {2 * time.Second, 5 * time.Second, false}} {
		cfg.TimeLimit, spec.TimeLimit = c.cfg, c.spec
		rows, err := RunTail(context.Background(), tr, cfg, spec)
		if (err == nil) != c.ok {
			t.Fatalf("Config %v, TailSpec %v: error %v, want ok %v", c.cfg, c.spec, err, c.ok)
		}
		for _, r := range rows {
			if r.TimeLimitSeconds != c.cfg.Seconds() {
				t.Errorf("Config %v: row reports %v s", c.cfg, r.TimeLimitSeconds)
			}
		}
		if c.ok && len(rows) == 0 {
			t.Fatalf("Config %v: no rows", c.cfg)
		}
	}
}
