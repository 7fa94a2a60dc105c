package gap

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/exhaustive"
	"github.com/tailbound/tailbound/lp/solvers"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/trace"
)

// fuzzTrace reads a small trace from bytes: three bytes a turn (its
// conversation among three, prompt 1..40 tokens, response 0..19 tokens), at
// most maxTurns turns.
func fuzzTrace(data []byte, maxTurns int) *trace.Trace {
	tr := &trace.Trace{}
	for k := 0; k+2 < len(data) && k/3 < maxTurns; k += 3 {
		tr.Append(float64(k/3), fmt.Sprintf("c%d", data[k]%3), int64(data[k+1]%40)+1, int64(data[k+2]%20))
	}
	return tr
}

// FuzzSolve draws small traces and instances from bytes and requires the
// hindsight solvers to agree with each other and with the model: the flow
// optimum is no more than Tail-Optimized Belady's TEL, equals the
// exhaustive search's optimum (lp/exhaustive, written from the model
// alone) on traces of up to 6 turns, and is at least the LP bound when
// gonum solves the relaxation. Run it longer with:
// go test -run '^$' -fuzz FuzzSolve ./experiments/gap
func FuzzSolve(f *testing.F) {
	f.Add([]byte{0, 99, 0, 1, 99, 0, 0, 99, 0}, uint8(1), uint8(2), int16(50), false)
	f.Add([]byte{0, 1, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0}, uint8(2), uint8(1), int16(2), true)
	f.Add([]byte{2, 39, 19, 1, 5, 7, 2, 3, 0, 0, 8, 1, 1, 2, 3, 2, 9, 9}, uint8(4), uint8(3), int16(-3), false)
	f.Fuzz(func(t *testing.T, data []byte, blockByte, capByte uint8, xi int16, forced bool) {
		tr := fuzzTrace(data, 8)
		if len(tr.Turns) == 0 {
			return
		}
		block := int64(blockByte%4) + 1
		p := instance.Params{Capacity: block * int64(capByte%5), BlockSize: block, Xi: float64(xi % 64), Forced: forced}
		in, err := lp.NewInstance(tr, p)
		if err != nil {
			t.Fatalf("a valid instance refused: %v", err)
		}
		ctx := context.Background()
		fl, err := solvers.Solve(ctx, in, lp.Compact, solvers.Flow, false, lp.Options{})
		if err != nil || fl.Status != lp.Optimal {
			t.Fatalf("flow: %v %v", err, fl)
		}
		if fl.ScheduleErr != nil || !agree(fl.ScheduleTEL, fl.TEL) {
			t.Fatalf("flow's schedule: %v, its TEL %v, the optimum %v", fl.ScheduleErr, fl.ScheduleTEL, fl.TEL)
		}
		bel, err := BeladyTEL(tr, in)
		if err != nil {
			t.Fatal(err)
		}
		if fl.TEL > bel+agreeTol*math.Max(1, bel) {
			t.Fatalf("flow optimum %v above to-belady's TEL %v", fl.TEL, bel)
		}
		if len(tr.Turns) <= 6 {
			if ex := exhaustive.Optimum(tr, p); !agree(ex, fl.TEL) {
				t.Fatalf("flow optimum %v ≠ exhaustive optimum %v", fl.TEL, ex)
			}
		}
		rl, err := solvers.Solve(ctx, in, lp.Compact, "gonum", true, lp.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if rl.Status == lp.Optimal && rl.TEL > fl.TEL+agreeTol*math.Max(1, fl.TEL) {
			t.Fatalf("LP bound %v above the flow optimum %v", rl.TEL, fl.TEL)
		}
	})
}
