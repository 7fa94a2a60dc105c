package progress_test

import (
	"fmt"
	"time"

	"github.com/tailbound/tailbound/internal/progress"
)

// A line for 30 windows solved of 120 in 10 s: 3 a second, so 90 more
// take 30 s.
func ExampleLine() {
	fmt.Println(progress.Line("windows", 30, 120, 10*time.Second))
	// Output: windows: 30/120 (25%) · 3/s · 0:30 left · 0:10
}

// A library reports through a Func, which a command may leave nil.
func ExampleFunc() {
	solve := func(report progress.Func) {
		for w := int64(1); w <= 3; w++ {
			report.Report("windows", w, 3)
		}
	}
	solve(nil) // reports nothing
	solve(func(what string, done, total int64) { fmt.Printf("%s %d/%d\n", what, done, total) })
	// Output:
	// windows 1/3
	// windows 2/3
	// windows 3/3
}
