package solvers

import (
	"context"
	"fmt"
	"testing"

	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/models/instance"
)

// BenchmarkBackends times every solver of this build on the compact
// formulation of a 1000-turn birth–death trace (B = 16, C = 131072, ξ =
// 300 tokens), each program it solves itself (LP, IP); gonum, limited to
// small problems, gets 40 turns.
func BenchmarkBackends(b *testing.B) {
	for _, be := range entries() {
		turns := 1000
		if be.Name == "gonum" {
			turns = 40
		}
		in, err := lp.NewInstance(birthDeath(b, turns), instance.Params{Capacity: measureCapacity, BlockSize: measureBlock, Xi: measureXi})
		if err != nil {
			b.Fatal(err)
		}
		for _, relax := range []bool{true, false} {
			if be.Solves&programs(relax) == 0 || relax && be.RelaxBy != "" {
				continue
			}
			b.Run(fmt.Sprintf("%s/turns=%d/relax=%v", be.Name, turns, relax), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					r, err := Solve(context.Background(), in, lp.Compact, be.Name, relax, lp.Options{})
					if err != nil || r.Status != lp.Optimal {
						b.Fatal(err, r.Status, r.Detail)
					}
				}
			})
		}
	}
}
