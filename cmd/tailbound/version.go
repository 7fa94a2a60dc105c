package main

import (
	"runtime/debug"

	"github.com/spf13/pflag"

	"github.com/tailbound/tailbound/experiments/report"
)

// version returns the program's version: the module version when built from
// a tagged module, else "devel", then the commit it was built from (with
// "+modified" for a dirty work tree) and the Go version.
func version() string {
	v := "devel"
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	if bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v = bi.Main.Version
	}
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = "+modified"
			}
		}
	}
	if rev != "" {
		v += " " + rev + modified
	}
	return v + " " + bi.GoVersion
}

// stampFlags makes the stamp of a stamped output writer name the command
// and, at output time, every flag's value (set or defaulted).
func stampFlags(stdout any, name string, fs *pflag.FlagSet) {
	sw, ok := stdout.(*report.Stamped)
	if !ok || sw.Stamp == nil {
		return
	}
	sw.Stamp.Command = name
	sw.Settings = func() map[string]string {
		m := map[string]string{}
		fs.VisitAll(func(f *pflag.Flag) { m[f.Name] = f.Value.String() })
		return m
	}
}
