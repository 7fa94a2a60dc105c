package montecarlo

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/internal/option"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/latency"
)

// validCommand is a short study (two replications of 60 s) on the default
// model; every refusal case changes it in one way.
func validCommand() Command {
	return Command{Model: birthdeath.Default(), Duration: 60, Reps: 2, Seed: 1, Policies: "lru,tlru", Capacity: 1024, Block: 16,
		Latency: latency.Default(), Xi: 1900, QHat: "auto", SLOMs: 200}
}

func TestCommandRefusals(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Command)
		flag string
		msg  string
	}{
		{"no duration", func(c *Command) { c.Duration = 0 }, "duration", "flag --duration: must be a finite number of seconds > 0"},
		{"one replication", func(c *Command) { c.Reps = 1 }, "reps", "flag --reps: need at least 2 replications, got 1"},
		{"block size 0", func(c *Command) { c.Block = 0 }, "block-size", "flag --block-size: must be ≥ 1 token, got 0"},
		{"capacity not in blocks", func(c *Command) { c.Capacity = 1000 }, "capacity", "flag --capacity: 1000 tokens must be ≥ 0 and a multiple of --block-size 16"},
		{"qhat 0", func(c *Command) { c.QHat = "0" }, "qhat", `flag --qhat: want auto or a number of tokens > 0, got "0"`},
		{"policy option without =", func(c *Command) { c.PolicyOpts = []string{"x"} }, "policy-opt", `flag --policy-opt: want key=value, got "x"`},
		{"no policy", func(c *Command) { c.Policies = "," }, "policies", "flag --policies: no policy named"},
	} {
		c := validCommand()
		tc.edit(&c)
		_, err := c.config()
		var oe *option.Error
		if !errors.As(err, &oe) || !reflect.DeepEqual(oe.Flags, []string{tc.flag}) || err.Error() != tc.msg {
			t.Errorf("%s: got %v; want %q", tc.name, err, tc.msg)
		}
	}
	c := validCommand()
	c.Model.Mu = -1
	if _, err := c.config(); err == nil || !strings.Contains(err.Error(), "mu must be > 0") {
		t.Errorf("negative μ: %v", err)
	}
}

// TestCommandConfig: the settings reach the study as given, the duration
// replacing the model's.
func TestCommandConfig(t *testing.T) {
	c := validCommand()
	c.QHat, c.Forced, c.PolicyOpts = "300", true, []string{"prompt=online"}
	cfg, err := c.config()
	if err != nil {
		t.Fatal(err)
	}
	s := cfg.Settings
	if cfg.Model.Duration != 60 || cfg.Reps != 2 || s.QHat != 300 || !s.Forced || s.Capacity != 1024 || s.BlockSize != 16 ||
		s.Xi != 1900 || s.SLOMs != 200 || s.PolicyOptions["prompt"] != "online" || len(cfg.Policies) != 2 || cfg.Workers != 2 {
		t.Errorf("got %+v", cfg)
	}
}
