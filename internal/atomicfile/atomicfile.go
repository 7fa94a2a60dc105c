// Package atomicfile writes output files so that a reader never sees a
// partial one: the content goes to a temporary file in the same directory,
// which is renamed over the destination only when the whole write has
// succeeded. A failed or cancelled write (an error, SIGINT through a
// context) removes the temporary file. The file gets the permissions an
// ordinary create would give it: 0666 less the process umask.
package atomicfile

import (
	"bufio"
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// File is an output file being written: a temporary file in the
// destination's directory, renamed over the destination by Commit. Create
// it before writing anything elsewhere, so that an unwritable path is an
// error before any output.
type File struct {
	path string
	f    *os.File
	w    *bufio.Writer
}

// Create starts writing path. The writes fail with ctx's error once ctx is
// done, so a long write stops at its next Write call.
func Create(ctx context.Context, path string) (*File, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return nil, err
	}
	return &File{path: path, f: f, w: bufio.NewWriterSize(ctxWriter{ctx, f}, 1<<16)}, nil
}

// Write writes p to the temporary file.
func (a *File) Write(p []byte) (int, error) { return a.w.Write(p) }

// Commit flushes the file, gives it the permissions 0666 less the umask and
// renames it over the destination. On error the temporary file is removed.
func (a *File) Commit() error {
	err := a.w.Flush()
	if err == nil {
		err = a.f.Chmod(0o666 &^ Umask())
	}
	if cerr := a.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(a.f.Name(), a.path)
	}
	if err != nil {
		os.Remove(a.f.Name())
	}
	return err
}

// Abort removes the temporary file, leaving the destination as it was. It
// is safe to call after Commit (it then does nothing).
func (a *File) Abort() {
	a.f.Close()
	if _, err := os.Stat(a.f.Name()); err == nil {
		os.Remove(a.f.Name())
	}
}

// Write creates or replaces path with what write writes, whole or not at
// all (see Create).
func Write(ctx context.Context, path string, write func(io.Writer) error) error {
	a, err := Create(ctx, path)
	if err != nil {
		return err
	}
	defer a.Abort()
	if err := write(a); err != nil {
		return err
	}
	return a.Commit()
}

// ctxWriter fails every write once its context is done.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}

// Umask returns the process umask. It reads it from /proc/self/status
// (Linux ≥ 4.7), which, unlike the umask system call, does not change it
// even for an instant; elsewhere it assumes the common 022.
func Umask() fs.FileMode {
	b, err := os.ReadFile("/proc/self/status")
	if err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "Umask:"); ok {
				if m, err := strconv.ParseUint(strings.TrimSpace(v), 8, 32); err == nil {
					return fs.FileMode(m)
				}
			}
		}
	}
	return 0o022
}
