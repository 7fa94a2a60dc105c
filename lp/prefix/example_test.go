package prefix_test

import (
	"context"
	"fmt"

	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/prefix"
	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// Example builds the integer program of a three-request trace at a capacity
// of two blocks and solves it and its LP relaxation with the pure-Go
// backend: keeping block 2 over request 1 would need its parent 1 too, and
// with block 3 that is three blocks, so only block 1 is kept.
func Example() {
	rs := []blocktrace.Request{
		{Hashes: []int64{1, 2}, Conv: -1},
		{Hashes: []int64{3}, Conv: -1},
		{Hashes: []int64{1, 2}, Conv: -1},
	}
	reqs, err := prefixcache.InternAll(rs)
	if err != nil {
		fmt.Println(err)
		return
	}
	m, err := prefix.Build(reqs, 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, relax := range []bool{false, true} {
		res, err := m.Solve(context.Background(), lp.Gonum{}, relax, lp.Options{})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("relaxed %v: %v, %g misses of %d references\n", relax, res.Status, res.MissBlocks, m.RefBlocks)
	}
	// Output:
	// relaxed false: optimal, 4 misses of 5 references
	// relaxed true: optimal, 4 misses of 5 references
}
