package slo

import (
	"context"
	"slices"
)

// Coarsening: stretches that grow where their branch and bound closes.
//
// Merging two neighbouring stretches w1 (rows a .. b−1) and w2 (rows b ..
// c−1) into one, w (rows a .. c−1), with each member's share in w the sum
// of its shares in w1 and w2 (zero where it is not in one of them), keeps
// every member's shares summing to one, so the bound of stretch.go holds
// for the new decomposition; and it is never larger at those shares:
// every point z of w restricted to w1's items is a point of w1 and to
// w2's items a point of w2, so Σ_{n∈I_w} (β_{w1,n} + β_{w2,n}) z_n ≤
// V_{w1}(β_{w1}) + V_{w2}(β_{w2}), i.e. V_w ≤ V_{w1} + V_{w2}. So once
// the shares stall at one span, merging neighbours and going on from the
// same shares starts no higher than where the shorter stretches ended,
// and the longer stretches' hulls are tighter (they hold every valid
// inequality over twice the rows). A merged stretch whose branch and
// bound does not finish within its node budget is split back (its two
// parts kept as they were): the spans grow only where the search closes.
// Points carry over too: a member is in the merged stretch's starting
// point when it is in the point of each part holding it (a subset of
// both parts' points restricted to w, so it meets every row of w), and
// the row multipliers of the parts are the merged one's.

// shares returns a copy of every stretch's shares.
func (sd *stretchDecomp) shares() [][]int64 {
	out := make([][]int64, len(sd.wins))
	for k, w := range sd.wins {
		out[k] = slices.Clone(w.beta)
	}
	return out
}

// noteBest records the current shares as those of the least bound met
// (with stallStop > 0: a stall goes back to them).
func (sd *stretchDecomp) noteBest() {
	if sd.stallStop > 0 {
		sd.bestBeta = sd.shares()
	}
}

// setAllShares sets every stretch's shares to b (shares's layout),
// marking the stretches whose shares change.
func (sd *stretchDecomp) setAllShares(b [][]int64) {
	for k, w := range sd.wins {
		if !slices.Equal(w.beta, b[k]) {
			copy(w.beta, b[k])
			w.fresh = false
		}
	}
}

// coarsen merges neighbouring pairs of sd's stretches (one layer only)
// into stretches of at most maxSpan rows at sd's current shares (comment
// above), keeps the merges whose branch and bound finishes, and returns
// the new decomposition, solved (every stretch's value for its current
// shares), and how many merges it kept (0: sd itself).
func (sd *stretchDecomp) coarsen(ctx context.Context, maxSpan int) (*stretchDecomp, int) {
	if sd.layers != 1 || len(sd.wins) < 2 {
		return sd, 0
	}
	m := sd.m
	sd.solveAll(ctx) // the parts' values at the current shares
	var ranges [][2]int32
	var groups [][]int
	for k := 0; k < len(sd.wins); {
		w := sd.wins[k]
		if k+1 < len(sd.wins) && int(sd.wins[k+1].r1-w.r0) <= maxSpan {
			ranges = append(ranges, [2]int32{w.r0, sd.wins[k+1].r1})
			groups = append(groups, []int{k, k + 1})
			k += 2
			continue
		}
		ranges = append(ranges, [2]int32{w.r0, w.r1})
		groups = append(groups, []int{k})
		k++
	}
	if len(ranges) == len(sd.wins) || ctx.Err() != nil {
		return sd, 0
	}
	cand := m.newStretchDecompRanges(ranges, 1)
	sd.settingsTo(cand)
	cand.carry(sd, groups)
	cand.solveAll(ctx)
	var final [][2]int32
	var src []*stretch
	merged := 0
	for g, w := range cand.wins {
		if p := groups[g]; len(p) == 2 && w.exact && w.val <= sd.wins[p[0]].val+sd.wins[p[1]].val {
			final = append(final, ranges[g])
			src = append(src, w)
			merged++
			continue
		}
		for _, k := range groups[g] {
			final = append(final, [2]int32{sd.wins[k].r0, sd.wins[k].r1})
			src = append(src, sd.wins[k])
		}
	}
	sd.nodes = cand.nodes
	if merged == 0 {
		return sd, 0
	}
	out := m.newStretchDecompRanges(final, 1)
	sd.settingsTo(out)
	out.nodes = cand.nodes
	for k, w := range out.wins {
		v := src[k]
		copy(w.beta, v.beta)
		copy(w.lam, v.lam)
		copy(w.z, v.z)
		w.val, w.exact, w.fresh, w.nodes = v.val, v.exact, v.fresh, v.nodes
	}
	return out, merged
}

// settingsTo copies sd's solver settings (not its stretches) to to.
func (sd *stretchDecomp) settingsTo(to *stretchDecomp) {
	to.nodeLimit, to.depthFirst, to.stallStop, to.nodes = sd.nodeLimit, sd.depthFirst, sd.stallStop, sd.nodes
}

// carry sets cd's shares, row multipliers and starting points from sd,
// whose stretches groups[g] make up cd's stretch g (comment above).
func (cd *stretchDecomp) carry(sd *stretchDecomp, groups [][]int) {
	groupOf := make([]int32, len(sd.wins))
	for g, p := range groups {
		var lam []int64
		for _, k := range p {
			groupOf[k] = int32(g)
			lam = append(lam, sd.wins[k].lam...)
		}
		copy(cd.wins[g].lam, lam)
	}
	for i, oc2 := range cd.occ {
		for _, o2 := range oc2 {
			var b int64
			in := true
			for _, o := range sd.occ[i] {
				if groupOf[o[0]] == o2[0] {
					b += sd.wins[o[0]].beta[o[1]]
					in = in && sd.wins[o[0]].z[o[1]]
				}
			}
			w := cd.wins[o2[0]]
			w.beta[o2[1]], w.z[o2[1]] = b, in
			w.fresh = false
		}
	}
}

// A second layer when the shares stall.
//
// Stretch.go's identity needs only that each member's shares over all its
// stretches sum to one, whatever the stretches: so adding a second layer
// of stretches (here cut at the middles of the first layer's, so every
// boundary of the first lies inside a stretch of the second) with every
// share in it zero keeps the identity, and a stretch of zero shares is
// worth exactly zero: the bound at those shares is the first layer's.
// The steps then go on over both layers from where one layer stalled.
// With both layers from the start (Layers: 2) each step solves twice the
// stretches; measured on the 10^4-turn instance (docs/tail-bounds.md) one
// layer lowers the bound faster for its first 15–20 s of CPU and then
// levels off, while two layers go on lower: adding the second layer when
// the first stalls takes the first's start and the second's finish.

// addLayer returns sd (one layer) with the second layer of the comment
// above; the first layer's stretches keep their shares, multipliers,
// points and values, the second's start at zero shares (worth zero,
// exactly) with the first layer's row multipliers.
func (sd *stretchDecomp) addLayer() *stretchDecomp {
	m := sd.m
	nr := int32(len(m.rowSeg))
	var ranges [][2]int32
	lam := make([]int64, nr)
	for _, w := range sd.wins {
		ranges = append(ranges, [2]int32{w.r0, w.r1})
		copy(lam[w.r0:w.r1], w.lam)
	}
	prev := int32(0)
	for _, w := range sd.wins[:len(sd.wins)-1] {
		if mid := (w.r0 + w.r1) / 2; mid > prev {
			ranges = append(ranges, [2]int32{prev, mid})
			prev = mid
		}
	}
	ranges = append(ranges, [2]int32{prev, nr})
	out := m.newStretchDecompRanges(ranges, 2)
	sd.settingsTo(out)
	for k, w := range out.wins {
		if k < len(sd.wins) {
			v := sd.wins[k]
			copy(w.beta, v.beta)
			copy(w.lam, v.lam)
			copy(w.z, v.z)
			w.val, w.exact, w.fresh, w.nodes = v.val, v.exact, v.fresh, v.nodes
			continue
		}
		copy(w.lam, lam[w.r0:w.r1])
		w.val, w.exact, w.fresh = 0, true, true // zero shares: V_w = 0, the empty point
	}
	return out
}
