package recompute_test

import (
	"fmt"
	"math"

	"github.com/tailbound/tailbound/models/recompute"
)

// The roofline optimum of a profile, and the warm-started search on the
// model itself (a stand-in for measured TTFT).
func ExampleSearch() {
	p := recompute.Profile{Tc: 2e-6, Ti: 1e-6, To: 1e-4} // seconds per token per layer
	m := recompute.Model{Profile: p, Tokens: 4096, Layers: 32}
	f := func(r float64) (float64, error) { return m.TTFT(r), nil }
	res, _ := recompute.Search(f, p.R0(), 0.15, 1, 0.01, recompute.Ordered)
	fmt.Printf("r0 = %.3f, TTFT(r0) = %.1f ms\n", p.R0(), 1e3*m.TTFT(p.R0()))
	fmt.Printf("|r* − r0| ≤ ε/2: %v\n", math.Abs(res.RStar-p.R0()) <= 0.005)
	// Output:
	// r0 = 0.333, TTFT(r0) = 90.6 ms
	// |r* − r0| ≤ ε/2: true
}
