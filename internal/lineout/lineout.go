// Package lineout writes line-oriented output (JSON Lines, CSV) so that an
// interrupted program leaves only whole lines: a Writer passes on
// everything up to the last newline it has seen and holds the rest, and
// once its context is done it writes nothing more.
package lineout

import (
	"bytes"
	"context"
	"io"
)

// Writer passes whole lines to an underlying writer until its context is
// done. Put it under any buffering (bufio flushes chunks that end
// mid-line).
type Writer struct {
	ctx     context.Context
	w       io.Writer
	pending []byte
}

// New returns a Writer of whole lines to w that stops when ctx is done.
func New(ctx context.Context, w io.Writer) *Writer { return &Writer{ctx: ctx, w: w} }

// Unwrap returns the underlying writer, for callers that look for a
// particular writer beneath this one.
func (l *Writer) Unwrap() io.Writer { return l.w }

// Write writes the complete lines of what it has been given so far and
// keeps the rest. After the context is done it fails with its error.
func (l *Writer) Write(p []byte) (int, error) {
	if err := l.ctx.Err(); err != nil {
		return 0, err
	}
	l.pending = append(l.pending, p...)
	if i := bytes.LastIndexByte(l.pending, '\n'); i >= 0 {
		if _, err := l.w.Write(l.pending[:i+1]); err != nil {
			return 0, err
		}
		l.pending = append(l.pending[:0], l.pending[i+1:]...)
	}
	return len(p), nil
}

// Close writes a last line that has no newline, unless the context is
// done (then it is dropped, it may be cut short, and the context's error
// is returned). With nothing pending it returns nil even when the context
// is done: every line was written whole, so the output is complete, and a
// signal that came after it must not make it read as interrupted.
func (l *Writer) Close() error {
	if len(l.pending) == 0 {
		return nil
	}
	if err := l.ctx.Err(); err != nil {
		l.pending = l.pending[:0]
		return err
	}
	_, err := l.w.Write(l.pending)
	l.pending = l.pending[:0]
	return err
}
