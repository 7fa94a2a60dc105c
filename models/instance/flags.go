package instance

import "github.com/tailbound/tailbound/internal/option"

// CheckFlags reports a capacity or --block-size (both tokens) that no
// instance can have, by Validate, naming the flag: a block size below
// one token, or a capacity that is negative or not a whole number of
// blocks, named capFlag ("capacity", or "capacities" for one of a list).
func CheckFlags(capFlag string, capacity, block int64) error {
	switch err := (Params{Capacity: capacity, BlockSize: block}).Validate(); {
	case err == nil:
		return nil
	case block < 1:
		return option.Errorf("block-size", "must be ≥ 1 token, got %d", block)
	}
	// Validate's only other refusal at ξ = 0: the capacity.
	return option.Errorf(capFlag, "%d tokens must be ≥ 0 and a multiple of --block-size %d", capacity, block)
}
