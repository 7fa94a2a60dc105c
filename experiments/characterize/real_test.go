package characterize

import (
	"bufio"
	"encoding/json"
	"fmt"
	"github.com/tailbound/tailbound/internal/shareddata"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tailbound/tailbound/models/importer"
)

// independent computes, from a raw parse of a Mooncake file, the block
// references, the distinct ids (Mooncake ids are prefix-chained, so ids
// stand for blocks) and the peak live count by a sweep over sorted
// first/last uses.
func independent(t *testing.T, path string) (refs, distinct, peak int64) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	first, last := map[int64]int{}, map[int64]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	n := 0
	for sc.Scan() {
		var rec struct {
			Hashes []int64 `json:"hash_ids"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		for _, h := range rec.Hashes {
			if _, ok := first[h]; !ok {
				first[h] = n
			}
			last[h] = n
		}
		refs += int64(len(rec.Hashes))
		n++
	}
	var starts, ends []int
	for h, a := range first {
		if b := last[h]; b > a {
			starts, ends = append(starts, a), append(ends, b)
		}
	}
	slices.Sort(starts)
	slices.Sort(ends)
	// live after request i = #starts ≤ i − #ends ≤ i.
	si, ei := 0, 0
	for i := range n {
		for si < len(starts) && starts[si] <= i {
			si++
		}
		for ei < len(ends) && ends[ei] <= i {
			ei++
		}
		peak = max(peak, int64(si-ei))
	}
	return refs, int64(len(first)), peak
}

// TestMooncakeIdeal checks the ideal block hit ratio of both published
// Mooncake traces against shared/data/README.md (refs and distinct blocks
// exactly, the ratio to its three printed decimals) and against an
// independent computation, and the capacity against an independent sweep.
func TestMooncakeIdeal(t *testing.T) {
	d := shareddata.Dir()
	if d == "" {
		t.Skip("shared/data not found above the working directory")
	}
	cases := []struct {
		file           string
		refs, distinct int64
		ratio          string
	}{
		{"conversation_trace.jsonl", 288500, 182790, "0.366"},
		{"synthetic_trace.jsonl", 121877, 43924, "0.640"},
	}
	for _, c := range cases {
		path := filepath.Join(d, "mooncake", c.file)
		if _, err := os.Stat(path); err != nil {
			t.Skipf("Mooncake trace absent: %v", err)
		}
		src, closer, err := importer.Open(path, "mooncake", importer.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Run(src.Next, src.BlockTokens(), Options{})
		closer.Close()
		if err != nil {
			t.Fatal(err)
		}
		refs, distinct, peak := independent(t, path)
		if refs != c.refs || distinct != c.distinct || fmt.Sprintf("%.3f", 1-float64(distinct)/float64(refs)) != c.ratio {
			t.Errorf("%s: independent count %d refs, %d distinct disagrees with the README", c.file, refs, distinct)
		}
		if rep.RefBlocks != refs || rep.DistinctBlocks != distinct || *rep.IdealHitRatio != 1-float64(distinct)/float64(refs) {
			t.Errorf("%s: %d refs, %d distinct, ratio %v; want %d, %d, %s", c.file, rep.RefBlocks, rep.DistinctBlocks, *rep.IdealHitRatio, refs, distinct, c.ratio)
		}
		if rep.Capacity.PeakLiveBlocks != peak || rep.Capacity.PeakLiveTokens != 512*peak {
			t.Errorf("%s: peak live %d blocks, independent sweep %d", c.file, rep.Capacity.PeakLiveBlocks, peak)
		}
		t.Logf("%s: ideal %.4f, peak live %d blocks, shared prefix %d blocks", c.file, *rep.IdealHitRatio, peak, rep.SharedPrefixBlocks)
	}
}
