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
// examples/exec_policy.py is a reference client (LRU and T-LRU, standard
// library only).
package execpolicy

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tailbound/tailbound/models/cache"
	"github.com/tailbound/tailbound/models/policy"
	"github.com/tailbound/tailbound/models/trace"
)

// DefaultTimeout is the time limit on one answer when Options.Timeout is 0.
const DefaultTimeout = 10 * time.Second

// Options are the settings of exec policies.
type Options struct {
	// Timeout is the longest tailbound waits for one answer (the first
	// includes the process's start-up); 0 means DefaultTimeout.
	Timeout time.Duration
}

// New returns the factory of the exec policy running command: every policy
// it builds starts its own process. The policy implements io.Closer; its
// owner must Close it after the replay.
func New(command string, opt Options) policy.Factory {
	return func(cfg policy.Config) (policy.Policy, error) { return start(command, opt, cfg) }
}

// Process is a running external process speaking JSON Lines: one line
// out, one answer back.
type Process struct {
	command string
	timeout time.Duration
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	in      *bufio.Writer
	answers chan answer
	stderr  *tail
	failed  bool
	exited  error // the process's exit, once known
	done    chan struct{}
}

type answer struct {
	line []byte
	err  error
}

// Start runs command with /bin/sh -c and writes header (JSON) as its first
// line. timeout bounds every wait for an answer (0: DefaultTimeout).
func Start(command string, timeout time.Duration, header any) (*Process, error) {
	p := &Process{command: command, timeout: timeout, answers: make(chan answer, 1), stderr: &tail{}, done: make(chan struct{})}
	if p.timeout <= 0 {
		p.timeout = DefaultTimeout
	}
	p.cmd = exec.Command("/bin/sh", "-c", command)
	p.cmd.Stderr = p.stderr
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // kill reaches the shell's children
	p.cmd.WaitDelay = time.Second                           // then stop waiting for their pipes
	var err error
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		return nil, p.errorf("%v", err)
	}
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		return nil, p.errorf("%v", err)
	}
	if err := p.cmd.Start(); err != nil {
		return nil, p.errorf("cannot start: %v", err)
	}
	go p.read(out)
	p.in = bufio.NewWriterSize(p.stdin, 1<<16)
	h, err := json.Marshal(header)
	if err != nil {
		p.Close()
		return nil, p.errorf("header: %v", err)
	}
	p.in.Write(h)
	p.in.WriteByte('\n')
	return p, nil
}

// read passes the process's output lines to Ask, and its end.
func (p *Process) read(out io.Reader) {
	defer close(p.done)
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

// errorf formats an error; the replay engine adds the policy's name (which
// holds the command) and the turn.
func (p *Process) errorf(format string, a ...any) error {
	return fmt.Errorf(format, a...)
}

// Ask writes line (one JSON object, without its newline) and returns the
// answer line. A process that ends, or is silent for the time limit (it is
// then killed), is an error saying so; after an error Close kills it.
func (p *Process) Ask(line []byte) ([]byte, error) {
	if p.failed {
		return nil, fmt.Errorf("stopped after an earlier error")
	}
	p.in.Write(line)
	p.in.WriteByte('\n')
	p.in.Flush() // a write error means the process is gone: the read below says how
	timer := time.NewTimer(p.timeout)
	defer timer.Stop()
	var a answer
	select {
	case a = <-p.answers:
	case <-timer.C:
		p.kill()
		p.failed = true
		return nil, p.errorf("no answer within %v (the time limit, --exec-timeout); process killed", p.timeout)
	}
	if a.err != nil {
		p.failed = true
		return nil, p.errorf("the process ended before answering (%s)", p.exitText())
	}
	return a.line, nil
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
	proc, err := Start(command, opt.Timeout, map[string]any{"tailbound": "exec/1", "level": "turn", "capacity": cfg.Capacity,
		"block": cfg.BlockSize, "xi": cfg.Xi, "forced": cfg.Forced, "qhat": cfg.QHat, "threshold": cfg.Threshold, "options": opts})
	if err != nil {
		return nil, err
	}
	return &Policy{proc: proc}, nil
}

// Close ends the process; see Process.Close.
func (p *Policy) Close() error { return p.proc.Close() }

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
		return p.errorf("conversation %d: %v", c, err)
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

// kill stops the process (its whole process group) and reaps it.
func (p *Process) kill() {
	if p.exited != nil || p.cmd.Process == nil {
		return
	}
	syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	p.stdin.Close()
	p.wait()
}

// wait reaps the process once its output has ended (killing it if it has
// not exited within the time limit) and records its exit.
func (p *Process) wait() {
	if p.exited != nil {
		return
	}
	go func() {
		for range p.answers { // drain so that read can finish
		}
	}()
	res := make(chan error, 1)
	go func() {
		<-p.done
		res <- p.cmd.Wait()
	}()
	var err error
	select {
	case err = <-res:
	case <-time.After(p.timeout):
		syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		err = <-res
	}
	if err == nil {
		err = errExitedOK
	}
	p.exited = err
	close(p.answers)
}

var errExitedOK = errors.New("exit status 0")

// exitText reaps the process (its output has ended) and describes how it
// ended, with the last line it wrote to standard error.
func (p *Process) exitText() string {
	p.stdin.Close()
	p.wait()
	msg := p.exited.Error()
	if last := p.stderr.last(); last != "" {
		msg += "; its last error line: " + strconv.Quote(last)
	}
	return msg
}

// Close ends the process: it closes its input and waits for it to exit
// (killing it after the time limit). It reports an exit status other than
// 0 after a successful replay.
func (p *Process) Close() error {
	if p.exited != nil {
		return nil
	}
	if p.failed {
		p.kill()
		return nil
	}
	p.in.Flush()
	p.stdin.Close()
	timer := time.NewTimer(p.timeout)
	defer timer.Stop()
	for {
		select {
		case a := <-p.answers:
			if a.err == nil {
				continue // extra output after the last turn: ignored
			}
			p.wait()
			if p.exited != errExitedOK {
				return p.errorf("after the last turn: %s", p.exitText())
			}
			return nil
		case <-timer.C:
			p.kill()
			return p.errorf("did not exit within %v after its input was closed; killed", p.timeout)
		}
	}
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
