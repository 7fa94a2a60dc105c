package suite

import (
	"fmt"
	"io"
	"strings"

	"github.com/tailbound/tailbound/experiments/report"
)

// WriteLaTeX writes each table as a LaTeX booktabs tabular inside a table
// environment, its title as the caption; text is escaped, numbers are
// right-aligned (every column but the first).
func WriteLaTeX(w io.Writer, tables []report.Table) error {
	for i, t := range tables {
		if i > 0 {
			fmt.Fprintln(w)
		}
		cols := "l"
		if len(t.Header) > 1 {
			cols += strings.Repeat("r", len(t.Header)-1)
		}
		fmt.Fprintln(w, `\begin{table}[t]`)
		fmt.Fprintln(w, `\centering`)
		if t.Title != "" {
			fmt.Fprintf(w, "\\caption{%s}\n", latexEscape(t.Title))
		}
		fmt.Fprintf(w, "\\begin{tabular}{%s}\n", cols)
		fmt.Fprintln(w, `\toprule`)
		fmt.Fprintln(w, latexRow(t.Header))
		fmt.Fprintln(w, `\midrule`)
		for _, r := range t.Rows {
			fmt.Fprintln(w, latexRow(r))
		}
		fmt.Fprintln(w, `\bottomrule`)
		fmt.Fprintln(w, `\end{tabular}`)
		if _, err := fmt.Fprintln(w, `\end{table}`); err != nil {
			return fmt.Errorf("latex: %w", err)
		}
	}
	return nil
}

func latexRow(cells []string) string {
	parts := make([]string, len(cells))
	for i, c := range cells {
		parts[i] = latexEscape(c)
	}
	return strings.Join(parts, " & ") + ` \\`
}

// latexEscape escapes LaTeX's special characters and writes the few
// non-ASCII symbols tailbound's tables use in math mode.
func latexEscape(s string) string {
	r := strings.NewReplacer(
		`\`, `\textbackslash{}`, `&`, `\&`, `%`, `\%`, `$`, `\$`, `#`, `\#`, `_`, `\_`,
		`{`, `\{`, `}`, `\}`, `~`, `\textasciitilde{}`, `^`, `\textasciicircum{}`,
		`ξ`, `$\xi$`, `α`, `$\alpha$`, `β`, `$\beta$`, `μ`, `$\mu$`, `λ`, `$\lambda$`,
		`±`, `$\pm$`, `−`, `$-$`, `–`, `--`, `—`, `---`, `×`, `$\times$`, `≥`, `$\geq$`,
		`≤`, `$\leq$`, `∞`, `$\infty$`, `Q̂`, `$\hat{Q}$`, `·`, `$\cdot$`, `≈`, `$\approx$`,
	)
	return r.Replace(s)
}
