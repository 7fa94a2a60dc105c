package exact

import (
	"github.com/tailbound/tailbound/internal/option"
	"github.com/tailbound/tailbound/models/instance"
)

// Settings are the flags of 'tailbound mdp solve': each field holds a flag's
// value in the flag's units, as given. Build validates them, naming the
// flag, and returns the instance and policies to compare.
type Settings struct {
	// Seats are RATE:HISTORY:CACHED:SILENCE,… (turns per s while alive,
	// tokens, tokens, steps) (--seats; see ParseSeats).
	Seats string
	// Served is the seat whose turn was just served; -1: between turns
	// (--served).
	Served int
	// World is paper or bayes (--world; see ParseWorld).
	World string
	// Mu is the death rate μ, per second; Birth the rate at which an empty
	// seat receives a conversation, per second; Step the step Δ, seconds
	// (--mu, --birth, --step).
	Mu, Birth, Step float64
	// Horizon is in steps; MaxTurns ends after that many turns (0: no cap)
	// (--horizon, --max-turns).
	Horizon, MaxTurns int
	// Capacity is C and Block is B, tokens (--capacity, --block-size).
	Capacity, Block int64
	// Xi is the TEL threshold ξ, tokens (--xi-tokens).
	Xi float64
	// Prompt and Response are length distributions, fixed:N or
	// pmf:TOKENS:PROB,… (--prompt, --response; see ParseDist).
	Prompt, Response string
	// AllowEmptyPrompts admits prompts of 0 tokens (--allow-empty-prompts).
	AllowEmptyPrompts bool
	// Forced is forced caching (--forced).
	Forced bool
	// Discount is the discount per step, in (0, 1] (--discount).
	Discount float64
	// Policies are the policies to evaluate, comma-separated from
	// DeciderNames (--policies).
	Policies string
	// QHat is T-LRU's Q̂, tokens (--qhat; 0: the prompt distribution's
	// mean).
	QHat float64
	// MaxStates bounds the memoized states (--max-states, ≥ 1).
	MaxStates int
}

// Build validates s and returns its instance, the policies to compare and
// T-LRU's Q̂ in tokens (QHat, or the prompt distribution's mean).
func (s Settings) Build() (*Instance, []Decider, float64, error) {
	if s.QHat < 0 {
		return nil, nil, 0, option.Errorf("qhat", "must be ≥ 0 tokens (0: the prompt distribution's mean), got %v", s.QHat)
	}
	if s.MaxStates < 1 {
		return nil, nil, 0, option.Errorf("max-states", "must be ≥ 1, got %d", s.MaxStates)
	}
	in, err := s.instance()
	if err != nil {
		return nil, nil, 0, err
	}
	q := s.QHat
	if q == 0 {
		q = in.Prompt.Mean()
	}
	deciders, err := Deciders(s.Policies, q)
	if err != nil {
		return nil, nil, 0, option.Wrap("policies", err)
	}
	return in, deciders, q, nil
}

// instance reads and validates the instance of s.
func (s Settings) instance() (*Instance, error) {
	in := &Instance{Served: s.Served, Mu: s.Mu, Birth: s.Birth, Step: s.Step, Horizon: s.Horizon, MaxTurns: s.MaxTurns,
		MaxStates: s.MaxStates, Params: instance.Params{Capacity: s.Capacity, BlockSize: s.Block, Xi: s.Xi, Forced: s.Forced}}
	var err error
	if in.World, err = ParseWorld(s.World); err != nil {
		return nil, option.Wrap("world", err)
	}
	if in.Seats, err = ParseSeats(s.Seats); err != nil {
		return nil, option.Wrap("seats", err)
	}
	if in.Prompt, err = ParseDist(s.Prompt); err != nil {
		return nil, option.Wrap("prompt", err)
	}
	if !s.AllowEmptyPrompts {
		for _, v := range in.Prompt.Values {
			if v == 0 {
				return nil, option.Errorf("prompt", "a prompt of 0 tokens (want ≥ 1; --allow-empty-prompts admits the unit-page idealization)")
			}
		}
	}
	if in.Response, err = ParseDist(s.Response); err != nil {
		return nil, option.Wrap("response", err)
	}
	if !(s.Discount > 0 && s.Discount <= 1) {
		return nil, option.Errorf("discount", "must be in (0, 1], got %v", s.Discount)
	}
	in.Discount = s.Discount
	if err := in.Validate(); err != nil {
		return nil, err
	}
	return in, nil
}
