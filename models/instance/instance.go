// Package instance holds the parameters that define a caching instance
// besides its trace: the cache capacity, the block size, the TEL threshold ξ
// and the caching mode. Every layer (the replay engines, the policies, the
// hindsight solvers, the checks) takes them as one Params value, so they are
// named, documented and validated in one place.
package instance

import (
	"fmt"
	"math"
)

// Params are an instance's cache parameters. Every length is in tokens.
type Params struct {
	// Capacity is the cache size C, tokens: a whole number of blocks, ≥ 0.
	Capacity int64
	// BlockSize is the cache granularity B, tokens (≥ 1); cached amounts
	// are whole numbers of blocks.
	BlockSize int64
	// Xi is the TEL threshold ξ, tokens. It may be fractional, and zero or
	// negative (every uncached token then counts).
	Xi float64
	// Forced is forced caching: after its turn the served conversation
	// keeps its whole history (as many whole blocks as fit in Capacity).
	// Otherwise caching is optional.
	Forced bool
}

// Validate reports the first parameter that no instance can have: a block
// size below one token, a capacity that is negative or not a whole number
// of blocks, or a ξ that is not a finite number.
func (p Params) Validate() error {
	if p.BlockSize < 1 {
		return fmt.Errorf("block size %d tokens must be ≥ 1", p.BlockSize)
	}
	if p.Capacity < 0 || p.Capacity%p.BlockSize != 0 {
		return fmt.Errorf("capacity %d tokens must be ≥ 0 and a multiple of the block size %d", p.Capacity, p.BlockSize)
	}
	if math.IsNaN(p.Xi) || math.IsInf(p.Xi, 0) {
		return fmt.Errorf("threshold ξ %v tokens must be a finite number", p.Xi)
	}
	return nil
}

// Blocks returns the capacity in whole blocks, C/B.
func (p Params) Blocks() int64 { return p.Capacity / p.BlockSize }
