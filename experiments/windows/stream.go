package windows

import (
	"github.com/tailbound/tailbound/internal/option"
	"github.com/tailbound/tailbound/models/trace"
)

// openStream opens the trace file path for a windowed solve, which reads
// it once, turn by turn: a sequential reader (a task runs on one core,
// where the parallel reader's goroutines only add their hand-offs) that
// interns conversation names into a table without pointers
// (trace.Reader.CompactNames), so that the 2·10^7 conversations of a
// 10^8-turn trace cost each garbage collection nothing. It checks every
// line as every reader does. done closes the file.
func openStream(path string) (*trace.Reader, func(), error) {
	f, err := trace.Open(path)
	if err != nil {
		return nil, nil, option.Wrap("trace", err)
	}
	rd := trace.NewReader(f, path)
	rd.CompactNames = true
	return rd, func() { f.Close() }, nil
}
