package prefixtail

import (
	"fmt"
	"math"

	"github.com/tailbound/tailbound/models/prefixcache"
)

// OverlapDenominator is the denominator of the lower overlap's weights
// (package comment, "Lower overlap"): a request of the overlap counts
// q/OverlapDenominator in the window after the boundary and the rest in
// the window before. A power of two, so that a weight times a cost and
// one minus a weight are exact in float64.
const OverlapDenominator = 1024

// LowerOverlapRequests returns the lower overlap, requests, that each
// window's relaxation reaches back when n requests are cut into windows
// windows under wo: min(wo.LowerOverlapRequests, ⌊n/windows⌋), so that
// the overlap lies within the window before (every window holds at least
// ⌊n/windows⌋ requests).
func LowerOverlapRequests(n, windows int, wo WindowOptions) int {
	if windows < 2 {
		return 0
	}
	return max(min(wo.LowerOverlapRequests, n/windows), 0)
}

// RelaxationRange returns the requests [lo, hi) of window w's relaxation
// (of windows windows of a trace of n requests, under wo): the window
// [s, e) widened back by the lower overlap, lo = s − LowerOverlapRequests
// for every window but the first.
func RelaxationRange(n, windows, w int, wo WindowOptions) (lo, hi int) {
	lo, hi = w*n/windows, (w+1)*n/windows
	if w > 0 {
		lo -= LowerOverlapRequests(n, windows, wo)
	}
	return lo, hi
}

// OverlapWeight returns the weight, in the window after a boundary, of
// the k-th request (0-based) of an overlap of l requests before it:
// ⌊OverlapDenominator·(k+1)/(l+1)⌋/OverlapDenominator, rising towards
// the later window; the window before counts the request 1 minus it (as
// lp/window's turn-level ramp).
func OverlapWeight(k, l int) float64 {
	return float64(OverlapDenominator*(k+1)/(l+1)) / OverlapDenominator
}

// OverlapWeighting is how a lower overlap shares each of its requests
// between the window before the boundary and the window after: any
// weights in [0, 1] that add up to 1 per request keep the sum a lower
// bound (package comment, "Lower overlap"); which is tighter depends on
// the trace.
type OverlapWeighting int

const (
	// RampWeights, the default, counts the k-th of l requests
	// OverlapWeight(k, l) in the later window, rising towards it.
	RampWeights OverlapWeighting = iota
	// HalfWeights counts every request of the overlap 1/2 in each.
	HalfWeights
)

// overlapWeightingNames are the weightings' names, as flags and settings
// spell them.
var overlapWeightingNames = [...]string{RampWeights: "ramp", HalfWeights: "half"}

// String is the weighting's name: ramp or half.
func (o OverlapWeighting) String() string {
	if o < 0 || int(o) >= len(overlapWeightingNames) {
		return fmt.Sprintf("OverlapWeighting(%d)", int(o))
	}
	return overlapWeightingNames[o]
}

// ParseOverlapWeighting reads a weighting by its name: ramp or half.
func ParseOverlapWeighting(s string) (OverlapWeighting, error) {
	for o, n := range overlapWeightingNames {
		if n == s {
			return OverlapWeighting(o), nil
		}
	}
	return 0, fmt.Errorf("want ramp or half, got %q", s)
}

// weight is the later window's weight of the k-th request (0-based) of an
// overlap of l requests under o; 1/2 is exact in float64, as the ramp's
// dyadic weights are.
func (o OverlapWeighting) weight(k, l int) float64 {
	if o == HalfWeights {
		return 0.5
	}
	return OverlapWeight(k, l)
}

// overlapWeights returns the cost weights of window w's relaxation's
// requests RelaxationRange(n, windows, w, wo) (package comment, "Lower
// overlap"): the weighting's (wo.LowerOverlapWeights) over the overlap
// before the window, one minus the next window's over the window's last
// requests (unless w is the last window), 1 elsewhere; nil when every
// weight is 1.
func overlapWeights(n, windows, w int, wo WindowOptions) []float64 {
	l := LowerOverlapRequests(n, windows, wo)
	if l == 0 {
		return nil
	}
	lo, hi := RelaxationRange(n, windows, w, wo)
	s := w * n / windows
	wt := make([]float64, hi-lo)
	ones := true
	for i := range wt {
		t := lo + i
		switch {
		case t < s:
			wt[i] = wo.LowerOverlapWeights.weight(t-lo, l)
		case w < windows-1 && t >= hi-l:
			wt[i] = 1 - wo.LowerOverlapWeights.weight(t-(hi-l), l)
		default:
			wt[i] = 1
		}
		ones = ones && wt[i] == 1
	}
	if ones {
		return nil
	}
	return wt
}

// NewRelaxationWeighted is NewRelaxationOf with request i of win (the
// widened window's requests, after the history hist) costing
// weights[i]·f (nil: 1 each; else len(win) weights in [0, 1]).
func NewRelaxationWeighted(hist, win []prefixcache.Req, weights []float64, block int64, capacity int, obj Objective) (*Problem, error) {
	if weights != nil && len(weights) != len(win) {
		return nil, fmt.Errorf("%d weights for a window of %d requests", len(weights), len(win))
	}
	local := make([]prefixcache.Req, 0, len(hist)+len(win))
	local = append(local, hist...)
	local = append(local, win...)
	for i := range local {
		local[i].Index = i
	}
	var wt []float64
	if weights != nil {
		wt = make([]float64, len(local)) // the history's are not read (newWeighted counts from free on)
		copy(wt[len(hist):], weights)
	}
	return newWeighted(local, len(hist), wt, block, capacity, obj)
}

// TotalLower returns the windowed lower bound on the whole trace from
// the sum of every window's relaxation's lower bound: the sum itself,
// except for SLO with a lower overlap (overlap > 0 requests), where the
// windows' bounds are bounds on weighted counts, not integers, and only
// the sum, a lower bound on an integer (the fewest violations), is
// rounded up (less 10⁻⁶ for the float sum). Without an overlap the sum is
// returned as it is, as before the overlap existed (rounding it up would
// be as valid).
func TotalLower(k Kind, overlap int, sum float64) float64 {
	if k == SLO && overlap > 0 {
		return math.Ceil(sum - tol)
	}
	return sum
}
