package etlru

import (
	"math"
	"slices"

	"github.com/tailbound/tailbound/mdp/belief"
	"github.com/tailbound/tailbound/models/cache"
	"github.com/tailbound/tailbound/models/trace"
)

// Incremental eviction under the paper's belief (used by Policy when its
// belief is belief.Paper; the re-scoring Update stays for the Bayes belief
// and as the test oracle).
//
// Claim: the blocks Greedy evicts can be found from a persistent index
// that is touched only for the conversation served and the conversations
// evicted from, and the choices are Greedy's, bit for bit.
//
// Under the paper's belief, conversation i's last cached block has, at
// time now, the log value
//
//	v_i(now) = log λ̄ − μ·(now − last_i) + log G_now(c_i),   c_i = Y_i + ξ − H_i,
//
// where G_now(c) = E[min((Q − c + B)⁺, B)] is Prompt.Gain. All conversations
// decay at the same rate μ, so
//
//	q_i(now) = v_i(now) + μ·now + Λ_now = log λ̄ + μ·last_i + log(Λ-scaled gain)
//
// depends on time only through the prompt distribution. With a known
// prompt distribution (Λ = 0) q_i is constant: the order of the
// conversations' last blocks never changes with time. With the online
// empirical distribution of n prompts, G_now(c) = S_now(c)/n where S_now(c)
// = Σ_j min((q_j − c + B)⁺, B) over the prompts seen, a sum of non-negative
// terms that only gains terms; with Λ_now = log n, q_i = log λ̄ + μ·last_i +
// log S_now(c_i) never decreases between i's own changes. So a value q_i
// computed at any earlier time is a lower bound of q_i now, and one order
// over the stored q's (a heap) bounds every conversation at once.
//
// Each eviction step takes conversations from the heap in stored order and
// computes their value now with exactly Greedy's expression (logValue),
// until the next stored bound exceeds the best value found by more than
// twice the rounding slack of these expressions; the best (least value,
// then least recent: Greedy's order) loses its last block. Since q is a
// non-decreasing function of v at a given time (adding the same constant
// is monotone in floating point), a conversation left in the heap has a
// value above the best one: the choice equals Greedy's, which evaluates
// every conversation. Conversations examined and not chosen go back with
// their fresh, tighter bound. Greedy evicts one block at a time from the
// current minimum, and so does this; the cache state is then changed once
// per conversation, in Greedy's order, so that evictions are counted and
// recorded alike. The served conversation is re-scored each turn (its
// history and amount change), and under forced caching it is left out of
// the eviction.
//
// Cost: O(log n) per turn that fits, and per evicted block O(k·log n) for
// k conversations examined — 1 when the bounds are tight, as they are
// with a known prompt distribution.

// scored is a conversation in the incremental heap: bound is a lower bound
// of its q (see above), rec its latest turn index (ties: least recent
// first).
type scored struct {
	bound float64
	rec   int64
	conv  int
}

// incremental is the persistent index of the incremental method.
type incremental struct {
	heap []scored
	at   []int // conversation → index in heap, −1 when absent
	mu   float64
	logR float64 // log λ̄
	// buf and touched are reused across turns.
	buf     []scored
	touched []int
	y       []int64 // amount kept during an eviction, per conversation
}

func newIncremental(b belief.Paper) *incremental {
	return &incremental{mu: b.Mu, logR: math.Log(b.Rate)}
}

func (h *incremental) less(a, b scored) bool {
	if a.bound != b.bound {
		return a.bound < b.bound
	}
	return a.rec < b.rec
}

func (h *incremental) swap(i, j int) {
	h.heap[i], h.heap[j] = h.heap[j], h.heap[i]
	h.at[h.heap[i].conv], h.at[h.heap[j].conv] = i, j
}

func (h *incremental) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(h.heap[i], h.heap[p]) {
			return
		}
		h.swap(i, p)
		i = p
	}
}

func (h *incremental) down(i int) {
	n := len(h.heap)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && h.less(h.heap[r], h.heap[l]) {
			m = r
		}
		if !h.less(h.heap[m], h.heap[i]) {
			return
		}
		h.swap(i, m)
		i = m
	}
}

// put inserts or updates conversation e.conv.
func (h *incremental) put(e scored) {
	for len(h.at) <= e.conv {
		h.at = append(h.at, -1)
		h.y = append(h.y, 0)
	}
	if i := h.at[e.conv]; i >= 0 {
		old := h.heap[i]
		h.heap[i] = e
		if h.less(e, old) {
			h.up(i)
		} else {
			h.down(i)
		}
		return
	}
	h.heap = append(h.heap, e)
	h.at[e.conv] = len(h.heap) - 1
	h.up(len(h.heap) - 1)
}

// remove deletes conversation c if present.
func (h *incremental) remove(c int) {
	if c >= len(h.at) || h.at[c] < 0 {
		return
	}
	i := h.at[c]
	last := len(h.heap) - 1
	if i != last {
		h.swap(i, last)
	}
	h.heap = h.heap[:last]
	h.at[c] = -1
	if i < last {
		h.down(i)
		h.up(i)
	}
}

// pop removes and returns the least entry.
func (h *incremental) pop() scored {
	e := h.heap[0]
	h.remove(e.conv)
	return e
}

// value returns conversation c's log value of its block ending at y tokens
// at time now, by Greedy's expression.
func (p *Policy) value(s *cache.State, c int, y int64, now float64) float64 {
	g := p.prompt.Gain(float64(y)+p.xi-float64(s.History(c)), s.BlockSize())
	if g <= 0 {
		return math.Inf(-1)
	}
	return p.logRate(c, now) + math.Log(g)
}

// logRate is the belief's LogRate of conversation c at now; under the
// paper's belief it is belief.Paper.LogRate's expression, log λ̄ − μ·s,
// with log λ̄ computed once (the same bits).
func (p *Policy) logRate(c int, now float64) float64 {
	if h := p.inc; h != nil {
		return h.logR - h.mu*max(now-p.hist[c].Last, 0)
	}
	return p.belief.LogRate(p.hist[c], now)
}

// shift returns Λ_now: log n for the online prompt distribution, 0 for a
// known one.
func (p *Policy) shift() float64 {
	if p.online != nil {
		return math.Log(float64(p.online.N()))
	}
	return 0
}

// rescore puts conversation c, keeping y > 0 tokens, into the heap with its
// value at now as its bound (q = v + μ·now + Λ), or removes it when y = 0.
func (p *Policy) rescore(s *cache.State, c int, y int64, now, lambda float64) float64 {
	h := p.inc
	if y == 0 {
		h.remove(c)
		return math.Inf(-1)
	}
	v := p.value(s, c, y, now)
	h.put(scored{bound: v + h.mu*now + lambda, rec: p.last[c], conv: c})
	return v
}

// updateIncremental is Update's eviction by the incremental method.
func (p *Policy) updateIncremental(s *cache.State, t trace.Turn) error {
	c, now := t.Conv, t.Time
	h := p.inc
	lambda := p.shift()
	p.rescore(s, c, s.Cached(c), now, lambda)
	if s.Over() == 0 {
		return nil
	}
	if s.Forced() {
		h.remove(c) // not a candidate; put back below
	}
	// Rounding slack of v, q and the bounds: a few ulps of the terms' sizes
	// (log λ̄, μ·now, Λ, a log gain of at most ~745 in magnitude), with a
	// wide margin.
	slack := 2e-9 * (1 + math.Abs(h.logR) + h.mu*math.Abs(now) + math.Abs(lambda) + 1024)
	block := s.BlockSize()
	h.touched = h.touched[:0]
	qmin, qmax, flat := promptRange(p.prompt)
	for over := s.Over(); over > 0 && len(h.heap) > 0; {
		// The least block (Greedy's choice) goes; then b's next blocks go
		// as long as they are below every other conversation's bound, by
		// more than the slack: then b is still Greedy's choice. Otherwise
		// b goes back with its fresh bound and the next round examines.
		b, vb := p.examine(s, now, lambda, slack)
		if h.y[b.conv] == 0 {
			h.y[b.conv] = s.Cached(b.conv)
			h.touched = append(h.touched, b.conv)
		}
		y, hist := h.y[b.conv], float64(s.History(b.conv))
		limit := math.Inf(1) // others' least bound, less the slack: q below it is least
		if len(h.heap) > 0 {
			limit = h.heap[0].bound - 2*slack
		}
		// A block's q = lr + log g + μ·now + Λ is compared with limit
		// through its gain g when that is clear by a relative margin far
		// above the rounding of log, exp and the sums, and through
		// Greedy's own expression otherwise.
		lr := p.logRate(b.conv, now)
		gLo := math.Inf(-1)
		if !math.IsInf(limit, 0) && !math.IsInf(lr, 0) {
			gLo = math.Exp(limit-h.mu*now-lambda-lr) * (1 - 1e-9)
		}
		y, over, vb = p.evictWhileLeast(leastRun{y: y, over: over, block: block, hist: hist, vb: vb, lr: lr,
			muNow: h.mu * now, lambda: lambda, limit: limit, gLo: gLo, qmin: qmin, qmax: qmax, flat: flat})
		if y > 0 {
			h.y[b.conv] = y
			h.put(scored{bound: vb + h.mu*now + lambda, rec: b.rec, conv: b.conv})
		} else {
			h.y[b.conv] = -1 // emptied (0 means untouched)
		}
	}
	if err := p.applyEvictions(s, h.touched, h.y); err != nil {
		return err
	}
	if s.Forced() && s.Cached(c) > 0 {
		p.rescore(s, c, s.Cached(c), now, lambda)
	}
	if s.Over() > 0 {
		return p.errOver(s, c)
	}
	return nil
}

// examine pops the conversation whose last block Greedy would evict first
// (least value now, then least recent) and returns it with its value;
// every conversation it had to evaluate goes back with its fresh bound.
// The heap must not be empty.
func (p *Policy) examine(s *cache.State, now, lambda, slack float64) (scored, float64) {
	h := p.inc
	h.buf = h.buf[:0]
	best, bestV, bestQ := -1, 0.0, 0.0
	for len(h.heap) > 0 {
		next := h.heap[0]
		if best >= 0 {
			if math.IsInf(bestV, -1) {
				if next.bound > math.Inf(-1) || next.rec > h.buf[best].rec {
					break
				}
			} else if next.bound-2*slack > bestQ {
				break
			}
		}
		e := h.pop()
		y := s.Cached(e.conv)
		if h.y[e.conv] > 0 {
			y = h.y[e.conv]
		}
		v := p.value(s, e.conv, y, now)
		e.bound = v + h.mu*now + lambda
		h.buf = append(h.buf, e)
		if k := len(h.buf) - 1; best < 0 || before(v, e.rec, bestV, h.buf[best].rec) {
			best, bestV, bestQ = k, v, e.bound
		}
	}
	for k, e := range h.buf {
		if k != best {
			h.put(e)
		}
	}
	return h.buf[best], bestV
}

// before reports whether a block of log value v of the conversation last
// served at turn rec goes before one of value w, last served at turn r, in
// Greedy's order.
func before(v float64, rec int64, w float64, r int64) bool {
	return v < w || (v == w && rec < r)
}

// promptRange returns the least and the largest prompt length (tokens) of
// the distributions whose Gain is exactly constant at or below the least
// (every prompt reaches c) and exactly 0 from the largest plus one block
// on (no prompt reaches); ok is false for other distributions.
func promptRange(p Prompt) (lo, hi float64, ok bool) {
	switch d := p.(type) {
	case *Online:
		if d.n == 0 {
			return 0, 0, false
		}
		return float64(d.min), float64(d.max), true
	case *Known:
		return float64(d.Values[0]), float64(d.Values[len(d.Values)-1]), true
	}
	return 0, 0, false
}

// leastRun is what evictWhileLeast needs of the conversation Greedy
// picked: y tokens cached (history hist tokens), over tokens still to
// free, blocks of block tokens, its last block's value vb (log intensity
// lr plus the log of the block's prompt gain), and the test a next block
// must pass to go too: value + muNow + lambda below limit (the others'
// least bound), or, where its value is not yet computed, its gain below
// gLo; the prompt range of evictRun.
type leastRun struct {
	y, over, block            int64
	hist, vb, lr              float64
	muNow, lambda, limit, gLo float64
	qmin, qmax                float64
	flat                      bool
}

// evictWhileLeast evicts r's blocks from the last: the first run (the
// least block, Greedy's choice) at once, then each next run while its
// block is still below every other conversation's bound, judged through
// its gain g against r.gLo where that is clear and through Greedy's own
// expression (lr + log g) otherwise. It returns the tokens left cached and
// still to free, and the value of the last block left (when y > 0): lr +
// log g, or −Inf where g ≤ 0 — value's expression, from the gain the loop
// last computed. vb + muNow + lambda is summed in that order, as Greedy's
// comparisons are (muNow = 0 under the Bayes belief).
func (p *Policy) evictWhileLeast(r leastRun) (y, over int64, vb float64) {
	y, over, vb = r.y, r.over, r.vb
	known, g := true, 0.0
	for first := true; over > 0 && y > 0; first = false {
		if !first {
			take := false
			switch {
			case known:
				take = vb+r.muNow+r.lambda < r.limit
			case g <= 0: // value −Inf, as Greedy's expression gives
				vb, known = math.Inf(-1), true
				take = vb < r.limit
			case g < r.gLo:
				take = true
			default:
				vb, known = r.lr+math.Log(g), true
				take = vb+r.muNow+r.lambda < r.limit
			}
			if !take {
				break
			}
		}
		run := evictRun(r.flat, y, over, r.block, float64(y)+p.xi-r.hist, r.qmin, r.qmax)
		y -= run * r.block
		over -= run * r.block
		if y > 0 {
			g, known = p.prompt.Gain(float64(y)+p.xi-r.hist, r.block), false
		}
	}
	if y > 0 && !known {
		vb = math.Inf(-1)
		if g > 0 {
			vb = r.lr + math.Log(g)
		}
	}
	return y, over, vb
}

// applyEvictions sets every touched conversation's cached tokens to y[i]
// (−1: emptied) in Greedy's order (the conversations' places in ids) and
// clears y[i].
func (p *Policy) applyEvictions(s *cache.State, touched []int, y []int64) error {
	slices.SortFunc(touched, func(a, b int) int { return p.pos[a] - p.pos[b] })
	for _, i := range touched {
		keep := max(y[i], 0)
		y[i] = 0
		if err := s.Set(i, keep); err != nil {
			return err
		}
		p.track(s, i)
	}
	return nil
}

// evictRun is how many of the y cached tokens' blocks (block tokens each)
// go at once when the last one is Greedy's victim, with over tokens still to
// free and c = y + ξ − H the gain's argument at the last block: one block,
// or, when flat (the prompt distribution's gain is flat below qmin and zero
// above qmax), the whole run of equal-value blocks below the shortest prompt
// or of zero-gain blocks above the longest; never more than are cached or
// needed.
func evictRun(flat bool, y, over, block int64, c, qmin, qmax float64) int64 {
	run := int64(1)
	if flat {
		switch {
		case c <= qmin-1: // every block from here down has gain Gain(c) = B·P(Q ≥ min): one value
			run = y / block
		case c >= qmax+2*float64(block): // gain 0 (value −Inf) down to c = qmax + B
			run = max(1, int64((c-qmax-2*float64(block))/float64(block))+1)
		}
	}
	return min(run, y/block, (over+block-1)/block)
}
