package instance_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/tailbound/tailbound/models/instance"
)

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		p  instance.Params
		ok bool
	}{
		{instance.Params{Capacity: 0, BlockSize: 1}, true},
		{instance.Params{Capacity: 64, BlockSize: 16, Xi: -3.5, Forced: true}, true},
		{instance.Params{Capacity: 64, BlockSize: 0}, false},
		{instance.Params{Capacity: 63, BlockSize: 16}, false},
		{instance.Params{Capacity: -16, BlockSize: 16}, false},
		{instance.Params{Capacity: 16, BlockSize: 16, Xi: math.NaN()}, false},
		{instance.Params{Capacity: 16, BlockSize: 16, Xi: math.Inf(1)}, false},
	} {
		if err := tc.p.Validate(); (err == nil) != tc.ok {
			t.Errorf("%+v: Validate() = %v, want ok=%v", tc.p, err, tc.ok)
		}
	}
}

func ExampleParams_Validate() {
	p := instance.Params{Capacity: 100, BlockSize: 16, Xi: 150}
	fmt.Println(p.Validate())
	// Output: capacity 100 tokens must be ≥ 0 and a multiple of the block size 16
}
