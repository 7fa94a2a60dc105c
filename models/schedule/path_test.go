package schedule

import (
	"fmt"
	"testing"
)

func TestPath(t *testing.T) {
	for _, tc := range []struct {
		path, name string
		several    bool
		want       string
	}{
		{"out.jsonl", "lru", false, "out.jsonl"},
		{"out.jsonl", "lru", true, "out.lru.jsonl"},
		{"dir/out", "exec:python3 x.py", true, "dir/out.exec_python3_x.py"},
	} {
		if got := Path(tc.path, tc.name, tc.several); got != tc.want {
			t.Errorf("Path(%q, %q, %v) = %q, want %q", tc.path, tc.name, tc.several, got, tc.want)
		}
	}
}

// TestPaths: names that sanitize alike are refused (issue 26: exec:C a/b
// and exec:C a:b wrote one file, one policy's schedule lost), as is "-";
// distinct names give distinct files.
func TestPaths(t *testing.T) {
	for _, tc := range []struct {
		path  string
		names []string
		want  []string // nil: refused
	}{
		{"out.jsonl", []string{"lru"}, []string{"out.jsonl"}},
		{"out.jsonl", []string{"lru", "fifo"}, []string{"out.lru.jsonl", "out.fifo.jsonl"}},
		{"out.jsonl", []string{"exec:C a/b", "exec:C a:b"}, nil},
		{"out.jsonl", []string{"lru", "exec:x", "exec_x"}, nil},
		{"-", []string{"lru"}, nil},
	} {
		got, err := Paths(tc.path, tc.names)
		if tc.want == nil {
			if err == nil {
				t.Errorf("Paths(%q, %q) = %q, want refused", tc.path, tc.names, got)
			}
			continue
		}
		if err != nil || fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("Paths(%q, %q) = %q, %v; want %q", tc.path, tc.names, got, err, tc.want)
		}
	}
}
