package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter/pkg/twwarp"
	"github.com/olekukonko/tablewriter/pkg/twwidth"
)

// MinFitWidth is the narrowest terminal, in columns, that tables are
// refitted to; a narrower one gets the full tables (they would not fit
// anyway and refitting would only scatter them).
const MinFitWidth = 40

// Fit lays t out for a terminal width columns wide, as the table format
// shows it there: t itself when its widest line fits; otherwise, in turn,
//
//   - long cells that hold JSON (a counterexample, a trace) leave the
//     table: the cell shows "[n]" and note n, below the tables, holds the
//     JSON (see noteLines);
//   - other long cells (descriptions) wrap within their column;
//   - a table still too wide is split by columns into several tables,
//     each repeating the first (key) column, the later ones titled
//     "(continued)".
//
// The title wraps at spaces. width ≤ 0, or below MinFitWidth, means no
// refitting. The values shown are t's, unchanged: only their layout moves.
func Fit(t Table, width int) (parts []Table, notes []string) {
	if width < MinFitWidth || tableWidth(naturalWidths(t)) <= width && lineWidth(t.Title) <= width {
		return []Table{t}, nil
	}
	t = cloneTable(t)
	t.Title = wrapText(t.Title, width)
	nat := naturalWidths(t)
	if tableWidth(nat) <= width {
		return []Table{t}, nil
	}
	long := max(24, width/3)
	// JSON cells become notes below the table.
	for i, r := range t.Rows {
		for j := 1; j < len(r); j++ {
			c := strings.TrimSpace(r[j])
			if twwidth.Width(c) <= long || !(strings.HasPrefix(c, "{") || strings.HasPrefix(c, "[")) {
				continue
			}
			n := len(notes) + 1
			label := fmt.Sprintf("[%d] %s, %s:", n, r[0], headerAt(t.Header, j))
			notes = append(notes, label+"\n"+strings.Join(noteLines(c, width), "\n"))
			t.Rows[i][j] = fmt.Sprintf("[%d]", n)
		}
	}
	nat = naturalWidths(t)
	// Other long text wraps within its column, the columns sharing the
	// width the others leave.
	var wrapCols []int
	fixed := 1
	for j, w := range nat {
		if j > 0 && w > long {
			wrapCols = append(wrapCols, j)
		} else {
			fixed += w + 3
		}
	}
	if len(wrapCols) > 0 {
		lim := max(16, (width-fixed)/len(wrapCols)-3)
		t.left = make([]bool, len(nat))
		for _, j := range wrapCols {
			t.left[j] = true
			for i := range t.Rows {
				if j < len(t.Rows[i]) {
					t.Rows[i][j] = wrapText(t.Rows[i][j], lim)
				}
			}
			if j < len(t.Header) {
				t.Header[j] = wrapText(t.Header[j], lim)
			}
		}
		nat = naturalWidths(t)
	}
	if tableWidth(nat) <= width || len(nat) < 3 {
		return []Table{t}, notes
	}
	return splitColumns(t, nat, width), notes
}

// splitColumns splits t into tables of consecutive columns, each with
// column 0 first, that fit width where one column at a time can.
func splitColumns(t Table, nat []int, width int) []Table {
	var groups [][]int
	var cur []int
	used := 1 + nat[0] + 3
	for j := 1; j < len(nat); j++ {
		if len(cur) > 0 && used+nat[j]+3 > width {
			groups = append(groups, cur)
			cur, used = nil, 1+nat[0]+3
		}
		cur = append(cur, j)
		used += nat[j] + 3
	}
	groups = append(groups, cur)
	parts := make([]Table, len(groups))
	for g, cols := range groups {
		idx := append([]int{0}, cols...)
		p := Table{Title: t.Title, Header: pick(t.Header, idx)}
		if g > 0 {
			p.Title = "(continued)"
		}
		if t.left != nil {
			for _, j := range idx {
				p.left = append(p.left, j < len(t.left) && t.left[j])
			}
		}
		for _, r := range t.Rows {
			p.Rows = append(p.Rows, pick(r, idx))
		}
		parts[g] = p
	}
	return parts
}

// pick returns s's cells at idx ("" past its end).
func pick(s []string, idx []int) []string {
	out := make([]string, len(idx))
	for k, j := range idx {
		out[k] = cellAt(s, j)
	}
	return out
}

// headerAt is h[j], or "column j+1" past h's end.
func headerAt(h []string, j int) string {
	if j < len(h) {
		return h[j]
	}
	return fmt.Sprintf("column %d", j+1)
}

// cloneTable copies t's title, header and rows (Fit edits them).
func cloneTable(t Table) Table {
	c := Table{Title: t.Title, Header: append([]string(nil), t.Header...)}
	for _, r := range t.Rows {
		c.Rows = append(c.Rows, append([]string(nil), r...))
	}
	return c
}

// naturalWidths returns each column's width in terminal cells: its
// widest line over the header and the rows.
func naturalWidths(t Table) []int {
	n := len(t.Header)
	for _, r := range t.Rows {
		n = max(n, len(r))
	}
	w := make([]int, n)
	for j := range w {
		w[j] = lineWidth(cellAt(t.Header, j))
		for _, r := range t.Rows {
			w[j] = max(w[j], lineWidth(cellAt(r, j)))
		}
	}
	return w
}

// tableWidth is the width of a table whose columns are w wide, as
// writeTable draws it: a border and a space either side of every cell.
func tableWidth(w []int) int {
	total := 1
	for _, c := range w {
		total += c + 3
	}
	return total
}

// lineWidth is the width, in terminal cells, of s's widest line.
func lineWidth(s string) int {
	m := 0
	for _, l := range strings.Split(s, "\n") {
		m = max(m, twwidth.Width(l))
	}
	return m
}

// MaxLineWidth is the width, in terminal cells, of the widest line of
// text (East Asian wide runes count two, box-drawing one).
func MaxLineWidth(text string) int { return lineWidth(text) }

// wrapText breaks s at spaces into lines at most lim wide (a word wider
// than lim keeps its own line).
func wrapText(s string, lim int) string {
	if lineWidth(s) <= lim {
		return s
	}
	var out []string
	for _, para := range strings.Split(s, "\n") {
		lines, _ := twwarp.WrapString(para, lim)
		out = append(out, lines...)
	}
	return strings.Join(out, "\n")
}

// wrapJSON breaks the JSON text s into lines at most width wide, only
// after commas outside strings, so the lines pasted together (with their
// line breaks) are the same JSON value. A run with no such comma within
// width stays one line.
func wrapJSON(s string, width int) []string {
	var pieces []string // s cut after every comma outside strings
	inString, escaped, start := false, false, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case c == ',' && !inString:
			pieces = append(pieces, s[start:i+1])
			start = i + 1
		}
	}
	pieces = append(pieces, s[start:])
	var lines []string
	var cur strings.Builder
	for _, p := range pieces {
		if cur.Len() > 0 && twwidth.Width(cur.String())+twwidth.Width(p) > width {
			lines = append(lines, cur.String())
			cur.Reset()
		}
		cur.WriteString(p)
	}
	if cur.Len() > 0 {
		lines = append(lines, cur.String())
	}
	return lines
}

// writeTableWidth writes t in the table format fitted to width (see Fit),
// its notes after it; width ≤ 0 writes t as it is.
func writeTableWidth(w io.Writer, t Table, width int) error {
	parts, notes := Fit(t, width)
	for i, p := range parts {
		if i > 0 {
			fmt.Fprintln(w)
		}
		if err := writeTable(w, p); err != nil {
			return err
		}
	}
	if len(notes) > 0 {
		var b bytes.Buffer
		for _, n := range notes {
			b.WriteString("\n" + n + "\n")
		}
		if _, err := w.Write(b.Bytes()); err != nil {
			return fmt.Errorf("report: %w", err)
		}
	}
	return nil
}

// noteLines lays out the JSON text c for a note at most width wide. A JSON
// object shows one field a line, "key: value", in its order: a string
// unquoted and wrapped at spaces, except "command", a shell command,
// wrapped at spaces outside quotes with " \\" continuations (it still runs
// when pasted); any other value as JSON broken after commas (the same JSON
// when pasted). Anything else is JSON broken after commas.
func noteLines(c string, width int) []string {
	fields, ok := objectFields(c)
	if !ok {
		return wrapJSON(c, width)
	}
	var out []string
	for _, f := range fields {
		head := "  " + f.key + ": "
		lim := max(20, width-twwidth.Width(head))
		var s string
		if json.Unmarshal(f.raw, &s) != nil {
			lines := wrapJSON(string(f.raw), lim)
			out = append(out, head+lines[0])
			for _, l := range lines[1:] {
				out = append(out, "    "+l)
			}
			continue
		}
		if f.key == "command" {
			lines := wrapShell(s, lim-2)
			for i, l := range lines {
				if i < len(lines)-1 {
					l += " \\"
				}
				if i == 0 {
					out = append(out, head+l)
				} else {
					out = append(out, "      "+l)
				}
			}
			continue
		}
		lines, _ := twwarp.WrapString(s, lim)
		if len(lines) == 0 {
			lines = []string{""}
		}
		out = append(out, head+lines[0])
		for _, l := range lines[1:] {
			out = append(out, "    "+l)
		}
	}
	return out
}

// field is one member of a JSON object, its value as written.
type field struct {
	key string
	raw json.RawMessage
}

// objectFields returns the members of the JSON object c in their order,
// and false when c is not one object.
func objectFields(c string) ([]field, bool) {
	dec := json.NewDecoder(strings.NewReader(c))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	var fields []field
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, false
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, false
		}
		fields = append(fields, field{key, raw})
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false
	}
	return fields, true
}

// wrapShell breaks the shell command s into lines at most width wide, at
// spaces outside single and double quotes (a quoted word wider than width
// keeps its own line), so that the lines joined with " \\" continuations
// are the same command.
func wrapShell(s string, width int) []string {
	var words []string
	var quote byte
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote == 0 && c == '\\' && i+1 < len(s):
			i++
		case quote == '"' && c == '\\' && i+1 < len(s):
			i++
		case quote == 0 && (c == '\'' || c == '"'):
			quote = c
		case quote != 0 && c == quote:
			quote = 0
		case quote == 0 && c == ' ':
			if i > start {
				words = append(words, s[start:i])
			}
			start = i + 1
		}
	}
	if start < len(s) {
		words = append(words, s[start:])
	}
	var lines []string
	cur := ""
	for _, w := range words {
		if cur != "" && twwidth.Width(cur)+1+twwidth.Width(w) > width {
			lines = append(lines, cur)
			cur = ""
		}
		if cur != "" {
			cur += " "
		}
		cur += w
	}
	if cur != "" || len(lines) == 0 {
		lines = append(lines, cur)
	}
	return lines
}
