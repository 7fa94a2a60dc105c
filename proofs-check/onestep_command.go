// The one-step problems of claims 4 (lemma1) and 5c (corollary-unitpage)
// as command lines. The belief MDP of 'tailbound mdp solve' one step long
// is a one-step ET-LRU problem: right after a turn of the served seat, the
// root decision chooses what each seat keeps, and the next step's turn of
// seat i (probability λ_i·Δ at silence 0) with prompt Q costs
// (H_i + Q − y_i − ξ)⁺. So its optimum row is Δ times the exact optimum
// and its etlru-paper row Δ times the greedy's objective (both with the
// decision taken): the two sides of the claims.

package proofscheck

import (
	"math"

	"github.com/tailbound/tailbound/mdp/exact"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/instance"
)

// Command implements claim.Runnable: the 'tailbound mdp solve' line of the
// one-step MDP with the problem's items as seats (see oneStepMDP), whose
// optimum and etlru-paper rows are Δ = --step times the exact optimum and
// the greedy's objective. A problem the MDP cannot state has no command.
func (o *OneStep) Command() string {
	in, ok := oneStepMDP(o.Weights, o.History, o.Upper, o.Fixed, o.Params, birthdeath.Atoms{Values: o.Prompt, Probs: o.Probs})
	if !ok {
		return ""
	}
	return (&MDP{Instance: in, Belief: exact.Paper}).Command()
}

// Command implements claim.Runnable: the 'tailbound mdp solve' line of the
// unit-page problem (one-token histories, B = 1, Q = 0, ξ = 0): the
// etlru-paper row's first decision is ET-LRU's kept pages, the optimum's
// the top-λ pages; their expected TEL is Δ = --step times Σ λ of the
// pages not kept. A problem the MDP cannot state has no command.
func (u *UnitPage) Command() string {
	n := len(u.Weights)
	hist, upper := make([]int64, n), make([]int64, n)
	for i := range hist {
		hist[i] = 1
		if u.Cached[i] {
			upper[i] = 1
		}
	}
	in, ok := oneStepMDP(u.Weights, hist, upper, make([]bool, n), instance.Params{Capacity: u.Capacity, BlockSize: 1},
		birthdeath.Atoms{Values: []int64{0}, Probs: []float64{1}})
	if !ok {
		return ""
	}
	return (&MDP{Instance: in, Belief: exact.Paper}).Command()
}

// oneStepMDP returns the belief MDP whose root is the one-step problem of
// items with rates λ_i (per s), histories H_i and bounds U_i (tokens),
// fixed items, parameters p and prompt atoms, and whether there is one.
//
// Item i is seat i, silent 0 steps (so π = 1 and its hazard is λ_i·Δ
// exactly), caching U_i; the horizon is one step and one turn, with no
// responses. The MDP's root is the decision after a turn of the served
// seat, which may keep ⌊H/B⌋·B tokens capped at C while the other seats'
// bounds are their cached amounts, fitting in C: so an item is served when
// U_i is that amount and the others fit (the last such: the MDP's ET-LRU
// gives the served seat's blocks up last among equal values, the claim's
// greedy its last item's; a fixed item must be the served one, under
// forced caching). If no item needs serving because all fit, the root is between
// turns (every row then keeps all). An item with no history is an empty
// seat, whose turns come at the birth rate ν: all such items must share
// one rate. Δ is the largest power of two with Σ_i max(λ_i, ν)·Δ ≤ 1, so
// Δ·objective is exact in floating point. A problem beyond 4 seats, or
// with more to evict than one served item holds, has no MDP.
func oneStepMDP(rates []float64, hist, upper []int64, fixed []bool, p instance.Params, prompt birthdeath.Atoms) (exact.Instance, bool) {
	in := exact.Instance{World: exact.Paper, Served: -1, Mu: 1, Horizon: 1, MaxTurns: 1,
		Params: instance.Params{Capacity: p.Capacity, BlockSize: p.BlockSize, Xi: p.Xi}, Prompt: prompt,
		Response: birthdeath.Atoms{Values: []int64{0}, Probs: []float64{1}}}
	var total int64
	for i, r := range rates {
		if hist[i] == 0 {
			if in.Birth != 0 && in.Birth != r {
				return exact.Instance{}, false
			}
			in.Birth = r
		}
		in.Seats = append(in.Seats, exact.Seat{Rate: r, History: hist[i], Cached: upper[i]})
		total += upper[i]
	}
	servable := func(i int) bool {
		full := min(hist[i]/p.BlockSize*p.BlockSize, p.Capacity)
		return hist[i] > 0 && upper[i] == full && total-upper[i] <= p.Capacity
	}
	for i := range fixed {
		if fixed[i] {
			if in.Served >= 0 || !servable(i) {
				return exact.Instance{}, false // two fixed items, or one the MDP cannot serve
			}
			in.Served, in.Forced = i, true
		}
	}
	for i := len(rates) - 1; i >= 0 && in.Served < 0; i-- {
		if servable(i) {
			in.Served = i
		}
	}
	if in.Served < 0 && total > p.Capacity {
		return exact.Instance{}, false
	}
	var load float64
	for _, r := range rates {
		load += max(r, in.Birth)
	}
	if math.IsInf(load, 0) || math.IsNaN(load) {
		return exact.Instance{}, false
	}
	in.Step = 1
	for load*in.Step > 1 {
		in.Step /= 2
	}
	if in.Validate() != nil {
		return exact.Instance{}, false
	}
	return in, true
}
