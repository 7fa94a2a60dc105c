package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// writeCSV writes the tables as one machine-readable CSV table, with no
// title or comment lines and plain cells: a table built with Table.Add
// writes its Plain cells (full precision); any other table's cells are
// read back from their displayed text (see plainColumn), so they carry the
// precision the table shows. One table is
// written as it is. Several tables, whose columns mean different things
// even where their names agree, are written in long form: one line per
// cell, with the columns table (its title), row (1-based), column (its
// header) and value.
func writeCSV(w io.Writer, tables []Table) error {
	cw := csv.NewWriter(w)
	if len(tables) > 1 {
		if err := cw.Write([]string{"table", "row", "column", "value"}); err != nil {
			return fmt.Errorf("report: %w", err)
		}
	}
	for _, t := range tables {
		header, rows, ok := t.plainRows()
		if !ok {
			header, rows = t.parsedRows()
		}
		if len(tables) == 1 {
			if err := cw.Write(header); err != nil {
				return fmt.Errorf("report: %w", err)
			}
			if err := cw.WriteAll(rows); err != nil {
				return fmt.Errorf("report: %w", err)
			}
			return nil
		}
		for i, r := range rows {
			for j, c := range r {
				if err := cw.Write([]string{t.Title, strconv.Itoa(i + 1), header[j], c}); err != nil {
					return fmt.Errorf("report: %w", err)
				}
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// parsedRows returns the header and rows of t with each column made plain
// by plainColumn.
func (t Table) parsedRows() (header []string, rows [][]string) {
	rows = make([][]string, len(t.Rows))
	for i, r := range t.Rows {
		rows[i] = make([]string, len(t.Header))
		copy(rows[i], r)
	}
	header = append([]string(nil), t.Header...)
	for j := range header {
		header[j] = plainColumn(header[j], rows, j)
	}
	return header, rows
}

var (
	countPct = regexp.MustCompile(`^(-?[0-9.]+) \(-?[0-9.]+%\)$`) // "3 (1.5%)"
	pct      = regexp.MustCompile(`^([+-]?[0-9.]+)%$`)            // "12.3%"
)

// plainColumn rewrites column j of rows as plain values and returns its
// header: a count with its share in parentheses keeps the count; words
// that say there is no value ("n/a…", "none", "—") become empty; an infinite
// relative gap becomes "inf" and "both 0" 0; a column of percentages
// becomes fractions, its header marked "(fraction)".
func plainColumn(h string, rows [][]string, j int) string {
	allPct, any := true, false
	for _, r := range rows {
		c := strings.TrimSpace(r[j])
		switch {
		case strings.HasPrefix(c, "n/a") || c == "none" || c == "—" || c == "-":
			c = ""
		case strings.HasPrefix(c, "∞"):
			c = "inf"
		case strings.HasSuffix(c, "(both 0)"):
			c = "0"
		}
		if m := countPct.FindStringSubmatch(c); m != nil {
			c = m[1]
		}
		r[j] = c
		if c != "" && c != "inf" {
			any = true
			if !pct.MatchString(c) {
				allPct = false
			}
		}
	}
	if !any || !allPct {
		return h
	}
	for _, r := range rows {
		if m := pct.FindStringSubmatch(r[j]); m != nil {
			v, _ := strconv.ParseFloat(m[1], 64)
			r[j] = strconv.FormatFloat(v/100, 'g', -1, 64)
		}
	}
	return h + " (fraction)"
}
