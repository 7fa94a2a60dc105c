// Command perf-speed measures the whole-process figures of issue 27 (docs/speed.md)
// and prints them as markdown: the one-pass LRU capacity curve against one
// capacity and against the replay-per-capacity sweep of an earlier commit,
// simulate's turns/s for lru and tlru, ET-LRU on 10^5 turns before and after
// its incremental index, and (with --suite) ET-LRU's share of `tables
// optimality-gap`, (with --block or --block-only) the block-level LRU
// curve by one stack pass against one capacity and against a replay per
// capacity, and (with --bayes or --bayes-only) ET-LRU under the Bayes
// belief on 10^5 turns, class and Gamma prior, against --old, and (with
// --opt-curve or --opt-curve-only) the optimum's 16-point capacity curve
// by `gap --warm-start` against 16 separate solves, on the trace's first
// 10^5 turns and on the whole trace. Every ratio compares figures of the same run; configurations
// are interleaved and the best of --repeat runs is kept (wall and CPU
// separately), because the machine is shared.
//
//	go run ./scripts/perf-speed [--old COMMIT] [--repeat 3] [--turns 1000000] [--suite | --suite-only] [--block | --block-only] [--bayes | --bayes-only] [--opt-curve | --opt-curve-only] [--dir DIR]
//
// It builds tailbound from the working tree and from --old (git archive into a
// temporary folder), generates its inputs with `tailbound gen birth-death`,
// times each process with /usr/bin/time -v and checks that old and new
// outputs are identical wherever both finish.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/tailbound/tailbound/scripts/internal/proctime"
)

func main() {
	old := flag.String("old", "0d39d24", "commit to compare with (before issue 27's work)")
	repeat := flag.Int("repeat", 3, "runs per configuration, interleaved; the best is kept")
	turns := flag.Int("turns", 1000000, "turns of the birth–death trace")
	suite := flag.Bool("suite", false, "also time `tables optimality-gap` with and without etlru, old and new (minutes)")
	skip := flag.Bool("suite-only", false, "time only `tables optimality-gap` (implies --suite)")
	dir := flag.String("dir", "", "work folder (default: a temporary one, removed at the end)")
	etTimeout := flag.Duration("etlru-timeout", 120*time.Second, "time limit of the old etlru run")
	block := flag.Bool("block", false, "also time the block-level LRU curve (simulate --level block) on the trace's first 100,000 turns, old and new (minutes)")
	blockOnly := flag.Bool("block-only", false, "time only the block-level LRU curve (implies --block)")
	bayes := flag.Bool("bayes", false, "also time etlru under the Bayes belief (class and Gamma prior) on the trace's first 100,000 turns, old and new (minutes)")
	bayesOnly := flag.Bool("bayes-only", false, "time only etlru under the Bayes belief (implies --bayes)")
	optCurve := flag.Bool("opt-curve", false, "also time the optimum's 16-point capacity curve, warm-started against separate solves, on 100,000 turns and on --turns (one run each; about 35 minutes at 10^6 turns)")
	optCurveOnly := flag.Bool("opt-curve-only", false, "time only the optimum's capacity curve (implies --opt-curve)")
	flag.Parse()
	only := *skip || *blockOnly || *bayesOnly || *optCurveOnly
	if err := run(*old, *repeat, *turns, *suite || *skip, only, *block || *blockOnly, *bayes || *bayesOnly, *optCurve || *optCurveOnly, *dir, *etTimeout); err != nil {
		fmt.Fprintln(os.Stderr, "perf-speed:", err)
		os.Exit(1)
	}
}

// run builds both binaries and the inputs and prints the sections asked:
// the default ones unless only, the suite's share, the block-level curve.
func run(old string, repeat, turns int, suite, only, block, bayes, optCurve bool, dir string, etTimeout time.Duration) error {
	if dir == "" {
		d, err := os.MkdirTemp("", "perf-speed")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	root, err := os.Getwd()
	if err != nil {
		return err
	}
	head, _ := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	oldSrc := filepath.Join(dir, "old-src")
	if err := os.MkdirAll(oldSrc, 0o755); err != nil {
		return err
	}
	if err := sh(root, "sh", "-c", "git archive "+old+" | tar -x -C "+oldSrc); err != nil {
		return err
	}
	newBin, oldBin := filepath.Join(dir, "tailbound"), filepath.Join(dir, "tailbound-old")
	if err := sh(root, "go", "build", "-o", newBin, "./cmd/tailbound"); err != nil {
		return err
	}
	if err := sh(oldSrc, "go", "build", "-o", oldBin, "./cmd/tailbound"); err != nil {
		return err
	}
	big := filepath.Join(dir, "bd.jsonl")
	if err := sh(dir, "sh", "-c", fmt.Sprintf("%s gen birth-death --turns %d --seed 1 > %s", newBin, turns, big)); err != nil {
		return err
	}
	small := filepath.Join(dir, "bd100k.jsonl")
	if err := sh(dir, "sh", "-c", fmt.Sprintf("head -n 100000 %s > %s", big, small)); err != nil {
		return err
	}
	fmt.Printf("perf-speed, %s UTC, tailbound %s against %s; %s; load average at start %s; best of %d interleaved runs\n\n",
		time.Now().UTC().Format("2006-01-02 15:04"), strings.TrimSpace(string(head)), old, proctime.CPUName(), proctime.Loadavg(), repeat)

	if !only {
		if err := sections(old, newBin, oldBin, big, small, repeat, turns, dir, etTimeout); err != nil {
			return err
		}
	}
	if block {
		if err := blockCurve(old, newBin, oldBin, small, repeat, dir); err != nil {
			return err
		}
	}
	if bayes {
		if err := bayesETLRU(old, newBin, oldBin, small, repeat, dir, etTimeout); err != nil {
			return err
		}
	}
	if optCurve {
		if err := optimumCurve(newBin, small, big, turns, dir); err != nil {
			return err
		}
	}
	if suite {
		return suiteShare(old, newBin, oldBin, dir)
	}
	return nil
}

// optimumCurve times `gap` at 16 capacities (32,768·2^(k/3) tokens rounded
// down to blocks, B = 16, ξ = 300 tokens, policy lru) solving each
// capacity separately (--workers 1, and gap's default --workers 2) and as
// one warm-started curve (--warm-start), on the first 10^5 turns (small)
// and on the whole trace (big), one run each (minutes), and checks that
// the rows are identical.
func optimumCurve(newBin, small, big string, turns int, dir string) error {
	var caps []string
	for k := 0; k < 16; k++ {
		caps = append(caps, strconv.FormatInt(int64(32768*math.Exp2(float64(k)/3))/16*16, 10))
	}
	fmt.Printf("\n### The optimum's capacity curve: `gap`, 16 capacities %s … %s tokens (×2^(1/3)), B = 16, ξ = 300, one run each\n\n", caps[0], caps[15])
	fmt.Println("| turns | command | wall (s) | CPU (s) | peak RSS (MB) | wall / separate (--workers 1) | CPU / separate | rows identical |")
	fmt.Println("| ---: | --- | ---: | ---: | ---: | ---: | ---: | --- |")
	for _, in := range []struct {
		path  string
		turns int
	}{{small, 100000}, {big, turns}} {
		common := []string{newBin, "gap", "--trace", in.path, "--capacities", strings.Join(caps, ","), "--xis", "300", "--policies", "lru", "--block-size", "16", "--format", "json"}
		runs := []struct {
			name  string
			extra []string
		}{
			{"16 separate solves, --workers 1", []string{"--workers", "1", "--warm-start", "off"}},
			{"16 separate solves, --workers 2", []string{"--workers", "2", "--warm-start", "off"}},
			{"one curve, --warm-start on", []string{"--workers", "1", "--warm-start", "on"}},
		}
		var base proctime.Measure
		for i, r := range runs {
			m, err := proctime.Run(dir, 0, append(append([]string{}, common...), r.extra...)...)
			if err != nil {
				return err
			}
			if i == 0 {
				base = m
			}
			fmt.Printf("| %d | %s | %.1f | %.1f | %.0f | %.2f | %.2f | %v |\n", in.turns, r.name, m.Wall.Seconds(), m.CPU, float64(m.RSS)/1024,
				m.Wall.Seconds()/base.Wall.Seconds(), m.CPU/base.CPU, rowsOf(m.Out) != nil && same(rowsOf(m.Out), rowsOf(base.Out)))
		}
	}
	return nil
}

// rowsRe matches gap's JSON rows, the part that must not depend on how
// the optimum was solved.
var rowsRe = regexp.MustCompile(`(?s)"rows": \[.*?\n  \]`)

// rowsOf is the rows of a gap JSON output.
func rowsOf(out []byte) []byte { return rowsRe.Find(out) }

// sections measures the curve, simulate's turns/s and ET-LRU.
func sections(old, newBin, oldBin, big, small string, repeat, turns int, dir string, etTimeout time.Duration) error {
	// 1. The LRU capacity curve.
	var caps []string
	for i := 0; i < 32; i++ {
		caps = append(caps, strconv.FormatInt(16*int64(1024*math.Exp2(0.4*float64(i))), 10))
	}
	common := []string{"--trace", big, "--policies", "lru", "--block-size", "16", "--xi-tokens", "1000", "--format", "json"}
	one := &proctime.Config{Name: "lru, 1 capacity (262,144)", Args: append([]string{newBin, "simulate", "--capacity", "262144"}, common...)}
	curve := &proctime.Config{Name: "lru, 32 capacities, one pass", Args: append([]string{newBin, "simulate", "--capacities", strings.Join(caps, ",")}, common...)}
	oldCurve := &proctime.Config{Name: "lru, 32 capacities, " + old + " (a replay per capacity)", Args: append([]string{oldBin, "simulate", "--capacities", strings.Join(caps, ",")}, common...)}
	if err := proctime.BestOf(repeat, dir, []*proctime.Config{one, curve, oldCurve}); err != nil {
		return err
	}
	fmt.Printf("### LRU capacity curve, %d turns, B = 16, capacities 16,384 … 88,550,672 tokens (×2^0.4)\n\n", turns)
	table([]*proctime.Config{one, curve, oldCurve}, one, float64(turns))
	fmt.Printf("\ncurve output identical to %s's: %v\n\n", old, same(curve.Best.Out, oldCurve.Best.Out))

	// 1b. A policy that is not a stack algorithm: one parse, a replay per
	// capacity, two at a time; memory must not grow with the capacities.
	tcommon := []string{newBin, "simulate", "--trace", big, "--policies", "tlru", "--block-size", "16", "--xi-tokens", "1000", "--format", "json", "--capacities"}
	tone := &proctime.Config{Name: "tlru, 1 capacity (262,144)", Args: append(append([]string{}, tcommon...), "262144")}
	tcurve := &proctime.Config{Name: "tlru, 32 capacities, one parse, replays two at a time", Args: append(append([]string{}, tcommon...), strings.Join(caps, ","))}
	if err := proctime.BestOf(repeat, dir, []*proctime.Config{tone, tcurve}); err != nil {
		return err
	}
	fmt.Printf("### T-LRU capacity sweep (not a stack algorithm), %d turns, the same capacities\n\n", turns)
	table([]*proctime.Config{tone, tcurve}, tone, float64(turns))
	fmt.Println()

	// 2. simulate lru and tlru, one capacity.
	sim := func(bin, pol string) *proctime.Config {
		return &proctime.Config{Name: pol, Args: []string{bin, "simulate", "--trace", big, "--policies", pol, "--capacity", "2000000",
			"--block-size", "16", "--xi-tokens", "1000", "--format", "json"}}
	}
	lru, tlru := sim(newBin, "lru"), sim(newBin, "tlru")
	if err := proctime.BestOf(repeat, dir, []*proctime.Config{lru, tlru}); err != nil {
		return err
	}
	fmt.Printf("### simulate, one policy, %d turns, C = 2,000,000 tokens\n\n", turns)
	table([]*proctime.Config{lru, tlru}, nil, float64(turns))

	// 3. ET-LRU on 10^5 turns.
	fmt.Printf("\n### etlru, 100,000 turns (the trace's first), B = 16, default options (paper belief, online prompts)\n\n")
	fmt.Println("| capacity (tokens) | ξ (tokens) | new (s) | CPU (s) | turns/s (wall) | turns/s (CPU) | " + old + " (s) | CPU (s) | speed-up, wall | identical |")
	fmt.Println("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
	for _, c := range [][2]string{{"131072", "1900"}, {"16777216", "1000"}} {
		args := []string{"simulate", "--trace", small, "--policies", "etlru", "--capacity", c[0], "--block-size", "16", "--xi-tokens", c[1], "--format", "json"}
		if err := newAgainstOld(c[0]+" | "+c[1], args, newBin, oldBin, repeat, dir, etTimeout); err != nil {
			return err
		}
	}

	return nil
}

// bayesETLRU times etlru under the Bayes belief on the first 10^5 turns at
// simulate's default cache and ξ, with the default rate classes and with a
// Gamma prior, new (best of repeat) against old (one run, stopped after
// etTimeout), and checks that the outputs are identical.
func bayesETLRU(old, newBin, oldBin, small string, repeat int, dir string, etTimeout time.Duration) error {
	fmt.Printf("\n### etlru under the Bayes belief, 100,000 turns (the trace's first), C = 131,072, B = 16, ξ = 1,900, online prompts\n\n")
	fmt.Println("| prior | new (s) | CPU (s) | turns/s (wall) | turns/s (CPU) | " + old + " (s) | CPU (s) | speed-up, wall | identical |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
	for _, pr := range [][2]string{{"classes (default)", ""}, {"gamma 2:0.03", "gamma=2:0.03"}} {
		args := []string{"simulate", "--trace", small, "--policies", "etlru", "--capacity", "131072", "--block-size", "16", "--xi-tokens", "1900",
			"--policy-opt", "belief=bayes", "--format", "json"}
		if pr[1] != "" {
			args = append(args, "--policy-opt", pr[1])
		}
		if err := newAgainstOld(pr[0], args, newBin, oldBin, repeat, dir, etTimeout); err != nil {
			return err
		}
	}
	return nil
}

// newAgainstOld times the command args of 10^5 turns with newBin (best of
// repeat) and once with oldBin (stopped after etTimeout), and prints a table
// row: the label's cells, then new wall and CPU time (s), turns/s by each,
// old wall and CPU time, the wall-time speed-up and whether the outputs are
// identical.
func newAgainstOld(label string, args []string, newBin, oldBin string, repeat int, dir string, etTimeout time.Duration) error {
	n := &proctime.Config{Name: label, Args: append([]string{newBin}, args...)}
	if err := proctime.BestOf(repeat, dir, []*proctime.Config{n}); err != nil {
		return err
	}
	o, err := proctime.Run(dir, etTimeout, append([]string{oldBin}, args...)...)
	oldCell, oldCPU, ratio, identical := "> "+etTimeout.String()+" (stopped)", "—", "> "+fmt.Sprintf("%.0f×", etTimeout.Seconds()/n.Best.Wall.Seconds()), "—"
	if err == nil {
		oldCell, oldCPU = fmt.Sprintf("%.2f", o.Wall.Seconds()), fmt.Sprintf("%.2f", o.CPU)
		ratio = fmt.Sprintf("%.1f×", o.Wall.Seconds()/n.Best.Wall.Seconds())
		identical = strconv.FormatBool(same(o.Out, n.Best.Out))
	}
	fmt.Printf("| %s | %.2f | %.2f | %.0f | %.0f | %s | %s | %s | %s |\n", label, n.Best.Wall.Seconds(), n.CPU,
		1e5/n.Best.Wall.Seconds(), 1e5/n.CPU, oldCell, oldCPU, ratio, identical)
	return nil
}

// suiteShare times tables optimality-gap with and without etlru, old and
// new; the share is computed from CPU time (user + system), which a shared
// machine disturbs less than wall time.
// blockCurve times block-level LRU (simulate --level block) on the
// 10^5-turn trace at one capacity and at 32, new (one stack pass) and old
// (a cache per capacity), and checks that their outputs are identical.
func blockCurve(old, newBin, oldBin, small string, repeat int, dir string) error {
	var caps []string
	for i := 0; i < 32; i++ {
		caps = append(caps, strconv.FormatInt(16*int64(1024*math.Exp2(0.4*float64(i))), 10))
	}
	common := []string{"simulate", "--level", "block", "--trace", small, "--policies", "lru", "--block-size", "16", "--xi-tokens", "1000", "--format", "json"}
	one := &proctime.Config{Name: "block lru, 1 capacity (262,144)", Args: append(append([]string{newBin}, common...), "--capacity", "262144")}
	curve := &proctime.Config{Name: "block lru, 32 capacities, one stack pass", Args: append(append([]string{newBin}, common...), "--capacities", strings.Join(caps, ","))}
	oldOne := &proctime.Config{Name: "block lru, 1 capacity, " + old, Args: append(append([]string{oldBin}, common...), "--capacity", "262144")}
	oldCurve := &proctime.Config{Name: "block lru, 32 capacities, " + old + " (a cache per capacity)", Args: append(append([]string{oldBin}, common...), "--capacities", strings.Join(caps, ","))}
	cs := []*proctime.Config{one, curve, oldOne, oldCurve}
	if err := proctime.BestOf(repeat, dir, cs); err != nil {
		return err
	}
	fmt.Printf("\n### block-level LRU capacity curve, 100,000 turns, B = 16, capacities 16,384 … 88,550,672 tokens (×2^0.4)\n\n")
	table(cs, one, 1e5)
	fmt.Printf("\ncurve output identical to %s's: %v; one capacity identical: %v\n", old, same(curve.Best.Out, oldCurve.Best.Out), same(one.Best.Out, oldOne.Best.Out))
	return nil
}

func suiteShare(old, newBin, oldBin, dir string) error {
	// 4. ET-LRU's share of tables optimality-gap.
	all := "lru,fifo,lfu,threshold-lru,tlru,etlru,end-aware-tlru,length-aware-tlru,to-belady,belady"
	without := strings.Replace(all, "etlru,", "", 1)
	fmt.Printf("\n### `tables optimality-gap` (defaults: 3 capacities × 3 thresholds, embedded workload), with and without etlru, one run each\n\n")
	fmt.Println("| build | all policies, wall (s) | CPU (s) | without etlru, wall (s) | CPU (s) | etlru's share of CPU |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: | ---: |")
	for _, b := range [][2]string{{old, oldBin}, {"new", newBin}} {
		a, err := proctime.Run(dir, 0, b[1], "tables", "optimality-gap", "--policies", all, "--format", "json")
		if err != nil {
			return err
		}
		w, err := proctime.Run(dir, 0, b[1], "tables", "optimality-gap", "--policies", without, "--format", "json")
		if err != nil {
			return err
		}
		fmt.Printf("| %s | %.1f | %.1f | %.1f | %.1f | %.0f %% |\n", b[0], a.Wall.Seconds(), a.CPU, w.Wall.Seconds(), w.CPU, 100*(a.CPU-w.CPU)/a.CPU)
	}
	return nil
}

// table prints configs' best wall and CPU time, peak RSS and turns/s, and
// each one's ratios to base (when not nil).
func table(cs []*proctime.Config, base *proctime.Config, turns float64) {
	fmt.Println("| command | wall (s) | CPU (s) | peak RSS (MB) | M turns/s (wall) | wall / base | RSS / base |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, c := range cs {
		rw, rr := "—", "—"
		if base != nil {
			rw = fmt.Sprintf("%.2f", c.Best.Wall.Seconds()/base.Best.Wall.Seconds())
			rr = fmt.Sprintf("%.2f", float64(c.RSS)/float64(base.RSS))
		}
		fmt.Printf("| %s | %.2f | %.2f | %.0f | %.2f | %s | %s |\n", c.Name, c.Best.Wall.Seconds(), c.CPU, float64(c.RSS)/1024,
			turns/c.Best.Wall.Seconds()/1e6, rw, rr)
	}
}

// measure is one timed process.
// sh runs a command in dir, its output on stderr.
func sh(dir string, args ...string) error {
	c := exec.Command(args[0], args[1:]...)
	c.Dir, c.Stdout, c.Stderr = dir, os.Stderr, os.Stderr
	if err := c.Run(); err != nil {
		return fmt.Errorf("%s: %w", strings.Join(args, " "), err)
	}
	return nil
}

// versionRe matches the JSON line of the producing build's version.
var versionRe = regexp.MustCompile(`(?m)^\s*"version": .*$`)

// same reports whether two JSON outputs are equal but for the version line.
func same(a, b []byte) bool {
	return bytes.Equal(versionRe.ReplaceAll(a, nil), versionRe.ReplaceAll(b, nil))
}
