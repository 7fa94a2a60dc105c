package replay_test

import (
	"context"
	"errors"
	"testing"

	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/policy"
	"github.com/tailbound/tailbound/models/replay"
	"github.com/tailbound/tailbound/models/trace"
)

// TestWithContext: a source under a cancelled context (a signal) makes
// Replay return the context's error and no result, whether it was
// cancelled before the first turn, within the trace, or during the last
// batch (seen at the end of the trace); an uncancelled one replays as the
// plain source does (fig1 under LRU: TEL 50, worked by hand in
// TestHandWorked).
func TestWithContext(t *testing.T) {
	long := &trace.Trace{}
	for i := range 3000 {
		long.Append(float64(i), []string{"A", "B"}[i%2], 100, 0)
	}
	tests := []struct {
		name     string
		tr       *trace.Trace
		cancelAt int // turns read before cancelling; -1 never
		wantErr  bool
	}{
		{"never cancelled", fig1(), -1, false},
		{"cancelled before the first turn", fig1(), 0, true},
		{"cancelled within the trace", long, 1000, true},
		{"cancelled at the last turn", fig1(), 3, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			inner := replay.SliceSource(tc.tr.Turns)
			n := 0
			src := func() (trace.Turn, error) {
				if n == tc.cancelAt {
					cancel()
				}
				n++
				return inner()
			}
			cfg := policy.Config{Params: instance.Params{Capacity: 100, BlockSize: 1, Xi: 150}}
			lru, _ := policy.NewLRU(cfg)
			res, err := replay.Replay(replay.WithContext(ctx, src), []replay.Named{{Name: "lru", Policy: lru}},
				replay.Options{Params: cfg.Params, Model: latency.Default(), SLOMs: latency.DefaultSLOMs})
			if tc.wantErr {
				if !errors.Is(err, context.Canceled) || res != nil {
					t.Errorf("err %v, %d results; want context.Canceled and none", err, len(res))
				}
				return
			}
			if err != nil || len(res) != 1 || res[0].Summary.TELTokens != 50 {
				t.Errorf("err %v, results %+v; want TEL 50", err, res)
			}
		})
	}
}
