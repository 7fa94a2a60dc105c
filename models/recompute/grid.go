package recompute

import (
	"fmt"
	"math"
)

// Point is one evaluated recompute ratio.
type Point struct {
	R    float64 `json:"r"`      // recompute ratio, fraction of tokens
	TTFT float64 `json:"ttft_s"` // mean TTFT, seconds
}

// Grid evaluates f at intervals+1 evenly spaced ratios from lo to hi
// inclusive, in increasing order.
func Grid(f Objective, lo, hi float64, intervals int) ([]Point, error) {
	if err := CheckBounds(lo, hi); err != nil {
		return nil, err
	}
	if intervals < 1 {
		return nil, fmt.Errorf("grid: want ≥ 1 interval, got %d", intervals)
	}
	pts := make([]Point, intervals+1)
	for k := range pts {
		r := lo + (hi-lo)*float64(k)/float64(intervals)
		if k == intervals {
			r = hi
		}
		y, err := f(r)
		if err != nil {
			return nil, fmt.Errorf("grid: evaluating r=%.4f: %w", r, err)
		}
		pts[k] = Point{R: r, TTFT: y}
	}
	return pts, nil
}

// ArgMin returns the point of least TTFT (the first on ties). pts must not
// be empty.
func ArgMin(pts []Point) Point {
	best := pts[0]
	for _, p := range pts[1:] {
		if p.TTFT < best.TTFT {
			best = p
		}
	}
	return best
}

// Bump is the worst departure of a sampled curve from unimodality: the
// point that rises above both the least value on its left and the least
// value on its right, by Excess seconds.
type Bump struct {
	R      float64 `json:"r"`        // where, fraction of tokens
	Excess float64 `json:"excess_s"` // by how much, seconds
}

// Unimodal reports whether the sampled curve pts (in increasing r) is
// unimodal — non-increasing, then non-decreasing — up to tol seconds: no
// point exceeds both the minimum to its left and the minimum to its right
// by more than tol. It returns the worst bump (Excess ≤ tol when
// unimodal). A sequence is unimodal exactly when every point is at most
// the larger of those two minima, so this is a complete test.
func Unimodal(pts []Point, tol float64) (bool, Bump) {
	n := len(pts)
	right := make([]float64, n+1)
	right[n] = math.Inf(1)
	for i := n - 1; i >= 0; i-- {
		right[i] = math.Min(right[i+1], pts[i].TTFT)
	}
	var worst Bump
	left := math.Inf(1)
	for i, p := range pts {
		if i > 0 && i < n-1 {
			if e := p.TTFT - math.Max(left, right[i+1]); e > worst.Excess {
				worst = Bump{R: p.R, Excess: e}
			}
		}
		left = math.Min(left, p.TTFT)
	}
	return worst.Excess <= tol, worst
}
