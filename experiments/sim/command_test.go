package sim

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/experiments/policies"
	"github.com/tailbound/tailbound/internal/option"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/latency"
)

// flagDefaults is a Command as simulate's flags leave it when none is
// given, with the flags named in changed reported as given.
func flagDefaults(changed ...string) Command {
	return Command{Level: "turn", Format: "table", TraceFormat: "canonical", MaxChain: 1 << 24, Baseline: "lru",
		BlockSize: 16, QHat: "auto", Threshold: 1024, SLOMs: 200, Seed: 1, ExecTimeout: 10,
		Workload: birthdeath.DefaultFlags(), Changed: func(f string) bool {
			for _, c := range changed {
				if c == f {
					return true
				}
			}
			return false
		}}
}

// tinyTrace writes one conversation of two turns and returns its path.
func tinyTrace(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(p, []byte(`{"t": 0, "conv": "a", "prompt": 10, "response": 6}`+"\n"+`{"t": 3, "conv": "a", "prompt": 10, "response": 6}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestResolveBaseline(t *testing.T) {
	for _, c := range []struct {
		baseline, list string
		explicit       bool
		want           string
	}{
		{"lru", "", false, "lru"},           // every policy runs, lru among them
		{"lru", "tlru,fifo", false, ""},     // default baseline not run: dropped
		{"lru", "tlru, lru", false, "lru"},  // spaces around names
		{"lru", "tlru", true, "lru"},        // explicit: kept, refused later
		{"fifo", "lru,fifo", true, "fifo"},  // explicit and run
		{"", "lru", false, ""},              // none asked
		{"lru", "lru-ish,xlru", false, ""},  // names match whole
		{"tlru", "lru,tlru", false, "tlru"}, // whatever the default is
	} {
		if got := ResolveBaseline(c.baseline, c.list, c.explicit); got != c.want {
			t.Errorf("ResolveBaseline(%q, %q, %v) = %q, want %q", c.baseline, c.list, c.explicit, got, c.want)
		}
	}
}

// TestTurnsRefusals: each refused combination is an error naming its
// flags, found before anything is replayed.
func TestTurnsRefusals(t *testing.T) {
	trace := tinyTrace(t)
	for _, c := range []struct {
		name    string
		set     func(*Command)
		changed []string
		flags   []string // the *option.Error's flags; nil: not an *option.Error
		want    string
	}{
		{"both capacities", func(c *Command) { c.Capacities = "32" }, []string{"capacity"}, []string{"capacity", "capacities"}, "flags --capacity and --capacities: give one"},
		{"bad sweep item", func(c *Command) { c.Capacities = "32,100" }, nil, []string{"capacities"}, "flag --capacities: flag --capacity: 100 tokens must be ≥ 0 and a multiple of --block-size 16"},
		{"trace without capacity", func(c *Command) { c.Trace = trace }, nil, []string{"capacity"}, "flag --capacity: required with --trace (tokens)"},
		{"capacity off blocks", func(c *Command) { c.Capacity = 100 }, []string{"capacity"}, []string{"capacity"}, "flag --capacity: 100 tokens must be ≥ 0 and a multiple of --block-size 16"},
		{"block size", func(c *Command) { c.BlockSize = 0 }, nil, []string{"block-size"}, "flag --block-size: must be ≥ 1 token, got 0"},
		{"qhat", func(c *Command) { c.QHat = "-3" }, nil, []string{"qhat"}, `flag --qhat: want auto or a number of tokens > 0, got "-3"`},
		{"exec timeout", func(c *Command) { c.ExecTimeout = 0 }, nil, []string{"exec-timeout"}, "flag --exec-timeout: must be between 0.001 and 86400 seconds, got 0"},
		{"exec timeout overflowing a duration", func(c *Command) { c.ExecTimeout = 1e10 }, nil, []string{"exec-timeout"}, "flag --exec-timeout: must be between 0.001 and 86400 seconds, got 1e+10"},
		{"exec timeout rounding to 0", func(c *Command) { c.ExecTimeout = 1e-10 }, nil, []string{"exec-timeout"}, "flag --exec-timeout: must be between 0.001 and 86400 seconds, got 1e-10"},
		{"level", func(c *Command) { c.Level = "foo" }, nil, []string{"level"}, `flag --level: want turn or block, got "foo"`},
		{"format", func(c *Command) { c.Format = "xml" }, nil, nil, `flag --format: unknown format "xml" (want table|markdown|csv|json)`},
		{"block format", func(c *Command) { c.TraceFormat = "mooncake" }, nil, []string{"trace-format"}, "flag --trace-format: mooncake traces are replayed with --level block (or converted with 'tailbound import')"},
		{"type params", func(c *Command) { c.TypeParams = "x=1" }, nil, []string{"trace-type-params"}, "flag --trace-type-params: for --level block --trace-format libcachesim-csv only"},
		{"max chain", func(c *Command) {}, []string{"max-chain-blocks"}, []string{"max-chain-blocks"}, "flag --max-chain-blocks: for --level block only"},
		{"policy opt", func(c *Command) { c.PolicyOpts = []string{"abc"} }, nil, []string{"policy-opt"}, `flag --policy-opt: want key=value, got "abc"`},
		{"emit without policies", func(c *Command) { c.Emit, c.Schedules = "e.jsonl", []string{"s.jsonl"} }, nil, []string{"emit-schedule"}, "flag --emit-schedule: no --policies to emit"},
		{"seeds with trace", func(c *Command) { c.Trace, c.Capacity, c.Seeds = trace, 32, "3" }, []string{"capacity"}, []string{"seeds"}, "flag --seeds: for the embedded workload only (a --trace file has no seed)"},
		{"seeds with plot", func(c *Command) { c.Seeds, c.Plot = "3", "x.svg" }, nil, []string{"seeds"}, "flag --seeds: not with --plot (one CDF per seed; run the seed you want to draw)"},
		{"seeds with emit", func(c *Command) { c.Seeds, c.Emit = "3", "e.jsonl" }, nil, []string{"seeds"}, "flag --seeds: not with --emit-schedule or --schedule (schedules belong to one seed's trace)"},
		{"sweep with emit", func(c *Command) { c.Capacities, c.Emit = "32", "e.jsonl" }, nil, []string{"capacities"}, "flag --capacities: not with --emit-schedule or --schedule (a schedule belongs to one capacity)"},
		{"sweep seeds with plot", func(c *Command) { c.Capacities, c.Seeds, c.Plot = "32", "2", "x.svg" }, nil, []string{"seeds"}, "flag --seeds: not with --plot (one figure per seed; run the seed you want to draw)"},
		{"workload with trace", func(c *Command) { c.Trace, c.Workload.Mu = trace, 0.1 }, []string{"mu"}, []string{"mu"}, "flag --mu: for the embedded workload only (not with --trace)"},
		{"workload at block level", func(c *Command) { c.Level, c.Workload.Turns = "block", 5 }, []string{"turns"}, nil, "flags --turns=5: turn level only (the embedded workload)"},
	} {
		cmd := flagDefaults(c.changed...)
		c.set(&cmd)
		_, _, err := cmd.Turns()
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
			continue
		}
		var oe *option.Error
		if ok := errors.As(err, &oe); ok != (c.flags != nil) || ok && !reflect.DeepEqual(oe.Flags, c.flags) {
			t.Errorf("%s: %#v does not name flags %q", c.name, err, c.flags)
		}
	}
}

// TestCapacities: the sweep's first capacity, the embedded workload's
// default, or the one given.
func TestCapacities(t *testing.T) {
	for _, c := range []struct {
		capacity     int64
		capacities   string
		trace        string
		changed      []string
		wantCaps     []int64
		wantCapacity int64
	}{
		{0, "", "", nil, nil, DefaultWorkloadCapacity},
		{4096, "", "", []string{"capacity"}, nil, 4096},
		{0, "", "t.jsonl", []string{"capacity"}, nil, 0},
		{0, "64, 32", "t.jsonl", nil, []int64{64, 32}, 64},
		{0, "0,16", "", nil, []int64{0, 16}, DefaultWorkloadCapacity}, // 0 is the default's mark
	} {
		cmd := flagDefaults(c.changed...)
		cmd.Capacity, cmd.Capacities, cmd.Trace = c.capacity, c.capacities, c.trace
		caps, err := cmd.capacities()
		if err != nil || !reflect.DeepEqual(caps, c.wantCaps) || cmd.Capacity != c.wantCapacity {
			t.Errorf("%+v: caps %v, capacity %d, %v; want %v, %d", c, caps, cmd.Capacity, err, c.wantCaps, c.wantCapacity)
		}
	}
}

// TestTurnsSettles: a run leaves the settings that ran in the Command —
// every policy when none is named, and the default baseline dropped when
// the named ones leave it out — for the report's settings stamp.
func TestTurnsSettles(t *testing.T) {
	cmd := flagDefaults("capacity")
	cmd.Trace, cmd.Capacity = tinyTrace(t), 32
	if _, _, err := cmd.Turns(); err != nil {
		t.Fatal(err)
	}
	if want := strings.Join(policies.Names(), ","); cmd.Policies != want || cmd.Baseline != "lru" {
		t.Errorf("policies %q, baseline %q; want %q, lru", cmd.Policies, cmd.Baseline, want)
	}
	cmd = flagDefaults("capacity")
	cmd.Trace, cmd.Capacity, cmd.Policies = tinyTrace(t), 32, "tlru,fifo"
	if _, _, err := cmd.Turns(); err != nil || cmd.Baseline != "" {
		t.Errorf("baseline %q, %v; want none", cmd.Baseline, err)
	}
}

// TestTurnsHandWorked: one conversation, two turns of 10-token prompts
// and 6-token responses, C = 32, B = 16, ξ = 5 tokens. LRU keeps one
// block (16 tokens) after turn 1, so turn 2 has b = 26 − 16 = 10, as has
// turn 1: TEL = 2·(10 − 5) = 10 tokens. The sweep at C = 0 caches
// nothing: turn 2 has b = 26, TEL = 5 + 21 = 26 tokens.
func TestTurnsHandWorked(t *testing.T) {
	cmd := flagDefaults()
	cmd.Trace, cmd.Capacities, cmd.Policies = tinyTrace(t), "32,0", "lru"
	cmd.Latency = &latency.Settings{AlphaMs: 0.1, BetaMs: 10, XiMs: 10.5} // ξ = (10.5 − 10)/0.1 = 5 tokens
	doc, _, err := cmd.Turns()
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Sweep []struct {
			Capacity int64 `json:"capacity_tokens"`
			Policies []struct {
				TEL float64 `json:"tel_tokens"`
			} `json:"policies"`
		} `json:"sweep"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	want := map[int64]float64{32: 10, 0: 26}
	if len(got.Sweep) != 2 {
		t.Fatalf("%s: want 2 points", b)
	}
	for _, p := range got.Sweep {
		if len(p.Policies) != 1 || p.Policies[0].TEL != want[p.Capacity] {
			t.Errorf("capacity %d: %+v, want TEL %v tokens", p.Capacity, p.Policies, want[p.Capacity])
		}
	}
}
