package prefixgen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// ParseModel reads a model from JSON: unknown fields, trailing data and
// invalid values are errors, prefixed with name.
func ParseModel(data []byte, name string) (Model, error) {
	var m Model
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(&m); err != nil {
		return Model{}, fmt.Errorf("%s: %w", name, err)
	}
	if _, err := d.Token(); err != io.EOF {
		return Model{}, fmt.Errorf("%s: data after the model's JSON object", name)
	}
	if err := m.Validate(); err != nil {
		return Model{}, fmt.Errorf("%s: %w", name, err)
	}
	return m, nil
}

// ReadModel reads the model file at path.
func ReadModel(path string) (Model, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Model{}, err
	}
	return ParseModel(b, path)
}

// JSON returns m as indented JSON with a final newline.
func (m Model) JSON() []byte {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		panic(err) // a Model has only numbers, strings and slices
	}
	return append(b, '\n')
}
