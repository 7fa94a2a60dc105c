package blocksim

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/tailbound/tailbound/models/importer"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// A replay of an oracleGeneral file read in bulk (Options.Bulk) against
// the same replay read request by request: every policy at two capacities
// (LRU's pair one stack pass), every result and the ideal figures equal,
// on files of 0 to 20,000 records with size-0 records among them; and a
// time going back is the same error either way.
func TestReplayBulkEqualsSource(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 2047, 2048, 2049, 20_000} {
		for _, back := range []bool{false, true} {
			path := filepath.Join(dir, fmt.Sprintf("%d-%v.oracleGeneral", n, back))
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < n; i++ {
				tm := uint32(i / 7)
				if back && i == n*2/3 {
					tm = 0
				}
				size := uint32(1 + rng.IntN(3))
				if rng.IntN(10) == 0 && !(back && i == n*2/3) {
					size = 0
				}
				importer.WriteOracleGeneral(f, tm+1, rng.Uint64N(3000), size, -1)
			}
			f.Close()
			opt := Options{Params: instance.Params{BlockSize: 16, Xi: 40}, Model: latency.Default(), SLOMs: 13}
			var runs []Run
			for _, e := range prefixcache.All() {
				for _, c := range []int64{16 * 100, 16 * 1000} {
					runs = append(runs, Run{Name: e.Name, New: e.New, Capacity: c})
				}
			}
			replay := func(bulk bool) ([]Result, Ideal, error) {
				src, b, _, _, f, err := openWith(path, "oracle-general", 16, "", 0, false)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				o := opt
				if bulk {
					o.Bulk = b
				}
				return Replay(src, runs, o)
			}
			want, wantIdeal, wantErr := replay(false)
			got, gotIdeal, err := replay(true)
			if fmt.Sprint(err) != fmt.Sprint(wantErr) || (err == nil) == (back && n > 3) {
				t.Fatalf("%d records (time back %v): bulk error %v, request by request %v", n, back, err, wantErr)
			}
			// As text: a NaN (the history hit ratio of a trace that never
			// repeats a block) is equal to itself there.
			show := func(rs []Result, id Ideal) string {
				s := fmt.Sprintf("%+v", id)
				for _, r := range rs {
					m := r.Metrics
					r.Metrics = nil
					s += fmt.Sprintf("\n%+v %+v", r, *m)
				}
				return s
			}
			if show(got, gotIdeal) != show(want, wantIdeal) {
				t.Fatalf("%d records: bulk %+v %+v, request by request %+v %+v", n, gotIdeal, got, wantIdeal, want)
			}
		}
	}
}
