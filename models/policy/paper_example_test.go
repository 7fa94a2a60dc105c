package policy_test

import (
	"testing"

	"github.com/tailbound/tailbound/experiments/replay"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/policy"
	"github.com/tailbound/tailbound/models/trace"
)

// TestPaperFigure1 is the tail-latency paper's first figure, worked by hand:
// capacity 100, conversation A then B each send 100 tokens; the third turn
// (100 tokens) comes from A or B. LRU keeps B whole and drops A, so the worst
// third turn has 200 uncached tokens; T-LRU with Q̂ = 100 and ξ = 150 trims
// both to their budget H + Q̂ − ξ = 50, so the worst case is 150.
func TestPaperFigure1(t *testing.T) {
	cases := []struct {
		name  string
		new   policy.Factory
		worst int64
	}{
		{"lru", policy.NewLRU, 200},
		{"tlru", policy.NewTLRU, 150},
	}
	for _, c := range cases {
		var worst int64
		for _, third := range []string{"A", "B"} {
			tr := &trace.Trace{}
			tr.Append(0, "A", 100, 0)
			tr.Append(1, "B", 100, 0)
			tr.Append(2, third, 100, 0)
			p, err := c.new(policy.Config{Capacity: 100, BlockSize: 1, Xi: 150, QHat: 100})
			if err != nil {
				t.Fatal(err)
			}
			res, err := replay.Replay(replay.SliceSource(tr.Turns), []replay.Named{{Name: c.name, Policy: p}},
				replay.Options{Capacity: 100, BlockSize: 1, Xi: 150, Model: latency.Default(), SLOMs: 200})
			if err != nil {
				t.Fatal(err)
			}
			worst = max(worst, res[0].Summary.MaxUncached)
		}
		if worst != c.worst {
			t.Errorf("%s: worst-case uncached tokens at the third turn = %d, want %d", c.name, worst, c.worst)
		}
	}
}
