package fits

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/trace"
)

// TestBirthDeath: the twin of a generated trace stops after the --turns
// asked for, and the report counts the fitted trace's turns.
func TestBirthDeath(t *testing.T) {
	p := birthdeath.Default()
	p.Duration = 300
	tr, err := birthdeath.Trace(p, 2)
	if err != nil {
		t.Fatal(err)
	}
	var in bytes.Buffer
	if err := trace.WriteTrace(&in, tr); err != nil {
		t.Fatal(err)
	}
	path := writeFile(t, "bd.jsonl", in.String())
	given := map[string]bool{"turns": true}
	m := birthdeath.DefaultFlags()
	m.Turns, m.Changed = 40, func(f string) bool { return given[f] }
	o := birthdeath.GenOptions{Model: m, Fit: path, FitLaws: "lognormal", Seed: 3}
	var out, rep bytes.Buffer
	if err := BirthDeath(o, &out, &rep); err != nil {
		t.Fatal(err)
	}
	twin, err := trace.ReadAll(&out, "twin")
	if err != nil {
		t.Fatal(err)
	}
	if len(twin.Turns) != 40 {
		t.Errorf("twin has %d turns, want 40", len(twin.Turns))
	}
	if want := "| turns | " + strconv.Itoa(len(tr.Turns)) + " |"; !strings.Contains(rep.String(), want) {
		t.Errorf("report lacks %q:\n%s", want, rep.String())
	}
	given["mu"] = true
	if err := BirthDeath(o, &out, &rep); err == nil || err.Error() != "flag --mu: not with --fit (the fit sets the model)" {
		t.Errorf("--mu with --fit: %v", err)
	}
}
