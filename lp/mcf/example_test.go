package mcf_test

import (
	"context"
	"fmt"

	"github.com/tailbound/tailbound/lp/mcf"
)

// Two units travel from node 0 to node 2 along the line 0 → 1 → 2 (cost 0)
// or by a shortcut 0 → 2 of capacity 1 and cost −5 per unit: the optimum
// sends one unit each way, cost −5, by every method.
func Example() {
	g := mcf.NewNetwork(3)
	g.AddSupply(0, 2)
	g.AddSupply(2, -2)
	g.AddArc(0, 1, 2, 0)
	g.AddArc(1, 2, 2, 0)
	g.AddArc(0, 2, 1, -5)
	for _, m := range mcf.Methods() {
		flow, _, err := g.Solve(context.Background(), m)
		fmt.Println(m, flow, g.Cost(flow), err)
	}
	// Output:
	// windows [1 1 1] -5 <nil>
	// cost-scaling [1 1 1] -5 <nil>
	// network-simplex [1 1 1] -5 <nil>
	// sweep [1 1 1] -5 <nil>
}
