package birthdeath

import (
	"reflect"
	"testing"
)

// changedOf returns a Changed func reporting the names listed.
func changedOf(names ...string) func(string) bool {
	return func(f string) bool {
		for _, n := range names {
			if n == f {
				return true
			}
		}
		return false
	}
}

// TestGenOptionsParams: how --duration and --turns combine, and the model
// flags applied to the default (the refusals are Flags', tested there).
func TestGenOptionsParams(t *testing.T) {
	model := func(f func(*Flags), given ...string) Flags {
		m := DefaultFlags()
		f(&m)
		m.Changed = changedOf(given...)
		return m
	}
	d := Default()
	for _, c := range []struct {
		name             string
		m                Flags
		duration         float64
		turns            int
		lambda, mu       float64
		classes          []RateClass
		prompt, response Dist
	}{
		{"defaults", model(func(*Flags) {}), 3600, 0, 2, 1.0 / 120, d.Classes, d.Prompt, d.Response},
		// --turns alone lifts the default hour of births.
		{"turns only", model(func(m *Flags) { m.Turns = 50 }, "turns"), 0, 50, 2, 1.0 / 120, d.Classes, d.Prompt, d.Response},
		{"turns and duration", model(func(m *Flags) { m.Turns, m.Duration = 50, 60 }, "turns", "duration"), 60, 50, 2, 1.0 / 120, d.Classes, d.Prompt, d.Response},
		{"model", model(func(m *Flags) {
			m.LambdaConv, m.Mu, m.Rates, m.Prompt, m.Duration = 0.5, 0.25, "0.1:1,0.2:3", "fixed:9", 10
		},
			"lambda-conv", "mu", "rates", "prompt", "duration"), 10, 0, 0.5, 0.25, []RateClass{{0.1, 1}, {0.2, 3}}, Fixed{N: 9}, d.Response},
	} {
		p, err := GenOptions{Model: c.m}.Params()
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if p.Duration != c.duration || p.MaxTurns != c.turns || p.LambdaConv != c.lambda || p.Mu != c.mu ||
			!reflect.DeepEqual(p.Classes, c.classes) || p.Rates != nil || !reflect.DeepEqual(p.Prompt, c.prompt) || !reflect.DeepEqual(p.Response, c.response) {
			t.Errorf("%s: %+v", c.name, p)
		}
	}
	if _, err := (GenOptions{Model: model(func(m *Flags) { m.Turns = -1 }, "turns")}).Params(); err == nil || err.Error() != "flag --turns: must be ≥ 0, got -1" {
		t.Errorf("--turns -1: %v", err)
	}
}

// TestFitTwinRefused: the model's flags are refused with --fit, before
// the trace is read (the path does not exist).
func TestFitTwinRefused(t *testing.T) {
	for _, f := range []string{"lambda-conv", "mu", "rates", "gamma", "prompt", "response", "deaths"} {
		o := GenOptions{Model: DefaultFlags(), Fit: "/nonexistent", FitLaws: "lognormal"}
		o.Model.Changed = changedOf(f, "seed", "turns")
		_, err := o.FitTwin()
		if want := "flag --" + f + ": not with --fit (the fit sets the model)"; err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", f, err, want)
		}
	}
	o := GenOptions{Model: DefaultFlags(), Fit: "/nonexistent", FitLaws: "lognormal"}
	o.Model.Changed = changedOf("duration", "turns")
	if _, err := o.FitTwin(); err == nil {
		t.Error("a missing trace was fitted")
	}
}
