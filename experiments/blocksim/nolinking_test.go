package blocksim_test

import (
	"testing"

	"github.com/tailbound/tailbound/experiments/blocksim"
	"github.com/tailbound/tailbound/internal/shareddata"
	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/importer"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// On both published Mooncake traces, every policy that runs without the
// ideal figures gives, on the trace read without deriving conversations
// (importer.Options.NoLinking, what --no-ideal reads), the figures the
// plain replay gives on the linked trace (conversation ids and turn
// numbers set), and those the streaming replay gives on the linked trace:
// no reported number depends on the conversations. Capacities: 64 blocks
// (most requests evict) and 4,096 (the docs' 2,097,152 tokens).
func TestNoIdealUnlinkedMooncake(t *testing.T) {
	es, err := prefixcache.Parse("lru,fifo,lfu,aging-lfu,gdsf,s3fifo")
	if err != nil {
		t.Fatal(err)
	}
	runs := blocksim.SweepRuns(es, []int64{512 * 64, 512 * 4096})
	o := opts
	o.BlockSize = importer.MooncakeBlockTokens
	for _, file := range []string{"conversation_trace.jsonl", "synthetic_trace.jsonl"} {
		path := shareddata.Mooncake(t, file)
		read := func(noLinking bool) (blocktrace.Source, func()) {
			imp := importer.DefaultOptions()
			imp.NoLinking = noLinking
			src, f, err := importer.Open(path, "mooncake", imp)
			if err != nil {
				t.Fatal(err)
			}
			return src.Next, func() { f.Close() }
		}
		linkedSrc, done := read(false)
		linked, err := blocksim.ReadAll(linkedSrc, importer.MooncakeBlockTokens)
		done()
		if err != nil {
			t.Fatal(err)
		}
		convs := map[int]bool{}
		for _, r := range linked.Requests {
			convs[r.Conv] = true
		}
		if len(convs) < 2 || len(convs) == len(linked.Requests) {
			t.Fatalf("%s: %d conversations in %d requests: the linked trace links nothing", file, len(convs), len(linked.Requests))
		}
		plain, _, err := blocksim.Replay(blocktrace.StreamSource(linked), runs, o)
		if err != nil {
			t.Fatal(err)
		}
		s := o
		s.NoIdeal = true
		streamLinked, _, err := blocksim.Replay(blocktrace.StreamSource(linked), runs, s)
		if err != nil {
			t.Fatal(err)
		}
		unlinkedSrc, done := read(true)
		unlinked, ideal, err := blocksim.Replay(unlinkedSrc, runs, s)
		done()
		if err != nil {
			t.Fatal(err)
		}
		if ideal.Requests != int64(len(linked.Requests)) {
			t.Fatalf("%s: %d requests unlinked, %d linked", file, ideal.Requests, len(linked.Requests))
		}
		sameResults(t, plain, unlinked)
		sameResults(t, streamLinked, unlinked)
	}
}
