package prefixcache

import (
	"slices"
	"testing"

	"github.com/tailbound/tailbound/models/blocktrace"
)

func TestInternAll(t *testing.T) {
	rs := []blocktrace.Request{
		{Index: 7, Input: 3, Hashes: []int64{5, 6}, Conv: -1},
		{Index: 9, Time: 1, Input: 3, Hashes: []int64{5, 6, 8}, Conv: -1},
		{Index: 9, Time: 2, Input: 3, Hashes: []int64{6}, Conv: -1}, // hash 6 at the root: a new block
	}
	reqs, err := InternAll(rs)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]BlockID{{0, 1}, {0, 1, 2}, {3}}
	for i, q := range reqs {
		if q.Index != i || !slices.Equal(q.Blocks, want[i]) {
			t.Errorf("request %d: index %d, blocks %v; want %d, %v", i, q.Index, q.Blocks, i, want[i])
		}
	}
	if reqs[1].Seen != 2 {
		t.Errorf("request 1 seen %d blocks before, want 2", reqs[1].Seen)
	}
	rs[1].Input = -1
	if _, err := InternAll(rs); err == nil {
		t.Error("want an error for a negative length")
	}
}
