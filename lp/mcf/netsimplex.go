package mcf

import (
	"context"
	"errors"
	"fmt"
	"math"
)

// netSimplex is a min-cost flow problem with integer capacities, costs and
// supplies, solved by the primal network simplex method over a strongly
// feasible spanning tree, in the form of Kovács's LEMON implementation
// (Z. Kovács, "Minimum-cost flow algorithms: an experimental evaluation",
// Optim. Methods Softw. 30, 2015): the tree is kept as parent, predecessor
// arc and its direction, a preorder thread with its reverse, subtree sizes
// and last successors; entering arcs are chosen by block search; node
// potentials are updated on the moved subtree only. The start is the
// artificial star: an extra root joined to every node by an arc of cost 0
// (supply nodes) or artCost (demand nodes), which leave the basis or end at
// zero flow when the problem is feasible.
//
// The problem: minimize Σ cost·flow subject to 0 ≤ flow ≤ cap on every arc
// and, at every node, outflow − inflow = supply (Σ supply = 0).
type netSimplex struct {
	n      int // real nodes; the root is node n
	m      int // real arcs; artificial arc of node u is m+u
	source []int32
	target []int32
	cap    []int64
	cost   []int64
	flow   []int64
	state  []int8
	supply []int64

	parent, pred, thread, revThread, succNum, lastSucc []int32
	predDir                                            []int8
	pi                                                 []int64
	dirty                                              []int32

	blockSize, nextArc int
	inArc              int
	join, uIn, vIn     int32
	uOut, vOut         int32
	delta              int64
	pivots             int64
}

const (
	stateUpper = -1
	stateTree  = 0
	stateLower = 1
	dirUp      = 1
	dirDown    = -1
	capInf     = int64(1) << 62
)

func newNetSimplex(nodes, arcsHint int) *netSimplex {
	return &netSimplex{n: nodes, supply: make([]int64, nodes),
		source: make([]int32, 0, arcsHint+nodes), target: make([]int32, 0, arcsHint+nodes),
		cap: make([]int64, 0, arcsHint+nodes), cost: make([]int64, 0, arcsHint+nodes)}
}

// addArc adds an arc u→v with capacity c ≥ 0 and cost w; it returns its
// index.
func (s *netSimplex) addArc(u, v int, c, w int64) int {
	s.source = append(s.source, int32(u))
	s.target = append(s.target, int32(v))
	s.cap = append(s.cap, c)
	s.cost = append(s.cost, w)
	s.m++
	return s.m - 1
}

// solve runs the network simplex. It checks ctx every 4096 pivots.
func (s *netSimplex) solve(ctx context.Context) error {
	n, m := s.n, s.m
	var sum int64
	var maxCost int64
	for _, b := range s.supply {
		sum += b
	}
	if sum != 0 {
		return ErrInfeasible
	}
	for _, c := range s.cost[:m] {
		maxCost = max(maxCost, c, -c)
	}
	if maxCost > math.MaxInt64/4/int64(n+2) {
		return errors.New("min-cost flow: costs too large for int64 potentials")
	}
	artCost := (maxCost + 1) * int64(n+1)
	all := m + n
	s.source = s.source[:m:m]
	s.target = s.target[:m:m]
	s.cap = s.cap[:m:m]
	s.cost = s.cost[:m:m]
	s.source = append(s.source, make([]int32, n)...)
	s.target = append(s.target, make([]int32, n)...)
	s.cap = append(s.cap, make([]int64, n)...)
	s.cost = append(s.cost, make([]int64, n)...)
	s.flow = make([]int64, all)
	s.state = make([]int8, all)
	for e := 0; e < m; e++ {
		s.state[e] = stateLower
	}
	N := n + 1
	s.parent = make([]int32, N)
	s.pred = make([]int32, N)
	s.thread = make([]int32, N)
	s.revThread = make([]int32, N)
	s.succNum = make([]int32, N)
	s.lastSucc = make([]int32, N)
	s.predDir = make([]int8, N)
	s.pi = make([]int64, N)
	root := int32(n)
	s.parent[root] = -1
	s.pred[root] = -1
	s.thread[root] = 0
	s.revThread[0] = root
	s.succNum[root] = int32(N)
	s.lastSucc[root] = root - 1
	for u := 0; u < n; u++ {
		e := m + u
		s.parent[u] = root
		s.pred[u] = int32(e)
		s.thread[u] = int32(u + 1)
		s.revThread[u+1] = int32(u)
		s.succNum[u] = 1
		s.lastSucc[u] = int32(u)
		s.cap[e] = capInf
		s.state[e] = stateTree
		if s.supply[u] >= 0 {
			s.predDir[u] = dirUp
			s.source[e], s.target[e] = int32(u), root
			s.flow[e] = s.supply[u]
		} else {
			s.predDir[u] = dirDown
			s.pi[u] = artCost
			s.source[e], s.target[e] = root, int32(u)
			s.flow[e] = -s.supply[u]
			s.cost[e] = artCost
		}
	}
	s.blockSize = max(10, int(math.Sqrt(float64(m))))
	for m > 0 && s.findEnteringArc(m) {
		s.pivots++
		if s.pivots&4095 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		s.findJoinNode()
		change := s.findLeavingArc()
		if s.delta >= capInf {
			return ErrUnbounded
		}
		s.changeFlow(change)
		if change {
			s.updateTreeStructure()
			s.updatePotential()
		}
	}
	for e := m; e < all; e++ {
		if s.flow[e] != 0 {
			return ErrInfeasible
		}
	}
	return nil
}

// findEnteringArc picks, by block search over the real arcs (artificial
// ones never re-enter, as in LEMON), the arc of most negative reduced cost
// in the first block that has one.
func (s *netSimplex) findEnteringArc(all int) bool {
	var minC int64
	cnt := s.blockSize
	e := s.nextArc
	for i := 0; i < all; i++ {
		c := int64(s.state[e]) * (s.cost[e] + s.pi[s.source[e]] - s.pi[s.target[e]])
		if c < minC {
			minC = c
			s.inArc = e
		}
		e++
		if e == all {
			e = 0
		}
		cnt--
		if cnt == 0 {
			if minC < 0 {
				break
			}
			cnt = s.blockSize
		}
	}
	if minC >= 0 {
		return false
	}
	s.nextArc = e
	return true
}

func (s *netSimplex) findJoinNode() {
	u, v := s.source[s.inArc], s.target[s.inArc]
	for u != v {
		if s.succNum[u] < s.succNum[v] {
			u = s.parent[u]
		} else {
			v = s.parent[v]
		}
	}
	s.join = u
}

func (s *netSimplex) findLeavingArc() bool {
	var first, second int32
	if s.state[s.inArc] == stateLower {
		first, second = s.source[s.inArc], s.target[s.inArc]
	} else {
		first, second = s.target[s.inArc], s.source[s.inArc]
	}
	s.delta = s.cap[s.inArc]
	result := 0
	for u := first; u != s.join; u = s.parent[u] {
		e := s.pred[u]
		d := s.flow[e]
		if s.predDir[u] == dirDown {
			if c := s.cap[e]; c >= capInf {
				d = capInf
			} else {
				d = c - d
			}
		}
		if d < s.delta {
			s.delta, s.uOut, result = d, u, 1
		}
	}
	for u := second; u != s.join; u = s.parent[u] {
		e := s.pred[u]
		d := s.flow[e]
		if s.predDir[u] == dirUp {
			if c := s.cap[e]; c >= capInf {
				d = capInf
			} else {
				d = c - d
			}
		}
		if d <= s.delta {
			s.delta, s.uOut, result = d, u, 2
		}
	}
	if result == 1 {
		s.uIn, s.vIn = first, second
	} else {
		s.uIn, s.vIn = second, first
	}
	return result != 0
}

func (s *netSimplex) changeFlow(change bool) {
	if s.delta > 0 {
		val := int64(s.state[s.inArc]) * s.delta
		s.flow[s.inArc] += val
		for u := s.source[s.inArc]; u != s.join; u = s.parent[u] {
			s.flow[s.pred[u]] -= int64(s.predDir[u]) * val
		}
		for u := s.target[s.inArc]; u != s.join; u = s.parent[u] {
			s.flow[s.pred[u]] += int64(s.predDir[u]) * val
		}
	}
	if change {
		s.state[s.inArc] = stateTree
		if s.flow[s.pred[s.uOut]] == 0 {
			s.state[s.pred[s.uOut]] = stateLower
		} else {
			s.state[s.pred[s.uOut]] = stateUpper
		}
	} else {
		s.state[s.inArc] = -s.state[s.inArc]
	}
}

func (s *netSimplex) updateTreeStructure() {
	uIn, vIn, uOut := s.uIn, s.vIn, s.uOut
	oldRevThread := s.revThread[uOut]
	oldSuccNum := s.succNum[uOut]
	oldLastSucc := s.lastSucc[uOut]
	vOut := s.parent[uOut]
	s.vOut = vOut
	dir := int8(dirDown)
	if uIn == s.source[s.inArc] {
		dir = dirUp
	}
	if uIn == uOut {
		s.parent[uIn] = vIn
		s.pred[uIn] = int32(s.inArc)
		s.predDir[uIn] = dir
		if s.thread[vIn] != uOut {
			after := s.thread[oldLastSucc]
			s.thread[oldRevThread] = after
			s.revThread[after] = oldRevThread
			after = s.thread[vIn]
			s.thread[vIn] = uOut
			s.revThread[uOut] = vIn
			s.thread[oldLastSucc] = after
			s.revThread[after] = oldLastSucc
		}
	} else {
		threadContinue := s.thread[vIn]
		if oldRevThread == vIn {
			threadContinue = s.thread[oldLastSucc]
		}
		stem := uIn
		parStem := vIn
		last := s.lastSucc[uIn]
		after := s.thread[last]
		s.thread[vIn] = uIn
		s.dirty = append(s.dirty[:0], vIn)
		for stem != uOut {
			nextStem := s.parent[stem]
			s.thread[last] = nextStem
			s.dirty = append(s.dirty, last)
			before := s.revThread[stem]
			s.thread[before] = after
			s.revThread[after] = before
			s.parent[stem] = parStem
			parStem = stem
			stem = nextStem
			if s.lastSucc[stem] == s.lastSucc[parStem] {
				last = s.revThread[parStem]
			} else {
				last = s.lastSucc[stem]
			}
			after = s.thread[last]
		}
		s.parent[uOut] = parStem
		s.thread[last] = threadContinue
		s.revThread[threadContinue] = last
		s.lastSucc[uOut] = last
		if oldRevThread != vIn {
			s.thread[oldRevThread] = after
			s.revThread[after] = oldRevThread
		}
		for _, u := range s.dirty {
			s.revThread[s.thread[u]] = u
		}
		tmpSc := int32(0)
		tmpLs := s.lastSucc[uOut]
		for u, p := uOut, s.parent[uOut]; u != uIn; u, p = p, s.parent[p] {
			s.pred[u] = s.pred[p]
			s.predDir[u] = -s.predDir[p]
			tmpSc += s.succNum[u] - s.succNum[p]
			s.succNum[u] = tmpSc
			s.lastSucc[p] = tmpLs
		}
		s.pred[uIn] = int32(s.inArc)
		s.predDir[uIn] = dir
		s.succNum[uIn] = oldSuccNum
	}
	upLimitOut := int32(-1)
	if s.lastSucc[s.join] == vIn {
		upLimitOut = s.join
	}
	lastSuccOut := s.lastSucc[uOut]
	for u := vIn; u != -1 && s.lastSucc[u] == vIn; u = s.parent[u] {
		s.lastSucc[u] = lastSuccOut
	}
	if s.join != oldRevThread && vIn != oldRevThread {
		for u := vOut; u != upLimitOut && s.lastSucc[u] == oldLastSucc; u = s.parent[u] {
			s.lastSucc[u] = oldRevThread
		}
	} else if lastSuccOut != oldLastSucc {
		for u := vOut; u != upLimitOut && s.lastSucc[u] == oldLastSucc; u = s.parent[u] {
			s.lastSucc[u] = lastSuccOut
		}
	}
	for u := vIn; u != s.join; u = s.parent[u] {
		s.succNum[u] += oldSuccNum
	}
	for u := vOut; u != s.join; u = s.parent[u] {
		s.succNum[u] -= oldSuccNum
	}
}

func (s *netSimplex) updatePotential() {
	c := s.cost[s.inArc]
	if s.predDir[s.uIn] != dirUp {
		c = -c
	}
	sigma := s.pi[s.vIn] - s.pi[s.uIn] - c
	end := s.thread[s.lastSucc[s.uIn]]
	if int(s.succNum[s.uIn]) <= (s.n+1)/2 {
		for u := s.uIn; u != end; u = s.thread[u] {
			s.pi[u] += sigma
		}
		return
	}
	// Potentials matter up to a constant: shift the smaller side, the
	// nodes outside the moved subtree, by −σ instead.
	for u := end; u != s.uIn; u = s.thread[u] {
		s.pi[u] -= sigma
	}
}

// networkSimplex solves g by the network simplex (method NetworkSimplex).
func (g *Network) networkSimplex(ctx context.Context) ([]int64, string, error) {
	s := newNetSimplex(g.n, len(g.src))
	copy(s.supply, g.supply)
	for i := range g.src {
		s.addArc(int(g.src[i]), int(g.dst[i]), g.cap[i], g.cost[i])
	}
	err := s.solve(ctx)
	stats := fmt.Sprintf("%d pivots", s.pivots)
	if err != nil {
		return nil, stats, err
	}
	return append([]int64(nil), s.flow[:len(g.src)]...), stats, nil
}
