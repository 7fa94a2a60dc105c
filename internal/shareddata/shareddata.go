// Package shareddata finds the workplace's shared data directory (a
// folder shared/data next to or above the repository, holding the real
// traces with their licenses) for tests that read those traces in place;
// the traces are never copied into the repository.
package shareddata

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir walks up from the working directory (a package's directory under
// go test) to a folder holding shared/data and returns shared/data, or ""
// when there is none.
func Dir() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		p := filepath.Join(dir, "shared", "data")
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			return p
		}
		up := filepath.Dir(dir)
		if up == dir {
			return ""
		}
		dir = up
	}
}

// Mooncake returns the path of the Mooncake trace file name (for example
// "conversation_trace.jsonl"), or skips tb when shared/data or the file is
// absent.
func Mooncake(tb testing.TB, name string) string {
	tb.Helper()
	d := Dir()
	if d == "" {
		tb.Skip("shared/data not found above the working directory")
	}
	p := filepath.Join(d, "mooncake", name)
	if _, err := os.Stat(p); err != nil {
		tb.Skipf("Mooncake trace absent: %v", err)
	}
	return p
}
