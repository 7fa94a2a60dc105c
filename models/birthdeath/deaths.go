package birthdeath

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/tailbound/tailbound/models/trace"
)

// Death is the hidden life of one generated conversation, as the deaths
// file of "gen birth-death --deaths" records it (one JSON object a line).
type Death struct {
	// Conv is the conversation's name in the trace ("c0", "c1", …).
	Conv string `json:"conv"`
	// Birth is the time of its first turn, s.
	Birth float64 `json:"birth_s"`
	// Death is when it dies, s (after its last turn).
	Death float64 `json:"death_s"`
	// Rate is its turn rate while alive, per second.
	Rate float64 `json:"rate_per_s"`
	// Turns is the number of turns it took.
	Turns int `json:"turns"`
}

// Deaths collects the Death of every conversation from the turns of a
// generated trace, in conversation order.
type Deaths struct{ list []Death }

// Add records turn t.
func (d *Deaths) Add(t Turn) {
	for len(d.list) <= t.ConvID {
		d.list = append(d.list, Death{Conv: "c" + strconv.Itoa(len(d.list))})
	}
	h := &d.list[t.ConvID]
	if h.Turns == 0 {
		h.Birth = t.T
	}
	h.Death, h.Rate = t.Death, t.Rate
	h.Turns++
}

// List returns the conversations recorded so far, by conversation id.
func (d *Deaths) List() []Death { return d.list }

// WriteDeaths writes ds as JSON Lines.
func WriteDeaths(w io.Writer, ds []Death) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	for _, h := range ds {
		if err := enc.Encode(h); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// ReadDeaths reads a deaths file written by WriteDeaths; name is the file's
// name in errors. A malformed line is a *trace.ParseError naming the line
// and field.
func ReadDeaths(r io.Reader, name string) ([]Death, error) {
	var out []Death
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		var h Death
		dec := json.NewDecoder(strings.NewReader(text))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&h); err != nil {
			return nil, &trace.ParseError{File: name, Line: line, Msg: err.Error()}
		}
		bad := func(field, msg string) error {
			return &trace.ParseError{File: name, Line: line, Field: field, Msg: msg}
		}
		switch {
		case h.Conv == "":
			return nil, bad("conv", "missing")
		case !finite(h.Birth) || h.Birth < 0:
			return nil, bad("birth_s", "must be a finite time ≥ 0 s")
		case !finite(h.Death) || h.Death < h.Birth:
			return nil, bad("death_s", "must be a finite time ≥ birth_s")
		case !finite(h.Rate) || h.Rate <= 0:
			return nil, bad("rate_per_s", "must be a finite rate > 0 per s")
		case h.Turns < 1:
			return nil, bad("turns", "must be ≥ 1")
		}
		out = append(out, h)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// Write generates p's trace with seed and writes it to w as a canonical
// trace (JSON Lines); when deaths is not nil it also records there every
// conversation's Death.
func Write(w io.Writer, p Params, seed uint64, deaths *Deaths) error {
	tw := trace.NewWriter(w)
	err := Generate(p, seed, func(t Turn) error {
		if deaths != nil {
			deaths.Add(t)
		}
		return tw.Write(t.Record)
	})
	if err != nil {
		return err
	}
	return tw.Flush()
}
