// Package outfile writes a command's output to standard output or to a
// file named by a flag, the way every tailbound command does: standard
// output receives whole lines only (an interrupted run stops at a line's
// end), and a file is written whole or not at all.
package outfile

import (
	"context"
	"io"

	"github.com/tailbound/tailbound/internal/atomicfile"
	"github.com/tailbound/tailbound/internal/lineout"
	"github.com/tailbound/tailbound/internal/option"
)

// Stdout is the path that names standard output.
const Stdout = "-"

// Write runs write on path (Stdout: stdout, whole lines only). A file is
// written to a temporary file and renamed when complete (atomicfile), so a
// failed or interrupted write leaves no partial or temporary file. An
// error of write is returned as it is; an error of the file itself names
// flag, the flag that gave path. A path that is the same file as one of
// inputs (the files the command reads) is refused before write runs
// (atomicfile.RefuseInput); symbolic links, devices and named pipes are
// written as atomicfile says.
func Write(ctx context.Context, flag, path string, stdout io.Writer, write func(io.Writer) error, inputs ...string) error {
	if path == Stdout {
		lines := lineout.New(ctx, stdout)
		if err := write(lines); err != nil {
			return err
		}
		return lines.Close()
	}
	if err := atomicfile.RefuseInput(path, inputs...); err != nil {
		return option.Wrap(flag, err)
	}
	var werr error // the input's errors are not the output file's
	err := atomicfile.Write(ctx, path, func(w io.Writer) error { werr = write(w); return werr })
	if werr != nil {
		return werr
	}
	return option.Wrap(flag, err)
}
