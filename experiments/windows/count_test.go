package windows

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestCountTurns: countTurns counts the lines with something other than
// spaces, tabs and carriage returns, as splitting the file on "\n" and
// trimming each line counts them; by hand on the edge cases, and on random
// files of such bytes (lines longer than the 1 MiB read buffer included).
func TestCountTurns(t *testing.T) {
	dir := t.TempDir()
	count := func(t interface{ Fatal(...any) }, s string) int {
		path := filepath.Join(dir, "t.jsonl")
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		n, err := countTurns(path)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, c := range []struct {
		in   string
		want int
	}{
		{"", 0}, {"\n\n", 0}, {"{}", 1}, {"{}\n", 1}, {" \t\r\n{}\r\n\n  x", 2}, {"a\nb\nc", 3}, {"\r", 0},
		{strings.Repeat(" ", 1<<20+5) + "x\n" + strings.Repeat("y", 1<<20) + "\n", 2},
	} {
		if got := count(t, c.in); got != c.want {
			t.Errorf("countTurns(%.20q…) = %d, want %d", c.in, got, c.want)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		parts := rapid.SliceOf(rapid.SampledFrom([]string{"\n", " ", "\t", "\r", "{", "x", strings.Repeat(" ", 1<<19), strings.Repeat("z", 1<<19)})).Draw(t, "parts")
		s := strings.Join(parts, "")
		want := 0
		for _, line := range strings.Split(s, "\n") {
			if strings.Trim(line, " \t\r") != "" {
				want++
			}
		}
		if got := count(t, s); got != want {
			t.Fatalf("countTurns = %d, want %d", got, want)
		}
	})
}

// BenchmarkCountTurns counts the lines of a 10^6-line trace of 68-byte
// lines (the size of gen birth-death's), bytes/s reported.
func BenchmarkCountTurns(b *testing.B) {
	line := `{"t":2.529725061972883,"conv":"c1","prompt":134,"response":96}` + "\n"
	path := filepath.Join(b.TempDir(), "t.jsonl")
	if err := os.WriteFile(path, []byte(strings.Repeat(line, 1_000_000)), 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(line)) * 1_000_000)
	for b.Loop() {
		if n, err := countTurns(path); err != nil || n != 1_000_000 {
			b.Fatal(n, err)
		}
	}
}
