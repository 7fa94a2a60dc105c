package exact

import (
	"fmt"
	"math"

	"github.com/tailbound/tailbound/mdp/belief"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/instance"
)

// World selects the probability that a silent conversation is alive, and so
// its turn hazard (see the package documentation).
type World int

const (
	// Paper is π(s) = e^{−μs}.
	Paper World = iota
	// Bayes is the exact posterior of the birth–death model.
	Bayes
)

func (w World) String() string {
	if w == Bayes {
		return "bayes"
	}
	return "paper"
}

// ParseWorld reads "paper" or "bayes".
func ParseWorld(s string) (World, error) {
	switch s {
	case "paper":
		return Paper, nil
	case "bayes":
		return Bayes, nil
	}
	return 0, fmt.Errorf("world %q: want paper or bayes", s)
}

// Seat is one conversation slot.
type Seat struct {
	// Rate is λ̄, the turn rate of its conversation while alive, per second.
	Rate float64
	// History is H, tokens; 0 means the seat is empty (no conversation yet).
	History int64
	// Cached is X, tokens, a multiple of the block size, ≤ History.
	Cached int64
	// Silence is the number of steps since its latest turn.
	Silence int
}

// PrefixTurn is a turn that happened before the root.
type PrefixTurn struct {
	Seat     int
	Before   int   // steps before the root (the last prefix turn has 0)
	Prompt   int64 // tokens
	Response int64 // tokens
}

// Instance is one belief-MDP problem.
type Instance struct {
	World World
	// Seats are the conversation slots (at most 4). With a Prefix only
	// their rates are used: the seats start empty.
	Seats []Seat
	// Served is the seat whose turn was just served: the root is its
	// decision. −1 starts between turns. Ignored with a Prefix.
	Served int
	// Prefix, when not empty, replaces the explicit root: the seats start
	// empty and these turns happen, in order, before the root, with
	// decisions after each (the root is the decision after the last); their
	// costs count. Policies replayed by EvaluateEngine need such a root.
	Prefix []PrefixTurn
	// Mu is the death rate μ, per second.
	Mu float64
	// Birth is ν, the rate per second at which an empty seat receives a
	// conversation.
	Birth float64
	// Step is Δ, seconds.
	Step float64
	// Horizon is the number of steps after the root.
	Horizon int
	// MaxTurns ends the horizon after that many turns after the root (0: no
	// cap).
	MaxTurns int
	// Params are the capacity C and block size B (tokens), the threshold ξ
	// (tokens) and the caching mode (forced: the served conversation keeps
	// its whole history, capped at C).
	instance.Params
	// Prompt and Response lengths, tokens: atoms summing to 1, in any
	// order.
	Prompt, Response birthdeath.Atoms
	// Discount per step, in (0, 1]; 0 means 1.
	Discount float64
	// MaxStates bounds the memoized states of Solve and Evaluate (0:
	// DefaultMaxStates); a solve that passes it stops with an error
	// naming the count, rather than run on for minutes and gigabytes.
	MaxStates int
}

// DefaultMaxStates is the default bound on memoized states: 2^21, about
// 250 MB of memo and 6 s of one core here (2^22 took 13 s of CPU).
const DefaultMaxStates = 1 << 21

// maxSeats bounds the number of seats (the state key is a fixed array).
const maxSeats = 4

// Validate reports an instance the solver cannot use.
func (in *Instance) Validate() error {
	n := len(in.Seats)
	if err := in.Params.Validate(); err != nil {
		return fmt.Errorf("exact: %w", err)
	}
	switch {
	case n == 0 || n > maxSeats:
		return fmt.Errorf("exact: need 1 to %d seats, got %d", maxSeats, n)
	case !(in.Mu > 0) || !(in.Step > 0) || in.Birth < 0 || math.IsInf(in.Mu+in.Step+in.Birth, 0):
		return fmt.Errorf("exact: need μ > 0, Δ > 0 s and ν ≥ 0, finite")
	case in.Horizon < 0 || in.Horizon > 10000:
		return fmt.Errorf("exact: horizon %d steps must be from 0 to 10000", in.Horizon)
	case in.MaxTurns < 0:
		return fmt.Errorf("exact: turn cap %d must be ≥ 0 (0: none)", in.MaxTurns)
	case in.MaxStates < 0:
		return fmt.Errorf("exact: state bound %d must be ≥ 0 (0: the default, %d)", in.MaxStates, DefaultMaxStates)
	case in.Discount < 0 || in.Discount > 1:
		return fmt.Errorf("exact: discount %v must be in (0, 1]", in.Discount)
	}
	if err := in.Prompt.Validate(); err != nil {
		return fmt.Errorf("exact: prompt distribution: %w", err)
	}
	if err := in.Response.Validate(); err != nil {
		return fmt.Errorf("exact: response distribution: %w", err)
	}
	var load float64
	for i, s := range in.Seats {
		if !(s.Rate > 0) || math.IsInf(s.Rate, 0) {
			return fmt.Errorf("exact: seat %d: rate must be > 0 per second", i)
		}
		load += max(s.Rate, in.Birth) * in.Step
		if len(in.Prefix) > 0 {
			continue
		}
		if s.History < 0 || s.Cached < 0 || s.Cached > s.History || s.Cached%in.BlockSize != 0 || s.Silence < 0 || s.Silence > 10000 {
			return fmt.Errorf("exact: seat %d: need 0 ≤ cached ≤ history, cached in whole blocks, silence ≥ 0 steps", i)
		}
		if s.History == 0 && s.Cached != 0 {
			return fmt.Errorf("exact: seat %d: an empty seat caches nothing", i)
		}
	}
	if load > 1+1e-12 {
		return fmt.Errorf("exact: per-step event probabilities sum to %.3g > 1: make the step Δ smaller", load)
	}
	if len(in.Prefix) > 0 {
		last := math.MaxInt
		for j, p := range in.Prefix {
			if p.Seat < 0 || p.Seat >= n || p.Before < 0 || p.Before >= last || p.Prompt < 0 || p.Response < 0 {
				return fmt.Errorf("exact: prefix turn %d: need a seat, steps before the root strictly decreasing to 0, lengths ≥ 0", j)
			}
			last = p.Before
		}
		if last != 0 {
			return fmt.Errorf("exact: the last prefix turn must be at the root (0 steps before it)")
		}
		return nil
	}
	if in.Served >= n || in.Served < -1 {
		return fmt.Errorf("exact: served seat %d out of range", in.Served)
	}
	if in.Served >= 0 && (in.Seats[in.Served].Silence != 0 || in.Seats[in.Served].History == 0) {
		return fmt.Errorf("exact: the served seat %d must have a history and silence 0", in.Served)
	}
	var total int64
	for i, s := range in.Seats {
		if i != in.Served {
			total += s.Cached
		}
	}
	if total > in.Capacity {
		return fmt.Errorf("exact: the seats other than the served one cache %d tokens, capacity %d", total, in.Capacity)
	}
	return nil
}

func (in *Instance) discount() float64 {
	if in.Discount == 0 {
		return 1
	}
	return in.Discount
}

// Alive returns the world's probability that a conversation of rate
// lambda (per second) silent for s seconds is alive.
func Alive(w World, mu, lambda, s float64) float64 {
	if w == Paper {
		return math.Exp(-mu * s)
	}
	b, err := belief.NewBayes(mu, belief.Prior{Classes: []birthdeath.RateClass{{Rate: lambda, Weight: 1}}})
	if err != nil {
		return math.NaN()
	}
	return b.Alive(belief.History{Turns: 1}, s)
}

// hazards returns, per seat, the probability of a turn in the next step
// for silences 0..maxSilence, for a seat with a conversation; an empty
// seat's is ν·Δ.
func (in *Instance) hazards(w World, maxSilence int) [][]float64 {
	h := make([][]float64, len(in.Seats))
	for i, s := range in.Seats {
		h[i] = make([]float64, maxSilence+1)
		for m := range h[i] {
			h[i][m] = s.Rate * in.Step * Alive(w, in.Mu, s.Rate, float64(m)*in.Step)
		}
	}
	return h
}

// maxSilence returns the largest silence reachable, in steps.
func (in *Instance) maxSilence() int {
	m := 0
	for _, s := range in.Seats {
		m = max(m, s.Silence)
	}
	for _, p := range in.Prefix {
		m = max(m, p.Before)
	}
	return m + in.Horizon + 1
}

// excess returns the cost in tokens of a turn with history h, cached x and
// prompt q: (h + q − x − ξ)⁺.
func (in *Instance) excess(h, x, q int64) float64 {
	return max(float64(h+q-x)-in.Xi, 0)
}

// maxServed returns the most the served seat with history h may keep.
func (in *Instance) maxServed(h int64) int64 {
	return min(h/in.BlockSize*in.BlockSize, in.Capacity)
}
