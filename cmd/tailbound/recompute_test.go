package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRecomputeBadInput(t *testing.T) {
	badCSV := writeFile(t, "m.csv", "tier,r,ttft_s\nnvme,0.2,0.5\nnvme,0.4,oops\n")
	csv := writeFile(t, "ok.csv", "tier,r,ttft_s\nnvme,0.2,0.5\nnvme,0.5,0.3\nnvme,0.9,0.6\n")
	badJSON := writeFile(t, "m.json", "{\n\"layers\": 2,\n\"kv_heads\": -1, \"head_dim\": 4, \"bytes_per_value\": 2}")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"recompute", "search", "--csv", badCSV}, `m.csv:3: field "ttft_s"`},
		{[]string{"recompute", "profile", "--csv", badCSV}, `m.csv:3: field "ttft_s"`},
		{[]string{"recompute", "search", "--csv", filepath.Join(t.TempDir(), "none.csv")}, "none.csv"},
		{[]string{"recompute", "search"}, "exactly one of --csv FILE and --live"},
		{[]string{"recompute", "search", "--csv", csv, "--live"}, "exactly one"},
		{[]string{"recompute", "search", "--csv", csv, "--variant", "golden"}, `unknown search variant "golden"`},
		{[]string{"recompute", "search", "--csv", csv, "--r-min", "0.6", "--r-max", "0.5"}, "--r-min/--r-max"},
		{[]string{"recompute", "search", "--csv", csv, "--r-min", "0.95"}, "nothing of [r_min, r_max]"},
		{[]string{"recompute", "roofline", "--model", "gpt-9"}, `flag --model: unknown model "gpt-9"`},
		{[]string{"recompute", "roofline", "--model-json", badJSON}, `field "kv_heads"`},
		{[]string{"recompute", "roofline", "--tiers", "nvme,floppy"}, `unknown storage tier "floppy"`},
		{[]string{"recompute", "roofline", "--tiers", "nvme", "--bandwidth", "hdd=0.1"}, "not selected"},
		{[]string{"recompute", "roofline", "--tokens", "0"}, "--tokens"},
		{[]string{"recompute", "roofline", "--mfu", "2"}, "--mfu"},
		{[]string{"recompute", "cake", "--chunk", "0"}, "--chunk"},
		{[]string{"recompute", "cake", "--format", "xml"}, "--format"},
		{[]string{"recompute", "measure", "--tiers", "tape"}, `unknown measured tier "tape"`},
		{[]string{"recompute", "measure", "--reps", "0"}, "--reps"},
		{[]string{"recompute", "warp"}, "unknown sub-command"},
	}
	for _, c := range cases {
		code, out, errs := runCLI(c.args...)
		if code == 0 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want a non-zero exit and one line containing %q", c.args, code, out, errs, c.want)
		}
	}
}

// The roofline's JSON agrees with the closed forms: r0 = t_i/(t_c + t_i)
// clipped to [r_min, r_max], t_i = per-layer KV bytes / bandwidth, and
// the command is deterministic.
func TestRecomputeRooflineJSON(t *testing.T) {
	args := []string{"recompute", "roofline", "--model", "mistral-7b", "--tiers", "gpu,nvme,hdd", "--bandwidth", "nvme=2",
		"--tokens", "4096,8192", "--format", "json"}
	code, out, errs := runCLI(args...)
	if code != 0 {
		t.Fatal(errs)
	}
	var doc struct {
		Rows []struct {
			Tier                       string
			Bandwidth                  float64 `json:"bandwidth_bytes_per_s"`
			Tc                         float64 `json:"tc_s"`
			Ti                         float64 `json:"ti_s"`
			R0u                        float64 `json:"r0_unclipped"`
			R0                         float64 `json:"r0"`
			TTFTR0, TTFTLoad, TTFTFull float64
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Rows) != 6 {
		t.Fatalf("%d rows, want 3 tiers × 2 lengths", len(doc.Rows))
	}
	for _, r := range doc.Rows {
		if want := 4096 / r.Bandwidth; math.Abs(r.Ti-want) > 1e-12*want { // Mistral: 2·8·128·2 bytes per token per layer
			t.Errorf("%s: t_i %v, want %v", r.Tier, r.Ti, want)
		}
		if want := r.Ti / (r.Tc + r.Ti); math.Abs(r.R0u-want) > 1e-12 || r.R0 != math.Min(math.Max(want, 0.15), 1) {
			t.Errorf("%s: r0 %v (unclipped %v), want clip(%v)", r.Tier, r.R0, r.R0u, want)
		}
	}
	if doc.Rows[2].Bandwidth != 2e9 {
		t.Errorf("nvme override: bandwidth %v, want 2e9", doc.Rows[2].Bandwidth)
	}
	_, again, _ := runCLI(args...)
	if again != out {
		t.Error("roofline output differs between two runs")
	}
}

// A CSV measured on an exact roofline (t_c = 2 µs, t_i = 1 µs, t_o =
// 0.1 ms, N = 4096, 8 layers; r0 = 1/3): profile fits the profile back;
// search from --tc-us/--ti-us runs on the curve interpolated between the
// measured ratios, 0.025 apart, whose least value is at the measured
// r = 0.325 (TTFT 8·0.675·4096·1 µs + 0.8 ms = 22.918 ms, against 8·0.35·
// 4096·2 µs + 0.8 ms = 23.738 ms at 0.35): the ordered r* lands within
// ε/2 of it, and the regret of r0 = 1/3 is at most f(1/3)/f(0.325) − 1 =
// (22.918 + (23.738 − 22.918)/3)/22.918 − 1 = 1.19%.
func TestRecomputeSearchAndProfileCSV(t *testing.T) {
	const n, layers, tc, ti, to = 4096, 8, 2e-6, 1e-6, 1e-4
	var b strings.Builder
	b.WriteString("tier,tokens,r,ttft_s,reps\n")
	for i := 0; i <= 40; i++ {
		r := float64(i) / 40
		ttft := layers * (math.Max(r*n*tc, (1-r)*n*ti) + to)
		fmt.Fprintf(&b, "synthetic,%d,%v,%.12f,3\n", n, r, ttft)
	}
	csv := writeFile(t, "exact.csv", b.String())
	code, out, errs := runCLI("recompute", "profile", "--csv", csv, "--fit-layers", "8", "--format", "json")
	if code != 0 {
		t.Fatal(errs)
	}
	var prof struct {
		Rows []struct {
			Fit struct {
				Tc         float64 `json:"tc_s"`
				Ti         float64 `json:"ti_s"`
				To         float64 `json:"to_s"`
				Consistent bool
			}
			R0 float64 `json:"r0_unclipped"`
		}
	}
	if err := json.Unmarshal([]byte(out), &prof); err != nil {
		t.Fatal(err)
	}
	f := prof.Rows[0].Fit
	const rel = 1e-6 // the CSV rounds TTFT to 1e-12 s
	if math.Abs(f.Tc-tc) > rel*tc || math.Abs(f.Ti-ti) > rel*ti || math.Abs(f.To-to) > rel*to || !f.Consistent {
		t.Errorf("fitted %+v, want t_c %v t_i %v t_o %v", f, tc, ti, to)
	}
	plot := filepath.Join(t.TempDir(), "s.svg")
	code, out, errs = runCLI("recompute", "search", "--csv", csv, "--tc-us", "2", "--ti-us", "1", "--variant", "ordered",
		"--format", "json", "--plot", plot)
	if code != 0 {
		t.Fatal(errs)
	}
	var s struct {
		Rows []struct {
			Analysis struct {
				R0       float64 `json:"r0"`
				RStar    float64 `json:"r_star"`
				Regret   float64 `json:"regret"`
				GridBest struct {
					R float64 `json:"r"`
				} `json:"grid_best"`
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	a := s.Rows[0].Analysis
	f325, f35 := 8*(0.675*4096*1e-6+1e-4), 8*(0.35*4096*2e-6+1e-4)
	maxRegret := (f325+(f35-f325)/3)/f325 - 1
	if math.Abs(a.R0-1.0/3) > 1e-12 || math.Abs(a.RStar-0.325) > 0.005 || !(a.Regret > 0 && a.Regret <= maxRegret+1e-9) ||
		math.Abs(a.GridBest.R-0.325) > 1e-12 {
		t.Errorf("analysis %+v: want r0 = 1/3, r* within 0.005 of 0.325, regret in (0, %.4f], grid best at 0.325", a, maxRegret)
	}
	if fi, err := os.Stat(plot); err != nil || fi.Size() == 0 {
		t.Errorf("plot %s: %v", plot, err)
	}
}

// In the compute-and-load model the bidirectional schedule never loses to
// either baseline and equals the static split.
func TestRecomputeCakeJSON(t *testing.T) {
	code, out, errs := runCLI("recompute", "cake", "--tiers", "nvme,hdd", "--tokens", "2048,30000", "--chunk", "1000", "--format", "json")
	if code != 0 {
		t.Fatal(errs)
	}
	var doc struct {
		Rows []struct {
			Chunks    int
			Schedules []struct {
				Name string
				TTFT float64 `json:"ttft_s"`
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Rows) != 4 || doc.Rows[1].Chunks != 30 {
		t.Fatalf("rows %+v", doc.Rows)
	}
	for _, r := range doc.Rows {
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

// A small live measurement runs end to end, saves its runs in the CSV
// format search reads, and deletes its KV file. At 64 tokens and one
// repetition the timings could not resolve either per-token cost in 3 of
// 30 runs (measure then refuses, rightly); 512 tokens and three
// repetitions (about 0.4 s) failed in none of 60.
func TestRecomputeMeasureSmoke(t *testing.T) {
	dir := t.TempDir()
	save := filepath.Join(dir, "runs.csv")
	code, out, errs := runCLI("recompute", "measure", "--tokens", "512", "--layers", "2", "--reps", "3", "--profile-steps", "3",
		"--grid", "2", "--eps", "0.3", "--tiers", "page-cache", "--dir", dir, "--save", save, "--format", "json")
	if code != 0 {
		t.Fatal(errs)
	}
	var doc struct {
		Results []struct {
			Analyses []json.RawMessage
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Results) != 1 || len(doc.Results[0].Analyses) != 2 {
		t.Fatalf("%v: %s", err, out)
	}
	if code, _, errs := runCLI("recompute", "search", "--csv", save, "--r0", "0.5"); code != 0 {
		t.Errorf("search on the saved runs: %s", errs)
	}
	left, _ := filepath.Glob(filepath.Join(dir, "tailbound-kv-*"))
	if len(left) != 0 {
		t.Errorf("KV files left behind: %v", left)
	}
}
