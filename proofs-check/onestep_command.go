// The one-step problems of claims 4 (lemma1) and 5c (corollary-unitpage)
// as command lines. Every problem has 'tailbound mdp onestep', which states
// it whole and solves it by ET-LRU's greedy and the exact dynamic program,
// the claims' two sides. Where it can, the line is 'tailbound mdp solve'
// instead, an independent check by the full belief MDP: one step long, its
// root decision chooses what each seat keeps right after a turn of the
// served seat, and the next step's turn of seat i (probability λ_i·Δ at
// silence 0) with prompt Q costs (H_i + Q − y_i − ξ)⁺. So its optimum row
// is Δ times the exact optimum and its etlru-paper row Δ times the
// greedy's objective (both with the decision taken).

package proofscheck

import (
	"math"

	"github.com/tailbound/tailbound/mdp/etlru"
	"github.com/tailbound/tailbound/mdp/exact"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/instance"
)

// Command implements claim.Runnable: the 'tailbound mdp solve' line of the
// one-step MDP with the problem's items as seats (see oneStepMDP), whose
// optimum and etlru-paper rows are Δ = --step times the exact optimum and
// the greedy's objective; for a problem the MDP cannot state, the
// 'tailbound mdp onestep' line of Options, whose rows are the two.
func (o *OneStep) Command() string {
	in, ok := oneStepMDP(o.Weights, o.History, o.Upper, o.Fixed, o.Params, birthdeath.Atoms{Values: o.Prompt, Probs: o.Probs})
	if !ok {
		return oneStepLine(o.Options())
	}
	return (&MDP{Instance: in, Belief: exact.Paper}).Command()
}

// Options returns the problem as the flags of 'tailbound mdp onestep':
// the same items (recency = index, as Problem), parameters and prompt
// atoms, so that etlru.OneStepOptions.Problem reads back the problem that
// Problem builds.
func (o *OneStep) Options() etlru.OneStepOptions {
	items := make([]etlru.ItemSpec, len(o.Weights))
	for i := range items {
		items[i] = etlru.ItemSpec{Rate: o.Weights[i], History: o.History[i], Upper: o.Upper[i], Recency: int64(i), Fixed: o.Fixed[i]}
	}
	return etlru.OneStepOptions{Items: etlru.FormatItems(items), Capacity: o.Capacity, BlockSize: o.BlockSize, Xi: o.Xi,
		Prompt: birthdeath.Atoms{Values: o.Prompt, Probs: o.Probs}.String()}
}

// oneStepLine is the 'tailbound mdp onestep' command line of o.
func oneStepLine(o etlru.OneStepOptions) string { return "tailbound mdp onestep " + o.Flags() }

// Command implements claim.Runnable: the 'tailbound mdp solve' line of the
// unit-page problem (one-token histories, B = 1, Q = 0, ξ = 0): the
// etlru-paper row's first decision is ET-LRU's kept pages, the optimum's
// the top-λ pages; their expected TEL is Δ = --step times Σ λ of the
// pages not kept. For a problem the MDP cannot state, the 'tailbound mdp
// onestep' line of Options: the same kept pages, objective Σ λ of the
// pages not kept.
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
		return oneStepLine(u.Options())
	}
	return (&MDP{Instance: in, Belief: exact.Paper}).Command()
}

// Options returns the unit-page problem as the flags of 'tailbound mdp
// onestep': items λ_i:1:1 (cached) or λ_i:1:0, C = Capacity tokens, B = 1,
// ξ = 0, Q = 0 — the problem the claim's check solves (UnitPage.Problem).
func (u *UnitPage) Options() etlru.OneStepOptions {
	items := make([]etlru.ItemSpec, len(u.Weights))
	for i, w := range u.Weights {
		items[i] = etlru.ItemSpec{Rate: w, History: 1, Recency: int64(i)}
		if u.Cached[i] {
			items[i].Upper = 1
		}
	}
	return etlru.OneStepOptions{Items: etlru.FormatItems(items), Capacity: u.Capacity, BlockSize: 1, Prompt: "pmf:0:1"}
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
