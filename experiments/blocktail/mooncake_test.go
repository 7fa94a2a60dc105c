package blocktail

import (
	"context"
	"os"
	"testing"

	"github.com/tailbound/tailbound/internal/shareddata"
	"github.com/tailbound/tailbound/lp/prefixtail"
	"github.com/tailbound/tailbound/models/latency"
)

// TestMooncakeBounds (TAILBOUND_MOONCAKE_TAIL=1; about half an hour with
// -tags coin, CLP solving the LP relaxations) bounds TEL and SLO on both
// Mooncake traces at the block-policies suite's capacities and checks what
// docs/block-tail-bounds.md reports: lower ≤ upper, the width within 1.1 %
// of the upper bound, and proven optimal at 8,388,608 tokens.
func TestMooncakeBounds(t *testing.T) {
	if os.Getenv("TAILBOUND_MOONCAKE_TAIL") == "" {
		t.Skip("set TAILBOUND_MOONCAKE_TAIL=1: LP solves of minutes on the Mooncake traces")
	}
	m := latency.Default()
	xi := m.XiTokens(latency.DefaultXiMs)
	for _, name := range []string{"conversation", "synthetic"} {
		tr, err := Load(shareddata.Mooncake(t, name+"_trace.jsonl"), "mooncake", 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, kind := range []prefixtail.Kind{prefixtail.TEL, prefixtail.SLO} {
			for _, c := range []int64{524288, 2097152, 8388608} {
				pt, err := BoundOne(context.Background(), tr, c, Config{Objective: prefixtail.Objective{Kind: kind, XiTokens: xi, SLOTokens: 1900},
					LPSolver: "auto", IPSolver: "none"})
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("%s %s C=%d: [%v, %v] proven %v, width %.3f %% (%s)", name, kind, c, pt.Lower, pt.Upper, pt.Proven, 100*pt.RelWidth, pt.UpperRule)
				if pt.Lower > pt.Upper || pt.RelWidth > 0.011 || c == 8388608 && !pt.Proven {
					t.Errorf("%s %s C=%d: interval [%v, %v], width %v, proven %v", name, kind, c, pt.Lower, pt.Upper, pt.RelWidth, pt.Proven)
				}
			}
		}
	}
}
