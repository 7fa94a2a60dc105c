package slo

import (
	"cmp"
	"context"
	"errors"
	"math"
	"math/big"
	"math/bits"
	"runtime"
	"slices"
	"sync"
	"time"
)

// Long stretches solved in pure Go by a best-first branch and bound over
// the flow LP (issue 32, lower bound side).
//
// A stretch's value V_w (stretch.go) is a 0/1 program over the items of
// positive share: most Σ β_n z_n with every row's load within its
// capacity. Its LP relaxation is a min-cost flow on the stretch's line
// (each item an arc of capacity d_n over its rows, as flowBound's), and
// it is tight: on the 10^4-turn instance of docs/tail-bounds.md a stretch
// of 167 rows has about 220 items, of which the LP leaves 5–9 fractional,
// and the LP lies 0.2–0.7 pairs above V_w. The stretches' own branch and
// bound (stretchSolver) bounds its nodes by a Lagrangian of the rows at
// one set of multipliers, far weaker at 167 rows: it leaves such a
// stretch open at 200,000 nodes 0–0.21 pair below the LP, where CBC
// closes it in 0.03–0.7 s and this solver in 0.01–0.4 s
// (TestStretchFlowAgainstCBC logs both; BenchmarkMIPStretches compares
// whole decompositions).
//
// stretchFlow solves the flow LP exactly at every node (wideLP, in int64,
// with exact reduced costs), fixes items by their reduced costs, imposes
// the weighted dominance relations (dominatesBy) and takes the next node
// by its parent's bound, largest first, so that the largest open bound —
// V_w's bound when the node budget or the context ends — falls as the
// search goes. Every node's LP point is rounded into a point of the
// stretch (roundFill) and checked (fits) before it is taken.
//
// Units. Shares are whole numbers of 2^−muBits pairs, so V_w is a whole
// number of them; an LP bound num/2^S therefore bounds V_w by
// ⌊num/2^(S−muBits)⌋ such units, and a node whose floor is not above the
// incumbent's value is pruned.

// flowNode is one node of stretchFlow's tree: its fixings are its
// parent's and its own.
type flowNode struct {
	bound  int64   // a bound on the node's points (its parent's LP, or its own), 2^−muBits units
	parent int32   // −1: the root
	depth  int32   // nodes above it
	fixes  []int32 // i+1: item i in; −(i+1): out
	// the branching that made it: item fixed in (dir 0) or out (1), by
	// how much that moved it from the parent's LP point, the parent's LP
	// bound, and whether strong branching already solved its LP
	item     int32
	dir      int8
	frac     float64
	parentUB int64
	strong   bool
	// snap is the parent's flow (lineflow.go), nil when the snapshots'
	// budget was spent: the node's LP is then carried from the root's
	snap *flowSnap
}

// flowSnap is a node's flow shared by its children until both are taken.
type flowSnap struct {
	flowState
	refs int
}

// stretchFlow is the scratch of one stretch's solve.
type stretchFlow struct {
	ws    *wideSolver
	P     []int64 // per item, its share (2^−muBits units)
	nodes []flowNode
	open  []int32 // heap of open nodes by bound, deeper first on ties
	inc   int64   // the best point's value, 2^−muBits units
	best  []bool
	pick  []bool
	chain []int32
	// strong is the most fractional items whose two children's LPs are
	// solved to choose the branching item (0: the most fractional item)
	strong int
	// pseudo-costs: per direction (in, out) and item, the sum of the
	// bound's falls per unit of change and their number
	pcSum [2][]float64
	pcN   [2][]int32
	// their totals over all items, per direction
	pcAll  [2]float64
	pcAllN [2]int32
	// the flows of nodes with open children (flowSnapBytes in all at
	// most), the root's, and snapshots no node holds any more
	snapBytes int
	root      *flowState
	spare     []*flowSnap
	scratch   flowSnap
}

// flowSnapBytes bounds the memory of one stretch's snapshots of open
// nodes' parents' flows (about 4.9 KB each at 333 rows); beyond it a
// node's LP is carried from the root's flow, several times the work. On
// the 333-row stretches of the 10^4-turn instance (BenchmarkMIPStretches,
// flow-333, both cores, 2026-11-30) the whole decomposition took 4.3 s at
// 32 MB, 2.7 s at 64 MB and 2.6 s at 256 MB.
const flowSnapBytes = 64 << 20

// release drops a child's hold on snapshot sn, keeping it for reuse when
// no child holds it.
func (sf *stretchFlow) release(sn *flowSnap) {
	if sn == nil {
		return
	}
	if sn.refs--; sn.refs == 0 {
		sf.snapBytes -= sf.ws.lf.stateBytes()
		sf.spare = append(sf.spare, sn)
	}
}

// snapshot saves the flow of the node being expanded: into a snapshot its
// children may hold when the budget allows, into scratch (never held)
// otherwise.
func (sf *stretchFlow) snapshot() *flowSnap {
	lf := sf.ws.lf
	sn := &sf.scratch
	if size := lf.stateBytes(); sf.snapBytes+size <= flowSnapBytes {
		if k := len(sf.spare); k > 0 {
			sn, sf.spare = sf.spare[k-1], sf.spare[:k-1]
		} else {
			sn = new(flowSnap)
		}
		sf.snapBytes += size
	}
	lf.save(&sn.flowState)
	sn.refs = 0
	return sn
}

// flowScale is S of the stretches' flow LP: costs ⌊β_n·2^(S−muBits)/d_n⌋
// per block (see wideLP). The bound's rounding adds d_n·2^−S pairs per
// item, d_n·2^(muBits−S) units: with S = 40 it stays below a hundredth
// of a unit for any stretch of 10^5 blocks of items, so an LP point that
// is integral closes its node. Terms stay within int64: a share below
// 2^flowShareBits units costs at most 2^(S−muBits+flowShareBits) per
// item.
const (
	flowScale     = 40
	flowShareBits = 20
)

// flowStrong is stretchFlow's strong-branching candidates: the most
// fractional items whose two children's LPs choose the branching item
// (product of the two bounds' falls) while they are unreliable (fewer
// than flowReliable observed falls either way; pseudo-costs choose
// among the others). On the 333-row stretches of the 10^4-turn instance
// at the LP's split (2026-11-30, a harness not kept; docs/
// tail-bounds.md, "Long stretches solved in pure Go"), branching on the
// most fractional item alone left 4 of 12 open at 200,000 nodes; strong
// branching on 8 at every node closed all 12 in 105 s of one core, and
// with reliability in about 28 s (BenchmarkMIPStretches, flow-333, on
// both cores).
const flowStrong = 8

// flowNodeLimit bounds one stretch's nodes in a solve: its open nodes
// hold their fixings (a few hundred bytes each) and share their parents'
// flows (flowSnapBytes in all), and the hardest of the 333-row stretches
// above took about 54,000 with the flow solved from scratch at every node.
const flowNodeLimit = 1_000_000

// stretchComponent returns stretch w of sd as a component of its own: its
// members are w's items of positive share (cols: their positions in
// w.items), its segments w's rows, and P their shares.
func (sd *stretchDecomp) stretchComponent(w *stretch) (c *component, P []int64, cols []int) {
	m := sd.m
	for k, b := range w.beta {
		if b > 0 {
			cols = append(cols, k)
		}
	}
	nr := int(w.r1 - w.r0)
	n := len(cols)
	c = &component{members: make([]int, n), d: make([]int64, n), lo: make([]int32, n), hi: make([]int32, n),
		ends: make([]int, nr+1), segCap: make([]int64, nr), rowSeg: make([]int32, nr)}
	P = make([]int64, n)
	for j, k := range cols {
		c.members[j], c.d[j], P[j] = k, m.d[w.items[k]], w.beta[k]
		c.lo[j], c.hi[j] = w.cLo[k], w.cHi[k]
	}
	for q := range c.ends {
		c.ends[q] = q
	}
	for q := range nr {
		c.segCap[q] = m.segCap[m.rowSeg[w.r0+int32(q)]]
		c.rowSeg[q] = int32(q)
	}
	return c, P, cols
}

// useFlow makes sd solve its stretches by the flow branch and bound with
// its defaults: flowStrong candidates, flowNodeLimit nodes per stretch.
func (sd *stretchDecomp) useFlow() {
	sd.flow, sd.flowStrong, sd.nodeLimit = true, flowStrong, flowNodeLimit
}

// solveFlow sets w.val, w.z, w.exact, w.nodes and w.fresh as
// stretchSolver.solve does, by stretchFlow within limit nodes (0: no
// limit) or until ctx ends. ok is false when the shares are too large
// for flowScale (none is in practice); w is then left unchanged.
func (sd *stretchDecomp) solveFlow(ctx context.Context, w *stretch, limit int) (ok bool) {
	c, P, cols := sd.stretchComponent(w)
	if len(cols) == 0 {
		clear(w.z)
		w.val, w.exact, w.fresh, w.nodes = 0, true, true, 0
		return true
	}
	if bits.Len64(uint64(slices.Max(P))) > flowShareBits {
		return false
	}
	sf := &stretchFlow{strong: sd.flowStrong, P: P, best: make([]bool, len(cols)), pick: make([]bool, len(cols))}
	for k := range 2 {
		sf.pcSum[k], sf.pcN[k] = make([]float64, len(cols)), make([]int32, len(cols))
	}
	sf.ws = &wideSolver{m: c, P: P, scale: flowScale, dom: true, fix: make([]int8, len(cols))}
	sf.ws.muR = new(big.Int)
	sf.ws.dominate, sf.ws.domBy, _ = c.dominanceBy(P)
	// the last point, feasible whatever the shares, is the first incumbent
	for j, k := range cols {
		sf.best[j] = w.z[k]
	}
	if c.fits(sf.best) {
		sf.inc = sf.value(sf.best)
	} else {
		clear(sf.best)
	}
	exact, nodes := sf.search(ctx, limit)
	upper := sf.inc
	for _, id := range sf.open {
		upper = max(upper, sf.nodes[id].bound)
	}
	if upper == math.MaxInt64 { // the root's LP was not solved
		return false
	}
	var sum int64
	for _, b := range P {
		sum += b
	}
	clear(w.z)
	for j, k := range cols {
		w.z[k] = sf.best[j]
	}
	w.val, w.exact, w.fresh, w.nodes = min(upper, sum), exact, true, nodes
	return true
}

// value is the shares' sum over pick, 2^−muBits units.
func (sf *stretchFlow) value(pick []bool) int64 {
	var v int64
	for i, on := range pick {
		if on {
			v += sf.P[i]
		}
	}
	return v
}

// search runs the branch and bound from the root until no node is open
// (exact), limit nodes were solved or ctx ends; the open nodes are left
// in sf.open.
func (sf *stretchFlow) search(ctx context.Context, limit int) (exact bool, nodes int) {
	sf.nodes = append(sf.nodes[:0], flowNode{bound: math.MaxInt64, parent: -1, item: -1})
	sf.open = append(sf.open[:0], 0)
	for len(sf.open) > 0 {
		if limit > 0 && nodes >= limit || ctx.Err() != nil {
			return false, nodes
		}
		id := sf.pop()
		if sf.nodes[id].bound <= sf.inc {
			sf.release(sf.nodes[id].snap)
			sf.nodes[id].snap = nil
			continue
		}
		nodes++
		if err := sf.expand(ctx, id); err != nil {
			// the LP failed (ctx ended inside it, or the flow solver
			// failed): the node stays open, its bound its parent's, and
			// the search ends with the bound it has
			sf.push(id)
			return false, nodes
		}
	}
	return true, nodes
}

// expand solves node id's LP and pushes its children when its bound is
// above the incumbent.
func (sf *stretchFlow) expand(ctx context.Context, id int32) error {
	ws := sf.ws
	m := ws.m
	ws.undo(0)
	sf.chain = sf.chain[:0]
	for k := id; k >= 0; k = sf.nodes[k].parent {
		sf.chain = append(sf.chain, k)
	}
	for _, k := range slices.Backward(sf.chain) {
		for _, f := range sf.nodes[k].fixes {
			i, v := f-1, int8(1)
			if f < 0 {
				i, v = -f-1, -1
			}
			ws.fix[i] = v
			ws.trail = append(ws.trail, i)
		}
	}
	// carry the LP from the parent's flow, else the root's
	if nd := &sf.nodes[id]; nd.snap != nil {
		ws.lf.load(&nd.snap.flowState)
		sf.release(nd.snap)
		nd.snap = nil
	} else if sf.root != nil {
		ws.lf.load(sf.root)
	}
	num, y, rc, err := ws.wideLP(ctx)
	if errors.Is(err, errInfeasible) {
		return nil
	}
	if err != nil {
		return err
	}
	if sf.root == nil {
		sf.root = new(flowState)
		ws.lf.save(sf.root)
	}
	const shift = flowScale - muBits
	ub := num >> shift
	if nd := &sf.nodes[id]; nd.item >= 0 && !nd.strong {
		sf.learn(int(nd.item), int(nd.dir), nd.parentUB-ub, nd.frac)
	}
	if ub <= sf.inc {
		return nil
	}
	// The LP point rounded into a point of the stretch: at every fourth
	// level (the rounding is a tenth of a node's time, and the bound, not
	// the point, is what a stretch is solved for), and always when the
	// point is integral (it is then the node's best point, up to the
	// bound's rounding).
	integral := true
	for i, v := range y {
		if ws.fix[i] == 0 && v > 1e-9 && v < 1-1e-9 {
			integral = false
			break
		}
	}
	if integral || sf.nodes[id].depth%4 == 0 {
		m.roundFill(y, ws.fix, sf.pick)
		if v := sf.value(sf.pick); v > sf.inc && m.fits(sf.pick) {
			sf.inc = v
			copy(sf.best, sf.pick)
			if ub <= sf.inc {
				return nil
			}
		}
	}
	// reduced-cost fixing, for the whole subtree
	mark := len(ws.trail)
	if !ws.fixByCost(num, rc, shift, sf.inc) {
		return nil
	}
	br, frac := -1, 2.0
	var cands []int
	for i, v := range y {
		if ws.fix[i] == 0 && v > 1e-9 && v < 1-1e-9 {
			cands = append(cands, i)
			if f := math.Abs(v - 0.5); f < frac {
				br, frac = i, f
			}
		}
	}
	here := sf.snapshot()
	defer sf.keep(here)
	childUB := [2]int64{ub, ub}
	strong := false
	if len(cands) > 1 {
		var err error
		br, childUB, strong, err = sf.choose(ctx, y, ub, cands, here)
		if err != nil {
			return err
		}
	}
	if br < 0 {
		// an integral LP point above the incumbent only by the bound's
		// rounding
		if br = freeMember(y, ws.fix); br < 0 {
			return nil
		}
	}
	first := firstSide(y[br])
	depth := sf.nodes[id].depth + 1
	for _, v := range [2]int8{first, -first} {
		before := len(ws.trail)
		cub := childUB[0]
		if v < 0 {
			cub = childUB[1]
		}
		if cub <= sf.inc {
			continue
		}
		if ws.set(int32(br), v) {
			fixes := make([]int32, 0, len(ws.trail)-mark)
			for _, i := range ws.trail[mark:] {
				if ws.fix[i] == 1 {
					fixes = append(fixes, i+1)
				} else {
					fixes = append(fixes, -i-1)
				}
			}
			dir, f := 0, 1-y[br]
			if v < 0 {
				dir, f = 1, y[br]
			}
			var sn *flowSnap
			if here != &sf.scratch {
				sn = here
				here.refs++
			}
			sf.nodes = append(sf.nodes, flowNode{bound: cub, parent: id, depth: depth, fixes: fixes,
				item: int32(br), dir: int8(dir), frac: f, parentUB: ub, strong: strong, snap: sn})
			sf.push(int32(len(sf.nodes) - 1))
		}
		ws.undo(before)
	}
	return nil
}

// keep returns snapshot sn to the spares when no child holds it.
func (sf *stretchFlow) keep(sn *flowSnap) {
	if sn != &sf.scratch && sn.refs == 0 {
		sn.refs = 1
		sf.release(sn)
	}
}

// above reports whether open node a comes before b: larger bound, then
// deeper.
func (sf *stretchFlow) above(a, b int32) bool {
	na, nb := &sf.nodes[a], &sf.nodes[b]
	if na.bound != nb.bound {
		return na.bound > nb.bound
	}
	return na.depth > nb.depth
}

func (sf *stretchFlow) push(id int32) {
	h := append(sf.open, id)
	for k := len(h) - 1; k > 0; {
		p := (k - 1) / 2
		if !sf.above(h[k], h[p]) {
			break
		}
		h[k], h[p] = h[p], h[k]
		k = p
	}
	sf.open = h
}

func (sf *stretchFlow) pop() int32 {
	h := sf.open
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	for k := 0; ; {
		c := 2*k + 1
		if c >= len(h) {
			break
		}
		if c+1 < len(h) && sf.above(h[c+1], h[c]) {
			c++
		}
		if !sf.above(h[c], h[k]) {
			break
		}
		h[k], h[c] = h[c], h[k]
		k = c
	}
	sf.open = h
	return top
}

// solveAllFlow is solveAll with every stretch whose shares changed solved
// by solveFlow, on every core, each within sd.nodeLimit nodes (0: none)
// and within sd.mipLimit (0: none) and an even share of the time ctx
// leaves. A stretch not solved (ctx ended before it, or its root LP)
// takes its Lagrangian value, which holds for any multipliers.
func (sd *stretchDecomp) solveAllFlow(ctx context.Context) *big.Int {
	var todo []*stretch
	for _, w := range sd.wins {
		if !w.fresh {
			todo = append(todo, w)
		}
	}
	workers := min(max(1, runtime.GOMAXPROCS(0)), max(len(todo), 1))
	next := make(chan int, len(todo))
	for k := range todo {
		next <- k
	}
	close(next)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range next {
				w := todo[k]
				limit := sd.mipLimit
				if dl, ok := ctx.Deadline(); ok {
					left := time.Until(dl) * time.Duration(workers) / time.Duration(len(todo)-k)
					if limit == 0 || left < limit {
						limit = left
					}
				}
				ok := false
				if ctx.Err() == nil && (limit > 0 || sd.mipLimit == 0) {
					wctx, cancel := ctx, context.CancelFunc(func() {})
					if limit > 0 {
						wctx, cancel = context.WithTimeout(ctx, limit)
					}
					ok = sd.solveFlow(wctx, w, sd.nodeLimit)
					cancel()
				}
				if !ok {
					w.val, w.exact, w.fresh = sd.lagrangeValue(w), false, false
				}
			}
		}()
	}
	wg.Wait()
	for _, w := range todo {
		sd.nodes += w.nodes
	}
	return sd.total()
}

// flowReliable is how many observed falls make an item's pseudo-cost in
// a direction reliable: until both directions have as many, the item is
// strong-branched on (reliability branching).
const flowReliable = 2

// learn records a fall of the bound by gain when item i moved by frac in
// direction dir (0: in, 1: out).
func (sf *stretchFlow) learn(i, dir int, gain int64, frac float64) {
	if frac < 1e-9 {
		return
	}
	g := float64(max(gain, 0)) / frac
	sf.pcSum[dir][i] += g
	sf.pcN[dir][i]++
	sf.pcAll[dir] += g
	sf.pcAllN[dir]++
}

// estimate is item i's pseudo-cost in direction dir: its own mean when it
// has one, else the mean over all items (1 when there is none).
func (sf *stretchFlow) estimate(i, dir int) float64 {
	if n := sf.pcN[dir][i]; n > 0 {
		return sf.pcSum[dir][i] / float64(n)
	}
	if sf.pcAllN[dir] == 0 {
		return 1
	}
	return sf.pcAll[dir] / float64(sf.pcAllN[dir])
}

// choose picks the branching item among cands (fractional, free) at a node
// of LP point y and bound ub: the largest product of the two children's
// falls, solved by their LPs for up to sf.strong unreliable items (most
// fractional first) and estimated by pseudo-costs for the others.
// childUB holds the chosen item's children's bounds (in, out) when they
// were solved (strong), ub otherwise.
func (sf *stretchFlow) choose(ctx context.Context, y []float64, ub int64, cands []int, here *flowSnap) (br int, childUB [2]int64, strong bool, err error) {
	ws := sf.ws
	const shift = flowScale - muBits
	slices.SortFunc(cands, func(a, b int) int { return cmp.Compare(math.Abs(y[a]-0.5), math.Abs(y[b]-0.5)) })
	left := sf.strong
	best := -1.0
	br, childUB = cands[0], [2]int64{ub, ub}
	moved := false // the flow is no longer the node's (here)
	for _, c := range cands {
		f := [2]float64{1 - y[c], y[c]}
		var g [2]float64
		solved := false
		var cu [2]int64
		if left > 0 && (sf.pcN[0][c] < flowReliable || sf.pcN[1][c] < flowReliable) {
			left--
			solved = true
			for k, v := range [2]int8{1, -1} {
				before := len(ws.trail)
				cu[k] = math.MinInt64
				if ws.set(int32(c), v) {
					if moved { // back to the node's flow
						ws.lf.load(&here.flowState)
					}
					moved = true
					n2, _, _, err := ws.flowLP(ctx, false)
					if err == nil {
						cu[k] = n2 >> shift
					} else if !errors.Is(err, errInfeasible) {
						ws.undo(before)
						return 0, childUB, false, err
					}
				}
				ws.undo(before)
				g[k] = math.MaxFloat32 // no point: the best of falls
				if cu[k] != math.MinInt64 {
					sf.learn(c, k, ub-cu[k], f[k])
					g[k] = float64(max(ub-cu[k], 1))
				}
			}
		} else {
			for k := range 2 {
				g[k] = max(sf.estimate(c, k)*f[k], 1)
			}
		}
		if sc := g[0] * g[1]; sc > best {
			best, br, strong = sc, c, solved
			childUB = [2]int64{ub, ub}
			if solved {
				childUB = cu
			}
		}
	}
	return br, childUB, strong, nil
}
