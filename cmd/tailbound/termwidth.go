package main

import (
	"io"
	"os"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/tailbound/tailbound/internal/progress"
)

// terminalWidth returns the width, in columns, of the terminal w writes
// to, and 0 when w is not a terminal (a pipe or a file keeps the full
// tables). The width is the terminal's own (TIOCGWINSZ), or $COLUMNS when
// the terminal does not say.
func terminalWidth(w io.Writer) int {
	f, ok := file(w)
	if !ok || !progress.IsTerminal(f) {
		return 0
	}
	if ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ); err == nil && ws.Col > 0 {
		return int(ws.Col)
	}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	return 0
}
