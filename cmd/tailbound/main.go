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
	"github.com/tailbound/tailbound/internal/cleanup"
	"github.com/tailbound/tailbound/internal/lineout"
	"github.com/tailbound/tailbound/internal/progress"
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
		"gen":       {"generate traces: gen birth-death | gen timestamps --trace FILE | gen prefix", runGen},
		"mdp":       {"belief MDP: mdp solve (exact, small instances) | mdp simulate (Monte Carlo)", runMDP},
		"recompute": {"recompute or load a reused KV cache: roofline, search, cake, profile, measure", runRecompute},

		"import":       {"convert a Mooncake or Bailian trace: import mooncake|bailian --in FILE [--to canonical|blocks]", runImport},
		"characterize": {"the workload study's trace analyses: characterize TRACE --trace-format mooncake|bailian|blocks", runCharacterize},
	}
}

// gracePeriod is how long a command has, after SIGINT or SIGTERM, to
// stop by itself before the process is ended (after running the run's
// clean-up set).
const gracePeriod = 3 * time.Second

func main() {
	// SIGINT and SIGTERM cancel the context, with the signal as its cause:
	// the replay stops, exec: clients (their whole process groups) are
	// killed, output files being written are removed, line output stops at
	// a line's end, and the exit status is 130 (SIGINT) or 143 (SIGTERM).
	// A command that does not stop within gracePeriod has its clean-up
	// set run — temporary files removed, process
	// groups killed — and the process ends with that status.
	set := cleanup.New()
	ctx, cancel := context.WithCancelCause(cleanup.With(context.Background(), set))
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		sig := <-sigs
		cancel(signalError{sig})
		// Further signals are ignored: timeout(1), for one, sends its
		// signal to the command and then to its process group.
		time.Sleep(gracePeriod)
		set.Run()
		fmt.Fprintf(os.Stderr, "tailbound: %v; ended after its clean-up (the command did not stop within %v)\n", signalError{sig}, gracePeriod)
		os.Exit(signalError{sig}.code())
	}()
	os.Exit(runContext(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// signalError is the cause of a context cancelled by a signal.
type signalError struct{ sig os.Signal }

func (e signalError) Error() string {
	if e.sig == syscall.SIGTERM {
		return "interrupted by SIGTERM"
	}
	return "interrupted by SIGINT"
}

// code is the shell's exit status for the signal: 128 + its number.
func (e signalError) code() int {
	if s, ok := e.sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 130
}

// run executes one invocation and returns the process exit code: 0 on
// success, 1 on an error (printed as one line), 2 on a usage error.
func run(args []string, stdout, stderr io.Writer) int {
	return runContext(context.Background(), args, stdout, stderr)
}

// runContext is run under ctx, whose end interrupts the command. Standard
// output receives whole lines only and nothing once ctx is done. A command
// that fails after ctx was cancelled by a signal (signalError) was
// interrupted: one line says so and the status is the signal's (130 for
// SIGINT, 143 for SIGTERM); a command that completed before it noticed
// the signal has written its whole output and exits 0.
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
	rest, override, err := progress.ParseFlag(args[1:])
	if err != nil {
		fmt.Fprintf(stderr, "tailbound %s: %v\n", args[0], err)
		return 2
	}
	lines := lineout.New(ctx, stdout)
	stamped := &report.Stamped{Writer: lines, Stamp: &report.Stamp{Version: version(), Command: args[0]}, Width: terminalWidth(stdout)}
	perr := withProgress(stderr, override)
	err = c.run(ctx, rest, stamped, perr)
	if perr.meter != nil {
		perr.meter.Clear()
	}
	if errors.Is(err, pflag.ErrHelp) {
		lines.Close()
		return 0
	}
	if err == nil {
		err = lines.Close()
	}
	if err != nil {
		if se := (signalError{}); errors.As(context.Cause(ctx), &se) {
			fmt.Fprintf(stderr, "tailbound %s: %v\n", args[0], se)
			return se.code()
		}
		fmt.Fprintf(stderr, "tailbound %s: %v\n", args[0], err)
		return 1
	}
	return 0
}

func usage(w io.Writer, cmds map[string]command) {
	fmt.Fprintln(w, "tailbound: exact bounds and theorem checks for KV-cache eviction in LLM serving")
	fmt.Fprintln(w, "\nUsage: tailbound COMMAND [flags]   (tailbound COMMAND --help for its flags; tailbound --version)")
	fmt.Fprintln(w, "Every command takes --progress=true|false: show progress on stderr (default: when stderr is a terminal).\n\nCommands:")
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
	if err := finiteFloats(fs); err != nil {
		return err
	}
	return outputsNotInputs(fs)
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
