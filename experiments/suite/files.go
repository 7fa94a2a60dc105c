package suite

import (
	"context"
	"errors"
	"io"
	"os"

	"github.com/tailbound/tailbound/internal/outfile"
)

// ReadFiles reads the result files at paths and merges them (Merge).
func ReadFiles(paths []string) (*File, error) {
	var files []*File
	for _, p := range paths {
		r, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		f, err := ReadFile(r, p)
		r.Close()
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return Merge(files)
}

// MergeOptions are the settings of the merge command.
type MergeOptions struct {
	// Files are the result files of a suite's shards.
	Files []string
	// Format is the output format (FormatHelp).
	Format string
	// Out, when not empty, also receives the merged result file.
	Out string
	// Others render the merged files of commands other than the suites
	// (by the name in their "suite" field, e.g. solve --windows's
	// "solve-windows"), after the same checks.
	Others map[string]func(w io.Writer, f *File, format string) error
}

// MergeFiles merges the result files of o.Files, writes the merged file to
// o.Out when set and prints the unsharded run's output to stdout.
func MergeFiles(ctx context.Context, o MergeOptions, stdout io.Writer) error {
	if len(o.Files) == 0 {
		return errors.New("usage: tailbound merge FILE... (the result files of tables SUITE --shard i/n)")
	}
	if err := CheckFormat(o.Format); err != nil {
		return err
	}
	f, err := ReadFiles(o.Files)
	if err != nil {
		return err
	}
	if render, ok := o.Others[f.Suite]; ok {
		if o.Out != "" {
			if err := outfile.Write(ctx, "out", o.Out, stdout, f.Write, o.Files...); err != nil {
				return err
			}
		}
		return render(stdout, f, o.Format)
	}
	s, err := Lookup(f.Suite)
	if err != nil {
		return err
	}
	if o.Out != "" {
		if err := outfile.Write(ctx, "out", o.Out, stdout, f.Write, o.Files...); err != nil {
			return err
		}
	}
	return Render(stdout, s, f, o.Format)
}
