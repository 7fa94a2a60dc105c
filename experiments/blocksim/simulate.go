package blocksim

import (
	"fmt"
	"strings"

	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/experiments/sim"
	"github.com/tailbound/tailbound/internal/option"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/blockext"
	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/policy"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// Command holds the settings of the simulate command at both levels: the
// turn level's (sim.Command) and the block level's studies.
type Command struct {
	sim.Command
	Queue        bool   // --queue: queued TTFT in a FIFO prefill queue whose service time is the TTFT
	QueueServers int    // --queue-servers: servers of that queue, ≥ 1
	Mix          string // --mix: a second trace interleaved by time (same format and block size)
	Ablation     bool   // --ablation: the workload-aware ablation's policies instead of the default
	BlockSizes   string // --block-sizes: block-size sweep over a canonical trace, comma-separated tokens
	NoIdeal      bool   // --no-ideal: no ideal figures, memory bounded by the caches (Options.NoIdeal)
}

// Simulate runs the simulate command at c's level and returns what it
// prints: the report's document and tables. It settles c's defaults in
// place (Capacity, Policies, Baseline), so that c shows the settings that
// ran.
func Simulate(c *Command) (any, []report.Table, error) {
	if err := c.Resolve(); err != nil {
		return nil, nil, err
	}
	if c.Level == "turn" {
		if c.NoIdeal {
			return nil, nil, option.Errorf("no-ideal", "block level only (--level block)")
		}
		return c.Command.Turns()
	}
	return c.blocks()
}

// changed reports whether flag was given.
func (c *Command) changed(flag string) bool { return c.Changed != nil && c.Changed(flag) }

// blocks replays the block-hash trace through the prefix-cache engine
// (--level block): every policy at every capacity over one read of the
// trace, or the --block-sizes sweep.
func (c *Command) blocks() (_ any, _ []report.Table, err error) {
	for _, name := range []string{"forced", "threshold"} {
		if c.changed(name) {
			return nil, nil, option.Errorf(name, "turn level only (the block level always admits a request's chain)")
		}
	}
	opt := Options{Progress: c.Progress, Queue: c.Queue, QueueServers: c.QueueServers, SLOMs: c.SLOMs, NoIdeal: c.NoIdeal}
	if opt.Model, opt.Xi, err = c.LatencyModel(); err != nil {
		return nil, nil, err
	}
	if opt.QHat, err = policy.ParseQHat(c.QHat); err != nil {
		return nil, nil, err
	}
	if opt.PolicyOptions, err = option.KV("policy-opt", c.PolicyOpts); err != nil {
		return nil, nil, err
	}
	ext := External{EmitSchedule: c.Emit, Finishers: &blockext.Finishers{}, Context: c.Context,
		Inputs: append([]string{c.Trace, c.Mix}, c.Schedules...)}
	defer ext.Finishers.Finish() // on early returns; ReplayExternal finishes them otherwise
	entries, err := c.entries(ext.Finishers)
	if err != nil {
		return nil, nil, err
	}
	if ext.Schedules, err = blockext.ReadFiles(c.Schedules); err != nil {
		return nil, nil, &option.Error{Flags: []string{"schedule"}, Err: err}
	}
	src, done, err := c.source()
	if err != nil {
		return nil, nil, err
	}
	defer done()
	opt.BlockSize = src.block
	opt.Bulk, opt.Objects = src.bulk, src.objects
	capacities, err := c.capacities(src.block)
	if err != nil {
		return nil, nil, err
	}
	if err := c.checkNoIdeal(len(capacities)); err != nil {
		return nil, nil, err
	}
	if c.BlockSizes != "" {
		return c.sweepBlockSizes(entries, capacities, opt)
	}
	for _, cp := range capacities {
		if cp < 0 || cp%src.block != 0 {
			return nil, nil, option.Errorf("capacity", "%d tokens must be ≥ 0 and a multiple of the trace's block size, %d tokens", cp, src.block)
		}
	}
	results, ideal, err := ReplayExternal(src.next, entries, capacities, opt, ext)
	if err != nil {
		return nil, nil, err
	}
	if c.Plot != "" {
		if err := SavePlots(c.Plot, c.TraceLabel(), results, ideal, src.block, len(capacities) > 1); err != nil {
			return nil, nil, err
		}
	}
	return Report(results, ideal, opt, Labels{Trace: c.TraceLabel(), TraceFormat: c.TraceFormat,
		QHat: c.QHat, Baseline: c.Baseline, Sweep: len(capacities) > 1, Settings: c.settings()})
}

// checkNoIdeal refuses --no-ideal with the outputs that show the ideal
// figures: the --block-sizes table's ideal column and the sweep's plots
// (n capacities).
func (c *Command) checkNoIdeal(n int) error {
	switch {
	case !c.NoIdeal:
		return nil
	case c.BlockSizes != "":
		return option.Both("no-ideal", "block-sizes", "the block-size sweep shows the ideal hit ratio")
	case c.Plot != "" && n > 1:
		return option.Both("no-ideal", "plot", "a capacity sweep's plots draw the ideal figures")
	}
	return nil
}

// entries checks the study flags and returns the policies: --policies
// (exec: ones recorded in fin), the ablation's, or the default ones.
func (c *Command) entries(fin *blockext.Finishers) ([]prefixcache.Entry, error) {
	if c.QueueServers < 1 {
		return nil, option.Errorf("queue-servers", "%d must be ≥ 1", c.QueueServers)
	}
	var ablation []prefixcache.Entry
	if c.Ablation {
		if c.Policies != "" {
			return nil, option.Both("ablation", "policies", "give one")
		}
		ablation = AblationEntries()
	}
	if c.Policies == "" && len(c.Schedules) == 0 && ablation == nil {
		c.Policies = strings.Join(prefixcache.Names(), ",")
	}
	var entries []prefixcache.Entry
	if c.Policies != "" {
		var err error
		if entries, err = blockext.Parse(c.Policies, c.ExecOptions(), fin.Add); err != nil {
			return nil, &option.Error{Flags: []string{"policies"}, Err: err}
		}
	}
	return append(entries, ablation...), nil
}

// capacities returns --capacities or --capacity, in tokens; block is the
// trace's block size.
func (c *Command) capacities(block int64) ([]int64, error) {
	switch {
	case c.Capacities != "" && c.changed("capacity"):
		return nil, option.Both("capacity", "capacities", "give one")
	case c.Capacities != "":
		return option.Ints("capacities", c.Capacities)
	case c.changed("capacity"):
		return []int64{c.Capacity}, nil
	}
	return nil, option.Errorf("capacity", "required at block level (tokens, a multiple of the trace's %d-token blocks)", block)
}

// blockSource is the trace being replayed and its block size, tokens.
type blockSource struct {
	next blocktrace.Source
	bulk blocktrace.Bulk // the same requests in bulk, when the reader offers it (Options.Bulk)
	// objects reads them as objects, when the reader offers it (Options.Objects).
	objects blocktrace.ObjectBulk
	block   int64
}

// source opens the block-level trace (the embedded workload, chained per
// conversation, without --trace) with the --mix trace interleaved, and
// returns a function that closes them. Under --no-ideal a Mooncake trace's
// conversations are not derived: nothing that runs there reads them (see
// the streaming replay, stream.go).
func (c *Command) source() (blockSource, func(), error) {
	nop := func() {}
	if c.TraceFormat == "canonical" || c.Trace == "" {
		if err := instance.CheckFlags("capacity", 0, c.BlockSize); err != nil {
			return blockSource{}, nop, err
		}
	}
	if c.Trace == "" {
		if c.TraceFormat != "canonical" {
			return blockSource{}, nop, fmt.Errorf("flag --trace-format %s: needs --trace", c.TraceFormat)
		}
		tr, err := birthdeath.Trace(birthdeath.Default(), c.Seed)
		if err != nil {
			return blockSource{}, nop, err
		}
		src, err := TurnsSource(tr.Turns, c.BlockSize)
		if err != nil {
			return blockSource{}, nop, err
		}
		return c.mixed(src, c.TraceFormat, c.BlockSize, nop)
	}
	block := c.BlockSize
	if c.TraceFormat != "canonical" && !c.changed("block-size") {
		block = 0 // the trace's own
	}
	if c.MaxChain < 1 {
		return blockSource{}, nop, option.Errorf("max-chain-blocks", "must be ≥ 1, got %d", c.MaxChain)
	}
	src, bulk, objs, b, f, err := openWith(c.Trace, c.TraceFormat, block, c.TypeParams, c.MaxChain, c.NoIdeal)
	if err != nil {
		return blockSource{}, nop, err
	}
	bs, done, err := c.mixed(src, c.TraceFormat, b, func() { f.Close() })
	if c.Mix == "" {
		bs.bulk, bs.objects = bulk, objs // a mix is read request by request, through its merge
	}
	return bs, done, err
}

// mixed interleaves the --mix trace into src (of format, in block-token
// blocks); done closes src, and the returned function closes both. On an
// error, done has been called.
func (c *Command) mixed(src blocktrace.Source, format string, block int64, done func()) (blockSource, func(), error) {
	if c.Mix == "" {
		return blockSource{next: src, block: block}, done, nil
	}
	m, mb, mc, err := open(c.Mix, format, block, 0, c.NoIdeal)
	if err != nil {
		done()
		return blockSource{}, func() {}, &option.Error{Flags: []string{"mix"}, Err: err}
	}
	if mb != block {
		mc.Close()
		done()
		return blockSource{}, func() {}, option.Errorf("mix", "%s has %d-token blocks, the trace %d", c.Mix, mb, block)
	}
	return blockSource{next: Mix(src, m), block: block}, func() { mc.Close(); done() }, nil
}
