package schedule

import "testing"

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
