// Package prefix computes the offline (hindsight) optimum of the block-level
// prefix cache of models/prefixcache as an integer program, and its LP
// relaxation as a lower bound on misses at scale.
//
// # The model
//
// Requests t = 0 … n−1 each name a chain of blocks (a root-to-node path of
// the prefix tree of all chains, numbered by a prefixcache.Interner). A
// request hits the longest cached prefix of its chain; after it is served
// its whole chain is admitted (the cache evicts to make room), and only
// leaves of the cached prefix tree are ever evicted, so a cached block's
// parent is always cached. The capacity is C blocks, and every chain must
// fit (|chain_t| ≤ C), as on both Mooncake traces at every capacity the
// README reports. The offline problem is to choose the evictions, knowing
// the whole trace, to maximize block hits (equivalently minimize misses,
// the chain blocks beyond each request's hit prefix).
//
// # Intervals
//
// Call a pair of consecutive uses p < q of one block b an interval of b.
// The reference of b at q hits exactly when b stays cached throughout
// (p, q): it is cached right after p (the chain of p was admitted), it can
// only re-enter the cache through a request that uses it, and a cached
// block whose parent is cached is hit — every ancestor a of b is used by
// every request that uses b, so a's latest use before q is some p' ≥ p and
// a stays cached over (p', q) because b does (no orphans). So the hits are
// a choice of intervals to keep, x_I ∈ {0, 1}, and:
//
//   - An interval with q = p + 1 spans no request and is always kept: the
//     chain of p fits, so it is cached at p + 1. It is a constant hit.
//   - Prefix rule: if b (parent a) is kept over I = (p, q), then a is kept
//     over every interval J of a inside I (a's uses inside [p, q] include p
//     and q, so its intervals there partition I): x_I ≤ x_J. Only the
//     parent is needed; the rest follows by transitivity.
//   - Capacity: at request t, the blocks cached after it is served are at
//     least its chain and every kept interval that strictly contains t
//     (p < t < q; such a block is not in chain_t), so
//     L_t = Σ_{p<t<q} x_I ≤ C − |chain_t|.
//
// These constraints are also sufficient: given x satisfying them, the cache
// that, at each request, evicts every cached block outside chain_t ∪ {kept
// intervals spanning t} holds a prefix-closed set at all times (a kept
// interval's parent is kept or in chain_t), so the evicted set can be
// removed leaf by leaf; and the lazy version — evict only as many as
// admission needs, always a block outside that set, which exists among the
// leaves (the deepest block outside a prefix-closed set is a leaf) — hits
// the same references. Conversely every run of a block policy defines a
// feasible x (its hit references). So the optimum of the integer program
//
//	maximize Σ x_I  s.t. x_I ≤ x_J (J ⊆ I an interval of the parent),
//	                     L_t ≤ C − |chain_t| for every t, x ∈ {0,1}
//
// plus the constant hits is the offline optimum, and every block policy's
// hits are at most it; its LP relaxation (0 ≤ x ≤ 1) is an upper bound on
// hits, i.e. a lower bound on misses, and the hindsight policy of
// belady/prefix a feasible lower bound on hits — in fact all three are
// equal (below).
//
// The capacity rows are written in flow form (as Belady's paging LP): a
// load variable s_t = L_t with 0 ≤ s_t ≤ C − |chain_t| and, for t ≥ 1,
// s_t − s_{t−1} − Σ_{p = t−1} x_I + Σ_{q = t} x_I = 0, so each interval has
// two non-zeros instead of one per request it spans.
//
// # Structure: furthest-next-use is exact
//
// The problem is polynomial: belady/prefix (evict the evictable leaf whose
// next use is furthest, blocks never used again first) attains the
// optimum, and the LP relaxation's value equals the IP's (an optimal LP
// vertex may still be fractional, since the prefix rows break total
// unimodularity; the value is what is tight). Proof.
//
// (1) Drop the prefix rows. What is left is: choose the most intervals so
// that every request t is strictly inside at most cap_t = C − |chain_t|
// chosen ones. Its matrix in flow form is a network matrix (each x_I is an
// arc of a path, as in Belady's paging LP), so that LP is integral, and
// its optimum is attained by the greedy G that sweeps t = 1, 2, …: A_t
// holds the intervals covering t that G has not dropped; when |A_t| >
// cap_t it drops the |A_t| − cap_t of them with the latest end q. G is
// optimal, by exchange: let O be an optimal choice avoiding every interval
// G dropped before t, and X the set G drops at t. O keeps at most cap_t of
// A_t, so Y = A_t \ O has at least |X| members; swap each I ∈ X ∩ O for a
// J ∈ Y \ X. Then q_J ≤ q_I (X holds the latest ends), so at times ≥ t J
// covers only times I covers; at a time s < t, J and every interval of O
// covering s are intervals G kept at s, at most cap_s of them. The swapped
// O is feasible, as large, and avoids every drop up to t; by induction an
// optimal O is a subset of G's kept intervals, so G is optimal.
//
// (2) belady/prefix is a run of G. At request t the cached blocks outside
// chain_t are the blocks never used again and those whose current
// interval covers t (exactly A_t, since a block dropped by an eviction
// stays out until its next use), and the cache evicts until at most cap_t
// are left: first the never-used blocks, then intervals with the latest
// next use q, one at a time. It may evict only leaves, but that costs
// nothing: a block's next use is never later than its descendants' (every
// request using a block uses its parent), and the subtree of a cached
// block outside chain_t holds no pinned block, so the latest next use over
// all candidates is attained at a leaf.
//
// (3) So the hits of belady/prefix equal the optimum of the LP without
// prefix rows, which is at least the LP with them, at least the IP, at
// least the hits of belady/prefix (a feasible cache). All four are equal:
// the prefix rule, which made the turn level a flow only after folding it
// into one quantity per conversation, costs nothing here, because
// furthest-next-use never wants to break it. TestBeladyIsOptimal checks
// belady/prefix = IP (CBC) = LP (CLP) on random instances, and the IP
// against exhaustive search.
//
// This does not extend to TEL: TEL charges a request only above a
// threshold, so hits are not interchangeable across requests and the
// exchange argument fails; this package optimizes hits.
package prefix

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// Model is the integer program of one trace at one capacity.
type Model struct {
	// Problem minimizes −(kept intervals): its first Intervals columns are
	// the x_I (weighted by their run's length in a BuildLP model), the rest
	// the load variables s_t.
	Problem *lp.Problem
	// Intervals is the number of interval columns x_I.
	Intervals int
	// RefBlocks counts the block references of all chains.
	RefBlocks int64
	// Compulsory counts the first uses of blocks: misses of every cache.
	Compulsory int64
	// FixedHits counts the intervals with q = p + 1: hits of every cache.
	FixedHits int64
	// CapacityBlocks is C.
	CapacityBlocks int
	// PrecedenceRows counts the prefix-rule rows x_I ≤ x_J.
	PrecedenceRows int
	// Merged marks a model of BuildLP: an LP only.
	Merged bool
}

// Build returns the integer program of reqs (chains numbered by one
// prefixcache.Interner, Index = position) at a capacity of capacity
// blocks. A chain longer than the capacity, or a block repeated within a
// chain, is an error naming the request.
func Build(reqs []prefixcache.Req, capacity int) (*Model, error) {
	return build(reqs, capacity, false)
}

// BuildLP returns a smaller LP whose optimum equals that of the LP
// relaxation of Build's program: every run of blocks b₁ → b₂ → … → b_k in
// which each b_i (i < k) has b_{i+1} as its only child and all have the
// same uses is one column per interval, of weight k (objective and
// capacity coefficient). Exact for the LP: in any LP solution the run's
// variables of one interval can be replaced by their mean — the prefix
// rows into the run (x_{b₁} ≤ its parent's) and out of it (children of
// b_k, ≤ x_{b_k}) still hold since the mean lies between x_{b_k} and
// x_{b₁}, and loads and objective are sums. Not exact for the integer
// program (an optimum may keep part of a run), so the model has no
// integer columns and Solve refuses to solve it as one. On the Mooncake
// traces it cuts the columns about tenfold (conversation: 93,680
// intervals to 9,637).
func BuildLP(reqs []prefixcache.Req, capacity int) (*Model, error) {
	return build(reqs, capacity, true)
}

func build(reqs []prefixcache.Req, capacity int, merge bool) (*Model, error) {
	if capacity < 0 {
		return nil, fmt.Errorf("capacity %d blocks is negative", capacity)
	}
	n := len(reqs)
	m := &Model{CapacityBlocks: capacity}
	// uses[id]: request indices using block id, increasing; depth[id]: its
	// depth (unique: a block is a prefix-tree node).
	var uses [][]int32
	var depth []int32
	var parent []prefixcache.BlockID
	for t := range reqs {
		r := &reqs[t]
		if r.Index != t {
			return nil, fmt.Errorf("request %d: index %d, want its position %d", t, r.Index, t)
		}
		if len(r.Blocks) > capacity {
			return nil, fmt.Errorf("request %d: its chain of %d blocks exceeds the capacity of %d blocks (the bound needs every chain to fit)", t, len(r.Blocks), capacity)
		}
		par := prefixcache.BlockID(-1)
		for d, id := range r.Blocks {
			if id < 0 {
				return nil, fmt.Errorf("request %d: block id %d at depth %d is negative", t, id, d)
			}
			for int(id) >= len(uses) {
				uses = append(uses, nil)
				depth = append(depth, int32(d))
				parent = append(parent, par)
			}
			if depth[id] != int32(d) || parent[id] != par {
				return nil, fmt.Errorf("request %d: block %d at depth %d after block %d was first seen at depth %d after block %d (chains not numbered by one interner)", t, id, d, par, depth[id], parent[id])
			}
			if u := uses[id]; len(u) > 0 && u[len(u)-1] == int32(t) {
				return nil, fmt.Errorf("request %d: block %d occurs twice in its chain", t, id)
			}
			uses[id] = append(uses[id], int32(t))
			par = id
		}
		m.RefBlocks += int64(len(r.Blocks))
	}
	// rep[id] is the first block of id's run (id itself without merging),
	// weight[id] the run's length when id is a run's first block. Ids
	// number parents before children.
	rep := make([]prefixcache.BlockID, len(uses))
	weight := make([]float64, len(uses))
	kids := make([]int32, len(uses))
	for id := range uses {
		if p := parent[id]; p >= 0 {
			kids[p]++
		}
	}
	for id := range uses {
		rep[id] = prefixcache.BlockID(id)
		if p := parent[id]; merge && p >= 0 && kids[p] == 1 && len(uses[p]) == len(uses[id]) {
			rep[id] = rep[p]
		}
		weight[rep[id]]++
	}
	// Number the variable intervals by their end reference (id, k): the
	// interval (uses[id][k−1], uses[id][k]); a merged block shares its run's
	// columns.
	col := make([][]int32, len(uses)) // col[id][k] = column of interval ending at uses[id][k], −1 if none
	var colWeight []float64
	ncols := 0
	for id, u := range uses {
		m.Compulsory++
		for k := 1; k < len(u); k++ {
			if u[k]-u[k-1] == 1 {
				m.FixedHits++
			}
		}
		if rep[id] != prefixcache.BlockID(id) {
			continue
		}
		col[id] = make([]int32, len(u))
		col[id][0] = -1
		for k := 1; k < len(u); k++ {
			if u[k]-u[k-1] == 1 {
				col[id][k] = -1
				continue
			}
			col[id][k] = int32(ncols)
			colWeight = append(colWeight, weight[id])
			ncols++
		}
	}
	for id := range uses {
		col[id] = col[rep[id]]
	}
	m.Intervals = ncols
	// Rows: 0 … n−2 are the flow rows of t = 1 … n−1; then precedence rows.
	flowRows := max(n-1, 0)
	type entry struct {
		row int
		val float64
	}
	ents := make([][]entry, ncols+n)
	rowLo := make([]float64, flowRows)
	rowUp := make([]float64, flowRows)
	for id, u := range uses {
		if rep[id] != prefixcache.BlockID(id) {
			continue
		}
		for k := 1; k < len(u); k++ {
			c := col[id][k]
			if c < 0 {
				continue
			}
			p, q := int(u[k-1]), int(u[k])
			w := colWeight[c]
			ents[c] = append(ents[c], entry{p, -w}, entry{q - 1, w}) // rows of t = p+1 and t = q
			par := parent[id]
			if par < 0 {
				continue
			}
			pu, pc := uses[par], col[par]
			i := sort.Search(len(pu), func(i int) bool { return int(pu[i]) > p })
			for ; i < len(pu) && int(pu[i]) <= q; i++ {
				if pc[i] < 0 {
					continue
				}
				r := len(rowLo)
				rowLo = append(rowLo, math.Inf(-1))
				rowUp = append(rowUp, 0)
				ents[c] = append(ents[c], entry{r, 1})
				ents[pc[i]] = append(ents[pc[i]], entry{r, -1})
				m.PrecedenceRows++
			}
		}
	}
	prob := &lp.Problem{NumRows: len(rowLo), NumCols: ncols + n, RowLo: rowLo, RowUp: rowUp}
	prob.Integer = make([]bool, ncols+n)
	for j := 0; j < ncols+n; j++ {
		if j < ncols {
			prob.Obj = append(prob.Obj, -colWeight[j])
			prob.ColLo = append(prob.ColLo, 0)
			prob.ColUp = append(prob.ColUp, 1)
			prob.Integer[j] = !merge
		} else {
			t := j - ncols // s_t
			prob.Obj = append(prob.Obj, 0)
			prob.ColLo = append(prob.ColLo, 0)
			up := float64(capacity - len(reqs[t].Blocks))
			if t == 0 {
				up = 0 // nothing spans the first request
			}
			prob.ColUp = append(prob.ColUp, up)
			if t >= 1 {
				ents[j] = append(ents[j], entry{t - 1, 1})
			}
			if t+1 < n {
				ents[j] = append(ents[j], entry{t, -1})
			}
		}
	}
	prob.ColStart = make([]int, 1, ncols+n+1)
	for j := range ents {
		e := ents[j]
		sort.Slice(e, func(a, b int) bool { return e[a].row < e[b].row })
		for _, x := range e {
			prob.RowIndex = append(prob.RowIndex, x.row)
			prob.Value = append(prob.Value, x.val)
		}
		prob.ColStart = append(prob.ColStart, len(prob.Value))
	}
	if ncols == 0 || merge {
		prob.Integer = nil
	}
	m.Problem = prob
	m.Merged = merge
	return m, nil
}

// Misses converts an objective value of Problem (−kept intervals) into
// block misses: references minus constant hits minus kept intervals.
func (m *Model) Misses(obj float64) float64 {
	return float64(m.RefBlocks-m.FixedHits) + obj
}

// Result is one solve of the program.
type Result struct {
	// Backend names the solver; Relaxed says whether it solved the LP
	// relaxation.
	Backend string
	Relaxed bool
	// Status is the solver's outcome; MissBlocks and HitBlocks are
	// meaningful only when it is lp.Optimal. For the relaxation they are
	// the LP's (fractional) bound: misses ≤ every cache's, hits ≥.
	Status     lp.Status
	MissBlocks float64
	HitBlocks  float64
	// Integral reports whether every interval column of the solution is
	// within IntegralityTol of 0 or 1.
	Integral bool
	// Detail is the backend's status text.
	Detail string
}

// IntegralityTol is the distance to an integer within which an LP value
// counts as integral, blocks.
const IntegralityTol = 1e-6

// Solve solves m with be (its LP relaxation when relax).
func (m *Model) Solve(ctx context.Context, be lp.Backend, relax bool, opt lp.Options) (Result, error) {
	if m.Merged && !relax {
		return Result{}, fmt.Errorf("the merged model of BuildLP is exact for the LP relaxation only; build the integer program with Build")
	}
	opt.Relax = relax
	sol, err := be.Solve(ctx, m.Problem, opt)
	if err != nil {
		return Result{}, fmt.Errorf("%s: %w", be.Name(), err)
	}
	res := Result{Backend: be.Name(), Relaxed: relax, Status: sol.Status, Detail: sol.Detail}
	if sol.Status != lp.Optimal {
		return res, nil
	}
	res.MissBlocks = m.Misses(sol.Obj)
	res.HitBlocks = float64(m.RefBlocks) - res.MissBlocks
	res.Integral = true
	for j := 0; j < m.Intervals && j < len(sol.X); j++ {
		if math.Abs(sol.X[j]-math.Round(sol.X[j])) > IntegralityTol {
			res.Integral = false
			break
		}
	}
	return res, nil
}
