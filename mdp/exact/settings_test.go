package exact

import (
	"errors"
	"reflect"
	"testing"

	"github.com/tailbound/tailbound/internal/option"
)

// validSettings are a small valid instance: two seats, the served one with
// 5 tokens of history, prompts of 1 or 3 tokens with equal chance, a
// 3-step horizon; every refusal case changes them in one way.
func validSettings() Settings {
	return Settings{Seats: "1:5:0:0,0.5:4:3:2", Served: 0, World: "paper", Mu: 0.25, Step: 0.2, Horizon: 3, MaxTurns: 3,
		Capacity: 6, Block: 1, Xi: 2, Prompt: "pmf:1:0.5,3:0.5", Response: "fixed:1", Discount: 1,
		Policies: "lru,tlru", MaxStates: DefaultMaxStates}
}

func TestSettingsRefusals(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Settings)
		flag string
		msg  string
	}{
		{"negative qhat", func(s *Settings) { s.QHat = -1 }, "qhat", "flag --qhat: must be ≥ 0 tokens (0: the prompt distribution's mean), got -1"},
		{"no states", func(s *Settings) { s.MaxStates = 0 }, "max-states", "flag --max-states: must be ≥ 1, got 0"},
		{"unknown world", func(s *Settings) { s.World = "x" }, "world", `flag --world: world "x": want paper or bayes`},
		{"bad seats", func(s *Settings) { s.Seats = "x" }, "seats", `flag --seats: seat "x": want RATE:HISTORY:CACHED:SILENCE`},
		{"empty prompt", func(s *Settings) { s.Prompt = "fixed:0" }, "prompt",
			"flag --prompt: a prompt of 0 tokens (want ≥ 1; --allow-empty-prompts admits the unit-page idealization)"},
		{"bad response", func(s *Settings) { s.Response = "x" }, "response", `flag --response: distribution "x": want fixed:N or pmf:TOKENS:PROB,…`},
		{"no discount", func(s *Settings) { s.Discount = 0 }, "discount", "flag --discount: must be in (0, 1], got 0"},
		{"discount above 1", func(s *Settings) { s.Discount = 1.5 }, "discount", "flag --discount: must be in (0, 1], got 1.5"},
		{"unknown policy", func(s *Settings) { s.Policies = "lru,x" }, "policies",
			`flag --policies: unknown policy "x" (want lru, tlru, etlru-paper, etlru-bayes)`},
	} {
		s := validSettings()
		tc.edit(&s)
		_, _, _, err := s.Build()
		var oe *option.Error
		if !errors.As(err, &oe) || !reflect.DeepEqual(oe.Flags, []string{tc.flag}) || err.Error() != tc.msg {
			t.Errorf("%s: got %v; want %q", tc.name, err, tc.msg)
		}
	}
	s := validSettings()
	s.Horizon = -1
	if _, _, _, err := s.Build(); err == nil || err.Error() != "exact: horizon -1 steps must be from 0 to 10000" {
		t.Errorf("negative horizon: %v", err)
	}
}

// TestSettingsBuild: Q̂ = 0 is the prompt mean, (1 + 3)/2 = 2 tokens; a
// given Q̂ is kept; empty prompts pass with AllowEmptyPrompts.
func TestSettingsBuild(t *testing.T) {
	s := validSettings()
	in, ds, q, err := s.Build()
	if err != nil {
		t.Fatal(err)
	}
	if q != 2 || len(ds) != 2 || ds[1] != (TLRU{QHat: 2}) || len(in.Seats) != 2 || in.Seats[1] != (Seat{Rate: 0.5, History: 4, Cached: 3, Silence: 2}) {
		t.Errorf("got Q̂ %v, policies %v, seats %+v", q, ds, in.Seats)
	}
	s.QHat, s.Prompt, s.AllowEmptyPrompts = 7, "pmf:0:0.5,4:0.5", true
	if _, ds, q, err = s.Build(); err != nil || q != 7 || ds[1] != (TLRU{QHat: 7}) {
		t.Errorf("given Q̂: got %v, %v, %v", q, ds, err)
	}
}
