package fits

import (
	"context"
	"fmt"
	"io"
	"math"
	"sort"

	"github.com/tailbound/tailbound/experiments/characterize"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/internal/atomicfile"
	"github.com/tailbound/tailbound/internal/option"
	"github.com/tailbound/tailbound/internal/progress"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/importer"
	"github.com/tailbound/tailbound/models/prefixgen"
)

// PrefixOptions are the settings of gen prefix.
type PrefixOptions struct {
	// Preset names a built-in model (prefixgen.Presets); Model is a model
	// file (JSON); Fit a trace to fit the model to. Exactly one is used;
	// with none, Preset "cluster".
	Preset, Model, Fit string
	// TraceFormat is Fit's format: mooncake or bailian.
	TraceFormat string
	// Importer are the importer's settings for Fit.
	Importer importer.Settings
	// FitOptions tune the fit.
	FitOptions prefixgen.FitOptions
	// Requests and DurationS say when to stop (requests; seconds). With
	// Fit and neither, the twin spans the fitted trace.
	Requests  int64
	DurationS float64
	// Seed seeds the generator.
	Seed uint64
	// ModelOut, when not empty, receives the model used, as JSON.
	ModelOut string
	// Progress (nil: none) is told the requests written.
	Progress progress.Func
}

// Prefix runs gen prefix: it builds the model (preset, file or fit),
// streams the trace to stdout and, with Fit, writes the fit and its
// quality to stderr as markdown tables.
func Prefix(ctx context.Context, o PrefixOptions, stdout, stderr io.Writer) error {
	n := 0
	for _, s := range []string{o.Preset, o.Model, o.Fit} {
		if s != "" {
			n++
		}
	}
	switch {
	case n > 1:
		return option.Errorf("fit", "give one of --preset, --model and --fit")
	case o.Requests < 0:
		return option.Errorf("requests", "%d must be ≥ 0", o.Requests)
	case !(o.DurationS >= 0) || math.IsInf(o.DurationS, 0):
		return option.Errorf("duration", "%v must be finite and ≥ 0 s", o.DurationS)
	case o.FitOptions.GapLaw != "" && o.FitOptions.GapLaw != "best" && o.FitOptions.GapLaw != "exponential" && o.FitOptions.GapLaw != "lognormal":
		return option.Errorf("gap-law", "want exponential, lognormal or best, got %q", o.FitOptions.GapLaw)
	case o.FitOptions.LengthLaw != "" && o.FitOptions.LengthLaw != "best" && o.FitOptions.LengthLaw != "lognormal" && o.FitOptions.LengthLaw != "mixture":
		return option.Errorf("length-law", "want lognormal, mixture or best, got %q", o.FitOptions.LengthLaw)
	case o.Fit == "-":
		return option.Errorf("fit", "needs a file, not standard input (the trace is read twice: to fit, then to compare with the twin)")
	case o.Fit == "" && o.TraceFormat != "":
		return option.Errorf("trace-format", "only with --fit")
	case o.Fit == "" && o.Requests == 0 && o.DurationS == 0:
		return option.Errorf("requests", "give --requests N or --duration S (the trace never ends otherwise)")
	}
	g := prefixgen.GenOptions{Seed: o.Seed, Requests: o.Requests, DurationS: o.DurationS, Progress: o.Progress}
	var fitted *prefixgen.Fitted
	switch {
	case o.Fit != "":
		if o.TraceFormat != "mooncake" && o.TraceFormat != "bailian" {
			return option.Errorf("trace-format", "want mooncake or bailian, got %q", o.TraceFormat)
		}
		src, cl, err := o.open(o.Fit)
		if err != nil {
			return err
		}
		fitted, err = prefixgen.Fit(src, o.FitOptions)
		cl.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", o.Fit, err)
		}
		g.Model = fitted.Model
		if g.Requests == 0 && g.DurationS == 0 {
			// The twin spans the trace: up to its last arrival, included.
			g.DurationS = math.Nextafter(fitted.SpanS, math.Inf(1))
		}
	case o.Model != "":
		m, err := prefixgen.ReadModel(o.Model)
		if err != nil {
			return option.Wrap("model", err)
		}
		g.Model = m
	default:
		name := o.Preset
		if name == "" {
			name = "cluster"
		}
		m, err := prefixgen.Preset(name)
		if err != nil {
			return option.Wrap("preset", err)
		}
		g.Model = m
	}
	if o.ModelOut != "" {
		js := g.Model.JSON()
		if err := atomicfile.Write(ctx, o.ModelOut, func(w io.Writer) error { _, err := w.Write(js); return err }); err != nil {
			return err
		}
	}
	if fitted == nil {
		_, err := prefixgen.Write(ctx, g, stdout)
		return err
	}
	// The twin goes to stdout and, through a pipe, to the same analyses as
	// the trace.
	pr, pw := io.Pipe()
	type result struct {
		rep *characterize.Report
		sh  Shape
		err error
	}
	done := make(chan result, 1)
	go func() {
		var r result
		src := importer.NewMooncake(pr, "twin", importer.DefaultOptions())
		// Only the twin's part over the trace's span is compared, so that
		// a long twin (--requests) keeps the report's memory bounded.
		r.rep, r.sh, r.err = analyse(src, "twin", true, fitted.SpanS)
		// Drain the rest (past the cut, or after an error) so that the
		// writer never blocks or fails on the pipe.
		io.Copy(io.Discard, pr)
		pr.Close()
		done <- r
	}()
	_, err := prefixgen.Write(ctx, g, io.MultiWriter(stdout, pw))
	pw.CloseWithError(err)
	tw := <-done
	if err != nil {
		return err
	}
	if tw.err != nil {
		return fmt.Errorf("reading the twin back: %w", tw.err)
	}
	src, cl, err := o.open(o.Fit)
	if err != nil {
		return err
	}
	realRep, realSh, err := analyse(src, o.Fit, false, 0)
	cl.Close()
	if err != nil {
		return err
	}
	return report.Emit(stderr, "markdown", nil, PrefixModelTable(o.Fit, fitted), SideBySide(realRep, tw.rep, realSh, tw.sh))
}

func (o PrefixOptions) open(path string) (importer.Source, io.Closer, error) {
	opt, err := o.Importer.Options()
	if err != nil {
		return nil, nil, err
	}
	return importer.Open(path, o.TraceFormat, opt)
}

// Shape is what the side-by-side table compares besides characterize's
// report: lengths (tokens), turns per conversation, reuse times between a
// conversation's consecutive requests (s) and the multi-turn counts.
type Shape struct {
	Inputs, Outputs, Turns, Gaps []float64
	Requests, Linked             int64
}

// analyse reads src once for characterize's report and the shape; with
// cut, only its requests up to untilS seconds.
func analyse(src importer.Source, name string, cut bool, untilS float64) (*characterize.Report, Shape, error) {
	var sh Shape
	last := map[int]float64{}
	count := map[int]float64{}
	next := func() (r blocktrace.Request, err error) {
		r, err = src.Next()
		if err != nil {
			return r, err
		}
		if cut && r.Time > untilS {
			return r, io.EOF
		}
		sh.Inputs = append(sh.Inputs, float64(r.Input))
		sh.Outputs = append(sh.Outputs, float64(r.Output))
		if t, ok := last[r.Conv]; ok {
			sh.Gaps = append(sh.Gaps, r.Time-t)
			sh.Linked++ // continues a conversation (the importer's Linked)
		}
		last[r.Conv] = r.Time
		count[r.Conv]++
		return r, nil
	}
	rep, err := characterize.Run(next, src.BlockTokens(), characterize.Options{})
	if err != nil {
		return nil, sh, fmt.Errorf("%s: %w", name, err)
	}
	for _, c := range count {
		sh.Turns = append(sh.Turns, c)
	}
	sh.Requests = int64(len(sh.Inputs))
	for _, x := range [][]float64{sh.Inputs, sh.Outputs, sh.Turns, sh.Gaps} {
		sort.Float64s(x)
	}
	return rep, sh, nil
}

// PrefixModelTable lists the fitted model: the arrival process, the tree
// and each category's laws.
func PrefixModelTable(path string, f *prefixgen.Fitted) report.Table {
	m := f.Model
	t := report.Table{Title: "prefix model fitted to " + path + " (see docs/traces.md; censoring ignored)", Header: []string{"quantity", "value"}}
	add := func(k string, v report.Cell) { t.Add(report.CellText(k), v) }
	add("requests", report.CellI(f.Requests))
	add("sessions (conversations)", report.CellI(f.Sessions))
	add("span (s)", report.CellF(f.SpanS, 1))
	add("sessions per s", report.CellF(m.SessionsPerS, 4))
	if f.DiurnalFitted {
		add("diurnal amplitude; peak hour", report.CellText(report.F(m.Diurnal.Amplitude, 3)+"; "+report.F(m.Diurnal.PeakHour, 1)))
	} else {
		add("diurnal amplitude; peak hour", report.CellText("not fitted (trace spans < 1 day)"))
	}
	add("shared-prefix threshold (sessions)", report.CellI(int64(f.MinShare)))
	add("sessions starting with a shared prefix", report.CellI(f.PrefixSessions))
	for i, l := range m.Tree.Levels {
		add(fmt.Sprintf("tree level %d: fanout, blocks, Zipf s, prob", i+1),
			report.CellText(fmt.Sprintf("%d, %d, %s, %s", l.Fanout, l.Blocks, report.F(l.Zipf, 3), report.F(l.Prob, 3))))
	}
	for i, c := range m.Categories {
		p := c.Name + ": "
		add(p+"sessions; follow-ups", report.CellText(fmt.Sprintf("%d; %d", f.CategorySessions[i], f.CategoryFollowUps[i])))
		add(p+"share; prefix prob", report.CellText(report.F(c.Weight, 4)+"; "+report.F(c.PrefixProb, 4)))
		var nt string
		for k, q := range c.NextTurn {
			if k > 0 {
				nt += ", "
			}
			nt += report.F(q, 4)
		}
		add(p+"next-turn prob by turn (last: later turns)", report.CellText(nt))
		add(p+"first turn own tokens (log-normal μ, σ of ln tokens; min, max)", report.CellText(law(c.First)))
		add(p+"increment tokens (log-normal μ, σ of ln tokens; min, max)", report.CellText(law(c.Increment)))
		add(p+"output tokens (log-normal μ, σ of ln tokens; min, max)", report.CellText(law(c.Output)))
		g := c.Gap
		law := report.F(g.OffsetS, 3) + " + Exp(mean " + report.F(g.MeanS, 3) + ")"
		if g.Law == "lognormal" {
			law = report.F(g.OffsetS, 3) + " + log-normal(μ " + report.F(g.Mu, 3) + ", σ " + report.F(g.Sigma, 3) + ")"
		}
		add(p+"reuse time (s); diurnal shift", report.CellText(law+"; "+report.F(g.GapShift, 3)))
		ll := f.GapLogLik[i]
		add(p+"reuse time mean log-likelihood, exponential vs log-normal", report.CellText(report.F(ll[0], 4)+" vs "+report.F(ll[1], 4)))
	}
	return t
}

func law(d prefixgen.LogNormal) string {
	s := fmt.Sprintf("%s, %s; %d, %d", report.F(d.Mu, 3), report.F(d.Sigma, 3), d.Min, d.Max)
	if d.W2 > 0 {
		s += fmt.Sprintf(" (mixture: weight %s on μ %s, σ %s)", report.F(d.W2, 3), report.F(d.Mu2, 3), report.F(d.Sigma2, 3))
	}
	return s
}

// SideBySide compares the characterization of a trace (a) and its twin
// (b): the ideal block hit ratio, the multi-turn ratio, prefix sharing,
// length quantiles, and reuse-time quantiles per category, with the KS
// distance of each sample.
func SideBySide(a, b *characterize.Report, sa, sb Shape) report.Table {
	t := report.Table{Title: "characterization, trace vs twin over the trace's span (characterize's metrics; KS: two-sample Kolmogorov–Smirnov distance)",
		Header: []string{"metric", "trace", "twin", "KS"}}
	row := func(k string, x, y report.Cell, ks string) {
		t.Add(report.CellText(k), x, y, report.CellText(ks))
	}
	ratio := func(r *float64) report.Cell { return report.CellFV(r, 4) }
	row("requests", report.CellI(a.Requests), report.CellI(b.Requests), "")
	row("block refs (blocks)", report.CellI(a.RefBlocks), report.CellI(b.RefBlocks), "")
	row("distinct blocks", report.CellI(a.DistinctBlocks), report.CellI(b.DistinctBlocks), "")
	row("ideal block hit ratio", ratio(a.IdealHitRatio), ratio(b.IdealHitRatio), "")
	row("multi-turn ratio (linked requests / requests)", report.CellF(frac(sa.Linked, sa.Requests), 4), report.CellF(frac(sb.Linked, sb.Requests), 4), "")
	row("shared prefix (blocks on ≥ 5 % of requests)", report.CellI(int64(a.SharedPrefixBlocks)), report.CellI(int64(b.SharedPrefixBlocks)), "")
	row("top prefix hub fanout (blocks)", hubFanout(a), hubFanout(b), "")
	row("capacity for the ideal ratio (blocks)", report.CellI(a.Capacity.PeakLiveBlocks), report.CellI(b.Capacity.PeakLiveBlocks), "")
	for _, s := range []struct {
		name string
		x, y []float64
	}{
		{"input (tokens)", sa.Inputs, sb.Inputs},
		{"output (tokens)", sa.Outputs, sb.Outputs},
		{"turns per conversation", sa.Turns, sb.Turns},
		{"gap between a conversation's requests (s)", sa.Gaps, sb.Gaps},
	} {
		ks := report.F(birthdeath.KS(s.x, s.y), 4)
		for _, p := range []float64{0.1, 0.5, 0.9, 0.99} {
			row(fmt.Sprintf("%s P%g", s.name, p*100), report.CellF(quantile(s.x, p), 1), report.CellF(quantile(s.y, p), 1), ks)
			ks = ""
		}
	}
	cats := map[string]characterize.Category{}
	for _, c := range b.Categories {
		cats[c.Name] = c
	}
	for _, c := range append(append([]characterize.Category(nil), a.Categories...), a.Overall) {
		d, ok := cats[c.Name]
		if c.Name == a.Overall.Name {
			d, ok = b.Overall, true
		}
		if !ok {
			continue
		}
		ks := report.F(birthdeath.KS(sorted(c.Samples), sorted(d.Samples)), 4)
		row("reuse fraction, "+c.Name, report.CellF(c.ReuseFraction, 4), report.CellF(d.ReuseFraction, 4), "")
		for _, q := range []struct {
			p    string
			x, y float64
		}{{"P25", c.ReuseTime.P25, d.ReuseTime.P25}, {"P50", c.ReuseTime.P50, d.ReuseTime.P50}, {"P90", c.ReuseTime.P90, d.ReuseTime.P90}} {
			row("reuse time (s), "+c.Name+" "+q.p, report.CellF(q.x, 1), report.CellF(q.y, 1), ks)
			ks = ""
		}
	}
	return t
}

func hubFanout(r *characterize.Report) report.Cell {
	if len(r.Hubs) == 0 {
		return report.CellI(0)
	}
	return report.CellI(int64(r.Hubs[0].Fanout))
}

func frac(a, b int64) float64 {
	if b == 0 {
		return math.NaN()
	}
	return float64(a) / float64(b)
}

func sorted(x []float64) []float64 {
	y := append([]float64(nil), x...)
	sort.Float64s(y)
	return y
}

// quantile is the smallest sample value whose empirical CDF reaches p (x
// sorted; NaN when empty).
func quantile(x []float64, p float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	i := int(math.Ceil(p*float64(len(x)))) - 1
	return x[max(i, 0)]
}
