package solvers

import (
	"context"
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tailbound/tailbound/internal/docregion"
	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/trace"
)

var (
	measure     = flag.String("solvers.measure", "", "measure the size table (formulation × backend × turns, 60 s limit) into this markdown file (into its solvers-measure region when it has one, e.g. docs/performance.md)")
	measureOnly = flag.String("solvers.only", "", "with -solvers.measure: only the rows whose \"formulation/solver/program\" matches this regular expression, e.g. 'compact/(flow|clp)/'")
)

// Size-table settings: the default birth–death workload, B = 16 tokens,
// C = 131072 tokens (about a third of what its live conversations hold),
// ξ = 300 tokens.
const (
	measureCapacity = 131072
	measureBlock    = 16
	measureXi       = 300
	measureLimit    = 60 * time.Second
)

func birthDeath(tb testing.TB, turns int) *trace.Trace {
	tb.Helper()
	p := birthdeath.Default()
	p.Duration = 0
	p.MaxTurns = turns
	tr, err := birthdeath.Trace(p, 1)
	if err != nil {
		tb.Fatal(err)
	}
	return tr
}

// TestMeasureTable writes the size table of docs/performance.md: for each
// formulation, backend and IP/LP, the build+solve time at growing numbers
// of turns, stopping a series at its first refusal or time-out. A file with
// a solvers-measure region (internal/docregion) gets the table there, under
// the command line and the date; any other file is overwritten with it.
func TestMeasureTable(t *testing.T) {
	if *measure == "" {
		t.Skip("measurement run: go test ./lp/solvers -run MeasureTable -solvers.measure FILE [-tags coin] -timeout 2h")
	}
	start := time.Now()
	intoRegion := docregion.Check(*measure, "solvers-measure") == nil
	sizes := []int{25, 50, 100, 300, 1000, 3000, 10000, 30000, 100000, 300000, 1000000}
	type series struct {
		f     lp.Formulation
		name  string
		relax bool
	}
	var all []series
	for _, f := range []lp.Formulation{lp.Compact, lp.Paper} {
		for _, b := range entries() {
			if b.Name == Flow && f != lp.Compact {
				continue // flow solves the compact program whatever f
			}
			if b.Solves&LP != 0 && b.RelaxBy == "" {
				all = append(all, series{f, b.Name, true})
			}
			if b.Solves&IP != 0 {
				all = append(all, series{f, b.Name, false})
			}
		}
	}
	only, err := regexp.Compile(*measureOnly)
	if err != nil {
		t.Fatalf("-solvers.only: %v", err)
	}
	var out strings.Builder
	fmt.Fprintf(&out, "| formulation | solver | program | %s | largest solved ≤ 60 s (turns) |\n|---|---|---|%s---|\n",
		strings.Join(func() []string {
			var h []string
			for _, k := range []int{1000, 10000, 100000, 1000000} {
				h = append(h, fmt.Sprintf("%d turns (s)", k))
			}
			return h
		}(), " | "), strings.Repeat("---|", 4))
	traces := map[int]*trace.Trace{}
	for _, s := range all {
		prog := "IP"
		if s.relax {
			prog = "LP"
		}
		if !only.MatchString(fmt.Sprintf("%s/%s/%s", s.f, s.name, prog)) {
			continue
		}
		cell := map[int]string{}
		largest := 0
		for _, k := range sizes {
			tr, ok := traces[k]
			if !ok {
				tr = birthDeath(t, k)
				traces[k] = tr
			}
			in, err := lp.NewInstance(tr, instance.Params{Capacity: measureCapacity, BlockSize: measureBlock, Xi: measureXi})
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			res, err := Solve(context.Background(), in, s.f, s.name, s.relax, lp.Options{TimeLimit: measureLimit})
			el := time.Since(start)
			stop := false
			switch {
			case err != nil:
				cell[k] = "refused: " + firstWords(err.Error())
				stop = true
			case res.Status == lp.Optimal:
				// Solved, but counted as solved within the limit only if
				// the wall time is: CLP's limit counts CPU seconds and is
				// checked between iterations, so it can overrun.
				cell[k] = fmt.Sprintf("%.3g", el.Seconds())
				if el <= measureLimit {
					largest = k
				} else {
					stop = true
				}
			case res.Status == lp.TooLarge:
				cell[k] = "refused: " + firstWords(res.Detail)
				stop = true
			default:
				cell[k] = fmt.Sprintf("%s after %.0f s", res.Status, el.Seconds())
				stop = true
			}
			t.Logf("%s %s relax=%v %d turns: %s", s.f, s.name, s.relax, k, cell[k])
			if stop {
				break
			}
		}
		fmt.Fprintf(&out, "| %s | %s | %s |", s.f, s.name, prog)
		for _, k := range []int{1000, 10000, 100000, 1000000} {
			v := cell[k]
			if v == "" {
				v = "—"
			}
			fmt.Fprintf(&out, " %s |", v)
		}
		fmt.Fprintf(&out, " %d |\n", largest)
	}
	if intoRegion {
		tags := ""
		for _, b := range entries() {
			if b.Name == "cbc" {
				tags = "-tags coin "
			}
		}
		cmd := "go test " + tags + "./lp/solvers -run MeasureTable -solvers.measure " + *measure + " -timeout 2h"
		if *measureOnly != "" {
			cmd += " -solvers.only '" + *measureOnly + "'"
		}
		if err := docregion.Write(*measure, "solvers-measure", cmd, out.String(), start); err != nil {
			t.Fatal(err)
		}
		return
	}
	if err := os.WriteFile(*measure, []byte(out.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func firstWords(s string) string {
	if len(s) > 90 {
		return s[:90] + "…"
	}
	return s
}
