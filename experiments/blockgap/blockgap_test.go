package blockgap

import (
	"context"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/tailbound/tailbound/experiments/blocksim"
	"github.com/tailbound/tailbound/internal/shareddata"
	"github.com/tailbound/tailbound/lp/solvers"
	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/prefixcache"
)

func replayOptions() blocksim.Options {
	m := latency.Default()
	return blocksim.Options{Params: instance.Params{Xi: m.XiTokens(latency.DefaultXiMs)}, Model: m, SLOMs: 1000}
}

// randomStream is a trace of n requests over a random tree of blocks.
func randomStream(r *rand.Rand, n, nodes int) *blocktrace.Stream {
	parent := []int{-1}
	s := &blocktrace.Stream{BlockTokens: 4}
	for i := 0; i < n; i++ {
		v := r.IntN(len(parent))
		if len(parent) < nodes && r.IntN(2) == 0 {
			for k := 1 + r.IntN(3); k > 0 && len(parent) < nodes; k-- {
				parent = append(parent, v)
				v = len(parent) - 1
			}
		}
		var path []int64
		for u := v; u >= 0; u = parent[u] {
			path = append([]int64{int64(u)}, path...)
		}
		s.Requests = append(s.Requests, blocktrace.Request{Index: i, Time: float64(i), Input: 4*int64(len(path)) - 1, Hashes: path, Conv: -1})
	}
	return s
}

// TestOrderOnRandomTraces: through the block replay, LP ≤ IP ≤ hindsight ≤
// every registered policy, and (the theorem of lp/prefix) the width is 0.
func TestOrderOnRandomTraces(t *testing.T) {
	r := rand.New(rand.NewPCG(18, 7))
	trials := 20
	if !solvers.Coin() {
		trials = 5
	}
	for trial := 0; trial < trials; trial++ {
		n, nodes := 30, 30
		if !solvers.Coin() {
			n, nodes = 8, 10
		}
		s := randomStream(r, n, nodes)
		longest := 0
		for _, q := range s.Requests {
			longest = max(longest, len(q.Hashes))
		}
		caps := []int64{4 * int64(longest), 4 * int64(longest+3)}
		rows, bounds, err := Run(context.Background(), s, Config{Capacities: caps, Policies: prefixcache.All(),
			LPSolver: "auto", IPSolver: "auto", Replay: replayOptions()})
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != len(caps)*(1+len(prefixcache.All())) {
			t.Fatalf("%d rows", len(rows))
		}
		for _, b := range bounds {
			if !b.OrderHolds || b.LP == nil || b.IP == nil || b.WidthBlocks == nil || *b.WidthBlocks > 1e-6 {
				t.Fatalf("trial %d: bound %+v (LP %+v, IP %+v)", trial, b, b.LP, b.IP)
			}
		}
	}
}

func TestRejectsShortCapacity(t *testing.T) {
	s := &blocktrace.Stream{BlockTokens: 2, Requests: []blocktrace.Request{{Input: 6, Hashes: []int64{1, 2, 3}, Conv: -1}}}
	if _, _, err := Run(context.Background(), s, Config{Capacities: []int64{4}, LPSolver: "none", IPSolver: "none", Replay: replayOptions()}); err == nil {
		t.Error("want an error for a capacity below the longest chain")
	}
	if _, _, err := Run(context.Background(), s, Config{Capacities: []int64{7}, LPSolver: "none", IPSolver: "none", Replay: replayOptions()}); err == nil {
		t.Error("want an error for a capacity not a multiple of the block size")
	}
}

// TestMooncake runs the bounds on both Mooncake traces at the capacities
// of the README's block-level tables: LP (CLP, merged model) = hindsight ≤
// every policy. Set TAILBOUND_MOONCAKE_GAP=1 to run it (about 30 s with
// -tags coin).
func TestMooncake(t *testing.T) {
	if os.Getenv("TAILBOUND_MOONCAKE_GAP") == "" || !solvers.Coin() {
		t.Skip("set TAILBOUND_MOONCAKE_GAP=1 and build with -tags coin")
	}
	for _, c := range []struct {
		file string
		caps []int64
	}{
		{"conversation_trace.jsonl", []int64{524288, 2097152, 8388608, 16777216}},
		{"synthetic_trace.jsonl", []int64{262144, 1048576, 4194304, 8388608}},
	} {
		path := shareddata.Mooncake(t, c.file)
		src, block, f, err := blocksim.Open(path, "mooncake", 0)
		if err != nil {
			t.Fatal(err)
		}
		s, err := blocksim.ReadAll(src, block)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		_, bounds, err := Run(context.Background(), s, Config{Capacities: c.caps, Policies: prefixcache.All(),
			LPSolver: "clp", IPSolver: "none", Replay: replayOptions()})
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range bounds {
			t.Logf("%s at %d blocks: hindsight %d, LP %v (%.1f s)", c.file, b.CapacityBlocks, b.HindsightMissBlocks, b.LP.MissBlocks, b.LP.Seconds)
			if !b.OrderHolds || b.WidthBlocks == nil || *b.WidthBlocks != 0 {
				t.Errorf("%s at %d blocks: order %v, width %v", c.file, b.CapacityBlocks, b.OrderHolds, b.WidthBlocks)
			}
		}
		t.Logf("%s: %v", c.file, time.Since(start))
	}
}
