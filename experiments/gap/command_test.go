package gap

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/tailbound/tailbound/internal/option"
	"github.com/tailbound/tailbound/lp/window"
)

// splitFile writes the split-block trace (splitBlock) as a canonical
// trace file.
func splitFile(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "split.jsonl")
	body := `{"t":0,"conv":"a","prompt":2,"response":0}
{"t":1,"conv":"b","prompt":2,"response":0}
{"t":2,"conv":"a","prompt":1,"response":0}
{"t":3,"conv":"b","prompt":1,"response":0}
`
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// givenSet is a Command.Given reporting the flags named.
func givenSet(flags ...string) func(string) bool {
	return func(f string) bool {
		for _, g := range flags {
			if g == f {
				return true
			}
		}
		return false
	}
}

// validGap is a turn-level gap command every refusal case changes in one
// way: the defaults of 'tailbound gap' on trace.
func validGap(trace string) Command {
	return Command{Level: "turn", Trace: trace, Format: "table", Capacities: "0,2", Xis: "2", Block: 2, AlphaMs: 0.1,
		QHat: "auto", Solver: "flow", Workers: 2, TraceFormat: "canonical", LPSolver: "auto", IPSolver: "none", ExecTimeout: 10, Seed: 1}
}

// wantOption checks that err is an *option.Error naming flags with the
// message msg.
func wantOption(t *testing.T, name string, err error, flags []string, msg string) {
	t.Helper()
	var oe *option.Error
	if !errors.As(err, &oe) {
		t.Errorf("%s: got %v, want an *option.Error", name, err)
		return
	}
	if !reflect.DeepEqual(oe.Flags, flags) || err.Error() != msg {
		t.Errorf("%s: got flags %v, %q; want %v, %q", name, oe.Flags, err.Error(), flags, msg)
	}
}

func TestGapCommandRefusals(t *testing.T) {
	tr := splitFile(t)
	for _, tc := range []struct {
		name  string
		edit  func(*Command)
		flags []string
		msg   string
	}{
		{"unknown level", func(c *Command) { c.Level = "cache" }, []string{"level"}, `flag --level: want turn or block, got "cache"`},
		{"block flag at turn level", func(c *Command) { c.Given = givenSet("lp-solver") }, []string{"lp-solver"}, "flag --lp-solver: block level only (--level block)"},
		{"turn flag at block level", func(c *Command) { c.Level, c.Given = "block", givenSet("workers") }, []string{"workers"}, "flag --workers: turn level only"},
		{"seeds with a trace", func(c *Command) { c.Seeds, c.Given = "3", givenSet("seeds") }, []string{"seeds"},
			"flag --seeds: for the embedded workload only (omit --trace; a trace file has no seed)"},
		{"no xis", func(c *Command) { c.Xis = "" }, []string{"capacities", "xis"}, "flags --capacities and --xis: both required (comma-separated tokens)"},
		{"capacity not in blocks", func(c *Command) { c.Capacities = "0,3" }, []string{"capacities"},
			"flag --capacities: 3 tokens must be ≥ 0 and a multiple of --block-size 2"},
		{"block size 0", func(c *Command) { c.Block = 0 }, []string{"block-size"}, "flag --block-size: must be ≥ 1 token, got 0"},
		{"thresholds without threshold-lru", func(c *Command) { c.Policies, c.Thresholds = "lru", "4" }, []string{"thresholds"},
			"flag --thresholds: threshold-lru is not among --policies"},
		{"exec timeout 0", func(c *Command) { c.ExecTimeout = 0 }, []string{"exec-timeout"}, "flag --exec-timeout: must be between 0.001 and 86400 seconds, got 0"},
		{"qhat 0", func(c *Command) { c.QHat = "0" }, []string{"qhat"}, `flag --qhat: want auto or a number of tokens > 0, got "0"`},
		{"no workers", func(c *Command) { c.Workers = 0 }, []string{"workers"}, "flag --workers: must be ≥ 1, got 0"},
		{"negative time limit", func(c *Command) { c.TimeLimit = -1 }, []string{"time-limit"}, "flag --time-limit: must be 0 (no limit) or between 0.001 and 1e+06 seconds, got -1"},
		{"alpha 0", func(c *Command) { c.AlphaMs = 0 }, []string{"alpha-ms"}, "flag --alpha-ms: alpha must be a finite number > 0 ms/token, got 0"},
		{"block level, two xis", func(c *Command) { c.Level, c.Xis = "block", "1,2" }, []string{"xis"},
			"flag --xis: one threshold at block level (the tail-aware policies' ξ, tokens)"},
		{"block level, no capacities", func(c *Command) { c.Level, c.Capacities = "block", "" }, []string{"trace", "capacities"},
			"flags --trace and --capacities: both required at block level"},
		{"warm start, unknown", func(c *Command) { c.WarmStart = "yes" }, []string{"warm-start"}, `flag --warm-start: must be auto, on or off, got "yes"`},
		{"warm start on, gonum", func(c *Command) { c.WarmStart, c.Solver = "on", "gonum" }, []string{"warm-start"}, "flag --warm-start: on needs --solver flow, not gonum"},
		{"warm start on, slo", func(c *Command) { c.WarmStart, c.Objective = "on", "slo" }, []string{"warm-start"},
			"flag --warm-start: for the turn level's TEL optimum only (--objective tel, --level turn)"},
		{"windows, slo, forced", func(c *Command) { c.Windows, c.Objective, c.Forced = 2, "slo", true }, []string{"forced"},
			"flag --forced: windowed slo bounds are for optional caching only"},
		{"windows at block level", func(c *Command) { c.Windows, c.Level = 2, "block" }, []string{"windows"}, "flag --windows: turn level only (--level turn)"},
		{"max probes without windows", func(c *Command) { c.MaxProbes, c.Objective, c.Given = 3, "p90", givenSet("max-probes") }, []string{"max-probes"},
			"flag --max-probes: with --windows and --objective pQ only"},
		{"max probes, slo", func(c *Command) { c.MaxProbes, c.Windows, c.Objective, c.Given = 3, 2, "slo", givenSet("max-probes") }, []string{"max-probes"},
			"flag --max-probes: with --windows and --objective pQ only"},
		{"negative max probes", func(c *Command) { c.MaxProbes, c.Windows, c.Objective, c.Given = -1, 2, "p90", givenSet("max-probes") }, []string{"max-probes"},
			"flag --max-probes: must be ≥ 0, got -1"},
		{"upper mode without windows", func(c *Command) { c.SLOUpper, c.Objective, c.Given = window.UpperLP, "slo", givenSet("slo-upper") }, []string{"slo-upper"},
			"flag --slo-upper: with --windows and --objective slo or pQ only"},
		{"upper mode, tel", func(c *Command) { c.SLOUpper, c.Windows, c.Given = window.UpperGreedy, 2, givenSet("slo-upper") }, []string{"slo-upper"},
			"flag --slo-upper: with --windows and --objective slo or pQ only"},
		{"search budget without full", func(c *Command) {
			c.SLOUpper, c.SLOLNSWindows, c.Windows, c.Objective, c.Given = window.UpperLP, 5, 2, "p90", givenSet("slo-upper", "slo-lns-windows")
		}, []string{"slo-lns-windows"}, "flag --slo-lns-windows: with --slo-upper full only"},
		{"negative search budget", func(c *Command) {
			c.SLOLNSWindows, c.Windows, c.Objective, c.Given = -1, 2, "slo", givenSet("slo-lns-windows")
		}, []string{"slo-lns-windows"},
			"flag --slo-lns-windows: must be ≥ 0, got -1"},
	} {
		c := validGap(tr)
		tc.edit(&c)
		_, _, err := c.Run(context.Background())
		wantOption(t, tc.name, err, tc.flags, tc.msg)
	}
}

// TestGapCommandWarmStart: --warm-start auto solves the optimum as a
// warm-started curve exactly when the solver is flow and some capacity
// is within 1.5× of the next smaller positive one; on always; off never.
func TestGapCommandWarmStart(t *testing.T) {
	for _, tc := range []struct {
		warm, solver, caps, xis string
		want                    bool
	}{
		{"auto", "flow", "0,2", "", false},      // nothing to start from
		{"auto", "flow", "4,6", "", true},       // 6 ≤ 1.5·4
		{"auto", "flow", "8,4,4", "", false},    // 8 > 1.5·4
		{"auto", "flow", "20,4,6,40", "", true}, // 6 after 4, in any order
		{"auto", "gonum", "4,6", "", false},
		{"auto", "flow", "4,6", "2,1900.7", false}, // a fractional ξ: nothing to gain
		{"auto", "flow", "4,6", "2,3", true},
		{"", "flow", "4,6", "", true},
		{"on", "flow", "4,40", "", true},
		{"on", "flow", "4,6", "0.1", true},
		{"off", "flow", "4,6", "", false},
	} {
		c := validGap(splitFile(t))
		c.WarmStart, c.Solver, c.Capacities = tc.warm, tc.solver, tc.caps
		if tc.xis != "" {
			c.Xis = tc.xis
		}
		cfg, _, err := c.turn(context.Background())
		if err != nil {
			t.Fatalf("%+v: %v", tc, err)
		}
		if cfg.WarmStart != tc.want {
			t.Errorf("--warm-start %q, solver %s, capacities %s, ξ %s: curve %v, want %v", tc.warm, tc.solver, tc.caps, tc.xis, cfg.WarmStart, tc.want)
		}
	}
}

// TestGapCommandTurnLevelOnly: the embedded workload's seed flags and model
// flags belong to the turn level; their refusals name them as given.
func TestGapCommandTurnLevelOnly(t *testing.T) {
	c := validGap("")
	c.Level, c.WorkloadFlags = "block", []string{"--mu=0.5", "--turns=9"}
	if _, _, err := c.Run(context.Background()); err == nil || err.Error() != "flags --mu=0.5 --turns=9: turn level only (the embedded workload)" {
		t.Errorf("model flags at block level: %v", err)
	}
	c = validGap("")
	c.Level, c.Given = "block", givenSet("seed")
	if _, _, err := c.Run(context.Background()); err == nil || err.Error() != "flags --seed/--seeds: turn level only (the embedded birth–death workload)" {
		t.Errorf("--seed at block level: %v", err)
	}
}

// TestGapCommandSeeds: --seeds N counts from --seed; a trace file runs no
// seeds; the embedded workload without --seeds runs --seed alone.
func TestGapCommandSeeds(t *testing.T) {
	for _, tc := range []struct {
		trace, seeds string
		given        []string
		want         []uint64
	}{
		{"", "3", []string{"seed", "seeds"}, []uint64{5, 6, 7}},
		{"", "9-10", []string{"seeds"}, []uint64{9, 10}},
		{"", "", []string{"seed"}, []uint64{5}},
		{"x.jsonl", "", []string{"seed"}, nil},
	} {
		c := validGap(tc.trace)
		c.Seed, c.Seeds, c.Given = 5, tc.seeds, givenSet(tc.given...)
		_, list, err := c.turn(context.Background())
		if err != nil || !reflect.DeepEqual(list, tc.want) {
			t.Errorf("trace %q, seeds %q: got %v, %v; want %v", tc.trace, tc.seeds, list, err, tc.want)
		}
	}
}

// TestGapCommandSplitBlock runs the split-block instance worked by hand
// (splitBlock): at C = 2, ξ = 2 the optimum is 1 token; at C = 0 nothing
// is cached and both returns exceed ξ by 1 token, so every TEL is 2.
func TestGapCommandSplitBlock(t *testing.T) {
	c := validGap(splitFile(t))
	c.Policies = "lru"
	doc, tables, err := c.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rows := doc.(map[string]any)["rows"].([]Row)
	if len(rows) != 2 || len(tables) != 1 || len(tables[0].Rows) != 2 {
		t.Fatalf("rows %+v, %d tables", rows, len(tables))
	}
	if rows[0].CapacityTokens != 0 || rows[0].TELOptTokens != 2 || rows[0].TELTokens != 2 {
		t.Errorf("C = 0: %+v", rows[0])
	}
	if rows[1].CapacityTokens != 2 || rows[1].TELOptTokens != 1 {
		t.Errorf("C = 2: %+v", rows[1])
	}
}
