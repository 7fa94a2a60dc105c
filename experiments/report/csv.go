package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// writeCSV writes the tables as one machine-readable CSV table: no title
// or comment lines; when there are several tables, a first column "table"
// holds each row's table title and the columns are the union of the
// tables' headers in order of first appearance (a cell a table lacks is
// empty). Cells are plain values (see plainColumn).
func writeCSV(w io.Writer, tables []Table) error {
	var header []string
	col := map[string]int{}
	for _, t := range tables {
		for _, h := range t.Header {
			if _, ok := col[h]; !ok {
				col[h] = len(header)
				header = append(header, h)
			}
		}
	}
	many := len(tables) > 1
	var rows [][]string
	for _, t := range tables {
		for _, r := range t.Rows {
			row := make([]string, len(header))
			for i, c := range r {
				if i < len(t.Header) {
					row[col[t.Header[i]]] = c
				}
			}
			if many {
				row = append([]string{t.Title}, row...)
			}
			rows = append(rows, row)
		}
	}
	if many {
		header = append([]string{"table"}, header...)
	}
	for j := range header {
		if many && j == 0 {
			continue
		}
		header[j] = plainColumn(header[j], rows, j)
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(header); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err := cw.WriteAll(rows); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
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
