package window

import (
	"context"
	"errors"
	"fmt"

	"github.com/tailbound/tailbound/models/objective"
)

// RoundOptions say how the τ search of a percentile runs in rounds
// (StartRounds, RunRounds): each round probes several thresholds at once,
// so that the windows of a round can be solved by independent tasks.
type RoundOptions struct {
	// SLO are the windows' settings (Params, optional caching,
	// WindowTurns, SeamTurns, LowerOverlap, Solver; the rest is not
	// used).
	SLO SLOOptions
	// Objective is the percentile (objective.Percentile, Q in (0, 100)).
	Objective objective.Objective
	// PerRound is the thresholds probed per round, ≥ 1.
	PerRound int
	// MaxProbes bounds the thresholds probed in all (0: until the
	// interval closes or no threshold is left to probe).
	MaxProbes int
}

// Rounds is the τ search of a percentile run as rounds, and its state
// between rounds (what a Slurm chain writes to its state file): the
// interval so far, the rounds done and the thresholds of the next.
//
// What it certifies. With K turns, rank R and M = K − R, each round's
// thresholds are decided by SumGrid's rule on the windowed SLO bounds
// summed over every window: τ too low (L(τ) > M) proves P_Q,opt > τ, τ
// achieved (U(τ) ≤ M) proves P_Q,opt ≤ τ. Lower is 1 + the largest τ
// too low in any round, or StartLower (the R-th smallest least possible
// uncached count) if larger; Upper is the least τ achieved in any round,
// or StartUpper (the R-th smallest load, caching nothing) if smaller. So
// Lower ≤ P_Q,opt ≤ Upper whatever thresholds the rounds chose: they
// only decide how narrow the interval gets. It is the interval of
// window.SumGrid over every threshold probed, intersected with the start
// bounds — not RunPercentile's, whose single probes (midpoints and
// interpolations, each stopping early, an achieved one lowering Upper to
// its schedule's own percentile) differ; both are certified, and so is
// their intersection.
type Rounds struct {
	PercentileInterval
	// Objective is the percentile as objective.Parse reads it ("p99").
	Objective string `json:"objective"`
	// StartLower and StartUpper are the bounds before any probe, tokens
	// (as in PercentileBounds).
	StartLower int64 `json:"start_lower_bound"`
	StartUpper int64 `json:"start_upper_bound"`
	// PerRound and MaxProbes are RoundOptions'.
	PerRound  int `json:"thresholds_per_round"`
	MaxProbes int `json:"max_probes"`
	// Done are the rounds run, each its thresholds ascending with their
	// summed bounds and verdicts.
	Done [][]GridProbe `json:"rounds"`
	// Next are the thresholds of the next round, tokens, ascending; empty
	// when the search is over.
	Next []int64 `json:"next_taus_tokens"`
}

// StartRounds reads the trace once (no solve: each turn's least
// possible uncached count and its load, as RunPercentile's pass 0) and
// returns the search's state before its first round, with that round's
// thresholds in Next (none when the start bounds already meet).
func StartRounds(open func() (TurnReader, func(), error), o RoundOptions) (*Rounds, error) {
	switch {
	case o.Objective.Kind != objective.Percentile || !(o.Objective.Q > 0 && o.Objective.Q < 100):
		return nil, fmt.Errorf("window: percentile %v is not in (0, 100)", o.Objective.Q)
	case o.SLO.Params.Forced:
		return nil, errors.New("window: windowed percentile bounds are for optional caching only")
	case o.PerRound < 1:
		return nil, fmt.Errorf("window: %d thresholds per round, want ≥ 1", o.PerRound)
	case o.MaxProbes < 0:
		return nil, fmt.Errorf("window: at most %d probes, want ≥ 0", o.MaxProbes)
	}
	if err := o.SLO.Params.Validate(); err != nil {
		return nil, fmt.Errorf("window: %w", err)
	}
	iv, startLower, startUpper, err := startInterval(open, o.SLO, o.Objective)
	if err != nil {
		return nil, err
	}
	r := &Rounds{PercentileInterval: iv, Objective: o.Objective.String(), StartLower: startLower, StartUpper: startUpper,
		PerRound: o.PerRound, MaxProbes: o.MaxProbes, Done: [][]GridProbe{}}
	r.Lower, r.Upper = r.StartLower, r.StartUpper
	r.finish()
	r.plan()
	return r, nil
}

// Advance decides the thresholds r.Next from figs, every window's
// figures at them (RunPercentileGrid's, from one process or merged from
// shards), by SumGrid's rule, narrows the interval and plans the next
// round.
func (r *Rounds) Advance(figs []GridFigures) error {
	if len(r.Next) == 0 {
		return errors.New("window: the search is over; no round to advance")
	}
	q, err := objective.Parse(r.Objective)
	if err != nil {
		return fmt.Errorf("window: %w", err)
	}
	b, err := SumGrid(figs, r.Next, r.Turns, q, r.WindowTurns, r.SeamTurns)
	if err != nil {
		return err
	}
	if b.Windows != r.Windows {
		return fmt.Errorf("window: %d windows' figures, the trace has %d", b.Windows, r.Windows)
	}
	r.Lower, r.Upper = max(r.Lower, b.Lower), min(r.Upper, b.Upper)
	if r.Lower > r.Upper {
		return fmt.Errorf("window: percentile bounds %d > %d tokens after round %d (a bug)", r.Lower, r.Upper, len(r.Done)+1)
	}
	r.Done = append(r.Done, b.Probes)
	r.finish()
	r.plan()
	return nil
}

// finish sets ProvenOptimal and RelativeWidth from Lower and Upper.
func (r *Rounds) finish() {
	r.ProvenOptimal = r.Lower == r.Upper
	r.RelativeWidth = 0
	if r.Upper > 0 {
		r.RelativeWidth = float64(r.Upper-r.Lower) / float64(r.Upper)
	}
}

// Probes is the number of thresholds probed so far.
func (r *Rounds) Probes() int {
	n := 0
	for _, d := range r.Done {
		n += len(d)
	}
	return n
}

// plan sets Next, the next round's thresholds. The thresholds not yet
// decided are lo < τ < hi (lo = Lower − 1, hi = Upper). When an earlier
// round left thresholds undecided in there (L(τ) ≤ M < U(τ)), the least a
// and the largest b of them split the search as RunPercentile's does: a
// proof is sought in (lo, a), a schedule in (b, hi), each given half the
// round (the odd one to the lower part on even rounds, to the upper on
// odd ones, so that one threshold per round still serves both); a part
// with fewer thresholds left than its share gives the rest to the other.
// Within a part [x, y] the m thresholds split (x − 1, y + 1) into m + 1
// near-equal steps (every integer when m ≥ y − x + 1). At most MaxProbes
// in all.
func (r *Rounds) plan() {
	r.Next = nil
	k := r.PerRound
	if r.MaxProbes > 0 {
		k = min(k, r.MaxProbes-r.Probes())
	}
	lo, hi := r.Lower-1, r.Upper
	if k <= 0 || lo+1 >= hi {
		return
	}
	a, b := hi, lo
	for _, d := range r.Done {
		for _, p := range d {
			if p.Decided == "undecided" && lo < p.Tau && p.Tau < hi {
				a, b = min(a, p.Tau), max(b, p.Tau)
			}
		}
	}
	if a == hi { // nothing undecided: one part
		r.Next = spread(lo+1, hi-1, int64(k))
		return
	}
	nL, nU := max(0, a-1-lo), max(0, hi-1-b) // thresholds left in each part
	kL := int64(k / 2)
	if len(r.Done)%2 == 0 {
		kL = int64(k+1) / 2
	}
	kU := int64(k) - kL
	if kL > nL {
		kL, kU = nL, kU+kL-nL
	}
	if kU > nU {
		kL, kU = min(kL+kU-nU, nL), nU
	}
	r.Next = append(spread(lo+1, a-1, kL), spread(b+1, hi-1, kU)...)
}

// spread returns m thresholds in [x, y], ascending and distinct: every
// integer there when m ≥ y − x + 1, else x − 1 + ⌊i·(y − x + 2)/(m + 1)⌋
// for i = 1 … m, which splits (x − 1, y + 1) into m + 1 steps of at least
// one.
func spread(x, y, m int64) []int64 {
	if m <= 0 || y < x {
		return nil
	}
	n := y - x + 1
	if m >= n {
		out := make([]int64, 0, n)
		for t := x; t <= y; t++ {
			out = append(out, t)
		}
		return out
	}
	out := make([]int64, m)
	for i := range out {
		out[i] = x - 1 + int64(i+1)*(n+1)/(m+1)
	}
	return out
}

// RunRounds runs the search of o in rounds in one process: StartRounds,
// then each round's thresholds solved on every window by
// RunPercentileGrid (a pass over the trace per threshold) and Advance,
// until Next is empty. Shards that solve disjoint windows of a round and
// whose figures are merged give the same state, round after round, since
// the figures add up (RunPercentileGrid): the Slurm chain's answer is
// this one's.
func RunRounds(ctx context.Context, open func() (TurnReader, func(), error), o RoundOptions) (*Rounds, error) {
	r, err := StartRounds(open, o)
	if err != nil {
		return nil, err
	}
	so := o.SLO
	so.Mine = nil
	for len(r.Next) > 0 {
		figs, err := RunPercentileGrid(ctx, open, GridOptions{SLO: so, Taus: r.Next})
		if err != nil {
			return nil, fmt.Errorf("round %d: %w", len(r.Done)+1, err)
		}
		if err := r.Advance(figs); err != nil {
			return nil, err
		}
	}
	return r, nil
}
