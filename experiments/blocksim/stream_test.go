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

// streamed replays s under every policy that runs without the ideal
// (the CachedOnly LRU, FIFO, LFU, Aging-LFU, GDSF, and the Remembering
// S3-FIFO) at capacities (tokens) with and without NoIdeal and returns
// both; S3-FIFO's ghost hits under NoIdeal are added to *ghostHits.
func streamed(t fataler, s *blocktrace.Stream, capacities []int64, o blocksim.Options, ghostHits *int) (plain, stream []blocksim.Result, ideal blocksim.Ideal) {
	es, err := prefixcache.Parse("lru,fifo,lfu,aging-lfu,gdsf,s3fifo")
	if err != nil {
		t.Fatal(err)
	}
	runs := blocksim.SweepRuns(es, capacities)
	for i := range runs {
		if runs[i].Name == "s3fifo" {
			inner := runs[i].New
			runs[i].New = func(cfg prefixcache.Config) (prefixcache.Policy, error) {
				p, err := inner(cfg)
				return &ghostCounter{Policy: p, hits: ghostHits}, err
			}
		}
	}
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

// ghostCounter is S3-FIFO counting its ghost hits under NoIdeal: the ids
// its ghost releases outside Victim (where the ghost only overflows) are
// those of evicted blocks admitted again from the ghost.
type ghostCounter struct {
	prefixcache.Policy
	hits     *int
	inVictim bool
}

func (g *ghostCounter) Victim() prefixcache.BlockID {
	g.inVictim = true
	defer func() { g.inVictim = false }()
	return g.Policy.Victim()
}

func (g *ghostCounter) Remember(hold, release func(prefixcache.BlockID)) {
	g.Policy.(prefixcache.Remembering).Remember(hold, func(id prefixcache.BlockID) {
		if !g.inVictim {
			*g.hits++
		}
		release(id)
	})
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
// TTFT. S3-FIFO's ghost must have been hit in them: it is what the
// forgetter keeps evicted blocks for.
func TestNoIdealMatchesPlainRandom(t *testing.T) {
	ghostHits := 0
	defer func() {
		if ghostHits == 0 {
			t.Fatal("no ghost hit in any stream: S3-FIFO's ghost was not exercised")
		}
		t.Logf("%d ghost hits", ghostHits)
	}()
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 400).Draw(t, "requests")
		s := randomStream(rapid.Uint64().Draw(t, "seed"), n, rapid.IntRange(1, 40).Draw(t, "alphabet"))
		caps := []int64{16 * int64(rapid.IntRange(0, 12).Draw(t, "blocks")), 16 * int64(rapid.IntRange(0, 3000).Draw(t, "large"))}
		o := opts
		o.Queue = rapid.Bool().Draw(t, "queue")
		plain, stream, _ := streamed(t, s, caps, o, &ghostHits)
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
// policies' runs (S3-FIFO's included) are the same in both modes too. The chains cut short and the block admitted
// again after its eviction are where a forgetter reuses ids.
func TestNoIdealHandWorked(t *testing.T) {
	chains := [][]int64{{1, 2}, {1, 3}, {1, 2}, {4}, {1, 3}, {5, 6, 7, 8}, {5, 6, 7, 8}}
	s := &blocktrace.Stream{BlockTokens: 16}
	for i, c := range chains {
		s.Requests = append(s.Requests, blocktrace.Request{Index: i, Time: float64(i), Input: 16 * int64(len(c)), Hashes: c, Conv: -1})
	}
	plain, stream, ideal := streamed(t, s, []int64{48}, opts, new(int))
	if ideal.Requests != 7 || ideal.RefBlocks != 17 {
		t.Fatalf("ideal counts %d requests, %d references; want 7 and 17", ideal.Requests, ideal.RefBlocks)
	}
	lru := stream[0]
	if lru.Name != "lru" || lru.HitBlocks != 7 || lru.RefBlocks != 17 || lru.Evictions != 5 {
		t.Fatalf("%s: %d hits of %d references, %d evictions; want lru 7, 17, 5", lru.Name, lru.HitBlocks, lru.RefBlocks, lru.Evictions)
	}
	sameResults(t, plain, stream)
}

// S3-FIFO at 3 blocks (small FIFO 0 blocks, so admitted blocks wait in
// small and are evicted from it while main is under its 3; ghost of 2),
// single-block requests, worked by hand (S small, M main, G ghost, oldest
// first):
//
//	1 2 3  miss  S [1 2 3]
//	4      miss  evict 1 into G [1]; S [2 3 4]
//	1      miss  evict 2, G [1 2]; 1 is in G: M [1], G [2]; S [3 4]
//	2      miss  evict 3, G [2 3]; 2 is in G: M [1 2], G [3]; S [4]
//	5      miss  evict 4, G [3 4]; S [5]
//	6      miss  evict 5, G [4 5] (3 pushed out); S [6]
//	1 2    hit
//
// 2 hits of 10 references, 5 evictions and 2 ghost hits, in both modes.
// Blocks 1 and 2 come back after their ids would have been forgotten and
// reused (the cache then holds 3 blocks): without the ghost's holds they
// would enter small as new blocks, and FIFO-like, miss at the end.
func TestNoIdealS3FIFOGhostHits(t *testing.T) {
	chains := [][]int64{{1}, {2}, {3}, {4}, {1}, {2}, {5}, {6}, {1}, {2}}
	s := &blocktrace.Stream{BlockTokens: 16}
	for i, c := range chains {
		s.Requests = append(s.Requests, blocktrace.Request{Index: i, Time: float64(i), Input: 16, Hashes: c, Conv: -1})
	}
	ghostHits := 0
	plain, stream, _ := streamed(t, s, []int64{48}, opts, &ghostHits)
	s3 := stream[len(stream)-1]
	if s3.Name != "s3fifo" || s3.HitBlocks != 2 || s3.RefBlocks != 10 || s3.Evictions != 5 || ghostHits != 2 {
		t.Fatalf("%s: %d hits of %d references, %d evictions, %d ghost hits; want s3fifo 2, 10, 5, 2", s3.Name, s3.HitBlocks, s3.RefBlocks, s3.Evictions, ghostHits)
	}
	sameResults(t, plain, stream)
}

// Without the ideal figures a policy that is neither CachedOnly nor
// Remembering is refused, naming the flag.
func TestNoIdealRefusesPolicies(t *testing.T) {
	es, err := prefixcache.Parse("lru,tlru")
	if err != nil {
		t.Fatal(err)
	}
	o := opts
	o.NoIdeal = true
	_, _, err = blocksim.Replay(blocktrace.StreamSource(randomStream(1, 10, 3)), blocksim.SweepRuns(es, []int64{64}), o)
	var oe *option.Error
	if !errors.As(err, &oe) || !strings.Contains(err.Error(), "flag --no-ideal: policy tlru") ||
		!strings.Contains(err.Error(), "only lru, fifo, lfu, aging-lfu, gdsf and s3fifo run") {
		t.Fatalf("tlru without the ideal: %v", err)
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
