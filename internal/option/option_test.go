package option

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
)

func TestErrorText(t *testing.T) {
	reason := errors.New("bad")
	for _, tc := range []struct {
		err  *Error
		want string
	}{
		{&Error{Err: reason}, "bad"},
		{&Error{Flags: []string{"capacity"}, Err: reason}, "flag --capacity: bad"},
		{&Error{Flags: []string{"xi-ms", "xi-tokens"}, Err: reason}, "flags --xi-ms and --xi-tokens: bad"},
		{&Error{Flags: []string{"a", "b", "c"}, Err: reason}, "flags --a, --b and --c: bad"},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("%v: got %q, want %q", tc.err.Flags, got, tc.want)
		}
		if !errors.Is(tc.err, reason) {
			t.Errorf("%v: does not unwrap to its reason", tc.err.Flags)
		}
	}
}

func TestWrapKeepsInnermostFlag(t *testing.T) {
	if Wrap("x", nil) != nil {
		t.Fatal("Wrap(nil) is not nil")
	}
	inner := Errorf("capacity", "want ≥ 0")
	if got := Wrap("capacities", fmt.Errorf("item 2: %w", inner)).Error(); got != "item 2: flag --capacity: want ≥ 0" {
		t.Errorf("got %q", got)
	}
	if got := Wrap("trace", errors.New("no turns")).Error(); got != "flag --trace: no turns" {
		t.Errorf("got %q", got)
	}
}

func TestLists(t *testing.T) {
	ints, err := Ints("capacities", " 1, ,2,-3 ")
	if err != nil || !reflect.DeepEqual(ints, []int64{1, 2, -3}) {
		t.Errorf("Ints = %v, %v", ints, err)
	}
	for _, bad := range []string{"", " , ", "1,x", "1.5"} {
		if _, err := Ints("capacities", bad); err == nil {
			t.Errorf("Ints(%q) accepted", bad)
		}
	}
	fl, err := Floats("xis", "1.5,2e3")
	if err != nil || !reflect.DeepEqual(fl, []float64{1.5, 2000}) {
		t.Errorf("Floats = %v, %v", fl, err)
	}
	for _, bad := range []string{"NaN", "1,Inf", "-inf"} {
		if _, err := Floats("xis", bad); err == nil {
			t.Errorf("Floats(%q) accepted", bad)
		}
	}
	if _, err := Floats("xis", "1,x"); err == nil || err.Error() != `flag --xis: "x" is not a finite number` {
		t.Errorf("Floats error = %v", err)
	}
}

func TestKV(t *testing.T) {
	m, err := KV("policy-opt", []string{"a=1", "b=", "a=2", "c=x=y"})
	if err != nil || !reflect.DeepEqual(m, map[string]string{"a": "2", "b": "", "c": "x=y"}) {
		t.Errorf("KV = %v, %v", m, err)
	}
	for _, bad := range []string{"a", "=1"} {
		if _, err := KV("policy-opt", []string{bad}); err == nil {
			t.Errorf("KV(%q) accepted", bad)
		}
	}
}

func ExampleErrorf() {
	fmt.Println(Errorf("capacity", "%d tokens is not a multiple of --block-size %d", 100, 16))
	fmt.Println(Both("capacity", "capacities", "give one"))
	// Output:
	// flag --capacity: 100 tokens is not a multiple of --block-size 16
	// flags --capacity and --capacities: give one
}
