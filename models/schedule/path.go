package schedule

import (
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
