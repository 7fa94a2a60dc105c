package prefixgen

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/tailbound/tailbound/internal/progress"
)

// GenOptions say what to generate: a model, a seed and where to stop.
type GenOptions struct {
	// Model is the model to draw from.
	Model Model
	// Seed seeds every random draw: a fixed seed gives byte-identical
	// output.
	Seed uint64
	// Requests stops after this many requests (0: no limit).
	Requests int64
	// DurationS stops before the first request arriving at or after this
	// many seconds (0: no limit).
	DurationS float64
	// Progress (nil: none) is told the requests written now and then, of
	// Requests (none when only DurationS bounds them).
	Progress progress.Func
}

// Write streams the requests of o as a Mooncake trace (JSON Lines with
// timestamp in ms, input_length and output_length in tokens and hash_ids)
// to w, one line per request as it is drawn; memory is the generator's
// session table, not the trace. It returns the generator's counts.
func Write(ctx context.Context, o GenOptions, w io.Writer) (Stats, error) {
	if o.Requests <= 0 && !(o.DurationS > 0) {
		return Stats{}, errors.New("a number of requests or a duration (s) is needed, else the trace never ends")
	}
	if o.Requests < 0 || !(o.DurationS >= 0) || math.IsInf(o.DurationS, 0) {
		return Stats{}, errors.New("requests and duration must be finite and ≥ 0")
	}
	g, err := NewGenerator(o.Model, o.Seed)
	if err != nil {
		return Stats{}, err
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	var line []byte
	for o.Requests == 0 || g.Stats().Requests < o.Requests {
		if o.DurationS > 0 && g.NextTime() >= o.DurationS {
			break
		}
		if n := g.Stats().Requests; n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return g.Stats(), err
			}
			if n%(64*4096) == 0 {
				o.Progress.Report("requests", n, o.Requests)
			}
		}
		r := g.Next()
		if !(r.TimeS <= MaxTimeS) {
			return g.Stats(), fmt.Errorf("request %d arrives at %v s, past 10^12 s: the model's rates or reuse times are out of scale", g.Stats().Requests, r.TimeS)
		}
		line = AppendMooncake(line[:0], r)
		if _, err := bw.Write(line); err != nil {
			return g.Stats(), err
		}
	}
	return g.Stats(), bw.Flush()
}

// AppendMooncake appends r as one Mooncake line (with its newline), the
// time floored to whole milliseconds.
func AppendMooncake(b []byte, r Request) []byte {
	b = append(b, `{"timestamp": `...)
	b = strconv.AppendInt(b, int64(math.Floor(r.TimeS*1000)), 10)
	b = append(b, `, "input_length": `...)
	b = strconv.AppendInt(b, r.Input, 10)
	b = append(b, `, "output_length": `...)
	b = strconv.AppendInt(b, r.Output, 10)
	b = append(b, `, "hash_ids": [`...)
	for i, h := range r.Hashes {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = strconv.AppendInt(b, h, 10)
	}
	return append(b, "]}\n"...)
}
