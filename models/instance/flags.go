package instance

import "github.com/tailbound/tailbound/internal/option"

// CheckFlags reports a capacity or --block-size (both tokens) that no
// instance can have, as Validate does, naming the flag: a block size below
// one token, or a capacity that is negative or not a whole number of
// blocks, named capFlag ("capacity", or "capacities" for one of a list).
func CheckFlags(capFlag string, capacity, block int64) error {
	if block < 1 {
		return option.Errorf("block-size", "must be ≥ 1 token, got %d", block)
	}
	if capacity < 0 || capacity%block != 0 {
		return option.Errorf(capFlag, "%d tokens must be ≥ 0 and a multiple of --block-size %d", capacity, block)
	}
	return nil
}
