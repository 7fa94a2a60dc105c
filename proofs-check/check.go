package proofscheck

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/internal/option"
	"github.com/tailbound/tailbound/proofs-check/claim"
)

// CheckOptions are the settings of the check command.
type CheckOptions struct {
	// Claims name claims or claim families (a prefix followed by "-"), as
	// Select reads them; none selects every default claim.
	Claims []string
	// Instances is the number of random instances per claim (≥ 1).
	Instances int
	// Seed seeds the instance generators.
	Seed uint64
	// Exhaustive checks every instance of each claim's small scope (its
	// "exhaustive up to" bound) before the random ones.
	Exhaustive bool
	// Format is the output format (report.FormatHelp).
	Format string
}

// Validate returns an *option.Error for a setting that cannot be used.
func (o CheckOptions) Validate() error {
	if err := report.CheckFormat(o.Format); err != nil {
		return err
	}
	if o.Instances < 1 {
		return option.Errorf("instances", "must be ≥ 1, got %d", o.Instances)
	}
	return nil
}

// Check runs the selected claims, on every instance of their small scope
// when o.Exhaustive and then on random instances, and returns what the
// check command prints: the reports as the JSON document and one table
// row per claim with its smallest counterexample.
func Check(o CheckOptions) (any, report.Table, error) {
	title := fmt.Sprintf("claims checked on random instances (seed %d)", o.Seed)
	if o.Exhaustive {
		title = fmt.Sprintf("claims checked on every instance up to a small size, then on random instances (seed %d)", o.Seed)
	}
	t := report.Table{Title: title,
		Header: []string{"claim", "instances", "exhaustive", "random", "passed", "failed", "exhaustive up to", "smallest counterexample"}}
	if err := o.Validate(); err != nil {
		return nil, t, err
	}
	claims, err := Select(o.Claims)
	if err != nil {
		return nil, t, err
	}
	reports, err := claim.RunOptions(claims, claim.Options{Instances: o.Instances, Seed: o.Seed, Exhaustive: o.Exhaustive})
	if err != nil {
		return nil, t, err
	}
	for _, r := range reports {
		ce := report.CellNone("none")
		if r.Counterexample != nil {
			b, err := json.Marshal(r.Counterexample)
			if err != nil {
				return nil, t, err
			}
			ce = report.CellText(string(b))
		}
		bound := report.CellNone("none")
		if r.ExhaustiveBound != "" {
			bound = report.CellText(r.ExhaustiveBound)
		}
		t.Add(report.CellText(r.Name), report.CellI(int64(r.Instances)), report.CellI(int64(r.Exhaustive)), report.CellI(int64(r.Random)),
			report.CellI(int64(r.Passed)), report.CellI(int64(r.Failed)), bound, ce)
	}
	return map[string]any{"checks": reports}, t, nil
}

// ClaimsHelp lists the claims a check command can name, one per line, for
// its --help: the default ones, then those run only when named.
func ClaimsHelp() string {
	var b strings.Builder
	b.WriteString("\nClaims (a name or a family prefix, e.g. theorem1; none: every default claim):\n")
	for _, c := range All() {
		fmt.Fprintf(&b, "  %s\n", c.Name)
	}
	for _, c := range OnRequest() {
		fmt.Fprintf(&b, "  %s (only when named: measures this machine)\n", c.Name)
	}
	return b.String()
}
