package fits

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestLatency: points exactly on TTFT = 10 + 0.5·b fit with no error, and
// ξ_s = 60 ms is (60 − 10)/0.5 = 100 tokens.
func TestLatency(t *testing.T) {
	csv := writeFile(t, "p.csv", "uncached_tokens,ttft_ms\n0,10\n100,60\n300,160\n")
	plot := filepath.Join(t.TempDir(), "fit.svg")
	doc, tab, err := Latency(LatencyOptions{CSV: csv, XiMs: 60, Plot: plot, Format: "table"})
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]string{{"0.500000", "10.000", "3", "0.000", "60.0", "100.0"}}; !reflect.DeepEqual(tab.Rows, want) {
		t.Errorf("rows %v, want %v", tab.Rows, want)
	}
	d := doc.(map[string]any)
	if d["xi_tokens"] != 100.0 || d["points"] != 3 || d["alpha_ms_per_token"] != 0.5 {
		t.Errorf("document %v", d)
	}
	if b, err := os.ReadFile(plot); err != nil || !strings.HasPrefix(string(b), "<?xml") {
		t.Errorf("plot: %v", err)
	}
}

func TestLatencyRefused(t *testing.T) {
	csv := writeFile(t, "p.csv", "uncached_tokens,ttft_ms\n0,10\n100,60\n")
	for _, c := range []struct {
		o    LatencyOptions
		want string
	}{
		{LatencyOptions{Format: "table"}, "flag --csv: required"},
		{LatencyOptions{CSV: csv, Format: "xml"}, `flag --format: unknown format "xml"`},
		{LatencyOptions{CSV: csv, Format: "json", Plot: filepath.Join(t.TempDir(), "no", "f.svg")}, "flag --plot: "},
	} {
		if _, _, err := Latency(c.o); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one starting %q", c.o, err, c.want)
		}
	}
}

// TestLatencyFullPrecision: points on TTFT = 10 + b/3 fit α = 1/3, shown
// "0.333333" and written to CSV unrounded (within 1e-12 of 1/3, where the
// shown value is 3.3e-7 off).
func TestLatencyFullPrecision(t *testing.T) {
	csv := writeFile(t, "p.csv", "uncached_tokens,ttft_ms\n0,10\n3,11\n6,12\n")
	_, tab, err := Latency(LatencyOptions{CSV: csv, XiMs: 60, Format: "csv"})
	if err != nil {
		t.Fatal(err)
	}
	alpha, err := strconv.ParseFloat(tab.Plain[0][0], 64)
	if tab.Rows[0][0] != "0.333333" || err != nil || math.Abs(alpha-1.0/3) > 1e-12 {
		t.Errorf("α shown %q, in CSV %q; want 0.333333 and 1/3", tab.Rows[0][0], tab.Plain[0][0])
	}
}
