package gap

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/gonumlp"
	"github.com/tailbound/tailbound/lp/solvers"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/trace"
)

// lineTrace is a trace of k turns over 10 conversations taking turns.
func lineTrace(k int) *trace.Trace {
	tr := &trace.Trace{Names: []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}}
	tr.Turns = make([]trace.Turn, k)
	for i := range tr.Turns {
		tr.Turns[i] = trace.Turn{Index: i, Time: float64(i), Conv: i % 10, Prompt: 100, Response: 50}
	}
	return tr
}

// TestLPOutOfReach: takeLP skips building the LP relaxation only when
// auto is to choose, this build has no CLP and the instance is over
// lpModelMaxTurns; the claim its note rests on — the compact model's
// standard form has at least two rows per turn, so gonum refuses it — is
// checked on a built model of 300 turns against gonum's own Fits.
func TestLPOutOfReach(t *testing.T) {
	p := instance.Params{Capacity: 1024, BlockSize: 16, Xi: 300}
	small, err := lp.NewInstance(lineTrace(300), p)
	if err != nil {
		t.Fatal(err)
	}
	m, err := lp.Build(small, lp.Compact, lp.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ok, why := gonumlp.Backend{}.Fits(m.Problem)
	var rows, cols int
	if _, err := fmtSscanDims(why, &rows, &cols); ok || err != nil || rows < 2*small.K() {
		t.Fatalf("gonum on the compact model of %d turns: fits %v, %q (%v): want refused with at least %d rows", small.K(), ok, why, err, 2*small.K())
	}
	if got := lpOutOfReach(small, solvers.Auto, false); got != "" {
		t.Fatalf("%d turns: skipped (%q), want built", small.K(), got)
	}

	big, err := lp.NewInstance(lineTrace(lpModelMaxTurns+1), p)
	if err != nil {
		t.Fatal(err)
	}
	clp := false
	if e, ok := solvers.Find("clp"); ok && e.Available() {
		clp = true
	}
	got := lpOutOfReach(big, solvers.Auto, false)
	if clp != (got == "") {
		t.Fatalf("%d turns, CLP in this build %v: lpOutOfReach %q", big.K(), clp, got)
	}
	if !clp && !strings.Contains(got, "at least 500002") {
		t.Fatalf("note %q does not give 2·%d rows", got, big.K())
	}
	for _, c := range []struct {
		name  string
		relax bool
	}{{solvers.Auto, true}, {"gonum", false}, {solvers.Flow, false}} {
		if got := lpOutOfReach(big, c.name, c.relax); got != "" {
			t.Fatalf("solver %s, relax %v: skipped (%q), want attempted", c.name, c.relax, got)
		}
	}
}

// fmtSscanDims reads the standard form's rows and columns from gonum's
// refusal, "… this one is R×C (…".
func fmtSscanDims(why string, rows, cols *int) (int, error) {
	_, after, ok := strings.Cut(why, "this one is ")
	if !ok {
		return 0, fmt.Errorf("no dimensions in %q", why)
	}
	return fmt.Sscanf(after, "%d×%d", rows, cols)
}
