package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/tailbound/tailbound/experiments/plots"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/models/cake"
	"github.com/tailbound/tailbound/models/kvpipe"
	"github.com/tailbound/tailbound/models/kvsize"
	"github.com/tailbound/tailbound/models/recompute"
	"github.com/tailbound/tailbound/models/tier"
)

// runRecompute dispatches "tailbound recompute SUB".
func runRecompute(args []string, stdout, stderr io.Writer) error {
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
	if err := recompute.CheckBounds(s.rmin, s.rmax); err != nil {
		return o, nil, fmt.Errorf("flags --r-min/--r-max: %w", err)
	}
	if !(s.eps > 0) || s.eps > 1 {
		return o, nil, fmt.Errorf("flag --eps: want a fraction in (0, 1], got %v", s.eps)
	}
	if s.grid < 0 || s.grid > 10000 {
		return o, nil, fmt.Errorf("flag --grid: want 0..10000 intervals, got %d", s.grid)
	}
	if !(s.tol >= 0) || math.IsInf(s.tol, 0) {
		return o, nil, fmt.Errorf("flag --tol: want a finite fraction ≥ 0, got %v", s.tol)
	}
	var vs []recompute.Variant
	for _, name := range strings.Split(s.variants, ",") {
		v, err := recompute.ParseVariant(strings.TrimSpace(name))
		if err != nil {
			return o, nil, fmt.Errorf("flag --variant: %w", err)
		}
		vs = append(vs, v)
	}
	o.Variant = vs[0]
	return o, vs, nil
}

// rcTokens parses a list of context lengths.
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
func (s *rcSetup) resolve() (kvsize.Config, []tier.Tier, float64, []int, error) {
	cfg, err := s.m.resolve()
	if err != nil {
		return kvsize.Config{}, nil, 0, nil, err
	}
	ts, flops, err := s.h.resolve()
	if err != nil {
		return kvsize.Config{}, nil, 0, nil, err
	}
	ns, err := rcTokens(*s.tokens)
	if err != nil {
		return kvsize.Config{}, nil, 0, nil, err
	}
	return cfg, ts, flops, ns, nil
}

func rcTokens(s string) ([]int, error) {
	v, err := parseInts("tokens", s)
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

func ms(s float64) string { return report.F(1e3*s, 3) }
func us(s float64) string { return report.F(1e6*s, 4) }
func gbs(b float64) string {
	if b == 0 {
		return "n/a"
	}
	return report.F(b/1e9, 3)
}

// plotName returns path with "-label" before the extension when several
// figures share one --plot flag.
func plotName(path, label string, many bool) string {
	if !many {
		return path
	}
	ext := filepath.Ext(path)
	label = strings.NewReplacer("@", "-", "/", "-", " ", "-").Replace(label)
	return strings.TrimSuffix(path, ext) + "-" + label + ext
}

// ---- roofline ----

type rooflineRow struct {
	Tier          string  `json:"tier"`
	BandwidthBps  float64 `json:"bandwidth_bytes_per_s"`
	Tokens        int     `json:"tokens"`
	TcS           float64 `json:"tc_s"` // per token per layer
	TiS           float64 `json:"ti_s"` // per token per layer
	ToS           float64 `json:"to_s"` // per layer
	R0Unclipped   float64 `json:"r0_unclipped"`
	R0            float64 `json:"r0"`
	TTFTR0S       float64 `json:"ttft_r0_s"`
	TTFTLoadS     float64 `json:"ttft_load_only_s"`      // r = 0
	TTFTRecomputS float64 `json:"ttft_full_recompute_s"` // r = 1
	TTFTRMinS     float64 `json:"ttft_r_min_s"`
}

func rcRoofline(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("recompute roofline", "recompute roofline [--model M] [--tiers T,...] [--tokens N,...] [flags]", stdout)
	var setup rcSetup
	setup.add(fs)
	toMs := fs.Float64("to-ms", 0.05, "per-layer fixed pipeline overhead t_o, ms (an assumption, not measured)")
	rmin := fs.Float64("r-min", recompute.DefaultRMin, "quality floor r_min, fraction of tokens recomputed")
	rmax := fs.Float64("r-max", recompute.DefaultRMax, "upper bound r_max, fraction of tokens recomputed")
	plot := fs.String("plot", "", "draw TTFT/TTFT(full recompute) against r for each tier at the first context length, r0 marked (.svg/.png)")
	format := fs.String("format", "table", report.FormatHelp)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := report.CheckFormat(*format); err != nil {
		return err
	}
	cfg, ts, flops, ns, err := setup.resolve()
	if err != nil {
		return err
	}
	if err := recompute.CheckBounds(*rmin, *rmax); err != nil {
		return fmt.Errorf("flags --r-min/--r-max: %w", err)
	}
	if !(*toMs >= 0) || math.IsInf(*toMs, 0) {
		return fmt.Errorf("flag --to-ms: want finite ms ≥ 0, got %v", *toMs)
	}
	var rows []rooflineRow
	fig := plots.Figure{Title: fmt.Sprintf("roofline TTFT, %s, %d tokens", cfg.Name, ns[0]), XLabel: "recompute ratio r (fraction of tokens)",
		YLabel: "TTFT / TTFT(full recompute)"}
	for _, t := range ts {
		for i, n := range ns {
			p, err := recompute.HardwareProfile(cfg, t, flops, n, *toMs/1e3)
			if err != nil {
				return err
			}
			md := recompute.Model{Profile: p, Tokens: n, Layers: cfg.Layers}
			r0 := recompute.Clip(p.R0(), *rmin, *rmax)
			rows = append(rows, rooflineRow{Tier: t.Name, BandwidthBps: t.Bandwidth, Tokens: n, TcS: p.Tc, TiS: p.Ti, ToS: p.To,
				R0Unclipped: p.R0(), R0: r0, TTFTR0S: md.TTFT(r0), TTFTLoadS: md.TTFT(0), TTFTRecomputS: md.TTFT(1), TTFTRMinS: md.TTFT(*rmin)})
			if i == 0 {
				var xs, ys []float64
				for k := 0; k <= 200; k++ {
					r := float64(k) / 200
					xs, ys = append(xs, r), append(ys, md.TTFT(r)/md.TTFT(1))
				}
				fig.Series = append(fig.Series, plots.Series{Name: t.Name, X: xs, Y: ys})
				fig.Markers = append(fig.Markers, plots.Marker{Name: "r0 " + t.Name, X: r0})
			}
		}
	}
	tbl := report.Table{Title: fmt.Sprintf("roofline of %s (%.0f bytes/token of KV, %d layers) at %.0f TFLOP/s achieved; r0 clipped to [%g, %g]",
		cfg.Name, cfg.BytesPerToken(), cfg.Layers, flops/1e12, *rmin, *rmax),
		Header: []string{"tier", "bandwidth (GB/s)", "tokens", "t_c (µs/token/layer)", "t_i (µs/token/layer)", "r0 unclipped", "r0",
			"TTFT(r0) (ms)", "TTFT load-only (ms)", "TTFT full recompute (ms)", "speed-up vs full recompute (×)"}}
	for _, r := range rows {
		tbl.Rows = append(tbl.Rows, []string{r.Tier, gbs(r.BandwidthBps), report.I(int64(r.Tokens)), us(r.TcS), us(r.TiS),
			report.F(r.R0Unclipped, 4), report.F(r.R0, 4), ms(r.TTFTR0S), ms(r.TTFTLoadS), ms(r.TTFTRecomputS),
			report.F(r.TTFTRecomputS/r.TTFTR0S, 2)})
	}
	doc := map[string]any{"model": cfg, "achieved_flops": flops, "r_min": *rmin, "r_max": *rmax, "rows": rows}
	if *plot != "" {
		if err := fig.Save(*plot); err != nil {
			return err
		}
	}
	return report.Emit(stdout, *format, doc, tbl)
}

// ---- search and measure ----

// searchRow is one analysed curve and search variant.
type searchRow struct {
	Tier     string             `json:"tier"`
	Tokens   int                `json:"tokens"`
	R0Source string             `json:"r0_source"`
	Analysis recompute.Analysis `json:"analysis"`
	// PredictedTTFTR0S is the roofline's TTFT at r0 with the profile used,
	// seconds (absent when r0 was given directly).
	PredictedTTFTR0S *float64 `json:"predicted_ttft_r0_s,omitempty"`
}

func searchTable(title string, rows []searchRow) report.Table {
	t := report.Table{Title: title, Header: []string{"tier", "tokens", "variant", "r0 from", "r0", "r*", "TTFT(r0) (ms)", "TTFT(r*) (ms)",
		"regret TTFT(r0)/TTFT(r*)−1", "evaluations", "classic evaluations", "probe order inverted", "grid best r", "grid best TTFT (ms)",
		"r* vs grid best", "unimodal", "roofline TTFT(r0) (ms)"}}
	for _, r := range rows {
		a := r.Analysis
		gb, gt, gap := "-", "-", "-"
		if len(a.Grid) > 0 {
			gb, gt, gap = report.F(a.GridBest.R, 4), ms(a.GridBest.TTFT), report.Pct(a.GridGap)
			if a.Missed {
				gap += " (missed)"
			}
		}
		uni := "yes"
		if !a.Unimodal {
			uni = fmt.Sprintf("no: +%s ms at r=%.3f", report.F(1e3*a.Bump.Excess, 3), a.Bump.R)
		}
		pred := "-"
		if r.PredictedTTFTR0S != nil {
			pred = ms(*r.PredictedTTFTR0S)
		}
		tok := "-"
		if r.Tokens > 0 {
			tok = report.I(int64(r.Tokens))
		}
		t.Rows = append(t.Rows, []string{r.Tier, tok, a.Variant.String(), r.R0Source, report.F(a.R0, 4), report.F(a.RStar, 4),
			ms(a.TTFTR0), ms(a.TTFTRStar), report.Pct(a.Regret), report.I(int64(a.Evaluations)), report.I(int64(a.ClassicEvaluations)),
			fmt.Sprint(a.Inverted), gb, gt, gap, uni, pred})
	}
	return t
}

// searchFigure draws one measured curve with the roofline prediction
// (when a profile is known), r0 and each variant's r*.
func searchFigure(label string, grid []recompute.Point, model *recompute.Model, as []recompute.Analysis) plots.Figure {
	f := plots.Figure{Title: "TTFT against recompute ratio, " + label, XLabel: "recompute ratio r (fraction of tokens)", YLabel: "TTFT (ms)"}
	var xs, ys []float64
	for _, p := range grid {
		xs, ys = append(xs, p.R), append(ys, 1e3*p.TTFT)
	}
	f.Series = append(f.Series, plots.Series{Name: "measured", X: xs, Y: ys})
	if model != nil && len(grid) > 0 {
		var mx, my []float64
		for _, p := range grid {
			mx, my = append(mx, p.R), append(my, 1e3*model.TTFT(p.R))
		}
		f.Series = append(f.Series, plots.Series{Name: "roofline (fitted profile)", X: mx, Y: my})
	}
	if len(as) > 0 {
		f.Markers = append(f.Markers, plots.Marker{Name: fmt.Sprintf("r0 = %.3f", as[0].R0), X: as[0].R0})
	}
	for _, a := range as {
		f.Markers = append(f.Markers, plots.Marker{Name: fmt.Sprintf("r* %s = %.3f", a.Variant, a.RStar), X: a.RStar})
	}
	return f
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
	for _, name := range strings.Split(p.tiers, ",") {
		t, err := kvpipe.ParseTier(strings.TrimSpace(name))
		if err != nil {
			return s, fmt.Errorf("flag --tiers: %w", err)
		}
		if t == kvpipe.Disk && !kvpipe.DiskSupported {
			return s, errors.New("flag --tiers: the disk tier needs Linux (posix_fadvise)")
		}
		s.tiers = append(s.tiers, t)
	}
	if p.reps < 1 || p.reps > 1000 {
		return s, fmt.Errorf("flag --reps: want 1..1000, got %d", p.reps)
	}
	if p.steps < 2 || p.steps > 100 {
		return s, fmt.Errorf("flag --profile-steps: want 2..100, got %d", p.steps)
	}
	maxN := 0
	for _, n := range s.tokens {
		maxN = max(maxN, n)
	}
	s.cfg = kvpipe.Config{Layers: p.layers, MaxTokens: maxN, BytesPerTokenLayer: int(math.Ceil(model.BytesPerTokenLayer())),
		HeadDim: p.headDim, Dir: p.dir, Seed: p.seed}
	if err := s.cfg.Validate(); err != nil {
		return s, fmt.Errorf("flags --layers/--tokens/--attn-dim: %w", err)
	}
	return s, nil
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
	var m rcModel
	var sf rcSearchFlags
	var pf rcPipeFlags
	m.add(fs)
	sf.add(fs)
	pf.add(fs)
	save := fs.String("save", "", "live: write every timed run to this CSV (the --csv format)")
	plot := fs.String("plot", "", "draw TTFT against r with r0 and r* marked (.svg/.png; one file per curve, suffixed, when several)")
	format := fs.String("format", "table", report.FormatHelp)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := report.CheckFormat(*format); err != nil {
		return err
	}
	if (*csvPath == "") == !*live {
		return errors.New("give exactly one of --csv FILE and --live")
	}
	o, vs, err := sf.resolve()
	if err != nil {
		return err
	}
	if *live {
		return rcLive(&m, &pf, o, vs, *save, *plot, *format, false, stdout, stderr)
	}
	cfg, err := m.resolve()
	if err != nil {
		return err
	}
	if *layers == 0 {
		*layers = cfg.Layers
	}
	if *layers < 1 {
		return fmt.Errorf("flag --fit-layers: want ≥ 1, got %d", *layers)
	}
	f, err := os.Open(*csvPath)
	if err != nil {
		return fmt.Errorf("flag --csv: %w", err)
	}
	defer f.Close()
	meas, err := recompute.ReadMeasurements(f, *csvPath)
	if err != nil {
		return err
	}
	curves := recompute.Curves(meas)
	var rows []searchRow
	var figs []plots.Figure
	var labels []string
	for _, c := range curves {
		lo, hi := c.Range()
		oc := o
		oc.RMin, oc.RMax = math.Max(o.RMin, lo), math.Min(o.RMax, hi)
		if !(oc.RMin < oc.RMax) {
			return fmt.Errorf("%s: curve %s measures r in [%v, %v], which leaves nothing of [r_min, r_max] = [%v, %v] to search",
				*csvPath, c.Label(), lo, hi, o.RMin, o.RMax)
		}
		row := searchRow{Tier: c.Tier, Tokens: c.Tokens}
		var model *recompute.Model
		var r0raw float64
		switch {
		case fs.Changed("r0"):
			r0raw, row.R0Source = *r0, "--r0"
		case fs.Changed("tc-us") || fs.Changed("ti-us"):
			p := recompute.Profile{Tc: *tcUs / 1e6, Ti: *tiUs / 1e6}
			if err := p.Validate(); err != nil {
				return fmt.Errorf("flags --tc-us/--ti-us: %w", err)
			}
			r0raw, row.R0Source = p.R0(), "--tc-us/--ti-us"
		default:
			n := c.Tokens
			if n == 0 {
				n = max(*tokensDefault, 1)
			}
			pts := make([]recompute.CurvePoint, len(c.Points))
			copy(pts, c.Points)
			fit, err := recompute.FitRoofline(pts, n, *layers)
			if err != nil {
				return fmt.Errorf("%s: curve %s: %w", *csvPath, c.Label(), err)
			}
			r0raw, row.R0Source = fit.R0(), "fit to this curve"
			if !fit.Consistent {
				row.R0Source += " (no roofline shape)"
			}
			md := recompute.Model{Profile: fit.Profile, Tokens: n, Layers: *layers}
			model = &md
		}
		if math.IsNaN(r0raw) {
			return errors.New("r0 is not a number")
		}
		oc.GridIntervals = 0 // the measured points are the grid
		as, err := recompute.AnalyzeAll(c.Objective(), r0raw, oc, vs)
		if err != nil {
			return fmt.Errorf("%s: curve %s: %w", *csvPath, c.Label(), err)
		}
		var grid []recompute.Point
		for _, p := range c.Points {
			if p.R >= oc.RMin && p.R <= oc.RMax {
				grid = append(grid, recompute.Point{R: p.R, TTFT: p.TTFT})
			}
		}
		for _, a := range as {
			if len(grid) > 0 && o.GridIntervals > 0 {
				a.SetGrid(grid, o.Tol)
			}
			r := row
			r.Analysis = a
			if model != nil {
				v := model.TTFT(a.R0)
				r.PredictedTTFTR0S = &v
			}
			rows = append(rows, r)
		}
		figs = append(figs, searchFigure(c.Label(), grid, model, as))
		labels = append(labels, c.Label())
	}
	if *plot != "" {
		for i, fg := range figs {
			if err := fg.Save(plotName(*plot, labels[i], len(figs) > 1)); err != nil {
				return err
			}
		}
	}
	title := fmt.Sprintf("warm-started golden-section search on %s (interpolated between measured ratios; ε = %g)", *csvPath, o.Eps)
	return report.Emit(stdout, *format, map[string]any{"source": *csvPath, "rows": rows}, searchTable(title, rows))
}

// rcLive measures on this machine: the profile, r0, the searches and the
// grid, per tier and context length.
func rcLive(m *rcModel, pf *rcPipeFlags, o recompute.Options, vs []recompute.Variant,
	save, plot, format string, profileOnly bool, stdout, stderr io.Writer) error {
	cfg, err := m.resolve()
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
	prog := progressTo(stderr)
	pipe, err := kvpipe.Open(setup.cfg)
	if err != nil {
		return err
	}
	defer pipe.Close()
	var runs []recompute.Measurement
	st := kvpipe.Settings{Reps: pf.reps, ProfileSteps: pf.steps, Options: o, Variants: vs, Median: pf.median,
		Record: func(m recompute.Measurement) { runs = append(runs, m) }}
	if prog != nil {
		st.Progress = func(s string) { fmt.Fprintln(prog, s) }
	}
	load0 := loadAvg()
	var results []kvpipe.Result
	for _, t := range setup.tiers {
		for _, n := range setup.tokens {
			if profileOnly {
				if st.Progress != nil {
					st.Progress(fmt.Sprintf("%s, %d tokens: profiling", t, n))
				}
				p, err := pipe.FitProfile(t, n, pf.reps, pf.steps)
				if err != nil {
					return err
				}
				results = append(results, kvpipe.Result{Tier: t.String(), Tokens: n, Profile: p,
					Model: recompute.Model{Profile: p.Profile, Tokens: n, Layers: setup.cfg.Layers}})
				continue
			}
			r, err := pipe.Measure(t, n, st)
			if err != nil {
				return err
			}
			results = append(results, r)
		}
	}
	load1 := loadAvg()
	if saveFile != nil {
		if err := recompute.WriteMeasurements(saveFile, runs); err != nil {
			return fmt.Errorf("flag --save: %w", err)
		}
		if err := saveFile.Close(); err != nil {
			return fmt.Errorf("flag --save: %w", err)
		}
	}
	setupLine := fmt.Sprintf("%s KV (%.0f bytes/token/layer), %d layers, KV file %.1f MiB, attention dim %d, %d runs per point, %s of runs; load average %s → %s",
		cfg.Name, cfg.BytesPerTokenLayer(), setup.cfg.Layers, float64(setup.cfg.FileBytes())/(1<<20), setup.cfg.HeadDim, pf.reps,
		map[bool]string{false: "mean", true: "median"}[pf.median], load0, load1)
	prof := report.Table{Title: "hardware profile of this machine, least squares over stage timings (" + setupLine + ")",
		Header: []string{"tier", "tokens", "t_c (µs/token/layer)", "t_i (µs/token/layer)", "t_o (µs/layer)", "effective bandwidth (GB/s)",
			"R² compute", "R² load", "r0 unclipped"}}
	for _, r := range results {
		p := r.Profile
		prof.Rows = append(prof.Rows, []string{r.Tier, report.I(int64(r.Tokens)), us(p.Profile.Tc), us(p.Profile.Ti), us(p.Profile.To),
			gbs(p.Bandwidth), report.F(p.Compute.R2, 3), report.F(p.Load.R2, 3), report.F(p.Profile.R0(), 4)})
	}
	doc := map[string]any{"setup": setupLine, "load_average_before": load0, "load_average_after": load1, "results": results}
	if profileOnly {
		return report.Emit(stdout, format, doc, prof)
	}
	var rows []searchRow
	for _, r := range results {
		for _, a := range r.Analyses {
			v := r.Model.TTFT(a.R0)
			rows = append(rows, searchRow{Tier: r.Tier, Tokens: r.Tokens, R0Source: "profile", Analysis: a, PredictedTTFTR0S: &v})
		}
	}
	if plot != "" {
		for _, r := range results {
			label := fmt.Sprintf("%s@%d", r.Tier, r.Tokens)
			var grid []recompute.Point
			if len(r.Analyses) > 0 {
				grid = r.Analyses[0].Grid
			}
			md := r.Model
			if err := searchFigure(label, grid, &md, r.Analyses).Save(plotName(plot, label, len(results) > 1)); err != nil {
				return err
			}
		}
	}
	search := searchTable(fmt.Sprintf("measured optimum on this machine: warm-started golden-section search (ε = %g) and a %d-interval grid over [%g, %g]",
		o.Eps, o.GridIntervals, o.RMin, o.RMax), rows)
	return report.Emit(stdout, format, doc, prof, search, rooflineVsMeasured(results))
}

// rooflineVsMeasured is claim 9's table: the roofline's r0 and the
// intercept-aware crossover against the best of the candidate ratios, all
// re-measured side by side.
func rooflineVsMeasured(results []kvpipe.Result) report.Table {
	t := report.Table{Title: "roofline r0 against the measured optimum: r0, the intercept-aware crossover, every r* and the grid minimum re-measured side by side (mean ± standard error)",
		Header: []string{"tier", "tokens", "r0", "TTFT(r0) (ms)", "r0 with stage intercepts", "its TTFT (ms)", "best ratio",
			"best is", "best TTFT (ms)", "regret of r0", "regret of r0 with intercepts"}}
	pm := func(c kvpipe.Candidate) string { return ms(c.TTFT) + " ± " + report.F(1e3*c.SE, 3) }
	for _, r := range results {
		c0, ok0 := kvpipe.FindCandidate(r.Confirmed, "r0")
		cb, okb := kvpipe.FindCandidate(r.Confirmed, "r0 intercepts")
		if !ok0 || !okb {
			continue
		}
		best := kvpipe.BestCandidate(r.Confirmed)
		t.Rows = append(t.Rows, []string{r.Tier, report.I(int64(r.Tokens)), report.F(c0.R, 4), pm(c0), report.F(cb.R, 4), pm(cb),
			report.F(best.R, 4), strings.Join(best.Names, ", "), pm(best), report.Pct(c0.TTFT/best.TTFT - 1), report.Pct(cb.TTFT/best.TTFT - 1)})
	}
	return t
}

// loadAvg returns the 1-minute load average from /proc/loadavg, or "n/a".
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "n/a"
	}
	if f := strings.Fields(string(b)); len(f) > 0 {
		return f[0]
	}
	return "n/a"
}

func rcMeasure(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("recompute measure", "recompute measure [--tokens N,...] [--tiers page-cache,disk] [flags]", stdout)
	var m rcModel
	var sf rcSearchFlags
	var pf rcPipeFlags
	m.add(fs)
	pf.add(fs)
	sf.add(fs)
	save := fs.String("save", "", "write every timed run to this CSV (the format 'recompute search --csv' reads)")
	plot := fs.String("plot", "", "draw measured TTFT and the fitted roofline against r, r0 and r* marked (.svg/.png; one file per tier and length, suffixed)")
	format := fs.String("format", "table", report.FormatHelp)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := report.CheckFormat(*format); err != nil {
		return err
	}
	o, vs, err := sf.resolve()
	if err != nil {
		return err
	}
	return rcLive(&m, &pf, o, vs, *save, *plot, *format, false, stdout, stderr)
}

// ---- profile ----

func rcProfile(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("recompute profile", "recompute profile (--csv FILE | --live) [flags]", stdout)
	csvPath := fs.String("csv", "", "measurements (columns tier, r, ttft_s, optional reps, tokens): fit the roofline to each curve")
	live := fs.Bool("live", false, "time the pipeline's compute and load stages alone on this machine and fit lines")
	layers := fs.Int("fit-layers", 0, "CSV: layers of the measured pipeline (default: the model's)")
	tokensDefault := fs.Int("fit-tokens", 1, "CSV: context length for curves without a tokens column, tokens")
	var m rcModel
	var pf rcPipeFlags
	m.add(fs)
	pf.add(fs)
	format := fs.String("format", "table", report.FormatHelp)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := report.CheckFormat(*format); err != nil {
		return err
	}
	if (*csvPath == "") == !*live {
		return errors.New("give exactly one of --csv FILE and --live")
	}
	if *live {
		return rcLive(&m, &pf, recompute.DefaultOptions(), nil, "", "", *format, true, stdout, stderr)
	}
	cfg, err := m.resolve()
	if err != nil {
		return err
	}
	if *layers == 0 {
		*layers = cfg.Layers
	}
	if *layers < 1 || *tokensDefault < 1 {
		return fmt.Errorf("flags --fit-layers/--fit-tokens: want ≥ 1, got %d and %d", *layers, *tokensDefault)
	}
	f, err := os.Open(*csvPath)
	if err != nil {
		return fmt.Errorf("flag --csv: %w", err)
	}
	defer f.Close()
	meas, err := recompute.ReadMeasurements(f, *csvPath)
	if err != nil {
		return err
	}
	type fitRow struct {
		Tier   string        `json:"tier"`
		Tokens int           `json:"tokens"`
		Fit    recompute.Fit `json:"fit"`
		R0     float64       `json:"r0_unclipped"`
	}
	var rows []fitRow
	tbl := report.Table{Title: fmt.Sprintf("roofline TTFT(r) = layers·(max(r·N·t_c, (1−r)·N·t_i) + t_o) fitted by least squares to %s (%d layers)", *csvPath, *layers),
		Header: []string{"tier", "tokens", "points", "t_c (µs/token/layer)", "t_i (µs/token/layer)", "t_o (µs/layer)", "r0 unclipped", "RMSE (ms)", "roofline shape"}}
	for _, c := range recompute.Curves(meas) {
		n := c.Tokens
		if n == 0 {
			n = *tokensDefault
		}
		fit, err := recompute.FitRoofline(c.Points, n, *layers)
		if err != nil {
			return fmt.Errorf("%s: curve %s: %w", *csvPath, c.Label(), err)
		}
		rows = append(rows, fitRow{Tier: c.Tier, Tokens: n, Fit: fit, R0: fit.R0()})
		shape := "yes"
		if !fit.Consistent {
			shape = "no (no split is consistent; do not trust)"
		}
		tbl.Rows = append(tbl.Rows, []string{c.Tier, report.I(int64(n)), report.I(int64(fit.Points)), us(fit.Tc), us(fit.Ti), us(fit.To),
			report.F(fit.R0(), 4), ms(fit.RMSE), shape})
	}
	return report.Emit(stdout, *format, map[string]any{"source": *csvPath, "layers": *layers, "rows": rows}, tbl)
}

// ---- cake ----

func rcCake(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("recompute cake", "recompute cake [--model M] [--tiers T,...] [--tokens N,...] [--chunk TOKENS] [flags]", stdout)
	var setup rcSetup
	setup.add(fs)
	chunk := fs.Int("chunk", 512, "chunk size, tokens (vLLM's chunked-prefill budget, as in the paper)")
	overheadMs := fs.Float64("chunk-overhead-ms", 0, "fixed compute overhead per chunk, ms")
	plot := fs.String("plot", "", "draw TTFT of each schedule against context length for the first tier (.svg/.png)")
	format := fs.String("format", "table", report.FormatHelp)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := report.CheckFormat(*format); err != nil {
		return err
	}
	cfg, ts, flops, ns, err := setup.resolve()
	if err != nil {
		return err
	}
	if *chunk < 1 {
		return fmt.Errorf("flag --chunk: want ≥ 1 token, got %d", *chunk)
	}
	type cakeRow struct {
		Tier      string          `json:"tier"`
		Tokens    int             `json:"tokens"`
		Chunks    int             `json:"chunks"`
		Schedules []cake.Schedule `json:"schedules"`
	}
	var rows []cakeRow
	tbl := report.Table{Title: fmt.Sprintf("compute-and-load schedules for %s, %d-token chunks, %.0f TFLOP/s achieved", cfg.Name, *chunk, flops/1e12),
		Header: []string{"tier", "tokens", "chunks", "compute-only (ms)", "load-only (ms)", "static split (chunks computed)", "static split (ms)",
			"bidirectional (ms)", "bidirectional computed/loaded", "bidirectional wasted (ms)", "exclusive-claim variant (ms)",
			"bidirectional vs compute-only", "bidirectional vs load-only"}}
	fig := plots.Figure{Title: "compute-and-load TTFT, " + cfg.Name, XLabel: "context length (tokens)", YLabel: "TTFT (ms)"}
	names := []string{"compute-only", "load-only", "static-split", "bidirectional", "bidirectional-claim"}
	series := make([]plots.Series, len(names))
	for i, n := range names {
		series[i].Name = n
	}
	for ti, t := range ts {
		for _, n := range ns {
			c, err := cake.FromModel(cfg, t, flops, n, *chunk, *overheadMs/1e3)
			if err != nil {
				return err
			}
			sch := []cake.Schedule{cake.ComputeOnly(c), cake.LoadOnly(c), cake.StaticSplit(c), cake.Bidirectional(c), cake.BidirectionalClaim(c)}
			rows = append(rows, cakeRow{Tier: t.Name, Tokens: n, Chunks: c.Chunks(), Schedules: sch})
			co, lo, ss, bi, cl := sch[0], sch[1], sch[2], sch[3], sch[4]
			tbl.Rows = append(tbl.Rows, []string{t.Name, report.I(int64(n)), report.I(int64(c.Chunks())), ms(co.TTFT), ms(lo.TTFT),
				report.I(int64(ss.Computed)), ms(ss.TTFT), ms(bi.TTFT), fmt.Sprintf("%d/%d", bi.Computed, bi.Loaded), ms(bi.Wasted), ms(cl.TTFT),
				report.Pct(bi.TTFT/co.TTFT - 1), report.Pct(bi.TTFT/lo.TTFT - 1)})
			if ti == 0 {
				for i, s := range sch {
					series[i].X, series[i].Y = append(series[i].X, float64(n)), append(series[i].Y, 1e3*s.TTFT)
				}
			}
		}
	}
	if *plot != "" {
		fig.Series = series
		fig.Title += ", " + ts[0].Name
		if err := fig.Save(*plot); err != nil {
			return err
		}
	}
	return report.Emit(stdout, *format, map[string]any{"model": cfg, "achieved_flops": flops, "chunk_tokens": *chunk, "rows": rows}, tbl)
}
