package metrics

import (
	"math/bits"
	"slices"
)

// sortInts sorts v in increasing order and returns it. Counts ≥ 0 (the
// uncached counts always are) are sorted by an LSD radix sort of at most
// 12 bits a pass and only as many passes as the largest count has bits
// needs (two up to 2^24 tokens): a curve's
// accumulators each sort the Later store's counts at their capacity, up to
// one per turn, and a comparison sort of 10^6 of them per capacity would
// cost more than the whole replay (see docs/speed.md).
//
// A slice already in order (as a Later store that keeps its counts in
// order gives it) is returned as it is after one look at each count.
func sortInts(v []int64) []int64 {
	var top int64
	sorted := true
	for i, x := range v {
		if x < 0 {
			slices.Sort(v)
			return v
		}
		top = max(top, x)
		if i > 0 && x < v[i-1] {
			sorted = false
		}
	}
	if sorted {
		return v
	}
	if len(v) < 256 {
		slices.Sort(v)
		return v
	}
	const most = 12
	passes := (bits.Len64(uint64(top)) + most - 1) / most
	width := (bits.Len64(uint64(top)) + passes - 1) / passes
	mask := int64(1)<<width - 1
	tmp := make([]int64, len(v))
	var count [1 << most]int
	for shift := 0; top>>shift > 0; shift += width {
		clear(count[:])
		for _, x := range v {
			count[(x>>shift)&mask]++
		}
		pos := 0
		for d, c := range count[:mask+1] {
			count[d] = pos
			pos += c
		}
		for _, x := range v {
			d := (x >> shift) & mask
			tmp[count[d]] = x
			count[d]++
		}
		v, tmp = tmp, v
	}
	return v
}

// SortCounts sorts uncached counts (tokens) in increasing order, in place
// or not, and returns the sorted slice: the radix sort the accumulators
// use, for a Later store that gives its counts in order.
func SortCounts(v []int64) []int64 { return sortInts(v) }
