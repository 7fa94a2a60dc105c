package option

import (
	"math"
	"strconv"
	"strings"
)

// Ints reads a comma-separated list of integers given to flag.
func Ints(flag, s string) ([]int64, error) {
	return List(flag, s, "an integer", func(f string) (int64, bool) {
		v, err := strconv.ParseInt(f, 10, 64)
		return v, err == nil
	})
}

// Floats reads a comma-separated list of finite numbers given to flag.
func Floats(flag, s string) ([]float64, error) {
	return List(flag, s, "a finite number", func(f string) (float64, bool) {
		v, err := strconv.ParseFloat(f, 64)
		return v, err == nil && !math.IsNaN(v) && !math.IsInf(v, 0)
	})
}

// List reads a comma-separated list given to flag, each item with parse
// (what names a valid item); blank items are skipped, an empty list is an
// error.
func List[T any](flag, s, what string, parse func(string) (T, bool)) ([]T, error) {
	var out []T
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		v, ok := parse(f)
		if !ok {
			return nil, Errorf(flag, "%q is not %s", f, what)
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, Errorf(flag, "empty list")
	}
	return out, nil
}

// KV reads the values of a repeated key=value flag into a map; a later key
// replaces an earlier one.
func KV(flag string, kvs []string) (map[string]string, error) {
	m := map[string]string{}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, Errorf(flag, "want key=value, got %q", kv)
		}
		m[k] = v
	}
	return m, nil
}
