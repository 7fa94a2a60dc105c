package lp

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tailbound/tailbound/lp/mcf"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/trace"
)

// TestWindowsInstances: SolveFlow's default method with small windows
// (many seams) equals cost scaling over the whole line on random hindsight
// instances with many interleaved conversations, optional and forced
// caching, B = 1..8.
func TestWindowsInstances(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	ctx := context.Background()
	for i := 0; i < 300; i++ {
		tr := &trace.Trace{}
		convs := 2 + r.IntN(10)
		turns := 20 + r.IntN(200)
		for k := 0; k < turns; k++ {
			tr.Append(float64(k), fmt.Sprint("c", r.IntN(convs)), 1+r.Int64N(40), r.Int64N(40))
		}
		block := int64(1 + r.IntN(8))
		p := instance.Params{Capacity: block * r.Int64N(30), BlockSize: block, Xi: []float64{0, 3, 10.5, 25}[r.IntN(4)], Forced: i%3 == 2}
		in, err := NewInstance(tr, p)
		if err != nil {
			t.Fatal(err)
		}
		plan := mcf.Plan{Size: 2 + r.IntN(30), Overlap: r.IntN(10)}
		w, err := solveFlow(ctx, in, Options{}, mcf.Windows, plan)
		if err != nil || w.Status != Optimal || w.ScheduleErr != nil {
			t.Fatalf("case %d %+v %+v: %v %v %v", i, p, plan, err, w.Status, w.ScheduleErr)
		}
		cs, err := SolveFlowWith(ctx, in, Options{}, mcf.CostScaling)
		if err != nil || cs.Status != Optimal {
			t.Fatalf("case %d %+v: cost scaling %v", i, p, err)
		}
		if math.Abs(w.TEL-cs.TEL) > 1e-6*math.Max(1, cs.TEL) {
			t.Fatalf("case %d %+v %+v: windows TEL %v, cost scaling %v", i, p, plan, w.TEL, cs.TEL)
		}
	}
}
