package schedule

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Path returns the file --emit-schedule path names for policy
// name when several policies run: the name (characters other than
// letters, digits, '.', '_' and '-' made '_') inserted before the
// extension, so out.jsonl becomes out.lru.jsonl. With one policy it is
// path itself.
func Path(path, name string, several bool) string {
	if !several {
		return path
	}
	clean := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-' {
			return r
		}
		return '_'
	}, name)
	ext := filepath.Ext(path)
	return strings.TrimSuffix(path, ext) + "." + clean + ext
}

// Paths returns Path for every policy of names (several when there is
// more than one), refusing two policies whose names map to the same file
// (exec:C a/b and exec:C a:b both give out.exec_C_a_b.jsonl): one file
// would be lost. It also refuses "-": the schedules are files, standard
// output carries the report.
func Paths(path string, names []string) ([]string, error) {
	if path == "-" {
		return nil, fmt.Errorf("- (standard output) cannot take schedules: standard output carries the report; name a file")
	}
	out := make([]string, len(names))
	by := map[string]string{}
	for i, n := range names {
		out[i] = Path(path, n, len(names) > 1)
		if prev, ok := by[out[i]]; ok {
			return nil, fmt.Errorf("policies %s and %s would both write %s (names differing only in characters other than letters, digits, '.', '_' and '-'); give one a different name", prev, n, out[i])
		}
		by[out[i]] = n
	}
	return out, nil
}
