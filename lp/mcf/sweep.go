package mcf

import (
	"context"
	"fmt"
)

// sweep solves the step network of SolveFlow by successive shortest paths,
// adding the piece arcs in order of their end node (the time order of the
// turns they serve) — the method named Sweep.
//
// The network: line arcs t→t+1 (the first K arcs, cost 0; their flow is
// the free capacity of step t, and their capacity never binds because the
// supplies fix every cut's flow at cap_t, so they are treated as
// uncapacitated) and piece arcs a→n of negative cost −w (w > 0), given in
// order of n and, for one n, of decreasing w. Start: no piece arc, line
// flow cap_t, potentials 0 — optimal, with reduced costs
// c + π(u) − π(v) ≥ 0 on every residual arc.
//
// Adding arc j = a→n keeps the flow optimal by the arc-addition step of
// successive shortest paths: while j has capacity left and the cheapest
// residual path from n back to a costs less than w (a negative cycle
// through j), push the path's bottleneck around that cycle. Paths are found
// by Dijkstra on reduced costs, from n over nodes ≤ n only (the arcs of
// later pieces are not there yet, and nodes beyond n carry only line arcs,
// which cannot shorten a path back to a < n). The search stops as soon as
// the popped distance shows that no path can cost less than w, so it stays
// within the neighbourhood where an exchange could pay. After each search
// the potentials are updated by π(v) += min(d(v), D) − D for the nodes
// settled (D the last distance popped) and by −D for the nodes beyond n;
// all of them lie at or beyond the source n, where π equals the future's
// common potential, so nodes joining later start at π(n). These keep all
// reduced costs non-negative, including j's own residual arcs, so the next
// addition starts from an optimal flow with valid potentials. When the last
// piece is added the flow is a min-cost flow.
//
// Each node has at most four piece arcs (two ending, two starting), so the
// residual graph is never stored: arcs are read from the piece and line
// arrays. Costs are integers, so all comparisons are exact.
type sweep struct {
	g        *Network
	k        int     // line arcs 0..k-1 over nodes 0..k
	free     []int64 // flow on line arc t
	flow     []int64 // flow on piece arcs (index − k)
	pi       []int64
	outFirst []int32 // pieces starting at node v: outArc[outFirst[v]:outFirst[v+1]]
	outArc   []int32
	inFirst  []int32 // pieces ending at node v: arcs inFirst[v] .. inFirst[v+1]-1
	dist     []int64
	mark     []int32 // search id that reached the node
	done     []int32 // search id that settled the node
	parent   []int32 // encoded arc used to reach the node
	settled  []int32
	heap     distHeap
	searches int32

	dijkstras, augments, scanned int64
}

// Parent arc codes: 4·index + kind.
const (
	lineFwd = iota // t → t+1 (index t)
	lineBwd        // t+1 → t (index t)
	pieceFwd
	pieceBwd
)

func newSweep(g *Network, k int) *sweep {
	s := &sweep{g: g, k: k, free: make([]int64, k), flow: make([]int64, len(g.src)-k),
		pi: make([]int64, g.n), dist: make([]int64, g.n), mark: make([]int32, g.n), done: make([]int32, g.n),
		parent: make([]int32, g.n)}
	var load int64
	for t := 0; t < k; t++ { // line flow = the cut's capacity: the running supply
		load += g.supply[t]
		s.free[t] = load
	}
	s.outFirst = make([]int32, g.n+1)
	s.inFirst = make([]int32, g.n+1)
	for e := k; e < len(g.src); e++ {
		s.outFirst[g.src[e]+1]++
		s.inFirst[g.dst[e]+1]++
	}
	for v := 0; v < g.n; v++ {
		s.outFirst[v+1] += s.outFirst[v]
		s.inFirst[v+1] += s.inFirst[v]
	}
	fill := append([]int32(nil), s.outFirst[:g.n]...)
	s.outArc = make([]int32, len(g.src)-k)
	for e := k; e < len(g.src); e++ {
		s.outArc[fill[g.src[e]]] = int32(e)
		fill[g.src[e]]++
	}
	return s
}

// solve adds the pieces in order of their end node.
func (s *sweep) solve(ctx context.Context) error {
	g := s.g
	e := s.k
	for n := 1; n < g.n; n++ {
		s.pi[n] = s.pi[n-1] // n joins at the future's potential
		if n&1023 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		for ; e < len(g.src) && int(g.dst[e]) == n; e++ {
			if !s.add(e, n) {
				// No profitable cycle at this piece's savings: none at the
				// next, smaller ones either; their reduced costs are
				// positive. Skip them.
				for e+1 < len(g.src) && int(g.dst[e+1]) == n {
					e++
				}
			}
		}
	}
	if e != len(g.src) {
		return fmt.Errorf("min-cost flow sweep: piece arcs not in order of their end node")
	}
	return nil
}

// add inserts piece arc e = a→n and cancels the negative cycles through
// it. It reports whether the piece ended saturated.
func (s *sweep) add(e, n int) bool {
	g := s.g
	a := int(g.src[e])
	w := -g.cost[e]
	left := g.cap[e]
	for left > 0 {
		cost, ok := s.search(n, a, w)
		if !ok || cost >= w {
			return false
		}
		d := left
		for v := a; v != n; { // bottleneck along the path n → a
			code := s.parent[v]
			idx, kind := int(code>>2), code&3
			switch kind {
			case lineFwd:
				v = idx
			case lineBwd:
				d = min(d, s.free[idx])
				v = idx + 1
			case pieceFwd:
				d = min(d, g.cap[idx]-s.flow[idx-s.k])
				v = int(g.src[idx])
			case pieceBwd:
				d = min(d, s.flow[idx-s.k])
				v = int(g.dst[idx])
			}
		}
		for v := a; v != n; {
			code := s.parent[v]
			idx, kind := int(code>>2), code&3
			switch kind {
			case lineFwd:
				s.free[idx] += d
				v = idx
			case lineBwd:
				s.free[idx] -= d
				v = idx + 1
			case pieceFwd:
				s.flow[idx-s.k] += d
				v = int(g.src[idx])
			case pieceBwd:
				s.flow[idx-s.k] -= d
				v = int(g.dst[idx])
			}
		}
		s.flow[e-s.k] += d
		left -= d
		s.augments++
	}
	return true
}

// search runs Dijkstra on reduced costs from n towards a over nodes ≤ n,
// stopping when a is settled or when no path to a can cost less than w. It
// updates the potentials and returns the cost of the path found (in
// original costs) and whether a was reached.
func (s *sweep) search(n, a int, w int64) (int64, bool) {
	g := s.g
	s.searches++
	s.dijkstras++
	id := s.searches
	s.settled = s.settled[:0]
	s.heap = s.heap[:0]
	s.dist[n] = 0
	s.mark[n] = id
	s.heap.push(0, int32(n-a), int32(n))
	// A path to a costs d(a) + π(a) − π(n) ≥ D + π(a) − π(n) once D is popped.
	limit := w - s.pi[a] + s.pi[n] // stop when D ≥ limit
	var D int64
	reached := false
	for len(s.heap) > 0 {
		du, u32 := s.heap.pop()
		u := int(u32)
		if s.done[u] == id || du != s.dist[u] {
			continue
		}
		D = du
		if D >= limit {
			break
		}
		s.done[u] = id
		s.settled = append(s.settled, u32)
		if u == a {
			reached = true
			break
		}
		s.scanned++
		pu := s.pi[u]
		relax := func(v int, c int64, code int32) {
			nd := du + c + pu - s.pi[v]
			if s.mark[v] != id || nd < s.dist[v] {
				if s.done[v] == id {
					return
				}
				s.mark[v] = id
				s.dist[v] = nd
				s.parent[v] = code
				s.heap.push(nd, int32(abs(v-a)), int32(v))
			}
		}
		if u < n {
			relax(u+1, 0, int32(u)<<2|lineFwd)
		}
		if u > 0 && s.free[u-1] > 0 {
			relax(u-1, 0, int32(u-1)<<2|lineBwd)
		}
		for k := s.outFirst[u]; k < s.outFirst[u+1]; k++ {
			f := int(s.outArc[k])
			if v := int(g.dst[f]); v <= n && s.flow[f-s.k] < g.cap[f] {
				relax(v, g.cost[f], int32(f)<<2|pieceFwd)
			}
		}
		for f := s.k + int(s.inFirst[u]); f < s.k+int(s.inFirst[u+1]); f++ {
			if s.flow[f-s.k] > 0 {
				relax(int(g.src[f]), -g.cost[f], int32(f)<<2|pieceBwd)
			}
		}
	}
	if !reached && len(s.heap) == 0 && D < limit {
		D = limit // nothing left to reach: every unsettled node is unreachable
	}
	cost := D + s.pi[a] - s.pi[n]
	for _, v := range s.settled {
		s.pi[v] += s.dist[v] - D
	}
	// Nodes beyond n (not stored yet) move by −D with n: s.pi[n] did,
	// and they will join at s.pi[n].
	return cost, reached
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// sweep solves line network g by the sweep (method Sweep): its first
// n−1 arcs are the line t→t+1, the others are ordered as the sweep doc says.
func (g *Network) sweep(ctx context.Context) ([]int64, string, error) {
	s := newSweep(g, g.n-1)
	err := s.solve(ctx)
	stats := fmt.Sprintf("%d searches, %d augmentations, %d nodes scanned", s.dijkstras, s.augments, s.scanned)
	if err != nil {
		return nil, stats, err
	}
	flow := make([]int64, len(g.src))
	copy(flow, s.free)
	copy(flow[s.k:], s.flow)
	return flow, stats, nil
}
