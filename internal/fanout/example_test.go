package fanout_test

import (
	"fmt"

	"github.com/tailbound/tailbound/internal/fanout"
)

// Two workers each sum the numbers 1..10, read once in batches of four.
func ExampleBroadcast() {
	next := 1
	sums := make([]int, 2)
	readErr, errs := fanout.Broadcast(2, func() *[]int { b := make([]int, 0, 4); return &b },
		func(b *[]int) (int, bool, error) {
			*b = (*b)[:0]
			for len(*b) < 4 && next <= 10 {
				*b = append(*b, next)
				next++
			}
			return len(*b), next > 10, nil
		},
		func(w int, b *[]int) error {
			for _, x := range *b {
				sums[w] += x
			}
			return nil
		})
	fmt.Println(sums, readErr, errs)
	// Output: [55 55] <nil> [<nil> <nil>]
}
