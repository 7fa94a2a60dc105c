//go:build unix

package blocksim_test

import (
	"bytes"
	"math/rand/v2"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tailbound/tailbound/experiments/blocksim"
	"github.com/tailbound/tailbound/models/importer"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// singlesFile is the oracleGeneral file of stream (a) of docs/speed.md
// (scripts/perf-e2e's singlesInput, the same generator and seed): 2·10^6
// single-block requests, half from 10^4 hot objects, half from 10^6.
var singlesFile = sync.OnceValue(func() []byte {
	var b bytes.Buffer
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 2_000_000; i++ {
		id := rng.IntN(1_000_000)
		if rng.IntN(2) == 0 {
			id = rng.IntN(10_000)
		}
		importer.WriteOracleGeneral(&b, uint32(i/1000), uint64(id), 1, -1)
	}
	return b.Bytes()
})

// BenchmarkSingleBlocks replays stream (a), read in bulk from its
// oracleGeneral bytes in memory, through each of lru, fifo, s3fifo and
// lfu alone at 20,000 blocks of 512 tokens, the ideal figures included:
// the replay that `simulate --trace-format oracle-general` runs, without
// the file's reading and the output. It reports requests/s and the
// process's CPU time (user + sys) per replay, cpu-s/op: on a loaded
// machine, where the wall time follows the load, the figure to compare.
func BenchmarkSingleBlocks(b *testing.B) {
	data := singlesFile()
	for _, name := range []string{"lru", "fifo", "s3fifo", "lfu"} {
		es, err := prefixcache.Parse(name)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			o := blocksim.Options{Params: instance.Params{BlockSize: 512, Xi: 1900}, Model: latency.Default(), SLOMs: 200}
			cpu0 := cpuTime()
			for i := 0; i < b.N; i++ {
				og := importer.NewOracleGeneral(bytes.NewReader(data), "singles", 512)
				o.Bulk, o.Objects = og.Batch, og.Objects
				runs := []blocksim.Run{{Name: name, New: es[0].New, Capacity: 512 * 20_000}}
				if _, _, err := blocksim.Replay(og.Next, runs, o); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
			b.ReportMetric(2e6*float64(b.N)/b.Elapsed().Seconds(), "requests/s")
		})
	}
}

// cpuTime returns the process's CPU time so far, user + sys.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
