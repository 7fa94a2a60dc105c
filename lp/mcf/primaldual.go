package mcf

import (
	"context"

	"github.com/tailbound/tailbound/internal/progress"
)

// primalDual is a min-cost flow problem solved by the primal–dual method
// (Ford and Fulkerson's, with Dinic's blocking flows for the primal steps)
// started from given integer node prices. It keeps complementary slackness
// — every residual arc has reduced cost cost + π(u) − π(v) ≥ 0 — and
// alternates a Dijkstra search from nodes with excess (one cluster of
// them at a time, see solve), which raises
// prices so that the cheapest paths to a deficit get reduced cost zero,
// with a maximum flow from excesses to deficits over the arcs of reduced
// cost zero. Each round sends at least one unit, so it ends, and it ends
// with zero excess: a feasible flow with complementary slackness, which is
// optimal. Any starting prices give the optimum; good ones (Windows)
// leave little excess and few rounds.
//
// The problem is the same as netSimplex's: minimize Σ cost·flow subject to
// 0 ≤ flow ≤ cap and outflow − inflow = supply at every node.
type primalDual struct {
	n        int
	progress progress.Func // told how far along the line the clusters are
	residual
	cost   []int64 // cost of each residual arc
	excess []int64 // supply − outflow + inflow: > 0 still to send
	pi     []int64

	dist   []int64
	hops   []int32
	stamp  []int32 // search that reached the node
	done   []int32 // search that settled the node
	search int32
	heap   distHeap
	settle []int32

	level []int32
	cur   []int32
	queue []int32
	path  []int32

	rounds, levels, augments, settled, clusters int64
}

// newPrimalDual builds the residual network of g with prices pi (copied;
// nil means zero) and the flow complementary slackness asks of every arc
// whose reduced cost is not zero: full below zero, empty above. An arc of
// reduced cost zero takes hint's flow clipped to its capacity (hint may be
// nil).
func newPrimalDual(g *Network, pi, hint []int64) *primalDual {
	n, m := g.n, len(g.src)
	s := &primalDual{n: n, residual: newResidual(n, g.src, g.dst, g.cap)}
	s.cost = make([]int64, 2*m)
	s.pi = make([]int64, n)
	if pi != nil {
		copy(s.pi, pi)
	}
	s.excess = append([]int64(nil), g.supply...)
	for i := 0; i < m; i++ {
		u, v := g.src[i], g.dst[i]
		a, b := s.fwd[i], s.rev[s.fwd[i]]
		s.cost[a], s.cost[b] = g.cost[i], -g.cost[i]
		var f int64
		switch rc := g.cost[i] + s.pi[u] - s.pi[v]; {
		case rc < 0:
			f = g.cap[i]
		case rc == 0 && hint != nil:
			f = min(max(hint[i], 0), g.cap[i])
		}
		s.res[a], s.res[b] = g.cap[i]-f, f
		s.excess[u] -= f
		s.excess[v] += f
	}
	s.dist = make([]int64, n)
	s.hops = make([]int32, n)
	s.stamp = make([]int32, n)
	s.done = make([]int32, n)
	s.level = make([]int32, n)
	for v := range s.level {
		s.level[v] = -1 // layer resets only what it reached
	}
	s.cur = make([]int32, n)
	return s
}

// reduced is the reduced cost of residual arc e, whose tail is u.
func (s *primalDual) reduced(e, u int32) int64 {
	return s.cost[e] + s.pi[u] - s.pi[s.head[e]]
}

// clusterGap is how far apart, in nodes, two nodes with excess may be and
// still be repaired together by solve. The windows leave excess only near
// their seams, plan.Size steps apart (on birth–death traces, ξ = 1,900
// tokens: within the first few hundred steps after each seam): a gap
// below the window size and above that spread keeps one seam one cluster
// and two seams apart. Any gap gives the optimum; it only decides how
// much work the searches share.
const clusterGap = 2000

// solve sends all excess to deficits, one cluster of excess at a time:
// the nodes with excess, in line order, are cut into clusters wherever
// two consecutive ones are more than clusterGap nodes apart, and each
// cluster runs rounds (raise, then maxFlow) from its own nodes until they
// have no excess left. Sending flow never creates excess (a push ends at a
// deficit and takes no more than it lacks), so the clusters are fixed at
// the start and each is finished once. A round from a subset of the
// excess keeps every residual arc's reduced cost ≥ 0 and sends at least
// one unit (raise's argument holds for any set of sources), so solve ends
// with zero excess and complementary slackness: optimal. Working cluster
// by cluster keeps each search near its seam; whole-line rounds (one
// cluster, wholeLine) ran every search until the seam that needed the
// farthest deficit was served, and every round's searches and resets
// over the whole line: at 10^6 turns (B = 16, C = 131072, ξ = 1,900
// tokens) 28 rounds settled 2.2·10^7 nodes, with 932 breadth-first
// searches each resetting all 10^6 levels, and took 42 s of CPU; by
// clusters (198) the stage took 18 s, with 491 rounds settling 3.5·10^7
// nodes. It checks ctx between breadth-first searches.
func (s *primalDual) solve(ctx context.Context) error {
	return s.solveGap(ctx, clusterGap)
}

// wholeLine, as solveGap's gap, makes all excess one cluster: the plain
// primal–dual method, each round from every node with excess.
const wholeLine = -1

// solveGap is solve with clusters cut at gaps of more than gap nodes
// (wholeLine: never).
func (s *primalDual) solveGap(ctx context.Context, gap int) error {
	var src []int32
	for v, x := range s.excess {
		if x > 0 {
			src = append(src, int32(v))
		}
	}
	for i := 0; i < len(src); {
		j := i + 1
		for j < len(src) && (gap < 0 || int(src[j]-src[j-1]) <= gap) {
			j++
		}
		s.clusters++
		s.progress.Report("primal–dual (line nodes)", int64(src[i]), int64(len(s.excess)))
		if err := s.repair(ctx, src[i:j]); err != nil {
			return err
		}
		i = j
	}
	return nil
}

// repair runs rounds from the nodes of src (its order kept, those with no
// excess left dropped as it goes) until none has excess.
func (s *primalDual) repair(ctx context.Context, src []int32) error {
	for {
		live := src[:0]
		for _, v := range src {
			if s.excess[v] > 0 {
				live = append(live, v)
			}
		}
		if src = live; len(src) == 0 {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if !s.raise(src) {
			return ErrInfeasible
		}
		if err := s.maxFlow(ctx, src); err != nil {
			return err
		}
		s.rounds++
	}
}

// raise is Dijkstra from the nodes of src (all with excess) over residual
// arcs (reduced costs ≥ 0), ties by fewer arcs, until the deficits it has
// settled cover their excess (or it runs out of nodes), the last at
// distance D; then π(v) += min(d(v), D). For an arc u→v, d(v) ≤ d(u) +
// c̄(u,v) keeps c̄ ≥ 0 whatever the sources, and the arcs of the shortest
// paths to the deficits get c̄ = 0. It reports whether a deficit was
// reachable.
func (s *primalDual) raise(src []int32) bool {
	s.search++
	id := s.search
	s.heap = s.heap[:0]
	s.settle = s.settle[:0]
	var left int64 // excess not yet matched by a settled deficit
	for _, v := range src {
		s.dist[v], s.hops[v], s.stamp[v] = 0, 0, id
		s.heap.push(0, 0, v)
		left += s.excess[v]
	}
	D := int64(-1)
	for len(s.heap) > 0 {
		d, v := s.heap.pop()
		if s.done[v] == id || d != s.dist[v] {
			continue
		}
		s.done[v] = id
		s.settle = append(s.settle, v)
		if s.excess[v] < 0 {
			D = d
			if left += s.excess[v]; left <= 0 {
				break
			}
		}
		for e := s.first[v]; e < s.first[v+1]; e++ {
			w := s.head[e]
			if s.res[e] == 0 || s.done[w] == id {
				continue
			}
			if nd := d + s.reduced(e, v); s.stamp[w] != id || nd < s.dist[w] {
				s.dist[w], s.hops[w], s.stamp[w] = nd, s.hops[v]+1, id
				s.heap.push(nd, s.hops[w], w)
			}
		}
	}
	s.settled += int64(len(s.settle))
	if D < 0 {
		return false
	}
	// Prices matter up to a constant: instead of adding D to every node
	// not settled, the settled ones lose D − d(v).
	for _, v := range s.settle {
		s.pi[v] -= D - s.dist[v]
	}
	return true
}

// maxFlow sends as much of the excess of src's nodes as it can to deficits
// over admissible arcs (residual, reduced cost 0), by Dinic's blocking
// flows.
func (s *primalDual) maxFlow(ctx context.Context, src []int32) error {
	for s.layer(src) {
		for _, v := range src {
			if s.excess[v] > 0 && s.level[v] == 0 {
				s.block(v)
			}
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}

// layer is Dinic's breadth-first search from the nodes of src with excess
// over admissible arcs, up to the level of the nearest deficit (deeper
// nodes cannot be on a shortest augmenting path); level −1 marks nodes not
// reached. Only the nodes the previous search reached (its queue) are
// reset, so a search costs what it reaches, not the whole line. It
// reports whether a deficit was reached.
func (s *primalDual) layer(src []int32) bool {
	s.levels++
	for _, v := range s.queue {
		s.level[v] = -1
	}
	s.queue = s.queue[:0]
	for _, v := range src {
		if s.excess[v] > 0 {
			s.level[v] = 0
			s.queue = append(s.queue, v)
		}
	}
	found, depth := false, int32(0)
	for qh := 0; qh < len(s.queue); qh++ {
		v := s.queue[qh]
		s.cur[v] = s.first[v]
		if s.excess[v] < 0 {
			if !found {
				found, depth = true, s.level[v]
			}
			continue // paths end at a deficit
		}
		if found && s.level[v] >= depth {
			continue
		}
		for e := s.first[v]; e < s.first[v+1]; e++ {
			if w := s.head[e]; s.res[e] > 0 && s.level[w] < 0 && s.reduced(e, v) == 0 {
				s.level[w] = s.level[v] + 1
				s.queue = append(s.queue, w)
			}
		}
	}
	return found
}

// block sends start's excess along admissible arcs that climb one level at
// a time, depth first with current-arc pointers, to deficits; a node found
// to lead nowhere leaves the level graph.
func (s *primalDual) block(start int32) {
	path := s.path[:0]
	tail := func() int32 { // the node at the end of path
		if len(path) == 0 {
			return start
		}
		return s.head[path[len(path)-1]]
	}
	v := start
	for s.excess[start] > 0 {
		if v != start && s.excess[v] < 0 {
			d := min(s.excess[start], -s.excess[v])
			for _, e := range path {
				d = min(d, s.res[e])
			}
			for _, e := range path {
				s.res[e] -= d
				s.res[s.rev[e]] += d
			}
			s.excess[start] -= d
			s.excess[v] += d
			s.augments++
			for k, e := range path { // back to the tail of the first full arc
				if s.res[e] == 0 {
					path = path[:k]
					break
				}
			}
			v = tail()
			continue
		}
		for ; s.cur[v] < s.first[v+1]; s.cur[v]++ {
			e := s.cur[v]
			if w := s.head[e]; s.res[e] > 0 && s.level[w] == s.level[v]+1 && s.reduced(e, v) == 0 {
				break
			}
		}
		if s.cur[v] < s.first[v+1] {
			e := s.cur[v]
			path = append(path, e)
			v = s.head[e]
			continue
		}
		s.level[v] = -1 // dead end
		if len(path) == 0 {
			break
		}
		path = path[:len(path)-1]
		v = tail()
		s.cur[v]++
	}
	s.path = path[:0]
}
