package trace

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
)

// Writer writes turns as canonical JSON Lines.
type Writer struct {
	w *bufio.Writer
}

// NewWriter returns a Writer on w. Call Flush when done.
func NewWriter(w io.Writer) *Writer { return &Writer{w: bufio.NewWriter(w)} }

// Write writes one record as a line.
func (w *Writer) Write(r Record) error {
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("trace: encode: %w", err)
	}
	b = append(b, '\n')
	if _, err := w.w.Write(b); err != nil {
		return fmt.Errorf("trace: write: %w", err)
	}
	return nil
}

// Flush writes any buffered data.
func (w *Writer) Flush() error { return w.w.Flush() }

// WriteTrace writes a whole in-memory trace.
func WriteTrace(out io.Writer, t *Trace) error {
	w := NewWriter(out)
	for _, u := range t.Turns {
		if err := w.Write(Record{T: u.Time, Conv: t.Names[u.Conv], Prompt: u.Prompt, Response: u.Response, Category: u.Category, User: u.User}); err != nil {
			return err
		}
	}
	return w.Flush()
}
