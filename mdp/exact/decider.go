package exact

import (
	"math"
	"sort"

	"github.com/tailbound/tailbound/mdp/etlru"
	"github.com/tailbound/tailbound/models/policy"
)

// Decider is an online policy inside the solver: given the seats right
// after seat served's turn (its History includes the turn, its Cached is
// still the amount before it), it returns the amounts to keep, tokens per
// seat, which must be admissible. Deciders see what the decision maker
// sees, so their value is a function of the state and can be memoized.
type Decider interface {
	Name() string
	Decide(in *Instance, seats []Seat, served int) []int64
}

// LRU keeps the served conversation whole, then evicts from the least
// recently served seats (largest silence) until the total fits.
type LRU struct{}

// Name implements Decider.
func (LRU) Name() string { return "lru" }

// Decide implements Decider.
func (LRU) Decide(in *Instance, seats []Seat, served int) []int64 {
	y := keepServed(in, seats, served)
	evictLRU(in, seats, served, y)
	return y
}

// TLRU is T-LRU with a fixed next-prompt estimate QHat tokens: blocks
// beyond each seat's TEL-safe budget ⌈(H + Q̂ − ξ)⁺/B⌉·B go first, least
// recently served first, then LRU.
type TLRU struct{ QHat float64 }

// Name implements Decider.
func (TLRU) Name() string { return "tlru" }

// Decide implements Decider.
func (d TLRU) Decide(in *Instance, seats []Seat, served int) []int64 {
	y := keepServed(in, seats, served)
	over := total(y) - in.Capacity
	for _, i := range lruOrder(seats, served, in.Forced) {
		if over <= 0 {
			break
		}
		b := policy.Budget(seats[i].History, d.QHat, in.Xi, in.BlockSize)
		if cut := min(y[i]-b, over); cut > 0 {
			y[i] -= cut
			over -= cut
		}
	}
	evictLRU(in, seats, served, y)
	return y
}

// ETLRU is ET-LRU with the given belief (World) behind λ_i = λ̄_i·π(s_i)
// and the instance's prompt distribution, solved by etlru.Greedy.
type ETLRU struct{ Belief World }

// Name implements Decider.
func (d ETLRU) Name() string { return "etlru-" + d.Belief.String() }

// Decide implements Decider.
func (d ETLRU) Decide(in *Instance, seats []Seat, served int) []int64 {
	q, err := etlru.NewKnown(in.Prompt)
	if err != nil {
		panic(err) // the instance was validated
	}
	p := &etlru.Problem{Params: in.Params, Prompt: q}
	for i, s := range seats {
		it := etlru.Item{History: s.History, Upper: s.Cached, Recency: -int64(s.Silence), LogWeight: math.Inf(-1)}
		if s.History > 0 {
			it.LogWeight = math.Log(s.Rate * Alive(d.Belief, in.Mu, s.Rate, float64(s.Silence)*in.Step))
		}
		if i == served {
			it.Upper, it.Fixed, it.Recency = in.maxServed(s.History), in.Forced, 1
		}
		p.Items = append(p.Items, it)
	}
	y, err := etlru.Greedy(p)
	if err != nil {
		panic(err)
	}
	return y
}

// keepServed returns the amounts with the served seat at its maximum.
func keepServed(in *Instance, seats []Seat, served int) []int64 {
	y := make([]int64, len(seats))
	for i, s := range seats {
		y[i] = s.Cached
	}
	y[served] = in.maxServed(seats[served].History)
	return y
}

// lruOrder returns the seats in eviction order: largest silence first,
// the served seat last (left out under forced caching); ties by index.
func lruOrder(seats []Seat, served int, forced bool) []int {
	var o []int
	for i := range seats {
		if i != served {
			o = append(o, i)
		}
	}
	sort.SliceStable(o, func(a, b int) bool { return seats[o[a]].Silence > seats[o[b]].Silence })
	if !forced {
		o = append(o, served)
	}
	return o
}

// evictLRU evicts whole blocks from the ends of seats in LRU order until y
// fits the capacity.
func evictLRU(in *Instance, seats []Seat, served int, y []int64) {
	over := total(y) - in.Capacity
	for _, i := range lruOrder(seats, served, in.Forced) {
		if over <= 0 {
			return
		}
		cut := min(y[i], over)
		y[i] -= cut
		over -= cut
	}
}

func total(y []int64) int64 {
	var s int64
	for _, v := range y {
		s += v
	}
	return s
}
