package importer

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// keepAllLinker is the linker before it forgot the chains of
// conversations whose key a later one took over: it keeps every
// linkable conversation's chain. The oracle of TestLinkerForgetsNothingLinkable.
type keepAllLinker struct {
	k      int
	index  map[prefixKey]int
	chains map[int][]int64
	n      int
}

func (p *keepAllLinker) link(h []int64, full int) (int, bool) {
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
		p.index[prefixKey{full, h[full-1]}] = conv
	} else {
		delete(p.chains, conv)
	}
	return conv, linked
}

// TestLinkerForgetsNothingLinkable: on random requests over a small
// alphabet (chains that extend, repeat and cut earlier ones), the linker
// gives every request the conversation the keep-everything linker gives
// it, while holding no more chains than index keys.
func TestLinkerForgetsNothingLinkable(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		k := rapid.IntRange(0, 3).Draw(rt, "k")
		p := newPrefixLinker(k)
		q := &keepAllLinker{k: k, index: map[prefixKey]int{}, chains: map[int][]int64{}}
		var prev [][]int64
		for i, n := 0, rapid.IntRange(1, 200).Draw(rt, "requests"); i < n; i++ {
			var h []int64
			if len(prev) > 0 && rapid.Bool().Draw(rt, "extend") {
				b := prev[rapid.IntRange(0, len(prev)-1).Draw(rt, "of")]
				h = append(h, b[:rapid.IntRange(0, len(b)).Draw(rt, "cut")]...)
			}
			for j := rapid.IntRange(0, 4).Draw(rt, "new blocks"); j > 0 || len(h) == 0; j-- {
				h = append(h, int64(rapid.IntRange(0, 5).Draw(rt, "hash")))
			}
			full := rapid.IntRange(0, len(h)).Draw(rt, "full")
			c1, l1 := p.link(h, full)
			c2, l2 := q.link(h, full)
			if c1 != c2 || l1 != l2 {
				rt.Fatalf("request %d %v (full %d): conversation %d linked %v, keep-everything %d %v", i, h, full, c1, l1, c2, l2)
			}
			if len(p.chains) > len(p.index) {
				rt.Fatalf("request %d: %d chains for %d keys", i, len(p.chains), len(p.index))
			}
			prev = append(prev, h)
		}
	})
}

// TestLinkerRepeatsDoNotGrow: a trace that repeats the same 50 requests
// 100 times holds the chains of one repetition.
func TestLinkerRepeatsDoNotGrow(t *testing.T) {
	p := newPrefixLinker(0)
	var peak int
	for rep := 0; rep < 100; rep++ {
		for i := int64(0); i < 50; i++ {
			p.link([]int64{1000 + i, 2000 + i, 3000 + i}, 3)
			peak = max(peak, len(p.chains))
		}
	}
	if peak > 50 {
		t.Errorf("%d chains held at the peak, want at most 50", peak)
	}
}
