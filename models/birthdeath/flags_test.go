package birthdeath

import (
	"errors"
	"reflect"
	"testing"

	"github.com/tailbound/tailbound/internal/option"
)

// given returns a Changed func reporting the names listed.
func given(names ...string) func(string) bool {
	return func(f string) bool {
		for _, n := range names {
			if n == f {
				return true
			}
		}
		return false
	}
}

func TestFlagsNoneGiven(t *testing.T) {
	f := DefaultFlags()
	p, custom, err := f.Params(true) // no flag given: a trace is fine
	if err != nil || custom || !reflect.DeepEqual(p, Default()) {
		t.Errorf("Params = %+v, %v, %v; want Default, false, nil", p, custom, err)
	}
	if got := f.Label(); got != "embedded birth–death workload" {
		t.Errorf("Label = %q", got)
	}
}

func TestFlagsGiven(t *testing.T) {
	f := DefaultFlags()
	f.Mu, f.Turns, f.Gamma = 0.05, 300, "2:0.05"
	f.Changed = given("turns", "mu", "gamma")
	// FlagNames order, not the order asked; values as pflag prints them.
	want := []string{"--mu=0.05", "--gamma=2:0.05", "--turns=300"}
	if got := f.Given(); !reflect.DeepEqual(got, want) {
		t.Errorf("Given = %q, want %q", got, want)
	}
	if got := f.Label(); got != "birth–death workload (--mu=0.05 --gamma=2:0.05 --turns=300)" {
		t.Errorf("Label = %q", got)
	}
	p, custom, err := f.Params(false)
	if err != nil || !custom {
		t.Fatalf("Params: %v, custom %v", err, custom)
	}
	// --turns without --duration: the trace ends by its count alone.
	if p.Mu != 0.05 || p.MaxTurns != 300 || p.Duration != 0 || p.Rates == nil {
		t.Errorf("Params = %+v; want μ 0.05, 300 turns, no duration, Gamma rates", p)
	}
	f.Changed = given("turns", "duration")
	if p, _, _ := f.Params(false); p.Duration != 3600 || p.MaxTurns != 300 {
		t.Errorf("--turns with --duration: duration %v, turns %d; want 3600, 300", p.Duration, p.MaxTurns)
	}
}

func TestFlagsRefusals(t *testing.T) {
	for _, c := range []struct {
		name      string
		set       func(*Flags)
		changed   []string
		withTrace bool
		flag      string // the flag the *option.Error names; "" for none
		want      string
	}{
		{"with trace", func(f *Flags) {}, []string{"duration", "mu"}, true, "mu", "flag --mu: for the embedded workload only (not with --trace)"},
		{"turns", func(f *Flags) { f.Turns = -1 }, []string{"turns"}, false, "turns", "flag --turns: must be ≥ 0, got -1"},
		{"duration", func(f *Flags) { f.Duration = -5 }, []string{"duration"}, false, "duration", "flag --duration: must be a finite number of seconds ≥ 0"},
		{"endless", func(f *Flags) { f.Duration = 0 }, []string{"duration"}, false, "", "a duration (s) or a number of turns is needed, else the trace never ends"},
		{"rates", func(f *Flags) { f.Rates = "x" }, []string{"rates"}, false, "rates", `flag --rates: rate class "x": rate must be a number > 0 per second`},
		{"gamma", func(f *Flags) { f.Gamma = "bad" }, []string{"gamma"}, false, "gamma", `flag --gamma: gamma "bad": want SHAPE:MEAN (mean per second)`},
		{"prompt", func(f *Flags) { f.Prompt = "fixed:0" }, []string{"prompt"}, false, "prompt", ""},
		{"mu", func(f *Flags) { f.Mu = 0 }, []string{"mu"}, false, "", "mu must be > 0 per second, got 0"},
	} {
		f := DefaultFlags()
		c.set(&f)
		f.Changed = given(c.changed...)
		_, _, err := f.Params(c.withTrace)
		if err == nil {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		var oe *option.Error
		if isOpt := errors.As(err, &oe); isOpt != (c.flag != "") || isOpt && oe.Flags[0] != c.flag {
			t.Errorf("%s: %v does not name flag %q", c.name, err, c.flag)
		}
		if c.want != "" && err.Error() != c.want {
			t.Errorf("%s: %q, want %q", c.name, err, c.want)
		}
	}
}
