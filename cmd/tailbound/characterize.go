package main

import (
	"context"
	"io"

	"github.com/tailbound/tailbound/experiments/characterize"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/models/hbm"
	"github.com/tailbound/tailbound/models/kvsize"
)

// runCharacterize measures a block-hash trace as the workload study does.
func runCharacterize(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("characterize", "characterize TRACE --trace-format canonical|mooncake|bailian|blocks [--block-size B] [--window S] [--spatial] [--gpu G] [--plot-dir DIR] [--format F]", stdout)
	var o characterize.TraceOptions
	fs.StringVar(&o.TraceFormat, "trace-format", "", "format of TRACE: canonical (turn and token distributions; chained in --block-size blocks), mooncake, bailian or blocks (the output of import --to blocks)")
	fs.Int64Var(&o.BlockSize, "block-size", 16, "canonical traces: block size B the conversations are chained in, tokens")
	fs.Float64Var(&o.WindowS, "window", 0, "time series of request rate and ideal hit ratio per window of this many seconds (0: off)")
	fs.BoolVar(&o.Spatial, "spatial", false, "spatial locality: ideal hit ratio when each request stores only [offset, offset+stride) of its chain")
	fs.StringVar(&o.GPU, "gpu", "", "per-request KV size and ideal cache relative to the HBM left for KV cache of --kv-model on this GPU: "+hbm.GPUNames()+" (empty: off)")
	fs.IntVar(&o.GPUs, "gpus", 0, "GPUs per serving instance (0: smallest power of two whose usable HBM is twice the weights)")
	fs.Float64Var(&o.HBMReserve, "hbm-reserve", 0.1, "share of each GPU's HBM kept for activations")
	fs.StringVar(&o.PlotDir, "plot-dir", "", "write the reuse-time and lifespan CDFs (SVG) into this directory")
	fs.StringVar(&o.Format, "format", "table", report.FormatHelp)
	fs.IntVar(&o.MaxTurn, "max-turn", 5, "pool turns above this into one category per request type (turns)")
	fs.IntVar(&o.Hubs, "hubs", 10, "number of prefix hubs (blocks with the most distinct successors) to list")
	fs.Float64Var(&o.SharedShare, "shared-share", 0.05, "a prefix counts as shared when at least this fraction of the requests use it")
	fs.StringVar(&o.KVModel, "kv-model", "qwen2-7b", "model whose KV bytes per token (fp16) size the capacity in GiB: "+kvsize.PresetNames())
	addImportFlags(fs, &o.Importer)
	if err := parseFlagsPositional(fs, args); err != nil {
		return err
	}
	o.Args = fs.Args()
	doc, tables, err := characterize.Trace(o, stderr)
	if err != nil {
		return err
	}
	return report.Emit(stdout, o.Format, doc, tables...)
}
