package stackcurve_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/prefixcache"
	"github.com/tailbound/tailbound/models/replay"
	"github.com/tailbound/tailbound/models/stackcurve"
	"github.com/tailbound/tailbound/models/trace"
)

// BenchmarkLRUCurve replays the embedded birth–death workload at 1 and at
// 32 capacities (2^10·16 tokens up, ×2^0.4 apart) in one pass; compare the
// two to see what a curve costs over a point.
func BenchmarkLRUCurve(b *testing.B) {
	tr, err := birthdeath.Trace(birthdeath.Default(), 1)
	if err != nil {
		b.Fatal(err)
	}
	var caps []int64
	for i := 0; i < 32; i++ {
		caps = append(caps, 16*int64(1024*math.Exp2(0.4*float64(i))))
	}
	opt := replay.Options{Params: instance.Params{BlockSize: 16, Xi: 1000}, Model: latency.Default(), SLOMs: 200}
	for _, n := range []int{1, 32} {
		b.Run(map[int]string{1: "one", 32: "curve32"}[n], func(b *testing.B) {
			for b.Loop() {
				if _, err := stackcurve.LRU(replay.SliceSource(tr.Turns), "lru", caps[:n], opt, 1); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(tr.Turns))*float64(b.N)/b.Elapsed().Seconds(), "turns/s")
		})
	}
}

// longConversations returns the embedded birth–death workload (seed 1)
// with a turn of one of 5 long conversations after each of its turns, in
// bursts of 1,000 turns a conversation (20–80 prompt, 30–100 response
// tokens): the shape of docs/speed.md's long-conversation trace, whose
// 7,000-turn histories run past every capacity of the benchmarks.
func longConversations(b *testing.B) []trace.Turn {
	tr, err := birthdeath.Trace(birthdeath.Default(), 1)
	if err != nil {
		b.Fatal(err)
	}
	ids := map[string]int{} // dense ids in order of first appearance
	id := func(name string) int {
		if _, ok := ids[name]; !ok {
			ids[name] = len(ids)
		}
		return ids[name]
	}
	var out []trace.Turn
	for n, t := range tr.Turns {
		t.Index, t.Conv = len(out), id(fmt.Sprint("c", t.Conv))
		out = append(out, t)
		out = append(out, trace.Turn{Index: len(out), Time: t.Time, Conv: id(fmt.Sprint("L", (n+1)/1000%5)),
			Prompt: int64(20 + (n+1)*7%60), Response: int64(30 + (n+1)*13%70)})
	}
	return out
}

// BenchmarkLRUCurveLong replays the long-conversation trace
// (longConversations, 72,784 turns) at one capacity (2^18 tokens) and at
// 32 (2^14·k tokens, k = 1 … 32), with one engine and with two; issue 34
// asks the 32 for at most twice the one's time.
func BenchmarkLRUCurveLong(b *testing.B) {
	turns := longConversations(b)
	var caps []int64
	for k := int64(1); k <= 32; k++ {
		caps = append(caps, 1<<14*k)
	}
	opt := replay.Options{Params: instance.Params{BlockSize: 16, Xi: 1900}, Model: latency.Default(), SLOMs: 200}
	for _, c := range []struct {
		name    string
		caps    []int64
		workers int
	}{{"one", []int64{1 << 18}, 1}, {"curve32", caps, 1}, {"curve32-2workers", caps, 2}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := stackcurve.LRU(replay.SliceSource(turns), "lru", c.caps, opt, c.workers); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(turns))*float64(b.N)/b.Elapsed().Seconds(), "turns/s")
		})
	}
}

// longChains returns the block chains of longConversations at one block
// per 1,024 tokens: each turn's chain is its conversation's whole history so
// far (ids dense, as prefixcache.Interner numbers them), so the 5 long
// conversations' chains grow to about 700 blocks.
func longChains(b *testing.B) [][]int32 {
	turns := longConversations(b)
	var next int32
	conv := map[int][]int32{}
	hist := map[int]int64{}
	out := make([][]int32, 0, len(turns))
	for _, t := range turns {
		hist[t.Conv] += t.Prompt + t.Response
		for int64(len(conv[t.Conv]))*1024 < hist[t.Conv] {
			conv[t.Conv] = append(conv[t.Conv], next)
			next++
		}
		out = append(out, conv[t.Conv])
	}
	return out
}

// BenchmarkBlockLRULong serves longChains in one block-level LRU cache of
// 2^12 blocks (prefixcache, what a one-capacity replay runs) and in one
// BlockLRU at 32 capacities (2^10·k blocks, k = 1 … 32): issue 34 asks the
// curve for at most twice the one capacity's time.
func BenchmarkBlockLRULong(b *testing.B) {
	chains := longChains(b)
	var blocks int
	for _, ch := range chains {
		blocks += len(ch)
	}
	caps := make([]int, 32)
	for k := range caps {
		caps[k] = 1 << 10 * (k + 1)
	}
	b.Run("cache1", func(b *testing.B) {
		for b.Loop() {
			p, _ := prefixcache.NewLRU(prefixcache.Config{})
			cache, err := prefixcache.New(1<<12, 1, p)
			if err != nil {
				b.Fatal(err)
			}
			for i, ch := range chains {
				if _, err := cache.Serve(&prefixcache.Req{Index: i, Blocks: ch, Conv: -1}); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(blocks)*float64(b.N)/b.Elapsed().Seconds(), "blocks/s")
	})
	b.Run("curve32", func(b *testing.B) {
		hits := make([]int, len(caps))
		for b.Loop() {
			s, err := stackcurve.NewBlockLRU(caps)
			if err != nil {
				b.Fatal(err)
			}
			for _, ch := range chains {
				if err := s.Serve(ch, hits); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(blocks)*float64(b.N)/b.Elapsed().Seconds(), "blocks/s")
	})
}
