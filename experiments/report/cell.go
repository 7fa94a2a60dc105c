package report

import (
	"math"
	"strconv"
)

// Cell is one table cell built with Table.Add: Text as the table and
// markdown formats show it, Plain as CSV writes it — the value at full
// precision (shortest form that parses back to the same float64, with an
// exponent only where encoding/json uses one), with no units, or "" when
// there is no value. Frac marks a Plain fraction whose
// Text is a percentage.
type Cell struct {
	Text, Plain string
	Frac        bool
	// Half is the half-width of the 95% interval around Plain (CellCI),
	// at full precision; "" for none.
	Half string
}

// The constructors below show their Text exactly as F, FV, I and Pct
// format it, so a table switched to Add prints the same table; their Plain
// is the full-precision value, and "" where the value is NaN or absent.

// CellF is x as F(x, prec) shows it.
func CellF(x float64, prec int) Cell { return Cell{Text: F(x, prec), Plain: plainFloat(x)} }

// CellFV is *x as FV(x, prec) shows it ("—" when x is nil).
func CellFV(x *float64, prec int) Cell {
	if x == nil {
		return Cell{Text: FV(x, prec)}
	}
	return CellF(*x, prec)
}

// CellI is the integer n.
func CellI(n int64) Cell { return Cell{Text: I(n), Plain: I(n)} }

// CellText is a cell of text (a policy name, a setting), written as it is.
func CellText(s string) Cell { return Cell{Text: s, Plain: s} }

// CellPct is the fraction x as Pct(x) shows it, written to CSV as the
// fraction.
func CellPct(x float64) Cell { return Cell{Text: Pct(x), Plain: plainFloat(x), Frac: true} }

// CellCount is the count n with its share frac of a total, shown as
// "3 (1.5%)" (the share as Pct shows it) and written to CSV as the count,
// as the text path keeps it.
func CellCount(n int64, frac float64) Cell {
	return Cell{Text: I(n) + " (" + Pct(frac) + ")", Plain: I(n)}
}

// CellNone is text that stands for no value ("n/a (baseline 0)", "—",
// "none"), written to CSV as an empty cell.
func CellNone(text string) Cell { return Cell{Text: text} }

// CellAs is the value x shown as text in a format of the table's own
// (e.g. "∞ (opt 0)" for +Inf), written to CSV as x at full precision.
// text must show x, rounded, and nothing else.
func CellAs(text string, x float64) Cell { return Cell{Text: text, Plain: plainFloat(x)} }

// CellFracAs is the fraction x shown as text, a percentage in a format
// of the table's own (e.g. "12.35%"), written to CSV as the fraction.
func CellFracAs(text string, x float64) Cell {
	return Cell{Text: text, Plain: plainFloat(x), Frac: true}
}

// CellCI is a mean with the half-width of its 95% confidence interval,
// shown "mean ± half" with prec decimals each. CSV writes the mean in the
// column and the half-width, unrounded both, in a column of its own
// after it, headed as the column followed by " ±95%" (as seeds.CSVColumns
// splits a summary over seeds).
func CellCI(mean, half float64, prec int) Cell {
	return Cell{Text: F(mean, prec) + " ± " + F(half, prec), Plain: plainFloat(mean), Half: plainFloat(half)}
}

func plainFloat(x float64) string {
	switch {
	case math.IsNaN(x):
		return ""
	case math.IsInf(x, 1):
		return "inf" // as plainColumn writes "∞"
	case math.IsInf(x, -1):
		return "-inf"
	}
	// Without an exponent in the range encoding/json writes so, so that a
	// count of tokens reads 38721966 as in the JSON document, not
	// 3.8721966e+07.
	if a := math.Abs(x); a != 0 && (a < 1e-6 || a >= 1e21) {
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return strconv.FormatFloat(x, 'f', -1, 64)
}

// Add appends a row of cells: their Text to Rows and their Plain values
// to Plain, so that CSV carries full precision. A table whose rows are all
// added this way is written to CSV from Plain; otherwise CSV cells are
// read back from the displayed text (see writeCSV).
func (t *Table) Add(cells ...Cell) {
	text := make([]string, len(cells))
	plain := make([]string, len(cells))
	var half []string
	for j, c := range cells {
		text[j], plain[j] = c.Text, c.Plain
		if c.Frac {
			for len(t.Fraction) <= j {
				t.Fraction = append(t.Fraction, false)
			}
			t.Fraction[j] = true
		}
		if c.Half != "" {
			if half == nil {
				half = make([]string, len(cells))
			}
			half[j] = c.Half
		}
	}
	for len(t.Plain) < len(t.Rows) {
		t.Plain = append(t.Plain, nil) // rows appended as text before
	}
	if half != nil || t.Half != nil {
		for len(t.Half) < len(t.Rows) {
			t.Half = append(t.Half, nil) // rows without intervals
		}
		t.Half = append(t.Half, half)
	}
	t.Rows = append(t.Rows, text)
	t.Plain = append(t.Plain, plain)
}

// halfColumns reports which columns hold a half-width in some row.
func (t Table) halfColumns() []bool {
	split := make([]bool, len(t.Header))
	for _, r := range t.Half {
		for j, h := range r {
			if h != "" && j < len(split) {
				split[j] = true
			}
		}
	}
	return split
}

// HasPlain reports whether every row of t was built with Add, so that CSV
// writes t from its Plain cells.
func (t Table) HasPlain() bool {
	if len(t.Plain) != len(t.Rows) || len(t.Rows) == 0 {
		return false
	}
	for _, r := range t.Plain {
		if r == nil {
			return false
		}
	}
	return true
}

// plainRows returns the CSV rows and header of a table whose every row was
// built with Add, and false otherwise.
func (t Table) plainRows() (header []string, rows [][]string, ok bool) {
	if !t.HasPlain() {
		return nil, nil, false
	}
	split := t.halfColumns()
	for j, h := range t.Header {
		if j < len(t.Fraction) && t.Fraction[j] {
			h += " (fraction)"
		}
		header = append(header, h)
		if split[j] {
			header = append(header, h+" ±95%")
		}
	}
	rows = make([][]string, len(t.Plain))
	for i, r := range t.Plain {
		for j := range t.Header {
			rows[i] = append(rows[i], cellAt(r, j))
			if split[j] {
				var half []string
				if i < len(t.Half) {
					half = t.Half[i]
				}
				rows[i] = append(rows[i], cellAt(half, j))
			}
		}
	}
	return header, rows, true
}

// cellAt is r[j], or "" past the end of r.
func cellAt(r []string, j int) string {
	if j < len(r) {
		return r[j]
	}
	return ""
}
