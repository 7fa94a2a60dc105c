package characterize

import (
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/models/importer"
)

// ImportSummary returns the JSON document and the table that summarise an
// import of the trace at path in format name: its requests, links and
// conversations, Bailian's orphans, forks and turn mismatches, and, for a
// conversion to the canonical trace (c not nil), its fallbacks.
func ImportSummary(path, name string, s importer.Summary, c *importer.Canonicalizer) (map[string]any, report.Table) {
	doc := map[string]any{"file": path, "format": name, "requests": s.Requests, "linked": s.Linked,
		"conversations": s.Conversations}
	header := []string{"file", "requests", "linked (requests)", "conversations"}
	row := []report.Cell{report.CellText(path), report.CellI(s.Requests), report.CellI(s.Linked), report.CellI(s.Conversations)}
	if name == "bailian" {
		doc["orphans"], doc["forks"], doc["turn_mismatches"] = s.Orphans, s.Forks, s.TurnMismatches
		header = append(header, "orphans (requests)", "forks (requests)", "turn mismatches (requests)")
		row = append(row, report.CellI(s.Orphans), report.CellI(s.Forks), report.CellI(s.TurnMismatches))
	}
	if c != nil {
		doc["prompt_fallbacks"], doc["follow_up_fallbacks"], doc["excess_tokens"] = c.Fallbacks, c.FallbackFollowUps, c.ExcessTokens
		doc["pairwise_short"] = c.PairShort
		header = append(header, "prompt fallbacks (turns)", "of them follow-ups (turns)", "excess load (tokens)",
			"input < previous input + output (turns)")
		row = append(row, report.CellI(c.Fallbacks), report.CellI(c.FallbackFollowUps), report.CellI(c.ExcessTokens), report.CellI(c.PairShort))
	}
	t := report.Table{Title: "import summary", Header: header}
	t.Add(row...)
	return doc, t
}
