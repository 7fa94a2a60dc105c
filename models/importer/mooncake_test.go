package importer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"github.com/tailbound/tailbound/internal/shareddata"
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/models/trace"
)

func TestMooncakeErrors(t *testing.T) {
	ok := `{"timestamp": 5, "input_length": 600, "output_length": 3, "hash_ids": [1, 2]}`
	cases := []struct {
		name, input, field string
		line               int
	}{
		{"not json", ok + "\nhello", "", 2},
		{"not an object", "[1, 2]", "", 1},
		{"truncated", `{"timestamp": 5, "input_length": 600`, "", 1},
		{"missing timestamp", `{"input_length": 600, "output_length": 3, "hash_ids": [1, 2]}`, "timestamp", 1},
		{"null input", `{"timestamp": 5, "input_length": null, "output_length": 3, "hash_ids": [1, 2]}`, "input_length", 1},
		{"missing output", `{"timestamp": 5, "input_length": 600, "hash_ids": [1, 2]}`, "output_length", 1},
		{"missing hash_ids", `{"timestamp": 5, "input_length": 600, "output_length": 3}`, "hash_ids", 1},
		{"fractional timestamp", `{"timestamp": 5.5, "input_length": 600, "output_length": 3, "hash_ids": [1, 2]}`, "timestamp", 1},
		{"negative timestamp", `{"timestamp": -1, "input_length": 600, "output_length": 3, "hash_ids": [1, 2]}`, "timestamp", 1},
		{"negative input", `{"timestamp": 5, "input_length": -600, "output_length": 3, "hash_ids": []}`, "input_length", 1},
		{"negative output", `{"timestamp": 5, "input_length": 600, "output_length": -3, "hash_ids": [1, 2]}`, "output_length", 1},
		{"string length", `{"timestamp": 5, "input_length": "600", "output_length": 3, "hash_ids": [1, 2]}`, "input_length", 1},
		{"hash_ids not an array", `{"timestamp": 5, "input_length": 600, "output_length": 3, "hash_ids": 7}`, "hash_ids", 1},
		{"fractional id", `{"timestamp": 5, "input_length": 600, "output_length": 3, "hash_ids": [1, 2.5]}`, "hash_ids", 1},
		{"string id", `{"timestamp": 5, "input_length": 600, "output_length": 3, "hash_ids": [1, "2"]}`, "hash_ids", 1},
		{"id overflows int64", `{"timestamp": 5, "input_length": 600, "output_length": 3, "hash_ids": [1, 99999999999999999999]}`, "hash_ids", 1},
		{"too few blocks", `{"timestamp": 5, "input_length": 1025, "output_length": 3, "hash_ids": [1, 2]}`, "hash_ids", 1},
		{"too many blocks", `{"timestamp": 5, "input_length": 512, "output_length": 3, "hash_ids": [1, 2]}`, "hash_ids", 1},
		{"time backwards", ok + "\n\n" + strings.Replace(ok, `"timestamp": 5`, `"timestamp": 4`, 1), "timestamp", 3},
	}
	for _, c := range cases {
		_, err := readString("mooncake", c.input, DefaultOptions())
		wantParseError(t, c.name, err, c.line, c.field)
	}
}

func TestMooncakeChainRules(t *testing.T) {
	// 1024 tokens is exactly two blocks under every rule; 1025 is three
	// blocks (ceil) or two (floor).
	cases := []struct {
		rule   ChainRule
		input  int
		blocks string
		ok     bool
	}{
		{ChainCeil, 1024, "[1, 2]", true},
		{ChainFloor, 1024, "[1, 2]", true},
		{ChainCeil, 1025, "[1, 2, 3]", true},
		{ChainCeil, 1025, "[1, 2]", false},
		{ChainFloor, 1025, "[1, 2]", true},
		{ChainFloor, 1025, "[1, 2, 3]", false},
		{ChainAny, 1025, "[1]", true},
		{ChainCeil, 0, "[]", true},
		{ChainCeil, 1, "[]", false},
	}
	for _, c := range cases {
		line := `{"timestamp": 0, "input_length": ` + itoa(c.input) + `, "output_length": 0, "hash_ids": ` + c.blocks + `}`
		_, err := readString("mooncake", line, Options{Chain: c.rule, MinSharedBlocks: 1})
		if (err == nil) != c.ok {
			t.Errorf("rule %s, %d tokens, chain %s: error %v, want ok=%v", c.rule, c.input, c.blocks, err, c.ok)
		}
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestMooncakeLinkHandWorked follows the linking rule on a stream worked
// by hand: S is a one-block system prompt shared by everyone.
func TestMooncakeLinkHandWorked(t *testing.T) {
	const S = 100
	type req struct {
		ms    int64
		input int64
		chain []int64
	}
	reqs := []req{
		{0, 1200, []int64{S, 1, 2}},           // A1: full chain [S 1]
		{10, 700, []int64{S, 3}},              // B1: full chain [S], never continuable with k=1
		{20, 1700, []int64{S, 1, 4, 5}},       // A2 continues A1 ([S 1] is a prefix); full [S 1 4]
		{30, 800, []int64{S, 6}},              // C1: shares only S with B1: new with k=1, B1's with k=0
		{40, 2100, []int64{S, 1, 4, 7, 8}},    // A3 continues A2
		{50, 1700, []int64{S, 1, 4, 9}},       // A2-retry: [S 1 4 7] is not its prefix, [S 1] is nobody's latest: new
		{60, 1600, []int64{S, 1, 4, 10}},      // shares [S 1 4] with the retry: continues it
		{70, 2600, []int64{S, 1, 4, 7, 8, 9}}, // continues A3 (longest: [S 1 4 7])
	}
	var sb strings.Builder
	for _, r := range reqs {
		b, _ := json.Marshal(map[string]any{"timestamp": r.ms, "input_length": r.input, "output_length": 10, "hash_ids": r.chain})
		sb.Write(b)
		sb.WriteByte('\n')
	}
	cases := []struct {
		k     int
		convs []int
	}{
		{1, []int{0, 1, 0, 2, 0, 3, 3, 0}},
		// k=0 links C1 to B1 and the retry to C1 through S alone: the
		// false links the guard exists for.
		{0, []int{0, 1, 0, 1, 0, 1, 1, 0}},
		// k=2: A1's full chain [S 1] is too short to be continued.
		{2, []int{0, 1, 2, 3, 2, 4, 4, 2}},
		// k=3: only A3's [S 1 4 7] is long enough.
		{3, []int{0, 1, 2, 3, 4, 5, 6, 4}},
	}
	for _, c := range cases {
		src := NewMooncake(strings.NewReader(sb.String()), "in.jsonl", Options{MinSharedBlocks: c.k})
		s, err := ReadAll(src)
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		for _, r := range s.Requests {
			got = append(got, r.Conv)
		}
		if !slices.Equal(got, c.convs) {
			t.Errorf("k=%d: conversations %v, want %v", c.k, got, c.convs)
		}
		sum := src.Summary()
		if sum.Requests != 8 || sum.Linked+sum.Conversations != 8 || int(sum.Conversations) != slices.Max(c.convs)+1 {
			t.Errorf("k=%d: summary %+v", c.k, sum)
		}
		if s.Requests[2].Time != 0.02 || s.BlockTokens != 512 {
			t.Errorf("k=%d: time %v s, block %d tokens", c.k, s.Requests[2].Time, s.BlockTokens)
		}
	}
}

// bruteLink links by the package rule with a plain scan over every
// conversation: the longest full-block chain (> k blocks) that is a
// prefix, ties to the most recently continued.
func bruteLink(chains [][]int64, inputs []int64, k int) []int {
	type conv struct {
		full []int64
		seq  int
	}
	var convs []conv
	out := make([]int, len(chains))
	for i, h := range chains {
		best := -1
		for c, cv := range convs {
			m := len(cv.full)
			if m <= k || m > len(h) || !slices.Equal(cv.full, h[:m]) {
				continue
			}
			if best < 0 || m > len(convs[best].full) || (m == len(convs[best].full) && cv.seq > convs[best].seq) {
				best = c
			}
		}
		if best < 0 {
			best = len(convs)
			convs = append(convs, conv{})
		}
		full := min(int(inputs[i]/512), len(h))
		convs[best] = conv{full: h[:full], seq: i}
		out[i] = best
	}
	return out
}

// rawMooncake reads a Mooncake file with encoding/json alone.
func rawMooncake(t *testing.T, path string) (chains [][]int64, inputs, outputs, ms []int64) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var rec struct {
			T      int64   `json:"timestamp"`
			In     int64   `json:"input_length"`
			Out    int64   `json:"output_length"`
			Hashes []int64 `json:"hash_ids"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		chains, inputs, ms = append(chains, rec.Hashes), append(inputs, rec.In), append(ms, rec.T)
		outputs = append(outputs, rec.Out)
	}
	return chains, inputs, outputs, ms
}

// TestMooncakeRealTraces reads both published files and checks the request
// and block counts of shared/data/README.md and the linking against a
// brute-force scan.
func TestMooncakeRealTraces(t *testing.T) {
	cases := []struct {
		file     string
		requests int
		refs     int64
	}{
		{"conversation_trace.jsonl", 12031, 288500},
		{"synthetic_trace.jsonl", 3993, 121877},
	}
	for _, c := range cases {
		path := shareddata.Mooncake(t, c.file)
		src, closer, err := Open(path, "mooncake", DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		s, err := ReadAll(src)
		closer.Close()
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		var refs int64
		for _, r := range s.Requests {
			refs += int64(len(r.Hashes))
		}
		if len(s.Requests) != c.requests || refs != c.refs {
			t.Errorf("%s: %d requests, %d block refs; README says %d, %d", c.file, len(s.Requests), refs, c.requests, c.refs)
		}
		chains, inputs, outputs, ms := rawMooncake(t, path)
		for i, r := range s.Requests {
			if r.Time != float64(ms[i])/1000 {
				t.Fatalf("%s request %d: time %v s, file says %d ms", c.file, i, r.Time, ms[i])
			}
		}
		if testing.Short() && c.requests > 5000 {
			continue
		}
		want := bruteLink(chains, inputs, DefaultMinSharedBlocks)
		for i, r := range s.Requests {
			if r.Conv != want[i] {
				t.Fatalf("%s request %d (line %d): conversation %d, brute force says %d", c.file, i, i+1, r.Conv, want[i])
			}
		}
		// The pairwise shortfall input_k − input_{k−1} − output_{k−1} < 1,
		// counted over the brute-force links.
		last := map[int]int{}
		var short int64
		for i, cv := range want {
			if j, ok := last[cv]; ok && inputs[i]-inputs[j]-outputs[j] < 1 {
				short++
			}
			last[cv] = i
		}
		var buf bytes.Buffer
		canon, err := WriteCanonical(&buf, StreamSourceOf(s))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := trace.ReadAll(&buf, "canonical"); err != nil {
			t.Fatalf("%s: canonical output rejected: %v", c.file, err)
		}
		if canon.PairShort != short || canon.FollowUps != src.Summary().Linked {
			t.Errorf("%s: %d pairwise short of %d follow-ups; brute force %d of %d", c.file, canon.PairShort, canon.FollowUps, short, src.Summary().Linked)
		}
		sum := src.Summary()
		t.Logf("%s: %d requests, %d linked, %d conversations; %d follow-ups pairwise short, %d canonical fallbacks (%d excess tokens)",
			c.file, sum.Requests, sum.Linked, sum.Conversations, canon.PairShort, canon.Fallbacks, canon.ExcessTokens)
	}
}

// FuzzMooncake checks that no input panics the reader, that every error is
// a one-line ParseError at a line of the input, and that accepted requests
// keep the format's rules.
func FuzzMooncake(f *testing.F) {
	f.Add([]byte(`{"timestamp": 0, "input_length": 600, "output_length": 5, "hash_ids": [0, 1]}` + "\n" +
		`{"timestamp": 7, "input_length": 1100, "output_length": 5, "hash_ids": [0, 2, 3]}`))
	f.Add([]byte(`{"timestamp": 1e3, "input_length": 0, "output_length": 0, "hash_ids": []}`))
	f.Add([]byte(`{"timestamp": 3, "input_length": 1, "output_length": 0, "hash_ids": [null]}`))
	f.Add([]byte("\n\n{\"hash_ids\": [1,2,3], \"timestamp\": 2}\n\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkFuzz(t, data, "mooncake")
	})
}

// checkFuzz drains a reader of format over data and checks the invariants
// common to all formats.
func checkFuzz(t *testing.T, data []byte, format string) {
	src, err := New(strings.NewReader(string(data)), "fuzz", format, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	last, convs := -1.0, 0
	for {
		r, err := src.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			var pe *ParseError
			if !errorsAs(err, &pe) {
				t.Fatalf("error %v is not a ParseError", err)
			}
			if pe.Line < 1 || pe.Line > strings.Count(string(data), "\n")+1 || strings.Contains(err.Error(), "\n") {
				t.Fatalf("bad error %q", err)
			}
			return
		}
		b := int64(src.BlockTokens())
		if r.Input < 0 || r.Output < 0 || r.Time < last || r.Time < 0 || int64(len(r.Hashes)) != (r.Input+b-1)/b {
			t.Fatalf("accepted an invalid request %+v", r)
		}
		if r.Conv < 0 || r.Conv > convs {
			t.Fatalf("conversation %d not dense (%d so far)", r.Conv, convs)
		}
		if r.Conv == convs {
			convs++
		}
		last = r.Time
		if s := src.Summary(); s.Linked+s.Conversations != s.Requests || int(s.Conversations) != convs {
			t.Fatalf("summary %+v with %d conversations", s, convs)
		}
	}
}
