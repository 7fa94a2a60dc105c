package prefixcache_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// The Interner against a Go map keyed by (parent id, hash): ids are dense
// in order of first appearance, equal exactly when the pairs are equal, and
// Seen counts the leading blocks that existed before the request. Hashes
// mix small ones (the direct path), huge and negative ones (the table), and
// the same hash under many parents.
func TestInternerAgainstMap(t *testing.T) {
	type pair struct {
		parent prefixcache.BlockID
		hash   int64
	}
	for seed := uint64(1); seed <= 5; seed++ {
		rng := rand.New(rand.NewPCG(seed, 9))
		in := prefixcache.NewInterner()
		ref := map[pair]prefixcache.BlockID{}
		for i := 0; i < 4000; i++ {
			n := 1 + rng.IntN(12)
			r := blocktrace.Request{Index: i, Input: 1, Conv: -1}
			for j := 0; j < n; j++ {
				var h int64
				switch rng.IntN(4) {
				case 0:
					h = int64(rng.IntN(8))
				case 1:
					h = int64(rng.IntN(100000))
				case 2:
					h = rng.Int64() - 1<<62
				default:
					h = -int64(rng.IntN(5)) - 1
				}
				r.Hashes = append(r.Hashes, h)
			}
			q, _, err := in.Intern(&r, nil)
			if err != nil {
				t.Fatal(err)
			}
			before := len(ref)
			seen := -1
			parent := prefixcache.BlockID(-1)
			for j, h := range r.Hashes {
				id, ok := ref[pair{parent, h}]
				if !ok {
					id = prefixcache.BlockID(len(ref))
					ref[pair{parent, h}] = id
				}
				if int(id) >= before && seen < 0 {
					seen = j
				}
				if q.Blocks[j] != id {
					t.Fatalf("seed %d request %d block %d: id %d, want %d", seed, i, j, q.Blocks[j], id)
				}
				parent = id
			}
			if seen < 0 {
				seen = len(r.Hashes)
			}
			if q.Seen != seen || in.Blocks() != len(ref) {
				t.Fatalf("seed %d request %d: seen %d blocks %d, want %d %d", seed, i, q.Seen, in.Blocks(), seen, len(ref))
			}
		}
	}
}

// Categories are numbered in order of appearance and turns counted per
// linked conversation.
func TestInternerCategoriesAndTurns(t *testing.T) {
	in := prefixcache.NewInterner()
	reqs := []blocktrace.Request{
		{Category: "text", Conv: 0}, {Category: "file", Conv: 1}, {Category: "text", Conv: 0}, {Category: "", Conv: -1}, {Category: "text", Conv: 0},
	}
	wantCat := []int{0, 1, 0, 2, 0}
	wantTurn := []int{1, 1, 2, 1, 3}
	for i := range reqs {
		q, _, err := in.Intern(&reqs[i], nil)
		if err != nil {
			t.Fatal(err)
		}
		if q.Category != wantCat[i] || q.Turn != wantTurn[i] {
			t.Errorf("request %d: category %d turn %d, want %d %d", i, q.Category, q.Turn, wantCat[i], wantTurn[i])
		}
	}
	if in.Categories() != 3 || in.CategoryName(1) != "file" {
		t.Errorf("%d categories, second %q", in.Categories(), in.CategoryName(1))
	}
}

// TestInternerFarConversations counts turns of conversation ids far beyond
// the dense range (kept apart from the dense counts) and of dense ids that
// later grow past a far id: each conversation's turns count 1, 2, 3, …
func TestInternerFarConversations(t *testing.T) {
	in := prefixcache.NewInterner()
	const far = 1 << 20
	convs := []int{far, 0, far, 1, far}
	want := []int{1, 1, 2, 1, 3}
	for i, c := range convs {
		q, _, err := in.Intern(&blocktrace.Request{Index: i, Conv: c}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if q.Turn != want[i] {
			t.Errorf("request %d of conversation %d: turn %d, want %d", i, c, q.Turn, want[i])
		}
	}
	for c := 2; c <= far; c++ { // dense ids up to the far one
		if _, _, err := in.Intern(&blocktrace.Request{Conv: c}, nil); err != nil {
			t.Fatal(err)
		}
	}
	// far has now had 4 requests.
	if q, _, _ := in.Intern(&blocktrace.Request{Conv: far}, nil); q.Turn != 5 {
		t.Errorf("conversation %d: turn %d, want 5", far, q.Turn)
	}
}

// Touch changes nothing: a stream interned with Touch called on random
// hashes (small, huge, negative, some not seen yet) between its requests
// gets the same ids and Seen counts as without.
func TestInternerTouchChangesNothing(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	plain, touched := prefixcache.NewInterner(), prefixcache.NewInterner()
	hash := func() int64 {
		switch rng.IntN(4) {
		case 0:
			return -rng.Int64N(1 << 40)
		case 1:
			return rng.Int64N(1 << 50)
		}
		return rng.Int64N(3 << 20)
	}
	for i := 0; i < 20000; i++ {
		chain := make([]int64, 1+rng.IntN(3))
		for k := range chain {
			chain[k] = hash()
		}
		r := blocktrace.Request{Index: i, Time: float64(i), Input: 16, Hashes: chain, Conv: -1}
		for k := rng.IntN(3); k > 0; k-- {
			touched.Touch(hash())
		}
		a, _, err := plain.Intern(&r, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _, err := touched.Intern(&r, nil)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(a) != fmt.Sprint(b) {
			t.Fatalf("request %d: %+v without Touch, %+v with", i, a, b)
		}
	}
}
