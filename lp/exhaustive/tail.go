package exhaustive

import (
	"slices"
	"strconv"
	"strings"

	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/trace"
)

// MaxMeeting returns the most turns of tr with at most s uncached tokens
// (b_k = D_k − x_k ≤ s) over every admissible schedule under p, by the
// same search over cache states as Optimum (the decisions after each turn:
// the served conversation keeps any whole number of blocks up to its new
// history and the capacity, exactly that under forced caching; every other
// conversation any whole number of blocks up to what it holds; the total
// within capacity), memoized on the cache state after each turn. A
// conversation's first turn finds nothing cached. Exponential in the
// number of conversations: use it on small instances. p must be valid.
func MaxMeeting(tr *trace.Trace, p instance.Params, s int64) int {
	return search(tr, p, func(b int64) int {
		if b <= s {
			return 1
		}
		return 0
	})
}

// MinPercentile returns the least Q-th nearest-rank percentile (Q in
// (0, 100), percent; rank r given) of uncached tokens over every
// admissible schedule: the least value v such that some schedule has at
// least r turns with b ≤ v (the r-th smallest of a schedule's b is ≤ v
// exactly then), trying every v from 0 up. rank must be in [1, K].
func MinPercentile(tr *trace.Trace, p instance.Params, rank int) int64 {
	for v := int64(0); ; v++ {
		if MaxMeeting(tr, p, v) >= rank {
			return v
		}
	}
}

// AllUncached calls visit with the uncached tokens b_k of every turn under
// every admissible schedule (with repetitions), without memoization: for
// cross-checking MaxMeeting and MinPercentile on very small instances.
func AllUncached(tr *trace.Trace, p instance.Params, visit func(b []int64)) {
	n := tr.Conversations()
	hist := make([]int64, n)
	x := make([]int64, n)
	b := make([]int64, len(tr.Turns))
	var dfs func(k int)
	dfs = func(k int) {
		if k == len(tr.Turns) {
			visit(b)
			return
		}
		t := tr.Turns[k]
		c := t.Conv
		b[k] = hist[c] + t.Prompt - x[c]
		old := slices.Clone(x)
		hist[c] += t.Prompt + t.Response
		eachNext(p, old, c, hist[c], x, func() { dfs(k + 1) })
		hist[c] -= t.Prompt + t.Response
		copy(x, old)
	}
	dfs(0)
}

// search maximizes Σ_k gain(b_k) over every admissible schedule.
func search(tr *trace.Trace, p instance.Params, gain func(b int64) int) int {
	n := tr.Conversations()
	hist := make([]int64, n)
	memo := make([]map[string]int, len(tr.Turns)+1)
	for i := range memo {
		memo[i] = map[string]int{}
	}
	key := func(x []int64) string {
		var sb strings.Builder
		for _, v := range x {
			sb.WriteString(strconv.FormatInt(v, 10))
			sb.WriteByte(',')
		}
		return sb.String()
	}
	// best(k, x): most gain from turn k on, the cache holding x (tokens
	// per conversation) when turn k arrives. hist is that of turn k.
	var best func(k int, x []int64) int
	best = func(k int, x []int64) int {
		if k == len(tr.Turns) {
			return 0
		}
		kk := key(x)
		if v, ok := memo[k][kk]; ok {
			return v
		}
		t := tr.Turns[k]
		c := t.Conv
		here := gain(hist[c] + t.Prompt - x[c])
		hist[c] += t.Prompt + t.Response
		top := -1
		y := make([]int64, n)
		eachNext(p, x, c, hist[c], y, func() { top = max(top, best(k+1, y)) })
		hist[c] -= t.Prompt + t.Response
		v := here + top
		memo[k][kk] = v
		return v
	}
	return best(0, make([]int64, n))
}
