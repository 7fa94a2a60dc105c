package proofscheck

import (
	"github.com/tailbound/tailbound/lp/exhaustive"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/trace"
)

// Exhaustive returns the least TEL (tokens) over every admissible schedule
// of cached amounts: exhaustive.Optimum, which shares no code with the
// policies or solvers. It is exponential: use it on instances of a few
// turns.
func Exhaustive(tr *trace.Trace, capacity, block int64, xi float64, forced bool) float64 {
	return exhaustive.Optimum(tr, instance.Params{Capacity: capacity, BlockSize: block, Xi: xi, Forced: forced})
}
