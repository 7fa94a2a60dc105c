package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tailbound/tailbound/experiments/blocksim"
	"github.com/tailbound/tailbound/experiments/gap"
	"github.com/tailbound/tailbound/experiments/policies"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/experiments/sim"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/policy"
)

// defaultWorkloadCapacity is sim.DefaultWorkloadCapacity, for mdp.
const defaultWorkloadCapacity = sim.DefaultWorkloadCapacity

// runSimulate binds simulate's flags to a blocksim.Command and prints
// what blocksim.Simulate returns.
func runSimulate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o blocksim.Command
	var lat latency.Settings
	fs := newFlags("simulate", "simulate [--trace FILE] [--policies lru,tlru,...] --capacity TOKENS [flags]", stdout)
	fs.StringVar(&o.Trace, "trace", "", "canonical trace (JSON Lines; - for stdin); omitted: the embedded seeded birth–death workload")
	fs.StringVar(&o.Policies, "policies", "", "comma-separated policies (default: all of "+fmt.Sprint(policies.Names())+")")
	fs.Int64Var(&o.Capacity, "capacity", 0, fmt.Sprintf("cache capacity C, tokens, a multiple of --block-size (default %d with the embedded workload)", sim.DefaultWorkloadCapacity))
	fs.Int64Var(&o.BlockSize, "block-size", 16, "block size B, tokens")
	addLatency(fs, &lat)
	fs.StringVar(&o.QHat, "qhat", "auto", "T-LRU's next-prompt estimate Q̂: auto (running mean of prompts seen) or tokens")
	fs.Int64Var(&o.Threshold, "threshold", policy.DefaultThreshold, "Threshold-LRU's T: cache only histories ≥ T tokens")
	fs.Float64Var(&o.SLOMs, "slo-ms", 200, "SLO for violation counts, ms ≥ 0")
	fs.BoolVar(&o.Forced, "forced", false, "forced caching: the served conversation's whole history must be cached")
	fs.StringVar(&o.Baseline, "baseline", "lru", "baseline policy of the relative-improvement table (\"\" for none)")
	fs.StringArrayVar(&o.PolicyOpts, "policy-opt", nil, "policy-specific setting key=value (repeatable)")
	fs.Uint64Var(&o.Seed, "seed", 1, "seed of the embedded workload")
	fs.StringVar(&o.Seeds, "seeds", "", "embedded workload: run N seeds (--seed, --seed+1, …) or a range A-B in parallel and print each figure's mean ± 95% Student-t interval")
	fs.StringVar(&o.Plot, "plot", "", "also draw the TTFT CDF of each policy to this .svg/.png file")
	fs.StringVar(&o.Level, "level", "turn", "turn (conversation cache) or block (prefix cache over block-hash traces)")
	fs.StringVar(&o.TraceFormat, "trace-format", "canonical", "trace format: canonical|mooncake|bailian|blocks|libcachesim-csv|oracle-general (all but canonical: block level)")
	fs.Int64Var(&o.MaxChain, "max-chain-blocks", blocksim.DefaultMaxChainBlocks, "block level, canonical traces: refuse a request whose chain passes this many blocks (work and memory grow with it)")
	fs.StringVar(&o.TypeParams, "trace-type-params", "", "libcachesim-csv: libCacheSim's csv options, e.g. \"time-col=1,obj-id-col=2,obj-size-col=3,delimiter=,,has-header=false\"")
	fs.StringVar(&o.Capacities, "capacities", "", "capacity sweep, comma-separated tokens (multiples of the block size); with --plot, each metric against capacity")
	fs.StringVar(&o.Format, "format", "table", report.FormatHelp)
	fs.StringArrayVar(&o.Schedules, "schedule", nil, "score this external schedule (JSON Lines, see README \"Schedules and external policies\"; repeatable); only the schedules run unless --policies is given")
	fs.StringVar(&o.Emit, "emit-schedule", "", "write each policy's decisions as a schedule to FILE (several policies: FILE with .POLICY before its extension)")
	fs.Float64Var(&o.ExecTimeout, "exec-timeout", 10, "exec:CMD policies: seconds to wait for one answer before killing the process")
	fs.BoolVar(&o.Queue, "queue", false, "block level: queued TTFT — requests wait in a single-server FIFO prefill queue whose service time is their TTFT")
	fs.IntVar(&o.QueueServers, "queue-servers", 1, "block level, --queue: number of identical servers (serving instances) of the FIFO queue")
	fs.StringVar(&o.Mix, "mix", "", "block level: interleave this second trace (same --trace-format and block size) by time, ids kept disjoint")
	fs.BoolVar(&o.Ablation, "ablation", false, "block level: the workload-aware ablation (lru, wa, wa-no-offset, wa-no-life, wa-no-categories, wa-pooled-no-life) instead of the default policies")
	fs.StringVar(&o.BlockSizes, "block-sizes", "", "block level, canonical traces: sweep the block size, comma-separated tokens (every capacity a multiple of each)")
	fs.BoolVar(&o.NoIdeal, "no-ideal", false, "block level, lru, fifo, lfu, aging-lfu, gdsf and s3fifo only: skip the ideal (infinite-cache) figures, printed null/—, so that memory is bounded by the caches' capacity in blocks (plus s3fifo's ghost) instead of growing with the trace's distinct blocks (about 16 bytes each)")
	addWorkloadFlags(fs, &o.Workload)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	o.Changed, o.Progress, o.Context = fs.Changed, progressFunc(stderr), ctx
	o.Latency = &lat
	doc, tables, err := gap.Simulate(ctx, &o)
	if err != nil {
		return err
	}
	return report.Emit(stdout, o.Format, doc, tables...)
}

// seconds converts a flag in seconds to a duration (gap's --exec-timeout).
func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// joinNames joins policy names as --policies takes them (gap).
func joinNames(n []string) string { return strings.Join(n, ",") }
