package importer

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/tailbound/tailbound/internal/shareddata"
	"github.com/tailbound/tailbound/models/blocktrace"
)

// readBoth reads the Mooncake trace data with and without linking,
// request by request, to the end or the first error; it returns both
// streams' requests, their errors and summaries.
func readBoth(data []byte, k int) (linked, plain []blocktrace.Request, errL, errP error, sumL, sumP Summary) {
	read := func(noLink bool) ([]blocktrace.Request, error, Summary) {
		opt := DefaultOptions()
		opt.MinSharedBlocks, opt.NoLinking = k, noLink
		m := NewMooncake(bytes.NewReader(data), "in.jsonl", opt)
		var out []blocktrace.Request
		for {
			r, err := m.Next()
			if err == io.EOF {
				return out, nil, m.Summary()
			}
			if err != nil {
				return out, err, m.Summary()
			}
			r.Hashes = slices.Clone(r.Hashes)
			out = append(out, r)
		}
	}
	linked, errL, sumL = read(false)
	plain, errP, sumP = read(true)
	return
}

// sameButConv fails unless plain is linked with every Conv −1, the same
// error, and a summary of the requests only.
func sameButConv(t interface{ Fatalf(string, ...any) }, label string, linked, plain []blocktrace.Request, errL, errP error, sumL, sumP Summary) {
	if fmt.Sprint(errL) != fmt.Sprint(errP) {
		t.Fatalf("%s: error %v without linking, %v with", label, errP, errL)
	}
	if len(linked) != len(plain) {
		t.Fatalf("%s: %d requests without linking, %d with", label, len(plain), len(linked))
	}
	for i := range linked {
		want := linked[i]
		want.Conv = -1
		if got := plain[i]; got.Index != want.Index || got.Time != want.Time || got.Input != want.Input ||
			got.Output != want.Output || got.Category != want.Category || got.Conv != -1 || !slices.Equal(got.Hashes, want.Hashes) {
			t.Fatalf("%s request %d: %+v without linking, want %+v", label, i, got, want)
		}
	}
	if want := (Summary{Requests: sumL.Requests}); sumP != want {
		t.Fatalf("%s: summary %+v without linking, want %+v", label, sumP, want)
	}
}

// On random Mooncake lines (chains that extend, repeat and cut earlier
// ones; now and then a malformed line), the reader without linking returns
// what the linking reader returns, but for Conv, which is −1, and the
// same error.
func TestMooncakeNoLinkingRandom(t *testing.T) {
	var links, errs int64
	defer func() {
		if links == 0 || errs == 0 {
			t.Errorf("%d linked requests, %d malformed traces in all draws: want both exercised", links, errs)
		}
	}()
	rapid.Check(t, func(rt *rapid.T) {
		var b strings.Builder
		var prev [][]int64
		ms := int64(0)
		for i, n := 0, rapid.IntRange(0, 60).Draw(rt, "requests"); i < n; i++ {
			var h []int64
			if len(prev) > 0 && rapid.Bool().Draw(rt, "extend") {
				p := prev[rapid.IntRange(0, len(prev)-1).Draw(rt, "of")]
				h = append(h, p[:rapid.IntRange(0, len(p)).Draw(rt, "cut")]...)
			}
			for j := rapid.IntRange(0, 3).Draw(rt, "new blocks"); j > 0; j-- {
				h = append(h, int64(rapid.IntRange(0, 6).Draw(rt, "hash")))
			}
			in := int64(len(h)) * MooncakeBlockTokens
			if len(h) > 0 {
				in -= int64(rapid.IntRange(0, MooncakeBlockTokens-1).Draw(rt, "partial"))
			}
			if rapid.IntRange(0, 30).Draw(rt, "bad") == 0 {
				in += MooncakeBlockTokens // one block too many for the chain
			}
			ms += int64(rapid.IntRange(0, 5).Draw(rt, "gap"))
			fmt.Fprintf(&b, `{"timestamp": %d, "input_length": %d, "output_length": 7, "hash_ids": %s}`+"\n", ms, in, strings.ReplaceAll(fmt.Sprint(h), " ", ", "))
			prev = append(prev, h)
		}
		k := rapid.IntRange(0, 2).Draw(rt, "k")
		linked, plain, errL, errP, sumL, sumP := readBoth([]byte(b.String()), k)
		links += sumL.Linked
		if errL != nil {
			errs++
		}
		sameButConv(rt, "random", linked, plain, errL, errP, sumL, sumP)
	})
}

// Both published Mooncake traces read the same without linking, but for
// Conv.
func TestMooncakeNoLinkingRealTraces(t *testing.T) {
	for _, file := range []string{"conversation_trace.jsonl", "synthetic_trace.jsonl"} {
		data, err := os.ReadFile(shareddata.Mooncake(t, file))
		if err != nil {
			t.Fatal(err)
		}
		linked, plain, errL, errP, sumL, sumP := readBoth(data, DefaultMinSharedBlocks)
		if errL != nil || sumL.Linked == 0 {
			t.Fatalf("%s: %v, %d linked requests: want no error and some linked", file, errL, sumL.Linked)
		}
		sameButConv(t, file, linked, plain, errL, errP, sumL, sumP)
	}
}

// sessionTrace writes sessions conversations of turns requests each, one
// session after another; session s's turn j has the chain of 4(j+1) blocks
// s·10^4, s·10^4 + 1, …, all full but the last. Every turn extends the
// previous one's full-block chain, and no two sessions share a block, so
// each session is one conversation whose last full-block chain (4·turns −
// 1 blocks, more than k = 1) no later request continues.
func sessionTrace(sessions, turns int) []byte {
	var b bytes.Buffer
	for s := 0; s < sessions; s++ {
		for j := 0; j < turns; j++ {
			n := 4 * (j + 1)
			fmt.Fprintf(&b, `{"timestamp": %d, "input_length": %d, "output_length": 9, "hash_ids": [`, s*turns+j, n*MooncakeBlockTokens-100)
			for i := 0; i < n; i++ {
				if i > 0 {
					b.WriteString(", ")
				}
				fmt.Fprint(&b, s*10000+i)
			}
			b.WriteString("]}\n")
		}
	}
	return b.Bytes()
}

// A stream of sessions that end (each on a chain of its own that nothing
// continues) makes the linking reader keep one chain per session — it
// cannot know that none will be continued — and the reader without linking
// keep none: its retained heap does not grow with the sessions.
func TestMooncakeNoLinkingKeepsNothingPerSession(t *testing.T) {
	const turns = 3
	retained := func(sessions int, opt Options) (uint64, *Mooncake) {
		data := sessionTrace(sessions, turns)
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		before := ms.HeapAlloc
		m := NewMooncake(bytes.NewReader(data), "in.jsonl", opt)
		for {
			if _, err := m.Next(); err == io.EOF {
				break
			} else if err != nil {
				t.Fatal(err)
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&ms)
		runtime.KeepAlive(data)
		return ms.HeapAlloc - min(ms.HeapAlloc, before), m
	}
	const sessions = 20000
	_, linked := retained(sessions, DefaultOptions())
	if s := linked.Summary(); s.Conversations != sessions || s.Linked != sessions*(turns-1) {
		t.Fatalf("linking: %+v, want %d conversations and %d linked requests", s, sessions, sessions*(turns-1))
	}
	if n := len(linked.link.chains); n != sessions {
		t.Fatalf("linking: %d chains kept, want one per session, %d", n, sessions)
	}
	opt := DefaultOptions()
	opt.NoLinking = true
	small, _ := retained(sessions/10, opt)
	large, plain := retained(sessions, opt)
	if plain.link != nil || len(plain.firstLn.conv) != 0 {
		t.Fatalf("without linking: a linker (%v) or %d runs of first lines kept", plain.link != nil, len(plain.firstLn.conv))
	}
	// The linker's chains alone hold 8 bytes a block, 11 blocks a session:
	// 1.76 MB at 20,000 sessions. Without it, ten times the sessions may
	// not add a tenth of that (the reader's line buffer and decoding
	// scratch are the same at both sizes).
	t.Logf("without linking: %d bytes retained at %d sessions, %d at %d", large, sessions, small, sessions/10)
	if grow := int64(large) - int64(small); grow > sessions*(4*turns-1)*8/10 {
		t.Fatalf("without linking: %d bytes retained at %d sessions, %d at %d", large, sessions, small, sessions/10)
	}
}

// The writers refuse what a reader without linking returns, instead of
// writing a file that their readers would reject (blocks: conv −1) or
// failing outside their errors (canonical: conversation names).
func TestNoLinkingNotWritten(t *testing.T) {
	in := `{"timestamp": 0, "input_length": 1100, "output_length": 50, "hash_ids": [0, 7, 8]}` + "\n"
	opt := DefaultOptions()
	opt.NoLinking = true
	var out bytes.Buffer
	if err := WriteBlocks(&out, NewMooncake(strings.NewReader(in), "in.jsonl", opt)); err == nil || !strings.Contains(err.Error(), "no conversation id") {
		t.Errorf("blocks: error %v, want no conversation id", err)
	}
	if _, err := WriteCanonical(&out, NewMooncake(strings.NewReader(in), "in.jsonl", opt)); err == nil {
		t.Error("canonical: no error")
	}
	if out.Len() != 0 {
		t.Errorf("%d bytes written: %q", out.Len(), out.String())
	}
}
