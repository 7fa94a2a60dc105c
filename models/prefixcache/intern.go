package prefixcache

import (
	"fmt"
	"math"

	"github.com/tailbound/tailbound/models/blocktrace"
)

// Interner numbers the blocks of a trace: it maps each (parent block, hash)
// pair to a dense BlockID, so that equal ids always mean equal prefixes
// whatever the trace's hashing. It also numbers categories and counts the
// turns of linked conversations. One Interner serves any number of caches
// replaying the same trace.
type Interner struct {
	ids   map[edge]BlockID
	cats  map[string]int
	names []string
	turns map[int]int
	last  float64
	n     int
}

type edge struct {
	parent BlockID
	hash   int64
}

// NewInterner returns an empty interner.
func NewInterner() *Interner {
	return &Interner{ids: map[edge]BlockID{}, cats: map[string]int{}, turns: map[int]int{}}
}

// Blocks returns the number of distinct blocks seen so far.
func (in *Interner) Blocks() int { return len(in.ids) }

// Categories returns the number of distinct categories seen so far.
func (in *Interner) Categories() int { return len(in.names) }

// CategoryName returns the name of category c.
func (in *Interner) CategoryName(c int) string { return in.names[c] }

// Intern converts r into a Req whose Blocks are appended to arena; it
// returns the request and the extended arena. Requests must come in trace
// order: a negative length, a time earlier than the previous request's or
// too many distinct blocks is an error naming the request.
func (in *Interner) Intern(r *blocktrace.Request, arena []BlockID) (Req, []BlockID, error) {
	if r.Input < 0 || r.Output < 0 {
		return Req{}, arena, fmt.Errorf("request %d: negative length (input %d, output %d tokens)", r.Index, r.Input, r.Output)
	}
	if in.n > 0 && r.Time < in.last {
		return Req{}, arena, fmt.Errorf("request %d: time %g s is earlier than the previous request's %g s", r.Index, r.Time, in.last)
	}
	if len(r.Hashes) > math.MaxInt32-len(in.ids) {
		return Req{}, arena, fmt.Errorf("request %d: more than %d distinct blocks", r.Index, math.MaxInt32)
	}
	in.n++
	in.last = r.Time
	q := Req{Index: r.Index, Time: r.Time, Input: r.Input, Output: r.Output, Conv: r.Conv, Turn: 1}
	c, ok := in.cats[r.Category]
	if !ok {
		c = len(in.names)
		in.cats[r.Category] = c
		in.names = append(in.names, r.Category)
	}
	q.Category = c
	if r.Conv >= 0 {
		in.turns[r.Conv]++
		q.Turn = in.turns[r.Conv]
	}
	start := len(arena)
	before := BlockID(len(in.ids))
	parent := BlockID(-1)
	q.Seen = -1
	for i, h := range r.Hashes {
		k := edge{parent, h}
		id, ok := in.ids[k]
		if !ok {
			id = BlockID(len(in.ids))
			in.ids[k] = id
		}
		if id >= before && q.Seen < 0 {
			q.Seen = i
		}
		arena = append(arena, id)
		parent = id
	}
	if q.Seen < 0 {
		q.Seen = len(r.Hashes)
	}
	q.Blocks = arena[start:len(arena):len(arena)]
	return q, arena, nil
}
