package window

import (
	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/trace"
)

// builder fills the lp.Instance of a window's relaxation turn by turn:
// conversations are numbered densely in order of first appearance, and
// each turn is linked to the previous one of its conversation.
type builder struct {
	in *lp.Instance
	// ids maps a trace conversation id to the instance's; last to the
	// local index of its latest turn added.
	ids, last map[int]int
}

func newBuilder(p instance.Params, n int) *builder {
	return &builder{
		in: &lp.Instance{Params: p, Turns: make([]trace.Turn, n), History: make([]int64, n),
			Next: make([]int, n), Prev: make([]int, n)},
		ids: map[int]int{}, last: map[int]int{},
	}
}

// add puts turn t (history h, tokens) at local index k, after local turn
// prev of its conversation (−1: its first here).
func (b *builder) add(k int, t trace.Turn, h int64, prev int) {
	b.last[t.Conv] = k
	id, ok := b.ids[t.Conv]
	if !ok {
		id = len(b.ids)
		b.ids[t.Conv] = id
		b.in.First = append(b.in.First, k)
	}
	t.Conv, t.Index = id, k
	b.in.Turns[k], b.in.History[k], b.in.Prev[k], b.in.Next[k] = t, h, prev, -1
	if prev >= 0 {
		b.in.Next[prev] = k
	}
}

// instance returns the instance built.
func (b *builder) instance() *lp.Instance {
	b.in.Conversations = len(b.ids)
	return b.in
}
