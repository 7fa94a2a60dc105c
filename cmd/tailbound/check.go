package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/tailbound/tailbound/experiments/report"
	proofscheck "github.com/tailbound/tailbound/proofs-check"
	"github.com/tailbound/tailbound/proofs-check/claim"
)

// runCheck checks the literature's claims on random instances.
func runCheck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("check", "check [CLAIM...] [--instances N] [--seed S] [--format F]", stdout)
	instances := fs.Int("instances", 200, "random instances per claim")
	seed := fs.Uint64("seed", 1, "seed of the instance generators")
	format := fs.String("format", "table", report.FormatHelp)
	usage := fs.Usage
	fs.Usage = func() {
		usage()
		fmt.Fprintln(stdout, "\nClaims (a name or a family prefix, e.g. theorem1; none: every default claim):")
		for _, c := range proofscheck.All() {
			fmt.Fprintf(stdout, "  %s\n", c.Name)
		}
		for _, c := range proofscheck.OnRequest() {
			fmt.Fprintf(stdout, "  %s (only when named: measures this machine)\n", c.Name)
		}
	}
	if err := parseFlagsPositional(fs, args); err != nil {
		return err
	}
	if err := report.CheckFormat(*format); err != nil {
		return err
	}
	if *instances < 1 {
		return fmt.Errorf("flag --instances: must be ≥ 1, got %d", *instances)
	}
	claims, err := proofscheck.Select(fs.Args())
	if err != nil {
		return err
	}
	reports, err := claim.Run(claims, *instances, *seed)
	if err != nil {
		return err
	}
	t := report.Table{Title: fmt.Sprintf("claims checked on random instances (seed %d)", *seed),
		Header: []string{"claim", "instances", "passed", "failed", "smallest counterexample"}}
	for _, r := range reports {
		ce := "none"
		if r.Counterexample != nil {
			b, err := json.Marshal(r.Counterexample)
			if err != nil {
				return err
			}
			ce = string(b)
		}
		t.Rows = append(t.Rows, []string{r.Name, fmt.Sprint(r.Instances), fmt.Sprint(r.Passed), fmt.Sprint(r.Failed), ce})
	}
	return report.Emit(stdout, *format, map[string]any{"checks": reports}, t)
}
