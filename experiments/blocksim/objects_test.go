package blocksim

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/importer"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// oracleFile returns the oracleGeneral records of keys (sizes 1, time
// going up by one every 3 records).
func oracleFile(keys []uint64) []byte {
	var b bytes.Buffer
	for i, k := range keys {
		importer.WriteOracleGeneral(&b, uint32(i/3), k, 1, -1)
	}
	return b.Bytes()
}

// replayBoth replays the oracleGeneral records data through runs: read in
// bulk, which makes it the object replay when every policy serves
// objects, and request by request, the replay of chains; it returns both
// outcomes as text (a NaN equal to itself there), errors included. The
// bulk read is made twice, as Requests (Options.Bulk alone) and as
// Objects (Options.Objects): when the two differ, objects holds both.
func replayBoth(data []byte, runs []Run) (objects, chains string) {
	opt := Options{Params: instance.Params{BlockSize: 16, Xi: 20}, Model: latency.Default(), SLOMs: 12}
	show := func(rs []Result, id Ideal, err error) string {
		s := fmt.Sprintf("%v %+v", err, id)
		for _, r := range rs {
			m := r.Metrics
			r.Metrics = nil
			s += fmt.Sprintf("\n%+v %+v", r, *m)
		}
		return s
	}
	og := importer.NewOracleGeneral(bytes.NewReader(data), "t", 16)
	o := opt
	o.Bulk = og.Batch
	objects = show(Replay(og.Next, runs, o))
	og = importer.NewOracleGeneral(bytes.NewReader(data), "t", 16)
	o.Bulk, o.Objects = og.Batch, og.Objects
	if s := show(Replay(og.Next, runs, o)); s != objects {
		objects += "\nread as Objects:\n" + s
	}
	og = importer.NewOracleGeneral(bytes.NewReader(data), "t", 16)
	chains = show(Replay(og.Next, runs, opt))
	return objects, chains
}

// peakLiveBrute is the peak of live objects by its definition: after each
// request r, the objects used at or before r and again after it.
func peakLiveBrute(keys []uint64) int64 {
	first, last := map[uint64]int{}, map[uint64]int{}
	for i, k := range keys {
		if _, ok := first[k]; !ok {
			first[k] = i
		}
		last[k] = i
	}
	var peak int64
	for r := range keys {
		var live int64
		for k, f := range first {
			if f <= r && last[k] > r {
				live++
			}
		}
		peak = max(peak, live)
	}
	return peak
}

// The object replay (objects.go) against the replay of chains, on random
// object traces over keys dense and sparse, negative as int64 (ids of 2^63
// and more) and beside the paged range's end, of up to 5,000 requests
// (batches of 2,048), through one to three policies that serve objects at
// capacities of 0 to 60 blocks: every result and every ideal figure is
// the same; the distinct count and the peak of live objects are also
// those counted by brute force.
func TestObjectReplayEqualsChains(t *testing.T) {
	var entries []prefixcache.Entry
	for _, e := range prefixcache.All() {
		if p, _ := e.New(prefixcache.Config{Params: instance.Params{Capacity: 16, BlockSize: 16}}); prefixcache.ServesObjects(p) {
			entries = append(entries, e)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		special := []uint64{1<<20 - 1, 1 << 20, 1<<20 + 1, 1 << 40, 1 << 63, math.MaxUint64, 3 << 61}
		dense := rapid.IntRange(1, 200).Draw(t, "dense")
		n := rapid.IntRange(0, 5000).Draw(t, "requests")
		keys := make([]uint64, n)
		for i := range keys {
			if rapid.IntRange(0, 9).Draw(t, "special?") == 0 {
				keys[i] = rapid.SampledFrom(special).Draw(t, "special")
			} else {
				keys[i] = uint64(rapid.IntRange(0, dense-1).Draw(t, "key"))
			}
		}
		var runs []Run
		for k := rapid.IntRange(1, 3).Draw(t, "runs"); k > 0; k-- {
			e := rapid.SampledFrom(entries).Draw(t, "policy")
			runs = append(runs, Run{Name: e.Name, New: e.New, Capacity: 16 * int64(rapid.IntRange(0, 60).Draw(t, "capacity"))})
		}
		objects, chains := replayBoth(oracleFile(keys), runs)
		if objects != chains {
			t.Fatalf("objects:\n%s\nchains:\n%s", objects, chains)
		}
		if n <= 600 {
			distinct := map[uint64]bool{}
			for _, k := range keys {
				distinct[k] = true
			}
			want := fmt.Sprintf("Distinct:%d BlockHitRatio:", len(distinct))
			peak := fmt.Sprintf("PeakLiveBlocks:%d ", peakLiveBrute(keys))
			if !strings.Contains(objects, want) || !strings.Contains(objects, peak) {
				t.Fatalf("want %s and %s, got %s", want, peak, objects)
			}
		}
	})
}

// An object first seen beyond the paged range (in the table) and seen
// again once the range has grown past it (4 × the objects known) is the
// same object: the ideal figures and the results equal the chains'.
func TestObjectReplayRangeGrows(t *testing.T) {
	far := uint64(1<<20 + 5)
	keys := []uint64{far, far}
	for k := uint64(0); k < 300_000; k++ {
		keys = append(keys, k, far+k%3)
	}
	keys = append(keys, far, far+1)
	es, _ := prefixcache.Parse("lru,fifo")
	runs := []Run{{Name: "lru", New: es[0].New, Capacity: 16 * 1000}, {Name: "fifo", New: es[1].New, Capacity: 16 * 7}}
	objects, chains := replayBoth(oracleFile(keys), runs)
	if objects != chains {
		t.Fatalf("objects:\n%s\nchains:\n%s", objects, chains)
	}
	if !strings.Contains(objects, "Distinct:300003 ") {
		t.Fatalf("want 300,003 distinct objects (0 to 299,999 and 3 far ones): %s", objects)
	}
}

// The comparison of TestObjectReplayEqualsChains fails on a planted error:
// the object replay given a trace with one key changed.
func TestObjectReplayComparisonCatchesErrors(t *testing.T) {
	keys := []uint64{1, 2, 1, 3, 2, 1}
	es, _ := prefixcache.Parse("lru")
	runs := []Run{{Name: "lru", New: es[0].New, Capacity: 32}}
	objects, chains := replayBoth(oracleFile(keys), runs)
	if objects != chains {
		t.Fatalf("no planted error: objects\n%s\nchains\n%s", objects, chains)
	}
	keys[4] = 9
	if planted, _ := replayBoth(oracleFile(keys), runs); planted == chains {
		t.Error("a changed key: no difference found")
	}
}

// A bulk reader that yields a request of other than one block is an error
// of the object replay, naming the request.
func TestObjectReplayNotOneBlock(t *testing.T) {
	for _, hashes := range [][]int64{{}, {1, 2}} {
		reqs := []blocktrace.Request{{Hashes: []int64{4}, Input: 16, Conv: -1}, {Time: 1, Hashes: hashes, Input: 16, Conv: -1}}
		done := false
		bulk := func(dst []blocktrace.Request, n int) ([]blocktrace.Request, error) {
			if done {
				return dst, io.EOF
			}
			done = true
			return append(dst, reqs...), nil
		}
		es, _ := prefixcache.Parse("lru")
		_, _, err := Replay(blocktrace.StreamSource(&blocktrace.Stream{Requests: reqs}), []Run{{Name: "lru", New: es[0].New, Capacity: 32}},
			Options{Params: instance.Params{BlockSize: 16}, Model: latency.Default(), SLOMs: 12, Bulk: bulk})
		if want := fmt.Sprintf("request 1: %d blocks", len(hashes)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%d blocks: error %v, want one containing %q", len(hashes), err, want)
		}
	}
}

// A malformed oracleGeneral file is the same error through the object
// replay read as Objects, as Requests in bulk, and request by request: a
// time going back (in the first batch and in a later one) and a file cut
// inside a record.
func TestObjectReplayErrors(t *testing.T) {
	es, _ := prefixcache.Parse("lru,fifo")
	runs := []Run{{Name: "lru", New: es[0].New, Capacity: 160}, {Name: "fifo", New: es[1].New, Capacity: 320}}
	for _, c := range []struct {
		name string
		n    int // records
		back int // the record whose time goes back; -1: none
		cut  int // bytes cut from the end
	}{{"time back early", 100, 40, 0}, {"time back late", 5000, 4500, 0}, {"cut", 3000, -1, 5}} {
		var b bytes.Buffer
		for i := 0; i < c.n; i++ {
			tm := uint32(i/3 + 1)
			if i == c.back {
				tm = 0
			}
			importer.WriteOracleGeneral(&b, tm, uint64(i*7%500), 1, -1)
		}
		data := b.Bytes()[:b.Len()-c.cut]
		objects, chains := replayBoth(data, runs)
		if objects != chains || strings.HasPrefix(objects, "<nil>") {
			t.Errorf("%s: objects:\n%s\nchains:\n%s", c.name, objects, chains)
		}
	}
}

// The object replay's own check of a request read as an Object (the one an
// Interner makes, prefixcache.CheckNext) refuses what it refuses in a
// request read as a Request: a time going back, a negative input or
// output; and a first request at a negative time is no error either way.
// (An oracleGeneral reader refuses a time going back itself: these are
// readers of other object traces.)
func TestObjectReplayChecksObjects(t *testing.T) {
	es, _ := prefixcache.Parse("lru")
	runs := []Run{{Name: "lru", New: es[0].New, Capacity: 32}}
	opt := Options{Params: instance.Params{BlockSize: 16, Xi: 20}, Model: latency.Default(), SLOMs: 12}
	for _, c := range []struct {
		name    string
		bad     blocktrace.Object // request 3000's
		wantErr string
	}{
		{"time back", blocktrace.Object{Time: 10, Key: 1, Input: 16}, "request 3000: time 10 s is earlier than the previous request's 2999 s"},
		{"negative input", blocktrace.Object{Time: 3000, Key: 1, Input: -1}, "request 3000: negative length (input -1, output 0 tokens)"},
		{"negative output", blocktrace.Object{Time: 3000, Key: 1, Input: 16, Output: -2}, "request 3000: negative length (input 16, output -2 tokens)"},
		{"first at a negative time", blocktrace.Object{Time: 3000, Key: 1, Input: 16}, ""},
	} {
		objs := make([]blocktrace.Object, 4000)
		for i := range objs {
			objs[i] = blocktrace.Object{Time: float64(i), Key: int64(i % 70), Input: 16}
		}
		objs[3000] = c.bad
		if c.wantErr == "" {
			objs[0].Time = -5
		}
		reqs := make([]blocktrace.Request, len(objs))
		for i, o := range objs {
			reqs[i] = blocktrace.Request{Index: i, Time: o.Time, Input: o.Input, Output: o.Output, Hashes: []int64{o.Key}, Conv: -1}
		}
		asObjects, asRequests := opt, opt
		i, j := 0, 0
		asObjects.Bulk = func([]blocktrace.Request, int) ([]blocktrace.Request, error) { panic("Bulk read beside Objects") }
		asObjects.Objects = func(dst []blocktrace.Object, n int) ([]blocktrace.Object, error) {
			k := min(n, len(objs)-i)
			dst, i = append(dst, objs[i:i+k]...), i+k
			if i == len(objs) {
				return dst, io.EOF
			}
			return dst, nil
		}
		asRequests.Bulk = func(dst []blocktrace.Request, n int) ([]blocktrace.Request, error) {
			k := min(n, len(reqs)-j)
			dst, j = append(dst, reqs[j:j+k]...), j+k
			if j == len(reqs) {
				return dst, io.EOF
			}
			return dst, nil
		}
		none := func() (blocktrace.Request, error) { return blocktrace.Request{}, io.EOF }
		_, _, err1 := Replay(none, runs, asObjects)
		_, _, err2 := Replay(none, runs, asRequests)
		if fmt.Sprint(err1) != fmt.Sprint(err2) || (err1 == nil) != (c.wantErr == "") || (err1 != nil && err1.Error() != c.wantErr) {
			t.Errorf("%s: as Objects %v, as Requests %v, want %q", c.name, err1, err2, c.wantErr)
		}
	}
}
