package prefixtail

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/tailbound/tailbound/internal/segtree"
)

// Local search on the upper end (issue 32, item 2, at block level).
//
// A schedule is a 0/1 choice x of the needed intervals that keeps the
// prefix rule (x_child ≤ x_parent) and the capacity rows
// (Σ_{p<t<q} x_I ≤ C − |chain_t|); by lp/prefix's theorem the cache can
// realise every such choice, and its cost is Base − Σ w·x. The search
// starts from a replayed schedule (its hits give x: the interval of the
// depth-d block ending at request q is kept iff q hit more than d
// blocks), and repeats ruin and recreate:
//
//   - pick a weighted interval u that is not kept (a saving missed) and
//     call its span (P, Q) the window;
//   - ruin: drop a few kept weighted intervals whose spans meet the window
//     (with every kept interval that needs them: their children), then
//     drop the kept intervals of weight 0 that no kept interval needs any
//     more (they only held capacity);
//   - recreate: try u, the dropped ones and the other missed savings
//     whose spans meet the window (for TEL at most localCands of them,
//     drawn at random), in order of weight per block-request
//     of capacity they would newly take (random factors break ties and
//     vary the order): each is kept with every ancestor interval it
//     needs when the capacity rows still hold (a lazy segment tree keeps
//     the free capacity per request), else left out;
//   - keep the result when it saves at least as much as before (equal
//     moves walk the plateau), else undo it.
//
// Every step keeps x feasible, so the best x met is a schedule; it is
// then replayed through the cache (Replay with Guided and x as the guide)
// and the replay's own cost is the one reported; a replay costing more
// than Base − Σ w·x is an error (it would mean the model of the schedule
// is wrong). The search is deterministic for a given seed and round
// count; the context stops it early with the best x so far.

// LocalOptions configure Problem.Improve.
type LocalOptions struct {
	// Rounds is the number of ruin-and-recreate rounds (0:
	// DefaultLocalRounds).
	Rounds int
	// Seed seeds the random choices.
	Seed uint64
	// Target stops the search once the cost is at most Target (objective
	// units; −Inf: no target).
	Target float64
}

// DefaultLocalRounds is LocalOptions.Rounds's default.
const DefaultLocalRounds = 4000

// localRuin is the most kept weighted intervals a round drops;
// localCands the most missed savings (drawn uniformly among those whose
// spans meet the window) a round tries besides them, for TEL: there a
// window can meet thousands (a weight on every block above ξ's depth),
// each try walking its ancestors. SLO has one weighted interval per
// request and tries them all: on the synthetic Mooncake trace at 1,024
// blocks the sample of 64 ended at 1,692 violations, all of them at 1,688.
const (
	localRuin  = 6
	localCands = 64
)

// local is the state of the search.
type local struct {
	p        *Problem
	parents  [][]int32
	children [][]int32
	kept     []bool
	saved    float64 // Σ w over kept intervals
	slack    *segtree.Max
	log      []int32 // +(j+1): kept, −(j+1): dropped, since the round began
	stamp    []uint32
	cur      uint32
	stack    []int32
	buf      []int32
}

// newLocal returns the search state at schedule x (0/1 per column), or an
// error when x breaks the prefix rule or a capacity row.
func (p *Problem) newLocal(x []bool) (*local, error) {
	nc := len(p.Cols)
	l := &local{p: p, parents: make([][]int32, nc), children: make([][]int32, nc), kept: make([]bool, nc), stamp: make([]uint32, nc)}
	for _, pr := range p.prec {
		l.parents[pr[0]] = append(l.parents[pr[0]], pr[1])
		l.children[pr[1]] = append(l.children[pr[1]], pr[0])
		if x[pr[0]] && !x[pr[1]] {
			return nil, fmt.Errorf("schedule keeps the interval of block %d ending at request %d without its parent's", p.Cols[pr[0]].Block, p.Cols[pr[0]].Q)
		}
	}
	n := len(p.Reqs)
	diff := make([]int64, n+1)
	for j, iv := range p.Cols {
		if x[j] {
			l.kept[j] = true
			l.saved += iv.Weight
			diff[iv.P+1]--
			diff[iv.Q]++
		}
	}
	free := make([]int64, n)
	var run int64
	for t := range n {
		run += diff[t]
		free[t] = int64(p.CapacityBlocks-len(p.Reqs[t].Blocks)) + run
		if free[t] < 0 {
			return nil, fmt.Errorf("schedule keeps %d blocks too many across request %d", -free[t], t)
		}
	}
	over := make([]int64, n) // blocks over capacity per request: −free
	for t, f := range free {
		over[t] = -f
	}
	l.slack = segtree.NewMax(over)
	return l, nil
}

// set keeps or drops interval j, logging the change.
func (l *local) set(j int32, on bool) {
	iv := l.p.Cols[j]
	l.kept[j] = on
	if on {
		l.slack.Add(int(iv.P)+1, int(iv.Q)-1, 1)
		l.saved += iv.Weight
		l.log = append(l.log, j+1)
		return
	}
	l.slack.Add(int(iv.P)+1, int(iv.Q)-1, -1)
	l.saved -= iv.Weight
	l.log = append(l.log, -(j + 1))
}

// undo reverts the changes logged since mark.
func (l *local) undo(mark int) {
	for i := len(l.log) - 1; i >= mark; i-- {
		e := l.log[i]
		if e > 0 {
			l.set(e-1, false)
		} else {
			l.set(-e-1, true)
		}
	}
	l.log = l.log[:mark]
}

// upClosure returns the intervals not kept that keeping j needs: j and
// its ancestors' intervals, in l.buf (reused).
func (l *local) upClosure(j int32) []int32 {
	l.cur++
	l.buf = l.buf[:0]
	l.stack = append(l.stack[:0], j)
	for len(l.stack) > 0 {
		k := l.stack[len(l.stack)-1]
		l.stack = l.stack[:len(l.stack)-1]
		if l.kept[k] || l.stamp[k] == l.cur {
			continue
		}
		l.stamp[k] = l.cur
		l.buf = append(l.buf, k)
		l.stack = append(l.stack, l.parents[k]...)
	}
	return l.buf
}

// newArea returns the block-requests of capacity keeping j would newly
// take (Σ over its closure of Q − P − 1).
func (l *local) newArea(j int32) int64 {
	var a int64
	for _, k := range l.upClosure(j) {
		iv := l.p.Cols[k]
		a += int64(iv.Q - iv.P - 1)
	}
	return a
}

// tryKeep keeps j with every interval it needs when the capacity rows
// still hold, and reports whether it did.
func (l *local) tryKeep(j int32) bool {
	if l.kept[j] {
		return true
	}
	mark := len(l.log)
	for _, k := range l.upClosure(j) {
		l.set(k, true)
	}
	if l.slack.Max(0, l.slack.Len()-1) > 0 {
		l.undo(mark)
		return false
	}
	return true
}

// drop drops j and every kept interval that needs it, then the kept
// intervals of weight 0 above them that nothing kept needs any more.
func (l *local) drop(j int32) {
	if !l.kept[j] {
		return
	}
	l.stack = append(l.stack[:0], j)
	var dropped []int32
	for len(l.stack) > 0 {
		k := l.stack[len(l.stack)-1]
		l.stack = l.stack[:len(l.stack)-1]
		if !l.kept[k] {
			continue
		}
		l.set(k, false)
		dropped = append(dropped, k)
		for _, c := range l.children[k] {
			if l.kept[c] {
				l.stack = append(l.stack, c)
			}
		}
	}
	// Ancestors left holding nothing.
	var up []int32
	for _, k := range dropped {
		up = append(up, l.parents[k]...)
	}
	for len(up) > 0 {
		k := up[len(up)-1]
		up = up[:len(up)-1]
		if !l.kept[k] || l.p.Cols[k].Weight > 0 {
			continue
		}
		needed := false
		for _, c := range l.children[k] {
			if l.kept[c] {
				needed = true
				break
			}
		}
		if !needed {
			l.set(k, false)
			up = append(up, l.parents[k]...)
		}
	}
}

// Schedule is a schedule replayed through the cache.
type Schedule struct {
	// Guide is the schedule as a 0/1 value per column (for Replay with
	// Guided): 1 when the interval is kept.
	Guide []float64
	// Hits are the hits per request, blocks, as the cache reported them.
	Hits []int
	// Cost is its cost, objective units, from those hits.
	Cost float64
}

// Improve runs the local search of local.go from the schedule whose hits
// per request are hits (a replay's), and returns the best schedule found,
// replayed through the cache. Its cost is never above that of hits.
// Stopped by ctx it returns the best so far.
func (p *Problem) Improve(ctx context.Context, hits []int, opt LocalOptions) (*Schedule, error) {
	if len(hits) != len(p.Reqs) {
		return nil, fmt.Errorf("improve: %d hit counts for %d requests", len(hits), len(p.Reqs))
	}
	rounds := opt.Rounds
	if rounds <= 0 {
		rounds = DefaultLocalRounds
	}
	x0 := make([]bool, len(p.Cols))
	for j, iv := range p.Cols {
		x0[j] = hits[iv.Q] > int(iv.Depth)
	}
	l, err := p.newLocal(x0)
	if err != nil {
		return nil, fmt.Errorf("improve: the start %w", err)
	}
	start := p.Base - l.saved
	var weighted []int32
	for j, iv := range p.Cols {
		if iv.Weight > 0 {
			weighted = append(weighted, int32(j))
		}
	}
	rng := rand.New(rand.NewPCG(opt.Seed, 0x9e3779b97f4a7c15))
	best := slices.Clone(l.kept)
	bestSaved := l.saved
	eps := tol * max(1, math.Abs(p.Base))
	done := func() bool { return p.Base-bestSaved <= opt.Target+eps }
	type cand struct {
		j   int32
		key float64
	}
	var cands []cand
	var missed, ruin, pool []int32
	for r := 0; r < rounds && !done(); r++ {
		if r&15 == 0 && ctx.Err() != nil {
			break
		}
		missed = missed[:0]
		for _, j := range weighted {
			if !l.kept[j] {
				missed = append(missed, j)
			}
		}
		if len(missed) == 0 {
			break
		}
		u := missed[rng.IntN(len(missed))]
		a, b := l.p.Cols[u].P, l.p.Cols[u].Q
		l.log = l.log[:0]
		before := l.saved
		ruin = ruin[:0]
		for _, j := range weighted {
			if iv := l.p.Cols[j]; l.kept[j] && iv.P < b && iv.Q > a {
				ruin = append(ruin, j)
			}
		}
		rng.Shuffle(len(ruin), func(i, k int) { ruin[i], ruin[k] = ruin[k], ruin[i] })
		ruin = ruin[:min(len(ruin), 1+rng.IntN(localRuin))]
		for _, j := range ruin {
			l.drop(j)
		}
		pool = append(pool[:0], ruin...)
		seen := 0
		for _, j := range weighted {
			if iv := l.p.Cols[j]; !l.kept[j] && iv.P < b && iv.Q > a {
				// a uniform sample of localCands of them (reservoir)
				if seen++; seen <= localCands || p.Obj.Kind == SLO {
					pool = append(pool, j)
				} else if k := rng.IntN(seen); k < localCands {
					pool[len(ruin)+k] = j
				}
			}
		}
		cands = cands[:0]
		for _, j := range pool {
			if !l.kept[j] {
				iv := l.p.Cols[j]
				cands = append(cands, cand{j, iv.Weight / float64(1+l.newArea(j)) * (0.7 + 0.6*rng.Float64())})
			}
		}
		slices.SortFunc(cands, func(x, y cand) int {
			switch {
			case x.key > y.key:
				return -1
			case x.key < y.key:
				return 1
			}
			return int(x.j - y.j)
		})
		l.tryKeep(u)
		for _, c := range cands {
			l.tryKeep(c.j)
		}
		if l.saved < before-eps {
			l.undo(0)
			continue
		}
		if l.saved > bestSaved+eps {
			bestSaved = l.saved
			copy(best, l.kept)
		}
	}
	guide := make([]float64, len(p.Cols))
	for j, k := range best {
		if k {
			guide[j] = 1
		}
	}
	h, v, err := p.Replay(Guided, guide)
	if err != nil {
		return nil, fmt.Errorf("improve: replay: %w", err)
	}
	if model := p.Base - bestSaved; v > model+eps {
		return nil, fmt.Errorf("improve: the schedule found costs %v by the program but %v replayed", model, v)
	}
	if v > start+eps {
		return nil, fmt.Errorf("improve: replayed cost %v above the start's %v", v, start)
	}
	return &Schedule{Guide: guide, Hits: h, Cost: v}, nil
}
