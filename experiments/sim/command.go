package sim

import (
	"context"
	"fmt"
	"github.com/tailbound/tailbound/internal/progress"
	"strings"

	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/internal/atomicfile"
	"github.com/tailbound/tailbound/internal/option"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/execpolicy"
	"github.com/tailbound/tailbound/models/latency"
)

// DefaultWorkloadCapacity is the capacity (tokens) used with the embedded
// workload when --capacity is not given: about a third of the tokens its
// live conversations hold at steady state, so that eviction matters.
const DefaultWorkloadCapacity = 131072

// Command holds the settings of the simulate command as its flags give
// them, in their units; Resolve and Turns validate them and report errors
// as *option.Error naming the flag. The block level (experiments/blocksim)
// reads the same settings.
type Command struct {
	Trace       string   // --trace: canonical trace path ("-" stdin); "" the embedded workload
	TraceFormat string   // --trace-format: canonical, or a block-level format
	TypeParams  string   // --trace-type-params: libCacheSim csv options (block level)
	MaxChain    int64    // --max-chain-blocks: longest block chain of a canonical request, blocks (block level)
	Level       string   // --level: turn or block
	Format      string   // --format: report format (report.CheckFormat)
	Policies    string   // --policies: comma-separated; "" every registered policy
	Baseline    string   // --baseline: policy of the relative-improvement table; "" none
	Capacity    int64    // --capacity: C, tokens; 0 with the embedded workload means DefaultWorkloadCapacity
	Capacities  string   // --capacities: comma-separated sweep, tokens
	BlockSize   int64    // --block-size: B, tokens
	QHat        string   // --qhat: "auto" or tokens (policy.ParseQHat)
	Threshold   int64    // --threshold: Threshold-LRU's T, tokens
	SLOMs       float64  // --slo-ms: SLO of the violation counts, ms
	Forced      bool     // --forced: forced caching (turn level)
	Seed        uint64   // --seed: seed of the embedded workload
	Seeds       string   // --seeds: N seeds from Seed, or a range A-B (experiments/seeds.Parse)
	Plot        string   // --plot: figure file (.svg/.png); "" none
	PolicyOpts  []string // --policy-opt: key=value settings
	Schedules   []string // --schedule: external schedule files to score
	Emit        string   // --emit-schedule: file for each policy's decisions
	ExecTimeout float64  // --exec-timeout: seconds to wait for an exec:CMD policy's answer
	// Workload are the embedded workload's model flags.
	Workload birthdeath.Flags
	// Changed reports whether a flag (named without dashes) was given on
	// the command line; it also serves Workload. nil: none was.
	Changed func(flag string) bool
	// Latency are the latency-model and threshold flags (--alpha-ms,
	// --beta-ms, --xi-ms, --xi-tokens); nil gives latency.DefaultSettings.
	Latency *latency.Settings
	// Progress is told how far single runs are; nil for none.
	Progress progress.Func
	// Context is the run's context; nil means context.Background(). Its
	// end (a signal) stops the replay, kills exec:CMD clients and leaves
	// every --emit-schedule file as it was; a clean-up set it carries
	// (internal/cleanup) is given their temporary files and processes.
	Context context.Context

	wl       birthdeath.Params // the workload's parameters, set by Resolve
	customWL bool              // a workload flag was given
	resolved bool              // Resolve has run
}

// changed reports whether flag was given.
func (c *Command) changed(flag string) bool { return c.Changed != nil && c.Changed(flag) }

// Resolve checks the settings both levels share and resolves the workload
// and the baseline: the default baseline is dropped when it is not run.
func (c *Command) Resolve() error {
	c.Workload.Changed = c.Changed
	var err error
	if c.wl, c.customWL, err = c.Workload.Params(c.Trace != ""); err != nil {
		return err
	}
	if c.customWL && c.Level != "turn" {
		return fmt.Errorf("flags %s: turn level only (the embedded workload)", strings.Join(c.Workload.Given(), " "))
	}
	if err := report.CheckFormat(c.Format); err != nil {
		return err
	}
	if len(c.Schedules) > 0 && c.Policies == "" && !c.changed("baseline") {
		c.Baseline = ""
	}
	c.Baseline = ResolveBaseline(c.Baseline, c.Policies, c.changed("baseline"))
	if err := latency.CheckSLOMs(c.SLOMs); err != nil {
		return option.Wrap("slo-ms", err)
	}
	if _, err := execpolicy.Timeout(c.ExecTimeout); err != nil {
		return option.Wrap("exec-timeout", err)
	}
	if err := atomicfile.RefuseInput(c.Plot, append([]string{c.Trace}, c.Schedules...)...); err != nil {
		return option.Wrap("plot", err)
	}
	if c.Level != "turn" && c.Level != "block" {
		return option.Errorf("level", "want turn or block, got %q", c.Level)
	}
	c.resolved = true
	return nil
}

// ResolveBaseline drops the default baseline when list (the --policies
// value) names other policies only, so that the relative view is shown
// when it can be; an explicit baseline that is not run stays, to be
// refused by the report before anything is printed.
func ResolveBaseline(baseline, list string, explicit bool) string {
	if explicit || list == "" {
		return baseline
	}
	for _, name := range strings.Split(list, ",") {
		if strings.TrimSpace(name) == baseline {
			return baseline
		}
	}
	return ""
}

// ExecOptions are the options of exec:CMD policies: --exec-timeout (as
// Resolve checked it) and the run's context.
func (c *Command) ExecOptions() execpolicy.Options {
	t, _ := execpolicy.Timeout(c.ExecTimeout)
	return execpolicy.Options{Timeout: t, Context: c.ctx()}
}

// ctx is c.Context, or context.Background() when it is nil.
func (c *Command) ctx() context.Context {
	if c.Context == nil {
		return context.Background()
	}
	return c.Context
}

// LatencyModel returns the latency model and the threshold ξ in tokens.
func (c *Command) LatencyModel() (latency.Model, float64, error) {
	if c.Latency == nil {
		return latency.DefaultSettings().Resolve(c.changed)
	}
	return c.Latency.Resolve(c.changed)
}

// TraceLabel names what is replayed: the trace file, or the workload and
// its seed.
func (c *Command) TraceLabel() string {
	if c.Trace == "" {
		return fmt.Sprintf("%s (seed %d)", c.Workload.Label(), c.Seed)
	}
	return c.Trace
}
