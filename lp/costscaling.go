package lp

import (
	"context"
	"errors"
	"math"
)

// costScaling is a min-cost flow problem solved by Goldberg and Tarjan's
// cost-scaling push–relabel method (A. V. Goldberg, "An efficient
// implementation of a scaling minimum-cost flow algorithm", J. Algorithms
// 22, 1997), with FIFO selection of active nodes, scaling factor 16 and
// Goldberg's global price updates (by Dial's buckets) at the start of each
// phase and after every n/4 relabels: without them the excess climbs the
// long line of steps one relabel at a time (measured: 25 times more pushes
// at 3·10^4 turns).
// Costs are multiplied by n+1, so that the ε = 1 flow at the end of the
// last phase is optimal for the integer costs (ε-optimality with
// ε < 1/n implies optimality for integer costs).
//
// The problem is the same as netSimplex's: minimize Σ cost·flow subject to
// 0 ≤ flow ≤ cap and outflow − inflow = supply at every node.
type costScaling struct {
	n      int
	src    []int32
	dst    []int32
	cap    []int64
	cost   []int64
	supply []int64

	// Residual arcs are stored by tail node (CSR): node v's arcs are
	// positions first[v] .. first[v+1]-1 of head, res, rc and rev (the
	// position of the reverse arc); fwd[i] is the position of arc i's
	// forward residual arc. Keeping a node's arcs together keeps the
	// scans cache-friendly on 10^6-node lines.
	first  []int32
	head   []int32
	rev    []int32
	fwd    []int32
	res    []int64
	rc     []int64
	excess []int64
	price  []int64
	cur    []int32
	queue  []int32
	inQ    []bool
	gdist  []int64
	gstamp []int32
	gid    int32

	bucketHead, poolNode, poolNext []int32

	pushes, relabels, updates, scannedG int64
}

// flowOn returns the flow on arc i after solve.
func (s *costScaling) flowOn(i int) int64 { return s.res[s.rev[s.fwd[i]]] }

// totalCost returns Σ cost·flow.
func (s *costScaling) totalCost() int64 {
	var c int64
	for i := range s.cost {
		c += s.cost[i] * s.flowOn(i)
	}
	return c
}

// solve finds a min-cost flow; it checks ctx between passes over the
// active queue.
func (s *costScaling) solve(ctx context.Context) error {
	n, m := s.n, len(s.src)
	var sum, maxCost int64
	for _, b := range s.supply {
		sum += b
	}
	if sum != 0 {
		return errNSInfeasible
	}
	for _, c := range s.cost {
		maxCost = max(maxCost, c, -c)
	}
	mult := int64(n + 1)
	if maxCost > 0 && maxCost > math.MaxInt64/8/mult/mult {
		return errors.New("min-cost flow: costs too large for cost scaling in int64")
	}
	// Residual graph in CSR form.
	s.first = make([]int32, n+1)
	for i := 0; i < m; i++ {
		s.first[s.src[i]+1]++
		s.first[s.dst[i]+1]++
	}
	for v := 0; v < n; v++ {
		s.first[v+1] += s.first[v]
	}
	fill := append([]int32(nil), s.first[:n]...)
	s.head = make([]int32, 2*m)
	s.rev = make([]int32, 2*m)
	s.fwd = make([]int32, m)
	s.res = make([]int64, 2*m)
	s.rc = make([]int64, 2*m)
	for i := 0; i < m; i++ {
		u, v := s.src[i], s.dst[i]
		a, b := fill[u], fill[v]
		fill[u]++
		fill[v]++
		s.fwd[i] = a
		s.head[a], s.head[b] = v, u
		s.rev[a], s.rev[b] = b, a
		s.res[a] = s.cap[i]
		s.rc[a], s.rc[b] = s.cost[i]*mult, -s.cost[i]*mult
	}
	s.excess = append([]int64(nil), s.supply...)

	s.price = make([]int64, n)
	s.cur = make([]int32, n)
	s.inQ = make([]bool, n)
	eps := maxCost * mult
	if eps == 0 {
		eps = 1
	}
	for {
		eps = max(1, eps/16)
		if err := s.refine(ctx, eps); err != nil {
			return err
		}
		if eps == 1 {
			break
		}
	}
	for v := 0; v < n; v++ {
		if s.excess[v] != 0 {
			return errNSInfeasible
		}
	}
	return nil
}

// refine turns an (αε)-optimal pseudoflow into an ε-optimal flow.
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
		if s.relabels-sinceUpdate > int64(n/4) {
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
		if err := s.discharge(v, eps); err != nil {
			return err
		}
	}
	return nil
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

// discharge pushes v's excess along admissible arcs, relabelling v when it
// has none.
func (s *costScaling) discharge(v int32, eps int64) error {
	for s.excess[v] > 0 {
		pv := s.price[v]
		end := s.first[v+1]
		k := s.cur[v]
		for ; k < end; k++ {
			e := k
			r := s.res[e]
			if r == 0 {
				continue
			}
			w := s.head[e]
			if s.rc[e]+pv-s.price[w] >= 0 {
				continue
			}
			d := min(r, s.excess[v])
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
			if s.excess[v] == 0 {
				break
			}
		}
		s.cur[v] = k
		if s.excess[v] == 0 {
			return nil
		}
		if !s.relabel(v, eps) {
			return errNSInfeasible
		}
	}
	return nil
}

// relabel sets v's price to the highest that makes some residual arc
// admissible with reduced cost −ε; false if v has no residual arc.
func (s *costScaling) relabel(v int32, eps int64) bool {
	best := int64(math.MinInt64)
	for e := s.first[v]; e < s.first[v+1]; e++ {
		if s.res[e] > 0 {
			if p := s.price[s.head[e]] - s.rc[e]; p > best {
				best = p
			}
		}
	}
	if best == math.MinInt64 {
		return false
	}
	s.price[v] = best - eps
	s.cur[v] = s.first[v]
	s.relabels++
	return true
}
