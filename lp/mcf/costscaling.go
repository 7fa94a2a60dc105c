package mcf

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/tailbound/tailbound/internal/progress"
)

// costScaling is a min-cost flow problem solved by Goldberg and Tarjan's
// cost-scaling push–relabel method (A. V. Goldberg, "An efficient
// implementation of a scaling minimum-cost flow algorithm", J. Algorithms
// 22, 1997), with scaling factor 16, FIFO selection of active nodes,
// LEMON's "partial augment" discharge (Z. Kovács, "Minimum-cost flow
// algorithms: an experimental evaluation", Optim. Methods Softw. 30, 2015:
// from an active node follow admissible arcs for up to augmentLen arcs or
// to a node with a deficit, relabelling and stepping back at dead ends,
// then push along the path) and Goldberg's global price updates (by Dial's
// buckets) at the start of each phase and after every n relabels: without
// them the excess climbs the long line of steps one relabel at a time
// (measured: 25 times more pushes at 3·10^4 turns). On birth–death traces
// (B = 16, 10^5 turns) partial augment with an update every n relabels took
// three quarters of the time of the plain push discharge with an update
// every n/4 relabels; longer paths (8, unbounded), push look-ahead,
// blocking flows between updates (no relabels) and scaling factors 64 and
// 400 were no faster or slower.
// Costs are multiplied by n+1, so that the ε = 1 flow at the end of the
// last phase is optimal for the integer costs (ε-optimality with
// ε < 1/n implies optimality for integer costs); solve checks that
// certificate (zero excess, every residual arc's reduced cost ≥ −1) on the
// final flow and prices before returning.
//
// The problem is the embedded Network (read only).
type costScaling struct {
	*Network
	residual
	rc     []int64 // cost·(n+1) of each residual arc
	excess []int64
	price  []int64
	cur    []int32
	queue  []int32
	inQ    []bool
	onPath []bool  // nodes on the path of the current augment
	path   []int32 // residual arcs of the current augment
	gdist  []int64
	gstamp []int32
	gid    int32

	bucketHead, poolNode, poolNext []int32

	// start, if not nil, are starting prices in whole cost units, one per
	// node (a warm start, see warmStart); nil means prices 0 and a first
	// phase at the largest cost.
	start []int64
	// unit is the cost (whole cost units, ≥ 1) of one unit of what the
	// costs measure — one token at the network's cost scale — to which a
	// warm start's first phase is relative: ε = unit/warmDivisor of a cost
	// unit (0 is taken as 1). Unused without start.
	unit int64
	// budget, if > 0, is the number of relabels after which solve gives
	// up with errOverBudget (checked at every relabel).
	budget int64

	pushes, relabels, updates, scannedG, phases int64

	// progress (nil: none) is told the scaling phases begun, of all.
	progress progress.Func
}

// warmDivisor sets the first phase of a warm start: ε = unit·(n+1)/warmDivisor
// in the scaled costs, 1/warmDivisor of a token (unit: the cost of one
// token), followed by the phases down to the last at ε = 1 (the scaling
// factor is 16, so 1,024 leaves two phases on windows of n ≈ 8,000 nodes
// when a token costs 1, as at a whole ξ; at a fractional ξ, a token costing
// 2^30, about nine). Measured, at a whole ξ (unit 1), on the optimum's capacity curve of
// a birth–death trace (10^5 turns, B = 16, ξ = 300 tokens, 16 capacities
// 32,768·2^(k/3) tokens, each window solve started from the smaller
// neighbour's optimal prices; 2026-11-28, quiet machine, two runs): the 15
// warm solves took 34.2 s with ε ≈ 1/1,024 of a unit, 35.3 s with 1/512,
// 37.5 s with 1/256 and 39.4 s with 1/2,730 (one phase then; one capacity
// took 6.9 s), against 56.5 s from scratch (four phases), in one run; in
// the other, 33.1 s with 1/1,024, 42.3 s with 1/128 and 46.8 s with 1/16
// (three phases), against 56.9 s from scratch.
const warmDivisor = 1024

// errOverBudget is solve's answer when it has spent its relabel budget.
var errOverBudget = errors.New("min-cost flow: cost scaling over its relabel budget")

// solve finds a min-cost flow; it checks ctx between passes over the
// active queue.
func (s *costScaling) solve(ctx context.Context) error {
	n, m := s.n, len(s.src)
	var sum, maxCost int64
	for _, b := range s.supply {
		sum += b
	}
	if sum != 0 {
		return ErrInfeasible
	}
	for _, c := range s.cost {
		maxCost = max(maxCost, c, -c)
	}
	mult := int64(n + 1)
	if maxCost > 0 && maxCost > math.MaxInt64/8/mult/mult {
		return errors.New("min-cost flow: costs too large for cost scaling in int64")
	}
	s.residual = newResidual(n, s.src, s.dst, s.cap)
	s.rc = make([]int64, 2*m)
	for i := 0; i < m; i++ {
		a := s.fwd[i]
		s.rc[a], s.rc[s.rev[a]] = s.cost[i]*mult, -s.cost[i]*mult
	}
	s.excess = append([]int64(nil), s.supply...)

	s.price = make([]int64, n)
	s.cur = make([]int32, n)
	s.inQ = make([]bool, n)
	s.onPath = make([]bool, n)
	eps := maxCost * mult
	if s.start != nil {
		for v, p := range s.start {
			s.price[v] = p * mult
		}
		unit := max(1, s.unit)
		if unit > math.MaxInt64/16/mult {
			return errors.New("min-cost flow: warm start's cost unit too large for cost scaling in int64")
		}
		eps = max(1, unit*mult/warmDivisor) * 16
	}
	if eps == 0 {
		eps = 1
	}
	total := int64(0) // the phases below: ε divided by 16 until it is 1
	for e := eps; total == 0 || e > 1; total++ {
		e = max(1, e/16)
	}
	for {
		eps = max(1, eps/16)
		s.phases++
		s.progress.Report("cost scaling: phases", s.phases, total)
		if err := s.refine(ctx, eps); err != nil {
			return err
		}
		if eps == 1 {
			break
		}
	}
	for v := 0; v < n; v++ {
		if s.excess[v] != 0 {
			return ErrInfeasible
		}
	}
	// Optimality certificate: a flow whose residual arcs all have reduced
	// cost ≥ −1 under costs scaled by n+1 is optimal (every residual cycle
	// costs > −1 in the integer costs, hence ≥ 0).
	for v := 0; v < n; v++ {
		pv := s.price[v]
		for e := s.first[v]; e < s.first[v+1]; e++ {
			if s.res[e] > 0 && s.rc[e]+pv-s.price[s.head[e]] < -1 {
				return errors.New("min-cost flow: cost scaling ended without its optimality certificate")
			}
		}
	}
	return nil
}

// refine turns an (αε)-optimal pseudoflow into an ε-optimal flow. Its
// first step saturates every residual arc of negative reduced cost, which
// makes any pseudoflow 0-optimal for the current prices, so refine also
// ends, with an ε-optimal flow, from a warm start's prices, which were
// never (αε)-optimal. But its work is then not the generic bound's:
// Goldberg and Tarjan bound a node's price drop in one refine by
// (1+α)·n·ε because some FEASIBLE flow (the last phase's) is αε-optimal
// for the start prices; the 0-optimal pseudoflow of the saturation gives
// no such bound. If every feasible flow leaves some residual arc at
// reduced cost −D under the start prices, prices may have to fall by about
// D, in steps of ε: D/ε relabels. A neighbour's prices can be D = a token
// off where nothing ties them (an arc of capacity 0 at the neighbour), so
// the warm start's ε is a fraction of a token (unit), not of a cost unit,
// and the relabel budget bounds what is left (see warmBudget).
func (s *costScaling) refine(ctx context.Context, eps int64) error {
	n := s.n
	for v := 0; v < n; v++ {
		pv := s.price[v]
		for e := s.first[v]; e < s.first[v+1]; e++ {
			if r := s.res[e]; r > 0 && s.rc[e]+pv-s.price[s.head[e]] < 0 {
				s.res[e] = 0
				s.res[s.rev[e]] += r
				s.excess[v] -= r
				s.excess[s.head[e]] += r
			}
		}
	}
	s.queue = s.queue[:0]
	for v := 0; v < n; v++ {
		s.cur[v] = s.first[v]
		s.inQ[v] = false
		if s.excess[v] > 0 {
			s.queue = append(s.queue, int32(v))
			s.inQ[v] = true
		}
	}
	s.priceUpdate(eps)
	sinceUpdate := int64(0)
	var steps int
	for qh := 0; qh < len(s.queue); qh++ {
		if s.relabels-sinceUpdate > int64(n) {
			sinceUpdate = s.relabels
			s.priceUpdate(eps)
		}
		if steps++; steps&65535 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			if qh > len(s.queue)/2 { // compact the queue
				s.queue = append(s.queue[:0], s.queue[qh:]...)
				qh = 0
			}
		}
		v := s.queue[qh]
		s.inQ[v] = false
		if s.excess[v] <= 0 {
			continue
		}
		if err := s.augment(ctx, v, eps); err != nil {
			return err
		}
		if s.excess[v] > 0 && !s.inQ[v] {
			s.queue = append(s.queue, v)
			s.inQ[v] = true
		}
	}
	return nil
}

// augmentLen is the longest path of a partial augment (LEMON's default).
const augmentLen = 4

// augment is LEMON's partial augment from the active node start: it
// follows admissible arcs (residual, reduced cost < 0; the current-arc
// pointers skip arcs known inadmissible) until it reaches a node with a
// deficit, augmentLen arcs or a node already on the path; at a dead end it
// relabels the tip and steps back (the start is relabelled in place).
// Then it pushes along the path, at each arc as much as the arc and the
// excess arriving allow. Pushes and relabels are the generic ones, so
// ε-optimality is kept and termination is the generic method's.
//
// One augment can relabel without bound before it pushes: where the start
// and a neighbour are each other's only way on, they step down in turn by
// ε each (measured: 5.4·10^9 relabels in one call on a 4-node warm-started
// window whose start prices were 2^30 cost units off). So the relabel
// budget is checked at every relabel and ctx every 1,024 relabels, here
// where the work happens, not only between augments.
func (s *costScaling) augment(ctx context.Context, start int32, eps int64) error {
	path := s.path[:0]
	s.onPath[start] = true
	tip := start
search:
	for len(path) < augmentLen && (tip == start || s.excess[tip] >= 0) {
		pt := s.price[tip]
		end := s.first[tip+1]
		for k := s.cur[tip]; k < end; k++ {
			if s.res[k] > 0 && s.rc[k]+pt-s.price[s.head[k]] < 0 {
				s.cur[tip] = k
				path = append(path, k)
				w := s.head[k]
				if s.onPath[w] {
					break search // a cycle: push around it
				}
				s.onPath[w] = true
				tip = w
				continue search
			}
		}
		// Dead end: no admissible arc leaves tip. Relabel it to the
		// highest price giving one of its residual arcs reduced cost −ε,
		// counting the reverse of the path arc into tip (reduced cost
		// > 0, residual or not) so that the drop stays bounded; every arc
		// out of tip has reduced cost ≥ 0, so the price drops by ≥ ε and
		// ε-optimality is kept.
		best := int64(math.MinInt64)
		for e := s.first[tip]; e < end; e++ {
			if s.res[e] > 0 {
				best = max(best, s.price[s.head[e]]-s.rc[e])
			}
		}
		if tip != start {
			r := s.rev[path[len(path)-1]]
			best = max(best, s.price[s.head[r]]-s.rc[r])
		}
		if best == math.MinInt64 {
			s.dropPath(start, path)
			return ErrInfeasible // start has excess and no residual arc
		}
		s.price[tip] = best - eps
		s.cur[tip] = s.first[tip]
		s.relabels++
		if s.budget > 0 && s.relabels > s.budget {
			s.dropPath(start, path)
			return errOverBudget
		}
		if s.relabels&1023 == 0 {
			if err := ctx.Err(); err != nil {
				s.dropPath(start, path)
				return err
			}
		}
		if tip != start { // step back
			s.onPath[tip] = false
			path = path[:len(path)-1]
			tip = start
			if len(path) > 0 {
				tip = s.head[path[len(path)-1]]
			}
		}
	}
	v := start
	s.onPath[start] = false
	for _, e := range path {
		w := s.head[e]
		s.onPath[w] = false
		if d := min(s.res[e], s.excess[v]); d > 0 {
			s.res[e] -= d
			s.res[s.rev[e]] += d
			s.excess[v] -= d
			before := s.excess[w]
			s.excess[w] += d
			s.pushes++
			if before <= 0 && s.excess[w] > 0 && !s.inQ[w] {
				s.queue = append(s.queue, w)
				s.inQ[w] = true
			}
		}
		v = w
	}
	s.path = path[:0]
	return nil
}

// dropPath abandons the current augment's path from start: its nodes are
// no longer on it.
func (s *costScaling) dropPath(start int32, path []int32) {
	s.onPath[start] = false
	for _, e := range path {
		s.onPath[s.head[e]] = false
	}
	s.path = path[:0]
}

// priceUpdate is Goldberg's global price update: a Dijkstra search
// backwards from the deficit nodes over residual arcs of length
// ⌊c_p/ε⌋ + 1 (0 when admissible) finds each node's distance d(v) to a
// deficit, stopping once every node with excess is reached at distance D;
// prices drop by ε·d(v) (ε·D for the nodes not reached). Every arc on a
// shortest path becomes admissible and ε-optimality is kept, so excess
// then flows straight to deficits instead of climbing relabel by relabel.
func (s *costScaling) priceUpdate(eps int64) {
	n := s.n
	if s.gdist == nil {
		s.gdist = make([]int64, n)
		s.gstamp = make([]int32, n)
	}
	s.gid += 2 // gstamp: gid = tentative, gid+1 = scanned
	id := s.gid
	remaining := 0
	// Dial's buckets: bucket d holds the nodes of tentative distance d
	// (lazily: stale entries are skipped); distances above maxD are not
	// followed, which only leaves far nodes at the final level D.
	maxD := int64(2*n + 2)
	s.bucketHead = s.bucketHead[:0]
	s.poolNode = s.poolNode[:0]
	s.poolNext = s.poolNext[:0]
	put := func(d int64, v int32) {
		for int64(len(s.bucketHead)) <= d {
			s.bucketHead = append(s.bucketHead, -1)
		}
		s.poolNode = append(s.poolNode, v)
		s.poolNext = append(s.poolNext, s.bucketHead[d])
		s.bucketHead[d] = int32(len(s.poolNode) - 1)
	}
	for v := 0; v < n; v++ {
		switch {
		case s.excess[v] < 0:
			s.gdist[v] = 0
			s.gstamp[v] = id
			put(0, int32(v))
		case s.excess[v] > 0:
			remaining++
		}
	}
	if remaining == 0 {
		return
	}
	var D int64
scan:
	for D = 0; D < int64(len(s.bucketHead)); D++ {
		for s.bucketHead[D] >= 0 {
			k := s.bucketHead[D]
			s.bucketHead[D] = s.poolNext[k]
			v := int(s.poolNode[k])
			if s.gstamp[v] == id+1 || s.gdist[v] != D {
				continue
			}
			s.gstamp[v] = id + 1
			s.scannedG++
			if s.excess[v] > 0 {
				if remaining--; remaining == 0 {
					break scan
				}
			}
			pv := s.price[v]
			for e := s.first[v]; e < s.first[v+1]; e++ {
				r := s.rev[e] // the arc u → v
				if s.res[r] == 0 {
					continue
				}
				u := s.head[e]
				if s.gstamp[u] == id+1 {
					continue
				}
				var l int64
				if cp := s.rc[r] + s.price[u] - pv; cp >= 0 {
					l = cp/eps + 1
				}
				if nd := D + l; nd <= maxD && (s.gstamp[u] != id || nd < s.gdist[u]) {
					s.gstamp[u] = id
					s.gdist[u] = nd
					put(nd, u)
				}
			}
		}
	}
	if D >= int64(len(s.bucketHead)) {
		D = int64(len(s.bucketHead)) // every reachable node scanned
	}
	for v := 0; v < n; v++ {
		if s.gstamp[v] == id+1 {
			s.price[v] -= eps * s.gdist[v]
		} else {
			s.price[v] -= eps * D
		}
		s.cur[v] = s.first[v]
	}
	s.updates++
}

// costScaling solves g by cost scaling (method CostScaling). g must have a
// feasible flow: on some infeasible networks the discharge loops without
// end (measured on small random ones), so CostScaling is for networks
// feasible by construction, as lp.SolveFlow's are.
func (g *Network) costScaling(ctx context.Context, f progress.Func) ([]int64, string, error) {
	s := &costScaling{Network: g, progress: f}
	err := s.solve(ctx)
	stats := fmt.Sprintf("%d pushes, %d relabels, %d price updates scanning %d nodes", s.pushes, s.relabels, s.updates, s.scannedG)
	if err != nil {
		return nil, stats, err
	}
	flow := make([]int64, len(g.src))
	for i := range flow {
		flow[i] = s.flowOn(i)
	}
	return flow, stats, nil
}
