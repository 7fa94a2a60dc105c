package prefixcache

import "fmt"

// NewS3FIFO returns S3-FIFO (Yang et al., SOSP '23) with the parameters of
// libCacheSim's implementation: a small FIFO of 10% of the capacity, a
// main FIFO of the rest with a 2-bit use counter, and a ghost FIFO of
// recently evicted ids of 90% of the capacity. An admitted block enters
// main if its id is in the ghost (and leaves the ghost), small otherwise.
// To make room: when main holds more than its share or small is empty,
// main's oldest block is reinserted with its counter decremented if it was
// used, evicted otherwise; else small's oldest block moves to main if it
// was hit at least twice, or is evicted into the ghost.
//
// Under the orphan-free rule each FIFO is scanned over its evictable
// blocks only, in order of entry into the queue; the shares count every
// cached block of the queue. When the queue that should give has no
// evictable block, the other one gives.
//
// It is Remembering: it holds the id of every block in the ghost, and
// releases it when the block leaves the ghost (pushed out, or admitted).
func NewS3FIFO(cfg Config) (Policy, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("s3fifo: %w", err)
	}
	blocks := int(cfg.Blocks())
	small := int(0.1 * float64(blocks))
	return &s3fifo{smallCap: small, mainCap: blocks - small,
		ghost: ghostFIFO{capacity: int(0.9 * float64(blocks))}}, nil
}

const (
	s3None uint8 = iota
	s3Small
	s3Main
)

type s3fifo struct {
	small, main       Order // evictable blocks by queue-entry sequence
	class             []uint8
	freq              []uint8 // hits, capped at 3
	seq               []int64
	next              int64
	nSmall, nMain     int // cached blocks per queue
	smallCap, mainCap int
	ghost             ghostFIFO
}

// Remember implements Remembering: the ghost holds its ids.
func (p *s3fifo) Remember(hold, release func(BlockID)) {
	p.ghost.hold, p.ghost.release = hold, release
}

func (p *s3fifo) Access(_ *Req, id BlockID, _ int, hit bool) {
	p.class = grow(p.class, id)
	p.freq = grow(p.freq, id)
	p.seq = grow(p.seq, id)
	if hit {
		p.freq[id] = min(p.freq[id]+1, 3)
		return
	}
	p.freq[id] = 0
	p.seq[id] = p.next
	p.next++
	if p.ghost.remove(id) {
		p.class[id] = s3Main
		p.nMain++
	} else {
		p.class[id] = s3Small
		p.nSmall++
	}
}

func (p *s3fifo) Evictable(id BlockID, on bool) {
	q := &p.small
	if p.class[id] == s3Main {
		q = &p.main
	}
	if on {
		q.Push(id, Key{T: p.seq[id]})
	} else {
		q.Remove(id)
	}
}

func (p *s3fifo) Victim() BlockID {
	for {
		switch {
		case (p.nMain > p.mainCap || p.nSmall == 0) && p.main.Len() > 0, p.small.Len() == 0 && p.main.Len() > 0:
			id := p.main.Pop()
			if f := p.freq[id]; f >= 1 {
				p.freq[id] = f - 1
				p.seq[id] = p.next
				p.next++
				p.main.Push(id, Key{T: p.seq[id]})
				continue
			}
			p.class[id] = s3None
			p.nMain--
			return id
		case p.small.Len() > 0:
			id := p.small.Pop()
			if p.freq[id] >= 2 {
				p.class[id] = s3Main
				p.nSmall--
				p.nMain++
				p.freq[id] = 0
				p.seq[id] = p.next
				p.next++
				p.main.Push(id, Key{T: p.seq[id]})
				continue
			}
			p.class[id] = s3None
			p.nSmall--
			p.ghost.add(id)
			return id
		default:
			return -1
		}
	}
}

// ghostFIFO is a FIFO set of at most capacity block ids; removing an id
// frees its place. An id entering the set is passed to hold and one
// leaving it to release, when they are set (Remembering).
type ghostFIFO struct {
	capacity      int
	hold, release func(BlockID)
	queue         []ghostEntry
	head          int
	stamp         []int64 // stamp of the live entry of id, 0 when absent
	clock         int64
	live          int
}

type ghostEntry struct {
	id    BlockID
	stamp int64
}

func (g *ghostFIFO) add(id BlockID) {
	if g.capacity <= 0 {
		return
	}
	g.stamp = grow(g.stamp, id)
	if g.stamp[id] != 0 {
		g.live--
	} else if g.hold != nil {
		g.hold(id)
	}
	g.clock++
	g.stamp[id] = g.clock
	g.queue = append(g.queue, ghostEntry{id, g.clock})
	g.live++
	for g.live > g.capacity {
		e := g.queue[g.head]
		g.head++
		if g.stamp[e.id] == e.stamp {
			g.stamp[e.id] = 0
			g.live--
			if g.release != nil {
				g.release(e.id)
			}
		}
	}
	if g.head > len(g.queue)/2 && g.head > 64 { // drop the consumed prefix
		g.queue = append(g.queue[:0], g.queue[g.head:]...)
		g.head = 0
	}
	if len(g.queue)-g.head > 2*g.capacity+64 { // drop stale entries
		q := g.queue[:0]
		for _, e := range g.queue[g.head:] {
			if g.stamp[e.id] == e.stamp {
				q = append(q, e)
			}
		}
		g.queue, g.head = q, 0
	}
}

func (g *ghostFIFO) remove(id BlockID) bool {
	if int(id) >= len(g.stamp) || g.stamp[id] == 0 {
		return false
	}
	g.stamp[id] = 0
	g.live--
	if g.release != nil {
		g.release(id)
	}
	return true
}
