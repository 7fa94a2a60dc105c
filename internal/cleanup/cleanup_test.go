package cleanup

import (
	"context"
	"slices"
	"testing"
)

// TestSet checks registration through a context, removal, the order of
// Run (newest first) and that an action added after Run runs at once.
func TestSet(t *testing.T) {
	tests := []struct {
		name    string
		add     int   // actions added
		removed []int // indices removed before Run
		want    []int // order Run runs them
	}{
		{"none", 0, nil, nil},
		{"newest first", 3, nil, []int{2, 1, 0}},
		{"removed ones do not run", 4, []int{1, 3}, []int{2, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := New()
			ctx := With(context.Background(), s)
			var ran []int
			removes := make([]func(), tc.add)
			for i := range tc.add {
				removes[i] = Add(ctx, func() { ran = append(ran, i) })
			}
			for _, i := range tc.removed {
				removes[i]()
			}
			if got := s.Len(); got != tc.add-len(tc.removed) {
				t.Errorf("Len = %d, want %d", got, tc.add-len(tc.removed))
			}
			s.Run()
			if !slices.Equal(ran, tc.want) {
				t.Errorf("ran %v, want %v", ran, tc.want)
			}
			late := false
			Add(ctx, func() { late = true })
			if !late {
				t.Error("an action added after Run did not run at once")
			}
		})
	}
	// Without a Set in the context nothing is registered and nothing fails.
	Add(context.Background(), func() { t.Error("ran without a Set") })()
}
