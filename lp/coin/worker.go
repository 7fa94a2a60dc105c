//go:build coin

package coin

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/tailbound/tailbound/lp"
)

// workerEnv is the environment variable that makes a process started by
// inWorker a solver worker: any program linking this package serves the
// job on its standard input at initialization and exits, before its own
// main or tests run.
const workerEnv = "TAILBOUND_COIN_WORKER"

// workerGrace is how long past its time limit a worker may run before it
// is killed: CBC's own limit, when it applies, stops it within this and
// reports the best integer point found; process start-up and the transfer
// of the problem also come out of it.
const workerGrace = 500 * time.Millisecond

// workerJob is what a worker is asked to solve, workerReply its answer,
// sent on file descriptor 3 (the libraries may write to standard output).
type workerJob struct {
	Problem lp.Problem
	Seconds float64
	// MIP asks for CBC's branch and cut (with Preprocess); otherwise
	// the LP (relaxation) is solved by CLP with Method and Direct.
	MIP        bool
	Preprocess bool
	MaxNodes   int
	Start      []float64 // MIP start (nil: none)
	Method     Method
	Direct     bool
}

type workerReply struct {
	Solution lp.Solution
	Err      string
}

func init() {
	if os.Getenv(workerEnv) == "1" {
		os.Exit(serveWorker(os.Stdin, os.NewFile(3, "reply")))
	}
}

// serveWorker runs one job from in and writes its reply to out; it returns
// the process exit code.
func serveWorker(in io.Reader, out io.Writer) int {
	var job workerJob
	if err := gob.NewDecoder(in).Decode(&job); err != nil {
		fmt.Fprintln(os.Stderr, "coin worker: reading the job:", err)
		return 2
	}
	var sol lp.Solution
	var err error
	if job.MIP {
		sol, err = CBC{Preprocess: job.Preprocess, MaxNodes: job.MaxNodes}.solveMIP(&job.Problem, job.Seconds, job.Start)
	} else {
		opt := lp.Options{TimeLimit: time.Duration(job.Seconds * float64(time.Second)), Relax: true}
		sol, err = solveLPWith(context.Background(), &job.Problem, opt, job.Method, job.Direct)
	}
	reply := workerReply{Solution: sol}
	if err != nil {
		reply.Err = err.Error()
	}
	if err := gob.NewEncoder(out).Encode(reply); err != nil {
		fmt.Fprintln(os.Stderr, "coin worker: writing the reply:", err)
		return 2
	}
	return 0
}

// inWorker solves job in a copy of this program started as a worker,
// and kills it workerGrace after job.Seconds, or when ctx is cancelled.
// A killed worker gives Status TimeLimit without a point. A worker that
// dies otherwise (CBC can abort the process, see the package
// documentation) is an error, and no longer takes the caller down with it.
func inWorker(ctx context.Context, job workerJob) (lp.Solution, error) {
	name := "clp"
	if job.MIP {
		name = "cbc"
	}
	secs := job.Seconds
	t0 := time.Now()
	self, err := os.Executable()
	if err != nil {
		return lp.Solution{}, fmt.Errorf("%s: no worker process (%w)", name, err)
	}
	var in bytes.Buffer
	if err := gob.NewEncoder(&in).Encode(job); err != nil {
		return lp.Solution{}, fmt.Errorf("%s: encoding the worker's job: %w", name, err)
	}
	// The worker is killed workerGrace after the limit (ctx's deadline is
	// part of secs), or at once when ctx is cancelled.
	hard := time.Duration(secs*float64(time.Second)) + workerGrace
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), hard)
	defer cancel()
	stop := context.AfterFunc(ctx, func() {
		if errors.Is(ctx.Err(), context.Canceled) {
			cancel()
		}
	})
	defer stop()
	cmd := exec.CommandContext(wctx, self)
	cmd.Env = append(os.Environ(), workerEnv+"=1")
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	rr, rw, err := os.Pipe()
	if err != nil {
		return lp.Solution{}, fmt.Errorf("%s: worker pipe: %w", name, err)
	}
	defer rr.Close()
	cmd.ExtraFiles = []*os.File{rw}
	if err := cmd.Start(); err != nil {
		rw.Close()
		return lp.Solution{}, fmt.Errorf("%s: starting the worker: %w", name, err)
	}
	rw.Close()
	var reply workerReply
	decodeErr := gob.NewDecoder(rr).Decode(&reply)
	waitErr := cmd.Wait()
	switch {
	case decodeErr == nil && waitErr == nil:
		if reply.Err != "" {
			return lp.Solution{}, errors.New(reply.Err)
		}
		return reply.Solution, nil
	case errors.Is(ctx.Err(), context.Canceled):
		return lp.Solution{}, ctx.Err()
	case wctx.Err() != nil:
		return lp.Solution{Status: lp.TimeLimit, Time: time.Since(t0),
			Detail: fmt.Sprintf("%s: worker process killed at the time limit (%.3g s), which the library's own limit did not keep: no point", name, secs)}, nil
	}
	return lp.Solution{}, fmt.Errorf("%s: the worker process failed (%v, %v): %s", name, waitErr, decodeErr, bytes.TrimSpace(stderr.Bytes()))
}
