package blockext

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tailbound/tailbound/models/execpolicy"
	"github.com/tailbound/tailbound/models/namelist"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// Exec is a running external block-level policy (see the package
// documentation). Close it after the replay.
type Exec struct {
	*adapter
	proc *execpolicy.Process
	buf  []byte
}

// NewExec returns the factory of the block-level exec policy running
// command; each built policy is passed to keep (the caller closes it after
// the replay).
func NewExec(command string, opt execpolicy.Options, keep func(*Exec)) prefixcache.Factory {
	return func(cfg prefixcache.Config) (prefixcache.Policy, error) {
		opts := cfg.Options
		if opts == nil {
			opts = map[string]string{}
		}
		proc, err := execpolicy.Start(opt.Context, command, opt.Timeout, map[string]any{"tailbound": "exec/1", "level": "block",
			"capacity": cfg.Blocks(), "block_tokens": cfg.BlockSize, "xi": cfg.Xi, "qhat": cfg.QHat, "options": opts})
		if err != nil {
			return nil, err
		}
		e := &Exec{proc: proc}
		e.adapter = newAdapter(int(cfg.Blocks()), e.ask)
		if keep != nil {
			keep(e)
		}
		return e, nil
	}
}

// Close ends the process (see execpolicy.Process.Close).
func (e *Exec) Close() error { return e.proc.Close() }

// Abort ends the process after a failed run (see execpolicy.Process.Abort).
func (e *Exec) Abort() { e.proc.Abort() }

func (e *Exec) ask(r *prefixcache.Req, hit, need int) ([]BlockID, error) {
	b := append(e.buf[:0], `{"request":`...)
	b = strconv.AppendInt(b, int64(r.Index), 10)
	b = append(b, `,"time":`...)
	b = strconv.AppendFloat(b, r.Time, 'g', -1, 64)
	b = append(b, `,"input":`...)
	b = strconv.AppendInt(b, r.Input, 10)
	b = append(b, `,"output":`...)
	b = strconv.AppendInt(b, r.Output, 10)
	b = append(b, `,"conv":`...)
	b = strconv.AppendInt(b, int64(r.Conv), 10)
	b = append(b, `,"blocks":[`...)
	for i, id := range r.Blocks {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(id), 10)
	}
	b = append(b, `],"hit":`...)
	b = strconv.AppendInt(b, int64(hit), 10)
	b = append(b, `,"need":`...)
	b = strconv.AppendInt(b, int64(need), 10)
	b = append(b, `,"free":`...)
	b = strconv.AppendInt(b, int64(e.capacity-e.used), 10)
	b = append(b, '}')
	e.buf = b
	line, err := e.proc.Ask(b)
	if err != nil {
		return nil, err
	}
	var a struct {
		Evict []BlockID `json:"evict"`
	}
	d := json.NewDecoder(bytes.NewReader(line))
	d.DisallowUnknownFields()
	if err := d.Decode(&a); err != nil {
		e.proc.Fail()
		s := strings.TrimSpace(string(line))
		if len(s) > 120 {
			s = s[:120] + "…"
		}
		return nil, fmt.Errorf("answer %q is not {\"evict\":[block ids]} (%v)", s, err)
	}
	return a.Evict, nil
}

// Err implements prefixcache.Checker; a broken rule marks the process
// failed, so that Close kills it.
func (e *Exec) Err() error {
	err := e.adapter.Err()
	if err != nil {
		e.proc.Fail()
	}
	return err
}

// Finisher is a block policy to finish after a replay: an Exec (Close) or a
// Player (Finish).
type Finisher interface{ Finish() error }

// Finish closes the process.
func (e *Exec) Finish() error { return e.Close() }

// Parse resolves a comma-separated list of block policies: registered
// names (prefixcache.All) and "exec:CMD" items. Every policy built from an
// exec entry is passed to keep.
func Parse(list string, opt execpolicy.Options, keep func(Finisher)) ([]prefixcache.Entry, error) {
	if !strings.Contains(list, "exec:") {
		return prefixcache.Parse(list)
	}
	var out []prefixcache.Entry
	for _, item := range strings.Split(list, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if cmd, ok := strings.CutPrefix(item, "exec:"); ok {
			if strings.TrimSpace(cmd) == "" {
				return nil, fmt.Errorf("block policy %q: no command after exec:", item)
			}
			out = append(out, prefixcache.Entry{Name: item, New: NewExec(cmd, opt, func(e *Exec) { keep(e) }), Doc: "external policy run by " + cmd})
			continue
		}
		e, err := namelist.Select(item, prefixcache.All(), func(e prefixcache.Entry) string { return e.Name }, "block policy")
		if err != nil {
			return nil, err
		}
		out = append(out, e...)
	}
	return out, nil
}

// Finishers collects the external policies built for a replay, to finish
// after it.
type Finishers struct{ list []Finisher }

// Add records f.
func (fs *Finishers) Add(f Finisher) { fs.list = append(fs.list, f) }

// Finish finishes every recorded policy and returns their errors joined.
func (fs *Finishers) Finish() error {
	var errs []error
	for _, f := range fs.list {
		errs = append(errs, f.Finish())
	}
	fs.list = nil
	return errors.Join(errs...)
}

// Abort ends every recorded policy after a failed run, reporting nothing
// (the run's own error is the one to show): exec processes are killed.
func (fs *Finishers) Abort() {
	for _, f := range fs.list {
		if a, ok := f.(interface{ Abort() }); ok {
			a.Abort()
		} else {
			f.Finish()
		}
	}
	fs.list = nil
}
