package metrics

import (
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/tailbound/tailbound/models/latency"
)

// TestAddLaterEqualsAdd: turns split at random between Add and AddLater
// (their uncached counts held by a Later store) give the same summary,
// TTFT distribution, exceedance counts and order statistics as every turn
// through Add, on counts spanning the histogram's dense and sparse parts.
func TestAddLaterEqualsAdd(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		m := latency.Model{AlphaMs: 0.1, BetaMs: 7}
		all, split := New(30, m, 50), New(30, m, 50)
		var late []int64
		split.SetLater(func(yield func([]int64) bool) { // in batches of 3
			for i := 0; i < len(late); i += 3 {
				if !yield(late[i:min(i+3, len(late))]) {
					return
				}
			}
		})
		n := rapid.IntRange(0, 400).Draw(rt, "turns")
		for i := 0; i < n; i++ {
			d := rapid.OneOf(rapid.Int64Range(0, 300), rapid.Int64Range(smallLimit-5, smallLimit+5), rapid.Int64Range(0, 1<<40)).Draw(rt, "d")
			x := rapid.Int64Range(0, d).Draw(rt, "x")
			h := rapid.Int64Range(0, d).Draw(rt, "h")
			all.Add(h, x, d)
			if rapid.Bool().Draw(rt, "late") {
				split.AddLater(h, x, d)
				late = append(late, d-x)
			} else {
				split.Add(h, x, d)
			}
		}
		if a, b := fmt.Sprintf("%+v", all.Summary()), fmt.Sprintf("%+v", split.Summary()); a != b {
			rt.Fatalf("summaries differ:\nAdd      %s\nAddLater %s", a, b)
		}
		ma, fa := all.CDF()
		mb, fb := split.CDF()
		if fmt.Sprint(ma, fa) != fmt.Sprint(mb, fb) {
			rt.Fatalf("distributions differ:\nAdd      %v %v\nAddLater %v %v", ma, fa, mb, fb)
		}
		for _, s := range []int64{0, 100, smallLimit, 1 << 39} {
			if a, b := all.Exceeding(s), split.Exceeding(s); a != b {
				rt.Fatalf("above %d tokens: %d, %d", s, a, b)
			}
		}
		for r := int64(1); r <= int64(n); r += 7 {
			if a, b := all.UncachedAtRank(r), split.UncachedAtRank(r); a != b {
				rt.Fatalf("rank %d: %d, %d", r, a, b)
			}
		}
	})
}

// TestSortInts: the radix sort agrees with slices.Sort, on short and long
// slices, counts up to 2^62 and negative ones (sorted by comparison).
func TestSortInts(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		top := rapid.SampledFrom([]int64{1, 4095, 1 << 24, 1 << 62}).Draw(rt, "top")
		v := rapid.SliceOfN(rapid.Int64Range(-2, top), 0, 3000).Draw(rt, "v")
		if rapid.Bool().Draw(rt, "non-negative") {
			for i := range v {
				v[i] = max(v[i], 0)
			}
		}
		if rapid.Bool().Draw(rt, "in order already") {
			slices.Sort(v)
		}
		want := slices.Sorted(slices.Values(v))
		if got := sortInts(slices.Clone(v)); !slices.Equal(got, want) {
			rt.Fatalf("sorted %v, want %v", got, want)
		}
	})
}
