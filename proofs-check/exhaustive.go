package proofscheck

import (
	"math"

	"github.com/tailbound/tailbound/models/trace"
)

// Exhaustive returns the least TEL (tokens) over every admissible schedule
// of cached amounts, by depth-first search over all decisions after each
// turn: the served conversation keeps any whole number of blocks up to its
// new history and the capacity (exactly that in forced mode), every other
// conversation any whole number of blocks up to what it holds, with the
// total within capacity. It shares no code with the policies or solvers,
// and is exponential: use it on instances of a few turns.
func Exhaustive(tr *trace.Trace, capacity, block int64, xi float64, forced bool) float64 {
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
		var choose func(i int, total int64)
		choose = func(i int, total int64) {
			if i == n {
				dfs(k+1, tel)
				return
			}
			lo, hi := int64(0), old[i]
			if i == c {
				hi = min(hist[c]/block*block, capacity)
				if forced {
					lo = hi
				}
			}
			for a := lo; a <= hi && total+a <= capacity; a += block {
				x[i] = a
				choose(i+1, total+a)
			}
			x[i] = old[i]
		}
		choose(0, 0)
		hist[c] -= t.Prompt + t.Response
		copy(x, old)
	}
	dfs(0, 0)
	return best
}
