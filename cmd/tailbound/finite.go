package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// finiteFloats refuses NaN and ±Inf in every floating-point flag the user
// set: no tailbound flag means anything by them (an SLO of NaN ms counted
// no violations; a time limit of NaN s was no limit).
func finiteFloats(fs *pflag.FlagSet) error {
	var err error
	fs.Visit(func(f *pflag.Flag) {
		if err != nil {
			return
		}
		var vals []string
		switch f.Value.Type() {
		case "float64", "float32":
			vals = []string{f.Value.String()}
		case "float64Slice", "float32Slice":
			vals = strings.Split(strings.Trim(f.Value.String(), "[]"), ",")
		default:
			return
		}
		for _, v := range vals {
			x, perr := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if perr == nil && (math.IsNaN(x) || math.IsInf(x, 0)) {
				err = fmt.Errorf("flag --%s: must be a finite number, got %s", f.Name, v)
				return
			}
		}
	})
	return err
}
