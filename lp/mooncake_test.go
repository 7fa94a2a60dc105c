package lp_test

import (
	"context"
	"testing"

	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/mcf"
	"github.com/tailbound/tailbound/models/importer/importertest"
	"github.com/tailbound/tailbound/models/instance"
)

// TestWindowsMooncake: on the real Mooncake conversation trace (12,031
// turns; its pairs span more steps than the birth–death traces the window
// plan was chosen on), the default windows method and plain cost scaling
// over the whole line find the same TEL optimum at capacities 2^14 to 2^23
// tokens, B = 16, ξ = 1900 tokens (the default 200 ms threshold), optional
// and forced caching. Both TELs are recomputed from the schedules; the
// tolerance is near's.
func TestWindowsMooncake(t *testing.T) {
	if testing.Short() {
		t.Skip("seconds of cost scaling on a real trace")
	}
	tr := importertest.MooncakeConversations(t)
	ctx := context.Background()
	for _, c := range []int64{1 << 14, 1 << 16, 1 << 18, 1 << 20, 1 << 23} {
		for _, forced := range []bool{false, true} {
			in, err := lp.NewInstance(tr, instance.Params{Capacity: c, BlockSize: 16, Xi: 1900, Forced: forced})
			if err != nil {
				t.Fatal(err)
			}
			w, err := lp.SolveFlowWith(ctx, in, lp.Options{}, mcf.Windows)
			if err != nil || w.Status != lp.Optimal || w.ScheduleErr != nil {
				t.Fatalf("C=%d forced=%v: windows %v %v %v", c, forced, err, w.Status, w.ScheduleErr)
			}
			cs, err := lp.SolveFlowWith(ctx, in, lp.Options{}, mcf.CostScaling)
			if err != nil || cs.Status != lp.Optimal || cs.ScheduleErr != nil {
				t.Fatalf("C=%d forced=%v: cost scaling %v %v %v", c, forced, err, cs.Status, cs.ScheduleErr)
			}
			if !near(w.TEL, cs.TEL) {
				t.Errorf("C=%d forced=%v: windows TEL %v tokens, cost scaling %v", c, forced, w.TEL, cs.TEL)
			}
		}
	}
}
