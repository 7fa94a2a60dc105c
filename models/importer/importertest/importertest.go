// Package importertest gives tests the real traces of the shared data as
// canonical turn-level traces, read in place.
package importertest

import (
	"bytes"
	"testing"

	"github.com/tailbound/tailbound/internal/shareddata"
	"github.com/tailbound/tailbound/models/importer"
	"github.com/tailbound/tailbound/models/trace"
)

// MooncakeConversations returns the canonical trace the importer derives
// from Mooncake's conversation trace (12,031 turns; conversations linked by
// shared prefixes), or skips tb when the shared data is absent.
func MooncakeConversations(tb testing.TB) *trace.Trace {
	tb.Helper()
	src, closer, err := importer.Open(shareddata.Mooncake(tb, "conversation_trace.jsonl"), "mooncake", importer.DefaultOptions())
	if err != nil {
		tb.Fatal(err)
	}
	defer closer.Close()
	var buf bytes.Buffer
	if _, err := importer.WriteCanonical(&buf, src); err != nil {
		tb.Fatal(err)
	}
	tr, err := trace.ReadAll(&buf, "mooncake canonical")
	if err != nil {
		tb.Fatal(err)
	}
	return tr
}
