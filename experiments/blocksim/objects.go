package blocksim

import (
	"fmt"
	"io"
	"math"
	"unsafe"

	"github.com/tailbound/tailbound/internal/prefetch"
	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// The object replay: an object trace (libCacheSim's, read in bulk:
// Options.Bulk, or as Objects when Options.Objects is given too; every
// request one block, no chain) replayed by caches
// that serve objects (prefixcache.Cache.ServeObject), keyed by the object
// id, so that no block is numbered. The ideal figures keep their own
// table of the objects seen, keyed by object too (objectUses): one lookup
// per request gives both the ideal hit (was the object seen before?) and
// the uses the peak of live blocks needs, where the replay of chains does
// two (the Interner's numbering, then the ideal figures' table by block
// id). The feeder keeps the ideal figures itself, and the batches carry
// each request as an objReq. The results are those of the replay of
// chains (TestObjectReplayEqualsChains).

// objectsOK reports whether the replay of consumers can be the object
// replay: a bulk reader (an object trace) and every run one cache whose
// policy serves objects (not a stack pass of several capacities, which
// numbers blocks).
func objectsOK(opt Options, consumers []*consumer) bool {
	if opt.Bulk == nil {
		return false
	}
	for _, c := range consumers {
		if c.curve != nil || !prefixcache.ServesObjects(c.runs[0].policy) {
			return false
		}
	}
	return true
}

// objReq is a request of the object replay as its runs need it: 32 bytes
// where a prefixcache.Req is 96, so that a batch handed from the feeder to
// the runs' goroutines is a third of the memory to move between the
// processor's caches (the runs make the Req a policy is given, in a
// scratch of their own, as they serve it).
type objReq struct {
	key   int64   // the object id
	time  float64 // arrival, seconds
	input int64   // tokens
	seen  bool    // used before: an infinite cache hits it
}

// objSource gives fillObjects the requests of an object trace: read in
// bulk as Objects (Options.Objects), or else taken from the Requests of
// reqs and checked to be of one block.
type objSource struct {
	bulk blocktrace.ObjectBulk
	buf  []blocktrace.Object
	i    int   // objects of buf handed out
	err  error // the error after buf
	reqs *ahead
	one  blocktrace.Object // the request taken from reqs
}

// next returns the next request, valid until the following call, the
// trace's request index; then the error that ends the trace (io.EOF at
// its end) for good.
func (s *objSource) next(index int64) (*blocktrace.Object, error) {
	if s.bulk == nil {
		r, err := s.reqs.next()
		if err != nil {
			return nil, err
		}
		if len(r.Hashes) != 1 {
			return nil, fmt.Errorf("request %d: %d blocks; an object trace's requests are of one block", index, len(r.Hashes))
		}
		s.one = blocktrace.Object{Time: r.Time, Key: r.Hashes[0], Input: r.Input, Output: r.Output}
		return &s.one, nil
	}
	for s.i == len(s.buf) {
		if s.err != nil {
			return nil, s.err
		}
		if s.buf == nil {
			s.buf = make([]blocktrace.Object, 0, batchSize)
		}
		s.buf, s.i = s.buf[:0], 0
		// A short batch is not the end: the reader reports the end.
		for len(s.buf) < batchSize && s.err == nil {
			s.buf, s.err = s.bulk(s.buf, batchSize-len(s.buf))
		}
	}
	s.i++
	return &s.buf[s.i-1], nil
}

// peek returns the object id of the request k places after the one next
// returned last, when it is read already.
func (s *objSource) peek(k int) (int64, bool) {
	if s.bulk == nil {
		if p := s.reqs.peek(k); p != nil && len(p.Hashes) > 0 {
			return p.Hashes[0], true
		}
		return 0, false
	}
	if j := s.i + k - 1; j < len(s.buf) {
		return s.buf[j].Key, true
	}
	return 0, false
}

// fillObjects is fill for the object replay: the batch's requests are
// checked (prefixcache.CheckNext, as an Interner checks them) and stored in
// b.objs, and the ideal figures counted.
func (f *feeder) fillObjects(src *objSource, b *batch) (int, bool, error) {
	b.objs, b.first = b.objs[:0], int(f.read)
	done := false
	for len(b.objs) < batchSize {
		o, err := src.next(f.read)
		if err == io.EOF {
			done = true
			break
		}
		if err != nil {
			return 0, false, err
		}
		if f.read >= math.MaxInt32 {
			return 0, false, fmt.Errorf("request %d: more than %d requests in an object trace", f.read, math.MaxInt32)
		}
		if key, ok := src.peek(lookahead); ok {
			f.objs.touch(key) // see fill
		}
		if o.Input < 0 || o.Output < 0 || o.Time < f.lastTime { // the requests CheckNext may refuse
			r := blocktrace.Request{Index: int(f.read), Time: o.Time, Input: o.Input, Output: o.Output}
			if err := prefixcache.CheckNext(&r, f.read > 0, f.lastTime); err != nil {
				return 0, false, err
			}
		}
		f.lastTime = o.Time
		key := o.Key
		seen := f.objs.use(key, int32(f.read))
		b.objs = append(b.objs, objReq{key: key, time: o.Time, input: o.Input, seen: seen})
		f.refs++
		x := int64(0)
		if seen {
			x = min(f.opt.BlockSize, o.Input)
		}
		f.acc.Add(x, x, o.Input)
		f.read++
	}
	reportProgress(f.opt.Progress, f.read, done)
	return len(b.objs), done, nil
}

// serveObjects serves a batch of the object replay whose first request is
// the trace's request first.
func (r *runner) serveObjects(objs []objReq, first int) error {
	q := &r.req
	for i := range objs {
		if j := i + lookahead; j < len(objs) {
			r.cache.TouchObject(objs[j].key)
		}
		o := &objs[i]
		// The request as an Interner makes it (InternObject): no
		// category but the first, no conversation, turn 1.
		*q = prefixcache.Req{Index: first + i, Time: o.time, Input: o.input, Conv: -1, Turn: 1}
		h := int64(0)
		if o.seen {
			q.Seen = 1
			h = min(r.blockT, o.input)
		}
		hit, err := r.cache.ServeObject(q, o.key)
		if err != nil {
			return err
		}
		r.refs++ // q.Blocks is nil: account counts none
		if err := r.account(q, h, hit, min(int64(hit)*r.blockT, o.input), false); err != nil {
			return err
		}
	}
	return nil
}

// objectUses holds the request index of the first and latest use of every
// object of an object trace, keyed by the object id: in pages indexed by
// the id for small non-negative ids (traces number their objects densely;
// Interner.direct's scheme), in an open-addressing table for the rest.
// The feeder prefetches a request's use 8 requests ahead (touch). (A
// seen bit per object in pages of their own, 64 times smaller, read
// instead of the use, made no difference once the touch was a prefetch.)
type objectUses struct {
	direct [][]objUse
	table  objUseTable
	n      int // distinct objects
}

// objUse is an object's first use + 1 (0: not seen) and latest use.
type objUse struct{ first1, last int32 }

// directObjects reports whether key lies in the paged range while n
// objects are known.
func directObjects(key int64, n int) bool { return key >= 0 && key < max(1<<20, 4*int64(n)) }

// use records a use of object key by request idx and reports whether the
// object was used before.
func (u *objectUses) use(key int64, idx int32) bool {
	if directObjects(key, u.n) {
		pg, off := int(key>>useBits), key&useMask
		if pg >= len(u.direct) {
			u.direct = append(u.direct, make([][]objUse, pg+1-len(u.direct))...)
		}
		if u.direct[pg] == nil {
			u.direct[pg] = make([]objUse, 1<<useBits)
		}
		d := &u.direct[pg][off]
		if d.first1 != 0 {
			d.last = idx
			return true
		}
		// The range grows with n, so key may have been stored in the
		// table while it was out of range.
		if e := u.table.find(key); e != nil {
			e.last = idx
			return true
		}
		*d = objUse{first1: idx + 1, last: idx}
		u.n++
		return false
	}
	if u.table.use(key, idx) {
		return true
	}
	u.n++
	return false
}

// touch asks the processor to start loading object key's use, and
// changes nothing (see prefixcache.Interner.Touch).
func (u *objectUses) touch(key int64) {
	if !directObjects(key, u.n) {
		return
	}
	if pg := int(key >> useBits); pg < len(u.direct) && u.direct[pg] != nil {
		prefetch.Line(unsafe.Pointer(&u.direct[pg][key&useMask]))
	}
}

// each calls f with the use of every object seen, in no order.
func (u *objectUses) each(f func(objUse)) {
	for _, pg := range u.direct {
		for _, d := range pg {
			if d.first1 != 0 {
				f(d)
			}
		}
	}
	for _, e := range u.table.slots {
		if e.use.first1 != 0 {
			f(e.use)
		}
	}
}

// peakLive returns the peak of live objects (Ideal.PeakLiveBlocks): the
// most objects that, between two requests, have been used and will be
// used again. The live count rises only at a first use, so the peak is
// reached just after one: with F and E the sorted first and last uses of
// the objects used twice or more, it is the largest #{F ≤ r} − #{E ≤ r}
// over the r in F (no object's last use is another's first: a request
// uses one object).
func (u *objectUses) peakLive() int64 {
	reused := 0
	u.each(func(d objUse) {
		if d.last > d.first1-1 {
			reused++
		}
	})
	firsts, lasts := make([]int32, 0, reused), make([]int32, 0, reused)
	u.each(func(d objUse) {
		if d.last > d.first1-1 {
			firsts = append(firsts, d.first1-1)
			lasts = append(lasts, d.last)
		}
	})
	sortIndices(firsts)
	sortIndices(lasts)
	var peak int64
	j := 0
	for i, r := range firsts { // distinct: a request uses one object
		for j < len(lasts) && lasts[j] <= r {
			j++
		}
		peak = max(peak, int64(i+1-j))
	}
	return peak
}

// objUseTable maps object ids to their uses: open addressing with linear
// probing, at most half full (the ids outside objectUses' pages).
type objUseTable struct {
	slots []objUseSlot
	n     int
}

type objUseSlot struct {
	key int64
	use objUse
}

func (t *objUseTable) home(key int64) uint64 {
	x := uint64(key) * 0x9E3779B97F4A7C15
	return x ^ x>>29
}

// find returns the use of key, nil when it is not there.
func (t *objUseTable) find(key int64) *objUse {
	if t.n == 0 {
		return nil
	}
	mask := uint64(len(t.slots) - 1)
	for i := t.home(key) & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.use.first1 == 0 {
			return nil
		}
		if s.key == key {
			return &s.use
		}
	}
}

// use records a use of key by request idx and reports whether key was
// there already.
func (t *objUseTable) use(key int64, idx int32) bool {
	if 2*(t.n+1) > len(t.slots) {
		t.resize()
	}
	mask := uint64(len(t.slots) - 1)
	for i := t.home(key) & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.use.first1 == 0 {
			*s = objUseSlot{key: key, use: objUse{first1: idx + 1, last: idx}}
			t.n++
			return false
		}
		if s.key == key {
			s.use.last = idx
			return true
		}
	}
}

func (t *objUseTable) resize() {
	old := t.slots
	t.slots = make([]objUseSlot, max(1<<12, 2*len(old)))
	mask := uint64(len(t.slots) - 1)
	for _, s := range old {
		if s.use.first1 == 0 {
			continue
		}
		i := t.home(s.key) & mask
		for t.slots[i].use.first1 != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = s
	}
}
