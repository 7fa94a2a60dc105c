package objective_test

import (
	"fmt"

	"github.com/tailbound/tailbound/models/objective"
)

// ExampleObjective_Rank: the nearest rank of a percentile from the decimal
// as typed, exactly: 33.3333333333333333 % of 300 values is
// ⌈99.9999999999999999⌉ = 100, where float64's nearest value would give
// 101.
func ExampleObjective_Rank() {
	for _, s := range []string{"p90", "p33.3333333333333333", "p33.333333333333336"} {
		o, err := objective.Parse(s)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(o, o.Rank(300))
	}
	// Output:
	// p90 270
	// p33.3333333333333333 100
	// p33.333333333333336 101
}
