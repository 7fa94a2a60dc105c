package prefixgen

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// ln returns the log-normal law with median med tokens, log-sd sigma and
// bounds [lo, hi] tokens.
func ln(med, sigma float64, lo, hi int64) LogNormal {
	return LogNormal{Mu: math.Log(med), Sigma: sigma, Min: lo, Max: hi}
}

// presets are the built-in models, by name. Their figures follow the
// workload study (seed 000) as docs/traces.md lists, section by section;
// they are round numbers read off its figures, not fits.
var presets = map[string]func() Model{
	"cluster": Cluster,
	"agentic": Agentic,
}

// Presets returns the names of the built-in models, sorted.
func Presets() []string {
	var n []string
	for k := range presets {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// Preset returns the built-in model called name.
func Preset(name string) (Model, error) {
	f, ok := presets[name]
	if !ok {
		return Model{}, fmt.Errorf("preset %q: want %s", name, strings.Join(Presets(), "|"))
	}
	return f(), nil
}

// Cluster is a to-C and to-B cluster after the workload study (seed 000):
// text, file, image, search (chatbot traffic, Trace A) and API (Trace B)
// sessions; text and image sessions start with one of a few system prompts
// (§3.4 spatial locality, Figure 18: text and multimodal have a fixed
// system prompt, file and search none), API sessions with one of many
// programs' prompts of skewed popularity (§3.2, Figures 7–8); next-turn
// probabilities 0.5 after a first turn and 0.8 after later ones (§3.3,
// Figure 11), reuse times exponential per category, image shortest, then
// text, search, file (§3.4, Figures 14–15), shorter at the daily peak;
// arrivals swing ±40 % over the day (Figure 4).
func Cluster() Model {
	chat := []float64{0.5, 0.8}
	return Model{
		SessionsPerS: 5,
		Diurnal:      Diurnal{Amplitude: 0.4, PeakHour: 14, StartHour: 0},
		Tree: Tree{Levels: []Level{
			{Fanout: 16, Blocks: 1, Zipf: 1.2},
			{Fanout: 8, Blocks: 2, Zipf: 1, Prob: 0.3},
		}},
		Categories: []Category{
			{Name: "text", Weight: 0.62, PrefixProb: 0.9, First: ln(600, 1.1, 1, 32768),
				Increment: ln(60, 1.2, 1, 32768), Output: ln(300, 0.8, 1, 4096), NextTurn: chat,
				Gap: Gap{OffsetS: 5, MeanS: 120, GapShift: -0.3}, MaxContextTokens: 131072},
			{Name: "file", Weight: 0.08, First: ln(6000, 1.0, 1, 131072),
				Increment: ln(80, 1.2, 1, 32768), Output: ln(400, 0.8, 1, 4096), NextTurn: chat,
				Gap: Gap{OffsetS: 10, MeanS: 300, GapShift: -0.3}, MaxContextTokens: 131072},
			{Name: "image", Weight: 0.06, PrefixProb: 0.9, First: ln(1200, 0.6, 1, 16384),
				Increment: ln(40, 1.0, 1, 16384), Output: ln(200, 0.8, 1, 4096), NextTurn: chat,
				Gap: Gap{OffsetS: 3, MeanS: 60, GapShift: -0.3}, MaxContextTokens: 131072},
			{Name: "search", Weight: 0.04, First: ln(2500, 0.8, 1, 65536),
				Increment: ln(60, 1.2, 1, 32768), Output: ln(500, 0.7, 1, 4096), NextTurn: chat,
				Gap: Gap{OffsetS: 8, MeanS: 200, GapShift: -0.3}, MaxContextTokens: 131072},
			{Name: "api", Weight: 0.20, PrefixProb: 1, First: ln(400, 1.0, 1, 32768),
				Increment: ln(100, 1.0, 1, 32768), Output: ln(150, 0.9, 1, 4096), NextTurn: []float64{0.001},
				Gap: Gap{OffsetS: 0.1, MeanS: 1}, MaxContextTokens: 131072},
		},
	}
}

// Agentic is the agentic preset: tool-call loops, many short turns over
// one long, growing context. Sessions start with a system prompt and one of
// many tool prefixes (a deep shared prefix; the prefix-sharing study's
// AgentBank workload, seed 001 Figure 4, needs long histories cached before
// it hits at all), then loop: a turn is followed by another with
// probability 0.97 (33 turns on average) a few seconds later (a tool's
// latency), each adding a tool result of a few hundred tokens, until the
// context passes 128 Ki tokens. A tenth of the sessions are plain chat
// for contrast.
func Agentic() Model {
	return Model{
		SessionsPerS: 0.5,
		Tree: Tree{Levels: []Level{
			{Fanout: 4, Blocks: 2, Zipf: 1},
			{Fanout: 32, Blocks: 6, Zipf: 1.1, Prob: 1},
		}},
		Categories: []Category{
			{Name: "agent", Weight: 0.9, PrefixProb: 1, First: ln(3000, 0.8, 1, 65536),
				Increment: ln(300, 1.0, 1, 16384), Output: ln(120, 0.7, 1, 2048), NextTurn: []float64{0.97},
				Gap: Gap{OffsetS: 1, MeanS: 6}, MaxContextTokens: 131072},
			{Name: "text", Weight: 0.1, PrefixProb: 0, First: ln(600, 1.1, 1, 32768),
				Increment: ln(60, 1.2, 1, 32768), Output: ln(300, 0.8, 1, 4096), NextTurn: []float64{0.5, 0.8},
				Gap: Gap{OffsetS: 5, MeanS: 120}, MaxContextTokens: 131072},
		},
	}
}
