package latency

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"
)

func TestFitRecoversLine(t *testing.T) {
	// Points on TTFT = 12 + 0.08·b exactly: least squares must return it.
	var pts []Point
	for _, b := range []float64{0, 100, 250, 1000, 4000} {
		pts = append(pts, Point{b, 12 + 0.08*b})
	}
	m, err := Fit(pts)
	if err != nil {
		t.Fatal(err)
	}
	const eps = 1e-9 // exact data; only rounding in the normal equations
	if math.Abs(m.AlphaMs-0.08) > eps || math.Abs(m.BetaMs-12) > eps {
		t.Errorf("fit %+v, want α=0.08 β=12", m)
	}
	if _, err := Fit([]Point{{5, 1}, {5, 2}}); err == nil {
		t.Error("fit through one b value must fail")
	}
}

// TestFitRefusesUnusableLines: points whose least-squares line falls
// (α = −0.1 ms/token through (100,50),(200,40),(300,30)) or crosses zero
// below b = 0 (β = −10 ms through (100,0),(200,10)) are refused, since
// no command accepts such a model.
func TestFitRefusesUnusableLines(t *testing.T) {
	for _, pts := range [][]Point{
		{{100, 50}, {200, 40}, {300, 30}},
		{{100, 0}, {200, 10}},
		{{100, 7}, {200, 7}},
	} {
		m, err := Fit(pts)
		if err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("Fit(%v) = %+v, %v; want a one-line error", pts, m, err)
		}
	}
}

func TestXiRoundTrip(t *testing.T) {
	m := Default()
	if got := m.XiTokens(200); got != 1900 {
		t.Errorf("ξ tokens for 200 ms = %v, want (200−10)/0.1 = 1900", got)
	}
	if got := m.XiMs(1900); math.Abs(got-200) > 1e-9 {
		t.Errorf("ξ ms for 1900 tokens = %v, want 200", got)
	}
}

func ExampleModel() {
	m := Model{AlphaMs: 0.1, BetaMs: 10}
	xi := m.XiTokens(200) // a 200 ms threshold in tokens
	fmt.Println(xi, m.TTFTMs(3000), Excess(3000, xi))
	// Output: 1900 310 1100
}

func TestReadPointsErrors(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", "empty"},
		{"b,t\n1,2\n", ":1: header"},
		{"uncached_tokens,ttft_ms\n10,5\n20,x\n", `:3: field "ttft_ms"`},
		{"uncached_tokens,ttft_ms\n10,5\n-1,3\n", `:3: field "uncached_tokens"`},
		{"uncached_tokens,ttft_ms\n10\n", `:2: field "ttft_ms": missing`},
		{"uncached_tokens,ttft_ms\n\"10,5\n", "m.csv:"},
	}
	for _, c := range cases {
		_, err := ReadPoints(strings.NewReader(c.in), "m.csv")
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error %v, want one line containing %q", c.in, err, c.want)
		}
	}
}

func FuzzReadPoints(f *testing.F) {
	f.Add([]byte("uncached_tokens,ttft_ms\n10,5\n20,7\n"))
	f.Add([]byte("ttft_ms,uncached_tokens,x\n1,2,3\n\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		pts, err := ReadPoints(bytes.NewReader(data), "fuzz")
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		for _, p := range pts {
			if p.Uncached < 0 || p.TTFTMs < 0 || math.IsNaN(p.TTFTMs) {
				t.Fatalf("accepted %+v", p)
			}
		}
	})
}

// Hand-worked: residuals 3 and −4 ms give √((9 + 16)/2) = √12.5 ms.
func TestRMSE(t *testing.T) {
	m := Model{AlphaMs: 0.5, BetaMs: 10}
	pts := []Point{{Uncached: 0, TTFTMs: 13}, {Uncached: 20, TTFTMs: 16}}
	if got := m.RMSE(pts); math.Abs(got-math.Sqrt(12.5)) > 1e-12 {
		t.Errorf("RMSE = %v, want √12.5", got)
	}
	if got := m.RMSE(nil); got != 0 {
		t.Errorf("RMSE of no points = %v, want 0", got)
	}
}

// ExampleCheckSLOMs: the one SLO rule every command applies to --slo-ms
// and --slo-tokens.
func ExampleCheckSLOMs() {
	fmt.Println(CheckSLOMs(200), CheckSLOMs(5))
	fmt.Println(CheckSLOMs(-5))
	fmt.Println(CheckSLOTokens(-5))
	// Output:
	// <nil> <nil>
	// must be a finite number of ms ≥ 0, got -5
	// must be a finite number of tokens ≥ 0 (at most 1e15), got -5
}
