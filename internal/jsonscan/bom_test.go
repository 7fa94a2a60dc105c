package jsonscan

import "testing"

func TestStripBOM(t *testing.T) {
	for _, tc := range []struct {
		line string
		no   int
		want string
	}{
		{BOM + `{"t":0}`, 1, `{"t":0}`},
		{`{"t":0}`, 1, `{"t":0}`},
		{BOM + `{"t":0}`, 2, BOM + `{"t":0}`}, // only at the start of the file
		{BOM + BOM + `{}`, 1, BOM + `{}`},     // one mark, not any number
		{"", 1, ""},
	} {
		if got := string(StripBOM([]byte(tc.line), tc.no)); got != tc.want {
			t.Errorf("StripBOM(%q, %d) = %q, want %q", tc.line, tc.no, got, tc.want)
		}
	}
}
