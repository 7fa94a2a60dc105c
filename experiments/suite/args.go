package suite

import (
	"fmt"
	"strings"

	"github.com/tailbound/tailbound/experiments/report"
)

// FromArgs splits the suite named by the first of args off the rest, for
// the command cmd (tables, plot) that takes SUITE [flags].
func FromArgs(cmd string, args []string) (*Suite, []string, error) {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return nil, nil, fmt.Errorf("usage: tailbound %s SUITE [flags] (tailbound tables --list names the suites)", cmd)
	}
	s, err := Lookup(args[0])
	return s, args[1:], err
}

// List returns what tables --list prints: every suite with its source and
// workload, and in the JSON document its policies and metrics too.
func List() (any, report.Table) {
	t := report.Table{Title: "experiment suites (tailbound tables SUITE, tailbound plot SUITE)",
		Header: []string{"suite", "source", "workload"}}
	var doc []map[string]any
	for _, s := range All() {
		t.Rows = append(t.Rows, []string{s.Name, s.Source, s.Workload})
		doc = append(doc, map[string]any{"name": s.Name, "source": s.Source, "workload": s.Workload,
			"policies": s.Policies, "metrics": s.Metrics})
	}
	return map[string]any{"suites": doc}, t
}

// withGiven returns o with s's own parameters among given (flags as
// --name=value) added to its Params, which is never nil.
func (s *Suite) withGiven(o Options, given []string) Options {
	params := map[string]string{}
	for k, v := range o.Params {
		params[k] = v
	}
	for _, a := range given {
		name, v, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		for _, p := range s.Params {
			if p.Name == name {
				params[name] = v
			}
		}
	}
	o.Params = params
	return o
}
