package blocksim_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/tailbound/tailbound/experiments/blocksim"
	"github.com/tailbound/tailbound/models/importer"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// TestLibCacheSimFormats replays the object sequence A B A C B A, written
// in both libCacheSim formats, through LRU and FIFO of 2 blocks. By hand:
// LRU hits the second A only (C evicts B, B evicts A, A evicts C): 1 hit;
// FIFO hits the second A and the second B (C evicts A, A evicts B): 2.
func TestLibCacheSimFormats(t *testing.T) {
	dir := t.TempDir()
	ids := []uint64{1, 2, 1, 3, 2, 1}
	var bin, csv bytes.Buffer
	csv.WriteString("t,id,size\n")
	for i, id := range ids {
		importer.WriteOracleGeneral(&bin, uint32(i), id, 100, -1)
		csv.WriteString(string(rune('0'+i)) + "," + string(rune('0'+id)) + ",100\n")
	}
	files := map[string]string{"oracle-general": filepath.Join(dir, "t.oracleGeneral"), "libcachesim-csv": filepath.Join(dir, "t.csv")}
	os.WriteFile(files["oracle-general"], bin.Bytes(), 0o644)
	os.WriteFile(files["libcachesim-csv"], csv.Bytes(), 0o644)
	params := map[string]string{"libcachesim-csv": "time-col=1,obj-id-col=2,obj-size-col=3,delimiter=,,obj-id-is-num=1"}
	for format, path := range files {
		for _, c := range []struct {
			policy string
			hits   int64
		}{{"lru", 1}, {"fifo", 2}} {
			src, block, f, err := blocksim.OpenWith(path, format, 0, params[format], 0)
			if err != nil {
				t.Fatalf("%s: %v", format, err)
			}
			es, _ := prefixcache.Parse(c.policy)
			res, ideal, err := blocksim.Replay(src, []blocksim.Run{{Name: c.policy, New: es[0].New, Capacity: 2 * block}},
				blocksim.Options{Params: instance.Params{BlockSize: block}, Model: latency.Default(), SLOMs: latency.DefaultSLOMs})
			f.Close()
			if err != nil {
				t.Fatalf("%s %s: %v", format, c.policy, err)
			}
			if block != 1 || res[0].RefBlocks != 6 || res[0].HitBlocks != c.hits || ideal.Distinct != 3 {
				t.Errorf("%s %s: block %d, %d of %d blocks hit, %d distinct; want 1, %d of 6, 3",
					format, c.policy, block, res[0].HitBlocks, res[0].RefBlocks, ideal.Distinct, c.hits)
			}
		}
	}
	if _, _, _, err := blocksim.OpenWith(files["oracle-general"], "mooncake", 0, "obj-id-col=1", 0); err == nil {
		t.Error("csv options with the mooncake format: no error")
	}
}
