package characterize

import (
	"reflect"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/importer"
)

// RunSource measures the same as Run over the same requests; an empty
// trace is an error naming it.
func TestRunSource(t *testing.T) {
	s := &blocktrace.Stream{BlockTokens: 16, Requests: []blocktrace.Request{
		{Index: 0, Time: 0, Input: 32, Hashes: []int64{1, 2}, Conv: -1},
		{Index: 1, Time: 1, Input: 48, Hashes: []int64{1, 2, 3}, Conv: -1},
		{Index: 2, Time: 2, Input: 16, Hashes: []int64{1}, Conv: -1}}}
	opt := Options{MaxTurn: 5, Hubs: 3, SharedShare: 0.05}
	got, err := RunSource(importer.StreamSourceOf(s), "s", opt)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Run(blocktrace.StreamSource(s), 16, opt)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("RunSource %+v, Run %+v", got, want)
	}
	if _, err := RunSource(importer.StreamSourceOf(&blocktrace.Stream{BlockTokens: 16}), "empty.jsonl", opt); err == nil || !strings.Contains(err.Error(), "empty.jsonl: no requests") {
		t.Errorf("empty trace: %v", err)
	}
}
