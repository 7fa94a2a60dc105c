package proofscheck

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/internal/option"
)

// TestCheckOptionsRefused: each unusable setting is refused with the
// flag's name, the format first as the command line checks it.
func TestCheckOptionsRefused(t *testing.T) {
	for _, c := range []struct {
		o    CheckOptions
		want string
	}{
		{CheckOptions{Instances: 0, Format: "table"}, "flag --instances: must be ≥ 1, got 0"},
		{CheckOptions{Instances: -3, Format: "json"}, "flag --instances: must be ≥ 1, got -3"},
		{CheckOptions{Instances: 0, Format: "xml"}, `flag --format: unknown format "xml" (want table|markdown|csv|json)`},
	} {
		_, _, err := Check(c.o)
		if err == nil || err.Error() != c.want {
			t.Errorf("%+v: error %v, want %q", c.o, err, c.want)
		}
	}
	var oe *option.Error
	if err := (CheckOptions{Format: "csv"}).Validate(); !errors.As(err, &oe) || oe.Flags[0] != "instances" {
		t.Errorf("Validate = %v, want an *option.Error naming instances", err)
	}
	if _, _, err := Check(CheckOptions{Claims: []string{"no-such-claim"}, Instances: 1, Format: "table"}); err == nil || !strings.Contains(err.Error(), `unknown claim "no-such-claim"`) {
		t.Errorf("unknown claim: %v", err)
	}
}

// TestCheckFigure1: Figure 1 is one fixed instance, which holds; its row
// says so whatever the number of instances asked for.
func TestCheckFigure1(t *testing.T) {
	doc, tab, err := Check(CheckOptions{Claims: []string{"figure1"}, Instances: 7, Seed: 5, Format: "table"})
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]string{{"figure1", "1", "0", "1", "1", "0", "none", "none"}}; !reflect.DeepEqual(tab.Rows, want) {
		t.Errorf("rows %v, want %v", tab.Rows, want)
	}
	// CSV writes no counterexample as an empty cell.
	if want := [][]string{{"figure1", "1", "0", "1", "1", "0", "", ""}}; !reflect.DeepEqual(tab.Plain, want) {
		t.Errorf("CSV rows %v, want %v", tab.Plain, want)
	}
	if tab.Title != "claims checked on random instances (seed 5)" {
		t.Errorf("title %q", tab.Title)
	}
	if checks := doc.(map[string]any)["checks"]; checks == nil {
		t.Errorf("document %v lacks checks", doc)
	}
}

// TestClaimsHelp lists every default and every on-request claim once.
func TestClaimsHelp(t *testing.T) {
	h := ClaimsHelp()
	lines := strings.Split(strings.TrimSpace(h), "\n")
	if want := 1 + len(All()) + len(OnRequest()); len(lines) != want {
		t.Errorf("%d lines, want %d:\n%s", len(lines), want, h)
	}
	for _, c := range OnRequest() {
		if !strings.Contains(h, "  "+c.Name+" (only when named") {
			t.Errorf("help lacks on-request claim %s", c.Name)
		}
	}
}
