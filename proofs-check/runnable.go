package proofscheck

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/trace"
)

// pipeTrace returns a shell command line that writes recs as a canonical
// trace and pipes it into 'tailbound CMD --trace - FLAGS'. Trace lines
// hold no single quote (conversation names here are c0, c1, …), so each
// is quoted as is.
func pipeTrace(recs []trace.Record, cmd, flags string) string {
	var b strings.Builder
	b.WriteString("printf '%s\\n'")
	for _, r := range recs {
		line, _ := json.Marshal(r) // a Record always marshals
		fmt.Fprintf(&b, " '%s'", line)
	}
	fmt.Fprintf(&b, " | tailbound %s --trace - %s", cmd, flags)
	return b.String()
}

// paramFlags are the command-line flags of an instance's parameters.
func paramFlags(p instance.Params) string {
	s := fmt.Sprintf("--capacity %d --block-size %d --xi-tokens %v", p.Capacity, p.BlockSize, p.Xi)
	if p.Forced {
		s += " --forced"
	}
	return s
}
