package lp

import (
	"errors"
	"fmt"
	"math"
)

// buildPaper builds the tail-latency paper's program over x_{i,t} for every
// conversation i and step t = 1..T (T = K; paper step t is the arrival of
// turn t−1 in 0-based trace order), with u_{i,t} for t ∈ T_i (the steps of
// i's own turns). Lengths in the paper are in blocks; here a length of L
// tokens is L/B blocks and ξ tokens is ξ/B blocks.
//
// As printed (asWritten), every constraint and nothing else:
//
//	(4) Σ_i x_{i,t} ≤ C/B                         ∀ t ∈ [T]
//	(5) x_{i,t+1} ≤ Σ_{j≤t} (q_{i,j} + a_{i,j})    ∀ i, t ∈ T_i, t < T
//	(6) x_{i,t+1} ≤ x_{i,t}                        ∀ i, t ∉ T_i, t < T
//	    u_{i,t} ≥ Σ_{j≤t} q_{i,j} + Σ_{j<t} a_{i,j} − x_{i,t} − ξ   ∀ i, t ∈ T_i
//	    x, u ∈ ℕ;  minimize Σ u (blocks; TEL tokens = B·Σu)
//
// (5) is a single-variable constraint and is written as x_{i,t+1}'s upper
// bound. Its right side is the history including turn t's response (the
// sum runs to j = t), in blocks (fractional when B does not divide it).
// Forced caching is not part of the printed program; asWritten refuses it.
//
// The paper formulation adds PaperConditions.
func buildPaper(in *Instance, asWritten bool, opt BuildOptions) (*Model, error) {
	if asWritten && in.Forced {
		return nil, errors.New("paper-as-written: the printed program is optional caching only; use --formulation paper or compact for forced caching")
	}
	N, T := in.Conversations, in.K()
	maxCells := opt.MaxCells
	if maxCells == 0 {
		maxCells = DefaultMaxCells
	}
	if cells := int64(N) * int64(T); cells > maxCells {
		return nil, fmt.Errorf("%w: %d conversations × %d steps = %d x-variables, above the limit of %d (about 90 bytes each)", ErrTooLarge, N, T, cells, maxCells)
	}
	bf := float64(in.BlockSize)
	phi := float64(in.Blocks())
	var b builder
	// Rows: capacity (4) for t = 1..T, then per (i, t ∉ T_i, t < T) a
	// no-growth row (6), then a slack row per turn.
	for t := 1; t <= T; t++ {
		b.row(-inf, phi)
	}
	ownTurn := func(t int) int { return in.Turns[t-1].Conv } // the i with t ∈ T_i
	// growRow[i][t] is the row of x_{i,t+1} ≤ x_{i,t}; stored flat.
	growRow := make([]int32, N*T)
	for i := 0; i < N; i++ {
		for t := 1; t < T; t++ {
			growRow[i*T+t-1] = -1
			if ownTurn(t) != i {
				growRow[i*T+t-1] = int32(b.row(-inf, 0))
			}
		}
	}
	slackRow := make([]int, T+1)
	for t := 1; t <= T; t++ {
		k := t - 1
		if asWritten {
			slackRow[t] = b.row((float64(in.Load(k))-in.Xi)/bf, inf)
		} else {
			slackRow[t] = b.row(float64(in.Load(k))-in.Xi, inf)
		}
	}
	m := &Model{blockCol: make([]int, T), in: in}
	if asWritten {
		m.Formulation = PaperAsWritten
	} else {
		m.Formulation = Paper
	}
	var rows []int
	var vals []float64
	for i := 0; i < N; i++ {
		for t := 1; t <= T; t++ {
			rows, vals = rows[:0], vals[:0]
			rows, vals = append(rows, t-1), append(vals, 1) // (4) at t
			if t < T {
				if r := growRow[i*T+t-1]; r >= 0 { // x_{i,t} on the right of (6) at t
					rows, vals = append(rows, int(r)), append(vals, -1)
				}
			}
			if t > 1 {
				if r := growRow[i*T+t-2]; r >= 0 { // x_{i,t} on the left of (6) at t−1
					rows, vals = append(rows, int(r)), append(vals, 1)
				}
			}
			if ownTurn(t) == i { // in the slack row of its own turn
				if asWritten {
					rows, vals = append(rows, slackRow[t]), append(vals, 1)
				} else {
					rows, vals = append(rows, slackRow[t]), append(vals, bf)
				}
			}
			lo, up := 0.0, inf
			if t > 1 && ownTurn(t-1) == i { // (5) for t−1 ∈ T_i
				h := float64(in.After(t - 2))
				if asWritten {
					up = h / bf
				} else {
					up = math.Floor(h / bf) // whole-block-history
					if in.Forced {
						lo = float64(in.MaxKeep(t - 2))
						up = lo
					}
				}
			}
			if !asWritten && t <= in.First[i]+1 { // empty-start: x_{i,t} = 0 up to i's first turn
				lo, up = 0, 0
			}
			j := b.col(0, lo, up, true, rows, vals)
			if ownTurn(t) == i {
				m.blockCol[t-1] = j
			}
		}
	}
	for t := 1; t <= T; t++ {
		if asWritten {
			b.col(bf, 0, inf, true, []int{slackRow[t]}, []float64{1})
		} else {
			b.col(1, 0, inf, false, []int{slackRow[t]}, []float64{1})
		}
	}
	m.Problem = b.done()
	if asWritten {
		m.Conditions = PaperReadings()
	} else {
		m.Conditions = PaperConditions(in.Forced)
		for t := 1; t <= T; t++ { // x at a first turn is fixed at 0
			if in.Prev[t-1] < 0 {
				m.blockCol[t-1] = -1
			}
		}
	}
	return m, nil
}

// PaperReadings are the readings paper-as-written makes of the printed
// text.
func PaperReadings() []Condition {
	return []Condition{
		{"steps", "paper step t = arrival of turn t (1-based); x_{i,t} is i's cache before that arrival, i.e. after the previous turn's update"},
		{"blocks", "lengths in blocks: L tokens = L/B blocks (fractional when B does not divide L); ξ tokens = ξ/B blocks"},
		{"history-bound", "(5) sums q+a up to j = t, i.e. includes turn t's response; written as x_{i,t+1}'s upper bound"},
		{"integer-slack", "u ∈ ℕ as printed: each turn's excess is rounded up to whole blocks (overstates TEL when ξ/B or a length/B is fractional)"},
		{"no-start-condition", "nothing fixes x_{i,t} before i's first turn: the printed program lets a first turn find cache"},
	}
}

// PaperConditions are the conditions the paper formulation adds to the
// printed program, which the model (SPEC §2) implies.
func PaperConditions(forced bool) []Condition {
	c := []Condition{
		{"empty-start", "x_{i,t} = 0 up to and including i's first turn: nothing of a conversation is cached before it has a history"},
		{"whole-block-history", "(5) with ⌊history/B⌋ blocks: amounts are whole blocks (tightens the LP relaxation; implied in the IP)"},
		{"exact-excess", "u real ≥ 0 in tokens with u + B·x ≥ D − ξ: the excess exactly, not rounded up to blocks"},
	}
	if forced {
		c = append(c, Condition{"forced", "x_{i,t+1} = min(⌊history/B⌋, C/B) for t ∈ T_i: the served conversation keeps its whole history"})
	}
	return c
}
