package cake

import "sort"

// Schedule is the outcome of one way of preparing the KV cache.
type Schedule struct {
	// Name is "compute-only", "load-only", "static-split",
	// "bidirectional" or "bidirectional-claim".
	Name string `json:"name"`
	// TTFT is the time until every chunk's KV cache is ready, seconds.
	TTFT float64 `json:"ttft_s"`
	// Computed and Loaded count the chunks finished by each side (their
	// sum exceeds the chunks when both finished the same chunk).
	Computed int `json:"computed_chunks"`
	Loaded   int `json:"loaded_chunks"`
	// Wasted is work spent on chunks the other side finished first,
	// seconds.
	Wasted float64 `json:"wasted_s"`
}

func prefix(x []float64) []float64 {
	s := make([]float64, len(x)+1)
	for i, v := range x {
		s[i+1] = s[i] + v
	}
	return s
}

// suffix returns s[k] = x[k] + … + x[n−1], summed from the end (the order
// in which a backward worker accumulates time), with s[n] = 0.
func suffix(x []float64) []float64 {
	s := make([]float64, len(x)+1)
	for i := len(x) - 1; i >= 0; i-- {
		s[i] = s[i+1] + x[i]
	}
	return s
}

// ComputeOnly computes every chunk in order: Σ compute costs.
func ComputeOnly(c Costs) Schedule {
	return Schedule{Name: "compute-only", TTFT: prefix(c.Compute)[c.Chunks()], Computed: c.Chunks()}
}

// LoadOnly loads every chunk: Σ load costs.
func LoadOnly(c Costs) Schedule {
	return Schedule{Name: "load-only", TTFT: suffix(c.Load)[0], Loaded: c.Chunks()}
}

// StaticSplit is the best fixed split: compute chunks [0, k) while loading
// chunks [k, n) in parallel, TTFT(k) = max(C_k, L_k) with C_k the compute
// time of the first k chunks and L_k the load time of the rest. C_k never
// decreases in k and L_k never increases, so the optimum is at their
// crossing: the first k with C_k ≥ L_k, or the one before it. It is found
// by binary search (O(n) for the prefix sums, O(log n) for the search).
// With zero-cost chunks several k can be optimal; one of them is returned.
func StaticSplit(c Costs) Schedule {
	n := c.Chunks()
	cp, ls := prefix(c.Compute), suffix(c.Load)
	at := func(k int) float64 { return max(cp[k], ls[k]) }
	// First k with C_k ≥ L_k (k = n always qualifies).
	k := sort.Search(n+1, func(k int) bool { return cp[k] >= ls[k] })
	best := k
	if k > 0 && at(k-1) <= at(k) {
		best = k - 1
	}
	return Schedule{Name: "static-split", TTFT: at(best), Computed: best, Loaded: n - best}
}

// Bidirectional is the paper's Algorithm 1 (appendix A): one worker
// computes chunks from the first forward, another loads chunks from the
// last backward, at the same time. Before starting a chunk a worker checks
// that the other has not finished it (the pointers move when a chunk is
// done), so both may work on the chunk where they meet; the cache is ready
// when every chunk is finished by one of them. It is simulated event by
// event.
//
// In this deterministic model its TTFT equals StaticSplit's: at the end,
// k chunks were computed by time T (so C_k ≤ T) and the other n − k loaded
// by T (so L_k ≤ T); and at T' = max(C_k*, L_k*) of the best split k*
// both workers have passed k*, so T ≤ T'. The schedule finds the best
// split without knowing the costs, which is the paper's point; it never
// loses to compute-only or load-only, since either worker alone would
// finish by those times.
func Bidirectional(c Costs) Schedule {
	return simulate(c, false)
}

// BidirectionalClaim is the bidirectional schedule with exclusive chunks:
// a free worker claims the next chunk from its end only if the other has
// not claimed it, and the cache is ready when both finish. No work is
// duplicated, but a worker can be stuck finishing a slow last chunk that
// the other would have done sooner, so it can lose even to compute-only
// (e.g. compute costs 1, 1, 1 and load costs 100: 100 against 3).
func BidirectionalClaim(c Costs) Schedule {
	return simulate(c, true)
}

// simulate runs the two workers. k counts the chunks finished (race) or
// claimed (claim) from the front, m those from the back.
func simulate(c Costs, claim bool) Schedule {
	n := c.Chunks()
	s := Schedule{Name: "bidirectional"}
	if claim {
		s.Name = "bidirectional-claim"
	}
	var (
		k, m       int     // chunks finished by compute / by load
		kc, mc     int     // chunks started by compute / by load
		cEnd, lEnd float64 // when the current chunk of each worker ends
		cOn, lOn   bool    // whether each worker has a current chunk
		cBeg, lBeg float64 // when it began
	)
	free := func(front bool) bool { // may the worker start its next chunk?
		if claim {
			return kc+mc < n
		}
		if front {
			return kc < n-m // chunk kc not yet loaded
		}
		return n-1-mc >= k // chunk n−1−mc not yet computed
	}
	startC := func(t float64) {
		if cOn = free(true); cOn {
			cBeg, cEnd = t, t+c.Compute[kc]
			kc++
		}
	}
	startL := func(t float64) {
		if lOn = free(false); lOn {
			lBeg, lEnd = t, t+c.Load[n-1-mc]
			mc++
		}
	}
	startC(0)
	startL(0)
	var t float64
	for {
		done := k+m >= n
		if claim {
			done = !cOn && !lOn
		}
		if done {
			break
		}
		// Next event; on a tie both finish at t.
		cNext, lNext := cOn && (!lOn || cEnd <= lEnd), lOn && (!cOn || lEnd <= cEnd)
		if cNext {
			t = cEnd
			k++
			cOn = false
		}
		if lNext {
			t = lEnd
			m++
			lOn = false
		}
		if !claim && k+m >= n {
			break
		}
		if !cOn {
			startC(t)
		}
		if !lOn {
			startL(t)
		}
	}
	s.TTFT, s.Computed, s.Loaded = t, k, m
	if !claim { // the other worker's unfinished chunk is already covered
		if cOn {
			s.Wasted += t - cBeg
		}
		if lOn {
			s.Wasted += t - lBeg
		}
		if k+m > n { // both finished the meeting chunk at the same moment
			s.Wasted += min(c.Compute[k-1], c.Load[n-m])
		}
	}
	return s
}
