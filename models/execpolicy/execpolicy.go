// Package execpolicy runs a conversation-level eviction policy written in
// any language as a subprocess, so that it can be replayed and measured
// (simulate, gap) exactly like a built-in policy: `--policies exec:CMD`.
//
// # Protocol (JSON Lines over the process's standard input and output)
//
// CMD is run by /bin/sh -c. tailbound first writes one header line with
// the instance (lengths in tokens):
//
//	{"tailbound":"exec/1","level":"turn","capacity":131072,"block":16,"xi":150.5,"forced":false,"qhat":0,"threshold":1024,"options":{}}
//
// qhat 0 means T-LRU's running mean; threshold is Threshold-LRU's T;
// options are the --policy-opt settings. No answer is expected. Then, for
// every turn of the trace, once it has been served and its conversation's
// history has grown, tailbound writes one line and waits for one answer:
//
//	{"turn":7,"conv":2,"time":31.5,"prompt":120,"response":300,"history":1024,"cached":480,"max_keep":1024,"total":96000,"free":35072}
//
// turn is the 0-based index in the trace; conv the conversation's dense
// id (0, 1, 2, … in order of first appearance); time in seconds; prompt
// and response the turn's lengths; history the conversation's history
// including this turn; cached what it holds now (what the turn found);
// max_keep the most it may keep, its history in whole blocks and at most
// the capacity; total the tokens cached over all conversations now (this
// conversation's cached included) and free = capacity − total. The answer
// gives the amount the served conversation keeps, then the conversations
// to cut back (each pair is [conv, tokens it keeps], applied in order; each
// is one eviction):
//
//	{"keep":1024,"shrink":[[0,0],[5,256]]}
//
// The process keeps its own copy of the amounts (they change only by its
// answers). tailbound enforces the model as for a built-in policy (package
// cache): whole blocks, keep ≤ max_keep, a shrink never grows an amount,
// forced caching keeps max_keep, and at most capacity tokens after the
// answer. A bad answer, a process that exits, or no answer within the
// time limit stops the replay with one line naming the turn and the rule.
// When the trace ends tailbound closes the process's input; it should
// exit with status 0.
//
// Answers are counted exactly: every line the process writes must answer
// the question before it, so a second line for one turn (seen before the
// next question is sent, or at the end) and any line after the last
// answer are errors naming the policy. The process runs in its own
// process group (so a terminal's Ctrl-C does not reach it; tailbound
// forwards the interrupt): the whole group is killed when the run's
// context ends (SIGINT, SIGTERM), on an error, and once the process has
// exited after its input was closed — processes it left running, which
// may hold its output open, end with it and do not delay or fail the run.
//
// examples/exec_policy.py is a reference client (LRU and T-LRU, standard
// library only).
package execpolicy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tailbound/tailbound/internal/cleanup"
	"github.com/tailbound/tailbound/models/cache"
	"github.com/tailbound/tailbound/models/policy"
	"github.com/tailbound/tailbound/models/trace"
)

// DefaultTimeout is the time limit on one answer when Options.Timeout is 0.
const DefaultTimeout = 10 * time.Second

// MinTimeout and MaxTimeout bound the time limit a user may set
// (--exec-timeout, checked by Timeout).
const (
	MinTimeout = time.Millisecond
	MaxTimeout = 24 * time.Hour
)

// Timeout converts a time limit in seconds (--exec-timeout) to a
// duration, refusing one outside [MinTimeout, MaxTimeout] or not a number
// (a value such as 1e10 s would overflow a duration, 1e-10 s round to 0).
func Timeout(seconds float64) (time.Duration, error) {
	if !(seconds >= MinTimeout.Seconds() && seconds <= MaxTimeout.Seconds()) {
		return 0, fmt.Errorf("must be between %v and %v seconds, got %v", MinTimeout.Seconds(), MaxTimeout.Seconds(), seconds)
	}
	return time.Duration(seconds * float64(time.Second)), nil
}

// Options are the settings of exec policies.
type Options struct {
	// Timeout is the longest tailbound waits for one answer (the first
	// includes the process's start-up); 0 means DefaultTimeout.
	Timeout time.Duration
	// Context is the run's context; nil means context.Background(). When
	// it is done (a signal) the process's whole group is killed and the
	// waits return its error; a clean-up set it carries
	// (internal/cleanup) kills the group if the run is ended first.
	Context context.Context
}

// New returns the factory of the exec policy running command: every policy
// it builds starts its own process. The policy implements io.Closer; its
// owner must Close it after the replay.
func New(command string, opt Options) policy.Factory {
	return func(cfg policy.Config) (policy.Policy, error) { return start(command, opt, cfg) }
}

// Process is a running external process speaking JSON Lines: one line
// out, one answer back. It runs in its own process group, which is killed
// as a whole on an error, on the context's end and after the process has
// exited (so that nothing it started is left running).
type Process struct {
	command string
	ctx     context.Context
	timeout time.Duration
	cmd     *exec.Cmd
	stdin   *os.File
	in      *bufio.Writer
	out     *os.File    // read end of its standard output
	errOut  *os.File    // read end of its standard error
	answers chan answer // its output lines, then one error (its end); closed after
	stderr  *tail
	errDone chan struct{} // standard error copied to its end
	exited  chan struct{} // closed when the process has exited
	exitErr error         // its Wait error, once exited is closed
	failed  bool
	closed  bool
	pending *answer // the end of its output, seen while checking for extra answers
	stopCtx func() bool
	forget  func()
}

type answer struct {
	line []byte
	err  error
}

// Start runs command with /bin/sh -c in its own process group and writes
// header (JSON) as its first line. timeout bounds every wait for an
// answer (0: DefaultTimeout). ctx's end kills the process group (see
// Options.Context).
func Start(ctx context.Context, command string, timeout time.Duration, header any) (*Process, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	p := &Process{command: command, ctx: ctx, timeout: timeout, answers: make(chan answer, 1), stderr: &tail{},
		errDone: make(chan struct{}), exited: make(chan struct{})}
	if p.timeout <= 0 {
		p.timeout = DefaultTimeout
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// Its standard streams are pipes of our own (os.Pipe), so that waiting
	// for its exit never waits for a pipe that a process it started holds.
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, err
	}
	p.cmd = exec.Command("/bin/sh", "-c", command)
	p.cmd.Stdin, p.cmd.Stdout, p.cmd.Stderr = inR, outW, errW
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // kill reaches the shell's children
	err = p.cmd.Start()
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, fmt.Errorf("cannot start: %w", err)
	}
	p.stdin, p.out, p.errOut = inW, outR, errR
	p.forget = cleanup.Add(ctx, p.killGroup)
	p.stopCtx = context.AfterFunc(ctx, p.killGroup)
	go func() {
		p.exitErr = p.cmd.Wait()
		close(p.exited)
	}()
	go func() {
		io.Copy(p.stderr, errR)
		close(p.errDone)
	}()
	go p.read(outR)
	p.in = bufio.NewWriterSize(p.stdin, 1<<16)
	h, err := json.Marshal(header)
	if err != nil {
		p.Close()
		return nil, fmt.Errorf("header: %w", err)
	}
	p.in.Write(h)
	p.in.WriteByte('\n')
	return p, nil
}

// read passes the process's output lines to Ask, then its end (an error,
// io.EOF at the end of the output), and closes answers.
func (p *Process) read(out io.Reader) {
	defer close(p.answers)
	r := bufio.NewReaderSize(out, 1<<16)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 && err == nil {
			p.answers <- answer{line: line}
			continue
		}
		if err == nil || err == io.EOF {
			if len(bytes.TrimSpace(line)) > 0 {
				p.answers <- answer{line: line}
			}
			err = io.EOF
		}
		p.answers <- answer{err: err}
		return
	}
}

// next receives the next output line or the end of the output.
func (p *Process) next(a answer, ok bool) answer {
	if !ok {
		return answer{err: io.EOF}
	}
	return a
}

// killGroup kills the process's whole group (SIGKILL); it is safe to call
// at any time and more than once.
func (p *Process) killGroup() {
	if p.cmd != nil && p.cmd.Process != nil {
		syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	}
}

// Ask writes line (one JSON object, without its newline) and returns the
// answer line. A process that ends, or is silent for the time limit (it is
// then killed), is an error saying so; an output line that no question
// asked for (a second answer to the previous turn) is an error; after an
// error Close kills it. When the context is done, its error is returned.
func (p *Process) Ask(line []byte) ([]byte, error) {
	if p.failed {
		return nil, fmt.Errorf("stopped after an earlier error")
	}
	if err := p.ctx.Err(); err != nil {
		p.failed = true
		return nil, err
	}
	if p.pending == nil {
		select { // every earlier line was an answer to a question: one more is not
		case a, ok := <-p.answers:
			if a = p.next(a, ok); a.err == nil {
				p.failed = true
				return nil, fmt.Errorf("it wrote a line no question asked for, %s, before this question (exactly one answer line per question; the previous one was answered twice?)", clip(a.line))
			}
			p.pending = &a
		default:
		}
	}
	p.in.Write(line)
	p.in.WriteByte('\n')
	p.in.Flush() // a write error means the process is gone: the read below says how
	var a answer
	if p.pending != nil {
		a = *p.pending
	} else {
		timer := time.NewTimer(p.timeout)
		defer timer.Stop()
		select {
		case b, ok := <-p.answers:
			a = p.next(b, ok)
		case <-timer.C:
			p.failed = true
			p.killGroup()
			return nil, fmt.Errorf("no answer within %v (the time limit, --exec-timeout); process killed", p.timeout)
		case <-p.ctx.Done():
			p.failed = true
			return nil, p.ctx.Err()
		}
	}
	if a.err != nil {
		p.failed = true
		if err := p.ctx.Err(); err != nil {
			return nil, err
		}
		p.pending = &a
		return nil, fmt.Errorf("the process ended before answering (%s)", p.exitText())
	}
	return a.line, nil
}

// waitExit waits for the process to exit, at most the time limit (then it
// kills the group and reports false) or until the context ends.
func (p *Process) waitExit() bool {
	timer := time.NewTimer(p.timeout)
	defer timer.Stop()
	select {
	case <-p.exited:
		return true
	case <-timer.C:
	case <-p.ctx.Done():
	}
	p.killGroup()
	<-p.exited
	return false
}

// finish ends what is left once the process has exited: it kills its
// group (the processes it started and left running), collects the rest
// of its output — the lines after the last answer — and closes the pipes.
// A process that left its group and holds the output open is given up on
// after a second.
func (p *Process) finish() (extra int, first []byte) {
	p.killGroup()
	p.stdin.Close()
	if p.pending == nil {
		grace := time.NewTimer(time.Second)
		defer grace.Stop()
	collect:
		for {
			select {
			case a, ok := <-p.answers:
				if a = p.next(a, ok); a.err != nil {
					break collect
				}
				if extra++; first == nil {
					first = a.line
				}
			case <-grace.C:
				p.out.Close()
				grace.Reset(time.Hour)
			}
		}
	}
	go func() { // let read end
		for range p.answers {
		}
	}()
	p.out.Close()
	select {
	case <-p.errDone:
	case <-time.After(time.Second):
	}
	p.errOut.Close()
	p.stopCtx()
	p.forget()
	return extra, first
}

// Fail marks the process as failed (a bad answer): Close kills it.
func (p *Process) Fail() { p.failed = true }

// reply is the JSON shape of an answer.
type reply struct {
	Keep   *int64    `json:"keep"`
	Shrink [][]int64 `json:"shrink"`
}

// Policy is a running exec policy (turn level).
type Policy struct {
	proc *Process
	buf  []byte
}

// start launches the process and writes the header.
func start(command string, opt Options, cfg policy.Config) (*Policy, error) {
	opts := cfg.Options
	if opts == nil {
		opts = map[string]string{}
	}
	proc, err := Start(opt.Context, command, opt.Timeout, map[string]any{"tailbound": "exec/1", "level": "turn", "capacity": cfg.Capacity,
		"block": cfg.BlockSize, "xi": cfg.Xi, "forced": cfg.Forced, "qhat": cfg.QHat, "threshold": cfg.Threshold, "options": opts})
	if err != nil {
		return nil, err
	}
	return &Policy{proc: proc}, nil
}

// Close ends the process; see Process.Close.
func (p *Policy) Close() error { return p.proc.Close() }

// Abort ends the process after a failed run; see Process.Abort.
func (p *Policy) Abort() { p.proc.Abort() }

func (p *Policy) errorf(format string, a ...any) error { return fmt.Errorf(format, a...) }

// Update implements policy.Policy: it sends the turn, waits for the answer
// and applies it, checking the model's rules.
func (p *Policy) Update(s *cache.State, t trace.Turn) error {
	err := p.update(s, t)
	if err != nil {
		p.proc.Fail()
	}
	return err
}

func (p *Policy) update(s *cache.State, t trace.Turn) error {
	c := t.Conv
	b := p.buf[:0]
	b = append(b, `{"turn":`...)
	b = strconv.AppendInt(b, int64(t.Index), 10)
	b = append(b, `,"conv":`...)
	b = strconv.AppendInt(b, int64(c), 10)
	b = append(b, `,"time":`...)
	b = strconv.AppendFloat(b, t.Time, 'g', -1, 64)
	b = append(b, `,"prompt":`...)
	b = strconv.AppendInt(b, t.Prompt, 10)
	b = append(b, `,"response":`...)
	b = strconv.AppendInt(b, t.Response, 10)
	b = append(b, `,"history":`...)
	b = strconv.AppendInt(b, s.History(c), 10)
	b = append(b, `,"cached":`...)
	b = strconv.AppendInt(b, s.Cached(c), 10)
	b = append(b, `,"max_keep":`...)
	b = strconv.AppendInt(b, s.MaxServed(), 10)
	b = append(b, `,"total":`...)
	b = strconv.AppendInt(b, s.Total(), 10)
	b = append(b, `,"free":`...)
	b = strconv.AppendInt(b, s.Capacity()-s.Total(), 10)
	b = append(b, '}')
	p.buf = b
	line, err := p.proc.Ask(b)
	if err != nil {
		return fmt.Errorf("conversation %d: %w", c, err)
	}
	var r reply
	d := json.NewDecoder(bytes.NewReader(line))
	d.DisallowUnknownFields()
	if err := d.Decode(&r); err != nil {
		return p.errorf("conversation %d: answer %s is not {\"keep\":tokens,\"shrink\":[[conv,tokens],...]} (%v)", c, clip(line), err)
	}
	if r.Keep == nil {
		return p.errorf("conversation %d: answer %s has no \"keep\"", c, clip(line))
	}
	return p.apply(s, c, *r.Keep, r.Shrink)
}

// apply checks and applies one answer.
func (p *Policy) apply(s *cache.State, c int, keep int64, shrink [][]int64) error {
	B := s.BlockSize()
	whole := func(x int64) bool { return x >= 0 && x%B == 0 }
	switch {
	case !whole(keep):
		return p.errorf("conversation %d: keep %d tokens is not a whole number of %d-token blocks (rule: whole blocks)", c, keep, B)
	case keep > s.MaxServed():
		return p.errorf("conversation %d: keep %d tokens, more than max_keep %d (its history of %d tokens in whole blocks, at most the capacity %d) (rule: at most the history)",
			c, keep, s.MaxServed(), s.History(c), s.Capacity())
	case s.Forced() && keep != s.MaxServed():
		return p.errorf("conversation %d: keep %d tokens, but forced caching keeps max_keep %d (rule: forced)", c, keep, s.MaxServed())
	}
	if err := s.Set(c, keep); err != nil {
		return p.errorf("%v", err)
	}
	for _, sh := range shrink {
		if len(sh) != 2 {
			return p.errorf("conversation %d: shrink entry %v is not a pair [conv, tokens]", c, sh)
		}
		v, x := sh[0], sh[1]
		switch {
		case v < 0 || v >= int64(s.Conversations()):
			return p.errorf("shrink: conversation %d has not arrived yet (rule: no growth between a conversation's turns)", v)
		case !whole(x):
			return p.errorf("shrink: conversation %d to %d tokens, not a whole number of %d-token blocks (rule: whole blocks)", v, x, B)
		case x > s.Cached(int(v)):
			return p.errorf("shrink: conversation %d to %d tokens, but it holds %d (rule: no growth between a conversation's turns)", v, x, s.Cached(int(v)))
		case s.Forced() && int(v) == c && x != s.Cached(c):
			return p.errorf("shrink: the served conversation %d to %d tokens, but forced caching keeps max_keep %d (rule: forced)", v, x, s.MaxServed())
		}
		if err := s.Set(int(v), x); err != nil {
			return p.errorf("%v", err)
		}
	}
	if s.Over() > 0 {
		return p.errorf("after the answer %d tokens are cached, over the capacity %d (rule: capacity)", s.Total(), s.Capacity())
	}
	return nil
}

// exitText waits for the process to exit (its output has ended) and
// describes how it ended, with the last line it wrote to standard error.
func (p *Process) exitText() string {
	p.stdin.Close()
	msg := "killed after the time limit"
	if p.waitExit() {
		msg = "exit status 0"
		if p.exitErr != nil {
			msg = p.exitErr.Error()
		}
	}
	select {
	case <-p.errDone:
	case <-time.After(time.Second):
	}
	if last := p.stderr.last(); last != "" {
		msg += "; its last error line: " + strconv.Quote(last)
	}
	return msg
}

// Abort ends the process after the run failed for another reason (or
// was interrupted): its group is killed and nothing more is reported, so
// that the run's one error line stays the only one.
func (p *Process) Abort() {
	p.failed = true
	p.Close()
}

// Close ends the process: it closes its input and waits for it to exit
// (killing its group after the time limit), then kills what is left of
// its process group. After a successful replay it reports, naming the
// policy (exec:CMD), an exit status other than 0 and output lines after
// the last answer (every line must answer a question). After an error it
// kills the group and reports nothing more.
func (p *Process) Close() error {
	if p.closed {
		return nil
	}
	p.closed = true
	name := "policy exec:" + p.command
	if p.failed || p.ctx.Err() != nil {
		p.killGroup()
		<-p.exited
		p.finish()
		return nil
	}
	p.in.Flush()
	p.stdin.Close()
	if !p.waitExit() {
		p.finish()
		if err := p.ctx.Err(); err != nil {
			return err
		}
		return fmt.Errorf("%s: did not exit within %v after its input was closed (the time limit, --exec-timeout); killed", name, p.timeout)
	}
	extra, first := p.finish()
	if p.exitErr != nil {
		return fmt.Errorf("%s: after the last turn: %s", name, p.exitText())
	}
	if extra > 0 {
		return fmt.Errorf("%s: it wrote %d line(s) after its last answer, the first %s (exactly one answer line per question)", name, extra, clip(first))
	}
	return nil
}

// clip shortens an answer for a message.
func clip(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return strconv.Quote(s)
}

// tail keeps the end of what a process writes to standard error.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > 4096 {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-4096:]...)
	}
	return len(b), nil
}

// last returns the last non-blank line written.
func (t *tail) last() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(t.buf)), "\n")
	return clipString(strings.TrimSpace(lines[len(lines)-1]))
}

func clipString(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}
