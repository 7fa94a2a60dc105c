package lp

// residual is the residual graph of a min-cost flow problem in CSR form,
// shared by the push–relabel and primal–dual solvers: node v's residual
// arcs are positions first[v] .. first[v+1]-1 of head (the arc's other
// end), rev (the position of the reverse arc) and res (residual
// capacity); fwd[i] is the position of problem arc i's forward residual
// arc. Keeping a node's arcs together keeps scans cache-friendly on
// 10^6-node lines.
type residual struct {
	first []int32
	head  []int32
	rev   []int32
	fwd   []int32
	res   []int64
}

// newResidual builds the residual graph of arcs src→dst with capacities
// cap on n nodes, at zero flow.
func newResidual(n int, src, dst []int32, cap []int64) residual {
	m := len(src)
	r := residual{first: make([]int32, n+1)}
	for i := 0; i < m; i++ {
		r.first[src[i]+1]++
		r.first[dst[i]+1]++
	}
	for v := 0; v < n; v++ {
		r.first[v+1] += r.first[v]
	}
	fill := append([]int32(nil), r.first[:n]...)
	r.head = make([]int32, 2*m)
	r.rev = make([]int32, 2*m)
	r.fwd = make([]int32, m)
	r.res = make([]int64, 2*m)
	for i := 0; i < m; i++ {
		u, v := src[i], dst[i]
		a, b := fill[u], fill[v]
		fill[u]++
		fill[v]++
		r.fwd[i] = a
		r.head[a], r.head[b] = v, u
		r.rev[a], r.rev[b] = b, a
		r.res[a] = cap[i]
	}
	return r
}

// flowOn returns the flow on problem arc i.
func (r *residual) flowOn(i int) int64 { return r.res[r.rev[r.fwd[i]]] }
