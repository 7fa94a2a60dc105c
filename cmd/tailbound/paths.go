package main

import (
	"strings"

	"github.com/spf13/pflag"

	"github.com/tailbound/tailbound/internal/atomicfile"
	"github.com/tailbound/tailbound/internal/option"
)

// Roles of the flags that name files: what a command reads (input) and
// what it writes (output).
const (
	roleInput  = "input"
	roleOutput = "output"
)

// fileRole is the role of flag name in command (its flag set's name), or
// "" for a flag that names no file. Every command's file flags are listed
// here, in one place, so that outputsNotInputs checks every output of
// every command against every input (issue 35 item 3: solve --objective
// slo|pQ --schedule overwrote the trace, because only the TEL path had
// remembered to check); TestFileRoles fails on a flag that looks like a
// file and is not listed.
func fileRole(command, name string) string {
	switch name {
	case "trace", "in", "csv", "fit", "mix", "model", "model-json", "results", "traces", "mooncake-dir", "prompt", "response":
		return roleInput
	case "out", "model-out", "plot", "save", "deaths", "emit-schedule", "plot-dir", "dir", "round-dir":
		return roleOutput
	case "schedule": // solve writes one; gap and simulate read them
		if command == "solve" {
			return roleOutput
		}
		return roleInput
	}
	return ""
}

// outputsNotInputs refuses, in one line naming the output flag, an output
// path that is the same file as an input path (by name, symbolic or hard
// link: atomicfile.RefuseInput) among the flags set on fs. Input lists
// (comma-separated, "empirical:FILE") are split into their paths.
func outputsNotInputs(fs *pflag.FlagSet) error {
	var inputs []string
	fs.Visit(func(f *pflag.Flag) {
		if fileRole(fs.Name(), f.Name) == roleInput {
			inputs = append(inputs, flagPaths(f)...)
		}
	})
	var err error
	fs.Visit(func(f *pflag.Flag) {
		if err != nil || fileRole(fs.Name(), f.Name) != roleOutput {
			return
		}
		for _, p := range flagPaths(f) {
			if e := atomicfile.RefuseInput(p, inputs...); e != nil {
				err = option.Wrap(f.Name, e)
				return
			}
		}
	})
	return err
}

// flagPaths returns the paths flag f may name: its value, and the items
// of a comma-separated list, each without an "empirical:" prefix.
func flagPaths(f *pflag.Flag) []string {
	var vals []string
	if sv, ok := f.Value.(pflag.SliceValue); ok {
		vals = sv.GetSlice()
	} else {
		vals = []string{f.Value.String()}
	}
	var out []string
	for _, v := range vals {
		out = append(out, v)
		for _, p := range strings.Split(v, ",") {
			out = append(out, strings.TrimPrefix(p, "empirical:"))
		}
	}
	return out
}
