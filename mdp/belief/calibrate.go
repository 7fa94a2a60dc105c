package belief

import (
	"fmt"
	"math"

	"github.com/tailbound/tailbound/models/birthdeath"
)

// Bin is the comparison of beliefs with the truth over the conversations
// whose silence at the snapshot fell in [Lo, Hi) seconds.
type Bin struct {
	Lo, Hi  float64   // silence range, seconds
	N       int       // conversations in the bin
	Alive   float64   // fraction of them alive at the snapshot (the truth)
	Mean    []float64 // mean predicted P(alive) per belief, in the order given
	SE      float64   // √(Σ p(1−p))/N under the first belief: the sd of Alive if it is right
	ZFirst  float64   // (Alive − Mean[0]) / SE
	Samples int       // snapshots pooled
}

// Calibrate samples the birth–death model p and compares beliefs with the
// truth. Each replication r = 0..reps−1 draws an independent trace with
// seed (seed, r) and takes one snapshot at the end of its births
// (p.Duration seconds): every conversation born by then is silent for
// s = snapshot − its latest turn, and is alive iff its hidden death time
// is after the snapshot. Conversations are binned by s with edges
// (seconds, increasing); per bin it reports the fraction alive and the mean
// probability each belief gives. Conversations are independent in the model,
// so under the hypothesis that the first belief is the exact posterior, the
// fraction alive in a bin has mean Mean[0] and standard deviation SE.
func Calibrate(p birthdeath.Params, beliefs []Belief, edges []float64, reps int, seed uint64) ([]Bin, error) {
	if len(edges) < 2 || len(beliefs) == 0 || reps < 1 {
		return nil, fmt.Errorf("calibrate: need ≥ 2 bin edges, ≥ 1 belief and ≥ 1 replication")
	}
	for i := 1; i < len(edges); i++ {
		if !(edges[i] > edges[i-1]) {
			return nil, fmt.Errorf("calibrate: bin edges must increase, got %v", edges)
		}
	}
	if !(p.Duration > 0) {
		return nil, fmt.Errorf("calibrate: the snapshot is at the end of births, so a duration > 0 s is needed")
	}
	bins := make([]Bin, len(edges)-1)
	alive := make([]float64, len(bins))
	sum := make([][]float64, len(bins))
	vars := make([]float64, len(bins))
	for i := range bins {
		bins[i].Lo, bins[i].Hi = edges[i], edges[i+1]
		sum[i] = make([]float64, len(beliefs))
	}
	snap := p.Duration
	q := p
	q.MaxTurns = 0
	type conv struct {
		h     History
		death float64
	}
	for r := 0; r < reps; r++ {
		var convs []conv
		err := birthdeath.Generate(q, seed*1000003+uint64(r), func(t birthdeath.Turn) error {
			if t.T > snap {
				return nil
			}
			for len(convs) <= t.ConvID {
				convs = append(convs, conv{})
			}
			c := &convs[t.ConvID]
			if c.h.Turns == 0 {
				c.h.First = t.T
			}
			c.h.Last, c.death = t.T, t.Death
			c.h.Turns++
			return nil
		})
		if err != nil {
			return nil, err
		}
		for _, c := range convs {
			if c.h.Turns == 0 {
				continue
			}
			s := snap - c.h.Last
			i := binOf(edges, s)
			if i < 0 {
				continue
			}
			bins[i].N++
			if c.death > snap {
				alive[i]++
			}
			for k, b := range beliefs {
				pa := b.Alive(c.h, snap)
				sum[i][k] += pa
				if k == 0 {
					vars[i] += pa * (1 - pa)
				}
			}
		}
	}
	for i := range bins {
		b := &bins[i]
		b.Samples = reps
		b.Mean = make([]float64, len(beliefs))
		if b.N == 0 {
			continue
		}
		n := float64(b.N)
		b.Alive = alive[i] / n
		for k := range beliefs {
			b.Mean[k] = sum[i][k] / n
		}
		b.SE = math.Sqrt(vars[i]) / n
		if b.SE > 0 {
			b.ZFirst = (b.Alive - b.Mean[0]) / b.SE
		}
	}
	return bins, nil
}

// binOf returns the bin of s in edges, or −1 outside them.
func binOf(edges []float64, s float64) int {
	if s < edges[0] || s >= edges[len(edges)-1] {
		return -1
	}
	lo, hi := 0, len(edges)-1
	for hi-lo > 1 {
		m := (lo + hi) / 2
		if s >= edges[m] {
			lo = m
		} else {
			hi = m
		}
	}
	return lo
}
