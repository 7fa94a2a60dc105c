package blocksim_test

import (
	"testing"

	"github.com/tailbound/tailbound/experiments/blocksim"
	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// BenchmarkMooncake replays each Mooncake trace (from memory) under each
// policy alone, at a capacity of 2^13 blocks of 512 tokens (4,194,304
// tokens: about a third of the conversation trace's peak of live blocks),
// and reports requests/s and block references/s. The time includes
// numbering the blocks, which the feeder goroutine does alongside the
// cache's.
func BenchmarkMooncake(b *testing.B) {
	for _, file := range []string{"conversation_trace.jsonl", "synthetic_trace.jsonl"} {
		s := loadMooncake(b, file)
		var refs int64
		for _, r := range s.Requests {
			refs += int64(len(r.Hashes))
		}
		for _, e := range prefixcache.All() {
			b.Run(file+"/"+e.Name, func(b *testing.B) {
				o := blocksim.Options{Params: instance.Params{BlockSize: 512, Xi: 1900}, Model: latency.Default(), SLOMs: 200}
				for i := 0; i < b.N; i++ {
					runs := []blocksim.Run{{Name: e.Name, New: e.New, Capacity: 512 << 13}}
					if _, _, err := blocksim.Replay(blocktrace.StreamSource(s), runs, o); err != nil {
						b.Fatal(err)
					}
				}
				sec := b.Elapsed().Seconds()
				b.ReportMetric(float64(len(s.Requests))*float64(b.N)/sec, "requests/s")
				b.ReportMetric(float64(refs)*float64(b.N)/sec, "blockrefs/s")
			})
		}
	}
}
