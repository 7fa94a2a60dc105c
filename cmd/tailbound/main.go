// Command tailbound computes exact bounds and checks theorems for KV-cache
// eviction in LLM serving. Run "tailbound help" for the sub-commands.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/lp/solvers"
)

// command is one sub-command: run parses its own flags from args and writes
// results to stdout, diagnostics and progress to stderr.
type command struct {
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

// commands lists the sub-commands. Each lives in its own file.
func commands() map[string]command {
	return map[string]command{
		"simulate":  {"replay a trace under several eviction policies", runSimulate},
		"latency":   {"fit the TTFT model (α, β) to measured points: latency fit --csv FILE", runLatency},
		"check":     {"check the literature's theorems on random instances", runCheck},
		"tables":    {"run an experiment suite, printing its tables: tables SUITE | tables --list", runTables},
		"plot":      {"draw an experiment suite's figures: plot SUITE --dir DIR --ext svg|png|pdf", runPlot},
		"merge":     {"combine the result files of a suite's shards into the unsharded output", runMerge},
		"solve":     {"hindsight TEL optimum of a trace: IP, LP bound, flow (--solver " + solvers.Choices(solvers.IP|solvers.LP) + ")", runSolve},
		"gap":       {"every policy's TEL against the hindsight optimum over capacities and thresholds", runGap},
		"gen":       {"generate traces: gen birth-death | gen timestamps --trace FILE", runGen},
		"mdp":       {"belief MDP: mdp solve (exact, small instances) | mdp simulate (Monte Carlo)", runMDP},
		"recompute": {"recompute or load a reused KV cache: roofline, search, cake, profile, measure", runRecompute},

		"import":       {"convert a Mooncake or Bailian trace: import mooncake|bailian --in FILE [--to canonical|blocks]", runImport},
		"characterize": {"the workload study's trace analyses: characterize TRACE --trace-format mooncake|bailian|blocks", runCharacterize},
	}
}

func main() {
	// SIGINT and SIGTERM cancel the context: output files being written
	// are removed, line output stops at a line's end, and the process
	// exits 130. A command that does not stop by itself within a grace
	// period is ended then (its atomic outputs leave nothing behind).
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		time.Sleep(2 * time.Second)
		os.Exit(130)
	}()
	code := runContext(ctx, os.Args[1:], os.Stdout, os.Stderr)
	interrupted := ctx.Err() != nil
	stop()
	if interrupted {
		code = 130
	}
	os.Exit(code)
}

// run executes one invocation and returns the process exit code: 0 on
// success, 1 on an error (printed as one line), 2 on a usage error.
func run(args []string, stdout, stderr io.Writer) int {
	return runContext(context.Background(), args, stdout, stderr)
}

// runContext is run under ctx, whose end interrupts the command.
func runContext(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cmds := commands()
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stdout, cmds)
		return 0
	}
	if args[0] == "--version" || args[0] == "version" {
		fmt.Fprintln(stdout, "tailbound", version())
		return 0
	}
	c, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "tailbound: unknown command %q (run 'tailbound help')\n", args[0])
		return 2
	}
	stamped := &report.Stamped{Writer: stdout, Stamp: &report.Stamp{Version: version(), Command: args[0]}, Width: terminalWidth(stdout)}
	if err := c.run(ctx, args[1:], stamped, stderr); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "tailbound %s: %v\n", args[0], err)
		return 1
	}
	return 0
}

func usage(w io.Writer, cmds map[string]command) {
	fmt.Fprintln(w, "tailbound: exact bounds and theorem checks for KV-cache eviction in LLM serving")
	fmt.Fprintln(w, "\nUsage: tailbound COMMAND [flags]   (tailbound COMMAND --help for its flags; tailbound --version)\n\nCommands:")
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-12s %s\n", n, cmds[n].summary)
	}
}

// newFlags returns a flag set for a sub-command that reports errors by
// return value (never exits) and prints --help to stdout.
func newFlags(name, synopsis string, stdout io.Writer) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	stampFlags(stdout, name, fs)
	fs.SortFlags = false
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		if s, ok := sinkOf(stdout); ok {
			s.help(name, synopsis, fs)
			return
		}
		writeUsage(stdout, name, synopsis, fs)
	}
	return fs
}

// parseFlagsPositional is parseFlags for commands that take positional
// arguments (fs.Args()).
func parseFlagsPositional(fs *pflag.FlagSet, args []string) error {
	err := fs.Parse(args)
	if errors.Is(err, pflag.ErrHelp) { // pflag has printed the usage
		return err
	}
	if err != nil {
		return fmt.Errorf("%w (see --help)", err)
	}
	return finiteFloats(fs)
}

// parseFormat registers --format (the output format), parses args and
// checks the format: the set-up that ends most commands' flags.
func parseFormat(fs *pflag.FlagSet, args []string) (string, error) {
	format := fs.String("format", "table", report.FormatHelp)
	if err := parseFlags(fs, args); err != nil {
		return "", err
	}
	return *format, report.CheckFormat(*format)
}

// parseFlags parses args, turning a flag error into one line and --help into
// pflag.ErrHelp after printing the usage.
func parseFlags(fs *pflag.FlagSet, args []string) error {
	if err := parseFlagsPositional(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q (see --help)", fs.Arg(0))
	}
	return nil
}
