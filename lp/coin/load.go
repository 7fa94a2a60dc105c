//go:build coin

package coin

/*
#cgo pkg-config: clp cbc
#include <Coin_C_defines.h>
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"
	"unsafe"

	"github.com/tailbound/tailbound/lp"
)

// matrix is a Problem's constraint matrix in the C types the COIN-OR C
// interfaces take. Value, bounds and objective need no conversion and are
// passed straight from the Problem's float64 slices.
type matrix struct {
	start []C.CoinBigIndex // NumCols+1 column starts
	index []C.int          // row index of each non-zero
}

// maxCInt is the largest value of a C int (32 bits on every platform the
// Debian packages are built for).
const maxCInt = math.MaxInt32

// maxBigIndex returns the largest CoinBigIndex: int in Debian's build, but
// the header lets it be long or long long.
func maxBigIndex() int64 {
	if unsafe.Sizeof(C.CoinBigIndex(0)) == 4 {
		return math.MaxInt32
	}
	return math.MaxInt64
}

// check validates p for the C libraries: the shape checks of
// lp.Problem.Validate plus finite, non-NaN data where the libraries cannot
// take anything else.
func check(p *lp.Problem) error {
	if p == nil {
		return errors.New("coin: nil problem")
	}
	if err := p.Validate(); err != nil {
		return fmt.Errorf("coin: %w", err)
	}
	for j, c := range p.Obj {
		if math.IsNaN(c) || math.IsInf(c, 0) {
			return fmt.Errorf("coin: objective coefficient of column %d is %v", j, c)
		}
	}
	for k, v := range p.Value {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("coin: matrix entry %d is %v", k, v)
		}
	}
	for i := range p.RowLo {
		if math.IsNaN(p.RowLo[i]) || math.IsNaN(p.RowUp[i]) {
			return fmt.Errorf("coin: row %d bounds [%v, %v]", i, p.RowLo[i], p.RowUp[i])
		}
	}
	return nil
}

// tooLarge reports, as a non-empty reason, whether p's sizes exceed what
// the C interfaces can index.
func tooLarge(p *lp.Problem) string {
	switch {
	case p.NumRows > maxCInt:
		return fmt.Sprintf("%d rows exceed the C int range", p.NumRows)
	case p.NumCols > maxCInt:
		return fmt.Sprintf("%d columns exceed the C int range", p.NumCols)
	case int64(len(p.Value)) > maxBigIndex():
		return fmt.Sprintf("%d non-zeros exceed the CoinBigIndex range", len(p.Value))
	}
	return ""
}

// newMatrix converts p's column starts and row indices once into C types.
// The caller has checked the ranges with tooLarge.
func newMatrix(p *lp.Problem) matrix {
	m := matrix{
		start: make([]C.CoinBigIndex, len(p.ColStart)),
		index: make([]C.int, len(p.RowIndex)),
	}
	for j, s := range p.ColStart {
		m.start[j] = C.CoinBigIndex(s)
	}
	for k, r := range p.RowIndex {
		m.index[k] = C.int(r)
	}
	return m
}

// startPtr and indexPtr return the C arrays, or nil when empty.
func (m *matrix) startPtr() *C.CoinBigIndex {
	if len(m.start) == 0 {
		return nil
	}
	return &m.start[0]
}

func (m *matrix) indexPtr() *C.int {
	if len(m.index) == 0 {
		return nil
	}
	return &m.index[0]
}

// dbl returns a pointer to s's first element as a C double array (Go's
// float64 and C's double are both IEEE 754 binary64), or nil when s is
// empty. The libraries copy the data during the call; it holds no Go
// pointers, so passing it satisfies the cgo pointer rules.
func dbl(s []float64) *C.double {
	if len(s) == 0 {
		return nil
	}
	return (*C.double)(unsafe.Pointer(&s[0]))
}

// goFloats copies n doubles starting at ptr into a new Go slice; nil when
// ptr is nil.
func goFloats(ptr *C.double, n int) []float64 {
	if ptr == nil {
		return nil
	}
	out := make([]float64, n)
	copy(out, unsafe.Slice((*float64)(unsafe.Pointer(ptr)), n))
	return out
}

// limit returns the time limit of a solve in seconds, the sooner of
// opt.TimeLimit and ctx's deadline; 0 means none. It fails when ctx is
// already done or the limit is negative.
func limit(ctx context.Context, opt lp.Options) (float64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if opt.TimeLimit < 0 {
		return 0, fmt.Errorf("coin: negative time limit %v", opt.TimeLimit)
	}
	d := opt.TimeLimit
	if dl, ok := ctx.Deadline(); ok {
		left := time.Until(dl)
		if left <= 0 {
			return 0, context.DeadlineExceeded
		}
		if d == 0 || left < d {
			d = left
		}
	}
	return d.Seconds(), nil
}

// noColumns solves a problem without columns exactly: every row activity
// is 0, so it is optimal with objective 0 when every row admits 0, and
// infeasible otherwise. The libraries refuse empty problems.
func noColumns(p *lp.Problem) lp.Solution {
	for i := range p.RowLo {
		if p.RowLo[i] > 0 || p.RowUp[i] < 0 {
			return lp.Solution{Status: lp.Infeasible, X: []float64{},
				Detail: fmt.Sprintf("no columns and row %d excludes 0", i)}
		}
	}
	return lp.Solution{Status: lp.Optimal, X: []float64{}, Detail: "no columns"}
}
