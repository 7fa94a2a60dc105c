package recompute

import (
	"errors"
	"fmt"
	"math"
)

// Objective returns the measured mean TTFT, in seconds, at recompute ratio
// r (the paper's f(r), equation 12).
type Objective func(r float64) (float64, error)

// Variant selects the probe bookkeeping of the golden-section search.
type Variant int

const (
	// Paper is Algorithm 1 of the recompute paper line by line: the
	// warm-start probe replaces one golden probe, and each iteration keeps
	// the surviving probe in the slot (x1 or x2) the algorithm assigns it
	// and places the new probe at the golden point of the new bracket.
	//
	// That placement assumes the kept probe sits at the other golden
	// point, which holds for classic golden-section search but not after a
	// warm start: the kept probe (r0, or a probe placed relative to it) can
	// land on the wrong side of the new one (x1 > x2), and the comparison
	// then discards the part of the bracket that holds the minimum. With
	// r0 clipped onto an end of the bracket (r0 = r_min, common on fast
	// tiers) the end itself is probed, and a later probe can fall on the
	// kept one, so that a comparison of a point with itself moves the
	// bracket.
	// Result.Inverted reports either; TestPaperVariantLosesMinimum counts
	// how often the minimum is lost.
	Paper Variant = iota
	// Ordered is Algorithm 1 with two repairs: after each new probe the
	// two probes are swapped if x1 > x2, and a new probe that falls on the
	// kept one (which happens when r0 is clipped onto an end of the
	// bracket) is followed by a probe at its mirror image a + b − x (one
	// extra evaluation). Every bracket then contains the minimum of a
	// unimodal function, whatever r0.
	Ordered
)

// String returns "paper" or "ordered".
func (v Variant) String() string {
	if v == Ordered {
		return "ordered"
	}
	return "paper"
}

// MarshalText writes the variant's name (for JSON).
func (v Variant) MarshalText() ([]byte, error) { return []byte(v.String()), nil }

// ParseVariant reads "paper" or "ordered".
func ParseVariant(s string) (Variant, error) {
	switch s {
	case "paper":
		return Paper, nil
	case "ordered":
		return Ordered, nil
	}
	return 0, fmt.Errorf("unknown search variant %q (want paper|ordered)", s)
}

// phi is (√5 − 1)/2 ≈ 0.618, the golden-section ratio of Algorithm 1
// (TestPhi checks φ² + φ = 1).
const phi = 0.61803398874989484820458683436563811772

// Phi returns (√5 − 1)/2.
func Phi() float64 { return phi }

// Step is one iteration of the search: the bracket and the two probes
// compared at its start.
type Step struct {
	A, B   float64 // bracket, fractions of tokens
	X1, X2 float64 // probes compared
	F1, F2 float64 // their TTFT, seconds
	// Inverted is x1 ≥ x2 at the comparison (probes out of order or
	// coinciding): the bracket update is then not justified by
	// unimodality.
	Inverted bool
}

// Result is the outcome of a golden-section search.
type Result struct {
	// RStar is the midpoint of the final bracket, the paper's r*.
	RStar float64
	// A, B is the final bracket.
	A, B float64
	// Evaluations is the number of objective calls: 2 initial probes and
	// one per iteration.
	Evaluations int
	// Steps are the iterations in order.
	Steps []Step
	// Inverted reports whether any comparison had x1 ≥ x2 (possible only
	// with the Paper variant).
	Inverted bool
	// Mirrored counts the extra mirror-point evaluations of the Ordered
	// variant (included in Evaluations).
	Mirrored int
	// R0 is the warm-start probe, r0 clipped to the bounds.
	R0 float64
}

// maxIter bounds the iterations; Algorithm 1 needs about
// log_{1/φ}((r_max − r_min)/ε) ≈ 48 for ε = 1e-10 on [0, 1].
const maxIter = 200

// Search runs the roofline-warm-started golden-section search of the
// recompute paper (Algorithm 1) on f over [lo, hi] with tolerance eps:
//
//	a ← lo; b ← hi; r0 clipped to [lo, hi]
//	if r0 ≤ (a+b)/2: x1 ← r0, x2 ← a + φ(b−a)   (warm-start left probe)
//	else:            x1 ← b − φ(b−a), x2 ← r0   (warm-start right probe)
//	f1 ← f(x1); f2 ← f(x2)
//	while |b − a| ≥ eps:
//	  if f1 < f2: b ← x2; x2 ← x1; f2 ← f1; x1 ← b − φ(b−a); f1 ← f(x1)
//	  else:       a ← x1; x1 ← x2; f1 ← f2; x2 ← a + φ(b−a); f2 ← f(x2)
//	r* ← (a+b)/2
//
// Each iteration makes exactly one new evaluation and reuses the other
// probe. The Ordered variant also swaps the probes whenever x1 > x2, and
// spends one more evaluation when the new probe coincides with the kept one.
func Search(f Objective, r0, lo, hi, eps float64, v Variant) (Result, error) {
	if err := CheckBounds(lo, hi); err != nil {
		return Result{}, err
	}
	if !(eps > 0) || math.IsInf(eps, 0) {
		return Result{}, fmt.Errorf("search tolerance must be a finite number > 0, got %v", eps)
	}
	if math.IsNaN(r0) {
		return Result{}, errors.New("search: r0 is NaN")
	}
	res := Result{R0: Clip(r0, lo, hi)}
	eval := func(x float64) (float64, error) {
		res.Evaluations++
		y, err := f(x)
		if err != nil {
			return 0, fmt.Errorf("search: evaluating r=%.4f: %w", x, err)
		}
		if math.IsNaN(y) {
			return 0, fmt.Errorf("search: TTFT at r=%.4f is NaN", x)
		}
		return y, nil
	}
	a, b := lo, hi
	var x1, x2 float64
	if res.R0 <= (a+b)/2 {
		x1, x2 = res.R0, a+phi*(b-a)
	} else {
		x1, x2 = b-phi*(b-a), res.R0
	}
	f1, err := eval(x1)
	if err != nil {
		return res, err
	}
	f2, err := eval(x2)
	if err != nil {
		return res, err
	}
	for math.Abs(b-a) >= eps {
		if len(res.Steps) == maxIter {
			return res, fmt.Errorf("search: no convergence after %d iterations (bracket [%v, %v])", maxIter, a, b)
		}
		s := Step{A: a, B: b, X1: x1, X2: x2, F1: f1, F2: f2, Inverted: !(x1 < x2)}
		res.Steps = append(res.Steps, s)
		res.Inverted = res.Inverted || s.Inverted
		if f1 < f2 {
			b, x2, f2 = x2, x1, f1
			x1 = b - phi*(b-a)
			if f1, err = eval(x1); err != nil {
				return res, err
			}
		} else {
			a, x1, f1 = x1, x2, f2
			x2 = a + phi*(b-a)
			if f2, err = eval(x2); err != nil {
				return res, err
			}
		}
		if v == Ordered {
			if x1 > x2 {
				x1, x2, f1, f2 = x2, x1, f2, f1
			}
			if x2-x1 <= 1e-12*math.Max(1, math.Abs(b-a)) {
				// The new probe fell on the kept one (a probe on the
				// bracket's end, e.g. r0 = r_min, leads here): probe the
				// mirror point instead, so the comparison says something.
				res.Mirrored++
				if err := mirror(&x1, &x2, &f1, &f2, a, b, eval); err != nil {
					return res, err
				}
			}
		}
	}
	res.A, res.B, res.RStar = a, b, (a+b)/2
	return res, nil
}

// mirror replaces the newer of two coinciding probes x1 = x2 by a + b − x1
// and re-sorts them. The duplicate evaluation still counts.
func mirror(x1, x2, f1, f2 *float64, a, b float64, eval func(float64) (float64, error)) error {
	x := a + b - *x1
	fx, err := eval(x)
	if err != nil {
		return err
	}
	if x < *x1 {
		*x1, *x2, *f1, *f2 = x, *x1, fx, *f1
	} else {
		*x2, *f2 = x, fx
	}
	return nil
}

// ClassicEvaluations is the number of evaluations of a golden-section
// search without warm start (both probes at golden points) on a bracket of
// width width with tolerance eps: 2 + the least n with width·φⁿ < eps.
func ClassicEvaluations(width, eps float64) int {
	if width < eps {
		return 2
	}
	n := int(math.Ceil(math.Log(eps/width) / math.Log(phi)))
	if width*math.Pow(phi, float64(n)) >= eps { // log rounding at an exact power
		n++
	}
	return 2 + n
}
