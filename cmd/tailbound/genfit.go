package main

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/trace"
)

// genFit fits the birth–death model to a canonical trace, writes a twin
// trace generated from the fit to stdout and the fitted parameters with
// their goodness of fit (KS distances, trace against twin) to stderr.
func genFit(fs *pflag.FlagSet, path, laws string, seed uint64, stdout, stderr io.Writer) error {
	for _, f := range []string{"lambda-conv", "mu", "rates", "gamma", "prompt", "response", "deaths"} {
		if fs.Lookup(f) != nil && fs.Changed(f) {
			return fmt.Errorf("flag --%s: not with --fit (the fit sets the model)", f)
		}
	}
	tr, err := trace.ReadFile(path)
	if err != nil {
		return err
	}
	f, err := birthdeath.Fit(tr)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	p := f.Params
	switch laws {
	case "lognormal":
	case "empirical":
		p = f.WithEmpirical()
	default:
		return fmt.Errorf("flag --fit-laws: want lognormal or empirical, got %q", laws)
	}
	if fs.Changed("duration") {
		if p.Duration, err = fs.GetFloat64("duration"); err != nil {
			return err
		}
	}
	if p.MaxTurns, err = fs.GetInt("turns"); err != nil {
		return err
	}
	twin, err := birthdeath.Trace(p, seed)
	if err != nil {
		return err
	}
	if err := trace.WriteTrace(stdout, twin); err != nil {
		return err
	}
	kt, kl, kg := birthdeath.GoodnessOfFit(tr, twin)
	t := report.Table{Title: "birth–death model fitted to " + path + " (maximum likelihood, censoring ignored); KS distance of the twin written to stdout",
		Header: []string{"quantity", "value"},
		Rows: [][]string{
			{"conversations", report.I(int64(f.Conversations))},
			{"turns", report.I(int64(len(tr.Turns)))},
			{"λ_conv (births/s)", report.F(p.LambdaConv, 5)},
			{"μ (deaths/s; mean lifetime s)", report.F(p.Mu, 6) + " (" + report.F(1/p.Mu, 1) + ")"},
			{"λ̄ (turns/s while alive)", report.F(p.Classes[0].Rate, 6)},
			{"mean follow-up turns per conversation", report.F(f.MeanFollowUps, 4)},
			{"mean inter-turn gap (s)", report.F(f.MeanGapS, 2)},
			{"prompt law (tokens)", p.Prompt.String()},
			{"response law (tokens)", p.Response.String()},
			{"births span (s)", report.F(p.Duration, 1)},
			{"KS distance, turns per conversation", report.F(kt, 4)},
			{"KS distance, conversation length (s)", report.F(kl, 4)},
			{"KS distance, inter-turn gap (s)", report.F(kg, 4)},
		}}
	return report.Emit(stderr, "markdown", nil, t)
}
