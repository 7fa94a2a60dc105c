package blocksim

import (
	"io"

	"github.com/tailbound/tailbound/internal/fanout"
	"github.com/tailbound/tailbound/internal/option"
	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// The streaming replay (Options.NoIdeal) keeps no index of the trace's
// blocks: the feeder only reads, checks and counts requests and hands the
// batches on as read, and each run numbers its requests' blocks with a
// Forgetter of its own, on its own goroutine, in step with its cache: a
// block its cache evicts, or does not admit, is forgotten at once. Its
// memory is then the caches' (capacity) plus the batches in flight,
// whatever the length of the trace (and, for S3-FIFO, the ids its ghost
// holds). Ids differ from an Interner's, which a CachedOnly policy cannot
// tell (it is named slots), nor a Remembering one (the forgetter keeps
// the ids it holds; see Forgetter), so the results are those of Replay
// without NoIdeal; the ideal figures, which need every block seen, are not
// computed.
//
// Nor are the Mooncake format's conversations derived (Command.source
// opens the trace with importer.Options.NoLinking; every request's Conv is
// −1, its Turn 1 as before): the policies that run here read chains only,
// never Conv, Turn or Category, and the figures count requests and blocks,
// not conversations, so no reported number depends on the ids. An exact
// linker must keep every chain a later request could still continue, for
// as long as it could, since the format marks no session's end: on a
// generated cluster whose sessions each end on a chain of their own it kept
// one chain per session, most of the replay's memory at 10^6 requests.
// Skipping it is exact; a compact store of the same chains (a prefix tree)
// would still grow with the sessions, and a horizon after which a chain is
// forgotten would change the ids wherever a conversation resumes after it.

// rawBatch is a batch of requests as read.
type rawBatch struct {
	reqs []blocktrace.Request
}

// forgetting readies r for the streaming replay: its policy p must be
// CachedOnly or Remembering (other policies keep state under the trace's
// block ids), its cache tells its forgetter of every eviction, and a
// Remembering policy holds in the forgetter the evicted ids it keeps.
func (r *runner) forgetting(p prefixcache.Policy) error {
	_, cached := p.(prefixcache.CachedOnly)
	rem, remembers := p.(prefixcache.Remembering)
	if !cached && !remembers {
		return option.Errorf("no-ideal", "policy %s keeps state for blocks it does not cache; only lru, fifo, lfu, aging-lfu, gdsf and s3fifo run without the ideal figures", r.run.Name)
	}
	r.fg = prefixcache.NewForgetter()
	r.cache.OnEvict(r.fg.Forget)
	if remembers {
		rem.Remember(r.fg.Hold, r.fg.Release)
	}
	return nil
}

// replayStream replays src through the runs rs, each ready by forgetting,
// and returns the figures of the trace it counts (Ideal.None).
func replayStream(src blocktrace.Source, rs []*runner, opt Options) (Ideal, error) {
	ra := readAhead(src, nil, batchSize)
	defer ra.stop()
	ideal := Ideal{None: true}
	var last float64
	readErr, errs := fanout.Broadcast(len(rs), func() *rawBatch {
		return &rawBatch{reqs: make([]blocktrace.Request, 0, batchSize)}
	}, func(b *rawBatch) (int, bool, error) {
		b.reqs = b.reqs[:0]
		done := false
		for len(b.reqs) < batchSize {
			r, err := ra.next()
			if err == io.EOF {
				done = true
				break
			}
			if err != nil {
				return 0, false, err
			}
			r.Index = int(ideal.Requests)
			if err := prefixcache.CheckNext(r, ideal.Requests > 0, last); err != nil {
				return 0, false, err
			}
			last = r.Time
			ideal.Requests++
			ideal.RefBlocks += int64(len(r.Hashes))
			b.reqs = append(b.reqs, *r)
		}
		reportProgress(opt.Progress, ideal.Requests, done)
		return len(b.reqs), done, nil
	}, func(i int, b *rawBatch) error { return rs[i].serveRaw(b.reqs) })
	if readErr != nil {
		return Ideal{}, readErr
	}
	for i, r := range rs {
		if errs[i] != nil {
			return Ideal{}, r.failed(errs[i])
		}
	}
	return ideal, nil
}

// serveRaw numbers and serves requests as read, then forgets the blocks of
// each chain its cache did not admit (a chain longer than the room the
// policy could make): the cached blocks are a prefix of the chain, so the
// others are its tail.
func (r *runner) serveRaw(reqs []blocktrace.Request) error {
	for i := range reqs {
		t := &reqs[i]
		r.arena = r.fg.Chain(t.Hashes, r.arena[:0])
		q := prefixcache.Req{Index: t.Index, Time: t.Time, Input: t.Input, Output: t.Output, Conv: t.Conv, Turn: 1, Blocks: r.arena}
		if err := r.serveOne(&q, 0); err != nil {
			return err
		}
		for j := len(r.arena) - 1; j >= 0 && !r.cache.Cached(r.arena[j]); j-- {
			r.fg.Forget(r.arena[j])
		}
	}
	return nil
}
