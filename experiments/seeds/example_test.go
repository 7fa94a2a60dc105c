package seeds_test

import (
	"fmt"

	"github.com/tailbound/tailbound/experiments/seeds"
)

// Three seeds' P90 (ms) summarized as one cell.
func ExampleCell() {
	fmt.Println(seeds.Cell([]string{"410.0", "430.0", "420.0"}))
	// Output: 420.0 ± 24.8
}
