package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/tailbound/tailbound/internal/progress"
)

// progressStderr is a command's standard error with the progress meter the
// command reports to: nil when progress is not shown (stderr is a pipe or
// a file, or --progress=false).
type progressStderr struct {
	io.Writer
	meter *progress.Meter
}

// progressFlag removes the global --progress[=true|false] from args (up to
// a "--") and returns the rest and the override it gives (nil when absent).
func progressFlag(args []string) ([]string, *bool, error) {
	var out []string
	var override *bool
	for i, a := range args {
		if a == "--" {
			out = append(out, args[i:]...)
			break
		}
		v, ok := strings.CutPrefix(a, "--progress")
		if !ok || (v != "" && v[0] != '=') {
			out = append(out, a)
			continue
		}
		b := true
		if v != "" {
			var err error
			if b, err = strconv.ParseBool(v[1:]); err != nil {
				return nil, nil, fmt.Errorf("flag --progress: %q is not true or false", v[1:])
			}
		}
		override = &b
	}
	return out, override, nil
}

// withProgress returns stderr with a meter when progress is shown on it:
// the override, or whether stderr is a terminal.
func withProgress(stderr io.Writer, override *bool) progressStderr {
	if !progress.Shown(stderr, override) {
		return progressStderr{Writer: stderr}
	}
	return progressStderr{Writer: stderr, meter: progress.NewMeter(stderr, terminalWidth(stderr))}
}

// progressFunc returns the progress Func of a command's stderr (nil: none).
func progressFunc(stderr io.Writer) progress.Func {
	if s, ok := stderr.(progressStderr); ok && s.meter != nil {
		return s.meter.Func()
	}
	return nil
}

// progressTo returns w when progress is shown on it, so that progress is
// shown to people and never written into a redirected log (unless
// --progress=true asks); nil otherwise.
func progressTo(w io.Writer) io.Writer {
	if s, ok := w.(progressStderr); ok {
		if s.meter == nil {
			return nil
		}
		return s
	}
	if !progress.IsTerminal(w) {
		return nil
	}
	return w
}

// file returns the file w writes to, unwrapping a progressStderr.
func file(w io.Writer) (*os.File, bool) {
	if s, ok := w.(progressStderr); ok {
		w = s.Writer
	}
	f, ok := w.(*os.File)
	return f, ok
}
