package kvsize

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// ReadJSON reads one Config from a JSON object with the fields of Config
// (unknown fields are an error, so that a misspelt field is not silently
// zero). name is the file name used in errors.
func ReadJSON(r io.Reader, name string) (Config, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return Config{}, fmt.Errorf("%s: %w", name, err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var c Config
	if err := dec.Decode(&c); err != nil {
		return Config{}, fmt.Errorf("%s:%d: %v", name, errLine(data, err, dec), err)
	}
	if dec.More() {
		return Config{}, fmt.Errorf("%s:%d: more than one JSON value", name, lineAt(data, dec.InputOffset()))
	}
	if err := c.Validate(); err != nil {
		return Config{}, fmt.Errorf("%s: %s", name, oneLine(err))
	}
	if c.Name == "" {
		c.Name = name
	}
	return c, nil
}

// errLine is the 1-based line of a decoding error.
func errLine(data []byte, err error, dec *json.Decoder) int {
	switch e := err.(type) {
	case *json.SyntaxError:
		return lineAt(data, e.Offset)
	case *json.UnmarshalTypeError:
		return lineAt(data, e.Offset)
	}
	return lineAt(data, dec.InputOffset())
}

func lineAt(data []byte, off int64) int {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	if off < 0 {
		off = 0
	}
	return 1 + bytes.Count(data[:off], []byte{'\n'})
}

// oneLine joins a possibly multi-line (errors.Join) error into one line.
func oneLine(err error) string {
	return string(bytes.ReplaceAll([]byte(err.Error()), []byte{'\n'}, []byte("; ")))
}
