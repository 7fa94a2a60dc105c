package etlru

import (
	"fmt"

	"github.com/tailbound/tailbound/mdp/belief"
	"github.com/tailbound/tailbound/models/cache"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/policy"
	"github.com/tailbound/tailbound/models/trace"
)

// Policy is ET-LRU as a replay policy: after each turn it keeps the whole
// history of the served conversation and, when over capacity, evicts by
// Greedy over all cached conversations, with λ_i from its belief at the
// turn's time and Q from its prompt distribution.
type Policy struct {
	belief belief.Belief
	prompt Prompt
	online *Online // when the prompt distribution is fitted online
	xi     float64
	hist   []belief.History
	last   []int64 // latest turn index per conversation
	ids    []int   // cached conversations
	pos    []int   // index in ids, −1 when not cached
	items  []Item  // reused
	owner  []int   // conversation of each item
	// inc is the incremental index (incremental.go), used under the
	// paper's belief, and bayes the one of bayes_incremental.go, used
	// under the Bayes belief; both nil: every overflowing turn re-scores
	// every cached conversation.
	inc   *incremental
	bayes *bayesIndex
}

// New builds ET-LRU from cfg (see Options for cfg.Options).
func New(cfg policy.Config) (policy.Policy, error) {
	o, err := ParseOptions(cfg.Options)
	if err != nil {
		return nil, err
	}
	return NewWith(cfg, o), nil
}

// NewWith builds ET-LRU with explicit options.
func NewWith(cfg policy.Config, o Options) *Policy {
	p := &Policy{belief: o.Belief, xi: cfg.Xi}
	if o.Prompt != nil {
		p.prompt = o.Prompt
	} else {
		p.online = &Online{}
		p.prompt = p.online
	}
	if !o.Rescore {
		switch b := o.Belief.(type) {
		case belief.Paper:
			p.inc = newIncremental(b)
		case *belief.Bayes:
			p.bayes = newBayesIndex(b)
		}
	}
	return p
}

// Update implements policy.Policy.
func (p *Policy) Update(s *cache.State, t trace.Turn) error {
	c := t.Conv
	for len(p.hist) <= c {
		p.hist = append(p.hist, belief.History{})
		p.last = append(p.last, -1)
		p.pos = append(p.pos, -1)
	}
	h := &p.hist[c]
	if h.Turns == 0 {
		h.First = t.Time
	}
	h.Last = t.Time
	h.Turns++
	p.last[c] = int64(t.Index)
	if p.online != nil {
		p.online.Add(t.Prompt)
	}
	if err := s.Set(c, s.MaxServed()); err != nil {
		return err
	}
	p.track(s, c)
	if p.inc != nil {
		return p.updateIncremental(s, t)
	}
	if p.bayes != nil {
		return p.updateBayes(s, t)
	}
	if s.Over() == 0 {
		return nil
	}
	p.items, p.owner = p.items[:0], p.owner[:0]
	for _, i := range p.ids {
		p.items = append(p.items, Item{
			LogWeight: p.belief.LogRate(p.hist[i], t.Time),
			History:   s.History(i),
			Upper:     s.Cached(i),
			Recency:   p.last[i],
			Fixed:     s.Forced() && i == c,
		})
		p.owner = append(p.owner, i)
	}
	prob := Problem{Items: p.items, Params: instance.Params{Capacity: s.Capacity(), BlockSize: s.BlockSize(), Xi: p.xi}, Prompt: p.prompt}
	y, err := Greedy(&prob)
	if err != nil {
		return err
	}
	for k, i := range p.owner {
		if y[k] != s.Cached(i) {
			if err := s.Set(i, y[k]); err != nil {
				return err
			}
			p.track(s, i)
		}
	}
	return nil
}

// track keeps ids in step with conversation c's cached amount.
func (p *Policy) track(s *cache.State, c int) {
	in := p.pos[c] >= 0
	switch {
	case s.Cached(c) > 0 && !in:
		p.pos[c] = len(p.ids)
		p.ids = append(p.ids, c)
	case s.Cached(c) == 0 && in:
		k := p.pos[c]
		last := p.ids[len(p.ids)-1]
		p.ids[k], p.pos[last] = last, k
		p.ids = p.ids[:len(p.ids)-1]
		p.pos[c] = -1
	}
}

// errOver is the error of a turn that cannot be brought within capacity.
func (p *Policy) errOver(s *cache.State, c int) error {
	return fmt.Errorf("etlru: %d tokens over capacity after evicting all but conversation %d", s.Over(), c)
}
