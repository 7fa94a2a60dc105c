package prefixcache_test

import (
	"fmt"

	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// Two requests share a system-prompt block; a third continues the first.
// With room for three blocks, the second request's admission evicts the
// first request's last block (a leaf), never the shared first block.
func Example() {
	reqs := []blocktrace.Request{
		{Index: 0, Input: 40, Hashes: []int64{7, 1, 2}},
		{Index: 1, Input: 20, Hashes: []int64{7, 3}},
		{Index: 2, Input: 60, Hashes: []int64{7, 1, 2, 4}},
	}
	p, _ := prefixcache.NewLRU(prefixcache.Config{})
	c, _ := prefixcache.New(3*16, 16, p) // 3 blocks of 16 tokens
	in := prefixcache.NewInterner()
	for i := range reqs {
		q, _, _ := in.Intern(&reqs[i], nil)
		hit, _ := c.Serve(&q)
		fmt.Printf("request %d: hit %d of %d blocks (ideal %d), %d cached\n", i, hit, len(q.Blocks), q.Seen, c.Len())
	}
	// Output:
	// request 0: hit 0 of 3 blocks (ideal 0), 3 cached
	// request 1: hit 1 of 2 blocks (ideal 1), 3 cached
	// request 2: hit 2 of 4 blocks (ideal 3), 3 cached
}

// mru is a complete custom policy (evict the most recently used leaf);
// register it with one line in All.
type mru struct {
	order prefixcache.Order
	last  []int64
}

func (p *mru) Access(r *prefixcache.Req, id prefixcache.BlockID, _ int, _ bool) {
	for int(id) >= len(p.last) {
		p.last = append(p.last, 0)
	}
	p.last[id] = int64(r.Index)
}

func (p *mru) Evictable(id prefixcache.BlockID, on bool) {
	if on {
		p.order.Push(id, prefixcache.Key{P: -float64(p.last[id])})
	} else {
		p.order.Remove(id)
	}
}

func (p *mru) Victim() prefixcache.BlockID { return p.order.Pop() }

func ExamplePolicy() {
	c, _ := prefixcache.New(2*16, 16, &mru{})
	in := prefixcache.NewInterner()
	for i, h := range []int64{1, 2, 3, 1, 2} {
		r := blocktrace.Request{Index: i, Input: 16, Hashes: []int64{h}}
		q, _, _ := in.Intern(&r, nil)
		hit, _ := c.Serve(&q)
		fmt.Print(hit, " ")
	}
	// Output: 0 0 0 1 0
}

// vLLM v1's pool replayed: the same 32-token prompt twice hits only one
// of its two 16-token blocks (the last token is always computed, and hits
// are whole blocks), and its recomputed last block is cached a second time.
func ExampleNewVLLM() {
	p, _ := prefixcache.NewVLLM(prefixcache.Config{Params: instance.Params{Capacity: 4 * 16, BlockSize: 16}})
	c, _ := prefixcache.New(4*16, 16, p)
	in := prefixcache.NewInterner()
	for i := range 2 {
		q, _, _ := in.Intern(&blocktrace.Request{Index: i, Input: 32, Hashes: []int64{7, 8}}, nil)
		blocks, tokens, _ := c.ServeTokens(&q)
		fmt.Printf("request %d: hit %d blocks (%d tokens), %d blocks hashed\n", i, blocks, tokens, c.Len())
	}
	// Output:
	// request 0: hit 0 blocks (0 tokens), 2 blocks hashed
	// request 1: hit 1 blocks (16 tokens), 3 blocks hashed
}
