package importer

import "slices"

// prefixLinker derives conversations from shared hash prefixes (the
// Mooncake rule of the package documentation). It is online: a request is
// linked using earlier requests only.
type prefixLinker struct {
	k int
	// index maps (length m, last id) of a conversation's latest full-block
	// chain to the conversation most recently indexed under it.
	index map[prefixKey]int
	// chains holds the latest full-block chain of each conversation that
	// can still be continued: one indexed under its chain's key (one whose
	// chain is too short has none, nor one whose key a later conversation
	// took over, since link finds chains through index only), so that
	// memory follows the keys — the distinct chain ends — not the
	// conversations: a trace that repeats its requests does not grow it.
	chains map[int][]int64
	// n is the number of conversations.
	n int
}

type prefixKey struct {
	m    int
	last int64
}

func newPrefixLinker(k int) *prefixLinker {
	return &prefixLinker{k: k, index: map[prefixKey]int{}, chains: map[int][]int64{}}
}

// link returns the conversation of a request with chain h whose first full
// blocks are content-stable, and whether it continues an earlier one.
func (p *prefixLinker) link(h []int64, full int) (int, bool) {
	conv, linked := -1, false
	for m := len(h); m > p.k; m-- {
		c, ok := p.index[prefixKey{m, h[m-1]}]
		if ok && slices.Equal(p.chains[c], h[:m]) {
			conv, linked = c, true
			break
		}
	}
	if linked {
		old := p.chains[conv]
		if key := (prefixKey{len(old), old[len(old)-1]}); p.index[key] == conv {
			delete(p.index, key)
		}
	} else {
		conv = p.n
		p.n++
	}
	full = min(full, len(h))
	if full > p.k {
		p.chains[conv] = slices.Clone(h[:full])
		key := prefixKey{full, h[full-1]}
		if c, ok := p.index[key]; ok && c != conv {
			delete(p.chains, c) // its only key is now conv's
		}
		p.index[key] = conv
	} else {
		delete(p.chains, conv)
	}
	return conv, linked
}
