package etlru

import (
	"math"

	"github.com/tailbound/tailbound/mdp/belief"
	"github.com/tailbound/tailbound/models/cache"
	"github.com/tailbound/tailbound/models/trace"
)

// Incremental eviction under the exact Bayes belief (used by Policy when
// its belief is *belief.Bayes; Options.Rescore keeps the re-scoring Update
// as the test oracle).
//
// Claim: the blocks Greedy evicts can be found from stored lower bounds
// that are touched only for the conversation served, the conversations
// evicted from and the conversations examined, and the choices are
// Greedy's, bit for bit.
//
// Envelope. Conversation i's last cached block has, at time now, the log
// value v_i(now) = LogRate(h_i, now) + log G_now(c_i) (Greedy's expression,
// c_i = Y_i + ξ − H_i, G = Prompt.Gain), and with Λ_now = log n for the
// online prompt distribution of n prompts (0 for a known one)
//
//	q_i(now) = v_i(now) + Λ_now = LogRate(h_i, now) + log S_now(c_i),
//
// where S_now = n·G_now only gains non-negative terms as prompts arrive
// (incremental.go), and is constant for a known distribution. Between
// i's own changes (a turn, an eviction) h_i and c_i are fixed, and
// belief.Bayes.LogRateSlope gives, at any time t₀, a σ_i with
// LogRate(h_i, t) ≥ LogRate(h_i, t₀) − σ_i·(t − t₀) for all t ≥ t₀ (its doc
// has the proof: the log of the expected rate is a mixture of decays whose
// rate-weighted mean decay only slows). So
//
//	q_i(now) ≥ q_i(t₀) − σ_i·(now − t₀)   for all now ≥ t₀.
//
// Heaps. The slopes differ between conversations, so one order of stored
// bounds would change with time. Slope classes σ_k = μ·2^{k/4} (k ≥ 0;
// every σ_i ≥ μ) fix that: i goes into the heap of the least σ_k ≥ σ_i
// with the key q_i(t₀) + σ_k·t₀, and its bound at now is key − σ_k·now,
// a weaker but still valid lower bound. Within one heap every bound moves
// by the same −σ_k·now, so the order of the keys is the order of the
// bounds at any time: each heap's top has the least bound in it.
//
// Rounding. The computed values differ from the exact ones: LogRate by a
// small multiple of 10^−16 times the magnitude of the logarithms it sums
// (belief.Bayes.Magnitude, bounded for every cached conversation by the
// largest turn count seen and the time since the first turn), the Gamma
// prior's quadrature by a relative 10^−12, log G + Λ against log S, the
// key and the bound by a few ulps of |key| + σ_k·|now|. The tolerance
//
//	tol = 10^−9·(1024 + |key| + 2σ_k·|now| + |Λ| + M)
//
// exceeds their sum by a factor of 10^5 or more (1024 covers log gains,
// which are ≥ −745). It grows with |key| by at most 10^−9 per unit of key,
// so eff = key − σ_k·now − tol is non-decreasing in the key: a heap's top
// also has its least eff, and every conversation j in heap k has a
// computed q̂_j(now) = fl(v̂_j(now) + Λ) ≥ eff(top of k).
//
// Stopping rule. Each eviction step takes heap tops in order of eff (ties:
// least recent) and values them with Greedy's expression at now, until
// every heap's top has eff > q̂_best (best: least value, then least
// recent — Greedy's order; Greedy's third key, the item index, never
// decides as conversations' latest turns differ); then every conversation
// left has q̂_j > q̂_best, and fl(· + Λ) is monotone, so v̂_j > v̂_best:
// best is Greedy's choice. When the best value is −Inf (no gain) only
// ties can compete: the rule stops when every top has eff > −Inf or a
// later latest turn (in a heap, −Inf keys are ordered by recency).
// Conversations examined and not chosen go back with their fresh value
// and slope, a tighter bound.
//
// Greedy then takes the best's following blocks while their q̂ stays
// below limit = the least eff of the heaps' tops (so below every other
// conversation's value), through its gain when that is clear by a margin
// far above the rounding of log, exp and the sums, and through Greedy's
// expression otherwise; runs of equal-value blocks (below the shortest
// prompt, beyond the longest) go at once, as in incremental.go. The
// cache state is changed once per conversation, in Greedy's order (their
// places in ids), so evictions are counted and recorded alike. The served
// conversation is re-scored each turn, and under forced caching it is
// left out of the eviction.
//
// Cost per turn that fits: one LogRateSlope. Per eviction step: one
// LogRateSlope and O(K + log n) per conversation examined, for K ≈
// 4·log2(σ_max/μ) heaps; the re-scoring path evaluates every cached
// conversation on every overflowing turn.

// bayesEntry is a conversation in a slope heap: key is q(t₀) + σ_k·t₀, rec
// its latest turn index (ties: least recent first).
type bayesEntry struct {
	key  float64
	rec  int64
	conv int
}

// bayesPick is a conversation examined at now: its value v, the belief's
// LogRate lr and decay bound sigma.
type bayesPick struct {
	bayesEntry
	v, lr, sigma float64
}

// bayesIndex is the persistent index of the incremental method under the
// Bayes belief.
type bayesIndex struct {
	b      *belief.Bayes
	sigma  []float64      // σ_k = μ·2^{k/4}, per second
	heaps  [][]bayesEntry // one binary heap per slope class
	heapOf []int          // conversation → its heap, −1 when absent
	at     []int          // conversation → index in its heap
	size   int            // conversations in all heaps
	// maxTurns and first bound every cached history for Magnitude: the
	// largest turn count and the first turn's time seen.
	maxTurns int
	first    float64
	started  bool
	// buf, touched and y are reused across turns; y is the amount kept
	// during an eviction, per conversation (0: untouched, −1: emptied).
	buf     []bayesPick
	touched []int
	y       []int64
	// turn counts Update's calls; memo[c] holds conversation c's LogRate
	// and σ at the time of turn memo[c].turn. Within a turn neither its
	// history nor the time changes, and LogRateSlope is a function of
	// them, so a conversation examined again in a later eviction step of
	// the same turn reuses the same bits.
	turn int64
	memo []bayesMemo
}

// bayesMemo is a conversation's LogRateSlope result during one turn.
type bayesMemo struct {
	turn      int64
	lr, sigma float64
}

func newBayesIndex(b *belief.Bayes) *bayesIndex { return &bayesIndex{b: b} }

// class returns the heap of the least σ_k ≥ sigma.
func (x *bayesIndex) class(sigma float64) int {
	k := 0
	if r := sigma / x.b.Mu; r > 1 {
		k = max(int(math.Ceil(4*math.Log2(r)))-1, 0)
	}
	for {
		for len(x.sigma) <= k {
			x.sigma = append(x.sigma, x.b.Mu*math.Exp2(float64(len(x.sigma))/4))
			x.heaps = append(x.heaps, nil)
		}
		if x.sigma[k] >= sigma {
			return k
		}
		k++
	}
}

func bayesLess(a, b bayesEntry) bool {
	if a.key != b.key {
		return a.key < b.key
	}
	return a.rec < b.rec
}

func (x *bayesIndex) swap(k, i, j int) {
	h := x.heaps[k]
	h[i], h[j] = h[j], h[i]
	x.at[h[i].conv], x.at[h[j].conv] = i, j
}

func (x *bayesIndex) up(k, i int) {
	h := x.heaps[k]
	for i > 0 {
		p := (i - 1) / 2
		if !bayesLess(h[i], h[p]) {
			return
		}
		x.swap(k, i, p)
		i = p
	}
}

func (x *bayesIndex) down(k, i int) {
	h := x.heaps[k]
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && bayesLess(h[r], h[l]) {
			m = r
		}
		if !bayesLess(h[m], h[i]) {
			return
		}
		x.swap(k, i, m)
		i = m
	}
}

// put stores conversation e.conv with value v (log) and decay bound sigma
// at now; lambda is Λ_now.
func (x *bayesIndex) put(conv int, rec int64, v, sigma, now, lambda float64) {
	for len(x.heapOf) <= conv {
		x.heapOf = append(x.heapOf, -1)
		x.at = append(x.at, -1)
		x.y = append(x.y, 0)
	}
	k := x.class(sigma)
	e := bayesEntry{key: v + lambda + x.sigma[k]*now, rec: rec, conv: conv}
	if x.heapOf[conv] == k {
		i := x.at[conv]
		old := x.heaps[k][i]
		x.heaps[k][i] = e
		if bayesLess(e, old) {
			x.up(k, i)
		} else {
			x.down(k, i)
		}
		return
	}
	x.remove(conv)
	x.heaps[k] = append(x.heaps[k], e)
	x.heapOf[conv], x.at[conv] = k, len(x.heaps[k])-1
	x.size++
	x.up(k, len(x.heaps[k])-1)
}

// remove deletes conversation c if present.
func (x *bayesIndex) remove(c int) {
	if c >= len(x.heapOf) || x.heapOf[c] < 0 {
		return
	}
	k, i := x.heapOf[c], x.at[c]
	last := len(x.heaps[k]) - 1
	if i != last {
		x.swap(k, i, last)
	}
	x.heaps[k] = x.heaps[k][:last]
	x.heapOf[c], x.at[c] = -1, -1
	x.size--
	if i < last {
		x.down(k, i)
		x.up(k, i)
	}
}

// eff returns the least bound, less the tolerance, of heap k's
// conversations at now (see the top comment); m is Magnitude's bound.
func (x *bayesIndex) eff(k int, now, lambda, m float64) float64 {
	e := x.heaps[k][0]
	s := x.sigma[k]
	return e.key - s*now - 1e-9*(1024+math.Abs(e.key)+2*s*math.Abs(now)+math.Abs(lambda)+m)
}

// next returns the heap whose top comes first by eff, then recency, with
// that eff; −1 when every heap is empty.
func (x *bayesIndex) next(now, lambda, m float64) (int, float64) {
	best, bestEff := -1, 0.0
	for k, h := range x.heaps {
		if len(h) == 0 {
			continue
		}
		f := x.eff(k, now, lambda, m)
		if best < 0 || f < bestEff || (f == bestEff && h[0].rec < x.heaps[best][0].rec) {
			best, bestEff = k, f
		}
	}
	return best, bestEff
}

// bayesScore returns conversation c's value of its block ending at y
// tokens at now by Greedy's expression, with the belief's LogRate and
// decay bound.
func (p *Policy) bayesScore(s *cache.State, c int, y int64, now float64) (v, lr, sigma float64) {
	x := p.bayes
	for len(x.memo) <= c {
		x.memo = append(x.memo, bayesMemo{})
	}
	if m := &x.memo[c]; m.turn == x.turn {
		lr, sigma = m.lr, m.sigma
	} else {
		lr, sigma = x.b.LogRateSlope(p.hist[c], now)
		*m = bayesMemo{turn: x.turn, lr: lr, sigma: sigma}
	}
	g := p.prompt.Gain(float64(y)+p.xi-float64(s.History(c)), s.BlockSize())
	if g <= 0 {
		return math.Inf(-1), lr, sigma
	}
	return lr + math.Log(g), lr, sigma
}

// bayesRescore stores conversation c, keeping y tokens, with its value at
// now, or removes it when y = 0.
func (p *Policy) bayesRescore(s *cache.State, c int, y int64, now, lambda float64) {
	if y == 0 {
		p.bayes.remove(c)
		return
	}
	v, _, sigma := p.bayesScore(s, c, y, now)
	p.bayes.put(c, p.last[c], v, sigma, now, lambda)
}

// updateBayes is Update's eviction by the incremental method under the
// Bayes belief.
func (p *Policy) updateBayes(s *cache.State, t trace.Turn) error {
	c, now := t.Conv, t.Time
	x := p.bayes
	x.turn++
	if !x.started || p.hist[c].First < x.first {
		x.first, x.started = p.hist[c].First, true
	}
	x.maxTurns = max(x.maxTurns, p.hist[c].Turns)
	lambda := p.shift()
	p.bayesRescore(s, c, s.Cached(c), now, lambda)
	if s.Over() == 0 {
		return nil
	}
	if s.Forced() {
		x.remove(c) // not a candidate; put back below
	}
	m := x.b.Magnitude(x.maxTurns, now-x.first)
	block := s.BlockSize()
	x.touched = x.touched[:0]
	qmin, qmax, flat := promptRange(p.prompt)
	for over := s.Over(); over > 0 && x.size > 0; {
		b := p.bayesExamine(s, now, lambda, m)
		if x.y[b.conv] == 0 {
			x.y[b.conv] = s.Cached(b.conv)
			x.touched = append(x.touched, b.conv)
		}
		y, hist, vb, lr := x.y[b.conv], float64(s.History(b.conv)), b.v, b.lr
		limit := math.Inf(1) // the others' least eff: q̂ below it is least
		if k, f := x.next(now, lambda, m); k >= 0 {
			limit = f
		}
		// A block's q̂ = lr + log g + Λ is compared with limit through its
		// gain g when that is clear by a margin far above the rounding
		// of log, exp and the sums, and through Greedy's expression
		// otherwise.
		gLo := math.Inf(-1)
		if !math.IsInf(limit, 0) {
			gLo = math.Exp(limit - lambda - lr - 1e-9*(1024+math.Abs(limit)+math.Abs(lr)+math.Abs(lambda)))
		}
		y, over, vb = p.evictWhileLeast(leastRun{y: y, over: over, block: block, hist: hist, vb: vb, lr: lr,
			lambda: lambda, limit: limit, gLo: gLo, qmin: qmin, qmax: qmax, flat: flat})
		if y > 0 {
			x.y[b.conv] = y
			x.put(b.conv, b.rec, vb, b.sigma, now, lambda)
		} else {
			x.y[b.conv] = -1
		}
	}
	if err := p.applyEvictions(s, x.touched, x.y); err != nil {
		return err
	}
	if s.Forced() && s.Cached(c) > 0 {
		p.bayesRescore(s, c, s.Cached(c), now, lambda)
	}
	if s.Over() > 0 {
		return p.errOver(s, c)
	}
	return nil
}

// bayesExamine removes the conversation whose last block Greedy would
// evict first (least value now, then least recent) from the heaps and
// returns it; every other conversation it had to value goes back with its
// fresh bound. The heaps must not all be empty.
func (p *Policy) bayesExamine(s *cache.State, now, lambda, m float64) bayesPick {
	x := p.bayes
	x.buf = x.buf[:0]
	best, bestQ := -1, 0.0
	for {
		k, f := x.next(now, lambda, m)
		if k < 0 {
			break
		}
		e := x.heaps[k][0]
		if best >= 0 {
			if b := x.buf[best]; math.IsInf(b.v, -1) {
				if f > math.Inf(-1) || e.rec > b.rec {
					break
				}
			} else if f > bestQ {
				break
			}
		}
		x.remove(e.conv)
		y := s.Cached(e.conv)
		if x.y[e.conv] > 0 {
			y = x.y[e.conv]
		}
		v, lr, sigma := p.bayesScore(s, e.conv, y, now)
		x.buf = append(x.buf, bayesPick{bayesEntry: e, v: v, lr: lr, sigma: sigma})
		if n := len(x.buf) - 1; best < 0 || before(v, e.rec, x.buf[best].v, x.buf[best].rec) {
			best, bestQ = n, v+lambda
		}
	}
	for n, e := range x.buf {
		if n != best {
			x.put(e.conv, e.rec, e.v, e.sigma, now, lambda)
		}
	}
	return x.buf[best]
}
