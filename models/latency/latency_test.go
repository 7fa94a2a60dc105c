package latency

import (
	"fmt"
	"math"
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
