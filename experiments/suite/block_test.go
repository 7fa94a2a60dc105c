package suite

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"reflect"
	"testing"

	"github.com/tailbound/tailbound/experiments/characterize"
	"github.com/tailbound/tailbound/internal/shareddata"
	"github.com/tailbound/tailbound/models/importer"
)

// TestBlockPoliciesIdeal runs the reduced block-policies suite on the
// Mooncake synthetic trace at its native blocks and checks its
// infinite-cache row against a count made here from the raw file: every
// hash id used before is a hit, so the ideal block hit ratio is
// (references − distinct ids)/references; and no policy beats it.
func TestBlockPoliciesIdeal(t *testing.T) {
	if testing.Short() {
		t.Skip("replays a Mooncake trace")
	}
	path := shareddata.Mooncake(t, "synthetic_trace.jsonl")
	f, err := Run(context.Background(), BlockPolicies(), Options{Small: true, Workers: 2,
		Params: map[string]string{"traces": "synthetic", "blocks": "native", "policies": "lru,fifo,s3fifo"}}, Shard{1, 1})
	if err != nil {
		t.Fatal(err)
	}
	r, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	seen := map[int64]bool{}
	var refs int
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var line struct {
			Hashes []int64 `json:"hash_ids"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		refs += len(line.Hashes)
		for _, h := range line.Hashes {
			seen[h] = true
		}
	}
	want := float64(refs-len(seen)) / float64(refs)
	var found bool
	for _, rec := range f.Records {
		if rec.Key == idealKey {
			found = true
			if got := rec.V("hit"); math.Abs(got-want) > 1e-12 {
				t.Errorf("ideal hit ratio %g, counted %g", got, want)
			}
			continue
		}
		if rec.V("hit") > want+1e-12 {
			t.Errorf("%s at %g tokens: hit ratio %g above the ideal %g", rec.Key, rec.V("capacity"), rec.V("hit"), want)
		}
	}
	if !found {
		t.Fatal("no ideal row")
	}
}

// TestBlockPoliciesCharacterizeMatchesDirect: the suite's characterize
// rows and figure points, after a round trip through a result file, equal
// characterize.RunSource run here directly on the same Mooncake trace
// (imported here, not through the suite).
func TestBlockPoliciesCharacterizeMatchesDirect(t *testing.T) {
	if testing.Short() {
		t.Skip("characterizes a Mooncake trace")
	}
	path := shareddata.Mooncake(t, "synthetic_trace.jsonl")
	f, err := Run(context.Background(), BlockPolicies(), Options{Small: true, Workers: 2,
		Params: map[string]string{"traces": "synthetic", "blocks": "native", "policies": "lru", "window-s": "120"}}, Shard{1, 1})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		t.Fatal(err)
	}
	if f, err = ReadFile(&buf, "result"); err != nil {
		t.Fatal(err)
	}
	src, c, err := importer.Open(path, "mooncake", importer.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rep, err := characterize.RunSource(src, path, characterize.Options{WindowS: 120})
	if err != nil {
		t.Fatal(err)
	}
	var charPoint = -1
	for i, p := range f.Grid {
		if p["analysis"] == "characterize" && p["trace"] == "synthetic" {
			charPoint = i
		}
	}
	if charPoint < 0 {
		t.Fatal("no characterize grid point")
	}
	var recs []Record
	got := map[string]Record{}
	var windows []Record
	for _, r := range f.Records {
		if r.Point != charPoint {
			continue
		}
		recs = append(recs, r)
		if r.Key == "characterize:window" {
			windows = append(windows, r)
		} else {
			got[r.Key] = r
		}
	}
	check := func(key, metric string, want float64) {
		t.Helper()
		r, ok := got[key]
		if !ok {
			t.Errorf("no record %s", key)
			return
		}
		if g := r.V(metric); g != want {
			t.Errorf("%s %s = %v, characterize gives %v", key, metric, g, want)
		}
	}
	s := "characterize"
	check(s, "requests", float64(rep.Requests))
	check(s, "ref_blocks", float64(rep.RefBlocks))
	check(s, "distinct_blocks", float64(rep.DistinctBlocks))
	check(s, "ideal_hit", rep.IdealHitRatio)
	check(s, "peak_live_blocks", float64(rep.Capacity.PeakLiveBlocks))
	check(s, "peak_live_tokens", float64(rep.Capacity.PeakLiveTokens))
	check(s, "mean_live_blocks", rep.Capacity.MeanLiveBlocks)
	check(s, "reused_p90", rep.Lifespan.ReusedSpan.P90)
	check(s, "life_p99", rep.Lifespan.All.P99)
	for _, cat := range append(rep.Categories, rep.Overall) {
		k := "characterize:reuse:" + cat.Name
		check(k, "uses", float64(cat.Uses))
		check(k, "reuses", float64(cat.Reuses))
		check(k, "reuse_fraction", cat.ReuseFraction)
		check(k, "p50", cat.ReuseTime.P50)
		check(k, "p99", cat.ReuseTime.P99)
		check(k, "mean", cat.ReuseTime.Mean)
	}
	if len(windows) != len(rep.Series) {
		t.Fatalf("%d window rows, characterize has %d windows", len(windows), len(rep.Series))
	}
	for i, w := range rep.Series {
		if windows[i].V("requests") != float64(w.Requests) || windows[i].V("hit_ratio") != w.HitRatio || windows[i].V("rate") != w.RatePerS {
			t.Errorf("window %d: row %v, characterize %+v", i, windows[i].Values, w)
		}
	}
	// The figures: the points the suite draws are characterize's own.
	if d, want := charFigureData(recs), rep.FigureData(); !reflect.DeepEqual(d, want) {
		t.Errorf("figure data differs from characterize's:\n%+v\n%+v", d, want)
	}
	// The ideal hit ratio agrees with the replay's infinite cache (a
	// third path: blocksim on the same trace at native hashes).
	for _, r := range f.Records {
		if r.Key == idealKey && f.Grid[r.Point]["trace"] == "synthetic" && math.Abs(r.V("hit")-rep.IdealHitRatio) > 1e-12 {
			t.Errorf("replay's ideal hit ratio %g, characterize's %g", r.V("hit"), rep.IdealHitRatio)
		}
	}
}
