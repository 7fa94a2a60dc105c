package window

import (
	"context"
	"errors"
	"fmt"

	"github.com/tailbound/tailbound/models/objective"
)

// GridFigures are one window's windowed SLO bounds at each threshold τ of
// a grid (RunPercentileGrid), turns, and its largest load, tokens: what a
// shard reports, per window, so that the windows' figures add up to the
// interval of the whole grid (SumGrid) wherever each window was solved.
type GridFigures struct {
	Index int `json:"index"`
	Start int `json:"start_step"`
	Turns int `json:"turns"`
	// Lower[i] and Upper[i] are SLOFigures.Lower and Upper at the grid's
	// i-th threshold: a lower bound on the violations of SLO τ_i among
	// the window's turns in any admissible schedule, and the violations
	// among them of the stitched schedule (the window's restriction with
	// the seam after it re-solved), turns.
	Lower []int `json:"lower_bounds"`
	Upper []int `json:"upper_bounds"`
	// LowerWeighted[i], with a lower overlap (nil without), is the
	// window's weighted bound at the i-th threshold (SLOFigures.
	// LowerWeighted), turns, a multiple of 1/RampDenominator; Lower[i] is
	// then its floor, and the windows' sum is ⌈Σ LowerWeighted[i]⌉.
	LowerWeighted []float64 `json:"lower_bounds_weighted,omitempty"`
	// MaxLoad is the largest D_k = H_k + p_k among the window's turns,
	// tokens (what turn k pays with nothing cached).
	MaxLoad int64 `json:"max_load_tokens"`
	// Seconds is the time the window's solves took, all thresholds.
	Seconds float64 `json:"seconds"`
}

// GridProbe is one threshold of a grid: the windowed bounds on the fewest
// violations at τ, summed over every window, and what they decide.
type GridProbe struct {
	// Tau is the threshold, tokens; Lower and Upper the summed bounds,
	// turns.
	Tau   int64 `json:"tau_tokens"`
	Lower int   `json:"lower_violations"`
	Upper int   `json:"upper_violations"`
	// Decided is "too low" (Lower > MaxExceeding: P_Q > τ), "achieved"
	// (Upper ≤ MaxExceeding: P_Q ≤ τ) or "undecided".
	Decided string `json:"decided"`
}

// GridBounds bound the lowest Q-th nearest-rank percentile of uncached
// tokens over the admissible schedules of a whole trace (optional
// caching) from windowed SLO intervals at a fixed grid of thresholds:
// Lower ≤ P_Q,opt ≤ Upper, tokens (SumGrid).
type GridBounds struct {
	PercentileInterval
	// MaxLoad is the largest load D_k of the trace, tokens: caching
	// nothing gives every turn at most that many uncached tokens.
	MaxLoad int64 `json:"max_load_tokens"`
	// Probes are the grid's thresholds, ascending.
	Probes []GridProbe `json:"probes"`
	// PerWindow are each window's figures (when kept).
	PerWindow []GridFigures `json:"per_window,omitempty"`
}

// GridOptions say how RunPercentileGrid cuts the trace and which
// thresholds it probes.
type GridOptions struct {
	// SLO are the windows' settings: Params (optional caching),
	// WindowTurns, SeamTurns, LowerOverlap, Solver, and Mine (a shard's
	// windows; nil: all). SLOTokens, PerWindow and Schedule are not used.
	SLO SLOOptions
	// Taus are the thresholds, tokens: ascending, distinct, ≥ 0.
	Taus []int64
}

// CheckTaus returns an error unless taus is a grid of thresholds: not
// empty, ascending, distinct, ≥ 0 tokens.
func CheckTaus(taus []int64) error {
	if len(taus) == 0 {
		return errors.New("no thresholds")
	}
	for i, t := range taus {
		if t < 0 {
			return fmt.Errorf("threshold %d tokens: want ≥ 0", t)
		}
		if i > 0 && t <= taus[i-1] {
			return fmt.Errorf("thresholds %d, %d tokens: want them ascending and distinct", taus[i-1], t)
		}
	}
	return nil
}

// RunPercentileGrid solves, for each threshold τ of o.Taus, the windowed
// SLO bounds of the windows o.SLO.Mine picks (all when nil) — one pass
// over the trace open returns per τ, RunSLOWith's, with its seams — and
// returns each window's figures at every τ, in window order. A window's
// figures need nothing from the other windows' tasks (RunSLOWith solves
// the next window's restriction itself for the seam), so the figures of
// shards that solve disjoint windows add up, by SumGrid, to the one
// process's: the τ search of RunPercentile, whose probes depend on the
// sums over every window, is replaced by a grid fixed in advance.
func RunPercentileGrid(ctx context.Context, open func() (TurnReader, func(), error), o GridOptions) ([]GridFigures, error) {
	if o.SLO.Params.Forced {
		return nil, errors.New("window: windowed percentile bounds are for optional caching only")
	}
	if err := CheckTaus(o.Taus); err != nil {
		return nil, fmt.Errorf("window: %w", err)
	}
	var figs []GridFigures
	for i, tau := range o.Taus {
		src, done, err := open()
		if err != nil {
			return nil, err
		}
		so := o.SLO
		so.SLOTokens, so.PerWindow, so.Schedule, so.hook = tau, true, nil, nil
		var loads []int64
		if i == 0 {
			so.hook = func(w *Window, _ []int64) {
				m := int64(0)
				for j, t := range w.Turns {
					m = max(m, w.History[j]+t.Prompt)
				}
				loads = append(loads, m)
			}
		}
		b, err := RunSLOWith(ctx, src, so)
		done()
		if err != nil {
			return nil, fmt.Errorf("threshold %d tokens: %w", tau, err)
		}
		if i == 0 {
			if len(loads) != len(b.PerWindow) {
				return nil, fmt.Errorf("window: %d windows' loads for %d windows (a bug)", len(loads), len(b.PerWindow))
			}
			for j, f := range b.PerWindow {
				figs = append(figs, GridFigures{Index: f.Index, Start: f.Start, Turns: f.Turns, MaxLoad: loads[j]})
			}
		}
		if len(b.PerWindow) != len(figs) {
			return nil, fmt.Errorf("window: %d windows at threshold %d tokens, %d at %d (the trace changed while read?)", len(b.PerWindow), tau, len(figs), o.Taus[0])
		}
		for j, f := range b.PerWindow {
			g := &figs[j]
			if f.Index != g.Index || f.Turns != g.Turns {
				return nil, fmt.Errorf("window: window %d has %d turns at threshold %d tokens, %d at %d (the trace changed while read?)", f.Index, f.Turns, tau, g.Turns, o.Taus[0])
			}
			g.Lower, g.Upper, g.Seconds = append(g.Lower, f.Lower), append(g.Upper, f.Upper), g.Seconds+f.Seconds
			if f.LowerWeighted != nil {
				g.LowerWeighted = append(g.LowerWeighted, *f.LowerWeighted)
			}
		}
	}
	return figs, nil
}

// SumGrid adds every window's figures (figs, the windows 0, 1, … in
// order, each with a figure per threshold of taus) into the interval
// around the lowest q-th percentile of uncached tokens. With K turns,
// rank R = q.Rank(K) and M = K − R, P_Q ≤ τ iff the fewest violations
// V(τ) ≤ M (RunPercentile), and the summed [L(τ), U(τ)] ∋ V(τ), so
//
//   - τ is too low when L(τ) > M: P_Q > τ, and P_Q > τ' for τ' ≤ τ;
//   - τ is achieved when U(τ) ≤ M: the stitched schedule, admissible,
//     has at most M turns above τ, so P_Q ≤ τ;
//
// and Lower = 1 + the largest τ too low (0 when none: no turn has fewer
// than 0 uncached tokens), Upper = the least τ achieved, or the trace's
// largest load when none is (caching nothing is admissible). A τ both
// too low and achieved, or an achieved τ below one too low, would need
// L(τ) > U(τ) or V increasing in τ: an error (a bug). Both ends are
// certified whatever the grid; a grid that straddles P_Q,opt closely
// gives a narrow interval. With a lower overlap every window carries its
// weighted bounds (LowerWeighted, or none does), and L(τ) is their sum
// rounded up once, as SumSLO's.
func SumGrid(figs []GridFigures, taus []int64, turns int, q objective.Objective, windowTurns, seamTurns int) (*GridBounds, error) {
	if q.Kind != objective.Percentile || !(q.Q > 0 && q.Q < 100) {
		return nil, fmt.Errorf("window: percentile %v is not in (0, 100)", q.Q)
	}
	if err := CheckTaus(taus); err != nil {
		return nil, fmt.Errorf("window: %w", err)
	}
	if turns < 1 {
		return nil, errors.New("window: percentile of an empty trace")
	}
	rank := q.Rank(turns)
	M := turns - rank
	b := &GridBounds{PercentileInterval: PercentileInterval{Q: q.Q, Rank: rank, MaxExceeding: M, Windows: len(figs), WindowTurns: windowTurns, SeamTurns: seamTurns}, PerWindow: figs}
	probes := make([]GridProbe, len(taus))
	for i, t := range taus {
		probes[i].Tau = t
	}
	weighted := len(figs) > 0 && figs[0].LowerWeighted != nil
	shares := make([]int64, len(taus)) // with an overlap: Σ of the weighted bounds, 1/RampDenominator turns
	for k, f := range figs {
		if f.Index != k || len(f.Lower) != len(taus) || len(f.Upper) != len(taus) {
			return nil, fmt.Errorf("window: window %d (of %d) has figures at %d and %d thresholds, want window %d at %d", f.Index, len(figs), len(f.Lower), len(f.Upper), k, len(taus))
		}
		if (f.LowerWeighted != nil) != weighted || weighted && len(f.LowerWeighted) != len(taus) {
			return nil, fmt.Errorf("window: window %d has weighted lower bounds at %d thresholds, window 0 at %d: every window at every threshold, or none", k, len(f.LowerWeighted), len(figs[0].LowerWeighted))
		}
		b.Turns += f.Turns
		b.MaxLoad = max(b.MaxLoad, f.MaxLoad)
		for i := range taus {
			probes[i].Lower += f.Lower[i]
			probes[i].Upper += f.Upper[i]
			if weighted {
				n, err := sharesOf(f.LowerWeighted[i])
				if err != nil {
					return nil, fmt.Errorf("window %d, threshold %d tokens: %w", k, taus[i], err)
				}
				shares[i] += n
			}
		}
	}
	if weighted {
		for i := range probes {
			probes[i].Lower = ceilShares(shares[i])
		}
	}
	if b.Turns != turns {
		return nil, fmt.Errorf("window: the windows hold %d turns, the trace %d", b.Turns, turns)
	}
	lo, hi := int64(-1), b.MaxLoad
	for i := range probes {
		p := &probes[i]
		low, ach := p.Lower > M, p.Upper <= M
		switch {
		case low && ach:
			return nil, fmt.Errorf("window: at τ = %d tokens the windowed bounds [%d, %d] are crossed (a bug)", p.Tau, p.Lower, p.Upper)
		case low:
			p.Decided, lo = "too low", max(lo, p.Tau)
		case ach:
			p.Decided, hi = "achieved", min(hi, p.Tau)
		default:
			p.Decided = "undecided"
		}
	}
	b.Probes = probes
	b.Lower, b.Upper = lo+1, hi
	if b.Lower > b.Upper {
		return nil, fmt.Errorf("window: percentile bounds %d > %d tokens (a bug)", b.Lower, b.Upper)
	}
	b.ProvenOptimal = b.Lower == b.Upper
	if b.Upper > 0 {
		b.RelativeWidth = float64(b.Upper-b.Lower) / float64(b.Upper)
	}
	return b, nil
}
