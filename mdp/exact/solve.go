package exact

import (
	"fmt"
)

// Result is the outcome of solving or evaluating an instance.
type Result struct {
	// Value is the expected TEL from the root, tokens (discounted when a
	// discount is set); with a prefix it includes the prefix turns' costs.
	Value float64
	// Decision is the root decision (tokens per seat), nil when the root is
	// between turns.
	Decision []int64
	// States is the number of distinct states evaluated (pre- and
	// post-decision).
	States int
}

// key is a memoized state: step, turns so far, served seat (−1 after the
// decision) and per seat history, cached tokens and silence.
type key struct {
	t, k   int16
	served int8
	h, x   [maxSeats]int32
	m      [maxSeats]int16
}

type solver struct {
	in    *Instance
	haz   [][]float64
	dec   Decider // nil: optimize
	memo  map[key]float64
	gam   float64
	limit int // bound on len(memo)
}

// tooLarge stops a solve whose memo passes its bound; root recovers it.
type tooLarge struct{ states int }

// remember stores a state's value, stopping the solve past the bound.
func (s *solver) remember(k key, v float64) {
	s.memo[k] = v
	if len(s.memo) > s.limit {
		panic(tooLarge{len(s.memo)})
	}
}

func newSolver(in *Instance, dec Decider) (*solver, error) {
	if err := in.Validate(); err != nil {
		return nil, err
	}
	limit := in.MaxStates
	if limit == 0 {
		limit = DefaultMaxStates
	}
	return &solver{in: in, haz: in.hazards(in.World, in.maxSilence()), dec: dec,
		memo: map[key]float64{}, gam: in.discount(), limit: limit}, nil
}

// Solve returns the optimal expected TEL over all admissible decisions and
// the optimal root decision.
func Solve(in *Instance) (Result, error) {
	s, err := newSolver(in, nil)
	if err != nil {
		return Result{}, err
	}
	return s.root()
}

// Evaluate returns the expected TEL of the decider d and its root decision.
func Evaluate(in *Instance, d Decider) (Result, error) {
	s, err := newSolver(in, d)
	if err != nil {
		return Result{}, err
	}
	return s.root()
}

func (s *solver) root() (res Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			t, ok := r.(tooLarge)
			if !ok {
				panic(r)
			}
			res, err = Result{}, fmt.Errorf("exact: the belief MDP passed %d states (the bound; --max-states raises it, a shorter --horizon or a --max-turns cap shrinks the MDP)", t.states-1)
		}
	}()
	in := s.in
	seats := append([]Seat(nil), in.Seats...)
	if len(in.Prefix) > 0 {
		for i := range seats {
			seats[i] = Seat{Rate: seats[i].Rate}
		}
		v, y := s.prefix(0, seats)
		return Result{Value: v, Decision: y, States: len(s.memo)}, nil
	}
	if in.Served < 0 {
		return Result{Value: s.post(0, 0, seats), States: len(s.memo)}, nil
	}
	v, y := s.decide(0, 0, seats, in.Served)
	return Result{Value: v, Decision: y, States: len(s.memo)}, nil
}

// prefix plays prefix turn j onwards from seats (before turn j) and returns
// the value and the root decision.
func (s *solver) prefix(j int, seats []Seat) (float64, []int64) {
	in := s.in
	p := in.Prefix[j]
	seat := seats[p.Seat]
	cost := in.excess(seat.History, seat.Cached, p.Prompt)
	next := make([]Seat, len(seats))
	copy(next, seats)
	next[p.Seat].History += p.Prompt + p.Response
	next[p.Seat].Silence = 0
	if j == len(in.Prefix)-1 {
		v, y := s.decide(0, 0, next, p.Seat)
		return cost + v, y
	}
	gap := p.Before - in.Prefix[j+1].Before
	cont := func(y []int64) float64 {
		after := make([]Seat, len(next))
		for i := range next {
			after[i] = next[i]
			after[i].Cached = y[i]
			if after[i].History > 0 {
				after[i].Silence += gap
			}
		}
		v, _ := s.prefix(j+1, after)
		return v
	}
	if s.dec != nil {
		return cost + cont(s.dec.Decide(in, next, p.Seat)), nil
	}
	best := -1.0
	forEachDecision(in, next, p.Seat, func(y []int64) {
		if v := cont(y); best < 0 || v < best {
			best = v
		}
	})
	return cost + best, nil
}

func (s *solver) key(t, k, served int, seats []Seat) key {
	kk := key{t: int16(t), k: int16(k), served: int8(served)}
	for i, st := range seats {
		kk.h[i], kk.x[i], kk.m[i] = int32(st.History), int32(st.Cached), int16(st.Silence)
	}
	return kk
}

// decide returns the value of the pre-decision state after a turn of seat
// served at step t (k turns so far), and the decision taken.
func (s *solver) decide(t, k int, seats []Seat, served int) (float64, []int64) {
	in := s.in
	apply := func(y []int64) []Seat {
		out := make([]Seat, len(seats))
		copy(out, seats)
		for i := range out {
			out[i].Cached = y[i]
		}
		return out
	}
	if s.dec != nil {
		y := s.dec.Decide(in, seats, served)
		if err := admissible(in, seats, served, y); err != nil {
			panic(fmt.Sprintf("exact: policy %s: %v", s.dec.Name(), err))
		}
		return s.post(t, k, apply(y)), y
	}
	var best float64
	var arg []int64
	forEachDecision(in, seats, served, func(y []int64) {
		if v := s.post(t, k, apply(y)); arg == nil || v < best {
			best, arg = v, append([]int64(nil), y...)
		}
	})
	return best, arg
}

// pre is decide's value, memoized.
func (s *solver) pre(t, k int, seats []Seat, served int) float64 {
	kk := s.key(t, k, served, seats)
	if v, ok := s.memo[kk]; ok {
		return v
	}
	v, _ := s.decide(t, k, seats, served)
	s.remember(kk, v)
	return v
}

// post returns the expected future cost from a post-decision state at step
// t with k turns so far.
func (s *solver) post(t, k int, seats []Seat) float64 {
	in := s.in
	if t >= in.Horizon || (in.MaxTurns > 0 && k >= in.MaxTurns) {
		return 0
	}
	kk := s.key(t, k, -1, seats)
	if v, ok := s.memo[kk]; ok {
		return v
	}
	var v float64
	nothing := 1.0
	next := make([]Seat, len(seats))
	for i, st := range seats {
		q := in.Birth * in.Step
		if st.History > 0 {
			q = s.haz[i][st.Silence]
		}
		if q <= 0 {
			continue
		}
		nothing -= q
		for a, qv := range in.Prompt.Values {
			cost := in.excess(st.History, st.Cached, qv)
			for b, rv := range in.Response.Values {
				pr := q * in.Prompt.Probs[a] * in.Response.Probs[b]
				if pr == 0 {
					continue
				}
				advance(next, seats, i, qv+rv)
				fut := 0.0
				if in.MaxTurns == 0 || k+1 < in.MaxTurns {
					fut = s.pre(t+1, k+1, next, i)
				}
				v += pr * (cost + fut)
			}
		}
	}
	if nothing > 1e-15 {
		advance(next, seats, -1, 0)
		v += nothing * s.post(t+1, k, next)
	}
	v *= s.gam
	s.remember(kk, v)
	return v
}

// advance writes into next the seats one step later, after seat i (or none
// when i < 0) turned adding grow tokens to its history.
func advance(next, seats []Seat, i int, grow int64) {
	copy(next, seats)
	for j := range next {
		if j == i {
			next[j].History += grow
			next[j].Silence = 0
		} else if next[j].History > 0 {
			next[j].Silence++
		}
	}
}

// forEachDecision calls f with every admissible decision after a turn of
// seat served (the slice is reused between calls).
func forEachDecision(in *Instance, seats []Seat, served int, f func(y []int64)) {
	n := len(seats)
	y := make([]int64, n)
	capB := in.Capacity / in.BlockSize
	var rec func(i int, used int64)
	rec = func(i int, used int64) {
		if i == n {
			f(y)
			return
		}
		lo, hi := int64(0), seats[i].Cached/in.BlockSize
		if i == served {
			hi = in.maxServed(seats[i].History) / in.BlockSize
			if in.Forced {
				lo = hi
			}
		}
		for b := lo; b <= hi && used+b <= capB; b++ {
			y[i] = b * in.BlockSize
			rec(i+1, used+b)
		}
	}
	rec(0, 0)
}

// admissible checks a policy's decision.
func admissible(in *Instance, seats []Seat, served int, y []int64) error {
	if len(y) != len(seats) {
		return fmt.Errorf("decision has %d amounts for %d seats", len(y), len(seats))
	}
	var tot int64
	for i, v := range y {
		hi := seats[i].Cached
		if i == served {
			hi = in.maxServed(seats[i].History)
			if in.Forced && v != hi {
				return fmt.Errorf("forced caching: seat %d keeps %d tokens, must keep %d", i, v, hi)
			}
		}
		if v < 0 || v > hi || v%in.BlockSize != 0 {
			return fmt.Errorf("seat %d keeps %d tokens (bound %d, blocks of %d)", i, v, hi, in.BlockSize)
		}
		tot += v
	}
	if tot > in.Capacity {
		return fmt.Errorf("decision keeps %d tokens, capacity %d", tot, in.Capacity)
	}
	return nil
}
