package windows_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/experiments/windows"
)

// TestBlockShardsRefuseLookahead: a shard (or a Slurm array) with a
// bounded replay lookahead is a one-line error naming the flag, not a
// shard file: a shard's run replays with the run's whole lookahead, and
// its files would not say otherwise.
func TestBlockShardsRefuseLookahead(t *testing.T) {
	c := blockCommand()
	c.Trace, c.Capacities = filepath.Join("..", "..", "examples", "block", "lookahead-example.jsonl"), "1024"
	c.Windows, c.ReplayLookaheadRequests = 2, 1
	for _, tc := range []struct {
		shard string
		slurm int
	}{{"1/2", 0}, {"", 2}} {
		x := c
		x.Shard, x.Slurm, x.Out = tc.shard, tc.slurm, filepath.Join(t.TempDir(), "s.json")
		err := windows.RunBlock(context.Background(), nil, x)
		if err == nil || !strings.Contains(err.Error(), "replay-lookahead-requests") || strings.Contains(err.Error(), "\n") {
			t.Errorf("shard %q, slurm %d: %v, want a one-line error naming --replay-lookahead-requests", tc.shard, tc.slurm, err)
		}
	}
}
