package suite

import (
	"bufio"
	"context"
	"encoding/json"
	"math"
	"os"
	"testing"

	"github.com/tailbound/tailbound/internal/shareddata"
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
