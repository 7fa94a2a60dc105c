package lp

import (
	"fmt"
	"io"
)

// A schedule is given by the cached amount x_k (tokens) every turn finds at
// its arrival; the least cache occupancy that realizes it is implied: turn
// k's conversation holds x_{next(k)} from step k until its next turn
// (optional caching), or holds its whole new history at step k and
// x_{next(k)} after (forced caching). Holding more would only use capacity.

// TEL returns Σ_k max(D_k − x_k − ξ, 0) tokens of the schedule cached.
func (in *Instance) TEL(cached []int64) float64 {
	s := 0.0
	for k := range in.Turns {
		s += in.Excess(k, cached[k])
	}
	return s
}

// CheckSchedule reports the first rule the schedule breaks: amounts in
// whole blocks, nothing cached at a conversation's first turn, at most the
// history ⌊H_k/B⌋·B, forced caching's fixed amounts, and total occupancy at
// most C after every step's update.
func (in *Instance) CheckSchedule(cached []int64) error {
	if len(cached) != in.K() {
		return fmt.Errorf("schedule has %d turns, trace %d", len(cached), in.K())
	}
	b := in.BlockSize
	delta := make([]int64, in.K()+1) // occupancy changes, blocks, by step
	for k := range in.Turns {
		x := cached[k]
		switch {
		case x < 0 || x%b != 0:
			return fmt.Errorf("turn %d: %d tokens is not a whole number of %d-token blocks", k, x, b)
		case in.Prev[k] < 0 && x != 0:
			return fmt.Errorf("turn %d: first turn of its conversation finds %d tokens cached", k, x)
		case x > in.History[k]:
			return fmt.Errorf("turn %d: %d tokens cached exceed the history %d", k, x, in.History[k])
		}
		if p := in.Prev[k]; p >= 0 {
			f := in.MaxKeep(p) * b
			switch {
			case x > f:
				return fmt.Errorf("turn %d: %d tokens cached exceed what turn %d could keep (%d)", k, x, p, f)
			case in.Forced && k == p+1 && x != f:
				return fmt.Errorf("turn %d: forced caching: turn %d kept %d tokens, %d found", k, p, f, x)
			}
			if !in.Forced {
				delta[p] += x / b
				delta[k] -= x / b
			} else if k > p+1 {
				delta[p+1] += x / b
				delta[k] -= x / b
			}
		}
	}
	var load int64
	for t := range in.Turns {
		load += delta[t]
		occ := load
		if in.Forced {
			occ += in.MaxKeep(t)
		}
		if occ > in.Blocks() {
			return fmt.Errorf("step %d: %d blocks cached exceed the capacity %d", t, occ, in.Blocks())
		}
	}
	return nil
}

// WriteSchedule writes the schedule as CSV: one line per turn with its
// index, conversation, history, load, cached and uncached tokens and its
// excess (tokens).
func (in *Instance) WriteSchedule(w io.Writer, names []string, cached []int64) error {
	if _, err := fmt.Fprintln(w, "turn,conv,history_tokens,load_tokens,cached_tokens,uncached_tokens,excess_tokens"); err != nil {
		return err
	}
	for k, t := range in.Turns {
		name := fmt.Sprint(t.Conv)
		if t.Conv < len(names) {
			name = names[t.Conv]
		}
		d := in.Load(k)
		if _, err := fmt.Fprintf(w, "%d,%q,%d,%d,%d,%d,%g\n", k, name, in.History[k], d, cached[k], d-cached[k], in.Excess(k, cached[k])); err != nil {
			return err
		}
	}
	return nil
}
