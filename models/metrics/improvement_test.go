package metrics

import (
	"fmt"
	"math"
	"testing"
)

// Hand-worked: TEL 200 → 150 is a 25% improvement, P99 40 → 50 a −25%
// one, 4 → 1 violations 75%; a zero baseline (mean, P50) is omitted.
func TestImprovements(t *testing.T) {
	base := Summary{TELTokens: 200, P90: 10, P95: 20, P99: 40, Violations: 4}
	p := Summary{TELTokens: 150, MeanTTFTMs: 3, P50: 1, P90: 10, P95: 10, P99: 50, Violations: 1}
	got := Improvements(base, p)
	want := map[string]float64{"tel": 0.25, "p90": 0, "p95": 0.5, "p99": -0.25, "slo_violations": 0.75}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k, w := range want {
		if math.Abs(got[k]-w) > 1e-15 {
			t.Errorf("%s: %v, want %v", k, got[k], w)
		}
	}
}

func ExampleImprovement() {
	v, ok := Improvement(200, 150)
	fmt.Println(v, ok)
	_, ok = Improvement(0, 5)
	fmt.Println(ok)
	// Output:
	// 0.25 true
	// false
}
