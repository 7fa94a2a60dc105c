package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/tailbound/tailbound/experiments/blocksim"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/internal/option"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/blockext"
	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/execpolicy"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// simulateBlock replays a block-hash trace through the prefix-cache engine
// (simulate --level block): every policy at every capacity over one read of
// the trace.
func simulateBlock(o *simOptions, changed func(string) bool, stdout, stderr io.Writer) error {
	for _, name := range []string{"forced", "threshold"} {
		if changed(name) {
			return fmt.Errorf("flag --%s: turn level only (the block level always admits a request's chain)", name)
		}
	}
	model, xi, err := o.lat.resolve(changed)
	if err != nil {
		return err
	}
	qhat, err := parseQHat(o.qhat)
	if err != nil {
		return err
	}
	popts, err := option.KV("policy-opt", o.policyOpts)
	if err != nil {
		return err
	}
	ablation, err := o.studies.entries(o.policies)
	if err != nil {
		return err
	}
	if o.policies == "" && len(o.schedules) == 0 && ablation == nil {
		o.policies = strings.Join(prefixcache.Names(), ",")
	}
	ext := blocksim.External{EmitSchedule: o.emit, Finishers: &blockext.Finishers{}}
	defer ext.Finishers.Finish() // on early returns; ReplayExternal finishes them otherwise
	var entries []prefixcache.Entry
	if o.policies != "" {
		if entries, err = blockext.Parse(o.policies, execpolicy.Options{Timeout: seconds(o.execLimit)}, ext.Finishers.Add); err != nil {
			return fmt.Errorf("flag --policies: %w", err)
		}
	}
	entries = append(entries, ablation...)
	if ext.Schedules, err = blockext.ReadFiles(o.schedules); err != nil {
		return fmt.Errorf("flag --schedule: %w", err)
	}
	src, block, done, err := blockSource(o, changed)
	if err != nil {
		return err
	}
	defer done()
	src, mixDone, err := o.studies.mixed(src, o.traceFmt, block)
	if err != nil {
		return err
	}
	defer mixDone()
	var capacities []int64
	switch {
	case o.capacities != "" && changed("capacity"):
		return fmt.Errorf("flags --capacity and --capacities: give one")
	case o.capacities != "":
		if capacities, err = option.Ints("capacities", o.capacities); err != nil {
			return err
		}
	case changed("capacity"):
		capacities = []int64{o.capacity}
	default:
		return fmt.Errorf("flag --capacity: required at block level (tokens, a multiple of the trace's %d-token blocks)", block)
	}
	opt := blocksim.Options{Params: instance.Params{BlockSize: block, Xi: xi}, Model: model, SLOMs: o.slo, QHat: qhat,
		PolicyOptions: popts, Progress: progressTo(stderr), Queue: o.studies.queue, QueueServers: o.studies.servers}
	if o.studies.blockSizes != "" {
		return o.studies.sweepBlockSizes(o, entries, capacities, opt, stdout)
	}
	for _, c := range capacities {
		if c < 0 || c%block != 0 {
			return fmt.Errorf("flag --capacity: %d tokens must be ≥ 0 and a multiple of the trace's block size, %d tokens", c, block)
		}
	}
	results, ideal, err := blocksim.ReplayExternal(src, entries, capacities, opt, ext)
	if err != nil {
		return err
	}
	if o.plot != "" {
		if err := blocksim.SavePlots(o.plot, traceLabel(*o), results, ideal, block, len(capacities) > 1); err != nil {
			return err
		}
	}
	doc, tables, err := blocksim.Report(results, ideal, opt, blocksim.Labels{Trace: traceLabel(*o), TraceFormat: o.traceFmt,
		QHat: o.qhat, Baseline: o.baseline, Sweep: len(capacities) > 1, Settings: o.studies.settings()})
	if err != nil {
		return err
	}
	return report.Emit(stdout, o.format, doc, tables...)
}

// blockSource opens the block-level trace and returns it as a source, its
// block size in tokens, and a function that closes it.
func blockSource(o *simOptions, changed func(string) bool) (blocktrace.Source, int64, func(), error) {
	nop := func() {}
	if o.traceFmt == "canonical" || o.tracePath == "" {
		if err := checkCapacity(0, o.block); err != nil {
			return nil, 0, nop, err
		}
	}
	if o.tracePath == "" { // the embedded workload, chained per conversation
		if o.traceFmt != "canonical" {
			return nil, 0, nop, fmt.Errorf("flag --trace-format %s: needs --trace", o.traceFmt)
		}
		tr, err := birthdeath.Trace(birthdeath.Default(), o.seed)
		if err != nil {
			return nil, 0, nop, err
		}
		src, err := blocksim.TurnsSource(tr.Turns, o.block)
		return src, o.block, nop, err
	}
	block := o.block
	if o.traceFmt != "canonical" && !changed("block-size") {
		block = 0
	}
	if o.maxChain < 1 {
		return nil, 0, nop, fmt.Errorf("flag --max-chain-blocks: must be ≥ 1, got %d", o.maxChain)
	}
	src, b, f, err := blocksim.OpenWith(o.tracePath, o.traceFmt, block, o.typeParams, o.maxChain)
	if err != nil {
		return nil, 0, nop, err
	}
	return src, b, func() { f.Close() }, nil
}
