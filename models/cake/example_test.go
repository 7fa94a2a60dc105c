package cake_test

import (
	"fmt"

	"github.com/tailbound/tailbound/models/cake"
)

// Four chunks that cost 1, 2, 3, 4 s to compute and 3 s each to load.
func ExampleBidirectional() {
	c := cake.Affine(4, 1, 1, 3)
	for _, s := range []cake.Schedule{cake.ComputeOnly(c), cake.LoadOnly(c), cake.StaticSplit(c), cake.Bidirectional(c)} {
		fmt.Printf("%-14s %4.1f s  computed %d loaded %d\n", s.Name, s.TTFT, s.Computed, s.Loaded)
	}
	// Output:
	// compute-only   10.0 s  computed 4 loaded 0
	// load-only      12.0 s  computed 0 loaded 4
	// static-split    6.0 s  computed 2 loaded 2
	// bidirectional   6.0 s  computed 3 loaded 2
}
