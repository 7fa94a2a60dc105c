package main

import (
	"errors"
	"io"
)

// simulateBlock replays a block-hash trace through the prefix-cache engine
// (simulate --level block).
func simulateBlock(o *simOptions, changed func(string) bool, stdout, stderr io.Writer) error {
	return errors.New("flag --level block: the block-level prefix-cache engine is not built yet")
}
