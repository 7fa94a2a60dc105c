package stackcurve_test

import (
	"fmt"

	"github.com/tailbound/tailbound/models/stackcurve"
)

// A request of 10,000 input tokens in 512-token blocks whose chain sits
// at stack positions 3, 4, 5 and 9: at a capacity of 5 blocks it hits 2
// (positions 3 and 4), at 6 blocks 3, at 10 blocks 4; the uncached counts
// are 10,000 − 512·hit.
func ExampleLate() {
	late := stackcurve.NewLate(512)
	late.Add(10000, 3, 3, 9, 1) // runs (3, 3) and (9, 1)
	for _, c := range []int64{5, 6, 10} {
		for counts := range late.Uncached(c) {
			fmt.Println(c, "blocks:", counts, "tokens uncached")
		}
	}
	// Output:
	// 5 blocks: [8976] tokens uncached
	// 6 blocks: [8464] tokens uncached
	// 10 blocks: [7952] tokens uncached
}
