// Claim 8 of SPEC §6: Figure 1 of the tail-latency paper (seed
// ../shared/seeds/003_d50602792df89471.txt, its introduction): two
// conversations and three turns at capacity 100, where LRU leaves 200
// tokens uncached in the worst case and T-LRU 150. A single hand-worked
// instance.

package proofscheck

import (
	"fmt"
	"math/rand/v2"

	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/policy"
	"github.com/tailbound/tailbound/models/replay"
	"github.com/tailbound/tailbound/models/trace"
	"github.com/tailbound/tailbound/proofs-check/claim"
)

// figure1Instance is the tail-latency paper's first figure: capacity 100
// tokens, A then B send 100 tokens each, and the third turn (100 tokens)
// may come from either; T-LRU runs with Q̂ = 100 and ξ = 150.
type figure1Instance struct{}

func (figure1Instance) Size() int                { return 3 }
func (figure1Instance) Shrink() []claim.Instance { return nil }
func (figure1Instance) Export() any {
	return map[string]any{"trace": []trace.Record{{T: 0, Conv: "A", Prompt: 100}, {T: 1, Conv: "B", Prompt: 100},
		{T: 2, Conv: "A or B", Prompt: 100}}, "capacity_tokens": 100, "block_size_tokens": 1, "xi_tokens": 150, "qhat_tokens": 100}
}

// worstThird returns the larger uncached load of the third turn over its
// two possible senders.
func worstThird(f policy.Factory) (int64, error) {
	var worst int64
	for _, third := range []string{"A", "B"} {
		tr := &trace.Trace{}
		tr.Append(0, "A", 100, 0)
		tr.Append(1, "B", 100, 0)
		tr.Append(2, third, 100, 0)
		p, err := f(policy.Config{Params: instance.Params{Capacity: 100, BlockSize: 1, Xi: 150}, QHat: 100})
		if err != nil {
			return 0, err
		}
		res, err := replay.Replay(replay.SliceSource(tr.Turns), []replay.Named{{Name: "p", Policy: p}},
			replay.Options{Params: instance.Params{Capacity: 100, BlockSize: 1, Xi: 150}, Model: latency.Default(), SLOMs: latency.DefaultSLOMs})
		if err != nil {
			return 0, err
		}
		worst = max(worst, res[0].Summary.MaxUncached)
	}
	return worst, nil
}

// figure1Claims is claim 8, one fixed instance.
func figure1Claims(Sizes) []claim.Claim { return []claim.Claim{figure1()} }

// figure1 replays both possible third turns under LRU and T-LRU.
func figure1() claim.Claim {
	return claim.Claim{
		Name:      "figure1",
		Statement: "Figure 1 (tail-latency paper): at capacity 100, LRU leaves 200 tokens uncached in the worst case, T-LRU 150",
		Fixed:     1,
		Generate:  func(*rand.Rand) claim.Instance { return figure1Instance{} },
		Check: func(claim.Instance) (bool, string, error) {
			l, err := worstThird(policy.NewLRU)
			if err != nil {
				return false, "", err
			}
			t, err := worstThird(policy.NewTLRU)
			if err != nil {
				return false, "", err
			}
			return l == 200 && t == 150, fmt.Sprintf("worst-case uncached: LRU %d tokens, T-LRU %d tokens", l, t), nil
		},
	}
}
