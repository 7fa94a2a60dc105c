package sim

import (
	"testing"

	"github.com/tailbound/tailbound/experiments/policies"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/replay"
)

// Without a path the embedded workload of the seed is replayed: every turn
// of birthdeath.Trace(Default(), seed) is served once.
func TestFileOrWorkloadEmbedded(t *testing.T) {
	tr, err := birthdeath.Trace(birthdeath.Default(), 3)
	if err != nil {
		t.Fatal(err)
	}
	entries, _ := policies.Parse("lru")
	s := Settings{Options: replay.Options{Params: instance.Params{Capacity: 1 << 16, BlockSize: 16, Xi: 300}, Model: latency.Default(), SLOMs: 200}}
	res, err := FileOrWorkload("", 3, entries, s)
	if err != nil {
		t.Fatal(err)
	}
	if got := res[0].Summary.Turns; got != int64(len(tr.Turns)) {
		t.Errorf("%d turns replayed, want the workload's %d", got, len(tr.Turns))
	}
	if _, err := FileOrWorkload("/nonexistent/trace.jsonl", 3, entries, s); err == nil {
		t.Error("a missing file: no error")
	}
}
