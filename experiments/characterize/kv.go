package characterize

import (
	"github.com/tailbound/tailbound/models/hbm"
	"github.com/tailbound/tailbound/models/kvsize"
)

// KV sizes a trace's KV cache for one model on one serving instance (the
// study's Figures 21 and 22): each request's KV cache holds its input and
// output tokens at the model's bytes per token, and the cache an ideal
// policy needs (Report.Capacity) is compared with the HBM the instance has
// for KV cache (hbm.Budget.KV; its assumptions are package hbm's).
type KV struct {
	Model         string     `json:"model"`
	BytesPerToken float64    `json:"bytes_per_token"`
	Budget        hbm.Budget `json:"hbm"`
	// FirstTurn and FollowUp are the per-request KV sizes in bytes of first
	// turns and follow-up turns; their Share… twins are the same sizes as
	// shares of Budget.KV.
	FirstTurn      Dist `json:"first_turn_bytes"`
	FollowUp       Dist `json:"follow_up_bytes"`
	FirstTurnShare Dist `json:"first_turn_share_of_hbm"`
	FollowUpShare  Dist `json:"follow_up_share_of_hbm"`
	// PeakLiveBytes is the ideal policy's cache (Capacity.PeakLiveTokens)
	// in bytes; PeakOverHBM = PeakLiveBytes / Budget.KV and MeanOverHBM the
	// same for the mean live blocks.
	PeakLiveBytes float64 `json:"peak_live_bytes"`
	PeakOverHBM   float64 `json:"peak_live_over_hbm"`
	MeanOverHBM   float64 `json:"mean_live_over_hbm"`
}

// KV sizes the report's requests and ideal cache for model m on an
// instance with budget b (b.KV > 0).
func (r *Report) KV(m kvsize.Config, b hbm.Budget) KV {
	bpt := m.BytesPerToken()
	scale := func(x []float64, f float64) []float64 {
		out := make([]float64, len(x))
		for i, v := range x {
			out[i] = v * f
		}
		return out
	}
	k := KV{Model: m.Name, BytesPerToken: bpt, Budget: b,
		FirstTurn: dist(scale(r.FirstTurnTokens, bpt)), FollowUp: dist(scale(r.FollowUpTokens, bpt)),
		FirstTurnShare: dist(scale(r.FirstTurnTokens, bpt/b.KV)), FollowUpShare: dist(scale(r.FollowUpTokens, bpt/b.KV)),
		PeakLiveBytes: float64(r.Capacity.PeakLiveTokens) * bpt}
	k.PeakOverHBM = k.PeakLiveBytes / b.KV
	k.MeanOverHBM = r.Capacity.MeanLiveBlocks * float64(r.BlockTokens) * bpt / b.KV
	return k
}
