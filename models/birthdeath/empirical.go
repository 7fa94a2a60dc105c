package birthdeath

import (
	"fmt"

	"github.com/tailbound/tailbound/models/trace"
)

// EmpiricalFromTrace returns the empirical distribution of the prompt or
// response lengths (field "prompt" or "response", tokens) of the canonical
// trace at path.
func EmpiricalFromTrace(path, field string) (Empirical, error) {
	if field != "prompt" && field != "response" {
		return Empirical{}, fmt.Errorf("empirical distribution: field must be prompt or response, got %q", field)
	}
	tr, err := trace.ReadFile(path)
	if err != nil {
		return Empirical{}, err
	}
	if len(tr.Turns) == 0 {
		return Empirical{}, fmt.Errorf("%s: no turns to draw %s lengths from", path, field)
	}
	v := make([]int64, len(tr.Turns))
	for i, t := range tr.Turns {
		if field == "prompt" {
			v[i] = t.Prompt
		} else {
			v[i] = t.Response
		}
	}
	return Empirical{Values: v}, nil
}
