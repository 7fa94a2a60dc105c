package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/experiments/suite"
)

// groupOrder is the order of the flag groups in --help and in the
// generated reference (docs/reference), and each group's heading.
func groupOrder() []struct{ key, title string } {
	return []struct{ key, title string }{
		{"input", "Input"},
		{"workload", "Embedded workload (birth–death model)"},
		{"prefixgen", "Block-level workload model (gen prefix)"},
		{"model", "Model: cache, latency and threshold"},
		{"policies", "Policies"},
		{"block", "Block level"},
		{"mdp", "Belief MDP instance"},
		{"hardware", "LLM, GPU and storage tier"},
		{"recompute", "Recompute or load: search and measurement"},
		{"analysis", "Trace analysis"},
		{"solver", "Solver"},
		{"sweep", "Sweep and repetitions"},
		{"suite", "Suite"},
		{"run", "Run"},
		{"output", "Output"},
	}
}

// sharedGroups gives the group of a flag by its name, for every command
// that does not say otherwise in commandGroups. A new flag needs one line
// here (or in commandGroups when its topic differs by command);
// TestFlagGroups fails while a flag has none.
func sharedGroups() map[string]string {
	return map[string]string{
		// input
		"trace": "input", "trace-format": "input", "in": "input", "csv": "input", "results": "input",
		"trace-type-params": "input", "mix": "input", "schedule": "input", "live": "input",
		// embedded workload
		"seed": "workload", "lambda-conv": "workload", "mu": "workload", "rates": "workload", "gamma": "workload",
		"prompt": "workload", "response": "workload", "duration": "workload", "turns": "workload", "deaths": "workload",
		// model
		"capacity": "model", "block-size": "model", "alpha-ms": "model", "beta-ms": "model", "xi-ms": "model",
		"xi-tokens": "model", "slo-ms": "model", "slo-tokens": "model", "forced": "model", "level": "model",
		// policies
		"policies": "policies", "qhat": "policies", "threshold": "policies", "policy-opt": "policies",
		"baseline": "policies", "exec-timeout": "policies", "emit-schedule": "policies",
		// block level
		"max-chain-blocks": "block", "queue": "block", "queue-servers": "block", "ablation": "block",
		"block-sizes": "block", "no-ideal": "block", "lp-solver": "block", "ip-solver": "block",
		// belief MDP instance
		"seats": "mdp", "world": "mdp", "served": "mdp", "birth": "mdp", "step": "mdp", "horizon": "mdp",
		"max-turns": "mdp", "discount": "mdp", "max-states": "mdp", "allow-empty-prompts": "mdp", "items": "mdp",
		// LLM, GPU and storage tier
		"model": "hardware", "model-json": "hardware", "model-layers": "hardware", "kv-heads": "hardware",
		"head-dim": "hardware", "heads": "hardware", "bytes-per-value": "hardware", "params": "hardware",
		"layers": "hardware", "attn-dim": "hardware", "gpu": "hardware", "tflops": "hardware", "mfu": "hardware",
		"bandwidth": "hardware", "tiers": "hardware",
		// recompute or load
		"tokens": "recompute", "r-min": "recompute", "r-max": "recompute", "r0": "recompute", "eps": "recompute",
		"tol": "recompute", "grid": "recompute", "variant": "recompute", "tc-us": "recompute", "ti-us": "recompute",
		"fit-layers": "recompute", "fit-tokens": "recompute", "median": "recompute", "profile-steps": "recompute",
		"chunk": "recompute", "chunk-overhead-ms": "recompute", "to-ms": "output", "save": "output",
		// trace analysis
		"chain-length": "analysis", "extra-types": "analysis", "min-shared-blocks": "analysis", "window": "analysis",
		"spatial": "analysis", "gpus": "analysis", "hbm-reserve": "analysis", "hubs": "analysis", "kv-model": "analysis",
		"max-turn": "analysis", "shared-share": "analysis",
		// solver
		"solver": "solver", "objective": "solver", "formulation": "solver", "relax": "solver", "time-limit": "solver", "cross-check": "solver",
		"warm-start": "solver", "windows": "solver", "window-turns": "solver", "target-width": "solver", "seam-turns": "solver", "seam-requests": "solver", "join-requests": "solver", "lower-overlap-requests": "solver", "lower-overlap-weights": "solver", "replay-lookahead-requests": "solver", "relaxation-history": "solver", "block-ids": "solver", "lower-overlap": "solver", "max-probes": "solver", "slo-upper": "solver", "slo-lns-windows": "solver", "taus": "solver", "rounds": "solver", "round-dir": "suite", "per-window": "output",
		// sweep and repetitions
		"capacities": "sweep", "xis": "sweep", "thresholds": "sweep", "seeds": "sweep", "reps": "sweep",
		// suite
		"small": "suite", "shard": "suite", "slurm": "suite",
		// run
		"workers": "run", "instances": "run", "exhaustive": "run",
		// output
		"format": "output", "out": "output", "plot": "output", "plot-dir": "output", "dir": "output", "ext": "output",
		"to": "output",
	}
}

// commandGroups overrides sharedGroups for one command (named as newFlags
// names it, e.g. "gen birth-death", or by its first word, e.g. "recompute").
func commandGroups() map[string]map[string]string {
	return map[string]map[string]string{
		"check":  {"seed": "run"},
		"solve":  {"schedule": "output"},
		"tables": {"seed": "suite", "workers": "suite", "seeds": "suite"},
		"plot":   {"seed": "suite", "workers": "suite"},
		"gen":    {"seed": "workload", "fit": "workload", "fit-laws": "workload"},
		"gen prefix": {"preset": "prefixgen", "model": "prefixgen", "fit": "prefixgen", "gap-law": "prefixgen", "length-law": "prefixgen", "min-share": "prefixgen",
			"seed": "prefixgen", "requests": "prefixgen", "duration": "prefixgen", "model-out": "output"},
		"mdp":          {"seed": "run"},
		"merge":        {},
		"recompute":    {},
		"latency":      {},
		"import":       {},
		"characterize": {},
	}
}

// flagGroup is the group of flag in command ("" when it has none). A
// suite's own parameters (tables SUITE, plot SUITE) are in "suite".
func flagGroup(command, flag string) string {
	if w := strings.Fields(command); len(w) == 2 && (w[0] == "tables" || w[0] == "plot") {
		for _, s := range suite.All() {
			for _, p := range s.Params {
				if s.Name == w[1] && p.Name == flag {
					return "suite"
				}
			}
		}
	}
	cg := commandGroups()
	for _, key := range []string{command, strings.Fields(command + " x")[0]} {
		if g, ok := cg[key][flag]; ok {
			return g
		}
	}
	return sharedGroups()[flag]
}

// helpGroup is one section of a command's flags.
type helpGroup struct {
	Title string
	Flags *pflag.FlagSet
}

// groupFlags splits fs's visible flags into their groups, in groupOrder,
// each group's flags in the order the command defines them; flags with no
// group come last, under "Other".
func groupFlags(command string, fs *pflag.FlagSet) []helpGroup {
	sets := map[string]*pflag.FlagSet{}
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		g := flagGroup(command, f.Name)
		if sets[g] == nil {
			sets[g] = pflag.NewFlagSet(g, pflag.ContinueOnError)
			sets[g].SortFlags = false
		}
		sets[g].AddFlag(f)
	})
	var out []helpGroup
	for _, g := range groupOrder() {
		if s := sets[g.key]; s != nil {
			out = append(out, helpGroup{g.title, s})
		}
	}
	if s := sets[""]; s != nil {
		out = append(out, helpGroup{"Other", s})
	}
	return out
}

// writeUsage writes a command's --help: its synopsis, then its flags by
// group.
func writeUsage(w io.Writer, command, synopsis string, fs *pflag.FlagSet) {
	fmt.Fprintf(w, "Usage: tailbound %s\n", synopsis)
	for _, g := range groupFlags(command, fs) {
		fmt.Fprintf(w, "\n%s:\n%s", g.Title, g.Flags.FlagUsages())
	}
}

// helpSink receives a command's flags when --help is asked of a run whose
// standard output is one (the reference generator, in the tests), instead
// of the printed help.
type helpSink interface {
	help(command, synopsis string, fs *pflag.FlagSet)
}

// sinkOf returns the helpSink that w is, or wraps, if any.
func sinkOf(w io.Writer) (helpSink, bool) {
	for {
		if s, ok := w.(helpSink); ok {
			return s, true
		}
		switch u := w.(type) {
		case *report.Stamped:
			w = u.Writer
		case interface{ Unwrap() io.Writer }:
			w = u.Unwrap()
		default:
			return nil, false
		}
	}
}
