package lp

import "math"

// builder assembles a Problem column by column.
type builder struct {
	p Problem
}

// row adds a row with bounds [lo, up] and returns its index.
func (b *builder) row(lo, up float64) int {
	b.p.RowLo = append(b.p.RowLo, lo)
	b.p.RowUp = append(b.p.RowUp, up)
	b.p.NumRows++
	return b.p.NumRows - 1
}

// col adds a column with objective c, bounds [lo, up], integrality and
// entries vals at rows, and returns its index.
func (b *builder) col(c, lo, up float64, integer bool, rows []int, vals []float64) int {
	if b.p.NumCols == 0 {
		b.p.ColStart = append(b.p.ColStart[:0], 0)
	}
	b.p.Obj = append(b.p.Obj, c)
	b.p.ColLo = append(b.p.ColLo, lo)
	b.p.ColUp = append(b.p.ColUp, up)
	b.p.Integer = append(b.p.Integer, integer)
	b.p.RowIndex = append(b.p.RowIndex, rows...)
	b.p.Value = append(b.p.Value, vals...)
	b.p.ColStart = append(b.p.ColStart, len(b.p.Value))
	b.p.NumCols++
	return b.p.NumCols - 1
}

// done returns the problem, with nil Integer when no column is integer.
func (b *builder) done() *Problem {
	p := b.p
	if p.NumCols == 0 {
		p.ColStart = []int{0}
	}
	if !p.HasIntegers() {
		p.Integer = nil
	}
	return &p
}

var inf = math.Inf(1)
