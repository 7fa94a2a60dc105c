package exact

import (
	"errors"
	"fmt"

	"github.com/tailbound/tailbound/models/cache"
	"github.com/tailbound/tailbound/models/policy"
	"github.com/tailbound/tailbound/models/trace"
)

// EvaluateEngine returns the exact expected TEL of a replay-engine policy
// (any policy.Factory, e.g. from the registry) under the instance's
// dynamics. Engine policies keep private state, so it cannot merge states:
// it walks the whole event tree, and at every turn replays the path so far
// through a fresh policy and cache (seat i is conversation i, turn times
// are step·Δ seconds), reading the turn's cost from the cache and the new
// amounts after the policy's update. The root must be reachable by the
// policy: a prefix, or all seats empty between turns. cfg supplies the
// policy's own settings (QHat, Options); capacity, block size, ξ and
// forced mode are taken from the instance. Its cost grows exponentially
// with the horizon: keep the horizon small.
func EvaluateEngine(in *Instance, f policy.Factory, cfg policy.Config) (float64, error) {
	if err := in.Validate(); err != nil {
		return 0, err
	}
	if len(in.Prefix) == 0 {
		if in.Served >= 0 {
			return 0, errors.New("exact: an engine policy needs a prefix root or empty seats between turns")
		}
		for _, s := range in.Seats {
			if s.History != 0 {
				return 0, errors.New("exact: an engine policy needs a prefix root or empty seats between turns")
			}
		}
	}
	cfg.Params = in.Params
	e := &engine{in: in, f: f, cfg: cfg, haz: in.hazards(in.World, in.maxSilence())}
	seats := make([]Seat, len(in.Seats))
	for i, s := range in.Seats {
		seats[i] = Seat{Rate: s.Rate}
	}
	var path []event
	var prefixCost float64
	for j, p := range in.Prefix {
		e.offset = max(e.offset, p.Before)
		path = append(path, event{step: -p.Before, seat: p.Seat, prompt: p.Prompt, response: p.Response})
		cost, amounts, err := e.replay(path)
		if err != nil {
			return 0, err
		}
		prefixCost += cost
		seats[p.Seat].History += p.Prompt + p.Response
		for i := range seats {
			seats[i].Cached = amounts[i]
			if seats[i].History > 0 && i != p.Seat && j > 0 {
				seats[i].Silence += in.Prefix[j-1].Before - p.Before
			}
		}
		seats[p.Seat].Silence = 0
	}
	v, err := e.node(0, 0, seats, path)
	return prefixCost + v, err
}

type event struct {
	step             int // steps after the root (≤ 0 in the prefix)
	seat             int
	prompt, response int64
}

type engine struct {
	in     *Instance
	f      policy.Factory
	cfg    policy.Config
	haz    [][]float64
	offset int // steps from time 0 to the root
}

// replay runs path through a fresh policy; it returns the last turn's cost
// and the amounts after the last update.
func (e *engine) replay(path []event) (float64, []int64, error) {
	in := e.in
	p, err := e.f(e.cfg)
	if err != nil {
		return 0, nil, err
	}
	s, err := cache.New(in.Params)
	if err != nil {
		return 0, nil, err
	}
	var cost float64
	for j, ev := range path {
		t := trace.Turn{Index: j, Time: float64(e.offset+ev.step) * in.Step, Conv: ev.seat, Prompt: ev.prompt, Response: ev.response}
		h, x := s.Begin(t.Conv, t.Prompt, t.Response)
		cost = max(float64(h+t.Prompt-x)-in.Xi, 0)
		if err := p.Update(s, t); err != nil {
			return 0, nil, fmt.Errorf("exact: engine policy at turn %d: %w", j, err)
		}
		if err := s.End(); err != nil {
			return 0, nil, fmt.Errorf("exact: engine policy at turn %d: %w", j, err)
		}
	}
	amounts := make([]int64, len(in.Seats))
	for i := range amounts {
		amounts[i] = s.Cached(i)
	}
	return cost, amounts, nil
}

// node returns the expected future cost after the decision at step t.
func (e *engine) node(t, k int, seats []Seat, path []event) (float64, error) {
	in := e.in
	if t >= in.Horizon || (in.MaxTurns > 0 && k >= in.MaxTurns) {
		return 0, nil
	}
	var v float64
	nothing := 1.0
	for i, st := range seats {
		q := in.Birth * in.Step
		if st.History > 0 {
			q = e.haz[i][st.Silence]
		}
		if q <= 0 {
			continue
		}
		nothing -= q
		for a, qv := range in.Prompt.Values {
			for b, rv := range in.Response.Values {
				pr := q * in.Prompt.Probs[a] * in.Response.Probs[b]
				if pr == 0 {
					continue
				}
				np := append(append([]event(nil), path...), event{step: t + 1, seat: i, prompt: qv, response: rv})
				cost, amounts, err := e.replay(np)
				if err != nil {
					return 0, err
				}
				next := make([]Seat, len(seats))
				advance(next, seats, i, qv+rv)
				for j := range next {
					next[j].Cached = amounts[j]
				}
				fut, err := e.node(t+1, k+1, next, np)
				if err != nil {
					return 0, err
				}
				v += pr * (cost + fut)
			}
		}
	}
	if nothing > 1e-15 {
		next := make([]Seat, len(seats))
		advance(next, seats, -1, 0)
		fut, err := e.node(t+1, k, next, path)
		if err != nil {
			return 0, err
		}
		v += nothing * fut
	}
	return v * e.in.discount(), nil
}
