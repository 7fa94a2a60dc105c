package blocktail

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tailbound/tailbound/lp/prefixtail"
	"github.com/tailbound/tailbound/models/latency"
)

// TestMooncakeScale (TAILBOUND_MOONCAKE_TAIL=1; minutes) bounds TEL and SLO
// on both Mooncake traces at the block-policies suite's capacities and
// logs the intervals and times.
func TestMooncakeScale(t *testing.T) {
	if os.Getenv("TAILBOUND_MOONCAKE_TAIL") == "" {
		t.Skip("set TAILBOUND_MOONCAKE_TAIL=1: minutes on the Mooncake traces")
	}
	m := latency.Default()
	xi := m.XiTokens(latency.DefaultXiMs)
	for _, name := range []string{"conversation", "synthetic"} {
		tr, err := Load(filepath.Join("/work/shared/data/mooncake", name+"_trace.jsonl"), "mooncake", 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, kind := range []prefixtail.Kind{prefixtail.TEL, prefixtail.SLO} {
			for _, c := range []int64{524288, 2097152, 8388608} {
				start := time.Now()
				pt, err := BoundOne(context.Background(), tr, c, Config{Objective: prefixtail.Objective{Kind: kind, XiTokens: xi, SLOTokens: 1900},
					LPSolver: os.Getenv("LPS"), IPSolver: "none", Progress: os.Stderr})
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("%s %s C=%d: [%v, %v] proven %v rel %.4f rule %s heur %v lp %+v cols %d prec %d  %.1fs", name, kind, c, pt.Lower, pt.Upper, pt.Proven, pt.RelWidth, pt.UpperRule, pt.Heuristics, pt.LP, pt.Columns, pt.PrecedenceRows, time.Since(start).Seconds())
			}
		}
	}
}
