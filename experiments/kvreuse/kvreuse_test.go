package kvreuse

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/tailbound/tailbound/models/kvsize"
	"github.com/tailbound/tailbound/models/recompute"
	"github.com/tailbound/tailbound/models/tier"
)

func hardware(t *testing.T, model string, tiers []string, over map[string]float64, tokens ...int) Hardware {
	t.Helper()
	cfg, err := kvsize.Preset(model)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := tier.Resolve(tiers, over)
	if err != nil {
		t.Fatal(err)
	}
	d, err := tier.LookupDevice("a100")
	if err != nil {
		t.Fatal(err)
	}
	flops, err := d.Effective(tier.DefaultMFU)
	if err != nil {
		t.Fatal(err)
	}
	return Hardware{Model: cfg, Tiers: ts, FLOPS: flops, Tokens: tokens}
}

// The roofline agrees with the closed forms: r0 = t_i/(t_c + t_i) clipped
// to [r_min, r_max], t_i = per-layer KV bytes / bandwidth (Mistral-7B:
// 2·8·128·2 = 4096 bytes per token per layer). The table shows r0 with 4
// decimals and CSV writes it unrounded (within 1e-12 of the closed form).
func TestRooflineClosedForms(t *testing.T) {
	h := hardware(t, "mistral-7b", []string{"gpu", "nvme", "hdd"}, map[string]float64{"nvme": 2e9}, 4096, 8192)
	out, err := Roofline(h, 5e-5, recompute.DefaultRMin, recompute.DefaultRMax)
	if err != nil {
		t.Fatal(err)
	}
	rows := out.Doc.(map[string]any)["rows"].([]RooflineRow)
	if len(rows) != 6 {
		t.Fatalf("%d rows, want 3 tiers × 2 lengths", len(rows))
	}
	for _, r := range rows {
		if want := 4096 / r.BandwidthBps; math.Abs(r.TiS-want) > 1e-12*want {
			t.Errorf("%s: t_i %v, want %v", r.Tier, r.TiS, want)
		}
		if want := r.TiS / (r.TcS + r.TiS); math.Abs(r.R0Unclipped-want) > 1e-12 || r.R0 != math.Min(math.Max(want, 0.15), 1) {
			t.Errorf("%s: r0 %v (unclipped %v), want clip(%v)", r.Tier, r.R0, r.R0Unclipped, want)
		}
	}
	tbl := out.Tables[0]
	for i, r := range rows {
		want := 4096 / r.BandwidthBps / (r.TcS + 4096/r.BandwidthBps)
		got, err := strconv.ParseFloat(tbl.Plain[i][5], 64)
		if err != nil || math.Abs(got-want) > 1e-12 || tbl.Rows[i][5] != strconv.FormatFloat(want, 'f', 4, 64) {
			t.Errorf("%s: r0 unclipped shown %s, CSV %s; want %v", r.Tier, tbl.Rows[i][5], tbl.Plain[i][5], want)
		}
	}
	if rows[2].BandwidthBps != 2e9 {
		t.Errorf("nvme override: bandwidth %v, want 2e9", rows[2].BandwidthBps)
	}
	if len(out.Figures) != 1 || len(out.Figures[0].Series) != 3 {
		t.Errorf("figures %d, want one with a series per tier", len(out.Figures))
	}
}

// exactCurve is a CSV's worth of runs on an exact roofline: t_c = 2 µs,
// t_i = 1 µs, t_o = 0.1 ms, N = 4096, 8 layers (r0 = 1/3), r every 0.025.
func exactCurve() []recompute.Measurement {
	const n, layers, tc, ti, to = 4096, 8, 2e-6, 1e-6, 1e-4
	var ms []recompute.Measurement
	for i := 0; i <= 40; i++ {
		r := float64(i) / 40
		ms = append(ms, recompute.Measurement{Tier: "synthetic", Tokens: n, R: r, TTFT: layers * (math.Max(r*n*tc, (1-r)*n*ti) + to), Reps: 3})
	}
	return ms
}

// Profile fits the exact roofline back.
func TestProfileFitsExactCurve(t *testing.T) {
	out, err := Profile("exact.csv", exactCurve(), 8, 1)
	if err != nil {
		t.Fatal(err)
	}
	f := out.Doc.(map[string]any)["rows"].([]FitRow)[0].Fit
	const rel = 1e-9
	if math.Abs(f.Tc-2e-6) > rel*2e-6 || math.Abs(f.Ti-1e-6) > rel*1e-6 || math.Abs(f.To-1e-4) > rel*1e-4 || !f.Consistent {
		t.Errorf("fitted %+v, want t_c 2e-6 t_i 1e-6 t_o 1e-4", f)
	}
}

// Search from a given profile runs on the curve interpolated between the
// measured ratios, whose least value is at the measured r = 0.325 (TTFT
// 8·0.675·4096·1 µs + 0.8 ms = 22.918 ms, against 8·0.35·4096·2 µs + 0.8 ms
// = 23.738 ms at 0.35): the ordered r* lands within ε/2 of it, and the
// regret of r0 = 1/3 is at most f(1/3)/f(0.325) − 1 = 1.19%.
func TestSearchExactCurve(t *testing.T) {
	o := recompute.DefaultOptions()
	p := recompute.Profile{Tc: 2e-6, Ti: 1e-6}
	out, err := Search(CSVSearch{Source: "exact.csv", Measurements: exactCurve(), Options: o, Variants: []recompute.Variant{recompute.Ordered},
		Profile: &p, R0Source: "--tc-us/--ti-us", Layers: 8})
	if err != nil {
		t.Fatal(err)
	}
	a := out.Doc.(map[string]any)["rows"].([]SearchRow)[0].Analysis
	f325, f35 := 8*(0.675*4096*1e-6+1e-4), 8*(0.35*4096*2e-6+1e-4)
	maxRegret := (f325+(f35-f325)/3)/f325 - 1
	if math.Abs(a.R0-1.0/3) > 1e-12 || math.Abs(a.RStar-0.325) > 0.005 || !(a.Regret > 0 && a.Regret <= maxRegret+1e-9) ||
		math.Abs(a.GridBest.R-0.325) > 1e-12 {
		t.Errorf("analysis %+v: want r0 = 1/3, r* within 0.005 of 0.325, regret in (0, %.4f], grid best at 0.325", a, maxRegret)
	}
	plot := filepath.Join(t.TempDir(), "s.svg")
	if err := out.SavePlots(plot); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(plot); err != nil || fi.Size() == 0 {
		t.Errorf("plot %s: %v", plot, err)
	}
	o.RMin = 0.95
	o.RMax = 1
	if _, err := Search(CSVSearch{Source: "exact.csv", Measurements: exactCurve()[:30], Options: o, Variants: []recompute.Variant{recompute.Paper}, Layers: 8}); err == nil {
		t.Error("a curve outside [r_min, r_max]: no error")
	}
}

// In the compute-and-load model the bidirectional schedule never loses to
// either baseline and equals the static split; 30000 tokens in 1000-token
// chunks are 30 chunks.
func TestCakeBidirectional(t *testing.T) {
	out, err := Cake(hardware(t, "vicuna-7b", []string{"nvme", "hdd"}, nil, 2048, 30000), 1000, 0)
	if err != nil {
		t.Fatal(err)
	}
	rows := out.Doc.(map[string]any)["rows"].([]CakeRow)
	if len(rows) != 4 || rows[1].Chunks != 30 {
		t.Fatalf("rows %+v", rows)
	}
	for _, r := range rows {
		ttft := map[string]float64{}
		for _, s := range r.Schedules {
			ttft[s.Name] = s.TTFT
		}
		bi := ttft["bidirectional"]
		if bi > ttft["compute-only"] || bi > ttft["load-only"] || math.Abs(bi-ttft["static-split"]) > 1e-12*bi {
			t.Errorf("schedules %v", ttft)
		}
	}
}

func TestPlotName(t *testing.T) {
	for _, c := range []struct {
		path, label string
		many        bool
		want        string
	}{
		{"a/b.svg", "nvme@4096", false, "a/b.svg"},
		{"a/b.svg", "nvme@4096", true, "a/b-nvme-4096.svg"},
		{"b.png", "page cache/x", true, "b-page-cache-x.png"},
	} {
		if got := PlotName(c.path, c.label, c.many); got != c.want {
			t.Errorf("PlotName(%q, %q, %v) = %q, want %q", c.path, c.label, c.many, got, c.want)
		}
	}
}
