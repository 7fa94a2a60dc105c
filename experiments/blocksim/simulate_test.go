package blocksim_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/experiments/blocksim"
	"github.com/tailbound/tailbound/experiments/sim"
	"github.com/tailbound/tailbound/internal/option"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// blockDefaults is a block-level Command as simulate's flags leave it, with
// the flags named in changed reported as given.
func blockDefaults(trace string, changed ...string) blocksim.Command {
	return blocksim.Command{Command: sim.Command{Level: "block", Format: "table", TraceFormat: "canonical", Trace: trace,
		MaxChain: blocksim.DefaultMaxChainBlocks, Baseline: "lru", BlockSize: 4, Capacity: 1024, QHat: "auto", SLOMs: 200,
		Seed: 1, ExecTimeout: 10, Workload: birthdeath.DefaultFlags(),
		Latency: &latency.Settings{AlphaMs: 1, BetaMs: 10, XiMs: 10}, // ξ = (10 − 10)/1 = 0 tokens
		Changed: func(f string) bool {
			for _, c := range changed {
				if c == f {
					return true
				}
			}
			return false
		}}, QueueServers: 1}
}

// handTrace: a (p, r) = (10, 5), (4, 2), (1, 1); b (3, 0), all at t = 0.
func handTrace(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "hand.jsonl")
	if err := os.WriteFile(path, []byte(`{"t": 0, "conv": "a", "prompt": 10, "response": 5}
{"t": 0, "conv": "b", "prompt": 3, "response": 0}
{"t": 0, "conv": "a", "prompt": 4, "response": 2}
{"t": 0, "conv": "a", "prompt": 1, "response": 1}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSimulateRefusals: each refused block-level combination is an error
// naming its flags, found before anything is replayed.
func TestSimulateRefusals(t *testing.T) {
	trace := handTrace(t)
	for _, c := range []struct {
		name    string
		set     func(*blocksim.Command)
		changed []string
		flags   []string // the *option.Error's flags; nil: not an *option.Error
		want    string
	}{
		{"forced", func(c *blocksim.Command) {}, []string{"capacity", "forced"}, []string{"forced"}, "flag --forced: turn level only (the block level always admits a request's chain)"},
		{"threshold", func(c *blocksim.Command) {}, []string{"capacity", "threshold"}, []string{"threshold"}, "flag --threshold: turn level only (the block level always admits a request's chain)"},
		{"servers", func(c *blocksim.Command) { c.QueueServers = 0 }, []string{"capacity"}, []string{"queue-servers"}, "flag --queue-servers: 0 must be ≥ 1"},
		{"ablation and policies", func(c *blocksim.Command) { c.Ablation, c.Policies = true, "lru" }, []string{"capacity"}, []string{"ablation", "policies"}, "flags --ablation and --policies: give one"},
		{"no capacity", func(c *blocksim.Command) {}, nil, []string{"capacity"}, "flag --capacity: required at block level (tokens, a multiple of the trace's 4-token blocks)"},
		{"both capacities", func(c *blocksim.Command) { c.Capacities = "8" }, []string{"capacity"}, []string{"capacity", "capacities"}, "flags --capacity and --capacities: give one"},
		{"capacity off blocks", func(c *blocksim.Command) { c.Capacities = "8,10" }, nil, []string{"capacity"}, "flag --capacity: 10 tokens must be ≥ 0 and a multiple of the trace's block size, 4 tokens"},
		{"block size", func(c *blocksim.Command) { c.BlockSize = 0 }, []string{"capacity"}, []string{"block-size"}, "flag --block-size: must be ≥ 1 token, got 0"},
		{"sizes without trace", func(c *blocksim.Command) { c.Trace, c.BlockSizes = "", "4" }, []string{"capacity"}, []string{"block-sizes"}, "flag --block-sizes: needs a canonical --trace (block-hash traces carry their block size)"},
		{"sizes off capacity", func(c *blocksim.Command) { c.BlockSizes = "4,24" }, []string{"capacity"}, []string{"block-sizes"}, "flag --block-sizes: capacity 1024 tokens is not a multiple of the block size 24 tokens"},
		{"mix", func(c *blocksim.Command) { c.Mix = "/nonexistent" }, []string{"capacity"}, []string{"mix"}, "flag --mix: trace: open /nonexistent: no such file or directory"},
		{"format without trace", func(c *blocksim.Command) { c.Trace, c.TraceFormat = "", "mooncake" }, []string{"capacity"}, nil, "flag --trace-format mooncake: needs --trace"},
		{"max chain", func(c *blocksim.Command) { c.MaxChain = 0 }, []string{"capacity"}, []string{"max-chain-blocks"}, "flag --max-chain-blocks: must be ≥ 1, got 0"},
		{"qhat", func(c *blocksim.Command) { c.QHat = "zz" }, []string{"capacity"}, []string{"qhat"}, `flag --qhat: want auto or a number of tokens > 0, got "zz"`},
		{"workload flag", func(c *blocksim.Command) { c.Trace, c.Workload.Mu = "", 0.1 }, []string{"mu"}, nil, "flags --mu=0.1: turn level only (the embedded workload)"},
		{"turn level refusal", func(c *blocksim.Command) { c.Level, c.TraceFormat = "turn", "blocks" }, []string{"capacity"}, []string{"trace-format"}, "flag --trace-format: blocks traces are replayed with --level block (or converted with 'tailbound import')"},
	} {
		cmd := blockDefaults(trace, c.changed...)
		c.set(&cmd)
		_, _, err := blocksim.Simulate(&cmd)
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

// simulateJSON runs cmd and decodes its document into v.
func simulateJSON(t *testing.T, cmd *blocksim.Command, v any) {
	t.Helper()
	doc, _, err := blocksim.Simulate(cmd)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}

// TestSimulateStudies on the hand trace: --mix of the trace with itself
// doubles its 4 requests. With --block-sizes 4,8 the chains are 3, 1, 5, 6
// blocks (9 distinct) at B = 4 and 2, 1, 3, 3 (6 distinct) at B = 8 (worked
// in TestSweepBlockSizesHandWorked); a 1024-token LRU cache never evicts,
// so every block misses once and hits after: 15 − 9 = 6 hits of 15, and
// 9 − 6 = 3 of 9.
func TestSimulateStudies(t *testing.T) {
	trace := handTrace(t)
	cmd := blockDefaults(trace, "capacity")
	cmd.Policies, cmd.Mix, cmd.Queue = "lru", trace, true
	var mixed struct {
		Ideal struct {
			Requests int64 `json:"requests"`
		} `json:"ideal"`
		Settings map[string]any `json:"settings"`
	}
	simulateJSON(t, &cmd, &mixed)
	if mixed.Ideal.Requests != 8 || mixed.Settings["mix"] != trace || mixed.Settings["queue_servers"] != 1.0 {
		t.Errorf("--mix --queue: %+v; want 8 requests, mix and queue settings", mixed)
	}
	cmd = blockDefaults(trace, "capacity")
	cmd.Policies, cmd.BlockSizes = "lru", "4,8"
	var sized struct {
		Runs []struct {
			B   int64   `json:"block_size_tokens"`
			Hit float64 `json:"block_hit_ratio"`
		} `json:"runs"`
	}
	simulateJSON(t, &cmd, &sized)
	if len(sized.Runs) != 2 || sized.Runs[0].B != 4 || sized.Runs[0].Hit != 6.0/15 || sized.Runs[1].B != 8 || sized.Runs[1].Hit != 3.0/9 {
		t.Errorf("--block-sizes 4,8: %+v; want 6/15 at 4, 3/9 at 8", sized.Runs)
	}
}

// TestSimulateSettlesPolicies: with no --policies the block level runs
// every prefix-cache policy and says so in the Command; --ablation runs
// its own and leaves --policies empty.
func TestSimulateSettlesPolicies(t *testing.T) {
	trace := handTrace(t)
	cmd := blockDefaults(trace, "capacity")
	if _, _, err := blocksim.Simulate(&cmd); err != nil {
		t.Fatal(err)
	}
	if want := strings.Join(prefixcache.Names(), ","); cmd.Policies != want {
		t.Errorf("policies %q, want %q", cmd.Policies, want)
	}
	cmd = blockDefaults(trace, "capacity")
	cmd.Ablation = true
	var doc struct {
		Policies []struct {
			Name string `json:"name"`
		} `json:"policies"`
	}
	simulateJSON(t, &cmd, &doc)
	if cmd.Policies != "" || len(doc.Policies) != 6 || doc.Policies[0].Name != "lru" {
		t.Errorf("--ablation: policies %q, ran %+v; want none named, the six ablation policies", cmd.Policies, doc.Policies)
	}
}
