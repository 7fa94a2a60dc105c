package importer

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// TestEmptyRefused: an empty or blank-only trace imports to nothing, and
// is ErrNoRequests with nothing written (issue 17's sweep: exit 0 and an
// empty output file).
func TestEmptyRefused(t *testing.T) {
	for _, in := range []string{"", "\n\n   \n"} {
		var out bytes.Buffer
		if _, err := WriteCanonical(&out, NewMooncake(strings.NewReader(in), "e", DefaultOptions())); !errors.Is(err, ErrNoRequests) || out.Len() != 0 {
			t.Errorf("canonical of %q: %v, %d bytes written; want ErrNoRequests and nothing", in, err, out.Len())
		}
		if err := WriteBlocks(&out, NewMooncake(strings.NewReader(in), "e", DefaultOptions())); !errors.Is(err, ErrNoRequests) || out.Len() != 0 {
			t.Errorf("blocks of %q: %v, %d bytes written; want ErrNoRequests and nothing", in, err, out.Len())
		}
	}
}
