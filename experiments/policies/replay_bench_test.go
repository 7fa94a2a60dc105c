package policies_test

import (
	"bytes"
	"fmt"
	"io"
	"testing"

	"github.com/tailbound/tailbound/experiments/policies"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/cache"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/policy"
	"github.com/tailbound/tailbound/models/replay"
	"github.com/tailbound/tailbound/models/trace"
)

// benchTrace draws a birth–death trace of about turns turns over about
// turns/10 conversations: 100 births per second, each conversation alive
// 90 s on average and chatting every 10 s, so about 10 turns each.
func benchTrace(b *testing.B, turns int) *trace.Trace {
	b.Helper()
	p := birthdeath.Default()
	p.LambdaConv, p.Mu = 100, 1.0/90
	p.Classes = []birthdeath.RateClass{{Rate: 0.1, Weight: 1}}
	p.Duration, p.MaxTurns = 0, turns
	tr, err := birthdeath.Trace(p, 1)
	if err != nil {
		b.Fatal(err)
	}
	return tr
}

// BenchmarkReplay replays 10^6 turns over about 10^5 conversations under
// each policy on one core (one policy per run) and reports turns/s. The
// capacity, 2^24 tokens, holds about a fifth of the live histories.
func BenchmarkReplay(b *testing.B) {
	tr := benchTrace(b, 1_000_000)
	fut := trace.NewHindsight(tr.Turns, tr.Conversations())
	for _, e := range policies.All() {
		b.Run(e.Name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				p, err := e.New(policy.Config{Params: instance.Params{Capacity: 1 << 24, BlockSize: 16, Xi: 1900}, Threshold: 1024, Future: fut})
				if err != nil {
					b.Fatal(err)
				}
				_, err = replay.Replay(replay.SliceSource(tr.Turns), []replay.Named{{Name: e.Name, Policy: p}},
					replay.Options{Params: instance.Params{Capacity: 1 << 24, BlockSize: 16, Xi: 1900}, Model: latency.Default(), SLOMs: 200})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(tr.Turns))*float64(b.N)/b.Elapsed().Seconds(), "turns/s")
		})
	}
}

// BenchmarkEvictionCost measures the time per eviction of LRU and T-LRU at
// two cache sizes that hold about 10× different numbers of conversations:
// with O(log n) eviction the ns/eviction should grow by about log(10n)/log(n),
// not 10×. It drives the policy directly, without the metrics.
func BenchmarkEvictionCost(b *testing.B) {
	tr := benchTrace(b, 1_000_000)
	for _, name := range []string{"lru", "tlru"} {
		e, _ := policies.Parse(name)
		for _, capacity := range []int64{1 << 21, 1 << 24} {
			b.Run(fmt.Sprintf("%s/C=%d", name, capacity), func(b *testing.B) {
				var evictions, cachedConvs int64
				for i := 0; i < b.N; i++ {
					p, _ := e[0].New(policy.Config{Params: instance.Params{Capacity: capacity, BlockSize: 16, Xi: 1900}})
					s, _ := cache.New(instance.Params{Capacity: capacity, BlockSize: 16})
					for _, u := range tr.Turns {
						s.Begin(u.Conv, u.Prompt, u.Response)
						if err := p.Update(s, u); err != nil {
							b.Fatal(err)
						}
						if err := s.End(); err != nil {
							b.Fatal(err)
						}
					}
					evictions = s.Evictions()
					cachedConvs = 0
					for c := 0; c < s.Conversations(); c++ {
						if s.Cached(c) > 0 {
							cachedConvs++
						}
					}
				}
				b.ReportMetric(float64(cachedConvs), "cached-convs")
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(evictions), "ns/eviction")
				b.ReportMetric(float64(len(tr.Turns))*float64(b.N)/b.Elapsed().Seconds(), "turns/s")
			})
		}
	}
}

// BenchmarkParse measures reading the canonical trace format, bytes/s.
func BenchmarkParse(b *testing.B) {
	tr := benchTrace(b, 200_000)
	var buf bytes.Buffer
	if err := trace.WriteTrace(&buf, tr); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := trace.NewReader(bytes.NewReader(data), "bench")
		for {
			if _, err := r.Next(); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(len(tr.Turns))*float64(b.N)/b.Elapsed().Seconds(), "turns/s")
}
