package metrics

import (
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/tailbound/tailbound/models/latency"
)

// TestOrderStatsByBruteForce: orderStats at random increasing ranks (past
// the last turn too) equals the nearest-rank order statistic read off
// every turn's uncached count sorted, on turns split at random between
// the dense histogram, its sparse part, a Later store (given in random
// batches) and sorted Shifted sets, with counts from 0 to 2^40 so that the buckets span from one
// count to 2^28 counts each.
func TestOrderStatsByBruteForce(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		a := New(0, latency.Model{AlphaMs: 1}, 1)
		var late, all []int64
		top := rapid.SampledFrom([]int64{0, 1, 4095, 4096, smallLimit + 10, 1 << 40}).Draw(rt, "top")
		for n := rapid.IntRange(1, 500).Draw(rt, "turns"); n > 0; n-- {
			d := rapid.OneOf(rapid.Int64Range(0, min(top, 300)), rapid.Int64Range(0, top), rapid.Just(top)).Draw(rt, "d")
			if rapid.Bool().Draw(rt, "late") {
				a.AddLater(0, 0, d)
				late = append(late, d)
			} else {
				a.Add(0, 0, d)
			}
			all = append(all, d)
		}
		batch := rapid.IntRange(1, 7).Draw(rt, "batch")
		a.SetLater(func(yield func([]int64) bool) {
			for i := 0; i < len(late); i += batch {
				if !yield(late[i:min(i+batch, len(late))]) {
					return
				}
			}
		})
		// Sorted sets: keys k with counts k − offset, up to three sets.
		var sets []Shifted
		for n := rapid.IntRange(0, 3).Draw(rt, "sets"); n > 0; n-- {
			off := rapid.Int64Range(0, 1000).Draw(rt, "offset")
			var keys []int64
			for m := rapid.IntRange(0, 200).Draw(rt, "set turns"); m > 0; m-- {
				d := rapid.OneOf(rapid.Int64Range(0, min(top, 300)), rapid.Int64Range(0, top), rapid.Just(top)).Draw(rt, "set d")
				a.AddLater(0, 0, d)
				keys = append(keys, d+off)
				all = append(all, d)
			}
			slices.Sort(keys)
			sets = append(sets, Shifted{Keys: keys, Offset: off})
		}
		a.SetShifted(sets...)
		slices.Sort(all)
		ranks := rapid.SliceOfNDistinct(rapid.Int64Range(1, int64(len(all))+3), 1, 6, rapid.ID[int64]).Draw(rt, "ranks")
		slices.Sort(ranks)
		got, ok := a.orderStats(ranks)
		if !ok {
			rt.Fatalf("a store that matches its turns was refused")
		}
		for i, r := range ranks {
			var want int64 // 0 past the last turn, as each's walk leaves it
			if r <= int64(len(all)) {
				want = all[r-1]
			}
			if got[i] != want {
				rt.Fatalf("rank %d of %d: %d, want %d (ranks %v, got %v)", r, len(all), got[i], want, ranks, got)
			}
		}
	})
}

// TestOrderStatsRefusesForeignCounts: a store or a sorted set giving a
// count above every count the accumulator saw (or a negative one) is
// refused, and the
// summary's percentiles then come from the walk of every count in order,
// which places it where it belongs.
func TestOrderStatsRefusesForeignCounts(t *testing.T) {
	for _, c := range []struct {
		name string
		late []int64
		p99  float64 // ms: α = 1 ms/token, β = 0
	}{
		{"above", []int64{5, 1 << 30}, 1 << 30},
		{"negative", []int64{-3, 5}, 9},
		{"set above", nil, 1 << 30},
		{"set negative", nil, 9},
	} {
		a := New(0, latency.Model{AlphaMs: 1}, 1)
		for _, d := range []int64{1, 9} {
			a.Add(0, 0, d)
		}
		a.AddLater(0, 0, 5)
		a.AddLater(0, 0, 5)
		switch c.name {
		case "set above":
			a.SetShifted(Shifted{Keys: []int64{5, 1 << 30}})
		case "set negative":
			a.SetShifted(Shifted{Keys: []int64{7, 15}, Offset: 10}) // −3, 5
		default:
			a.SetLater(func(yield func([]int64) bool) { yield(c.late) })
		}
		if _, ok := a.orderStats([]int64{1}); ok {
			t.Errorf("%s: store %v accepted", c.name, c.late)
		}
		if got := a.Summary().P99; got != c.p99 {
			t.Errorf("%s: P99 %v ms, want %v", c.name, got, c.p99)
		}
	}
}
