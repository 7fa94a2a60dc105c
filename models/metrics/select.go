package metrics

import (
	"cmp"
	"math/bits"
	"slices"
)

// bucketBits bounds the buckets of orderStats: at most 2^bucketBits.
const bucketBits = 12

// orderStats returns, for each of the increasing ranks (1-based), the
// smallest uncached count b such that at least rank turns have a count
// ≤ b (0 where the turns fall short of the rank) — what each's walk in
// increasing order gives — without putting the Later store's counts in
// order. A curve's store gives one count per deferred turn at every
// capacity, and sorting them (or merging them one call at a time) cost as
// much as the pass; here they are read twice, without being kept: once
// counted into at most 2^bucketBits buckets of consecutive counts, then
// only those in the buckets holding a rank kept, sorted and walked with
// the histogram's counts in the same range. The Shifted sets are read by
// binary search: one per bucket they occupy. false when a store count is
// negative or above the largest count the accumulator saw, in the store
// or a set (one that does not match its AddLater turns): the caller then
// walks each.
func (a *Accumulator) orderStats(ranks []int64) ([]int64, bool) {
	top := max(a.maxB, int64(len(a.small))-1)
	for b := range a.large {
		top = max(top, b)
	}
	shift := max(0, bits.Len64(uint64(top))-bucketBits)
	buckets := make([]int64, top>>shift+1)
	for b, c := range a.small {
		buckets[int64(b)>>shift] += c
	}
	for b, c := range a.large {
		buckets[b>>shift] += c
	}
	if a.later != nil {
		for batch := range a.later {
			for _, b := range batch {
				if b < 0 || b > top {
					return nil, false
				}
				buckets[b>>shift]++
			}
		}
	}
	for _, set := range a.shifted {
		if n := len(set.Keys); n > 0 && (set.Keys[0]-set.Offset < 0 || set.Keys[n-1]-set.Offset > top) {
			return nil, false
		}
		// One binary search per bucket the set's counts occupy.
		for i := 0; i < len(set.Keys); {
			k := (set.Keys[i] - set.Offset) >> shift
			j := set.bucketEnd(i, k, shift)
			buckets[k] += int64(j - i)
			i = j
		}
	}
	// The bucket of each rank, and the turns in the buckets before it.
	out := make([]int64, len(ranks))
	at := make([]int64, len(ranks)) // bucket; −1: beyond every turn
	before := make([]int64, len(ranks))
	var seen int64
	j := 0
	for k, c := range buckets {
		for j < len(ranks) && seen+c >= ranks[j] {
			at[j], before[j] = int64(k), seen
			j++
		}
		seen += c
	}
	for ; j < len(ranks); j++ {
		at[j] = -1
	}
	// The store's counts in the buckets holding a rank, by bucket.
	slot := make([]int8, len(buckets)) // 1 + index in late of bucket k's counts; 0: none
	var late [][]int64
	for _, k := range at {
		if k >= 0 && slot[k] == 0 {
			late = append(late, nil)
			slot[k] = int8(len(late))
		}
	}
	if a.later != nil {
		for batch := range a.later {
			for _, b := range batch {
				if s := slot[b>>shift]; s > 0 {
					late[s-1] = append(late[s-1], b)
				}
			}
		}
	}
	for _, set := range a.shifted {
		for k, s := range slot {
			if s == 0 {
				continue
			}
			i := 0
			if k > 0 {
				i = set.bucketEnd(0, int64(k)-1, shift)
			}
			for _, key := range set.Keys[i:set.bucketEnd(i, int64(k), shift)] {
				late[s-1] = append(late[s-1], key-set.Offset)
			}
		}
	}
	for j, k := range at {
		if k < 0 {
			continue
		}
		// Every distinct count of bucket k with its turns, in increasing
		// order: the dense part, the sparse part and the store's.
		lo, hi := k<<shift, (k+1)<<shift // counts lo … hi−1
		var pairs [][2]int64
		for b := lo; b < min(hi, int64(len(a.small))); b++ {
			if c := a.small[b]; c > 0 {
				pairs = append(pairs, [2]int64{b, c})
			}
		}
		for b, c := range a.large {
			if b >= lo && b < hi {
				pairs = append(pairs, [2]int64{b, c})
			}
		}
		for _, b := range late[slot[k]-1] {
			pairs = append(pairs, [2]int64{b, 1})
		}
		slices.SortFunc(pairs, func(x, y [2]int64) int { return cmp.Compare(x[0], y[0]) })
		n := before[j]
		for _, p := range pairs {
			if n += p[1]; n >= ranks[j] {
				out[j] = p[0]
				break
			}
		}
	}
	return out, true
}

// bucketEnd returns the first index at or after i whose count lies in a
// bucket after k (buckets of 2^shift counts); the counts from i on are in
// bucket k or later.
func (set Shifted) bucketEnd(i int, k int64, shift int) int {
	lo, hi := i, len(set.Keys) // the answer is in [lo, hi]
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if (set.Keys[m]-set.Offset)>>shift > k {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}
