package lp

import (
	"context"
	"errors"
	"math"
)

// costScaling is a min-cost flow problem solved by Goldberg and Tarjan's
// cost-scaling push–relabel method (A. V. Goldberg, "An efficient
// implementation of a scaling minimum-cost flow algorithm", J. Algorithms
// 22, 1997), with FIFO selection of active nodes and scaling factor 16.
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

	first  []int32 // residual arcs of node v: adj[first[v]:first[v+1]]
	adj    []int32
	head   []int32 // residual arc e: forward 2i, backward 2i+1
	res    []int64
	rc     []int64
	excess []int64
	price  []int64
	cur    []int32
	queue  []int32
	inQ    []bool

	pushes, relabels int64
}

// flowOn returns the flow on arc i after solve.
func (s *costScaling) flowOn(i int) int64 { return s.res[2*i+1] }

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
	s.adj = make([]int32, 2*m)
	s.head = make([]int32, 2*m)
	s.res = make([]int64, 2*m)
	s.rc = make([]int64, 2*m)
	for i := 0; i < m; i++ {
		u, v := s.src[i], s.dst[i]
		s.head[2*i], s.head[2*i+1] = v, u
		s.res[2*i] = s.cap[i]
		s.rc[2*i], s.rc[2*i+1] = s.cost[i]*mult, -s.cost[i]*mult
		s.adj[fill[u]] = int32(2 * i)
		fill[u]++
		s.adj[fill[v]] = int32(2*i + 1)
		fill[v]++
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
		for k := s.first[v]; k < s.first[v+1]; k++ {
			e := s.adj[k]
			if r := s.res[e]; r > 0 && s.rc[e]+pv-s.price[s.head[e]] < 0 {
				s.res[e] = 0
				s.res[e^1] += r
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
	var steps int
	for qh := 0; qh < len(s.queue); qh++ {
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

// discharge pushes v's excess along admissible arcs, relabelling v when it
// has none.
func (s *costScaling) discharge(v int32, eps int64) error {
	for s.excess[v] > 0 {
		pv := s.price[v]
		end := s.first[v+1]
		k := s.cur[v]
		for ; k < end; k++ {
			e := s.adj[k]
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
			s.res[e^1] += d
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
		// Relabel: the highest price that makes some residual arc
		// admissible with reduced cost −ε.
		best := int64(math.MinInt64)
		for k := s.first[v]; k < end; k++ {
			e := s.adj[k]
			if s.res[e] > 0 {
				if p := s.price[s.head[e]] - s.rc[e]; p > best {
					best = p
				}
			}
		}
		if best == math.MinInt64 {
			return errNSInfeasible
		}
		s.price[v] = best - eps
		s.cur[v] = s.first[v]
		s.relabels++
	}
	return nil
}
