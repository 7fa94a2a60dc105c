package slo

import "context"

// Warm is what one solve of an instance hands to the next solve of the
// same instance at another SLO (the percentile search's probes): the
// schedule attaining its upper bound, and whatever state the lower-bound
// side chooses to keep between solves.
type Warm struct {
	// Schedule is x_k, tokens cached at each turn's arrival; nil: none.
	Schedule []int64
	// LPServe is the LP relaxation's y of the pair ending at each turn
	// (0 where none, nil when the LP was not solved): a solve without its
	// own LP steers its search by it (lns.go).
	LPServe []float64
	// lp holds the LP relaxation's final prices, the start of the next
	// solve's flow (nil when no LP was solved to the end).
	lp *lpPrices
	// Bound is state of the lower bound (cuts, multipliers) kept by the
	// side that computes it, opaque here; nil: none.
	Bound any
}

// fromSchedule returns the candidates x serves (x_n ≥ d_n·B), made
// feasible: while a step is over capacity, the served candidate spanning
// it with the largest demand leaves. x is a schedule of pr's instance
// (one entry per turn); a schedule of another SLO serves the candidates
// whose demand at this SLO it still covers.
func (pr *problem) fromSchedule(x []int64) []bool {
	K := pr.in.K()
	served := make([]bool, len(pr.cands))
	if len(x) != K || K == 0 {
		return served
	}
	for i, c := range pr.cands {
		served[i] = x[c.n] >= c.d*pr.in.BlockSize
	}
	st := pr.slackOf(served)
	idx := pr.newSpanIndex()
	var on []int
	for st.Max(0, K-1) > 0 {
		t := st.Argmax(0, K-1)
		out := -1
		on = idx.spanning(t, t, on)
		for _, i := range on {
			if served[i] && (out < 0 || pr.cands[i].d > pr.cands[out].d) {
				out = i
			}
		}
		if out < 0 {
			// cap_t < 0 cannot happen after reduce; stop rather than loop
			break
		}
		served[out] = false
		c := pr.cands[out]
		st.Add(c.a, c.n-1, -c.d)
	}
	return served
}

// warmServed is the served set of w's schedule, repaired and improved as
// the LP's rounding is; nil without a schedule.
func (pr *problem) warmServed(ctx context.Context, w *Warm) []bool {
	if w == nil || w.Schedule == nil {
		return nil
	}
	s := pr.fromSchedule(w.Schedule)
	pr.improve(ctx, s)
	return s
}

// warmLP sets pr.lpY from w's LP values by turn when pr has none of its
// own.
func (pr *problem) warmLP(w *Warm) {
	if pr.lpY != nil || w == nil || len(w.LPServe) != pr.in.K() {
		return
	}
	pr.lpY = make([]float64, len(pr.cands))
	for i, c := range pr.cands {
		pr.lpY[i] = w.LPServe[c.n]
	}
}

// lpServe is pr.lpY by turn (see Warm.LPServe), or w's when pr solved no
// LP.
func (pr *problem) lpServe(w *Warm) []float64 {
	if pr.lpY == nil {
		if w != nil {
			return w.LPServe
		}
		return nil
	}
	y := make([]float64, pr.in.K())
	for i, c := range pr.cands {
		y[c.n] = pr.lpY[i]
	}
	return y
}

// lpWarm is pr's LP prices when it solved its LP, else w's.
func (pr *problem) lpWarm(w *Warm) *lpPrices {
	if pr.prices != nil {
		return pr.prices
	}
	if w != nil {
		return w.lp
	}
	return nil
}
