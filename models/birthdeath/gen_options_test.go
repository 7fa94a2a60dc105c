package birthdeath

import (
	"errors"
	"reflect"
	"testing"

	"github.com/tailbound/tailbound/internal/option"
)

// defaultModel is ModelOptions as gen birth-death's flag defaults set it.
func defaultModel() ModelOptions {
	d := Default()
	return ModelOptions{LambdaConv: d.LambdaConv, Mu: d.Mu, RateOptions: RateOptions{Rates: FormatRates(d.Classes)}}
}

// TestGenOptionsParams: how --duration and --turns combine, and the
// model flags applied to the default.
func TestGenOptionsParams(t *testing.T) {
	m := defaultModel()
	m.LambdaConv, m.Mu, m.Rates, m.Prompt = 0.5, 0.25, "0.1:1,0.2:3", "fixed:9"
	for _, c := range []struct {
		name             string
		o                GenOptions
		duration         float64
		turns            int
		lambda, mu       float64
		classes          []RateClass
		prompt, response Dist
	}{
		{"defaults", GenOptions{Model: defaultModel(), Duration: 3600}, 3600, 0, 2, 1.0 / 120, Default().Classes, Default().Prompt, Default().Response},
		// --turns alone lifts the default hour of births.
		{"turns only", GenOptions{Model: defaultModel(), Duration: 3600, Turns: 50, Given: map[string]bool{"turns": true}}, 0, 50, 2, 1.0 / 120, Default().Classes, Default().Prompt, Default().Response},
		{"turns and duration", GenOptions{Model: defaultModel(), Duration: 60, Turns: 50, Given: map[string]bool{"turns": true, "duration": true}}, 60, 50, 2, 1.0 / 120, Default().Classes, Default().Prompt, Default().Response},
		{"model", GenOptions{Model: m, Duration: 10}, 10, 0, 0.5, 0.25, []RateClass{{0.1, 1}, {0.2, 3}}, Fixed{N: 9}, Default().Response},
	} {
		p, err := c.o.Params()
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if p.Duration != c.duration || p.MaxTurns != c.turns || p.LambdaConv != c.lambda || p.Mu != c.mu ||
			!reflect.DeepEqual(p.Classes, c.classes) || p.Rates != nil || !reflect.DeepEqual(p.Prompt, c.prompt) || !reflect.DeepEqual(p.Response, c.response) {
			t.Errorf("%s: %+v", c.name, p)
		}
	}
	g := defaultModel()
	g.Gamma = "2:0.05"
	p, err := GenOptions{Model: g, Duration: 1}.Params()
	if err != nil || p.Rates != (Gamma{Shape: 2, MeanRate: 0.05}) {
		t.Errorf("--gamma: rates %v, %v", p.Rates, err)
	}
}

// TestGenOptionsRefused: each refusal names its flag; the model's own
// checks (Params.Validate) keep their plain message.
func TestGenOptionsRefused(t *testing.T) {
	with := func(f func(*GenOptions)) GenOptions {
		o := GenOptions{Model: defaultModel(), Duration: 100}
		f(&o)
		return o
	}
	for _, c := range []struct {
		o    GenOptions
		flag string
		want string
	}{
		{with(func(o *GenOptions) { o.Turns = -1 }), "turns", "flag --turns: must be ≥ 0, got -1"},
		{with(func(o *GenOptions) { o.Duration = -1 }), "duration", "flag --duration: must be a finite number of seconds ≥ 0"},
		{with(func(o *GenOptions) { o.Model.Gamma = "2" }), "gamma", `flag --gamma: gamma "2": want SHAPE:MEAN (mean per second)`},
		{with(func(o *GenOptions) { o.Model.Rates = "0.1:-1" }), "rates", ""},
		{with(func(o *GenOptions) { o.Model.Prompt = "fixed:0" }), "prompt", ""},
		{with(func(o *GenOptions) { o.Model.Response = "lognormal:1" }), "response", ""},
		{with(func(o *GenOptions) { o.Model.Mu = 0 }), "", "mu must be > 0 per second, got 0"},
	} {
		_, err := c.o.Params()
		var oe *option.Error
		switch {
		case err == nil:
			t.Errorf("%s: accepted", c.want)
		case c.flag == "" && errors.As(err, &oe):
			t.Errorf("%v: names a flag", err)
		case c.flag != "" && (!errors.As(err, &oe) || oe.Flags[0] != c.flag):
			t.Errorf("%v: does not name --%s", err, c.flag)
		case c.want != "" && err.Error() != c.want:
			t.Errorf("error %q, want %q", err, c.want)
		}
	}
}

// TestFitTwinRefused: the model's flags are refused with --fit, before
// the trace is read (the path does not exist).
func TestFitTwinRefused(t *testing.T) {
	for _, f := range []string{"lambda-conv", "mu", "rates", "gamma", "prompt", "response", "deaths"} {
		_, err := GenOptions{Fit: "/nonexistent", FitLaws: "lognormal", Given: map[string]bool{f: true, "seed": true}}.FitTwin()
		if want := "flag --" + f + ": not with --fit (the fit sets the model)"; err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", f, err, want)
		}
	}
	if _, err := (GenOptions{Fit: "/nonexistent", Given: map[string]bool{"duration": true, "turns": true}}).FitTwin(); err == nil {
		t.Error("a missing trace was fitted")
	}
}
