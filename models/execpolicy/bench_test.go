package execpolicy_test

import (
	"testing"

	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/execpolicy"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/policy"
	"github.com/tailbound/tailbound/models/replay"
)

// BenchmarkExec measures the exec door's throughput (turns/s) on the
// embedded workload (one hour): the reference client's LRU and T-LRU, and a
// Python client that answers {"keep":0} without reading its input, which
// is the cost of the protocol alone (one round trip per turn).
func BenchmarkExec(b *testing.B) {
	py := client(b)
	tr, err := birthdeath.Trace(birthdeath.Default(), 1)
	if err != nil {
		b.Fatal(err)
	}
	o := replay.Options{Params: instance.Params{Capacity: 131072, BlockSize: 16, Xi: 1500.5}, Model: latency.Default(), SLOMs: 200}
	cfg := policy.Config{Params: instance.Params{Capacity: o.Capacity, BlockSize: o.BlockSize, Xi: o.Xi}, Threshold: 1024}
	for _, c := range []struct{ name, cmd string }{
		{"echo", `python3 -c 'import sys
sys.stdin.readline()
for _ in sys.stdin:
    sys.stdout.write("{\"keep\":0}\n"); sys.stdout.flush()'`},
		{"lru", "python3 " + py + " lru"},
		{"tlru", "python3 " + py + " tlru"},
	} {
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				named := map[string]policy.Factory{c.name: execpolicy.New(c.cmd, execpolicy.Options{})}
				if _, err := run(b, tr, o, cfg, named, []string{c.name}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(tr.Turns))*float64(b.N)/b.Elapsed().Seconds(), "turns/s")
		})
	}
}
