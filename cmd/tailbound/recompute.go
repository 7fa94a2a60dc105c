package main

import (
	"context"
	"fmt"
	"io"
	"math"

	"github.com/spf13/pflag"

	"github.com/tailbound/tailbound/experiments/kvreuse"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/models/kvsize"
	"github.com/tailbound/tailbound/models/recompute"
	"github.com/tailbound/tailbound/models/tier"
)

// runRecompute dispatches "tailbound recompute SUB".
func runRecompute(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	subs := []struct {
		name, summary string
		run           func([]string, io.Writer, io.Writer) error
	}{
		{"roofline", "the roofline model across storage tiers and context lengths: r0, TTFT", rcRoofline},
		{"search", "the measured optimum r* by the paper's warm-started golden-section search, on a CSV or live", rcSearch},
		{"cake", "compute-and-load schedules: compute-only, load-only, static split, bidirectional", rcCake},
		{"profile", "fit t_c, t_i, t_o by least squares, from a CSV or from live stage timings", rcProfile},
		{"measure", "run the real recompute/load pipeline on this machine: profile, r0, r*, grid", rcMeasure},
	}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintln(stdout, "Usage: tailbound recompute SUB [flags]   (tailbound recompute SUB --help)\n\nRecompute or load a reused KV cache: the selective-recompute roofline and\nthe compute-and-load schedules, against measurements.\n\nSub-commands:")
		for _, s := range subs {
			fmt.Fprintf(stdout, "  %-9s %s\n", s.name, s.summary)
		}
		return nil
	}
	for _, s := range subs {
		if s.name == args[0] {
			return s.run(args[1:], stdout, stderr)
		}
	}
	return fmt.Errorf("unknown sub-command %q (want roofline|search|cake|profile|measure)", args[0])
}

// rcRun parses args (adding --format last), runs the sub-command and
// prints what it returns.
func rcRun(fs *pflag.FlagSet, args []string, stdout, stderr io.Writer, run func(kvreuse.Env) (kvreuse.Output, error)) error {
	format, err := parseFormat(fs, args)
	if err != nil {
		return err
	}
	out, err := run(kvreuse.Env{Changed: fs.Changed, Notes: stderr, Progress: progressTo(stderr)})
	if err != nil {
		return err
	}
	return report.Emit(stdout, format, out.Doc, out.Tables...)
}

// rcModelFlags binds the flags choosing a model configuration.
func rcModelFlags(fs *pflag.FlagSet, m *kvsize.Overrides) {
	fs.StringVar(&m.Name, "model", "vicuna-7b", "model preset: "+kvsize.PresetNames())
	fs.StringVar(&m.JSON, "model-json", "", "model config from a JSON file (fields layers, kv_heads, head_dim, bytes_per_value, heads, hidden, params); overrides --model")
	fs.IntVar(&m.Layers, "model-layers", 0, "override the model's number of layers")
	fs.IntVar(&m.KVHeads, "kv-heads", 0, "override the model's KV heads")
	fs.IntVar(&m.HeadDim, "head-dim", 0, "override the model's head dimension, values")
	fs.IntVar(&m.Heads, "heads", 0, "override the model's query heads")
	fs.Float64Var(&m.BytesPerValue, "bytes-per-value", 0, "override the cache's bytes per value (2 = fp16, 1 = fp8)")
	fs.Float64Var(&m.Params, "params", 0, "override the model's parameter count")
}

// rcHardwareFlags binds the flags of the sub-commands computed from the
// model and hardware alone (roofline, cake): the model, tiers, accelerator
// and context lengths.
func rcHardwareFlags(fs *pflag.FlagSet, o *kvreuse.HardwareOptions) {
	rcModelFlags(fs, &o.Model)
	h := &o.Hardware
	fs.StringVar(&h.Tiers, "tiers", tier.Names(), "storage tiers, comma-separated (presets "+tier.Names()+"; others need --bandwidth)")
	fs.StringArrayVar(&h.Bandwidth, "bandwidth", nil, "override a tier's read bandwidth: name=GB/s (10⁹ bytes/s), comma-separated or repeated")
	fs.StringVar(&h.GPU, "gpu", "a100", "accelerator preset: a100|h100")
	fs.Float64Var(&h.TFLOPS, "tflops", 0, "override the accelerator's dense fp16 peak, TFLOP/s")
	fs.Float64Var(&h.MFU, "mfu", tier.DefaultMFU, "fraction of peak FLOP/s achieved by prefill, in (0, 1]")
	fs.StringVar(&o.Tokens, "tokens", "4096,16384,32768", "context lengths N, tokens, comma-separated")
}

// rcBoundFlags binds --r-min and --r-max, fractions of tokens recomputed.
func rcBoundFlags(fs *pflag.FlagSet, rmin, rmax *float64) {
	fs.Float64Var(rmin, "r-min", recompute.DefaultRMin, "quality floor r_min, fraction of tokens recomputed")
	fs.Float64Var(rmax, "r-max", recompute.DefaultRMax, "upper bound r_max, fraction of tokens recomputed")
}

// rcSearchFlags binds the search and grid flags.
func rcSearchFlags(fs *pflag.FlagSet, s *recompute.SearchSettings) {
	rcBoundFlags(fs, &s.RMin, &s.RMax)
	fs.Float64Var(&s.Eps, "eps", recompute.DefaultEps, "golden-section tolerance ε on the bracket width, fraction of tokens")
	fs.StringVar(&s.Variants, "variant", "paper,ordered", "search variants, comma-separated: paper (Algorithm 1 as printed), ordered (probes kept in order)")
	fs.IntVar(&s.Grid, "grid", 16, "intervals of the confirming grid scan over [r_min, r_max] (0: none)")
	fs.Float64Var(&s.Tol, "tol", 0.02, "noise tolerance, fraction of the least TTFT, for unimodality and 'search missed the minimum'")
}

// rcPipeFlags binds the flags of the live pipeline.
func rcPipeFlags(fs *pflag.FlagSet, p *kvreuse.PipelineOptions) {
	fs.StringVar(&p.Tokens, "tokens", "512,1024", "context lengths N, tokens, comma-separated")
	fs.IntVar(&p.Layers, "layers", 8, "layers the pipeline runs (each carries the model's per-layer KV size; TTFT scales with layers)")
	fs.StringVar(&p.Tiers, "tiers", "page-cache,disk", "measured tiers: page-cache (file in the page cache), disk (page cache dropped with posix_fadvise)")
	fs.IntVar(&p.Reps, "reps", 3, "runs averaged per evaluated ratio and per profile point")
	fs.IntVar(&p.ProfileSteps, "profile-steps", 4, "token counts k·N/steps (k = 1..steps) at which each stage is timed alone for the profile")
	fs.IntVar(&p.AttnDim, "attn-dim", 16, "dimension of the emulated attention (sets the compute cost per key), values")
	fs.StringVar(&p.Dir, "dir", "", "directory for the temporary KV file (default: the system temporary directory); deleted afterwards")
	fs.Uint64Var(&p.Seed, "seed", 1, "seed of the KV file contents and attention operands (timings are not reproducible)")
	fs.BoolVar(&p.Median, "median", false, "use the median of the runs at each ratio instead of the paper's mean")
}

// rcLiveFlags binds the flags of a live measurement: the model, the search
// and pipeline flags (the search ones first when searchFirst), --save and
// --plot with their help.
func rcLiveFlags(fs *pflag.FlagSet, l *kvreuse.LiveOptions, searchFirst bool, saveHelp, plotHelp string) {
	rcModelFlags(fs, &l.Model)
	if searchFirst {
		rcSearchFlags(fs, &l.Search)
	}
	rcPipeFlags(fs, &l.Pipeline)
	if !searchFirst {
		rcSearchFlags(fs, &l.Search)
	}
	fs.StringVar(&l.Save, "save", "", saveHelp)
	fs.StringVar(&l.Plot, "plot", "", plotHelp)
}

func rcRoofline(args []string, stdout, stderr io.Writer) error {
	var o kvreuse.RooflineOptions
	fs := newFlags("recompute roofline", "recompute roofline [--model M] [--tiers T,...] [--tokens N,...] [flags]", stdout)
	rcHardwareFlags(fs, &o.HardwareOptions)
	fs.Float64Var(&o.ToMs, "to-ms", 0.05, "per-layer fixed pipeline overhead t_o, ms (an assumption, not measured)")
	rcBoundFlags(fs, &o.RMin, &o.RMax)
	fs.StringVar(&o.Plot, "plot", "", "draw TTFT/TTFT(full recompute) against r for each tier at the first context length, r0 marked (.svg/.png)")
	return rcRun(fs, args, stdout, stderr, o.Run)
}

func rcCake(args []string, stdout, stderr io.Writer) error {
	var o kvreuse.CakeOptions
	fs := newFlags("recompute cake", "recompute cake [--model M] [--tiers T,...] [--tokens N,...] [--chunk TOKENS] [flags]", stdout)
	rcHardwareFlags(fs, &o.HardwareOptions)
	fs.IntVar(&o.Chunk, "chunk", 512, "chunk size, tokens (vLLM's chunked-prefill budget, as in the paper)")
	fs.Float64Var(&o.ChunkOverheadMs, "chunk-overhead-ms", 0, "fixed compute overhead per chunk, ms")
	fs.StringVar(&o.Plot, "plot", "", "draw TTFT of each schedule against context length for the first tier (.svg/.png)")
	return rcRun(fs, args, stdout, stderr, o.Run)
}

func rcSearch(args []string, stdout, stderr io.Writer) error {
	var o kvreuse.SearchOptions
	fs := newFlags("recompute search", "recompute search (--csv FILE | --live) [flags]", stdout)
	fs.StringVar(&o.CSV, "csv", "", "measurements: CSV with header columns tier, r (fraction), ttft_s (seconds), optional reps (runs averaged), tokens (context length)")
	fs.BoolVar(&o.Live, "live", false, "measure live with the pipeline of 'recompute measure' instead of reading a CSV")
	fs.Float64Var(&o.R0, "r0", math.NaN(), "CSV: roofline optimum r0 to warm-start from (default: from --tc-us/--ti-us, else fitted to each curve)")
	fs.Float64Var(&o.TcUs, "tc-us", math.NaN(), "CSV: profiled recompute cost t_c, µs per token per layer (with --ti-us gives r0)")
	fs.Float64Var(&o.TiUs, "ti-us", math.NaN(), "CSV: profiled load cost t_i, µs per token per layer")
	fs.IntVar(&o.FitLayers, "fit-layers", 0, "CSV: layers of the measured pipeline, to scale a fitted profile (default: the model's)")
	fs.IntVar(&o.FitTokens, "fit-tokens", 0, "CSV: context length for curves without a tokens column, tokens (only scales a fitted profile)")
	rcLiveFlags(fs, &o.LiveOptions, true, "live: write every timed run to this CSV (the --csv format)",
		"draw TTFT against r with r0 and r* marked (.svg/.png; one file per curve, suffixed, when several)")
	return rcRun(fs, args, stdout, stderr, o.Run)
}

func rcMeasure(args []string, stdout, stderr io.Writer) error {
	var o kvreuse.MeasureOptions
	fs := newFlags("recompute measure", "recompute measure [--tokens N,...] [--tiers page-cache,disk] [flags]", stdout)
	rcLiveFlags(fs, &o.LiveOptions, false, "write every timed run to this CSV (the format 'recompute search --csv' reads)",
		"draw measured TTFT and the fitted roofline against r, r0 and r* marked (.svg/.png; one file per tier and length, suffixed)")
	return rcRun(fs, args, stdout, stderr, o.Run)
}

func rcProfile(args []string, stdout, stderr io.Writer) error {
	var o kvreuse.ProfileOptions
	fs := newFlags("recompute profile", "recompute profile (--csv FILE | --live) [flags]", stdout)
	fs.StringVar(&o.CSV, "csv", "", "measurements (columns tier, r, ttft_s, optional reps, tokens): fit the roofline to each curve")
	fs.BoolVar(&o.Live, "live", false, "time the pipeline's compute and load stages alone on this machine and fit lines")
	fs.IntVar(&o.FitLayers, "fit-layers", 0, "CSV: layers of the measured pipeline (default: the model's)")
	fs.IntVar(&o.FitTokens, "fit-tokens", 1, "CSV: context length for curves without a tokens column, tokens")
	rcModelFlags(fs, &o.Model)
	rcPipeFlags(fs, &o.Pipeline)
	return rcRun(fs, args, stdout, stderr, o.Run)
}
