//go:build coin

package coin_test

import (
	"context"
	"fmt"
	"math"

	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/coin"
)

// Maximize 5x + 4y subject to 6x + 4y ≤ 24 and x + 2y ≤ 6 (x, y ≥ 0):
// CLP solves the LP, CBC the same problem with x and y integer.
func Example() {
	inf := math.Inf(1)
	p := &lp.Problem{
		NumRows: 2, NumCols: 2,
		Obj:   []float64{-5, -4}, // minimize −(5x + 4y)
		ColLo: []float64{0, 0}, ColUp: []float64{inf, inf},
		RowLo: []float64{-inf, -inf}, RowUp: []float64{24, 6},
		// Column x has 6 in row 0 and 1 in row 1; y has 4 and 2.
		ColStart: []int{0, 2, 4},
		RowIndex: []int{0, 1, 0, 1},
		Value:    []float64{6, 1, 4, 2},
		Integer:  []bool{true, true},
	}
	ctx := context.Background()
	relaxed, err := coin.CLP{}.Solve(ctx, p, lp.Options{Relax: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	integral, err := coin.CBC{}.Solve(ctx, p, lp.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("LP:  %v, 5x+4y = %.4g at (%.4g, %.4g)\n", relaxed.Status, -relaxed.Obj, relaxed.X[0], relaxed.X[1])
	fmt.Printf("MIP: %v, 5x+4y = %.4g at (%.4g, %.4g)\n", integral.Status, -integral.Obj, integral.X[0], integral.X[1])
	// Output:
	// LP:  optimal, 5x+4y = 21 at (3, 1.5)
	// MIP: optimal, 5x+4y = 20 at (4, 0)
}
