package blocksim_test

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/tailbound/tailbound/experiments/blocksim"
	"github.com/tailbound/tailbound/internal/option"
	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// fataler is what the helpers need of a *testing.T or a *rapid.T.
type fataler interface {
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// streamed replays s under every CachedOnly policy (LRU, FIFO, LFU,
// Aging-LFU, GDSF) at capacities (tokens) with and without NoIdeal and
// returns both.
func streamed(t fataler, s *blocktrace.Stream, capacities []int64, o blocksim.Options) (plain, stream []blocksim.Result, ideal blocksim.Ideal) {
	es, err := prefixcache.Parse("lru,fifo,lfu,aging-lfu,gdsf")
	if err != nil {
		t.Fatal(err)
	}
	runs := blocksim.SweepRuns(es, capacities)
	plain, full, err := blocksim.Replay(blocktrace.StreamSource(s), runs, o)
	if err != nil {
		t.Fatal(err)
	}
	o.NoIdeal = true
	stream, ideal, err = blocksim.Replay(blocktrace.StreamSource(s), runs, o)
	if err != nil {
		t.Fatal(err)
	}
	if !ideal.None || full.None || ideal.Requests != full.Requests || ideal.RefBlocks != full.RefBlocks {
		t.Fatalf("ideal %+v, without NoIdeal %+v: want None and the same counts", ideal, full)
	}
	return plain, stream, ideal
}

// sameResults fails unless every streamed result equals its plain one but
// for the history hit ratio, which has no value without the ideal.
func sameResults(t fataler, plain, stream []blocksim.Result) {
	for i := range plain {
		p, s := plain[i], stream[i]
		if !math.IsNaN(s.Summary.HistoryHit) {
			t.Fatalf("%s: history hit %g without the ideal figures", s.Name, s.Summary.HistoryHit)
		}
		ps, ss := p.Summary, s.Summary
		ps.HistoryHit, ss.HistoryHit = 0, 0 // NaN ≠ NaN
		if p.Name != s.Name || p.CapacityTokens != s.CapacityTokens || p.Requests != s.Requests || p.RefBlocks != s.RefBlocks ||
			p.HitBlocks != s.HitBlocks || p.Evictions != s.Evictions || ps != ss ||
			(p.Queued == nil) != (s.Queued == nil) || (p.Queued != nil && *p.Queued != *s.Queued) {
			t.Fatalf("%s at %d tokens: streamed %+v, plain %+v", p.Name, p.CapacityTokens, s, p)
		}
	}
}

// On random streams of shared prefixes, from a cache too small for one
// chain to one larger than the trace, the streaming replay's runs are the
// plain replay's: same hits, references, evictions, TTFT, TEL and queued
// TTFT.
func TestNoIdealMatchesPlainRandom(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 400).Draw(t, "requests")
		s := randomStream(rapid.Uint64().Draw(t, "seed"), n, rapid.IntRange(1, 40).Draw(t, "alphabet"))
		caps := []int64{16 * int64(rapid.IntRange(0, 12).Draw(t, "blocks")), 16 * int64(rapid.IntRange(0, 3000).Draw(t, "large"))}
		o := opts
		o.Queue = rapid.Bool().Draw(t, "queue")
		plain, stream, _ := streamed(t, s, caps, o)
		sameResults(t, plain, stream)
	})
}

// A hand-built trace under LRU at 3 blocks, worked by hand (hit blocks;
// victims):
//
//	[1 2]      0  admit 1, 2
//	[1 3]      1  admit 3
//	[1 2]      2
//	[4]        0  evict 3 (leaves 2, 3: 3 used longer ago), admit 4
//	[1 3]      1  evict 2 (leaves 2, 4: 1 is pinned), admit 3 again
//	[5 6 7 8]  0  evict 4, then 3 and 1 (3 deeper in the same request); admit 5, 6, 7; 8 does not fit
//	[5 6 7 8]  3  nothing evictable (7 is pinned): 8 does not fit
//
// 7 hits of 17 references and 5 evictions, in both modes; the other
// CachedOnly policies' runs are the same in both modes too. The chains cut short and the block admitted
// again after its eviction are where a forgetter reuses ids.
func TestNoIdealHandWorked(t *testing.T) {
	chains := [][]int64{{1, 2}, {1, 3}, {1, 2}, {4}, {1, 3}, {5, 6, 7, 8}, {5, 6, 7, 8}}
	s := &blocktrace.Stream{BlockTokens: 16}
	for i, c := range chains {
		s.Requests = append(s.Requests, blocktrace.Request{Index: i, Time: float64(i), Input: 16 * int64(len(c)), Hashes: c, Conv: -1})
	}
	plain, stream, ideal := streamed(t, s, []int64{48}, opts)
	if ideal.Requests != 7 || ideal.RefBlocks != 17 {
		t.Fatalf("ideal counts %d requests, %d references; want 7 and 17", ideal.Requests, ideal.RefBlocks)
	}
	lru := stream[0]
	if lru.Name != "lru" || lru.HitBlocks != 7 || lru.RefBlocks != 17 || lru.Evictions != 5 {
		t.Fatalf("%s: %d hits of %d references, %d evictions; want lru 7, 17, 5", lru.Name, lru.HitBlocks, lru.RefBlocks, lru.Evictions)
	}
	sameResults(t, plain, stream)
}

// Without the ideal figures a policy that is not CachedOnly is refused,
// naming the flag.
func TestNoIdealRefusesPolicies(t *testing.T) {
	es, err := prefixcache.Parse("lru,s3fifo")
	if err != nil {
		t.Fatal(err)
	}
	o := opts
	o.NoIdeal = true
	_, _, err = blocksim.Replay(blocktrace.StreamSource(randomStream(1, 10, 3)), blocksim.SweepRuns(es, []int64{64}), o)
	var oe *option.Error
	if !errors.As(err, &oe) || !strings.Contains(err.Error(), "flag --no-ideal: policy s3fifo") {
		t.Fatalf("s3fifo without the ideal: %v", err)
	}
}

// Without the ideal figures the report's ideal object holds the counts and
// null for every figure, each policy's history_hit_ratio is null, and the
// ideal table shows no values.
func TestNoIdealReport(t *testing.T) {
	s := randomStream(2, 50, 4)
	o := opts
	o.NoIdeal = true
	es, _ := prefixcache.Parse("lru")
	res, ideal, err := blocksim.Replay(blocktrace.StreamSource(s), blocksim.SweepRuns(es, []int64{64}), o)
	if err != nil {
		t.Fatal(err)
	}
	d, tables, err := blocksim.Report(res, ideal, o, blocksim.Labels{Trace: "t"})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Ideal    map[string]any   `json:"ideal"`
		Policies []map[string]any `json:"policies"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	var refs int
	for _, r := range s.Requests {
		refs += len(r.Hashes)
	}
	for k, v := range doc.Ideal {
		switch k {
		case "requests":
			if v != float64(50) {
				t.Errorf("ideal requests %v, want 50", v)
			}
		case "ref_blocks":
			if v != float64(refs) {
				t.Errorf("ideal ref_blocks %v, want %d", v, refs)
			}
		default:
			if v != nil {
				t.Errorf("ideal %s = %v, want null", k, v)
			}
		}
	}
	if len(doc.Ideal) != 9 || doc.Policies[0]["history_hit_ratio"] != nil {
		t.Fatalf("ideal %v, policy %v", doc.Ideal, doc.Policies[0])
	}
	for _, c := range tables[0].Rows[0] {
		if c != "—" {
			t.Fatalf("ideal table row %v, want no values", tables[0].Rows[0])
		}
	}
}
