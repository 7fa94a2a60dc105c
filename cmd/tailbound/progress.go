package main

import (
	"io"
	"os"

	"github.com/tailbound/tailbound/internal/progress"
)

// progressStderr is a command's standard error with the progress meter the
// command reports to: nil when progress is not shown (stderr is a pipe or
// a file, or --progress=false).
type progressStderr struct {
	io.Writer
	meter *progress.Meter
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
