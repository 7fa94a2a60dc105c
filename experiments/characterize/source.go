package characterize

import (
	"fmt"
	"io"

	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/importer"
)

// RunSource is Run over an importer's source, named name in errors. It
// reads the first request before starting, since the blocks format states
// its block size on each line; a trace without requests is an error.
func RunSource(src importer.Source, name string, opt Options) (*Report, error) {
	first, err := src.Next()
	if err == io.EOF {
		return nil, fmt.Errorf("%s: no requests", name)
	}
	if err != nil {
		return nil, err
	}
	pending := true
	next := func() (blocktrace.Request, error) {
		if pending {
			pending = false
			return first, nil
		}
		return src.Next()
	}
	return Run(next, src.BlockTokens(), opt)
}
