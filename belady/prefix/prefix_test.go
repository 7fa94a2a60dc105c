package prefix

import (
	"fmt"
	"testing"

	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/prefixcache"
)

func intern(t testing.TB, cs ...[]int64) []prefixcache.Req {
	t.Helper()
	rs := make([]blocktrace.Request, len(cs))
	for i, c := range cs {
		rs[i] = blocktrace.Request{Time: float64(i), Input: int64(len(c)), Hashes: c, Conv: -1}
	}
	reqs, err := prefixcache.InternAll(rs)
	if err != nil {
		t.Fatal(err)
	}
	return reqs
}

// TestMissesHandWorked checks the policy's misses on traces worked by hand.
func TestMissesHandWorked(t *testing.T) {
	cases := []struct {
		name     string
		chains   [][]int64
		capacity int
		misses   int64
	}{
		// Paging 1 2 3 1 2 at capacity 2: at request 2 evict 1 (next use 3)
		// or 2 (next use 4): furthest is 2; 1 hits at 3, then 2 misses.
		{"paging", [][]int64{{1}, {2}, {3}, {1}, {2}}, 2, 4},
		// Chains [1 2], [3], [1 4], capacity 2: at request 1 the leaf 2 is
		// never used again and goes first; 1 stays and hits at request 2.
		{"dead leaf first", [][]int64{{1, 2}, {3}, {1, 4}}, 2, 4},
		// LRU would evict 1's subtree here; Belady keeps [1 2] (next use 3)
		// and evicts 5 (next use never).
		{"furthest", [][]int64{{1, 2}, {5}, {6}, {1, 2}}, 3, 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, h, err := Misses(intern(t, c.chains...), c.capacity)
			if err != nil {
				t.Fatal(err)
			}
			if m != c.misses {
				t.Errorf("misses %d, want %d (hits %d)", m, c.misses, h)
			}
		})
	}
}

func TestFutureNext(t *testing.T) {
	reqs := intern(t, []int64{1, 2}, []int64{1}, []int64{1, 2, 3})
	f, err := NewFuture(reqs)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ t, d, want int }{{0, 0, 1}, {0, 1, 2}, {1, 0, 2}, {2, 0, -1}, {2, 2, -1}} {
		if got := f.Next(c.t, c.d); got != c.want {
			t.Errorf("Next(%d, %d) = %d, want %d", c.t, c.d, got, c.want)
		}
	}
	reqs[1].Index = 5
	if _, err := NewFuture(reqs); err == nil {
		t.Error("want an error for an index out of position")
	}
}

// ExampleMisses: the hindsight optimum of a three-request trace at a
// capacity of three blocks.
func ExampleMisses() {
	rs := []blocktrace.Request{
		{Hashes: []int64{7, 8}, Conv: -1},
		{Hashes: []int64{9}, Conv: -1},
		{Time: 1, Hashes: []int64{7, 8, 10}, Conv: -1},
	}
	reqs, err := prefixcache.InternAll(rs)
	if err != nil {
		fmt.Println(err)
		return
	}
	misses, hits, err := Misses(reqs, 3)
	fmt.Println(misses, hits, err)
	// Output: 4 2 <nil>
}
