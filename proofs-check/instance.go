package proofscheck

import (
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/trace"
	"github.com/tailbound/tailbound/proofs-check/claim"
)

// TraceInstance is a small conversation-level instance: a trace and the
// cache parameters (capacity, block size and ξ in tokens, caching mode).
type TraceInstance struct {
	Turns []TinyTurn
	instance.Params
	// Solve holds the flags of 'tailbound solve' that reproduce the
	// claim's check (formulation, solver, --relax); empty: the flow solver,
	// which also reports Tail-Optimized Belady's TEL.
	Solve string
}

// TinyTurn is one turn of a TraceInstance.
type TinyTurn struct {
	Conv             int
	Prompt, Response int64 // tokens
}

// RandomInstance draws up to maxTurns turns over up to maxConvs
// conversations with lengths up to maxLen tokens, a capacity of up to 5
// blocks and an integer ξ in [0, 8); fractional adds 0.5 to ξ.
func RandomInstance(r *rand.Rand, maxTurns, maxConvs int, maxLen, block int64, fractional, forced bool) *TraceInstance {
	in := &TraceInstance{Params: instance.Params{BlockSize: block, Capacity: block * r.Int64N(6), Xi: float64(r.IntN(8)), Forced: forced}}
	if fractional {
		in.Xi += 0.5
	}
	convs := 1 + r.IntN(maxConvs)
	for k := 2 + r.IntN(maxTurns-1); k > 0; k-- {
		in.Turns = append(in.Turns, TinyTurn{Conv: r.IntN(convs), Prompt: 1 + r.Int64N(maxLen), Response: r.Int64N(maxLen + 1)})
	}
	return in
}

// Trace returns the instance's trace: turn k arrives at k seconds and
// conversation i is named "c<i>" (ids renumbered in order of appearance).
func (in *TraceInstance) Trace() *trace.Trace {
	tr := &trace.Trace{}
	for k, t := range in.Turns {
		tr.Append(float64(k), "c"+strconv.Itoa(t.Conv), t.Prompt, t.Response)
	}
	return tr
}

// Size counts turns and tokens.
func (in *TraceInstance) Size() int {
	s := 1000 * len(in.Turns)
	for _, t := range in.Turns {
		s += int(t.Prompt + t.Response)
	}
	return s + int(in.Blocks())
}

// Shrink drops one turn, halves one length, or takes a block off the
// capacity.
func (in *TraceInstance) Shrink() []claim.Instance {
	var out []claim.Instance
	with := func(f func(c *TraceInstance)) {
		c := *in
		c.Turns = append([]TinyTurn(nil), in.Turns...)
		f(&c)
		out = append(out, &c)
	}
	for k := range in.Turns {
		if len(in.Turns) > 1 {
			with(func(c *TraceInstance) { c.Turns = append(c.Turns[:k], c.Turns[k+1:]...) })
		}
		if in.Turns[k].Prompt > 1 {
			with(func(c *TraceInstance) { c.Turns[k].Prompt = (c.Turns[k].Prompt + 1) / 2 })
		}
		if in.Turns[k].Response > 0 {
			with(func(c *TraceInstance) { c.Turns[k].Response /= 2 })
		}
	}
	if in.Capacity > 0 {
		with(func(c *TraceInstance) { c.Capacity -= c.BlockSize })
	}
	return out
}

// Command implements claim.Runnable: the trace piped into 'tailbound
// solve' with the instance's parameters.
func (in *TraceInstance) Command() string {
	solve := in.Solve
	if solve == "" {
		solve = "--solver flow"
	}
	return pipeTrace(in.records(), "solve", fmt.Sprintf("%s %s", paramFlags(in.Params), solve))
}

// records is the instance's trace in the canonical format.
func (in *TraceInstance) records() []trace.Record {
	var recs []trace.Record
	tr := in.Trace()
	for _, t := range tr.Turns {
		recs = append(recs, trace.Record{T: t.Time, Conv: tr.Names[t.Conv], Prompt: t.Prompt, Response: t.Response})
	}
	return recs
}

// Export is the instance as a ready-to-run trace plus parameters.
func (in *TraceInstance) Export() any {
	return map[string]any{"trace": in.records(), "capacity_tokens": in.Capacity, "block_size_tokens": in.BlockSize,
		"xi_tokens": in.Xi, "forced": in.Forced}
}
