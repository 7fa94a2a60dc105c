package proofscheck

import (
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/trace"
)

// figure1Traces are Figure 1's two possible traces: A then B send 100
// tokens each (t in seconds), and the third turn of 100 tokens comes from
// third ("A" or "B").
func figure1Traces(third string) []trace.Record {
	return []trace.Record{{T: 0, Conv: "A", Prompt: 100}, {T: 1, Conv: "B", Prompt: 100}, {T: 2, Conv: third, Prompt: 100}}
}

// Command implements claim.Runnable: both possible traces piped into
// 'tailbound simulate' under LRU and T-LRU (Q̂ = 100 tokens) at C = 100
// tokens, B = 1, ξ = 150 tokens; the claim's worst case is the larger "max
// uncached" of each policy over the two runs (LRU 200 tokens, T-LRU 150).
func (figure1Instance) Command() string {
	flags := paramFlags(instance.Params{Capacity: 100, BlockSize: 1, Xi: 150}) + " --policies lru,tlru --qhat 100"
	return pipeTrace(figure1Traces("A"), "simulate", flags) + " ; " + pipeTrace(figure1Traces("B"), "simulate", flags)
}
