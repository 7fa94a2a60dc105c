package lp

// BuildCompact builds the compact formulation. For every turn n with a
// previous turn p of the same conversation ("the pair (p, n)") it has
//
//   - z_n ∈ ℕ, blocks carried from turn p to turn n (x_n = B·z_n), with
//     0 ≤ z_n ≤ min(⌊H_n/B⌋, C/B); under forced caching with n = p+1 (no
//     other turn in between to evict at) z_n is fixed at min(⌊H_n/B⌋, C/B);
//   - u_n ≥ 0 real, tokens, with u_n + B·z_n ≥ D_n − ξ: turn n's excess;
//
// and minimizes Σ u_n + Σ_{first turns f} max(D_f − ξ, 0) (the Offset).
//
// Steps: step t is the arrival of turn t (0-based) and its capacity row
// holds after turn t's update. Since an amount can only shrink between a
// conversation's turns, the least occupancy that delivers z_n is to hold
// exactly z_n from the update after p until n arrives, i.e. over steps
// p..n−1 (optional caching); under forced caching the conversation holds
// its whole history F_p = min(⌊H_n/B⌋, C/B) blocks at step p, then z_n over
// steps p+1..n−1. Capacity: at every step t, Σ_{pairs spanning t} z ≤ cap_t
// with cap_t = C/B (optional) or C/B − F_t (forced: turn t's conversation
// holds F_t at step t).
//
// By default the capacity is written as running-balance rows: a free
// capacity column f_t ≥ 0 per step and f_t − f_{t−1} + Σ_{pairs starting
// at t} z − Σ_{pairs that ended at t−1} z = cap_t − cap_{t−1}, which is the
// difference of consecutive interval rows (an invertible row operation, so
// the feasible set in z and the LP relaxation are the same) and has O(K)
// non-zeros instead of Σ spans. BuildOptions.IntervalRows writes the
// interval rows themselves.
func BuildCompact(in *Instance, opt BuildOptions) *Model {
	K := in.K()
	phi := float64(in.Blocks())
	capAt := func(t int) float64 {
		if t < 0 {
			return 0
		}
		if in.Forced {
			return phi - float64(in.MaxKeep(t))
		}
		return phi
	}
	var b builder
	for t := 0; t < K; t++ {
		if opt.IntervalRows {
			b.row(-inf, capAt(t))
		} else {
			d := capAt(t) - capAt(t-1)
			b.row(d, d)
		}
	}
	m := &Model{Formulation: Compact, blockCol: make([]int, K), in: in}
	bf := float64(in.BlockSize)
	for n := 0; n < K; n++ {
		m.blockCol[n] = -1
		p := in.Prev[n]
		if p < 0 {
			m.Offset += in.Excess(n, 0)
			continue
		}
		zmax := float64(in.MaxKeep(p))
		lo, first, last := 0.0, p, n-1 // steps spanned
		if in.Forced {
			first = p + 1
			if n == p+1 {
				lo = zmax
			}
		}
		slack := b.row(float64(in.Load(n))-in.Xi, inf)
		var rows []int
		var vals []float64
		if first <= last {
			if opt.IntervalRows {
				for t := first; t <= last; t++ {
					rows = append(rows, t)
					vals = append(vals, 1)
				}
			} else {
				rows = append(rows, first)
				vals = append(vals, 1)
				if last+1 < K {
					rows = append(rows, last+1)
					vals = append(vals, -1)
				}
			}
		}
		rows = append(rows, slack)
		vals = append(vals, bf)
		m.blockCol[n] = b.col(0, lo, zmax, true, rows, vals)
		b.col(1, 0, inf, false, []int{slack}, []float64{1})
	}
	if !opt.IntervalRows {
		for t := 0; t < K; t++ {
			rows, vals := []int{t}, []float64{1}
			if t+1 < K {
				rows, vals = append(rows, t+1), append(vals, -1)
			}
			b.col(0, 0, inf, false, rows, vals)
		}
	}
	m.Problem = b.done()
	m.Conditions = compactReadings(in, opt)
	return m
}

func compactReadings(in *Instance, opt BuildOptions) []Condition {
	c := []Condition{
		{"steps", "step t = arrival of turn t; capacity holds after each turn's update"},
		{"pairs", "z = blocks carried from a turn to its conversation's next turn, held over the steps in between (it can only shrink there)"},
		{"first-turns", "a conversation's first turn finds nothing cached: its excess max(D−ξ,0) is a constant"},
		{"exact-excess", "u real ≥ 0 in tokens: u + B·z ≥ D − ξ"},
	}
	if opt.IntervalRows {
		c = append(c, Condition{"interval-rows", "one capacity row per step over the pairs spanning it"})
	} else {
		c = append(c, Condition{"balance-rows", "capacity as running-balance rows with a free-capacity column per step (row differences of the interval rows)"})
	}
	if in.Forced {
		c = append(c, Condition{"forced", "the served conversation holds min(⌊H/B⌋, C/B) blocks at its own step; the carried amount is at most that, and equal to it when the next turn follows at once"})
	}
	return c
}
