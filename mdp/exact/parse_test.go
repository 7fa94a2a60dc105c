package exact

import (
	"testing"
)

func TestParse(t *testing.T) {
	d, err := ParseDist("pmf:1:0.25,3:0.75")
	if err != nil || len(d.Values) != 2 || d.Values[1] != 3 || d.Probs[0] != 0.25 {
		t.Errorf("pmf: %+v %v", d, err)
	}
	if d, err := ParseDist("fixed:0"); err != nil || d.Values[0] != 0 {
		t.Errorf("fixed:0: %+v %v", d, err)
	}
	for _, bad := range []string{"pmf:1:0.5", "pmf:-1:1", "fixed:x", "uniform:3", "pmf:1", "pmf:1:NaN"} {
		if _, err := ParseDist(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	s, err := ParseSeats("1:5:0:0,0.5:4:3:2")
	if err != nil || len(s) != 2 || s[1] != (Seat{Rate: 0.5, History: 4, Cached: 3, Silence: 2}) {
		t.Errorf("seats: %+v %v", s, err)
	}
	if FormatSeats(s) != "1:5:0:0,0.5:4:3:2" || d.String() != "pmf:1:0.25,3:0.75" {
		t.Errorf("format: %s %s", FormatSeats(s), d.String())
	}
	for _, bad := range []string{"1:2:3", "a:1:1:1", "1:1:1:1,1:1:1:1,1:1:1:1,1:1:1:1,1:1:1:1"} {
		if _, err := ParseSeats(bad); err == nil {
			t.Errorf("seats %q accepted", bad)
		}
	}
}

// FuzzParse: no specification makes the parsers panic; accepted
// distributions validate.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"pmf:1:0.5,2:0.5", "fixed:3", "1:2:0:0", "pmf::", "pmf:1:1e400"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		if d, err := ParseDist(spec); err == nil {
			if err := d.Validate(); err != nil {
				t.Fatalf("%q accepted but invalid: %v", spec, err)
			}
		}
		_, _ = ParseSeats(spec)
	})
}
