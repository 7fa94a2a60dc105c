package trace

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// calls drains rd with up to limit calls of Next, to the end or the first
// error (where every caller stops), and describes every result with the
// reader's line count and, at the end, its conversation names.
func calls(rd *Reader, limit int) []string {
	var out []string
	for range limit {
		t, err := rd.Next()
		out = append(out, fmt.Sprintf("%+v %v line %d", t, err, rd.Line()))
		if err != nil {
			break
		}
	}
	return append(out, strings.Join(rd.names, ","))
}

// sameReads reports the first difference between the sequential reader and
// a parallel one with chunks of size bytes and workers workers on data.
func sameReads(data []byte, size, workers int) error {
	limit := bytes.Count(data, []byte{'\n'}) + 4
	want := calls(NewReader(bytes.NewReader(data), "t.jsonl"), limit)
	pr := NewParallelReader(bytes.NewReader(data), "t.jsonl", workers)
	pr.par.size = size
	defer pr.Close()
	got := calls(pr, limit)
	for i := range max(len(got), len(want)) {
		if i >= len(got) || i >= len(want) || got[i] != want[i] {
			return fmt.Errorf("call %d: parallel %v, sequential %v", i, got[min(i, len(got)-1)], want[min(i, len(want)-1)])
		}
	}
	return nil
}

// TestParallelReader: chunk boundaries anywhere (chunks of 1 byte to 1 MB),
// blank lines, a last line without its end, CRLF, a byte-order mark, malformed lines, time
// going back and duplicate names give the sequential reader's turns, ids,
// first error (line, field, message) and line counts, call for call.
func TestParallelReader(t *testing.T) {
	var big strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&big, "{\"t\": %d.5, \"conv\": \"c%d\", \"prompt\": %d, \"response\": %d, \"category\": \"k%d\"}\n", i, i%37, 1+i%900, i%300, i%3)
		if i%500 == 7 {
			big.WriteString("\n   \n")
		}
	}
	inputs := []string{
		"",
		"\n\n",
		`{"t": 1, "conv": "a", "prompt": 1, "response": 0}`,
		"{\"t\": 1, \"conv\": \"a\", \"prompt\": 1, \"response\": 0}\r\n{\"t\": 2, \"conv\": \"b\", \"prompt\": 2, \"response\": 0}\r\n",
		"{\"t\": 3, \"conv\": \"a\", \"prompt\": 1, \"response\": 1}\n{\"t\": 2, \"conv\": \"b\", \"prompt\": 1, \"response\": 1}\n",
		"{\"t\": 3, \"conv\": \"a\", \"prompt\": 1, \"response\": 1}\n{\"t\": 4, \"conv\": \"b\", \"prompt\": 0, \"response\": 1}\n",
		"{\"t\": 3, \"conv\": \"a\", \"prompt\": 1, \"response\": 1}\n\nnot json\n{\"t\": 5, \"conv\": \"c\", \"prompt\": 1, \"response\": 1}",
		big.String(),
		// A byte-order mark is dropped on line 1 and refused elsewhere.
		"\xef\xbb\xbf{\"t\": 1, \"conv\": \"a\", \"prompt\": 1, \"response\": 0}\n",
		"{\"t\": 1, \"conv\": \"a\", \"prompt\": 1, \"response\": 0}\n\xef\xbb\xbf{\"t\": 2, \"conv\": \"a\", \"prompt\": 1, \"response\": 0}\n",
	}
	for i, in := range inputs {
		for _, size := range []int{1, 2, 7, 64, 1000, chunkBytes} {
			for _, w := range []int{1, 3} {
				if err := sameReads([]byte(in), size, w); err != nil {
					t.Errorf("input %d, chunks of %d bytes, %d workers: %v", i, size, w, err)
				}
			}
		}
	}
}

// TestParallelLongLine: a line of maxLine + 1 bytes is refused at its
// line number by both readers, after the turns before it, as "longer than
// maxLine bytes"; a line of exactly maxLine bytes (1 MiB), ended by "\n",
// "\r\n" or the end of the input, is read by both (it was refused as
// "longer than 1048576 bytes": issue 35 item 8).
func TestParallelLongLine(t *testing.T) {
	const first = "{\"t\": 1, \"conv\": \"a\", \"prompt\": 1, \"response\": 0}\n\n"
	turn := "{\"t\": 2, \"conv\": \"a\", \"prompt\": 1, \"response\": 0}"
	full := turn + strings.Repeat(" ", maxLine-len(turn)) // exactly maxLine bytes
	for _, size := range []int{100, chunkBytes} {
		long := []byte(first + strings.Repeat(" ", maxLine+1) + "\n" + turn + "\n")
		if err := sameReads(long, size, 2); err != nil {
			t.Errorf("chunks of %d bytes: %v", size, err)
		}
		_, err := ReadAll(bytes.NewReader(long), "long.jsonl")
		if want := "long.jsonl:3: line longer than 1048576 bytes"; err == nil || err.Error() != want {
			t.Errorf("error %v, want %s", err, want)
		}
		for _, end := range []string{"\n", "\r\n", ""} {
			data := []byte(first + full + end)
			if err := sameReads(data, size, 2); err != nil {
				t.Errorf("chunks of %d bytes, end %q: %v", size, end, err)
			}
			tr, err := ReadAll(bytes.NewReader(data), "full.jsonl")
			if err != nil || len(tr.Turns) != 2 {
				t.Errorf("line of exactly %d bytes, end %q: %v", maxLine, end, err)
			}
		}
	}
}

// FuzzParallelReader compares the parallel reader with the sequential one
// on any input, chunk size and worker count.
func FuzzParallelReader(f *testing.F) {
	f.Add([]byte("{\"t\": 1, \"conv\": \"a\", \"prompt\": 1, \"response\": 0}\n{\"t\": 0, \"conv\": \"a\", \"prompt\": 1, \"response\": 0}"), uint8(3), uint8(2))
	f.Add([]byte("\n{\"t\": 1, \"conv\": \"\\u00e9\", \"prompt\": 1, \"response\": 0, \"user\": \"u\"}\r\n\n{bad\n"), uint8(1), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, size, workers uint8) {
		if err := sameReads(data, 1+int(size), 1+int(workers%3)); err != nil {
			t.Fatal(err)
		}
	})
}
