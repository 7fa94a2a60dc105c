package main

import (
	"io"

	"github.com/tailbound/tailbound/experiments/exactgap"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/mdp/etlru"
)

// runMDPOneStep is 'tailbound mdp onestep': one one-step ET-LRU problem
// solved by the greedy and by the exact dynamic program.
func runMDPOneStep(args []string, stdout io.Writer) error {
	var o etlru.OneStepOptions
	fs := newFlags("mdp onestep", "mdp onestep --items R:H:U[:RECENCY][:fixed],… --capacity C --block-size B --xi-tokens X --prompt pmf:… [--format F]", stdout)
	fs.StringVar(&o.Items, "items", "", "items RATE:HISTORY:UPPER[:RECENCY][:fixed],… (turns per s, tokens, most it may keep in tokens; recency breaks ties, default the item's index; fixed keeps UPPER)")
	fs.Int64Var(&o.Capacity, "capacity", 0, "cache capacity C, tokens (a multiple of --block-size)")
	fs.Int64Var(&o.BlockSize, "block-size", 1, "block size B, tokens")
	fs.Float64Var(&o.Xi, "xi-tokens", 0, "TEL threshold ξ, tokens")
	fs.StringVar(&o.Prompt, "prompt", "pmf:1:1", "next prompt length Q: pmf:TOKENS:PROB,…, fixed:N, geometric:MEAN, lognormal:MU,SIGMA or empirical:FILE (0 tokens admitted)")
	format, err := parseFormat(fs, args)
	if err != nil {
		return err
	}
	doc, tables, err := exactgap.OneStep(o)
	if err != nil {
		return err
	}
	return report.Emit(stdout, format, doc, tables...)
}
