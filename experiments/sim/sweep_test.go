package sim

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tailbound/tailbound/experiments/policies"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/replay"
	"github.com/tailbound/tailbound/models/trace"
)

// TestSweepMixesCurveAndReplays: a sweep of fifo, lru and tlru (lru by the
// one-pass curve, the others per capacity) gives, at every capacity and in
// the order asked, the results of a plain replay of all three at that
// capacity; SweepFile, streaming the file for lru alone, gives the same lru
// figures.
func TestSweepMixesCurveAndReplays(t *testing.T) {
	tr, err := birthdeath.Trace(birthdeath.Default(), 2)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "w.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := trace.WriteTrace(f, tr); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	entries, err := policies.Parse("fifo,lru,tlru")
	if err != nil {
		t.Fatal(err)
	}
	s := Settings{Options: replay.Options{Params: instance.Params{BlockSize: 16, Xi: 300}, Model: latency.Default(), SLOMs: 200}}
	caps := []int64{1 << 20, 1 << 14, 1 << 17}
	sw, err := CapacitySweep(tr, entries, s, caps, 2)
	if err != nil {
		t.Fatal(err)
	}
	lru, _ := policies.Parse("lru")
	file, err := SweepFile(path, lru, s, caps, 2)
	if err != nil {
		t.Fatal(err)
	}
	show := func(r replay.Result) string {
		return fmt.Sprintf("%s %+v %d %d", r.Name, r.Summary, r.Evictions, r.EvictedTokens)
	}
	for i, c := range caps {
		sc := s
		sc.Capacity = c
		want, err := Trace(tr, entries, sc)
		if err != nil {
			t.Fatal(err)
		}
		for j := range want {
			if got, w := show(sw.Results[i][j]), show(want[j]); got != w {
				t.Errorf("capacity %d, policy %d: sweep %s, replay %s", c, j, got, w)
			}
		}
		if got, w := show(file.Results[i][0]), show(want[1]); got != w {
			t.Errorf("capacity %d: SweepFile %s, replay %s", c, got, w)
		}
	}
}

// TestSweepFileErrors: a malformed line met while streaming the curve is a
// one-line error naming the file, line and field, and no sweep; so is a
// missing file.
func TestSweepFileErrors(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.jsonl")
	data := "{\"t\": 0, \"conv\": \"a\", \"prompt\": 10, \"response\": 1}\n\n{\"t\": 1, \"conv\": \"a\", \"prompt\": -1, \"response\": 1}\n"
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	lru, _ := policies.Parse("lru")
	s := Settings{Options: replay.Options{Params: instance.Params{BlockSize: 16, Xi: 10}, Model: latency.Default(), SLOMs: 200}}
	sw, err := SweepFile(path, lru, s, []int64{16, 32}, 2)
	if want := path + ":3: field \"prompt\": must be ≥ 1 token, got -1"; err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
	if sw.Results != nil {
		t.Errorf("a partial sweep came back with the error: %+v", sw)
	}
	if _, err := SweepFile(filepath.Join(t.TempDir(), "missing.jsonl"), lru, s, []int64{16}, 1); err == nil {
		t.Error("a missing file: no error")
	}
}
