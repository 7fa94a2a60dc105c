package kvreuse

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/internal/option"
	"github.com/tailbound/tailbound/models/kvsize"
	"github.com/tailbound/tailbound/models/recompute"
	"github.com/tailbound/tailbound/models/tier"
)

// wantFlag fails unless err is an *option.Error naming exactly flag.
func wantFlag(t *testing.T, what string, err error, flag string) {
	t.Helper()
	var oe *option.Error
	if !errors.As(err, &oe) || !slices.Equal(oe.Flags, []string{flag}) {
		t.Errorf("%s: %v, want an error naming --%s", what, err, flag)
	}
}

// wantPrefix fails unless err's message starts with prefix.
func wantPrefix(t *testing.T, what string, err error, prefix string) {
	t.Helper()
	if err == nil || !strings.HasPrefix(err.Error(), prefix) {
		t.Errorf("%s: %v, want a message starting %q", what, err, prefix)
	}
}

func TestParseTokens(t *testing.T) {
	got, err := parseTokens(" 1, 16777216,4096")
	if err != nil || !slices.Equal(got, []int{1, 1 << 24, 4096}) {
		t.Errorf("got %v, %v", got, err)
	}
	for _, s := range []string{"0", "16777217", "-5", "x", ""} {
		_, err := parseTokens(s)
		wantFlag(t, s, err, "tokens")
	}
}

// hardwareOptions are the command's defaults but for the model and tiers.
func hardwareOptions(model, tiers, tokens string) HardwareOptions {
	return HardwareOptions{Model: kvsize.Overrides{Name: model}, Hardware: tier.Selection{Tiers: tiers, GPU: "a100", MFU: tier.DefaultMFU}, Tokens: tokens}
}

// Roofline's Run resolves the hardware (an A100 at 0.5 is 156e12 FLOP/s;
// 2 tiers × 3 lengths are 6 rows), converts t_o from ms to s (0.2 ms, on
// top of the layers' compute and load, adds 32 × 0.2 ms = 6.4 ms to every
// TTFT of Vicuna-7B's 32 layers) and saves its figure.
func TestRooflineRun(t *testing.T) {
	plot := filepath.Join(t.TempDir(), "r.svg")
	run := func(toMs float64, plot string) []RooflineRow {
		o := RooflineOptions{HardwareOptions: hardwareOptions("vicuna-7b", "nvme,hdd", "1024,2048,4096"), ToMs: toMs, RMin: 0.15, RMax: 1, Plot: plot}
		out, err := o.Run(Env{})
		if err != nil {
			t.Fatal(err)
		}
		if f := out.Doc.(map[string]any)["achieved_flops"]; f != 156e12 {
			t.Errorf("achieved FLOP/s %v, want 156e12", f)
		}
		return out.Doc.(map[string]any)["rows"].([]RooflineRow)
	}
	with, without := run(0.2, plot), run(0, "")
	if len(with) != 6 {
		t.Fatalf("%d rows, want 6", len(with))
	}
	for i := range with {
		if d := with[i].TTFTLoadS - without[i].TTFTLoadS; math.Abs(d-32*0.2e-3) > 1e-12 {
			t.Errorf("row %d: t_o adds %v s, want 6.4e-3", i, d)
		}
	}
	if fi, err := os.Stat(plot); err != nil || fi.Size() == 0 {
		t.Errorf("plot: %v", err)
	}
}

func TestRooflineCakeErrors(t *testing.T) {
	ok := hardwareOptions("vicuna-7b", "nvme", "4096")
	r := RooflineOptions{HardwareOptions: ok, ToMs: -1, RMin: 0.15, RMax: 1}
	_, err := r.Run(Env{})
	wantFlag(t, "to-ms -1", err, "to-ms")
	r.ToMs, r.RMin = 0.05, 0.5
	r.RMax = 0.4
	_, err = r.Run(Env{})
	wantPrefix(t, "r-min > r-max", err, "flags --r-min/--r-max: ")
	r.HardwareOptions = hardwareOptions("gpt-9", "nvme", "4096")
	_, err = r.Run(Env{})
	wantFlag(t, "model", err, "model") // the model is resolved first
	r.HardwareOptions = hardwareOptions("vicuna-7b", "nvme", "0")
	_, err = r.Run(Env{})
	wantFlag(t, "tokens", err, "tokens")

	c := CakeOptions{HardwareOptions: ok, Chunk: 0}
	_, err = c.Run(Env{})
	wantFlag(t, "chunk 0", err, "chunk")
	c.Chunk = 1000
	if out, err := c.Run(Env{}); err != nil || out.Doc.(map[string]any)["chunk_tokens"] != 1000 {
		t.Errorf("chunk 1000: %v", err)
	}
}

// writeCSV writes the exact curve (r0 = 1/3, 4096 tokens) to a temporary
// file.
func writeCSV(t *testing.T) string {
	t.Helper()
	var b bytes.Buffer
	if err := recompute.WriteMeasurements(&b, exactCurve()); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "exact.csv")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// searchOptions are the command's defaults on the CSV at path.
func searchOptions(path string) SearchOptions {
	return SearchOptions{CSV: path, R0: math.NaN(), TcUs: math.NaN(), TiUs: math.NaN(), LiveOptions: LiveOptions{
		Model:  kvsize.Overrides{Name: "vicuna-7b"},
		Search: recompute.SearchSettings{RMin: 0.15, RMax: 1, Eps: 0.01, Tol: 0.02, Grid: 16, Variants: "ordered"}}}
}

// The warm start comes from --r0, else from --tc-us/--ti-us (t_i/(t_c +
// t_i) = 3/(1 + 3) = 0.75), else from a fit to the curve (1/3).
func TestSearchRunWarmStart(t *testing.T) {
	path := writeCSV(t)
	for _, c := range []struct {
		r0, tc, ti float64
		source     string
		want       float64
	}{
		{0.4, math.NaN(), math.NaN(), "--r0", 0.4},
		{0.4, 1, 3, "--r0", 0.4},
		{math.NaN(), 1, 3, "--tc-us/--ti-us", 0.75},
		{math.NaN(), math.NaN(), math.NaN(), "fit to this curve", 1.0 / 3},
	} {
		o := searchOptions(path)
		o.R0, o.TcUs, o.TiUs, o.FitLayers, o.FitTokens = c.r0, c.tc, c.ti, 8, 4096
		out, err := o.Run(Env{})
		if err != nil {
			t.Fatal(err)
		}
		row := out.Doc.(map[string]any)["rows"].([]SearchRow)[0]
		if row.R0Source != c.source || math.Abs(row.Analysis.R0-c.want) > 1e-9 {
			t.Errorf("%+v: r0 %v from %q, want %v from %q", c, row.Analysis.R0, row.R0Source, c.want, c.source)
		}
	}
}

func TestSearchProfileRunErrors(t *testing.T) {
	path := writeCSV(t)
	o := searchOptions("")
	_, err := o.Run(Env{})
	wantPrefix(t, "neither --csv nor --live", err, "give exactly one of --csv FILE and --live")
	o = searchOptions(path)
	o.Live = true
	_, err = o.Run(Env{})
	wantPrefix(t, "both --csv and --live", err, "give exactly one")
	o = searchOptions(path)
	o.Search.Eps = 0
	_, err = o.Run(Env{})
	wantFlag(t, "eps 0", err, "eps")
	o = searchOptions(path)
	o.FitLayers = -1
	_, err = o.Run(Env{})
	wantFlag(t, "fit-layers -1", err, "fit-layers")
	o = searchOptions(path)
	o.TcUs = 1
	_, err = o.Run(Env{})
	wantPrefix(t, "--tc-us alone", err, "flags --tc-us/--ti-us: ")
	o = searchOptions(filepath.Join(t.TempDir(), "none.csv"))
	_, err = o.Run(Env{})
	wantFlag(t, "missing CSV", err, "csv")

	p := ProfileOptions{CSV: path, FitTokens: 0, Model: kvsize.Overrides{Name: "vicuna-7b"}}
	_, err = p.Run(Env{})
	if want := "flags --fit-layers/--fit-tokens: want ≥ 1, got 32 and 0"; err == nil || err.Error() != want {
		t.Errorf("fit-tokens 0: %v, want %q", err, want)
	}
	p.CSV = ""
	_, err = p.Run(Env{})
	wantPrefix(t, "profile without a source", err, "give exactly one")
}

// Profile's Run scales the fit by the model's layers unless --fit-layers
// is given: Vicuna-7B has 32, overridden to 8 by --model-layers; the exact
// curve's 8 layers give t_c = 2 µs back only with 8.
func TestProfileRunLayers(t *testing.T) {
	path := writeCSV(t)
	for _, c := range []struct {
		fitLayers int
		changed   func(string) bool
		want      int
	}{
		{0, nil, 32},
		{8, nil, 8},
		{0, func(f string) bool { return f == "model-layers" }, 8},
	} {
		o := ProfileOptions{CSV: path, FitLayers: c.fitLayers, FitTokens: 4096, Model: kvsize.Overrides{Name: "vicuna-7b", Layers: 8}}
		out, err := o.Run(Env{Changed: c.changed})
		if err != nil {
			t.Fatal(err)
		}
		doc := out.Doc.(map[string]any)
		tc := doc["rows"].([]FitRow)[0].Fit.Tc
		if doc["layers"] != c.want || (c.want == 8) != (math.Abs(tc-2e-6) < 1e-12) {
			t.Errorf("%+v: %v layers, t_c %v; want %d layers", c, doc["layers"], tc, c.want)
		}
	}
}

// pipeline are the command's pipeline defaults on the page cache.
func pipeline() PipelineOptions {
	return PipelineOptions{Tokens: "512,1024", Layers: 8, Tiers: "page-cache", Reps: 3, ProfileSteps: 4, AttnDim: 16, Seed: 1}
}

// The pipeline carries the model's per-layer KV size rounded up to whole
// bytes (2·1·3·0.75 = 4.5 → 5) and holds the longest context.
func TestPipelineLive(t *testing.T) {
	model := kvsize.Config{Name: "m", Layers: 2, KVHeads: 1, HeadDim: 3, BytesPerValue: 0.75}
	l, err := pipeline().live(model)
	if err != nil {
		t.Fatal(err)
	}
	if l.Pipeline.BytesPerTokenLayer != 5 || l.Pipeline.MaxTokens != 1024 || l.Pipeline.Layers != 8 || !slices.Equal(l.Tokens, []int{512, 1024}) ||
		l.Reps != 3 || l.ProfileSteps != 4 {
		t.Errorf("got %+v", l)
	}
	for _, c := range []struct {
		edit func(*PipelineOptions)
		flag string
	}{
		{func(p *PipelineOptions) { p.Tokens = "0" }, "tokens"},
		{func(p *PipelineOptions) { p.Tiers = "tape" }, "tiers"},
		{func(p *PipelineOptions) { p.Reps = 0 }, "reps"},
		{func(p *PipelineOptions) { p.Reps = 1001 }, "reps"},
		{func(p *PipelineOptions) { p.ProfileSteps = 1 }, "profile-steps"},
		{func(p *PipelineOptions) { p.ProfileSteps = 101 }, "profile-steps"},
	} {
		p := pipeline()
		c.edit(&p)
		_, err := p.live(model)
		wantFlag(t, c.flag, err, c.flag)
	}
	p := pipeline()
	p.AttnDim = 0
	_, err = p.live(model)
	wantPrefix(t, "attn-dim 0", err, "flags --layers/--tokens/--attn-dim: ")
}

// Measure's Run validates the search first, notes a search without a grid
// and refuses an unwritable --save, or --plot with no grid, before
// measuring anything.
func TestMeasureRunErrors(t *testing.T) {
	o := MeasureOptions{LiveOptions{Model: kvsize.Overrides{Name: "vicuna-7b"}, Pipeline: pipeline(),
		Search: recompute.SearchSettings{RMin: 0.15, RMax: 1, Eps: 0.01, Tol: 0.02, Variants: "golden"}}}
	_, err := o.Run(Env{})
	wantFlag(t, "variant golden", err, "variant")
	o.Search.Variants = "paper"
	o.Save = filepath.Join(t.TempDir(), "no", "such", "dir.csv")
	var notes bytes.Buffer
	_, err = o.Run(Env{Notes: &notes})
	wantFlag(t, "save", err, "save")
	if !strings.Contains(notes.String(), "--grid 0") {
		t.Errorf("notes %q: want the --grid 0 note", notes.String())
	}
	// --grid 0 leaves nothing to draw: --plot is refused before measuring.
	o.Save, o.Plot = "", filepath.Join(t.TempDir(), "fig.svg")
	_, err = o.Run(Env{})
	wantFlag(t, "plot without grid", err, "plot")
}
