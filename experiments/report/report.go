// Package report writes a command's results in the formats every tailbound
// command offers: an aligned table (tablewriter), a markdown table, CSV, or
// the command's own JSON document.
package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// Formats lists the accepted --format values.
var formats = []string{"table", "markdown", "csv", "json"}

// FormatHelp is the help text of a --format flag.
const FormatHelp = "output format: table|markdown|csv|json"

// CheckFormat returns an error naming the flag if f is not a known format.
func CheckFormat(f string) error {
	for _, g := range formats {
		if f == g {
			return nil
		}
	}
	return fmt.Errorf("flag --format: unknown format %q (want %s)", f, strings.Join(formats, "|"))
}

// Table is one titled table of strings. Column headers carry their units,
// e.g. "TEL (tokens)".
type Table struct {
	Title  string
	Header []string
	Rows   [][]string
	// Plain holds, for a table built with Add, each row's cells as CSV
	// writes them (full precision, no units); Fraction marks the columns
	// whose Plain cells are fractions shown as percentages. A table built
	// by appending to Rows leaves both nil.
	Plain    [][]string `json:",omitempty"`
	Fraction []bool     `json:",omitempty"`
	// Half holds, for a table built with Add, each row's half-widths of
	// 95% intervals (CellCI) as CSV writes them, "" where a cell has
	// none; nil when no cell has one.
	Half [][]string `json:",omitempty"`
	// left marks the columns shown left-aligned (text Fit wrapped); the
	// others are right-aligned.
	left []bool
}

// Emit writes the result in format: doc as indented JSON for "json", the
// tables otherwise. Several tables are separated by a blank line; CSV is
// one machine-readable table (see writeCSV). When w is a *Stamped with a
// Width (stdout is a terminal that wide), the table format fits each table
// to it (see Fit); every other output is the same at any width.
func Emit(w io.Writer, format string, doc any, tables ...Table) error {
	if err := CheckFormat(format); err != nil {
		return err
	}
	if format == "json" {
		if sw, ok := w.(*Stamped); ok && sw.Stamp != nil {
			if sw.Settings != nil {
				sw.Stamp.Settings = sw.Settings()
			}
			return stampJSON(sw.Writer, sw.Stamp, doc)
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(doc)
	}
	if format == "csv" {
		return writeCSV(w, tables)
	}
	width := 0
	if sw, ok := w.(*Stamped); ok {
		width = sw.Width
	}
	for i, t := range tables {
		if i > 0 {
			fmt.Fprintln(w)
		}
		var err error
		switch format {
		case "table":
			err = writeTableWidth(w, t, width)
		case "markdown":
			err = writeMarkdown(w, t)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func writeTable(w io.Writer, t Table) error {
	if t.Title != "" {
		fmt.Fprintln(w, t.Title)
	}
	opts := []tablewriter.Option{tablewriter.WithHeaderAutoFormat(tw.Off), tablewriter.WithRowAlignment(tw.AlignRight)}
	if len(t.left) > 0 {
		per := make([]tw.Align, len(t.Header))
		for j := range per {
			per[j] = tw.AlignRight
			if j < len(t.left) && t.left[j] {
				per[j] = tw.AlignLeft
			}
		}
		opts = append(opts, tablewriter.WithRowAlignmentConfig(tw.CellAlignment{Global: tw.AlignRight, PerColumn: per}))
	}
	tbl := tablewriter.NewTable(w, opts...)
	tbl.Header(anySlice(t.Header)...)
	for _, r := range t.Rows {
		if err := tbl.Append(anySlice(r)...); err != nil {
			return fmt.Errorf("report: %w", err)
		}
	}
	if err := tbl.Render(); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

func anySlice(s []string) []any {
	a := make([]any, len(s))
	for i, v := range s {
		a[i] = v
	}
	return a
}

func writeMarkdown(w io.Writer, t Table) error {
	if t.Title != "" {
		fmt.Fprintf(w, "**%s**\n\n", t.Title)
	}
	esc := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	row := func(cells []string) {
		parts := make([]string, len(cells))
		for i, c := range cells {
			parts[i] = esc(c)
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(parts, " | "))
	}
	row(t.Header)
	sep := make([]string, len(t.Header))
	for i := range sep {
		sep[i] = "---"
	}
	fmt.Fprintf(w, "| %s |\n", strings.Join(sep, " | "))
	for _, r := range t.Rows {
		row(r)
	}
	return nil
}

// F formats a float with prec significant decimals, without exponent for
// ordinary magnitudes; NaN and infinities print as "NaN", "+Inf", "-Inf".
func F(x float64, prec int) string { return strconv.FormatFloat(x, 'f', prec, 64) }

// Value returns &x, or nil when x is NaN: a ratio with no value (0/0)
// that JSON writes as null.
func Value(x float64) *float64 {
	if math.IsNaN(x) {
		return nil
	}
	return &x
}

// Ratio returns num/den, or nil when den is 0 (no value: JSON null).
func Ratio(num, den int64) *float64 {
	if den == 0 {
		return nil
	}
	r := float64(num) / float64(den)
	return &r
}

// FV formats *x as F does, and a value that is not there (nil) as "—".
func FV(x *float64, prec int) string {
	if x == nil {
		return "—"
	}
	return F(*x, prec)
}

// I formats an integer.
func I(x int64) string { return strconv.FormatInt(x, 10) }

// Pct formats a ratio as a percentage with one decimal, e.g. 0.1234 → "12.3%".
func Pct(x float64) string { return strconv.FormatFloat(100*x, 'f', 1, 64) + "%" }
