package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/tailbound/tailbound/experiments/kvreuse"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/internal/option"
	"github.com/tailbound/tailbound/models/kvpipe"
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

// rcModel are the flags choosing a model configuration.
type rcModel struct {
	name, json                      string
	layers, kvHeads, headDim, heads int
	bytesPerValue, params           float64
	fs                              *pflag.FlagSet
}

func (m *rcModel) add(fs *pflag.FlagSet) {
	m.fs = fs
	fs.StringVar(&m.name, "model", "vicuna-7b", "model preset: "+kvsize.PresetNames())
	fs.StringVar(&m.json, "model-json", "", "model config from a JSON file (fields layers, kv_heads, head_dim, bytes_per_value, heads, hidden, params); overrides --model")
	fs.IntVar(&m.layers, "model-layers", 0, "override the model's number of layers")
	fs.IntVar(&m.kvHeads, "kv-heads", 0, "override the model's KV heads")
	fs.IntVar(&m.headDim, "head-dim", 0, "override the model's head dimension, values")
	fs.IntVar(&m.heads, "heads", 0, "override the model's query heads")
	fs.Float64Var(&m.bytesPerValue, "bytes-per-value", 0, "override the cache's bytes per value (2 = fp16, 1 = fp8)")
	fs.Float64Var(&m.params, "params", 0, "override the model's parameter count")
}

func (m *rcModel) resolve() (kvsize.Config, error) {
	var c kvsize.Config
	var err error
	if m.json != "" {
		f, err := os.Open(m.json)
		if err != nil {
			return c, fmt.Errorf("flag --model-json: %w", err)
		}
		defer f.Close()
		if c, err = kvsize.ReadJSON(f, m.json); err != nil {
			return c, err
		}
	} else if c, err = kvsize.Preset(m.name); err != nil {
		return c, fmt.Errorf("flag --model: %w", err)
	}
	set := func(flag string, dst *int, v int) {
		if m.fs.Changed(flag) {
			*dst = v
		}
	}
	set("model-layers", &c.Layers, m.layers)
	set("kv-heads", &c.KVHeads, m.kvHeads)
	set("head-dim", &c.HeadDim, m.headDim)
	set("heads", &c.Heads, m.heads)
	if m.fs.Changed("bytes-per-value") {
		c.BytesPerValue = m.bytesPerValue
	}
	if m.fs.Changed("params") {
		c.Params = m.params
	}
	if err := c.Validate(); err != nil {
		return c, fmt.Errorf("model %s: %s", c.Name, strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	return c, nil
}

// rcHardware are the flags choosing storage tiers and an accelerator.
type rcHardware struct {
	tiers     string
	bandwidth []string
	gpu       string
	tflops    float64
	mfu       float64
	fs        *pflag.FlagSet
}

func (h *rcHardware) add(fs *pflag.FlagSet) {
	h.fs = fs
	fs.StringVar(&h.tiers, "tiers", tier.Names(), "storage tiers, comma-separated (presets "+tier.Names()+"; others need --bandwidth)")
	fs.StringArrayVar(&h.bandwidth, "bandwidth", nil, "override a tier's read bandwidth: name=GB/s (10⁹ bytes/s), comma-separated or repeated")
	fs.StringVar(&h.gpu, "gpu", "a100", "accelerator preset: a100|h100")
	fs.Float64Var(&h.tflops, "tflops", 0, "override the accelerator's dense fp16 peak, TFLOP/s")
	fs.Float64Var(&h.mfu, "mfu", tier.DefaultMFU, "fraction of peak FLOP/s achieved by prefill, in (0, 1]")
}

func (h *rcHardware) resolve() ([]tier.Tier, float64, error) {
	over, err := tier.ParseOverrides(h.bandwidth)
	if err != nil {
		return nil, 0, fmt.Errorf("flag --bandwidth: %w", err)
	}
	ts, err := tier.Resolve(strings.Split(h.tiers, ","), over)
	if err != nil {
		return nil, 0, fmt.Errorf("flag --tiers: %w", err)
	}
	d, err := tier.LookupDevice(h.gpu)
	if err != nil {
		return nil, 0, fmt.Errorf("flag --gpu: %w", err)
	}
	if h.fs.Changed("tflops") {
		d.PeakFLOPS = h.tflops * 1e12
	}
	flops, err := d.Effective(h.mfu)
	if err != nil {
		return nil, 0, fmt.Errorf("flags --gpu/--tflops/--mfu: %w", err)
	}
	return ts, flops, nil
}

// rcSearchFlags are the search and grid flags.
type rcSearchFlags struct {
	rmin, rmax, eps, tol float64
	grid                 int
	variants             string
}

func (s *rcSearchFlags) add(fs *pflag.FlagSet) {
	fs.Float64Var(&s.rmin, "r-min", recompute.DefaultRMin, "quality floor r_min, fraction of tokens recomputed")
	fs.Float64Var(&s.rmax, "r-max", recompute.DefaultRMax, "upper bound r_max, fraction of tokens recomputed")
	fs.Float64Var(&s.eps, "eps", recompute.DefaultEps, "golden-section tolerance ε on the bracket width, fraction of tokens")
	fs.StringVar(&s.variants, "variant", "paper,ordered", "search variants, comma-separated: paper (Algorithm 1 as printed), ordered (probes kept in order)")
	fs.IntVar(&s.grid, "grid", 16, "intervals of the confirming grid scan over [r_min, r_max] (0: none)")
	fs.Float64Var(&s.tol, "tol", 0.02, "noise tolerance, fraction of the least TTFT, for unimodality and 'search missed the minimum'")
}

func (s *rcSearchFlags) resolve() (recompute.Options, []recompute.Variant, error) {
	o := recompute.Options{RMin: s.rmin, RMax: s.rmax, Eps: s.eps, GridIntervals: s.grid, Tol: s.tol}
	var oe *recompute.OptionError
	if err := o.Validate(); errors.As(err, &oe) {
		if flags := strings.Split(oe.Option, "/"); len(flags) > 1 {
			return o, nil, fmt.Errorf("flags --%s: %w", strings.Join(flags, "/--"), oe.Err)
		}
		return o, nil, fmt.Errorf("flag --%s: %w", oe.Option, oe.Err)
	}
	vs, err := recompute.ParseVariants(s.variants)
	if err != nil {
		return o, nil, fmt.Errorf("flag --variant: %w", err)
	}
	o.Variant = vs[0]
	return o, vs, nil
}

// rcSetup is the model, hardware and context lengths that roofline and
// cake share.
type rcSetup struct {
	m      rcModel
	h      rcHardware
	tokens *string
}

func (s *rcSetup) add(fs *pflag.FlagSet) {
	s.m.add(fs)
	s.h.add(fs)
	s.tokens = fs.String("tokens", "4096,16384,32768", "context lengths N, tokens, comma-separated")
}

// resolve returns the KV config, the tiers, the achieved FLOP/s and the
// context lengths (tokens).
func (s *rcSetup) resolve() (h kvreuse.Hardware, err error) {
	if h.Model, err = s.m.resolve(); err != nil {
		return h, err
	}
	if h.Tiers, h.FLOPS, err = s.h.resolve(); err != nil {
		return h, err
	}
	h.Tokens, err = rcTokens(*s.tokens)
	return h, err
}

// rcTokens parses a list of context lengths, tokens.
func rcTokens(s string) ([]int, error) {
	v, err := option.Ints("tokens", s)
	if err != nil {
		return nil, err
	}
	out := make([]int, len(v))
	for i, x := range v {
		if x < 1 || x > 1<<24 {
			return nil, fmt.Errorf("flag --tokens: context length %d outside [1, 2^24] tokens", x)
		}
		out[i] = int(x)
	}
	return out, nil
}

// rcPipeFlags are the flags of the live pipeline.
type rcPipeFlags struct {
	layers, reps, steps, headDim int
	tiers, dir, tokens           string
	seed                         uint64
	median                       bool
}

func (p *rcPipeFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&p.tokens, "tokens", "512,1024", "context lengths N, tokens, comma-separated")
	fs.IntVar(&p.layers, "layers", 8, "layers the pipeline runs (each carries the model's per-layer KV size; TTFT scales with layers)")
	fs.StringVar(&p.tiers, "tiers", "page-cache,disk", "measured tiers: page-cache (file in the page cache), disk (page cache dropped with posix_fadvise)")
	fs.IntVar(&p.reps, "reps", 3, "runs averaged per evaluated ratio and per profile point")
	fs.IntVar(&p.steps, "profile-steps", 4, "token counts k·N/steps (k = 1..steps) at which each stage is timed alone for the profile")
	fs.IntVar(&p.headDim, "attn-dim", 16, "dimension of the emulated attention (sets the compute cost per key), values")
	fs.StringVar(&p.dir, "dir", "", "directory for the temporary KV file (default: the system temporary directory); deleted afterwards")
	fs.Uint64Var(&p.seed, "seed", 1, "seed of the KV file contents and attention operands (timings are not reproducible)")
	fs.BoolVar(&p.median, "median", false, "use the median of the runs at each ratio instead of the paper's mean")
}

type rcPipeSetup struct {
	cfg    kvpipe.Config
	tiers  []kvpipe.Tier
	tokens []int
}

func (p *rcPipeFlags) resolve(model kvsize.Config) (rcPipeSetup, error) {
	var s rcPipeSetup
	var err error
	if s.tokens, err = rcTokens(p.tokens); err != nil {
		return s, err
	}
	if s.tiers, err = kvpipe.ParseTiers(p.tiers); err != nil {
		return s, fmt.Errorf("flag --tiers: %w", err)
	}
	if p.reps < 1 || p.reps > 1000 {
		return s, fmt.Errorf("flag --reps: want 1..1000, got %d", p.reps)
	}
	if p.steps < 2 || p.steps > 100 {
		return s, fmt.Errorf("flag --profile-steps: want 2..100, got %d", p.steps)
	}
	s.cfg = kvpipe.Config{Layers: p.layers, MaxTokens: slices.Max(s.tokens), BytesPerTokenLayer: int(math.Ceil(model.BytesPerTokenLayer())),
		HeadDim: p.headDim, Dir: p.dir, Seed: p.seed}
	if err := s.cfg.Validate(); err != nil {
		return s, fmt.Errorf("flags --layers/--tokens/--attn-dim: %w", err)
	}
	return s, nil
}

// rcEmit saves out's figures to plot (when given) and prints it.
func rcEmit(stdout io.Writer, format, plot string, out kvreuse.Output) error {
	if plot != "" {
		if err := out.SavePlots(plot); err != nil {
			return err
		}
	}
	return report.Emit(stdout, format, out.Doc, out.Tables...)
}

// rcHardwareCmd parses the flags of a sub-command computed from the model
// and hardware flags alone (roofline, cake): add registers its own flags
// between those and --plot (described by plotHelp).
func rcHardwareCmd(name, synopsis, plotHelp string, args []string, stdout io.Writer, add func(fs *pflag.FlagSet)) (
	h kvreuse.Hardware, format, plot string, err error) {
	fs := newFlags(name, synopsis, stdout)
	var setup rcSetup
	setup.add(fs)
	add(fs)
	p := fs.String("plot", "", plotHelp)
	if format, err = parseFormat(fs, args); err != nil {
		return h, "", "", err
	}
	h, err = setup.resolve()
	return h, format, *p, err
}

func rcRoofline(args []string, stdout, stderr io.Writer) error {
	var toMs, rmin, rmax float64
	h, format, plot, err := rcHardwareCmd("recompute roofline", "recompute roofline [--model M] [--tiers T,...] [--tokens N,...] [flags]",
		"draw TTFT/TTFT(full recompute) against r for each tier at the first context length, r0 marked (.svg/.png)", args, stdout,
		func(fs *pflag.FlagSet) {
			fs.Float64Var(&toMs, "to-ms", 0.05, "per-layer fixed pipeline overhead t_o, ms (an assumption, not measured)")
			fs.Float64Var(&rmin, "r-min", recompute.DefaultRMin, "quality floor r_min, fraction of tokens recomputed")
			fs.Float64Var(&rmax, "r-max", recompute.DefaultRMax, "upper bound r_max, fraction of tokens recomputed")
		})
	if err != nil {
		return err
	}
	if err := recompute.CheckBounds(rmin, rmax); err != nil {
		return fmt.Errorf("flags --r-min/--r-max: %w", err)
	}
	if !(toMs >= 0) || math.IsInf(toMs, 0) {
		return fmt.Errorf("flag --to-ms: want finite ms ≥ 0, got %v", toMs)
	}
	out, err := kvreuse.Roofline(h, toMs/1e3, rmin, rmax)
	if err != nil {
		return err
	}
	return rcEmit(stdout, format, plot, out)
}

func rcCake(args []string, stdout, stderr io.Writer) error {
	var chunk int
	var overheadMs float64
	h, format, plot, err := rcHardwareCmd("recompute cake", "recompute cake [--model M] [--tiers T,...] [--tokens N,...] [--chunk TOKENS] [flags]",
		"draw TTFT of each schedule against context length for the first tier (.svg/.png)", args, stdout,
		func(fs *pflag.FlagSet) {
			fs.IntVar(&chunk, "chunk", 512, "chunk size, tokens (vLLM's chunked-prefill budget, as in the paper)")
			fs.Float64Var(&overheadMs, "chunk-overhead-ms", 0, "fixed compute overhead per chunk, ms")
		})
	if err != nil {
		return err
	}
	if chunk < 1 {
		return fmt.Errorf("flag --chunk: want ≥ 1 token, got %d", chunk)
	}
	out, err := kvreuse.Cake(h, chunk, overheadMs/1e3)
	if err != nil {
		return err
	}
	return rcEmit(stdout, format, plot, out)
}

// rcLiveFlags are the flags of the sub-commands that can measure live: the
// model, the search (search, measure), the pipeline, --save and --plot.
type rcLiveFlags struct {
	m          rcModel
	sf         rcSearchFlags
	pf         rcPipeFlags
	save, plot *string
}

// add registers the model flags, the search and pipeline flags (the search
// ones first when searchFirst), and --save and --plot with their help.
func (l *rcLiveFlags) add(fs *pflag.FlagSet, searchFirst bool, saveHelp, plotHelp string) {
	l.m.add(fs)
	if searchFirst {
		l.sf.add(fs)
		l.pf.add(fs)
	} else {
		l.pf.add(fs)
		l.sf.add(fs)
	}
	l.save = fs.String("save", "", saveHelp)
	l.plot = fs.String("plot", "", plotHelp)
}

func rcSearch(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("recompute search", "recompute search (--csv FILE | --live) [flags]", stdout)
	csvPath := fs.String("csv", "", "measurements: CSV with header columns tier, r (fraction), ttft_s (seconds), optional reps (runs averaged), tokens (context length)")
	live := fs.Bool("live", false, "measure live with the pipeline of 'recompute measure' instead of reading a CSV")
	r0 := fs.Float64("r0", math.NaN(), "CSV: roofline optimum r0 to warm-start from (default: from --tc-us/--ti-us, else fitted to each curve)")
	tcUs := fs.Float64("tc-us", math.NaN(), "CSV: profiled recompute cost t_c, µs per token per layer (with --ti-us gives r0)")
	tiUs := fs.Float64("ti-us", math.NaN(), "CSV: profiled load cost t_i, µs per token per layer")
	layers := fs.Int("fit-layers", 0, "CSV: layers of the measured pipeline, to scale a fitted profile (default: the model's)")
	tokensDefault := fs.Int("fit-tokens", 0, "CSV: context length for curves without a tokens column, tokens (only scales a fitted profile)")
	var l rcLiveFlags
	l.add(fs, true, "live: write every timed run to this CSV (the --csv format)",
		"draw TTFT against r with r0 and r* marked (.svg/.png; one file per curve, suffixed, when several)")
	format, err := parseFormat(fs, args)
	if err != nil {
		return err
	}
	if (*csvPath == "") == !*live {
		return errors.New("give exactly one of --csv FILE and --live")
	}
	o, vs, err := l.sf.resolve()
	if err != nil {
		return err
	}
	if *live {
		return rcLive(&l, o, vs, format, false, stdout, stderr)
	}
	s := kvreuse.CSVSearch{Source: *csvPath, Options: o, Variants: vs, DefaultTokens: *tokensDefault}
	s.Layers, s.Measurements, err = rcReadCSV(&l.m, *csvPath, *layers, func(layers int) error {
		if layers < 1 {
			return fmt.Errorf("flag --fit-layers: want ≥ 1, got %d", layers)
		}
		return nil
	})
	if err != nil {
		return err
	}
	switch {
	case fs.Changed("r0"):
		s.R0, s.R0Source = r0, "--r0"
	case fs.Changed("tc-us") || fs.Changed("ti-us"):
		p := recompute.Profile{Tc: *tcUs / 1e6, Ti: *tiUs / 1e6}
		if err := p.Validate(); err != nil {
			return fmt.Errorf("flags --tc-us/--ti-us: %w", err)
		}
		s.Profile, s.R0Source = &p, "--tc-us/--ti-us"
	}
	out, err := kvreuse.Search(s)
	if err != nil {
		return err
	}
	return rcEmit(stdout, format, *l.plot, out)
}

// rcReadCSV resolves the model and reads the measurements at path; layers
// 0 becomes the model's number of layers, which check vets first.
func rcReadCSV(m *rcModel, path string, layers int, check func(layers int) error) (int, []recompute.Measurement, error) {
	cfg, err := m.resolve()
	if err != nil {
		return 0, nil, err
	}
	if layers == 0 {
		layers = cfg.Layers
	}
	if err := check(layers); err != nil {
		return 0, nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return 0, nil, fmt.Errorf("flag --csv: %w", err)
	}
	defer f.Close()
	meas, err := recompute.ReadMeasurements(f, path)
	return layers, meas, err
}

// rcLive measures on this machine: the profile, r0, the searches and the
// grid, per tier and context length.
func rcLive(l *rcLiveFlags, o recompute.Options, vs []recompute.Variant, format string, profileOnly bool, stdout, stderr io.Writer) error {
	pf, save, plot := &l.pf, "", ""
	if l.save != nil {
		save, plot = *l.save, *l.plot
	}
	cfg, err := l.m.resolve()
	if err != nil {
		return err
	}
	setup, err := pf.resolve(cfg)
	if err != nil {
		return err
	}
	if o.GridIntervals == 0 && !profileOnly {
		fmt.Fprintln(stderr, "note: --grid 0: the search is not confirmed by a grid scan")
	}
	var saveFile *os.File
	if save != "" {
		if saveFile, err = os.Create(save); err != nil {
			return fmt.Errorf("flag --save: %w", err)
		}
		defer saveFile.Close()
	}
	out, runs, err := kvreuse.Measure(kvreuse.Live{Model: cfg, Pipeline: setup.cfg, Tiers: setup.tiers, Tokens: setup.tokens,
		Reps: pf.reps, ProfileSteps: pf.steps, Median: pf.median, Options: o, Variants: vs, ProfileOnly: profileOnly,
		Progress: progressTo(stderr)})
	if err != nil {
		return err
	}
	if saveFile != nil {
		if err := recompute.WriteMeasurements(saveFile, runs); err != nil {
			return fmt.Errorf("flag --save: %w", err)
		}
		if err := saveFile.Close(); err != nil {
			return fmt.Errorf("flag --save: %w", err)
		}
	}
	if profileOnly {
		plot = ""
	}
	return rcEmit(stdout, format, plot, out)
}

func rcMeasure(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("recompute measure", "recompute measure [--tokens N,...] [--tiers page-cache,disk] [flags]", stdout)
	var l rcLiveFlags
	l.add(fs, false, "write every timed run to this CSV (the format 'recompute search --csv' reads)",
		"draw measured TTFT and the fitted roofline against r, r0 and r* marked (.svg/.png; one file per tier and length, suffixed)")
	format, err := parseFormat(fs, args)
	if err != nil {
		return err
	}
	o, vs, err := l.sf.resolve()
	if err != nil {
		return err
	}
	return rcLive(&l, o, vs, format, false, stdout, stderr)
}

func rcProfile(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("recompute profile", "recompute profile (--csv FILE | --live) [flags]", stdout)
	csvPath := fs.String("csv", "", "measurements (columns tier, r, ttft_s, optional reps, tokens): fit the roofline to each curve")
	live := fs.Bool("live", false, "time the pipeline's compute and load stages alone on this machine and fit lines")
	layers := fs.Int("fit-layers", 0, "CSV: layers of the measured pipeline (default: the model's)")
	tokensDefault := fs.Int("fit-tokens", 1, "CSV: context length for curves without a tokens column, tokens")
	var l rcLiveFlags
	l.m.add(fs)
	l.pf.add(fs)
	format, err := parseFormat(fs, args)
	if err != nil {
		return err
	}
	if (*csvPath == "") == !*live {
		return errors.New("give exactly one of --csv FILE and --live")
	}
	if *live {
		return rcLive(&l, recompute.DefaultOptions(), nil, format, true, stdout, stderr)
	}
	n, meas, err := rcReadCSV(&l.m, *csvPath, *layers, func(layers int) error {
		if layers < 1 || *tokensDefault < 1 {
			return fmt.Errorf("flags --fit-layers/--fit-tokens: want ≥ 1, got %d and %d", layers, *tokensDefault)
		}
		return nil
	})
	if err != nil {
		return err
	}
	out, err := kvreuse.Profile(*csvPath, meas, n, *tokensDefault)
	if err != nil {
		return err
	}
	return rcEmit(stdout, format, "", out)
}
