// Package atomicfile writes output files so that a reader never sees a
// partial one: the content goes to a temporary file in the same directory,
// which is renamed over the destination only when the whole write has
// succeeded. A failed or cancelled write (an error, SIGINT through a
// context) removes the temporary file; the temporary file is also
// registered with the context's clean-up set (internal/cleanup), so that
// a process ended by a signal's grace period leaves none behind. The file
// gets the permissions an ordinary create would give it: 0666 less the
// process umask.
//
// What the path names decides how it is written:
//   - a regular file, or nothing yet: the atomic write above;
//   - a symbolic link: the file it points to (followed to the end, also
//     when that file does not exist yet), atomically; the link stays;
//   - a character or block device or a named pipe (/dev/null, /dev/full,
//     a FIFO): written through directly, as a shell's > would (there is
//     nothing to rename over); a write error such as /dev/full's "no
//     space left on device" is returned;
//   - anything else (a directory, a socket): refused with an error;
//   - "-" (which means standard output where a command can write there,
//     internal/outfile): refused rather than creating a file named "-".
//
// RefuseInput refuses an output that is the same file as an input.
package atomicfile

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tailbound/tailbound/internal/cleanup"
)

// File is an output file being written: a temporary file in the
// destination's directory, renamed over the destination by Commit (or,
// for a device or named pipe, the destination itself). Create it before
// writing anything elsewhere, so that an unwritable path is an error
// before any output.
type File struct {
	ctx    context.Context
	path   string // the destination, symbolic links resolved
	f      *os.File
	w      *bufio.Writer
	direct bool   // writing the destination itself (device, pipe)
	done   bool   // committed or aborted
	forget func() // removes the clean-up registration
}

// maxLinks bounds the symbolic links followed, as the kernel's ELOOP does.
const maxLinks = 40

// Resolve returns the file path names for writing: path itself, or the
// end of its chain of symbolic links (which may not exist yet).
func Resolve(path string) (string, error) {
	p := path
	for range maxLinks {
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return p, nil
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return p, nil
		}
		t, err := os.Readlink(p)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(filepath.Dir(p), t)
		}
		p = t
	}
	return "", fmt.Errorf("%s: more than %d symbolic links", path, maxLinks)
}

// Create starts writing path (see the package comment for links, devices
// and pipes). The writes fail with ctx's error once ctx is done, so a long
// write stops at its next Write call, and Commit then does not replace
// the destination.
func Create(ctx context.Context, path string) (*File, error) {
	if path == "-" || path == "" {
		// "-" means standard output to every tailbound command that can
		// write there (internal/outfile); where a flag cannot, a file
		// named "-" would surprise.
		return nil, fmt.Errorf("%q: not a file name here (standard output carries the command's own output); name a file", path)
	}
	a := &File{ctx: ctx, path: path}
	// What the path names, as the kernel resolves it: this also follows
	// the magic links of /proc (/dev/stdout → /proc/self/fd/1 → a pipe),
	// which Resolve cannot read as paths.
	fi, err := os.Stat(path)
	if err == nil && !fi.Mode().IsRegular() {
		if fi.Mode()&(fs.ModeDevice|fs.ModeCharDevice|fs.ModeNamedPipe) == 0 {
			return nil, fmt.Errorf("%s: not a regular file, device or named pipe (%v)", path, fi.Mode().Type())
		}
		if a.f, err = os.OpenFile(path, os.O_WRONLY, 0); err != nil {
			return nil, err
		}
		a.direct = true
		a.forget = func() {}
		a.w = bufio.NewWriterSize(ctxWriter{ctx, a.f}, 1<<16)
		return a, nil
	}
	if a.path, err = Resolve(path); err != nil {
		return nil, err
	}
	if a.f, err = os.CreateTemp(filepath.Dir(a.path), "."+filepath.Base(a.path)+".tmp*"); err != nil {
		return nil, err
	}
	name := a.f.Name()
	a.forget = cleanup.Add(ctx, func() { os.Remove(name) })
	a.w = bufio.NewWriterSize(ctxWriter{ctx, a.f}, 1<<16)
	return a, nil
}

// Write writes p to the temporary file (or the device or pipe).
func (a *File) Write(p []byte) (int, error) { return a.w.Write(p) }

// Commit flushes the file, gives it the permissions 0666 less the umask and
// renames it over the destination, unless ctx is done (then it is
// removed and ctx's error returned). On error the temporary file is
// removed. A device or pipe is flushed and closed.
func (a *File) Commit() error {
	if a.done {
		return errors.New("atomicfile: Commit after Commit or Abort")
	}
	a.done = true
	defer a.forget()
	err := a.w.Flush()
	if a.direct {
		if cerr := a.f.Close(); err == nil {
			err = cerr
		}
		return err
	}
	if err == nil {
		err = a.f.Chmod(0o666 &^ Umask())
	}
	if cerr := a.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = a.ctx.Err() // interrupted: the destination stays as it was
	}
	if err == nil {
		err = os.Rename(a.f.Name(), a.path)
	}
	if err != nil {
		os.Remove(a.f.Name())
	}
	return err
}

// Abort removes the temporary file, leaving the destination as it was (a
// device or pipe keeps what was written to it). It is safe to call after
// Commit (it then does nothing).
func (a *File) Abort() {
	if a.done {
		return
	}
	a.done = true
	defer a.forget()
	a.f.Close()
	if !a.direct {
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

// RefuseInput returns an error when out, an output path, names the same
// regular file as one of inputs (symbolic links and hard links included,
// by os.SameFile): writing it would destroy the input. Inputs that are
// "", "-" (standard input) or do not exist are skipped, as is an out that
// does not exist yet or is not a regular file (a device such as /dev/null
// may be both).
func RefuseInput(out string, inputs ...string) error {
	if out == "" || out == "-" {
		return nil
	}
	ofi, err := os.Stat(out)
	if err != nil || !ofi.Mode().IsRegular() {
		return nil
	}
	for _, in := range inputs {
		if in == "" || in == "-" {
			continue
		}
		if ifi, err := os.Stat(in); err == nil && os.SameFile(ofi, ifi) {
			if in == out {
				return fmt.Errorf("%s is also an input; writing it would destroy that input (name another file)", out)
			}
			return fmt.Errorf("%s is the same file as the input %s; writing it would destroy that input (name another file)", out, in)
		}
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
