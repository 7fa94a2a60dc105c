package main

import (
	"context"
	"fmt"
	"io"

	"github.com/tailbound/tailbound/experiments/report"
	proofscheck "github.com/tailbound/tailbound/proofs-check"
)

// runCheck checks the literature's claims on random instances.
func runCheck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("check", "check [CLAIM...] [--instances N] [--seed S] [--exhaustive=false] [--format F]", stdout)
	var o proofscheck.CheckOptions
	fs.IntVar(&o.Instances, "instances", 200, "random instances per claim")
	fs.Uint64Var(&o.Seed, "seed", 1, "seed of the instance generators")
	fs.BoolVar(&o.Exhaustive, "exhaustive", true, "first check every instance up to each claim's stated small size (turns, conversations, lengths in tokens, C in blocks, B and ξ in tokens); --exhaustive=false draws random instances only")
	fs.StringVar(&o.Format, "format", "table", report.FormatHelp)
	usage := fs.Usage
	fs.Usage = func() { usage(); fmt.Fprint(stdout, proofscheck.ClaimsHelp()) }
	if err := parseFlagsPositional(fs, args); err != nil {
		return err
	}
	o.Claims = fs.Args()
	doc, t, err := proofscheck.Check(o)
	if err != nil {
		return err
	}
	return report.Emit(stdout, o.Format, doc, t)
}
