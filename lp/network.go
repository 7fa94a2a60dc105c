package lp

import (
	"context"
	"fmt"
)

// network is a min-cost flow problem: arcs with capacities and costs, and
// node supplies (outflow − inflow), all integers.
type network struct {
	n      int
	src    []int32
	dst    []int32
	cap    []int64
	cost   []int64
	supply []int64
}

func (g *network) addArc(u, v int, c, w int64) {
	g.src = append(g.src, int32(u))
	g.dst = append(g.dst, int32(v))
	g.cap = append(g.cap, c)
	g.cost = append(g.cost, w)
}

// solve returns an optimal flow per arc with method, and a line of
// statistics.
func (g *network) solve(ctx context.Context, method FlowMethod, plan windowPlan) ([]int64, string, error) {
	flow := make([]int64, len(g.src))
	switch method {
	case Windows:
		return g.windows(ctx, plan)
	case CostScaling:
		s := &costScaling{n: g.n, src: g.src, dst: g.dst, cap: g.cap, cost: g.cost, supply: g.supply}
		err := s.solve(ctx)
		stats := fmt.Sprintf("%d pushes, %d relabels, %d price updates scanning %d nodes", s.pushes, s.relabels, s.updates, s.scannedG)
		if err != nil {
			return nil, stats, err
		}
		for i := range flow {
			flow[i] = s.flowOn(i)
		}
		return flow, stats, nil
	case Sweep:
		s := newSweep(g, g.n-1)
		err := s.solve(ctx)
		stats := fmt.Sprintf("%d searches, %d augmentations, %d nodes scanned", s.dijkstras, s.augments, s.scanned)
		if err != nil {
			return nil, stats, err
		}
		copy(flow, s.free)
		copy(flow[s.k:], s.flow)
		return flow, stats, nil
	case NetworkSimplex:
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
		copy(flow, s.flow[:len(flow)])
		return flow, stats, nil
	}
	return nil, "", fmt.Errorf("unknown min-cost flow method %q", method)
}
