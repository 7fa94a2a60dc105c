// Claim 6 of SPEC §6: Theorem 2 of the tail-latency paper (seed
// ../shared/seeds/003_d50602792df89471.txt; proof in its appendix B, the
// forced-caching conditions in appendix C): in the stochastic conversation
// model (births, hidden deaths, Poisson turns) ET-LRU is the optimal online
// policy of the belief MDP. Checked in seven scopes, inside and outside the
// theorem's assumptions, by ET-LRU's exact expected TEL against the exact
// optimum over all cache decisions (mdp/exact) on small instances.

package proofscheck

import (
	"fmt"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/instance"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/tailbound/tailbound/mdp/exact"
	"github.com/tailbound/tailbound/proofs-check/claim"
)

// MDP is a belief-MDP instance on which ET-LRU with Belief is compared
// with the exact optimum.
type MDP struct {
	Instance exact.Instance
	Belief   exact.World // ET-LRU's belief
}

// Size implements claim.Instance.
func (m *MDP) Size() int {
	in := &m.Instance
	s := 10000*in.Horizon + 1000*len(in.Seats) + 100*(len(in.Prompt.Values)+len(in.Response.Values)) + int(in.Capacity/in.BlockSize)
	for _, st := range in.Seats {
		s += int(st.History) + st.Silence
	}
	if in.Birth > 0 {
		s += 50
	}
	if in.Discount > 0 {
		s += 50
	}
	return s
}

// Shrink implements claim.Instance: a shorter horizon, a seat fewer, shorter
// histories or silences, a lower capacity, fewer length atoms, no births,
// no discount; only valid variants.
func (m *MDP) Shrink() []claim.Instance {
	var out []claim.Instance
	with := func(f func(in *exact.Instance)) {
		c := &MDP{Instance: m.Instance, Belief: m.Belief}
		in := &c.Instance
		in.Seats = append([]exact.Seat(nil), m.Instance.Seats...)
		in.Prompt = copyDist(m.Instance.Prompt)
		in.Response = copyDist(m.Instance.Response)
		f(in)
		if in.Validate() == nil {
			out = append(out, c)
		}
	}
	in := &m.Instance
	if in.Horizon > 1 {
		with(func(in *exact.Instance) { in.Horizon-- })
	}
	for i := range in.Seats {
		if i != in.Served && len(in.Seats) > 1 {
			with(func(in *exact.Instance) {
				in.Seats = append(in.Seats[:i], in.Seats[i+1:]...)
				if in.Served > i {
					in.Served--
				}
			})
		}
		if in.Seats[i].History > 1 {
			with(func(in *exact.Instance) {
				s := &in.Seats[i]
				s.History--
				s.Cached = min(s.Cached, s.History/in.BlockSize*in.BlockSize)
			})
		}
		if in.Seats[i].Silence > 1 {
			with(func(in *exact.Instance) { in.Seats[i].Silence-- })
		}
	}
	if in.Capacity > in.BlockSize {
		with(func(in *exact.Instance) { in.Capacity -= in.BlockSize })
	}
	for _, d := range []*birthdeath.Atoms{&in.Prompt, &in.Response} {
		for k := range d.Values {
			if len(d.Values) > 1 {
				isPrompt := d == &in.Prompt
				with(func(in *exact.Instance) {
					dd := &in.Response
					if isPrompt {
						dd = &in.Prompt
					}
					dd.Values, dd.Probs = dropAtom(dd.Values, dd.Probs, k)
				})
			}
		}
	}
	if in.Birth > 0 {
		with(func(in *exact.Instance) { in.Birth = 0 })
	}
	if in.Discount > 0 {
		with(func(in *exact.Instance) { in.Discount = 0 })
	}
	return out
}

func copyDist(d birthdeath.Atoms) birthdeath.Atoms {
	return birthdeath.Atoms{Values: append([]int64(nil), d.Values...), Probs: append([]float64(nil), d.Probs...)}
}

// Export implements claim.Instance: the instance by the names and units of
// the flags of 'tailbound mdp solve' (see Command).
func (m *MDP) Export() any {
	in := &m.Instance
	return map[string]any{"world": in.World.String(), "etlru_belief": m.Belief.String(), "seats": seatList(in.Seats),
		"served": in.Served, "mu_per_s": in.Mu, "birth_per_s": in.Birth, "step_s": in.Step, "horizon_steps": in.Horizon,
		"max_turns": in.MaxTurns, "capacity_tokens": in.Capacity, "block_size_tokens": in.BlockSize, "xi_tokens": in.Xi,
		"prompt": in.Prompt.String(), "response": in.Response.String(), "forced": in.Forced, "discount_per_step": discount(in.Discount)}
}

// Command implements claim.Runnable: the 'tailbound mdp solve' command
// line of the instance, evaluating ET-LRU with the claim's belief. The
// claims draw no prefix turns, which have no flag; an instance with them
// has no command.
func (m *MDP) Command() string {
	in := &m.Instance
	if len(in.Prefix) > 0 {
		return ""
	}
	cmd := fmt.Sprintf("tailbound mdp solve --world %s --seats %s --served %d --mu %v --birth %v --step %v --horizon %d --max-turns %d "+
		"--capacity %d --block-size %d --xi-tokens %v --prompt %s --response %s --discount %v --policies etlru-%s",
		in.World, seatList(in.Seats), in.Served, in.Mu, in.Birth, in.Step, in.Horizon, in.MaxTurns,
		in.Capacity, in.BlockSize, in.Xi, in.Prompt, in.Response, discount(in.Discount), m.Belief)
	if in.Forced {
		cmd += " --forced"
	}
	for _, v := range in.Prompt.Values {
		if v == 0 {
			cmd += " --allow-empty-prompts"
			break
		}
	}
	return cmd
}

// seatList formats seats as mdp solve's --seats RATE:HISTORY:CACHED:SILENCE,….
func seatList(seats []exact.Seat) string {
	parts := make([]string, len(seats))
	for i, s := range seats {
		parts[i] = fmt.Sprintf("%v:%d:%d:%d", s.Rate, s.History, s.Cached, s.Silence)
	}
	return strings.Join(parts, ",")
}

// discount is the per-step discount as the flag takes it (the instance's
// 0 means 1, no discount).
func discount(d float64) float64 {
	if d == 0 {
		return 1
	}
	return d
}

// MDPShape says which random MDP instances a Theorem 2 claim draws.
type MDPShape struct {
	World      exact.World
	Belief     exact.World
	EqualRates bool // one rate for every seat
	FixedQ     bool // deterministic prompt lengths
	Forced     bool // forced caching
	UnitPage   bool // Q = 0, no responses, one-token histories, ξ = 0, B = 1
}

// RandomMDP draws a belief-MDP instance with 2..s.Seats seats and up to
// s.Horizon steps of Δ = 0.25 s: rates 0.5–1.3/s (or one rate), μ 0.2–1.2/s,
// histories up to 6 tokens, B 1–2, C up to 4 blocks, ξ 0–3.5 tokens,
// prompts of two atoms (or one), responses 0–1, sometimes births, a turn
// cap or a discount.
func RandomMDP(r *rand.Rand, s Sizes, sh MDPShape) *MDP {
	for {
		in := exact.Instance{World: sh.World, Mu: 0.2 + r.Float64(), Step: 0.25,
			Horizon: 1 + r.IntN(max(s.Horizon, 1)), Params: instance.Params{BlockSize: int64(1 + r.IntN(2)),
				Xi: float64(r.IntN(4)) + []float64{0, 0.5}[r.IntN(2)], Forced: sh.Forced}}
		in.Capacity = in.BlockSize * int64(1+r.IntN(4))
		if r.IntN(3) == 0 {
			in.MaxTurns = 1 + r.IntN(3)
		}
		if r.IntN(4) == 0 {
			in.Discount = 0.8 + 0.2*r.Float64()
		}
		if r.IntN(4) == 0 {
			in.Birth = 1
		}
		a, b := int64(r.IntN(3)), int64(1+r.IntN(5))
		in.Prompt = birthdeath.Atoms{Values: []int64{a, b}, Probs: []float64{0.5, 0.5}}
		if sh.FixedQ {
			in.Prompt = birthdeath.Atoms{Values: []int64{b}, Probs: []float64{1}}
		}
		in.Response = birthdeath.Atoms{Values: []int64{int64(r.IntN(2))}, Probs: []float64{1}}
		if sh.UnitPage {
			in.Prompt = birthdeath.Atoms{Values: []int64{0}, Probs: []float64{1}}
			in.Response = birthdeath.Atoms{Values: []int64{0}, Probs: []float64{1}}
			in.BlockSize, in.Xi, in.Birth = 1, 0, 0
			in.Capacity = int64(1 + r.IntN(2))
		}
		seats := 2 + r.IntN(max(s.Seats-1, 1))
		in.Served = r.IntN(seats+1) - 1
		rate := 0.5 + 0.8*r.Float64()
		var used int64
		for i := 0; i < seats; i++ {
			st := exact.Seat{Rate: rate}
			if !sh.EqualRates {
				st.Rate = 0.5 + 0.8*r.Float64()
			}
			if i == in.Served || r.IntN(5) > 0 || sh.UnitPage {
				st.History = int64(1 + r.IntN(6))
				if sh.UnitPage {
					st.History = 1
				}
				if i != in.Served {
					st.Silence = 1 + r.IntN(5)
					room := min(st.History, in.Capacity-used) / in.BlockSize
					st.Cached = in.BlockSize * int64(r.IntN(int(room)+1))
					used += st.Cached
				}
			}
			in.Seats = append(in.Seats, st)
		}
		if in.Validate() == nil {
			return &MDP{Instance: in, Belief: sh.Belief}
		}
	}
}

// theorem2Claims is claim 6 in its seven scopes, on instances of up to
// s.Seats seats and s.Horizon steps.
func theorem2Claims(s Sizes) []claim.Claim {
	return []claim.Claim{
		theorem2("theorem2-paper", "world and belief exp(−μs) (the paper's own belief MDP), rates, prompts, B, ξ, births, turn caps and discounts random",
			s, MDPShape{World: exact.Paper, Belief: exact.Paper}),
		theorem2("theorem2-bayes", "world and belief the exact birth–death posterior, random rates", s, MDPShape{World: exact.Bayes, Belief: exact.Bayes}),
		theorem2("theorem2-bayes-equal-rates", "world and belief the exact posterior, one turn rate for all conversations", s,
			MDPShape{World: exact.Bayes, Belief: exact.Bayes, EqualRates: true}),
		theorem2("theorem2-paper-belief-true-world", "ET-LRU with the paper's exp(−μs) in the true birth–death world (exact posterior), one turn rate", s,
			MDPShape{World: exact.Bayes, Belief: exact.Paper, EqualRates: true}),
		theorem2("theorem2-forced", "forced caching under appendix C's conditions (fixed prompt length, one turn rate), paper world and belief", s,
			MDPShape{World: exact.Paper, Belief: exact.Paper, Forced: true, FixedQ: true, EqualRates: true}),
		theorem2("theorem2-forced-general", "forced caching outside appendix C's conditions (random prompts and rates), paper world and belief", s,
			MDPShape{World: exact.Paper, Belief: exact.Paper, Forced: true}),
		theorem2("theorem2-unitpage", "the unit-page case (Q = 0, no responses, one-token histories, ξ = 0), paper world and belief", s,
			MDPShape{World: exact.Paper, Belief: exact.Paper, UnitPage: true}),
	}
}

// checkMDP compares ET-LRU's exact value with the exact optimum.
func checkMDP(c claim.Instance) (bool, string, error) {
	m := c.(*MDP)
	opt, err := exact.Solve(&m.Instance)
	if err != nil {
		return false, "", err
	}
	et, err := exact.Evaluate(&m.Instance, exact.ETLRU{Belief: m.Belief})
	if err != nil {
		return false, "", err
	}
	if et.Value < opt.Value-objTol(opt.Value) {
		return false, "", fmt.Errorf("ET-LRU %.12g below the optimum %.12g: a solver bug", et.Value, opt.Value)
	}
	if et.Value <= opt.Value+objTol(opt.Value) {
		return true, "", nil
	}
	return false, fmt.Sprintf("ET-LRU (%s belief) expects %.6g tokens of TEL (first decision %v), the optimum %.6g (first decision %v): gap %.3g tokens (%.2f%%)",
		m.Belief, et.Value, et.Decision, opt.Value, opt.Decision, et.Value-opt.Value, 100*(et.Value-opt.Value)/math.Max(opt.Value, 1e-300)), nil
}

// theorem2 is claim 6 in one scope: ET-LRU is optimal in the belief MDP.
func theorem2(name, scope string, s Sizes, sh MDPShape) claim.Claim {
	return claim.Claim{
		Name: name,
		Statement: "Theorem 2 (tail-latency paper): ET-LRU is the optimal online policy in the belief MDP; " + scope +
			"; ET-LRU's exact expected TEL against the exact optimum over all cache decisions (mdp/exact)",
		Generate: func(r *rand.Rand) claim.Instance { return RandomMDP(r, s, sh) },
		Check:    checkMDP,
	}
}
