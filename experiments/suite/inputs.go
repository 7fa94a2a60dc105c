package suite

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tailbound/tailbound/internal/shareddata"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/trace"
)

// mooncakeParam is the parameter naming the directory of the Mooncake
// traces.
func mooncakeParam() Param {
	return Param{Name: "mooncake-dir", Default: "",
		Help: "directory of the Mooncake traces (conversation_trace.jsonl, synthetic_trace.jsonl); default: shared/data/mooncake above the working directory"}
}

// mooncakePath returns the path of Mooncake trace file name ("conversation"
// or "synthetic").
func mooncakePath(env *Env, name string) (string, error) {
	dir := env.Param("mooncake-dir")
	if dir == "" {
		d := shareddata.Dir()
		if d == "" {
			return "", fmt.Errorf("flag --mooncake-dir: shared/data not found above the working directory; give the Mooncake traces' directory")
		}
		dir = filepath.Join(d, "mooncake")
	}
	p := filepath.Join(dir, name+"_trace.jsonl")
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("flag --mooncake-dir: %w", err)
	}
	return p, nil
}

// mooncakeConversations returns the canonical conversations derived from a
// Mooncake trace (import mooncake, default options), read once per run.
func mooncakeConversations(env *Env, name string) (*trace.Trace, error) {
	v, err := env.Memo("mooncake-canonical:"+name, func() (any, error) {
		raw, err := canonicalBytes(env, name)
		if err != nil {
			return nil, err
		}
		p, err := mooncakePath(env, name)
		if err != nil {
			return nil, err
		}
		return trace.ReadAll(bytes.NewReader(raw), p)
	})
	if err != nil {
		return nil, err
	}
	return v.(*trace.Trace), nil
}

// birthDeathTrace returns the birth–death trace of params p and seed, made
// once per run.
func birthDeathTrace(env *Env, key string, p birthdeath.Params, seed uint64) (*trace.Trace, error) {
	v, err := env.Memo(fmt.Sprintf("birth-death:%s:%d", key, seed), func() (any, error) {
		return birthdeath.Trace(p, seed)
	})
	if err != nil {
		return nil, err
	}
	return v.(*trace.Trace), nil
}

// fileTrace reads a canonical trace file once per run.
func fileTrace(env *Env, path string) (*trace.Trace, error) {
	v, err := env.Memo("file:"+path, func() (any, error) { return trace.ReadFile(path) })
	if err != nil {
		return nil, err
	}
	return v.(*trace.Trace), nil
}

// floatParam parses parameter name as a finite number.
func floatParam(env *Env, name string) (float64, error) {
	return parseFloat(name, env.Param(name))
}

func parseFloat(name, s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || v != v || v > 1e308 || v < -1e308 {
		return 0, fmt.Errorf("flag --%s: %q is not a finite number", name, s)
	}
	return v, nil
}

// intParam parses parameter name as an integer.
func intParam(env *Env, name string) (int64, error) {
	return parseInt(name, env.Param(name))
}

func parseInt(name, s string) (int64, error) {
	v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("flag --%s: %q is not an integer", name, s)
	}
	return v, nil
}

// listParam splits parameter name's comma-separated value.
func listParam(env *Env, name string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(env.Param(name), ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("flag --%s: empty list", name)
	}
	return out, nil
}

// floatsParam parses parameter name as a comma-separated list of numbers.
func floatsParam(env *Env, name string) ([]float64, error) {
	fs, err := listParam(env, name)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(fs))
	for i, f := range fs {
		if out[i], err = parseFloat(name, f); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// intsParam parses parameter name as a comma-separated list of integers.
func intsParam(env *Env, name string) ([]int64, error) {
	fs, err := listParam(env, name)
	if err != nil {
		return nil, err
	}
	out := make([]int64, len(fs))
	for i, f := range fs {
		if out[i], err = parseInt(name, f); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// fmtFloat writes v in the shortest form that parses back to it (grid
// point values).
func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
