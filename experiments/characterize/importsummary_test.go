package characterize

import (
	"slices"
	"testing"

	"github.com/tailbound/tailbound/models/importer"
)

// A Mooncake import to blocks lists requests, links and conversations; a
// Bailian one adds its three counts; a canonical conversion its fallbacks.
func TestImportSummary(t *testing.T) {
	s := importer.Summary{Requests: 10, Linked: 4, Conversations: 6, Orphans: 1, Forks: 2, TurnMismatches: 3}
	_, tbl := ImportSummary("m.jsonl", "mooncake", s, nil)
	if want := []string{"m.jsonl", "10", "4", "6"}; !slices.Equal(tbl.Rows[0], want) {
		t.Errorf("mooncake %v, want %v", tbl.Rows[0], want)
	}
	doc, tbl := ImportSummary("b.jsonl", "bailian", s, &importer.Canonicalizer{Fallbacks: 5, FallbackFollowUps: 2, ExcessTokens: 7, PairShort: 1})
	if want := []string{"b.jsonl", "10", "4", "6", "1", "2", "3", "5", "2", "7", "1"}; !slices.Equal(tbl.Rows[0], want) {
		t.Errorf("bailian %v, want %v", tbl.Rows[0], want)
	}
	if len(tbl.Header) != len(tbl.Rows[0]) || doc["forks"] != int64(2) || doc["excess_tokens"] != int64(7) {
		t.Errorf("header %d cells for %d; doc %v", len(tbl.Header), len(tbl.Rows[0]), doc)
	}
}
