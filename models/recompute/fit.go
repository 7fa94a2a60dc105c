package recompute

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// Fit is a roofline profile fitted to a measured TTFT(r) curve.
type Fit struct {
	Profile
	// RMSE is the root-mean-square error of the fitted roofline against
	// the curve's mean points, seconds.
	RMSE float64 `json:"rmse_s"`
	// Points is the number of ratios fitted.
	Points int `json:"points"`
	// Consistent reports that the fitted crossover r0 lies between the
	// last point assigned to the load branch and the first assigned to the
	// compute branch, so the fit is the least-squares roofline. When no
	// split is consistent (e.g. the curve never turns), the best split is
	// returned with Consistent false and the profile should not be trusted.
	Consistent bool `json:"consistent"`
}

// FitRoofline fits TTFT(r) = layers·(max(r·N·t_c, (1−r)·N·t_i) + t_o) to a
// measured curve by least squares, weighting each point by its runs. The
// roofline is linear in (t_c, t_i, t_o) once each point is assigned to the
// load branch (r below the crossover) or the compute branch; FitRoofline
// tries every split of the sorted ratios with at least one point on each
// side, solves each linear least-squares problem by QR (gonum/mat), and
// keeps the least residual among the splits whose crossover is consistent
// with their assignment (segmented regression). tokens is N and layers the
// layer count; they only scale the profile, not r0.
func FitRoofline(pts []CurvePoint, tokens, layers int) (Fit, error) {
	n := len(pts)
	if n < 3 {
		return Fit{}, fmt.Errorf("roofline fit: need ≥ 3 distinct ratios, got %d", n)
	}
	if tokens < 1 || layers < 1 {
		return Fit{}, fmt.Errorf("roofline fit: tokens (%d) and layers (%d) must be ≥ 1", tokens, layers)
	}
	for i := 1; i < n; i++ {
		if !(pts[i].R > pts[i-1].R) {
			return Fit{}, errors.New("roofline fit: ratios must be distinct and increasing")
		}
	}
	type cand struct {
		abc        [3]float64
		rss        float64
		consistent bool
	}
	var best, bestAny *cand
	for s := 1; s < n; s++ { // pts[:s] load-bound, pts[s:] compute-bound
		a := mat.NewDense(n, 3, nil)
		y := mat.NewVecDense(n, nil)
		for i, p := range pts {
			w := math.Sqrt(float64(max(p.Reps, 1)))
			if i < s {
				a.Set(i, 1, w*(1-p.R))
			} else {
				a.Set(i, 0, w*p.R)
			}
			a.Set(i, 2, w)
			y.SetVec(i, w*p.TTFT)
		}
		var qr mat.QR
		qr.Factorize(a)
		var x mat.VecDense
		if err := qr.SolveVecTo(&x, false, y); err != nil {
			continue // rank-deficient split
		}
		var res mat.VecDense
		res.MulVec(a, &x)
		res.SubVec(&res, y)
		c := &cand{abc: [3]float64{x.AtVec(0), x.AtVec(1), x.AtVec(2)}, rss: mat.Dot(&res, &res)}
		if c.abc[0] > 0 && c.abc[1] > 0 {
			r0 := c.abc[1] / (c.abc[0] + c.abc[1])
			const slack = 1e-9
			c.consistent = r0 >= pts[s-1].R-slack && r0 <= pts[s].R+slack
		}
		if bestAny == nil || c.rss < bestAny.rss {
			bestAny = c
		}
		if c.consistent && (best == nil || c.rss < best.rss) {
			best = c
		}
	}
	if bestAny == nil {
		return Fit{}, errors.New("roofline fit: every split is rank-deficient")
	}
	if best == nil {
		best = bestAny
	}
	ln := float64(layers) * float64(tokens)
	f := Fit{Profile: Profile{Tc: best.abc[0] / ln, Ti: best.abc[1] / ln, To: best.abc[2] / float64(layers)},
		Points: n, Consistent: best.consistent}
	m := Model{Profile: f.Profile, Tokens: tokens, Layers: layers}
	var ss float64
	for _, p := range pts {
		d := m.TTFT(p.R) - p.TTFT
		ss += d * d
	}
	f.RMSE = math.Sqrt(ss / float64(n))
	return f, nil
}

// Line is a least-squares line y = Intercept + Slope·x.
type Line struct {
	Intercept float64 `json:"intercept"`
	Slope     float64 `json:"slope"`
	R2        float64 `json:"r2"` // coefficient of determination; 1 when y is constant (the fit is exact)
}

// FitLine fits a least-squares line (gonum/stat) to at least two points
// with distinct x.
func FitLine(x, y []float64) (Line, error) {
	if len(x) != len(y) || len(x) < 2 {
		return Line{}, fmt.Errorf("line fit: need ≥ 2 (x, y) pairs, got %d and %d values", len(x), len(y))
	}
	distinct := false
	for _, v := range x[1:] {
		distinct = distinct || v != x[0]
	}
	if !distinct {
		return Line{}, errors.New("line fit: all x values are equal")
	}
	a, b := stat.LinearRegression(x, y, nil, false)
	r2 := stat.RSquared(x, y, nil, a, b)
	if math.IsNaN(r2) {
		// 0/0: y has no variance, and the least-squares line through
		// constant points is exact.
		r2 = 1
	}
	return Line{Intercept: a, Slope: b, R2: r2}, nil
}
