package fanout

import (
	"errors"
	"slices"
	"testing"
)

// source returns a fill over the integers 0..n−1 in batches of size,
// failing with errRead after fail items when fail ≥ 0.
func source(n, size, fail int) func(b *[]int) (int, bool, error) {
	next := 0
	return func(b *[]int) (int, bool, error) {
		*b = (*b)[:0]
		for len(*b) < size {
			if next == fail {
				return 0, false, errRead
			}
			if next == n {
				return len(*b), true, nil
			}
			*b = append(*b, next)
			next++
		}
		return len(*b), false, nil
	}
}

var errRead, errWork = errors.New("read"), errors.New("work")

// Every worker sees every item once, in order, whatever the batch size; a
// worker that fails sees no batch after its failure, the others go on; a
// read error is returned.
func TestBroadcast(t *testing.T) {
	cases := []struct {
		name                 string
		n, size, workers     int
		readFail, workerFail int // item index; −1 for none
	}{
		{"exact batches", 12, 4, 3, -1, -1},
		{"last batch partial", 10, 4, 2, -1, -1},
		{"one item", 1, 8, 2, -1, -1},
		{"empty", 0, 4, 2, -1, -1},
		{"no workers", 10, 3, 0, -1, -1},
		{"worker 0 fails at item 5", 20, 4, 3, -1, 5},
		{"read fails at item 6", 20, 4, 2, 6, -1},
	}
	for _, c := range cases {
		seen := make([][]int, c.workers)
		readErr, errs := Broadcast(c.workers, func() *[]int { b := make([]int, 0, c.size); return &b }, source(c.n, c.size, c.readFail),
			func(w int, b *[]int) error {
				for _, x := range *b {
					if w == 0 && x == c.workerFail {
						return errWork
					}
					seen[w] = append(seen[w], x)
				}
				return nil
			})
		if (c.readFail >= 0) != errors.Is(readErr, errRead) {
			t.Errorf("%s: read error %v", c.name, readErr)
		}
		if len(errs) != c.workers {
			t.Fatalf("%s: %d worker errors, want %d", c.name, len(errs), c.workers)
		}
		for w := range c.workers {
			want := c.n
			if c.readFail >= 0 {
				want = c.readFail / c.size * c.size // whole batches before the failing one
			}
			if w == 0 && c.workerFail >= 0 {
				want = c.workerFail
				if !errors.Is(errs[0], errWork) {
					t.Errorf("%s: worker 0 error %v, want %v", c.name, errs[0], errWork)
				}
			} else if errs[w] != nil {
				t.Errorf("%s: worker %d error %v", c.name, w, errs[w])
			}
			if exp := seq(want); !slices.Equal(seen[w], exp) {
				t.Errorf("%s: worker %d saw %v, want %v", c.name, w, seen[w], exp)
			}
		}
	}
}

func seq(n int) []int {
	var s []int
	for i := range n {
		s = append(s, i)
	}
	return s
}
