package prefixcache_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tailbound/tailbound/models/prefixcache"
)

// Order against a sorted slice: random pushes (new and re-keyed), removals
// and pops give the same minimum every time.
func TestOrderAgainstSort(t *testing.T) {
	type item struct {
		id int32
		k  prefixcache.Key
	}
	less := func(a, b item) int {
		switch {
		case a.k.P != b.k.P:
			return map[bool]int{true: -1, false: 1}[a.k.P < b.k.P]
		case a.k.T != b.k.T:
			return map[bool]int{true: -1, false: 1}[a.k.T < b.k.T]
		}
		return int(a.id - b.id)
	}
	for seed := uint64(1); seed <= 20; seed++ {
		rng := rand.New(rand.NewPCG(seed, 1))
		var o prefixcache.Order
		ref := map[int32]prefixcache.Key{}
		for step := 0; step < 2000; step++ {
			id := int32(rng.IntN(60))
			switch rng.IntN(4) {
			case 0, 1:
				k := prefixcache.Key{P: float64(rng.IntN(10)), T: int64(rng.IntN(5))}
				o.Push(id, k)
				ref[id] = k
			case 2:
				_, had := ref[id]
				if o.Remove(id) != had {
					t.Fatalf("seed %d step %d: Remove(%d) disagrees", seed, step, id)
				}
				delete(ref, id)
			case 3:
				got := o.Pop()
				var items []item
				for i, k := range ref {
					items = append(items, item{i, k})
				}
				slices.SortFunc(items, less)
				want := int32(-1)
				if len(items) > 0 {
					want = items[0].id
					delete(ref, want)
				}
				if got != want {
					t.Fatalf("seed %d step %d: Pop %d, want %d", seed, step, got, want)
				}
			}
			if o.Len() != len(ref) {
				t.Fatalf("seed %d step %d: Len %d, want %d", seed, step, o.Len(), len(ref))
			}
		}
	}
}
