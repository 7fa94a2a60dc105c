package recompute

import (
	"fmt"
	"math"

	"github.com/tailbound/tailbound/models/namelist"
)

// Options configure Analyze.
type Options struct {
	// RMin, RMax are the quality bounds of r (fractions of tokens).
	RMin, RMax float64
	// Eps is the search tolerance on the bracket width (units of r).
	Eps float64
	// Variant is the search's probe bookkeeping.
	Variant Variant
	// GridIntervals is the number of intervals of the confirming grid scan
	// over [RMin, RMax]; 0 skips the scan.
	GridIntervals int
	// Tol is the relative noise tolerance (a fraction of the least
	// measured TTFT) for calling the curve unimodal and for saying the
	// search missed the grid's minimum.
	Tol float64
}

// DefaultOptions are the paper's bounds, one-point tolerance, the paper's
// variant, a 17-point grid and a 2% noise tolerance.
func DefaultOptions() Options {
	return Options{RMin: DefaultRMin, RMax: DefaultRMax, Eps: DefaultEps, Variant: Paper, GridIntervals: 16, Tol: 0.02}
}

// Analysis compares the roofline optimum with the measured one.
type Analysis struct {
	// R0Raw is the unclipped roofline optimum t_i/(t_c+t_i); R0 the clipped one.
	R0Raw float64 `json:"r0_unclipped"`
	R0    float64 `json:"r0"`
	// RStar is the golden-section optimum.
	RStar float64 `json:"r_star"`
	// TTFTR0 and TTFTRStar are measured TTFT at r0 and r*, seconds
	// (evaluated after the search, not counted in Evaluations).
	TTFTR0    float64 `json:"ttft_r0_s"`
	TTFTRStar float64 `json:"ttft_r_star_s"`
	// Regret is TTFT(r0)/TTFT(r*) − 1.
	Regret float64 `json:"regret"`
	// Evaluations is the number of TTFT evaluations of the search;
	// ClassicEvaluations what a search without warm start needs.
	Evaluations        int  `json:"evaluations"`
	ClassicEvaluations int  `json:"classic_evaluations"`
	Inverted           bool `json:"probe_order_inverted"`
	// Grid is the confirming scan (empty when skipped), GridBest its
	// minimum, GridGap = TTFT(r*)/TTFT(grid best) − 1.
	Grid     []Point `json:"grid,omitempty"`
	GridBest Point   `json:"grid_best"`
	GridGap  float64 `json:"grid_gap"`
	// Unimodal is the grid's unimodality up to the noise tolerance; Bump
	// its worst departure.
	Unimodal bool `json:"unimodal"`
	Bump     Bump `json:"bump"`
	// Missed reports that the search's TTFT exceeds the grid minimum by
	// more than the noise tolerance.
	Missed bool `json:"gss_missed_minimum"`
	// Variant is the search variant used.
	Variant Variant `json:"variant"`
	// Search is the full search trace.
	Search Result `json:"-"`
}

// Analyze runs the warm-started search from the roofline optimum r0Raw
// (clipped to the bounds), measures TTFT at r0 and r*, and, if asked, scans
// a grid to confirm the search found the minimum.
func Analyze(f Objective, r0Raw float64, o Options) (Analysis, error) {
	an, err := AnalyzeAll(f, r0Raw, o, []Variant{o.Variant})
	if err != nil {
		return Analysis{R0Raw: r0Raw}, err
	}
	return an[0], nil
}

// AnalyzeAll is Analyze for several search variants on the same objective:
// the grid is scanned once (first) and shared; each variant's search and
// its TTFT(r0), TTFT(r*) are measured afresh.
func AnalyzeAll(f Objective, r0Raw float64, o Options, variants []Variant) ([]Analysis, error) {
	var grid []Point
	var err error
	if o.GridIntervals > 0 {
		if grid, err = Grid(f, o.RMin, o.RMax, o.GridIntervals); err != nil {
			return nil, err
		}
	}
	var out []Analysis
	for _, v := range variants {
		an := Analysis{R0Raw: r0Raw, Unimodal: true, Variant: v}
		res, err := Search(f, r0Raw, o.RMin, o.RMax, o.Eps, v)
		if err != nil {
			return nil, err
		}
		an.Search, an.R0, an.RStar = res, res.R0, res.RStar
		an.Evaluations, an.Inverted = res.Evaluations, res.Inverted
		an.ClassicEvaluations = ClassicEvaluations(o.RMax-o.RMin, o.Eps)
		if an.TTFTR0, err = f(an.R0); err != nil {
			return nil, fmt.Errorf("TTFT at r0=%.4f: %w", an.R0, err)
		}
		if an.TTFTRStar, err = f(an.RStar); err != nil {
			return nil, fmt.Errorf("TTFT at r*=%.4f: %w", an.RStar, err)
		}
		an.Regret = an.TTFTR0/an.TTFTRStar - 1
		if len(grid) > 0 {
			an.SetGrid(grid, o.Tol)
		}
		out = append(out, an)
	}
	return out, nil
}

// SetGrid records a grid scan pts (in increasing r, not empty) and derives
// the grid minimum, the search's gap to it, unimodality and Missed with the
// relative noise tolerance tol. Analyze calls it; a caller with measured
// points of its own (a CSV) can pass those.
func (an *Analysis) SetGrid(pts []Point, tol float64) {
	an.Grid = pts
	an.GridBest = ArgMin(pts)
	an.GridGap = an.TTFTRStar/an.GridBest.TTFT - 1
	abs := tol * math.Abs(an.GridBest.TTFT)
	an.Unimodal, an.Bump = Unimodal(pts, abs)
	an.Missed = an.TTFTRStar-an.GridBest.TTFT > abs
}

// Best returns the least measured TTFT of the search optimum and the grid
// minimum, seconds, and where it is.
func (an Analysis) Best() Point {
	b := Point{R: an.RStar, TTFT: an.TTFTRStar}
	if len(an.Grid) > 0 && an.GridBest.TTFT < b.TTFT {
		b = an.GridBest
	}
	return b
}

// OptionError is an Options field out of range. Option names it as the
// command line does ("eps", "grid", "tol"; "r-min/r-max" for the bounds).
type OptionError struct {
	Option string
	Err    error
}

func (e *OptionError) Error() string { return e.Option + ": " + e.Err.Error() }

// Unwrap returns the reason.
func (e *OptionError) Unwrap() error { return e.Err }

// MaxGridIntervals bounds GridIntervals.
const MaxGridIntervals = 10000

// Validate reports the first field of o out of range as an *OptionError:
// bounds that are not 0 ≤ RMin ≤ RMax ≤ 1, Eps outside (0, 1],
// GridIntervals outside 0..MaxGridIntervals, or Tol not a finite fraction
// ≥ 0.
func (o Options) Validate() error {
	if err := CheckBounds(o.RMin, o.RMax); err != nil {
		return &OptionError{"r-min/r-max", err}
	}
	if !(o.Eps > 0) || o.Eps > 1 {
		return &OptionError{"eps", fmt.Errorf("want a fraction in (0, 1], got %v", o.Eps)}
	}
	if o.GridIntervals < 0 || o.GridIntervals > MaxGridIntervals {
		return &OptionError{"grid", fmt.Errorf("want 0..%d intervals, got %d", MaxGridIntervals, o.GridIntervals)}
	}
	if !(o.Tol >= 0) || math.IsInf(o.Tol, 0) {
		return &OptionError{"tol", fmt.Errorf("want a finite fraction ≥ 0, got %v", o.Tol)}
	}
	return nil
}

// ParseVariants reads a comma-separated list of search variants (spaces
// around a name are ignored).
func ParseVariants(list string) ([]Variant, error) { return namelist.ParseEach(list, ParseVariant) }
