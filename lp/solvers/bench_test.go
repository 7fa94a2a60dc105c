package solvers

import (
	"context"
	"fmt"
	"testing"

	"github.com/tailbound/tailbound/lp"
)

// BenchmarkBackends times every backend of this build on the compact
// formulation of a 1000-turn birth–death trace (B = 16, C = 131072, ξ =
// 300 tokens), LP and IP; gonum, limited to small problems, gets 40 turns.
func BenchmarkBackends(b *testing.B) {
	for _, be := range Backends() {
		turns := 1000
		if be.Name() == "gonum" {
			turns = 40
		}
		in, err := lp.NewInstance(birthDeath(b, turns), measureCapacity, measureBlock, measureXi, false)
		if err != nil {
			b.Fatal(err)
		}
		for _, relax := range []bool{true, false} {
			if (be.Name() == "clp" && !relax) || (be.Name() == "cbc" && relax) {
				continue
			}
			b.Run(fmt.Sprintf("%s/turns=%d/relax=%v", be.Name(), turns, relax), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					r, err := Solve(context.Background(), in, lp.Compact, be.Name(), relax, lp.Options{})
					if err != nil || r.Status != lp.Optimal {
						b.Fatal(err, r.Status, r.Detail)
					}
				}
			})
		}
	}
}
