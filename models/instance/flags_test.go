package instance

import "testing"

func TestCheckFlags(t *testing.T) {
	for _, c := range []struct {
		capacity, block int64
		want            string // "" for valid
	}{
		{0, 1, ""}, {32, 16, ""}, {0, 16, ""},
		{32, 0, "flag --block-size: must be ≥ 1 token, got 0"},
		{-16, 16, "flag --capacity: -16 tokens must be ≥ 0 and a multiple of --block-size 16"},
		{100, 16, "flag --capacity: 100 tokens must be ≥ 0 and a multiple of --block-size 16"},
	} {
		err := CheckFlags("capacity", c.capacity, c.block)
		if got := ""; err != nil {
			got = err.Error()
			if got != c.want {
				t.Errorf("CheckFlags(%d, %d) = %q, want %q", c.capacity, c.block, got, c.want)
			}
		} else if c.want != "" {
			t.Errorf("CheckFlags(%d, %d) accepted, want %q", c.capacity, c.block, c.want)
		}
	}
	if err := CheckFlags("capacities", 8, 3); err == nil || err.Error() != "flag --capacities: 8 tokens must be ≥ 0 and a multiple of --block-size 3" {
		t.Errorf("capacities: %v", err)
	}
}
