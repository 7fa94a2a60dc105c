package policy

import "testing"

func TestParseQHat(t *testing.T) {
	for _, c := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"auto", 0, true}, {"100", 100, true}, {"0.5", 0.5, true}, {"1e3", 1000, true},
		{"0", 0, false}, {"-3", 0, false}, {"Inf", 0, false}, {"NaN", 0, false}, {"x", 0, false}, {"", 0, false},
	} {
		got, err := ParseQHat(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseQHat(%q) = %v, %v; want %v (ok %v)", c.in, got, err, c.want, c.ok)
		}
	}
	if _, err := ParseQHat("-3"); err == nil || err.Error() != `flag --qhat: want auto or a number of tokens > 0, got "-3"` {
		t.Errorf("error %v", err)
	}
}
