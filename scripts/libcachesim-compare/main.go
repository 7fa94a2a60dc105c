// Command libcachesim-compare runs tailbound's block engine and
// libCacheSim's cachesim side by side on the same block-level trace: LRU
// and FIFO at the same capacities, their hit ratios, and their speed.
//
//	go run ./scripts/libcachesim-compare --cachesim /path/to/cachesim \
//	    --trace trace.jsonl --trace-format mooncake --capacities 262144,1048576
//
// libCacheSim is not part of tailbound: build it yourself and pass the path
// of its cachesim binary. The trace is converted to libCacheSim's
// oracleGeneral binary format, one 1-byte object per block reference in
// chain order (object id = tailbound's block id: the (parent, hash) pair),
// so a cache of C bytes holds C blocks.
//
// First, an exactness check: on a seeded random stream of single-block
// requests (no prefix structure, fewer than 10,000 requests so that the
// 4-decimal miss ratio cachesim prints determines its miss count) both tools
// must count the same misses; the program exits with status 1 otherwise.
//
// Then, on the given trace, each tool's best of --repeat runs: tailbound
// replays the trace from memory (numbering blocks included); cachesim's
// throughput is its own figure (it reads the binary trace as it goes). Both
// are given in block references per second; tailbound also in requests per
// second. Hit ratios differ on real traces by design, see the notes.
package main

import (
	"bufio"
	"container/list"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/tailbound/tailbound/experiments/blocksim"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/prefixcache"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "libcachesim-compare:", err)
		os.Exit(1)
	}
}

type options struct {
	cachesim, trace, format, capacities, policies, out string
	block                                              int64
	singles, repeat, copies                            int
	seed                                               uint64
}

func run(args []string, stdout, stderr io.Writer) error {
	var o options
	fs := pflag.NewFlagSet("libcachesim-compare", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.cachesim, "cachesim", "", "path of libCacheSim's cachesim binary (required)")
	fs.StringVar(&o.trace, "trace", "", "block-level trace (omit to run only the exactness check)")
	fs.StringVar(&o.format, "trace-format", "mooncake", "trace format: "+strings.Join(blocksim.Formats, "|"))
	fs.Int64Var(&o.block, "block-size", 16, "block size in tokens (canonical traces only)")
	fs.StringVar(&o.capacities, "capacities", "", "cache sizes for the trace, comma-separated tokens (multiples of the block size)")
	fs.StringVar(&o.policies, "policies", "lru,fifo", "policies to compare (lru, fifo)")
	fs.IntVar(&o.singles, "singles", 9000, "requests of the single-block exactness check (1..9999; 0 skips it)")
	fs.IntVar(&o.repeat, "repeat", 5, "timed runs per tool and setting; the best is reported")
	fs.IntVar(&o.copies, "copies", 1, "replay this many copies of the trace back to back, each with its own blocks (hashes shifted), to time a longer run")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the single-block stream")
	fs.StringVar(&o.out, "format", "table", report.FormatHelp)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if o.cachesim == "" {
		return errors.New("flag --cachesim: required (path of libCacheSim's cachesim binary)")
	}
	if o.singles < 0 || o.singles > 9999 || o.repeat < 1 || o.copies < 1 {
		return errors.New("flags --singles (0..9999), --repeat (≥ 1) and --copies (≥ 1) out of range")
	}
	pols := strings.Split(o.policies, ",")
	for _, p := range pols {
		if p != "lru" && p != "fifo" {
			return fmt.Errorf("flag --policies: %q is not lru or fifo", p)
		}
	}
	dir, err := os.MkdirTemp("", "libcachesim-compare")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	var tables []report.Table
	if o.singles > 0 {
		t, err := exactness(o, pols, dir)
		if err != nil {
			return err
		}
		tables = append(tables, t)
	}
	if o.trace != "" {
		t, d, err := speed(o, pols, dir)
		if err != nil {
			return err
		}
		tables = append(tables, t, d)
	}
	return report.Emit(stdout, o.out, tables, tables...)
}

// exactness compares miss counts on a random single-block stream.
func exactness(o options, pols []string, dir string) (report.Table, error) {
	rng := rand.New(rand.NewPCG(o.seed, 17))
	s := &blocktrace.Stream{BlockTokens: 1}
	for i := 0; i < o.singles; i++ {
		id := int64(rng.IntN(2000))
		if rng.IntN(2) == 0 { // a hot set of 100
			id = int64(rng.IntN(100))
		}
		s.Requests = append(s.Requests, blocktrace.Request{Index: i, Time: float64(i) / 100, Input: 1, Hashes: []int64{id}, Conv: -1})
	}
	path := filepath.Join(dir, "singles.oracleGeneral")
	refs, err := writeOracle(s, path)
	if err != nil {
		return report.Table{}, err
	}
	t := report.Table{Title: fmt.Sprintf("exactness: %d single-block requests (seed %d)", o.singles, o.seed),
		Header: []string{"policy", "capacity (blocks)", "tailbound misses", "cachesim misses", "agree"}}
	bad := 0
	for _, p := range pols {
		for _, c := range []int64{1, 10, 50, 100, 500, 1000} {
			res, _, err := ours(s, p, c)
			if err != nil {
				return t, err
			}
			cs, err := cachesim(o.cachesim, path, p, c, dir)
			if err != nil {
				return t, err
			}
			theirs := int64(math.Round(cs.missRatio * float64(cs.requests)))
			mine := res.RefBlocks - res.HitBlocks
			agree := "yes"
			if mine != theirs || cs.requests != refs {
				agree, bad = "NO", bad+1
			}
			t.Rows = append(t.Rows, []string{p, report.I(c), report.I(mine), report.I(theirs), agree})
		}
	}
	if bad > 0 {
		return t, fmt.Errorf("%d settings disagree on single-block requests:\n%s", bad, rows(t))
	}
	return t, nil
}

func rows(t report.Table) string {
	var sb strings.Builder
	for _, r := range t.Rows {
		sb.WriteString(strings.Join(r, " ") + "\n")
	}
	return sb.String()
}

// speed runs both tools on the trace; the second table decomposes the hit
// ratios.
func speed(o options, pols []string, dir string) (report.Table, report.Table, error) {
	block := o.block
	if o.format != "canonical" {
		block = 0
	}
	t0 := time.Now()
	src, b, f, err := blocksim.Open(o.trace, o.format, block)
	if err != nil {
		return report.Table{}, report.Table{}, err
	}
	s, err := blocksim.ReadAll(src, b)
	f.Close()
	if err != nil {
		return report.Table{}, report.Table{}, err
	}
	parse := time.Since(t0)
	if s, err = replicate(s, o.copies); err != nil {
		return report.Table{}, report.Table{}, err
	}
	path := filepath.Join(dir, "trace.oracleGeneral")
	refs, err := writeOracle(s, path)
	if err != nil {
		return report.Table{}, report.Table{}, err
	}
	caps, err := parseCapacities(o.capacities, b)
	if err != nil {
		return report.Table{}, report.Table{}, err
	}
	d := report.Table{
		Title: "hit ratios explained: cachesim's policy run on single blocks (here re-run by a plain simulator), the share of its hits a prefix cache could use, and tailbound's prefix-rule policy",
		Header: []string{"policy", "capacity (blocks)", "cachesim hit ratio", "plain per-block hit ratio (must equal cachesim's)",
			"plain, usable prefix hits", "tailbound block hit ratio (orphan-free)"},
	}
	t := report.Table{
		Title: fmt.Sprintf("%s ×%d: %d requests, %d block references of %d tokens (tailbound parsed one copy in %.0f ms, not counted below); best of %d runs",
			filepath.Base(o.trace), o.copies, len(s.Requests), refs, b, parse.Seconds()*1000, o.repeat),
		Header: []string{"policy", "capacity (tokens)", "capacity (blocks)", "tailbound block hit ratio", "cachesim hit ratio",
			"tailbound requests/s", "tailbound block refs/s", "cachesim block refs/s", "speed ratio (tailbound/cachesim)"},
	}
	for _, p := range pols {
		for _, c := range caps {
			var best time.Duration
			var res blocksim.Result
			for i := 0; i < o.repeat; i++ {
				r, el, err := ours(s, p, c)
				if err != nil {
					return t, d, err
				}
				if i == 0 || el < best {
					best, res = el, r
				}
			}
			var cs cachesimResult
			for i := 0; i < o.repeat; i++ {
				r, err := cachesim(o.cachesim, path, p, c, dir)
				if err != nil {
					return t, d, err
				}
				if i == 0 || r.mqps > cs.mqps {
					cs = r
				}
			}
			all, usable := plain(s, p, c)
			d.Rows = append(d.Rows, []string{p, report.I(c), report.F(1-cs.missRatio, 4), report.F(float64(all)/float64(refs), 4),
				report.F(float64(usable)/float64(refs), 4), report.F(res.BlockHitRatio, 4)})
			mine := float64(refs) / best.Seconds()
			t.Rows = append(t.Rows, []string{p, report.I(c * b), report.I(c), report.F(res.BlockHitRatio, 4), report.F(1-cs.missRatio, 4),
				report.F(float64(len(s.Requests))/best.Seconds(), 0), report.F(mine, 0), report.F(cs.mqps*1e6, 0),
				report.F(mine/(cs.mqps*1e6), 2)})
		}
	}
	return t, d, nil
}

// plain replays every block reference of s, in chain order, through a
// textbook LRU or FIFO of capacity blocks — what cachesim runs — and
// returns its hits and the hits a prefix cache could use (those whose
// request had hit every earlier block of its chain).
func plain(s *blocktrace.Stream, policy string, capacity int64) (all, usable int64) {
	in := prefixcache.NewInterner()
	order := list.New() // front = next victim
	at := map[prefixcache.BlockID]*list.Element{}
	for i := range s.Requests {
		q, _, _ := in.Intern(&s.Requests[i], nil)
		prefix := true
		for _, id := range q.Blocks {
			if e, ok := at[id]; ok {
				all++
				if prefix {
					usable++
				}
				if policy == "lru" {
					order.MoveToBack(e)
				}
				continue
			}
			prefix = false
			if capacity == 0 {
				continue
			}
			if int64(order.Len()) == capacity {
				delete(at, order.Remove(order.Front()).(prefixcache.BlockID))
			}
			at[id] = order.PushBack(id)
		}
	}
	return all, usable
}

// replicate returns n copies of s back to back: copy k's times are shifted
// past the previous copy's end and its hashes by k times the span of the
// trace's hashes, so that no block of one copy is a block of another.
func replicate(s *blocktrace.Stream, n int) (*blocktrace.Stream, error) {
	if n == 1 || len(s.Requests) == 0 {
		return s, nil
	}
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for _, r := range s.Requests {
		for _, h := range r.Hashes {
			lo, hi = min(lo, h), max(hi, h)
		}
	}
	span := uint64(hi-lo) + 1
	if lo > hi {
		span = 1
	}
	if span > math.MaxInt64/uint64(n) || hi > math.MaxInt64-int64(span)*int64(n) {
		return nil, fmt.Errorf("flag --copies: %d copies of hashes spanning %d values overflow int64", n, span)
	}
	end := s.Requests[len(s.Requests)-1].Time + 1
	out := &blocktrace.Stream{BlockTokens: s.BlockTokens}
	for k := 0; k < n; k++ {
		for _, r := range s.Requests {
			c := r
			c.Index = len(out.Requests)
			c.Time += float64(k) * end
			c.Hashes = make([]int64, len(r.Hashes))
			for i, h := range r.Hashes {
				c.Hashes[i] = h + int64(k)*int64(span)
			}
			out.Requests = append(out.Requests, c)
		}
	}
	return out, nil
}

func parseCapacities(list string, block int64) ([]int64, error) {
	if list == "" {
		return nil, errors.New("flag --capacities: required with --trace (tokens)")
	}
	var out []int64
	for _, f := range strings.Split(list, ",") {
		v, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
		if err != nil || v <= 0 || v%block != 0 {
			return nil, fmt.Errorf("flag --capacities: %q is not a positive multiple of the block size, %d tokens", f, block)
		}
		out = append(out, v/block)
	}
	return out, nil
}

// ours replays s under policy at capacity blocks, from memory, and returns
// the result and the elapsed time.
func ours(s *blocktrace.Stream, policy string, blocks int64) (blocksim.Result, time.Duration, error) {
	es, err := prefixcache.Parse(policy)
	if err != nil {
		return blocksim.Result{}, 0, err
	}
	b := int64(s.BlockTokens)
	opt := blocksim.Options{Params: instance.Params{BlockSize: b, Xi: 0}, Model: latency.Default(), SLOMs: latency.DefaultSLOMs}
	t0 := time.Now()
	res, _, err := blocksim.Replay(blocktrace.StreamSource(s), []blocksim.Run{{Name: policy, New: es[0].New, Capacity: blocks * b}}, opt)
	d := time.Since(t0)
	if err != nil {
		return blocksim.Result{}, 0, err
	}
	return res[0], d, nil
}

// writeOracle writes s as libCacheSim oracleGeneral records (uint32 time
// in s, uint64 object id, uint32 size, int64 next access: -1) and returns
// the number of block references.
func writeOracle(s *blocktrace.Stream, path string) (int64, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	in := prefixcache.NewInterner()
	var rec [24]byte
	var refs int64
	var arena []prefixcache.BlockID
	for i := range s.Requests {
		q, a, err := in.Intern(&s.Requests[i], arena[:0])
		if err != nil {
			f.Close()
			return 0, err
		}
		arena = a
		for _, id := range q.Blocks {
			binary.LittleEndian.PutUint32(rec[0:], uint32(q.Time))
			binary.LittleEndian.PutUint64(rec[4:], uint64(id))
			binary.LittleEndian.PutUint32(rec[12:], 1)
			binary.LittleEndian.PutUint64(rec[16:], math.MaxUint64) // -1: no next access given
			w.Write(rec[:])
			refs++
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return 0, err
	}
	return refs, f.Close()
}

type cachesimResult struct {
	requests  int64
	missRatio float64
	mqps      float64
}

var cachesimLine = regexp.MustCompile(`(\d+) req, miss ratio ([0-9.]+), throughput ([0-9.]+) MQPS`)

// cachesim runs libCacheSim on the oracleGeneral trace at path.
func cachesim(bin, path, policy string, blocks int64, dir string) (cachesimResult, error) {
	name := map[string]string{"lru": "LRU", "fifo": "FIFO"}[policy]
	cmd := exec.Command(bin, path, "oracleGeneral", name, strconv.FormatInt(blocks, 10))
	cmd.Dir = dir // cachesim appends its results to files in its working directory
	out, err := cmd.CombinedOutput()
	if err != nil {
		return cachesimResult{}, fmt.Errorf("%s: %v: %s", bin, err, lastLine(out))
	}
	m := cachesimLine.FindSubmatch(out)
	if m == nil {
		return cachesimResult{}, fmt.Errorf("%s: no result line in its output: %s", bin, lastLine(out))
	}
	var r cachesimResult
	r.requests, _ = strconv.ParseInt(string(m[1]), 10, 64)
	r.missRatio, _ = strconv.ParseFloat(string(m[2]), 64)
	r.mqps, _ = strconv.ParseFloat(string(m[3]), 64)
	return r, nil
}

func lastLine(b []byte) string {
	s := strings.TrimSpace(string(b))
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}
