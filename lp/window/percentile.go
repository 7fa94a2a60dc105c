package window

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/tailbound/tailbound/models/objective"
)

// PercentileInterval is what the windowed bounds on the lowest Q-th
// percentile say, searched (PercentileBounds) or on a grid of thresholds
// (GridBounds): the interval, tokens, and how the trace was cut.
type PercentileInterval struct {
	// Q is the percentile, percent; Rank its nearest rank among the Turns
	// turns, MaxExceeding = Turns − Rank the turns allowed above it.
	Q            float64 `json:"percentile"`
	Rank         int     `json:"rank"`
	MaxExceeding int     `json:"max_exceeding"`
	// Lower and Upper bound P_Q,opt, tokens.
	Lower         int64 `json:"lower_bound"`
	Upper         int64 `json:"upper_bound"`
	ProvenOptimal bool  `json:"proven_optimal"`
	// RelativeWidth is (Upper − Lower)/Upper (0 when Upper is 0).
	RelativeWidth float64 `json:"relative_width"`
	// Windows, WindowTurns, SeamTurns and Turns are as in SLOBounds.
	Windows     int `json:"windows"`
	WindowTurns int `json:"window_turns"`
	SeamTurns   int `json:"seam_turns"`
	Turns       int `json:"turns"`
	// UpperMode is as in SLOBounds: how hard the windows' upper ends
	// were searched (empty: full).
	UpperMode string `json:"upper_mode,omitempty"`
	// LowerOverlap is as in SLOBounds: how far back each window's
	// relaxation reached, steps (0: not, and then absent).
	LowerOverlap int `json:"lower_overlap_turns,omitempty"`
}

// PercentileBounds bound the lowest Q-th nearest-rank percentile of
// uncached tokens over the admissible schedules of a whole trace
// (optional caching): Lower ≤ P_Q,opt ≤ Upper, tokens, from windowed SLO
// intervals at thresholds τ (RunPercentile).
type PercentileBounds struct {
	PercentileInterval
	// Start are the bounds before any probe, tokens: the rank-th smallest
	// least possible uncached count, and the empty schedule's percentile.
	StartLower int64 `json:"start_lower_bound"`
	StartUpper int64 `json:"start_upper_bound"`
	// Probes are the thresholds tried, in order.
	Probes []Probe `json:"probes,omitempty"`
}

// Probe is one threshold τ tried: what was asked of the windowed SLO
// bounds at τ and what they decided.
type Probe struct {
	// Tau is the threshold, tokens; Mode "both", "lower" (only a proof
	// that P_Q > τ is sought) or "upper" (only a schedule with P_Q ≤ τ).
	Tau  int64  `json:"tau_tokens"`
	Mode string `json:"mode"`
	// Lower and Upper are the windowed bounds on the fewest violations at
	// τ, turns (only the one sought is computed; the run stops at the
	// first window that decides, so the sums may cover part of the trace).
	Lower int `json:"lower_violations,omitempty"`
	Upper int `json:"upper_violations,omitempty"`
	// Decided is "achieved" (P_Q ≤ τ; Quantile is the stitched schedule's
	// own percentile, tokens), "too low" (P_Q > τ) or "undecided".
	Decided  string `json:"decided"`
	Quantile int64  `json:"schedule_percentile_tokens,omitempty"`
}

// PercentileOptions say how RunPercentile cuts the trace and searches.
type PercentileOptions struct {
	// SLO are the windows' settings (Params, WindowTurns, SeamTurns,
	// Solver; SLOTokens, Mine and Schedule are not used).
	SLO SLOOptions
	// Objective is the percentile (objective.Percentile, Q in (0, 100)).
	Objective objective.Objective
	// MaxProbes bounds the thresholds tried (0: until the interval is
	// one token wide or no probe can narrow it).
	MaxProbes int
}

// RunPercentile bounds the lowest Q-th percentile of uncached tokens of
// the trace open returns (each call a fresh reader from the first turn,
// closed by the function returned) by windowed SLO intervals, each probe
// a pass over the trace:
//
//   - Pass 0 counts the turns K, so the rank R = Objective.Rank(K) and M =
//     K − R, and starts the interval: no schedule gives turn k fewer
//     uncached tokens than ℓ_k (D_k on a first turn, max(0, D_k −
//     B·min(⌊H_k/B⌋, C/B)) otherwise), so P_Q ≥ the R-th smallest ℓ_k;
//     caching nothing is admissible, so P_Q ≤ the R-th smallest D_k.
//   - P_Q ≤ τ iff some admissible schedule has at most M turns above τ,
//     i.e. iff V(τ) ≤ M, V(τ) the fewest violations of SLO τ. The
//     windowed interval [L(τ), U(τ)] ∋ V(τ) decides τ when U(τ) ≤ M (the
//     stitched schedule, admissible, has at most M turns above τ, so its
//     own percentile q ≤ τ bounds P_Q from above) or L(τ) > M (every
//     schedule has more than M turns above τ: P_Q > τ, and since V is
//     non-increasing in τ, P_Q > τ' for every τ' ≤ τ). Neither needs L
//     or U to be monotone in τ.
//   - The search narrows the open interval (lo, hi) of thresholds not yet
//     decided (lo the largest τ proven too low, hi the least percentile
//     achieved), by midpoints and, every other probe, interpolation of
//     the counts at its two ends; a probe that decides neither splits it: below it only
//     proofs are sought (Lower only, each window's relaxation), above it
//     only schedules (restrictions and seams only). A probe stops reading
//     as soon as its partial sums decide it (lower sums only grow; an
//     upper sum above M can no longer come under it).
//
// The answer is [lo + 1, hi], tokens, certified both ways whatever the
// probes decided; MaxProbes or the context stopping the search leaves it
// wider, never wrong.
func RunPercentile(ctx context.Context, open func() (TurnReader, func(), error), o PercentileOptions) (*PercentileBounds, error) {
	if o.Objective.Kind != objective.Percentile || !(o.Objective.Q > 0 && o.Objective.Q < 100) {
		return nil, fmt.Errorf("window: percentile %v is not in (0, 100)", o.Objective.Q)
	}
	p := o.SLO.Params
	if p.Forced {
		return nil, errors.New("window: windowed percentile bounds are for optional caching only")
	}
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("window: %w", err)
	}
	// Pass 0.
	iv, startLower, startUpper, err := startInterval(open, o.SLO, o.Objective)
	if err != nil {
		return nil, err
	}
	M, turns, rank := iv.MaxExceeding, iv.Turns, iv.Rank
	r := &PercentileBounds{PercentileInterval: iv, StartLower: startLower, StartUpper: startUpper, Probes: []Probe{}}
	lo, hi := r.StartLower-1, r.StartUpper

	const (
		proofs    = objective.ProofsOnly
		schedules = objective.SchedulesOnly
	)
	modeName := map[objective.ProbeMode]string{objective.EitherWay: "both", proofs: "lower", schedules: "upper"}
	probe := func(tau int64, mode objective.ProbeMode) (Probe, error) {
		pr := Probe{Tau: tau, Mode: modeName[mode]}
		src, done, err := open()
		if err != nil {
			return pr, err
		}
		defer done()
		so := o.SLO
		so.SLOTokens, so.Mine, so.Schedule, so.PerWindow = tau, nil, nil, false
		so.skipLower, so.skipUpper = mode == schedules, mode == proofs
		stopped := false
		so.stopped = &stopped
		so.stop = func(l, u int) bool { return l > M || mode == schedules && u > M }
		var hist []int64 // the stitched schedule's uncached tokens per turn
		if mode != proofs {
			so.hook = func(w *Window, x []int64) {
				for j, t := range w.Turns {
					hist = append(hist, w.History[j]+t.Prompt-x[j])
				}
			}
		}
		b, err := RunSLOWith(ctx, src, so)
		if err != nil {
			return pr, err
		}
		pr.Lower, pr.Upper = b.Lower, b.Upper
		switch {
		case mode != schedules && b.Lower > M:
			pr.Decided = "too low"
		case mode != proofs && !stopped && b.Upper <= M:
			if len(hist) != turns {
				return pr, fmt.Errorf("window: the trace had %d turns, now %d (changed while read?)", turns, len(hist))
			}
			slices.Sort(hist)
			pr.Decided, pr.Quantile = "achieved", hist[rank-1]
			if pr.Quantile > tau {
				return pr, fmt.Errorf("window: the stitched schedule at τ = %d tokens has %d violations but percentile %d (a bug)", tau, b.Upper, pr.Quantile)
			}
		default:
			pr.Decided = "undecided"
		}
		return pr, nil
	}
	// seen holds each probed τ's (partial) sums, turns, as a guide for
	// pick; steps counts the picks.
	seen := map[int64]Probe{}
	steps := 0
	// pick chooses the next τ in (a, b): on every other step, when both
	// ends were probed, where the line through their sums (the lower's
	// when only proofs are sought, the upper's when only schedules, their
	// mean otherwise) crosses M + ½ — the windowed counts move almost
	// linearly in τ over a narrow interval, as lp/slo.Percentile finds
	// whole — and the midpoint otherwise, so the interval at least halves
	// every two probes. Which τ is probed never affects what is certified.
	pick := func(a, b int64, mode objective.ProbeMode) int64 {
		mid := a + (b-a)/2
		steps++
		pa, oka := seen[a]
		pb, okb := seen[b]
		if steps%2 == 0 || !oka || !okb {
			return mid
		}
		val := func(pr Probe) float64 {
			switch mode {
			case proofs:
				return float64(pr.Lower)
			case schedules:
				return float64(pr.Upper)
			}
			return float64(pr.Lower+pr.Upper) / 2
		}
		target, va, vb := float64(M)+0.5, val(pa), val(pb)
		if !(va > target && target > vb) {
			return mid
		}
		t := float64(a) + (va-target)/(va-vb)*float64(b-a)
		return min(max(int64(math.Round(t)), a+1), b-1)
	}
	// The τ search itself is objective.TauSearch's, as in lp/slo and
	// lp/prefixtail; an achieved probe lowers the upper end to its
	// stitched schedule's own percentile, which can lie below τ.
	ts := objective.TauSearch[int64]{Lo: lo, Hi: hi, MaxProbes: o.MaxProbes}
	err = ts.Run(ctx, pick, func(mid int64, mode objective.ProbeMode) (objective.Verdict, error) {
		pr, err := probe(mid, mode)
		if err != nil {
			return objective.Undecided, err
		}
		r.Probes = append(r.Probes, pr)
		seen[mid] = pr
		switch pr.Decided {
		case "achieved":
			ts.Hi = min(ts.Hi, pr.Quantile)
			return objective.Achieved, nil
		case "too low":
			return objective.TooLow, nil
		}
		return objective.Undecided, nil
	})
	if err != nil {
		return nil, err
	}
	lo, hi = ts.Lo, ts.Hi
	if err = ctx.Err(); err != nil && len(r.Probes) == 0 {
		return nil, err
	}
	r.Lower, r.Upper = lo+1, hi
	if r.Lower > r.Upper {
		return nil, fmt.Errorf("window: percentile bounds %d > %d tokens (a bug)", r.Lower, r.Upper)
	}
	r.ProvenOptimal = r.Lower == r.Upper
	if r.Upper > 0 {
		r.RelativeWidth = float64(r.Upper-r.Lower) / float64(r.Upper)
	}
	return r, nil
}

// startInterval is pass 0 of a windowed search for the percentile q: the
// interval's settings (rank, turns, windows) and its start, the rank-th
// smallest least possible uncached count and the rank-th smallest load
// (tokens), which bound the percentile before any probe.
func startInterval(open func() (TurnReader, func(), error), o SLOOptions, q objective.Objective) (iv PercentileInterval, lower, upper int64, err error) {
	least, load, windows, err := passZero(open, o)
	if err != nil {
		return iv, 0, 0, err
	}
	turns := len(load)
	if turns == 0 {
		return iv, 0, 0, errors.New("window: percentile of an empty trace")
	}
	rank := q.Rank(turns)
	slices.Sort(least)
	slices.Sort(load)
	iv = PercentileInterval{Q: q.Q, Rank: rank, MaxExceeding: turns - rank, Windows: windows,
		WindowTurns: o.WindowTurns, SeamTurns: o.SeamTurns, Turns: turns, LowerOverlap: max(0, min(o.LowerOverlap, o.WindowTurns))}
	if o.Upper != UpperFull {
		iv.UpperMode = o.Upper.String()
	}
	return iv, least[rank-1], load[rank-1], nil
}

// passZero reads the trace open returns once, without solving anything,
// and returns each turn's least possible uncached count ℓ_k (D_k on a
// first turn, max(0, D_k − B·min(⌊H_k/B⌋, C/B)) otherwise) and its load
// D_k = H_k + p_k, tokens, in trace order, and the number of windows of
// o.WindowTurns steps: what the τ search's first bounds need.
func passZero(open func() (TurnReader, func(), error), o SLOOptions) (least, load []int64, windows int, err error) {
	p := o.Params
	src, done, err := open()
	if err != nil {
		return nil, nil, 0, err
	}
	defer done()
	sp, err := NewSplitter(src, o.WindowTurns)
	if err != nil {
		return nil, nil, 0, err
	}
	for {
		w, err := sp.Next()
		if errors.Is(err, io.EOF) {
			return least, load, windows, nil
		}
		if err != nil {
			return nil, nil, 0, err
		}
		windows++
		for j, t := range w.Turns {
			d := w.History[j] + t.Prompt
			l := d
			if w.Prev[j] >= 0 {
				l = max(0, d-p.BlockSize*min(w.History[j]/p.BlockSize, p.Capacity/p.BlockSize))
			}
			load, least = append(load, d), append(least, l)
		}
	}
}
