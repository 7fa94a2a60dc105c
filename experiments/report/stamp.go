package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// Stamp says what produced a result: the program's version and the
// command with every setting it ran with (defaults included), so that a
// JSON result file can be traced back to its run.
type Stamp struct {
	// Version is the program's version (see cmd/tailbound --version).
	Version string `json:"version"`
	// Command is the sub-command, e.g. "simulate" or "recompute roofline".
	Command string `json:"command"`
	// Settings maps each flag's name to its value as given or defaulted.
	Settings map[string]string `json:"settings"`
}

// Stamped is an output writer that carries a Stamp: Emit writes it into
// every JSON document as the document's first field, "produced_by". Other
// formats are not changed. The stamp may be filled in after the writer is
// made (once the command's flags are parsed), but before Emit.
type Stamped struct {
	io.Writer
	Stamp *Stamp
	// Settings, when not nil, is called at output time to fill
	// Stamp.Settings (the flags are parsed after the writer is made).
	Settings func() map[string]string
	// Width is the terminal's width in columns when the output is a
	// terminal, 0 otherwise (a pipe or a file): Emit fits tables in the
	// table format to it (see Fit).
	Width int
}

// stampJSON encodes doc as indented JSON with the stamp spliced in as its
// first field. A document that is not a JSON object is written as is.
func stampJSON(w io.Writer, s *Stamp, doc any) error {
	body, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	if len(body) < 2 || body[0] != '{' {
		_, err := fmt.Fprintf(w, "%s\n", body)
		return err
	}
	st, err := json.MarshalIndent(s, "  ", "  ")
	if err != nil {
		return err
	}
	var b bytes.Buffer
	b.WriteString("{\n  \"produced_by\": ")
	b.Write(st)
	if rest := bytes.TrimSpace(body[1:]); !bytes.Equal(rest, []byte("}")) {
		b.WriteString(",")
	} else {
		b.WriteString("\n")
	}
	b.Write(body[1:])
	b.WriteString("\n")
	_, err = w.Write(b.Bytes())
	return err
}
