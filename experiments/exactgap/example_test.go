package exactgap_test

import (
	"fmt"

	"github.com/tailbound/tailbound/experiments/exactgap"
	"github.com/tailbound/tailbound/mdp/exact"
)

// A policy 0.5 tokens above an optimum of 2 tokens is 25% off it.
func ExampleReport() {
	in := exact.Default(2, exact.Paper)
	_, t := exactgap.Report(in, 0, []exact.Row{{Name: "optimum", Value: 2}, {Name: "lru", Value: 2.5, Gap: 0.5}})
	fmt.Println(t.Rows[1][0], t.Rows[1][3])
	// Output: lru 25.0000
}
