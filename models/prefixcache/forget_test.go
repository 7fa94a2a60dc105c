package prefixcache

import (
	"math/rand/v2"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/tailbound/tailbound/models/instance"
)

// Equal chains get equal ids, a prefix of a known chain its ids, and a
// forgotten id goes to the next new block; forgetting it again does
// nothing.
func TestForgetterNumbers(t *testing.T) {
	f := NewForgetter()
	a := f.Chain([]int64{7, 8, 9}, nil)
	if want := []BlockID{0, 1, 2}; !slices.Equal(a, want) {
		t.Fatalf("first chain %v, want %v", a, want)
	}
	if b := f.Chain([]int64{7, 8, 5}, nil); !slices.Equal(b, []BlockID{0, 1, 3}) {
		t.Fatalf("shared prefix %v, want [0 1 3]", b)
	}
	// Hash 8 under another parent is another block.
	if b := f.Chain([]int64{8}, nil); !slices.Equal(b, []BlockID{4}) {
		t.Fatalf("same hash, no parent: %v, want [4]", b)
	}
	f.Forget(2)
	f.Forget(2)
	if f.Len() != 4 || f.Span() != 5 {
		t.Fatalf("after forgetting 2: %d known, span %d; want 4 and 5", f.Len(), f.Span())
	}
	if b := f.Chain([]int64{7, 8, 6}, nil); !slices.Equal(b, []BlockID{0, 1, 2}) {
		t.Fatalf("new block after a forget: %v, want [0 1 2] (id 2 reused)", b)
	}
	if b := f.Chain([]int64{7, 8, 9}, nil); !slices.Equal(b, []BlockID{0, 1, 5}) {
		t.Fatalf("forgotten block seen again: %v, want [0 1 5] (numbered anew)", b)
	}
}

// Kept in step with an LRU cache of 64 blocks over 10^5 distinct blocks
// (chains of up to 8 blocks, half of them extending an earlier chain), a
// forgetter knows exactly the cached blocks between requests, and its ids
// stay below the capacity plus the longest chain.
func TestForgetterBoundedByCache(t *testing.T) {
	const capacity, longest = 64, 8
	p, _ := NewLRU(Config{})
	c, err := New(capacity, 1, p)
	if err != nil {
		t.Fatal(err)
	}
	f := NewForgetter()
	c.OnEvict(f.Forget)
	chainStream(t, c, f, 1, longest, false, func(distinct int) {
		if f.Len() != c.Len() || f.Span() > capacity+longest {
			t.Fatalf("after %d distinct blocks: %d known, %d cached, span %d > %d", distinct, f.Len(), c.Len(), f.Span(), capacity+longest)
		}
	})
	if c.Evictions() < 90000 {
		t.Fatalf("%d evictions: the stream did not cycle the cache", c.Evictions())
	}
}

// Kept in step with an S3-FIFO cache of 64 blocks (ghost of 57) over 10^5
// distinct blocks, as above, a forgetter holding the ghost's ids knows
// the cached blocks, the ghost's and the uncached ancestors of the
// ghost's, each of which has at most longest−1 of them: at most
// capacity + ghost·longest blocks between requests, and one chain more
// while a request is numbered, so its ids stay below that. It knows more
// than the cache (the ghost is kept) and the ghost is hit.
func TestForgetterBoundedWithGhost(t *testing.T) {
	const capacity, ghost, longest = 64, 57, 8
	p, _ := NewS3FIFO(Config{Params: instance.Params{Capacity: capacity, BlockSize: 1}})
	inVictim := false
	c, err := New(capacity, 1, &victimFlag{Policy: p, on: &inVictim})
	if err != nil {
		t.Fatal(err)
	}
	f := NewForgetter()
	c.OnEvict(f.Forget)
	ghostHits := 0
	p.(Remembering).Remember(f.Hold, func(id BlockID) {
		if !inVictim {
			ghostHits++
		}
		f.Release(id)
	})
	most := 0
	chainStream(t, c, f, 3, longest, true, func(distinct int) {
		most = max(most, f.Len())
		if f.Len() < c.Len() || f.Len() > capacity+ghost*longest || f.Span() > capacity+ghost*longest+longest {
			t.Fatalf("after %d distinct blocks: %d known, %d cached, span %d", distinct, f.Len(), c.Len(), f.Span())
		}
	})
	if c.Evictions() < 90000 || ghostHits == 0 || most <= capacity {
		t.Fatalf("%d evictions, %d ghost hits, at most %d known: the stream did not cycle the cache and its ghost", c.Evictions(), ghostHits, most)
	}
	t.Logf("%d ghost hits, at most %d blocks known, span %d", ghostHits, most, f.Span())
}

// chainStream serves 10^5 distinct blocks through c, numbered by f: chains
// of up to longest blocks, half of them continuing one of the last 256
// chains (a strict prefix of it, or up to the whole of it when whole),
// each chain's uncached tail forgotten after its request; check runs after
// every request with the distinct blocks served so far. seed fixes the
// stream.
func chainStream(t *testing.T, c *Cache, f *Forgetter, seed uint64, longest int, whole bool, check func(distinct int)) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, seed+1))
	extra := 0
	if whole {
		extra = 1
	}
	var prev [][]int64
	next := int64(0)
	var arena []BlockID
	for distinct := 0; distinct < 100000; {
		var chain []int64
		if len(prev) > 0 && rng.IntN(2) == 0 {
			old := prev[rng.IntN(len(prev))]
			chain = append(chain, old[:rng.IntN(len(old)+extra)]...)
		}
		for len(chain) < 1+rng.IntN(longest) {
			chain = append(chain, next)
			next++
			distinct++
		}
		prev = append(prev, chain)
		if len(prev) > 256 {
			prev = prev[1:]
		}
		arena = f.Chain(chain, arena[:0])
		q := Req{Index: len(prev), Blocks: arena}
		if _, err := c.Serve(&q); err != nil {
			t.Fatal(err)
		}
		for j := len(arena) - 1; j >= 0 && !c.Cached(arena[j]); j-- {
			f.Forget(arena[j])
		}
		check(distinct)
	}
}

// victimFlag sets *on while its policy chooses a victim.
type victimFlag struct {
	Policy
	on *bool
}

func (v *victimFlag) Victim() BlockID {
	*v.on = true
	defer func() { *v.on = false }()
	return v.Policy.Victim()
}

// The edge table agrees with a Go map under any sequence of adds and
// removes: with up to 3,000 keys in a table of 4,096 slots or more, probe
// runs are long, wrap around its end and are shifted back by removals.
func TestEdgeTableRemoveMatchesMap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var tab edgeTable
		ref := map[edgeKey]BlockID{}
		hashes := rapid.IntRange(1, 1000).Draw(t, "hashes")
		for op := rapid.IntRange(0, 6000).Draw(t, "ops"); op > 0; op-- {
			k := edgeKey{BlockID(rapid.IntRange(-1, 1).Draw(t, "parent")), int64(rapid.IntRange(0, hashes-1).Draw(t, "hash"))}
			want, in := ref[k]
			if rapid.IntRange(0, 2).Draw(t, "op") == 0 && in {
				tab.remove(k.parent, k.hash)
				delete(ref, k)
			} else {
				got, found := tab.findOrAdd(k.parent, k.hash, BlockID(op))
				if found != in || (in && got != want) {
					t.Fatalf("findOrAdd%v = %d, %v; want %d, %v", k, got, found, want, in)
				}
				ref[k] = got
			}
		}
		if tab.n != len(ref) {
			t.Fatalf("%d entries, want %d", tab.n, len(ref))
		}
		for k, want := range ref {
			if got, ok := tab.find(k.parent, k.hash); !ok || got != want {
				t.Fatalf("find%v = %d, %v; want %d", k, got, ok, want)
			}
		}
	})
}
