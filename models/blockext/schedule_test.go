package blockext_test

import (
	"strings"
	"testing"

	"github.com/tailbound/tailbound/models/blockext"
)

// TestReadHugeRequestNumber: a line naming request 10^12 is refused as a
// missing request 0, at once (it once grew a slice to that length).
func TestReadHugeRequestNumber(t *testing.T) {
	_, err := blockext.Read(strings.NewReader(`{"request":1000000000000,"evict":[]}`+"\n"), "s.jsonl")
	if err == nil || !strings.Contains(err.Error(), "request 0 has no line") {
		t.Errorf("error %v", err)
	}
}
