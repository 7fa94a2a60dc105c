package fits

import (
	"io"

	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/trace"
)

// BirthDeath fits the birth–death model to the canonical trace o.Fit
// (birthdeath.GenOptions.FitTwin), writes the twin generated from the fit
// to stdout and the fitted parameters with their goodness of fit to stderr
// as a markdown table.
func BirthDeath(o birthdeath.GenOptions, stdout, stderr io.Writer) error {
	tw, err := o.FitTwin()
	if err != nil {
		return err
	}
	if err := trace.WriteTrace(stdout, tw.Twin); err != nil {
		return err
	}
	return report.Emit(stderr, "markdown", nil, TwinTable(o.Fit, tw))
}

// TwinTable is the report of a fit to the trace at path: the fitted rates
// (per second) and laws (tokens), and the KS distances of the twin.
func TwinTable(path string, tw *birthdeath.Twin) report.Table {
	f, p := tw.Fitted, tw.Params
	t := report.Table{Title: "birth–death model fitted to " + path + " (maximum likelihood, censoring ignored); KS distance of the twin written to stdout",
		Header: []string{"quantity", "value"}}
	// μ's cell joins two numbers and the laws are text: they stay text.
	for _, q := range []struct {
		name string
		v    report.Cell
	}{
		{"conversations", report.CellI(int64(f.Conversations))},
		{"turns", report.CellI(int64(len(tw.Trace.Turns)))},
		{"λ_conv (births/s)", report.CellF(p.LambdaConv, 5)},
		{"μ (deaths/s; mean lifetime s)", report.CellText(report.F(p.Mu, 6) + " (" + report.F(1/p.Mu, 1) + ")")},
		{"λ̄ (turns/s while alive)", report.CellF(p.Classes[0].Rate, 6)},
		{"mean follow-up turns per conversation", report.CellF(f.MeanFollowUps, 4)},
		{"mean inter-turn gap (s)", report.CellF(f.MeanGapS, 2)},
		{"prompt law (tokens)", report.CellText(p.Prompt.String())},
		{"response law (tokens)", report.CellText(p.Response.String())},
		{"births span (s)", report.CellF(p.Duration, 1)},
		{"KS distance, turns per conversation", report.CellF(tw.KSTurns, 4)},
		{"KS distance, conversation length (s)", report.CellF(tw.KSLengthS, 4)},
		{"KS distance, inter-turn gap (s)", report.CellF(tw.KSGapsS, 4)},
	} {
		t.Add(report.CellText(q.name), q.v)
	}
	return t
}
