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

// Write creates or replaces path with what write writes. When ctx is
// cancelled, the writer given to write fails with ctx's error, so a long
// write stops at its next Write call; nothing is left behind.
func Write(ctx context.Context, path string, write func(io.Writer) error) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	bw := bufio.NewWriterSize(ctxWriter{ctx, f}, 1<<16)
	if err := write(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := f.Chmod(0o666 &^ Umask()); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return err
	}
	return nil
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
