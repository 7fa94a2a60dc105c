// Package birthdeath is the continuous-time conversation model of the
// tail-latency paper: conversations are born at Poisson rate λ_conv, each
// issues its first turn at birth, then turns at its own Poisson rate λ̄_i
// while alive, and dies at rate μ unobserved.
package birthdeath

import (
	"container/heap"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/tailbound/tailbound/models/trace"
)

// RateClass is a class of conversations with turn rate Rate (turns per
// second while alive) drawn with probability proportional to Weight.
type RateClass struct {
	Rate   float64
	Weight float64
}

// Params define the model. Rates are per second.
type Params struct {
	LambdaConv float64     // conversation births per second
	Mu         float64     // death rate per second (mean lifetime 1/μ s)
	Classes    []RateClass // per-conversation turn-rate distribution
	// Rates, when not nil, draws each conversation's turn rate (per
	// second) instead of Classes (e.g. a Gamma distribution).
	Rates    RateDist
	Prompt   Dist    // prompt lengths, tokens (≥ 1)
	Response Dist    // response lengths, tokens (≥ 0)
	Duration float64 // seconds of births to generate (0: unbounded)
	MaxTurns int     // stop after this many turns (0: unbounded)
}

// Default returns the parameters of tailbound's embedded default workload:
// two conversations per second living 2 minutes on average, half of them
// chatting every 20 s, half every minute, log-normal prompts (mean ≈ 200
// tokens, as WildChat's) and responses (mean ≈ 300 tokens), for one hour.
func Default() Params {
	return Params{
		LambdaConv: 2,
		Mu:         1.0 / 120,
		Classes:    []RateClass{{Rate: 1.0 / 20, Weight: 1}, {Rate: 1.0 / 60, Weight: 1}},
		Prompt:     LogNormal{Mu: math.Log(200) - 0.5, Sigma: 1, Min: 1},
		Response:   LogNormal{Mu: math.Log(300) - 0.32, Sigma: 0.8, Min: 0},
		Duration:   3600,
	}
}

// Validate reports parameters the generator cannot use.
func (p Params) Validate() error {
	switch {
	case !(p.LambdaConv > 0):
		return fmt.Errorf("lambda-conv must be > 0 per second, got %v", p.LambdaConv)
	case !(p.Mu > 0):
		return fmt.Errorf("mu must be > 0 per second, got %v", p.Mu)
	case len(p.Classes) == 0 && p.Rates == nil:
		return errors.New("at least one rate class or a rate distribution is needed")
	case p.Duration <= 0 && p.MaxTurns <= 0:
		return errors.New("a duration (s) or a number of turns is needed, else the trace never ends")
	case p.Prompt == nil || p.Response == nil:
		return errors.New("prompt and response distributions are needed")
	}
	for _, c := range p.Classes {
		if !(c.Rate > 0) || !(c.Weight > 0) {
			return fmt.Errorf("rate class %+v: rate and weight must be > 0", c)
		}
	}
	return nil
}

// Turn is one generated turn with the hidden state behind it.
type Turn struct {
	trace.Record
	ConvID int     // dense conversation id
	Death  float64 // the conversation's death time, s (hidden from policies)
	Rate   float64 // the conversation's turn rate λ̄_i, per second
}

type conv struct {
	id          int
	next, death float64
	rate        float64
}

type events []*conv

func (e events) Len() int { return len(e) }
func (e events) Less(i, j int) bool {
	return e[i].next < e[j].next || (e[i].next == e[j].next && e[i].id < e[j].id)
}
func (e events) Swap(i, j int) { e[i], e[j] = e[j], e[i] }
func (e *events) Push(x any)   { *e = append(*e, x.(*conv)) }
func (e *events) Pop() any {
	old := *e
	x := old[len(old)-1]
	*e = old[:len(old)-1]
	return x
}

// Generate draws a trace from the model with the given seed and calls emit
// for each turn in time order; it stops at the first error emit returns.
// Memory grows with the number of conversations alive at once.
func Generate(p Params, seed uint64, emit func(Turn) error) error {
	if err := p.Validate(); err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(seed, 0x7461696c626f756e)) // "tailboun"
	var total float64
	for _, c := range p.Classes {
		total += c.Weight
	}
	pickRate := func() float64 {
		if p.Rates != nil {
			return p.Rates.Sample(r)
		}
		u := r.Float64() * total
		for _, c := range p.Classes {
			if u < c.Weight {
				return c.Rate
			}
			u -= c.Weight
		}
		return p.Classes[len(p.Classes)-1].Rate
	}
	var q events
	nextBirth := r.ExpFloat64() / p.LambdaConv
	ids, turns := 0, 0
	for {
		births := p.Duration <= 0 || nextBirth <= p.Duration
		if len(q) == 0 && !births {
			return nil
		}
		if births && (len(q) == 0 || nextBirth <= q[0].next) {
			c := &conv{id: ids, next: nextBirth, rate: pickRate()}
			c.death = nextBirth + r.ExpFloat64()/p.Mu
			ids++
			heap.Push(&q, c)
			nextBirth += r.ExpFloat64() / p.LambdaConv
			continue
		}
		c := q[0]
		t := Turn{Record: trace.Record{T: c.next, Conv: "c" + strconv.Itoa(c.id),
			Prompt: max(1, p.Prompt.Sample(r)), Response: max(0, p.Response.Sample(r))},
			ConvID: c.id, Death: c.death, Rate: c.rate}
		if err := emit(t); err != nil {
			return err
		}
		turns++
		if p.MaxTurns > 0 && turns >= p.MaxTurns {
			return nil
		}
		c.next += r.ExpFloat64() / c.rate
		if c.next >= c.death {
			heap.Pop(&q)
		} else {
			heap.Fix(&q, 0)
		}
	}
}

// Trace generates a whole trace in memory.
func Trace(p Params, seed uint64) (*trace.Trace, error) {
	tr := &trace.Trace{}
	err := Generate(p, seed, func(t Turn) error {
		for len(tr.Names) <= t.ConvID {
			tr.Names = append(tr.Names, "c"+strconv.Itoa(len(tr.Names)))
		}
		tr.Turns = append(tr.Turns, trace.Turn{Index: len(tr.Turns), Time: t.T, Conv: t.ConvID, Prompt: t.Prompt, Response: t.Response})
		return nil
	})
	return tr, err
}

// ReadOrGenerate returns the canonical trace at path ("-" for standard
// input) or, when path is empty, the embedded workload: the trace of
// Default with seed.
func ReadOrGenerate(path string, seed uint64) (*trace.Trace, error) {
	if path == "" {
		return Trace(Default(), seed)
	}
	return trace.ReadFile(path)
}
