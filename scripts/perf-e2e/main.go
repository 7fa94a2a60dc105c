// Command perf-e2e measures what a user waits for: whole tailbound
// processes (wall time and peak RSS from /usr/bin/time -v), each against
// its reference measured in the same run.
//
//	go run ./scripts/perf-e2e --libcachesim-git /path/to/libCacheSim/.git [--base 7a5c14f] [--repeat 3]
//	go run ./scripts/perf-e2e --cachesim PATH --sections block --block-cases a --block-policies lru
//
// Turn level: `simulate --policies lru|tlru` on a generated canonical
// trace of --turns turns, with this tree's binary and with the binary
// built from --base (a temporary git worktree), against the parse floor
// (the same file read and decoded by trace.Reader, nothing else, in a
// process of its own) and the engine alone (the decoded turns replayed
// from memory, timed inside the process).
//
// Block level: `simulate --level block` LRU and FIFO against libCacheSim's
// cachesim (built from source at --libcachesim-commit with cmake, or given
// by --cachesim) at the same capacity, on (a) a stream of 2·10^6
// single-block requests (tailbound reads it as Mooncake JSON Lines and as
// oracleGeneral, cachesim as oracleGeneral: the identical file), (b) the
// Mooncake conversation trace repeated 10× with disjoint ids (tailbound
// reads the JSON Lines, cachesim one object per block reference in chain
// order), (c) a Zipf object stream in oracleGeneral, read by both.
//
// Memory: peak RSS of block-level lru, lfu and s3fifo with and without
// --no-ideal on streams of 10^6 and 4·10^6 distinct single-block requests.
//
// Every configuration runs --repeat times, interleaved; the best wall time
// and its peak RSS are reported, and at the block level the least CPU
// time. The tables are Markdown on stdout; with --docs FILE they are also
// written into FILE (docs/performance.md) between the lines
// "<!-- perf-e2e:begin -->" and "<!-- perf-e2e:end -->", under a line
// naming the command and the date, so the published tables are the
// script's, never pasted by hand.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/tailbound/tailbound/experiments/policies"
	"github.com/tailbound/tailbound/experiments/sim"
	"github.com/tailbound/tailbound/internal/docregion"
	"github.com/tailbound/tailbound/models/importer"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/prefixcache"
	"github.com/tailbound/tailbound/models/replay"
	"github.com/tailbound/tailbound/models/trace"
	"github.com/tailbound/tailbound/scripts/internal/proctime"
)

func main() {
	var err error
	switch {
	case len(os.Args) == 3 && os.Args[1] == "floor":
		err = floor(os.Args[2])
	case len(os.Args) == 4 && os.Args[1] == "engine":
		err = engine(os.Args[2], os.Args[3])
	default:
		err = run(os.Args[1:])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "perf-e2e:", err)
		os.Exit(1)
	}
}

// Turn-level instance: the command line.
var turnFlags = []string{"--capacity", "2000000", "--block-size", "16", "--xi-tokens", "1000", "--format", "json"}

// floor reads and decodes a canonical trace, nothing else.
func floor(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := trace.NewReader(f, path)
	n := 0
	for {
		_, err := r.Next()
		if err == io.EOF {
			fmt.Printf("%d turns\n", n)
			return nil
		}
		if err != nil {
			return err
		}
		n++
	}
}

// engine reads a canonical trace into memory, then replays it under one
// policy with the turn-level instance and prints the replay's seconds.
func engine(path, policy string) error {
	tr, err := trace.ReadFile(path)
	if err != nil {
		return err
	}
	entries, err := policies.Parse(policy)
	if err != nil {
		return err
	}
	s := sim.Settings{Options: replay.Options{Params: instance.Params{Capacity: 2000000, BlockSize: 16, Xi: 1000}, Model: latency.Default(), SLOMs: latency.DefaultSLOMs}}
	t0 := time.Now()
	if _, err := sim.Trace(tr, entries, s); err != nil {
		return err
	}
	fmt.Printf("engine %.4f s\n", time.Since(t0).Seconds())
	return nil
}

type options struct {
	base, lcsGit, lcsCommit, cachesim string
	repeat, turns                     int
	shared                            string
	docs                              string
	sections                          []string // of turn, block, memory
	cases, policies                   []string // block-level rows: case letters (a, b, c) and policies
}

// has reports whether list holds s.
func has(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func run(args []string) error {
	var o options
	fs := pflag.NewFlagSet("perf-e2e", pflag.ContinueOnError)
	fs.StringVar(&o.base, "base", "7a5c14f", "git revision of the reference tailbound (built in a temporary worktree)")
	fs.StringVar(&o.lcsGit, "libcachesim-git", "", "git directory holding libCacheSim (github.com/1a1a11a/libCacheSim) to build cachesim from")
	fs.StringVar(&o.lcsCommit, "libcachesim-commit", "aa0fc40914b2b786f4b9f4dafb099f8f332b216a", "libCacheSim commit to build")
	fs.StringVar(&o.cachesim, "cachesim", "", "a cachesim binary to use instead of building one")
	fs.IntVar(&o.repeat, "repeat", 3, "runs per configuration (interleaved); the best is reported")
	fs.IntVar(&o.turns, "turns", 1_000_000, "turns of the canonical trace")
	fs.StringVar(&o.shared, "shared", "../shared", "the shared folder (data/mooncake/conversation_trace.jsonl)")
	fs.StringVar(&o.docs, "docs", "", "also write the tables into this markdown file between its perf-e2e:begin and perf-e2e:end markers (docs/performance.md)")
	fs.StringSliceVar(&o.sections, "sections", []string{"turn", "block", "memory"}, "tables to measure: turn (turn level against --base), block (against cachesim), memory (--no-ideal)")
	fs.StringSliceVar(&o.cases, "block-cases", []string{"a", "b", "c"}, "block-level traces to measure: a (single-block stream), b (Mooncake ×10), c (Zipf)")
	fs.StringSliceVar(&o.policies, "block-policies", []string{"lru", "fifo"}, "block-level policies to measure (lru, fifo)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	for _, s := range o.sections {
		if !has([]string{"turn", "block", "memory"}, s) {
			return fmt.Errorf("--sections: %q is not one of turn, block, memory", s)
		}
	}
	for _, c := range o.cases {
		if !has([]string{"a", "b", "c"}, c) {
			return fmt.Errorf("--block-cases: %q is not one of a, b, c", c)
		}
	}
	for _, p := range o.policies {
		if !has([]string{"lru", "fifo"}, p) {
			return fmt.Errorf("--block-policies: %q is not one of lru, fifo", p)
		}
	}
	if o.docs != "" {
		// Fail before minutes of measuring, not after.
		if err := docregion.Check(o.docs, "perf-e2e"); err != nil {
			return fmt.Errorf("--docs: %w", err)
		}
		start := time.Now()
		stdout := os.Stdout
		r, w, err := os.Pipe()
		if err != nil {
			return err
		}
		var report bytes.Buffer
		done := make(chan error, 1)
		go func() {
			_, err := io.Copy(io.MultiWriter(stdout, &report), r)
			done <- err
		}()
		os.Stdout = w
		err = measureAll(o)
		os.Stdout = stdout
		w.Close()
		if cerr := <-done; err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		return docregion.Write(o.docs, "perf-e2e", "go run ./scripts/perf-e2e "+strings.Join(args, " "), report.String(), start)
	}
	return measureAll(o)
}

// measureAll builds the binaries and prints every table.
func measureAll(o options) error {
	if o.cachesim == "" && o.lcsGit == "" && has(o.sections, "block") {
		return errors.New("give --libcachesim-git (to build cachesim) or --cachesim")
	}
	dir, err := os.MkdirTemp("", "perf-e2e")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	b, err := build(o, dir)
	if err != nil {
		return err
	}
	host, _ := os.Hostname()
	fmt.Printf("machine: %s (%s), %s; load average at start %s\n\n", proctime.CPUName(), host, time.Now().UTC().Format("2006-01-02 15:04 UTC"), proctime.Loadavg())
	if has(o.sections, "turn") {
		if err := turnLevel(o, b, dir); err != nil {
			return err
		}
	}
	if has(o.sections, "block") {
		if err := blockLevel(o, b, dir); err != nil {
			return err
		}
	}
	if has(o.sections, "memory") {
		return memory(o, b, dir)
	}
	return nil
}

// memory measures the peak RSS of block-level runs with and without
// --no-ideal on streams of 10^6 and 4·10^6 single-block requests of
// distinct objects, where every request brings a block never seen before:
// with the ideal figures memory grows with the stream, without them it
// follows the cache.
func memory(o options, b binaries, dir string) error {
	fmt.Printf("\n### Block level: peak RSS with and without the ideal figures, best of %d\n\n", o.repeat)
	fmt.Println("| requests (distinct objects) | policy | ideal figures (s) | peak RSS (MB) | --no-ideal (s) | peak RSS (MB) |")
	fmt.Println("| ---: | --- | ---: | ---: | ---: | ---: |")
	for _, n := range []int{1_000_000, 4_000_000} {
		path := filepath.Join(dir, fmt.Sprintf("distinct-%d.jsonl", n))
		w, err := newFile(path)
		if err != nil {
			return err
		}
		for i := 0; i < n; i++ {
			fmt.Fprintf(w, `{"timestamp": %d, "input_length": 512, "output_length": 0, "hash_ids": [%d]}`+"\n", i, i)
		}
		if err := closeAll(w); err != nil {
			return err
		}
		for _, p := range []string{"lru", "lfu", "s3fifo"} {
			args := []string{b.new, "simulate", "--level", "block", "--trace", path, "--trace-format", "mooncake", "--policies", p,
				"--capacity", "10240000", "--format", "json"}
			with := &proctime.Config{Name: "ideal", Args: args}
			without := &proctime.Config{Name: "no-ideal", Args: append(append([]string(nil), args...), "--no-ideal")}
			if err := proctime.BestOf(o.repeat, dir, []*proctime.Config{with, without}); err != nil {
				return err
			}
			fmt.Printf("| %d | %s | %.2f | %.0f | %.2f | %.0f |\n", n, p, with.Best.Wall.Seconds(), float64(with.Best.RSS)/1024,
				without.Best.Wall.Seconds(), float64(without.Best.RSS)/1024)
		}
		os.Remove(path)
	}
	return nil
}

// binaries are the programs measured.
type binaries struct{ base, new, self, cachesim string }

func build(o options, dir string) (binaries, error) {
	b := binaries{new: filepath.Join(dir, "tailbound"), base: filepath.Join(dir, "tailbound-base"), self: filepath.Join(dir, "perf"), cachesim: o.cachesim}
	steps := [][]string{
		{"go", "build", "-o", b.new, "./cmd/tailbound"},
		{"go", "build", "-o", b.self, "./scripts/perf-e2e"},
	}
	for _, s := range steps {
		if err := sh("", s...); err != nil {
			return b, err
		}
	}
	if has(o.sections, "turn") { // the base build is the turn level's reference only
		if err := sh("", "git", "worktree", "add", "--detach", filepath.Join(dir, "base-src"), o.base); err != nil {
			return b, err
		}
		defer sh("", "git", "worktree", "remove", "--force", filepath.Join(dir, "base-src"))
		if err := sh(filepath.Join(dir, "base-src"), "go", "build", "-o", b.base, "./cmd/tailbound"); err != nil {
			return b, err
		}
	}
	if b.cachesim != "" || !has(o.sections, "block") {
		return b, nil
	}
	src := filepath.Join(dir, "libCacheSim")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return b, err
	}
	// The sample traces under data/ are not needed (and a mirror may hold
	// them as absent large files).
	ls, err := exec.Command("git", "--git-dir", o.lcsGit, "ls-tree", "--name-only", o.lcsCommit).Output()
	if err != nil {
		return b, fmt.Errorf("git ls-tree %s in %s: %w", o.lcsCommit, o.lcsGit, err)
	}
	var paths []string
	for _, p := range strings.Fields(string(ls)) {
		if p != "data" {
			paths = append(paths, p)
		}
	}
	arch := exec.Command("git", append([]string{"--git-dir", o.lcsGit, "archive", o.lcsCommit}, paths...)...)
	untar := exec.Command("tar", "-x", "-C", src)
	pipe, err := arch.StdoutPipe()
	if err != nil {
		return b, err
	}
	untar.Stdin = pipe
	if err := untar.Start(); err != nil {
		return b, err
	}
	if err := arch.Run(); err != nil {
		return b, fmt.Errorf("git archive %s: %w", o.lcsCommit, err)
	}
	if err := untar.Wait(); err != nil {
		return b, err
	}
	bd := filepath.Join(src, "_build")
	if err := sh("", "cmake", "-S", src, "-B", bd, "-DCMAKE_BUILD_TYPE=Release"); err != nil {
		return b, fmt.Errorf("cmake (needs cmake, libglib2.0-dev, libzstd-dev): %w", err)
	}
	if err := sh("", "cmake", "--build", bd, "-j", "2", "--target", "cachesim"); err != nil {
		return b, err
	}
	b.cachesim = filepath.Join(bd, "bin", "cachesim")
	return b, nil
}

func sh(dir string, args ...string) error {
	c := exec.Command(args[0], args[1:]...)
	c.Dir = dir
	out, err := c.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %v: %s", strings.Join(args, " "), err, proctime.LastLines(out))
	}
	return nil
}

func turnLevel(o options, b binaries, dir string) error {
	canon := filepath.Join(dir, "canonical.jsonl")
	f, err := os.Create(canon)
	if err != nil {
		return err
	}
	gen := exec.Command(b.new, "gen", "birth-death", "--turns", strconv.Itoa(o.turns), "--seed", "1")
	gen.Stdout = f
	if err := gen.Run(); err != nil {
		return fmt.Errorf("gen: %w", err)
	}
	f.Close()
	st, _ := os.Stat(canon)
	tr, err := trace.ReadFile(canon)
	if err != nil {
		return err
	}
	convs := tr.Conversations()
	tr = nil
	var cs []*proctime.Config
	for _, p := range []string{"lru", "tlru"} {
		for _, v := range []struct{ name, bin string }{{"base", b.base}, {"new", b.new}} {
			cs = append(cs, &proctime.Config{Name: v.name + " " + p, Args: append([]string{v.bin, "simulate", "--trace", canon, "--policies", p}, turnFlags...)})
		}
		cs = append(cs, &proctime.Config{Name: "engine " + p, Args: []string{b.self, "engine", canon, p}})
	}
	cs = append(cs, &proctime.Config{Name: "floor", Args: []string{b.self, "floor", canon}})
	if err := proctime.BestOf(o.repeat, dir, cs); err != nil {
		return err
	}
	get := map[string]*proctime.Config{}
	for _, c := range cs {
		get[c.Name] = c
	}
	// The outputs of base and new must agree, but for the "produced_by"
	// stamp (version and settings) that later trees add.
	for _, p := range []string{"lru", "tlru"} {
		if !sameResults(get["base "+p].Best.Out, get["new "+p].Best.Out) {
			return fmt.Errorf("simulate --policies %s: this tree's output differs from %s's", p, o.base)
		}
	}
	fl := get["floor"].Best
	fmt.Printf("### Turn level: simulate on %d turns (%d conversations, %.0f MB), best of %d\n\n", o.turns, convs, float64(st.Size())/1e6, o.repeat)
	fmt.Printf("`tailbound simulate --trace T --policies P %s`\n\n", strings.Join(turnFlags, " "))
	fmt.Println("| policy | whole process (s) | CPU (s) | turns/s | peak RSS (MB) | " + o.base + ": whole process (s) | CPU (s) | peak RSS (MB) | speed-up (wall) | speed-up (CPU) | engine alone (s) | whole / max(engine, parse floor) |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, p := range []string{"lru", "tlru"} {
		n, bs := get["new "+p].Best, get["base "+p].Best
		eng, err := engineSeconds(get["engine "+p].Best.Out)
		if err != nil {
			return err
		}
		slow := math.Max(eng, fl.Wall.Seconds())
		fmt.Printf("| %s | %.2f | %.2f | %.2f M | %.0f | %.2f | %.2f | %.0f | %.2f× | %.2f× | %.2f | %.2f |\n", p, n.Wall.Seconds(), n.CPU,
			float64(o.turns)/n.Wall.Seconds()/1e6, float64(n.RSS)/1024, bs.Wall.Seconds(), bs.CPU, float64(bs.RSS)/1024,
			bs.Wall.Seconds()/n.Wall.Seconds(), bs.CPU/n.CPU, eng, n.Wall.Seconds()/slow)
	}
	fmt.Printf("\nParse floor (trace.Reader alone, whole process): %.2f s, %.2f s CPU (%.2f M turns/s), %.0f MB peak RSS. Engine alone: the decoded turns replayed from memory, timed inside the process.\n\n",
		fl.Wall.Seconds(), fl.CPU, float64(o.turns)/fl.Wall.Seconds()/1e6, float64(fl.RSS)/1024)
	return nil
}

var engineRe = regexp.MustCompile(`engine ([0-9.]+) s`)

func engineSeconds(out []byte) (float64, error) {
	m := engineRe.FindSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("engine: no timing in %q", out)
	}
	return strconv.ParseFloat(string(m[1]), 64)
}

// blockCase is one file and capacity for both tools.
type blockCase struct {
	name       string
	ours       []string // tailbound trace flags (after --trace FILE)
	oursFile   string
	altFormat  string // a second tailbound reading of the same requests
	altFile    string
	oracle     string // cachesim's oracleGeneral file
	capBlocks  int64
	blockToks  int64
	equalRatio bool // hit ratios must agree (no prefix structure)
}

func blockLevel(o options, b binaries, dir string) error {
	cases, err := blockInputs(o, dir)
	if err != nil {
		return err
	}
	fmt.Printf("### Block level: whole process against cachesim (libCacheSim %s), best of %d\n\n", o.lcsCommit[:min(8, len(o.lcsCommit))], o.repeat)
	fmt.Println("| trace | policy | capacity (blocks) | requests | tailbound reads | tailbound (s) | CPU (s) | req/s | peak RSS (MB) | cachesim (s) | CPU (s) | its refs/s | peak RSS (MB) | speed ratio (cachesim time / tailbound time) | CPU ratio (cachesim CPU / tailbound CPU) | hit ratio tailbound / cachesim |")
	fmt.Println("| --- | --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
	for _, c := range cases {
		for _, p := range o.policies {
			capTokens := strconv.FormatInt(c.capBlocks*c.blockToks, 10)
			var cs []*proctime.Config
			for _, r := range []struct{ format, file string }{{c.ours[0], c.oursFile}, {c.altFormat, c.altFile}} {
				if r.format == "" {
					continue
				}
				args := []string{b.new, "simulate", "--level", "block", "--trace", r.file, "--trace-format", r.format, "--policies", p,
					"--capacity", capTokens, "--format", "json"}
				if r.format == "oracle-general" {
					args = append(args, "--block-size", strconv.FormatInt(c.blockToks, 10))
				}
				cs = append(cs, &proctime.Config{Name: r.format, Args: args})
			}
			lcs := &proctime.Config{Name: "cachesim", Args: []string{b.cachesim, c.oracle, "oracleGeneral", strings.ToUpper(p), strconv.FormatInt(c.capBlocks, 10), "--ignore-obj-size", "1"}}
			if err := proctime.BestOf(o.repeat, dir, append(cs, lcs)); err != nil {
				return err
			}
			theirs, err := parseCachesim(append(lcs.Best.Out, lcs.Best.Err...))
			if err != nil {
				return err
			}
			for _, t := range cs {
				reqs, refs, hits, err := parseOurs(t.Best.Out)
				if err != nil {
					return err
				}
				ours := float64(hits) / float64(refs)
				agree := ""
				if c.equalRatio {
					agree = " (differ!)"
					if math.Abs(ours-(1-theirs.missRatio)) < 0.00005 && refs == theirs.requests {
						agree = " (equal)"
					}
				}
				fmt.Printf("| %s | %s | %d | %d | %s | %.2f | %.2f | %.2f M | %.0f | %.2f | %.2f | %.2f M | %.0f | %.2f | %.2f | %.4f / %.4f%s |\n", c.name, p, c.capBlocks, reqs, t.Name,
					t.Best.Wall.Seconds(), t.CPU, float64(reqs)/t.Best.Wall.Seconds()/1e6, float64(t.Best.RSS)/1024,
					lcs.Best.Wall.Seconds(), lcs.CPU, float64(theirs.requests)/lcs.Best.Wall.Seconds()/1e6, float64(lcs.Best.RSS)/1024,
					lcs.Best.Wall.Seconds()/t.Best.Wall.Seconds(), lcs.CPU/t.CPU,
					ours, 1-theirs.missRatio, agree)
			}
		}
	}
	fmt.Println("\nrequests: tailbound's requests (one per line or record). cachesim counts block references (a Mooncake request of n blocks is n of them): its refs/s. The speed ratio compares the whole-process times on the same trace and capacity; above 1, tailbound is faster. The CPU ratio compares user + system seconds of the same runs, which a machine shared with other work disturbs less than wall time (tailbound parses and replays on two goroutines, cachesim on one).")
	return nil
}

type cachesimResult struct {
	requests  int64
	missRatio float64
}

var cachesimRe = regexp.MustCompile(`(\d+) req, miss ratio ([0-9.]+)`)

func parseCachesim(out []byte) (cachesimResult, error) {
	m := cachesimRe.FindSubmatch(out)
	if m == nil {
		return cachesimResult{}, fmt.Errorf("cachesim: no result line in %s", proctime.LastLines(out))
	}
	n, _ := strconv.ParseInt(string(m[1]), 10, 64)
	r, _ := strconv.ParseFloat(string(m[2]), 64)
	return cachesimResult{n, r}, nil
}

// parseOurs reads requests, block references and hits from simulate's
// block-level JSON.
func parseOurs(out []byte) (reqs, refs, hits int64, err error) {
	var v struct {
		Policies []struct {
			Requests  int64 `json:"requests"`
			RefBlocks int64 `json:"ref_blocks"`
			HitBlocks int64 `json:"hit_blocks"`
		} `json:"policies"`
	}
	i := bytes.IndexByte(out, '{')
	if i < 0 {
		return 0, 0, 0, fmt.Errorf("simulate: no JSON in %s", proctime.LastLines(out))
	}
	if err := json.NewDecoder(bytes.NewReader(out[i:])).Decode(&v); err != nil || len(v.Policies) != 1 {
		return 0, 0, 0, fmt.Errorf("simulate: unreadable JSON (%v)", err)
	}
	p := v.Policies[0]
	return p.Requests, p.RefBlocks, p.HitBlocks, nil
}

// blockInputs writes the block-level traces of the cases asked for
// (--block-cases), in the order a, b, c.
func blockInputs(o options, dir string) ([]blockCase, error) {
	var cases []blockCase
	for _, k := range []struct {
		letter string
		write  func(o options, dir string) (blockCase, error)
	}{{"a", singlesInput}, {"b", mooncakeInput}, {"c", zipfInput}} {
		if !has(o.cases, k.letter) {
			continue
		}
		c, err := k.write(o, dir)
		if err != nil {
			return nil, err
		}
		cases = append(cases, c)
	}
	return cases, nil
}

// singlesInput writes (a), 2·10^6 single-block requests: half from a hot
// set of 10^4 objects, half from 10^6.
func singlesInput(_ options, dir string) (blockCase, error) {
	singlesJSON := filepath.Join(dir, "singles.jsonl")
	singlesBin := filepath.Join(dir, "singles.oracleGeneral")
	jw, err := newFile(singlesJSON)
	if err != nil {
		return blockCase{}, err
	}
	bw, err := newFile(singlesBin)
	if err != nil {
		return blockCase{}, err
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 2_000_000; i++ {
		id := rng.IntN(1_000_000)
		if rng.IntN(2) == 0 {
			id = rng.IntN(10_000)
		}
		fmt.Fprintf(jw, `{"timestamp": %d, "input_length": 512, "output_length": 0, "hash_ids": [%d]}`+"\n", i, id)
		importer.WriteOracleGeneral(bw, uint32(i/1000), uint64(id), 1, -1)
	}
	if err := closeAll(jw, bw); err != nil {
		return blockCase{}, err
	}
	return blockCase{name: "(a) 2·10^6 single-block requests", ours: []string{"mooncake"}, oursFile: singlesJSON, altFormat: "oracle-general", altFile: singlesBin,
		oracle: singlesBin, capBlocks: 20000, blockToks: 512, equalRatio: true}, nil
}

// mooncakeInput writes (b), the Mooncake conversation trace, 10 copies
// with disjoint ids.
func mooncakeInput(o options, dir string) (blockCase, error) {
	conv := filepath.Join(o.shared, "data", "mooncake", "conversation_trace.jsonl")
	src, f, err := importer.Open(conv, "mooncake", importer.DefaultOptions())
	if err != nil {
		return blockCase{}, err
	}
	s, err := importer.ReadAll(src)
	f.Close()
	if err != nil {
		return blockCase{}, err
	}
	var hi int64
	for _, r := range s.Requests {
		for _, h := range r.Hashes {
			hi = max(hi, h+1)
		}
	}
	mcJSON := filepath.Join(dir, "mooncake-x10.jsonl")
	mcBin := filepath.Join(dir, "mooncake-x10.oracleGeneral")
	jw, err := newFile(mcJSON)
	if err != nil {
		return blockCase{}, err
	}
	bw, err := newFile(mcBin)
	if err != nil {
		return blockCase{}, err
	}
	in := prefixcache.NewInterner()
	end := int64(s.Requests[len(s.Requests)-1].Time*1000) + 1
	var arena []prefixcache.BlockID
	for k := int64(0); k < 10; k++ {
		for _, r := range s.Requests {
			c := r
			c.Time += float64(k*end) / 1000
			c.Hashes = make([]int64, len(r.Hashes))
			for i, h := range r.Hashes {
				c.Hashes[i] = h + k*hi
			}
			line, _ := json.Marshal(map[string]any{"timestamp": int64(math.Round(c.Time * 1000)), "input_length": c.Input,
				"output_length": c.Output, "hash_ids": c.Hashes})
			jw.Write(append(line, '\n'))
			q, a, err := in.Intern(&c, arena[:0])
			if err != nil {
				return blockCase{}, err
			}
			arena = a
			for _, id := range q.Blocks {
				importer.WriteOracleGeneral(bw, uint32(c.Time), uint64(id), 1, -1)
			}
		}
	}
	if err := closeAll(jw, bw); err != nil {
		return blockCase{}, err
	}
	return blockCase{name: "(b) Mooncake conversation trace ×10", ours: []string{"mooncake"}, oursFile: mcJSON, oracle: mcBin, capBlocks: 4096, blockToks: 512}, nil
}

// zipfInput writes (c), a Zipf(1.1) stream of 4·10^6 references to 10^6
// objects.
func zipfInput(_ options, dir string) (blockCase, error) {
	zipf := filepath.Join(dir, "zipf.oracleGeneral")
	bw, err := newFile(zipf)
	if err != nil {
		return blockCase{}, err
	}
	z := rand.NewZipf(rand.New(rand.NewPCG(3, 4)), 1.1, 1, 1_000_000-1)
	for i := 0; i < 4_000_000; i++ {
		importer.WriteOracleGeneral(bw, uint32(i/1000), z.Uint64(), 1, -1)
	}
	if err := closeAll(bw); err != nil {
		return blockCase{}, err
	}
	return blockCase{name: "(c) Zipf(1.1) oracleGeneral, 4·10^6 refs", ours: []string{"oracle-general"}, oursFile: zipf, oracle: zipf, capBlocks: 50000, blockToks: 1, equalRatio: true}, nil
}

type bufFile struct {
	*bufio.Writer
	f *os.File
}

func newFile(path string) (*bufFile, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	return &bufFile{bufio.NewWriterSize(f, 1<<20), f}, nil
}

func closeAll(fs ...*bufFile) error {
	for _, f := range fs {
		if err := f.Flush(); err != nil {
			return err
		}
		if err := f.f.Close(); err != nil {
			return err
		}
	}
	return nil
}

// sameResults reports whether two JSON outputs are equal once the top-level
// "produced_by" stamp, which later trees add, is left out of both.
func sameResults(a, b []byte) bool {
	var x, y map[string]any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	delete(x, "produced_by")
	delete(y, "produced_by")
	return reflect.DeepEqual(x, y)
}
