package proofscheck

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tailbound/tailbound/mdp/exact"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/instance"
)

// TestTheorem2BayesCounterexample builds the simplest failure of Theorem 2
// in the true birth–death world, and checks the solver's gap against a
// direct computation. Two seats, one token each, room for one, only the
// next turn counts (MaxTurns = 1), ξ = 0, prompts of 1 token: keeping seat
// i's token saves one token if i turns next. ET-LRU keeps the seat of
// larger λ_i now; the optimum keeps the seat more likely to turn next,
// P_i = Σ_t λ̄_iΔ·π_i(t)·Π_{u<t}(1 − Σ_j λ̄_jΔπ_j(u)). Seat 0 has just
// turned (π = 1) at rate 1/s; seat 1, silent 0.2 s, has a rate chosen so that
// its λ now is 2% above seat 0's. Its posterior decays faster (its relative
// decay is μ + λ̄(1−π) > μ), so seat 0 is the likelier next: the gap must
// be P_0 − P_1 > 0.
func TestTheorem2BayesCounterexample(t *testing.T) {
	const mu, step, horizon = 0.5, 0.05, 400
	alive := func(rate, s float64) float64 { return exact.Alive(exact.Bayes, mu, rate, s) }
	// λ̄_1·π_1(0.2 s) = 1.02·λ̄_0: solve for λ̄_1 by bisection.
	lo, hi := 1.0, 10.0
	for i := 0; i < 200; i++ {
		m := (lo + hi) / 2
		if m*alive(m, 0.2) < 1.02 {
			lo = m
		} else {
			hi = m
		}
	}
	rate1 := lo
	in := exact.Instance{World: exact.Bayes, Mu: mu, Step: step, Horizon: horizon, MaxTurns: 1,
		Seats:  []exact.Seat{{Rate: 1, History: 1}, {Rate: rate1, History: 1, Cached: 1, Silence: 4}},
		Served: 0, Params: instance.Params{Capacity: 1, BlockSize: 1, Xi: 0},
		Prompt:   birthdeath.Atoms{Values: []int64{1}, Probs: []float64{1}},
		Response: birthdeath.Atoms{Values: []int64{0}, Probs: []float64{1}}}
	var p0, p1 float64
	none := 1.0
	for k := 0; k < horizon; k++ {
		q0 := 1 * step * alive(1, float64(k)*step)
		q1 := rate1 * step * alive(rate1, float64(4+k)*step)
		p0 += none * q0
		p1 += none * q1
		none *= 1 - q0 - q1
	}
	if p0 <= p1 {
		t.Fatalf("construction: P0 %v ≤ P1 %v", p0, p1)
	}
	m := &MDP{Instance: in, Belief: exact.Bayes}
	ok, detail, err := checkMDP(m)
	if err != nil {
		t.Fatal(err)
	}
	opt, _ := exact.Solve(&in)
	et, _ := exact.Evaluate(&in, exact.ETLRU{Belief: exact.Bayes})
	if ok || et.Decision[1] != 1 || opt.Decision[0] != 1 {
		t.Fatalf("want ET-LRU to keep seat 1 and the optimum seat 0: %s", detail)
	}
	if gap := et.Value - opt.Value; math.Abs(gap-(p0-p1)) > 1e-12 {
		t.Errorf("gap %.15g, direct P0 − P1 = %.15g", gap, p0-p1)
	}
	t.Logf("Theorem 2 fails in the true world: P(next = seat 0) = %.4f > P(next = seat 1) = %.4f although λ_1 = 1.02·λ_0; ET-LRU loses %.4f tokens", p0, p1, p0-p1)
}

// TestShrinkKeepsValid: every shrink candidate of random MDP cases is a
// valid instance, smaller than its parent.
func TestShrinkKeepsValid(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	for k := 0; k < 50; k++ {
		m := RandomMDP(r, DefaultSizes(), MDPShape{World: exact.Bayes, Belief: exact.Bayes})
		for _, c := range m.Shrink() {
			if err := c.(*MDP).Instance.Validate(); err != nil {
				t.Fatal(err)
			}
			if c.Size() >= m.Size() {
				t.Fatalf("shrink grew the size: %d ≥ %d", c.Size(), m.Size())
			}
		}
	}
}
