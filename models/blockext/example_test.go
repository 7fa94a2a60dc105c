package blockext_test

import (
	"fmt"
	"strings"

	"github.com/tailbound/tailbound/models/blockext"
	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// A two-block cache replays a block schedule. Request 0 caches chain
// [10 11] (blocks 0, 1); request 1's chain [20] needs one block and the
// schedule evicts leaf 1; request 2's chain [10 11 12] hits block 0 and
// needs two more blocks with one free, so the schedule evicts block 2.
// A schedule evicting block 0 at request 1 breaks the prefix rule.
func Example() {
	reqs := []blocktrace.Request{
		{Input: 2, Hashes: []int64{10, 11}, Conv: -1},
		{Index: 1, Input: 1, Hashes: []int64{20}, Conv: -1},
		{Index: 2, Input: 3, Hashes: []int64{10, 11, 12}, Conv: -1},
	}
outer:
	for _, text := range []string{"{}\n{\"evict\":[1]}\n{\"evict\":[2]}\n", "{}\n{\"evict\":[0]}\n{\"evict\":[2]}\n"} {
		s, _ := blockext.Read(strings.NewReader(text), "b.jsonl")
		p, _ := s.Factory(nil)(prefixcache.Config{Params: instance.Params{Capacity: 2, BlockSize: 1}})
		c, _ := prefixcache.New(2, 1, p)
		in := prefixcache.NewInterner()
		hits := 0
		for i := range reqs {
			q, _, _ := in.Intern(&reqs[i], nil)
			hit, err := c.Serve(&q)
			if err != nil {
				fmt.Println(err)
				continue outer
			}
			hits += hit
		}
		fmt.Printf("%d blocks hit, %d evicted\n", hits, c.Evictions())
	}
	// Output:
	// 1 blocks hit, 2 evicted
	// request 1: b.jsonl:2: request 1: block 0 has a cached child (rule: prefix: only evictable leaves are evicted)
}
