// Package exhaustive finds the hindsight TEL optimum of small instances by
// trying every admissible schedule. It is written from the model of SPEC
// §2 alone and shares no code with the policies or the solvers, so the
// solvers' tests and proofs-check measure them against it.
package exhaustive

import (
	"math"

	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/trace"
)

// Optimum returns the least TEL (tokens) over every admissible schedule of
// cached amounts of trace tr under parameters p, by depth-first search over
// all decisions after each turn: the served conversation keeps any whole
// number of blocks up to its new history and the capacity (exactly that
// under forced caching), every other conversation any whole number of
// blocks up to what it holds, with the total within capacity. A branch is
// abandoned once its TEL so far reaches the best found. The search is
// exponential: use it on instances of a few turns. p must be valid
// (p.Validate).
func Optimum(tr *trace.Trace, p instance.Params) float64 {
	xi := p.Xi
	n := tr.Conversations()
	hist := make([]int64, n)
	x := make([]int64, n)
	best := math.Inf(1)
	var dfs func(k int, tel float64)
	dfs = func(k int, tel float64) {
		if tel >= best {
			return
		}
		if k == len(tr.Turns) {
			best = tel
			return
		}
		t := tr.Turns[k]
		c := t.Conv
		tel += math.Max(float64(hist[c]+t.Prompt-x[c])-xi, 0)
		old := append([]int64(nil), x...)
		hist[c] += t.Prompt + t.Response
		eachNext(p, old, c, hist[c], x, func() { dfs(k+1, tel) })
		hist[c] -= t.Prompt + t.Response
		copy(x, old)
	}
	dfs(0, 0)
	return best
}

// eachNext sets y to every cache state that may follow state x after a
// turn of conversation c, whose history is then hist tokens, and calls
// visit for each: c keeps any whole number of blocks up to hist and the
// capacity (exactly that under forced caching), every other conversation
// any whole number of blocks up to what it holds in x, the total within
// capacity. y is left equal to x (it may be x itself only if visit does
// not read x).
func eachNext(p instance.Params, x []int64, c int, hist int64, y []int64, visit func()) {
	capacity, block := p.Capacity, p.BlockSize
	var choose func(i int, total int64)
	choose = func(i int, total int64) {
		if i == len(x) {
			visit()
			return
		}
		lo, hi := int64(0), x[i]
		if i == c {
			hi = min(hist/block*block, capacity)
			if p.Forced {
				lo = hi
			}
		}
		for a := lo; a <= hi && total+a <= capacity; a += block {
			y[i] = a
			choose(i+1, total+a)
		}
		y[i] = x[i]
	}
	choose(0, 0)
}
