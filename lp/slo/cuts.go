package slo

import (
	"fmt"
	"hash/maphash"
	"slices"

	"github.com/tailbound/tailbound/lp"
)

// Valid inequalities for the 0/1 program of a component (see the package
// doc): y_n ∈ {0, 1} serves pair n, and each row r (a segment of steps
// with the same spanning members P_r and least capacity cap_r, blocks)
// reads Σ_{n∈P_r} d_n·y_n ≤ cap_r.
//
// Extended cover inequality. A cover of row r is a set C ⊆ P_r with
// Σ_C d_n > cap_r. Its extension is E(C) = C ∪ {n ∈ P_r : d_n ≥ max_C d},
// and the inequality is
//
//	Σ_{n∈E(C)} y_n ≤ |C| − 1.
//
// Proof that it holds at every integer point of the program: let S ⊆ E(C)
// be served with |S| ≥ |C|, and let s_1 ≤ s_2 ≤ … be the demands of S and
// c_1 ≤ … ≤ c_|C| those of C, in increasing order. For k ≤ |C|, the k
// smallest members of S are some members of C (j of them, whose largest
// demand is at least c_j, since j distinct members of C cannot all lie
// below the j-th smallest) and some of E(C) \ C (each at least max_C d ≥
// c_k); either way s_k ≥ c_k. So Σ_S d ≥ Σ_{k≤|C|} s_k ≥ Σ_C d > cap_r
// and S breaks row r. Hence no integer point, optimal or not, is removed.
//
// Cardinality inequality. With k_r the most members of P_r whose smallest
// demands fit in cap_r, Σ_{n∈P_r} y_n ≤ k_r: it is the extended cover of
// the k_r + 1 smallest demands of P_r (every other member's demand is at
// least their largest, so E(C) = P_r). Measured on the 10^4-turn
// birth–death instance of docs/tail-bounds.md it never binds at the LP
// optimum (the LP serves pairs by area, demand × span, and stays well
// below k_r pairs at every step), so the separation below looks for
// covers of the LP point instead, which includes it when it is violated.
//
// The program's rows already have the free candidates' load taken out of
// the capacity (reduce), so an inequality holds at every schedule that
// serves them all; one such schedule is optimal (a free candidate spans no
// binding step, so adding it to any schedule keeps every row).

// cut is an extended cover inequality of one component: at most rhs of
// items (local member indices, increasing) are served.
type cut struct {
	row   int32
	items []int32
	rhs   int32
}

// extend returns the extended cover inequality of cover (local member
// indices of row r's members).
func (m *component) extend(r int, cover []int32) cut {
	var dmax int64
	for _, i := range cover {
		dmax = max(dmax, m.d[i])
	}
	in := make(map[int32]bool, len(cover))
	for _, i := range cover {
		in[i] = true
	}
	var items []int32
	for _, i := range m.rowItems[r] {
		if in[i] || m.d[i] >= dmax {
			items = append(items, i)
		}
	}
	return cut{row: int32(r), items: items, rhs: int32(len(cover) - 1)}
}

// separate returns, for each row where it finds one, an extended cover
// inequality that y (one value in [0, 1] per local member) violates by
// more than minViolation. The cover is built greedily: members in
// decreasing order of y (ties: larger demand first) until the demands
// exceed the capacity, then made minimal by dropping members from the end
// while it stays a cover; it is violated iff Σ_C (1 − y) < 1.
func (m *component) separate(y []float64, minViolation float64) []cut {
	var out []cut
	var order []int32
	for r, row := range m.rowItems {
		capR := m.segCap[m.rowSeg[r]]
		order = append(order[:0], row...)
		slices.SortFunc(order, func(a, b int32) int {
			switch {
			case y[a] > y[b]:
				return -1
			case y[a] < y[b]:
				return 1
			case m.d[a] > m.d[b]:
				return -1
			case m.d[a] < m.d[b]:
				return 1
			}
			return int(a - b)
		})
		var sum int64
		k := 0
		for ; k < len(order) && sum <= capR; k++ {
			sum += m.d[order[k]]
		}
		if sum <= capR {
			continue
		}
		cover := slices.Clone(order[:k])
		for j := len(cover) - 1; j >= 0; j-- {
			if sum-m.d[cover[j]] > capR {
				sum -= m.d[cover[j]]
				cover = slices.Delete(cover, j, j+1)
			}
		}
		c := m.extend(r, cover)
		var lhs float64
		for _, i := range c.items {
			lhs += y[i]
		}
		if lhs > float64(c.rhs)+minViolation {
			out = append(out, c)
		}
	}
	return out
}

// cutPool keeps distinct cuts.
type cutPool struct {
	seed maphash.Seed
	seen map[uint64]bool
	cuts []cut
}

func newCutPool() *cutPool { return &cutPool{seed: maphash.MakeSeed(), seen: map[uint64]bool{}} }

// add adds the cuts not already in the pool and returns how many.
func (p *cutPool) add(cs []cut) int {
	n := 0
	for _, c := range cs {
		var h maphash.Hash
		h.SetSeed(p.seed)
		for _, i := range c.items {
			h.WriteString(fmt.Sprint(i, ","))
		}
		h.WriteString(fmt.Sprint("≤", c.rhs))
		k := h.Sum64()
		if p.seen[k] {
			continue
		}
		p.seen[k] = true
		p.cuts = append(p.cuts, c)
		n++
	}
	return n
}

// Cut is a valid inequality of the SLO problem stated on turns: in every
// admissible schedule in which every turn of the CutSet's Free meets the
// SLO, at most Max of Turns meet it.
type Cut struct {
	// Family is "cardinality" or "cover" (extended cover).
	Family string
	// Step is a step of the row it comes from (turn index).
	Step int
	// Turns are the turns whose pairs it counts, increasing.
	Turns []int
	// Max is the most of them that can meet the SLO.
	Max int
}

// CutSet is every inequality of the families above for one instance and
// SLO, for checking them against exhaustive search.
type CutSet struct {
	// Free lists the turns that meet the SLO in the schedules the cuts
	// are stated for (the free candidates, and the turns meeting it in
	// every schedule); some optimal schedule is among them.
	Free []int
	Cuts []Cut
}

// EnumerateCuts returns, for each row of each component of in at SLO s
// (tokens), its cardinality inequality and the extended cover inequality
// of each of its minimal covers. Rows with more than maxRow members are an
// error (the covers are enumerated exhaustively).
func EnumerateCuts(in *lp.Instance, s int64, maxRow int) (*CutSet, error) {
	pr := reduce(in, s)
	cs := &CutSet{}
	for n, ok := range pr.meets {
		if ok {
			cs.Free = append(cs.Free, n)
		}
	}
	members := pr.members()
	for _, mem := range members {
		m := pr.newComponent(mem)
		turns := func(items []int32) []int {
			t := make([]int, len(items))
			for j, i := range items {
				t[j] = pr.cands[m.members[i]].n
			}
			slices.Sort(t)
			return t
		}
		for r, row := range m.rowItems {
			if len(row) > maxRow {
				return nil, fmt.Errorf("slo: a row of %d pairs, more than %d", len(row), maxRow)
			}
			step := m.ends[m.rowSeg[r]]
			capR := m.segCap[m.rowSeg[r]]
			ds := make([]int64, len(row))
			for j, i := range row {
				ds[j] = m.d[i]
			}
			slices.Sort(ds)
			var sum int64
			k := 0
			for ; k < len(ds) && sum+ds[k] <= capR; k++ {
				sum += ds[k]
			}
			cs.Cuts = append(cs.Cuts, Cut{Family: "cardinality", Step: step, Turns: turns(row), Max: k})
			for _, c := range m.minimalCovers(r) {
				cs.Cuts = append(cs.Cuts, Cut{Family: "cover", Step: step, Turns: turns(c.items), Max: int(c.rhs)})
			}
		}
	}
	return cs, nil
}

// minimalCovers returns the extended cover inequality of each minimal
// cover of row r of m (a subset whose demands, blocks, exceed the row's
// capacity and would not without its smallest), enumerated over all
// 2^|row| subsets: for exhaustive checks on small rows only.
func (m *component) minimalCovers(r int) []cut {
	row := m.rowItems[r]
	capR := m.segCap[m.rowSeg[r]]
	var out []cut
	for mask := 1; mask < 1<<len(row); mask++ {
		var cover []int32
		var sum, dmin int64 = 0, -1
		for j, i := range row {
			if mask>>j&1 == 1 {
				cover = append(cover, i)
				sum += m.d[i]
				if dmin < 0 || m.d[i] < dmin {
					dmin = m.d[i]
				}
			}
		}
		if sum > capR && sum-dmin <= capR {
			out = append(out, m.extend(r, cover))
		}
	}
	return out
}
