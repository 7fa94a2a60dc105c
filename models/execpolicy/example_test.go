package execpolicy_test

import (
	"fmt"

	"github.com/tailbound/tailbound/models/execpolicy"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/policy"
	"github.com/tailbound/tailbound/models/replay"
	"github.com/tailbound/tailbound/models/trace"
)

// An external policy in four lines of shell: it reads the header, then
// answers every turn by caching nothing. Every turn is then served from
// scratch: with ξ = 0 the TEL is every prompt and history token, 20 + 16 +
// (32 + 8) = 76.
func Example() {
	tr := &trace.Trace{}
	tr.Append(0, "a", 20, 12)
	tr.Append(1, "b", 16, 0)
	tr.Append(2, "a", 8, 0)
	p, err := execpolicy.New(`read header; while read turn; do echo '{"keep":0}'; done`, execpolicy.Options{})(
		policy.Config{Params: instance.Params{Capacity: 32, BlockSize: 16}})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := replay.Replay(replay.SliceSource(tr.Turns), []replay.Named{{Name: "nothing", Policy: p}},
		replay.Options{Params: instance.Params{Capacity: 32, BlockSize: 16}, Model: latency.Default(), SLOMs: 200})
	if cerr := p.(*execpolicy.Policy).Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("TEL %.0f tokens\n", res[0].Summary.TELTokens)
	// Output: TEL 76 tokens
}
