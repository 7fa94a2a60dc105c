package slo

import (
	"slices"
)

// component is one component's 0/1 program in a compact form shared by the
// cut separation (cuts.go), the Lagrangian bound (lagrange.go) and the
// branch and bound (bnb.go).
//
// The steps are compressed to the distinct endpoints of the members'
// spans, ends[0] < ends[1] < … : between two consecutive endpoints the set
// of members spanning a step does not change, so segment j (steps
// ends[j] .. ends[j+1]−1) has one row, whose capacity is the least of its
// steps' (the other steps' rows are implied by it).
type component struct {
	members []int   // candidate indices (into problem.cands), local index = position
	d       []int64 // demand of each local member, blocks
	lo, hi  []int32 // local member i spans segments lo[i] .. hi[i]−1
	ends    []int   // the distinct endpoints, steps
	segCap  []int64 // capacity of each segment, blocks
	// rows are the segments whose members' demands sum above the
	// capacity (the others never bind): rowSeg[r] is the segment and
	// rowItems[r] its members (local indices, increasing).
	rowSeg   []int32
	rowItems [][]int32
}

// newComponent builds the compact program of members (candidate indices).
func (pr *problem) newComponent(members []int) *component {
	return pr.newComponentRows(members, true)
}

// newComponentRows is newComponent that fills rowItems only when items is
// set: the stretches (stretch.go) need only rowSeg, and a component of
// 10^6 turns holds about 4.6·10^7 (row, member) incidences, 184 MB of
// rowItems. Without items the rows are found from the segments' loads by
// prefix sums, in time linear in the members and segments.
func (pr *problem) newComponentRows(members []int, items bool) *component {
	m := &component{members: members, d: make([]int64, len(members)),
		lo: make([]int32, len(members)), hi: make([]int32, len(members))}
	for i, c := range members {
		p := pr.cands[c]
		m.ends = append(m.ends, p.a, p.n)
		m.d[i] = p.d
	}
	slices.Sort(m.ends)
	m.ends = slices.Compact(m.ends)
	if pr.capTree == nil {
		pr.capTree = newMinTree(pr.cap)
	}
	m.segCap = make([]int64, max(len(m.ends)-1, 0))
	for j := range m.segCap {
		m.segCap[j] = pr.capTree.min(m.ends[j], m.ends[j+1]-1)
	}
	for i, c := range members {
		p := pr.cands[c]
		l, _ := slices.BinarySearch(m.ends, p.a)
		h, _ := slices.BinarySearch(m.ends, p.n)
		m.lo[i], m.hi[i] = int32(l), int32(h)
	}
	if !items {
		load := make([]int64, len(m.ends))
		for i, d := range m.d {
			load[m.lo[i]] += d
			load[m.hi[i]] -= d
		}
		var run int64
		for j, c := range m.segCap {
			run += load[j]
			if run > c {
				m.rowSeg = append(m.rowSeg, int32(j))
			}
		}
		return m
	}
	start := make([][]int32, len(m.ends))
	for i := range members {
		start[m.lo[i]] = append(start[m.lo[i]], int32(i))
	}
	// Sweep the segments keeping the active members.
	var active []int32
	for j := range m.segCap {
		active = slices.DeleteFunc(active, func(i int32) bool { return m.hi[i] <= int32(j) })
		active = append(active, start[j]...)
		var sum int64
		for _, i := range active {
			sum += m.d[i]
		}
		if sum > m.segCap[j] && len(active) > 0 {
			row := slices.Clone(active)
			slices.Sort(row)
			m.rowSeg = append(m.rowSeg, int32(j))
			m.rowItems = append(m.rowItems, row)
		}
	}
	return m
}
