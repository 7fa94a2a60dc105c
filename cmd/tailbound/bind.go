package main

import "github.com/spf13/pflag"

// given returns the flags set on the command line, by name (what
// pflag.FlagSet.Changed reports), for option types that depend on them.
func given(fs *pflag.FlagSet) map[string]bool {
	m := map[string]bool{}
	fs.Visit(func(f *pflag.Flag) { m[f.Name] = true })
	return m
}
