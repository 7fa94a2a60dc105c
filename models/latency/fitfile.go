package latency

import (
	"fmt"
	"os"
)

// FitFile reads the measured points of the CSV file at path (ReadPoints:
// columns uncached_tokens in tokens, ttft_ms in ms) and fits the model to
// them (Fit); a fit error names the file.
func FitFile(path string) (Model, []Point, error) {
	f, err := os.Open(path)
	if err != nil {
		return Model{}, nil, err
	}
	defer f.Close()
	pts, err := ReadPoints(f, path)
	if err != nil {
		return Model{}, nil, err
	}
	m, err := Fit(pts)
	if err != nil {
		return Model{}, nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, pts, nil
}
