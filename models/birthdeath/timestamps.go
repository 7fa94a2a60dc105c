package birthdeath

import (
	"fmt"
	"math/rand/v2"
	"sort"

	"github.com/tailbound/tailbound/models/trace"
)

// Timestamps returns a copy of tr with synthetic arrival times, for traces
// whose turns are known but whose times are not (the tail-latency paper did
// this for ShareGPT). The method is the birth–death model without deaths,
// since the number of turns of each conversation is already given:
//
//   - conversations, in order of first appearance, are born at the arrival
//     times of a Poisson process of rate lambdaConv per second; the first
//     turn of a conversation is at its birth;
//   - each conversation draws its own turn rate λ̄ from rates, and its later
//     turns follow, in their original order, after independent exponential
//     gaps of mean 1/λ̄ seconds;
//   - all turns are then merged in time order (ties keep the original order).
//
// The order of the turns within each conversation, their lengths,
// categories and users are kept.
func Timestamps(tr *trace.Trace, lambdaConv float64, rates RateDist, seed uint64) (*trace.Trace, error) {
	if !(lambdaConv > 0) {
		return nil, fmt.Errorf("timestamps: lambda-conv must be > 0 per second, got %v", lambdaConv)
	}
	if rates == nil {
		return nil, fmt.Errorf("timestamps: a turn-rate distribution is needed")
	}
	r := rand.New(rand.NewPCG(seed, 0x74696d6573746d70)) // "timestmp"
	n := tr.Conversations()
	next := make([]float64, n) // time of each conversation's next turn
	rate := make([]float64, n)
	started := make([]bool, n)
	birth := 0.0
	times := make([]float64, len(tr.Turns))
	for k, t := range tr.Turns {
		c := t.Conv
		if !started[c] {
			birth += r.ExpFloat64() / lambdaConv
			started[c], next[c], rate[c] = true, birth, rates.Sample(r)
		}
		times[k] = next[c]
		next[c] += r.ExpFloat64() / rate[c]
	}
	order := make([]int, len(tr.Turns))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return times[order[a]] < times[order[b]] })
	out := &trace.Trace{Names: append([]string(nil), tr.Names...), Turns: make([]trace.Turn, len(order))}
	for i, k := range order {
		t := tr.Turns[k]
		t.Index, t.Time = i, times[k]
		out.Turns[i] = t
	}
	return out, nil
}
