package exactgap

import (
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/mdp/exact"
)

// Run is 'tailbound mdp solve': it validates s (errors name the flag),
// solves the belief MDP exactly, evaluates s's policies and returns the
// JSON document and the table the command prints.
func Run(s exact.Settings) (any, []report.Table, error) {
	in, deciders, qhat, err := s.Build()
	if err != nil {
		return nil, nil, err
	}
	rows, err := exact.Compare(in, deciders)
	if err != nil {
		return nil, nil, err
	}
	doc, t := Report(in, qhat, rows)
	return doc, []report.Table{t}, nil
}
