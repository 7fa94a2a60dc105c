package importer

import "github.com/tailbound/tailbound/internal/jsonscan"

// The fast paths read a line of a format's expected shape in place
// (package jsonscan): every key one of the format's, at most once, every
// value a plain integer, number, ASCII string or integer array. They
// report false for anything else, and the line is then decoded by
// encoding/json (lines.decode), which gives the same record or the error
// the user sees; FuzzFastPaths checks that the two agree on every input.
// A Mooncake line is first tried against the traces' own layout, whose
// punctuation and keys are compared as whole literals (scanLayout).

// field runs one key's reader; bit refuses a duplicate key.
func (l *lines) field(seen *int, bit int, ok bool) bool {
	if !ok || *seen&bit != 0 {
		return false
	}
	*seen |= bit
	return true
}

// hashes reads an integer array into a slice of its exact length and
// capacity. Short arrays are carved from a shared slab instead of
// allocated one by one: a trace of short chains (single-block requests)
// would otherwise make one tiny allocation per line, and the garbage
// collector's work with it. The slices are disjoint, so a caller may keep
// or modify one without affecting another.
func (l *lines) hashes() ([]int64, bool) {
	ids, ok := l.js.Ints(l.ids[:0:cap(l.ids)])
	if !ok {
		return nil, false
	}
	l.ids = ids
	n := len(ids)
	if n > slabInts/8 {
		return append([]int64(nil), ids...), true
	}
	if n > len(l.slab) || l.slab == nil {
		l.slab = make([]int64, slabInts)
	}
	out := l.slab[:n:n]
	l.slab = l.slab[n:]
	copy(out, ids)
	return out, true
}

// slabInts is the length of the slab hashes carves short arrays from.
const slabInts = 4096

// object starts the fast path on line b and returns the key loop: next
// returns each key, or done at the closing brace, or !ok.
func (l *lines) object(b []byte) bool {
	return !l.slow && l.js.Reset(b)
}

// The Mooncake traces' own layout of a line (after its '{'): the keys in
// this order, one space after each colon and comma.
const (
	mooncakeTimestamp = `"timestamp": `
	mooncakeInput     = `, "input_length": `
	mooncakeOutput    = `, "output_length": `
	mooncakeHashes    = `, "hash_ids": `
)

// scanLayout reads a line written exactly in the Mooncake layout, matching
// the text between the values as whole literals; any other line is left
// to the key-by-key loop of scan, which reads such a line to the same
// record.
func (m *Mooncake) scanLayout() bool {
	js, r, v := &m.in.js, &m.rec, &m.vals
	var ok bool
	if v[0], ok = litInt(js, mooncakeTimestamp); !ok {
		return false
	}
	if v[1], ok = litInt(js, mooncakeInput); !ok {
		return false
	}
	if v[2], ok = litInt(js, mooncakeOutput); !ok {
		return false
	}
	if !js.Lit(mooncakeHashes) {
		return false
	}
	h, ok := m.in.hashes()
	if !ok || !js.End() {
		return false
	}
	r.Timestamp, r.Input, r.Output, r.Hashes = &v[0], &v[1], &v[2], h
	return true
}

// litInt reads the literal lit and then an integer.
func litInt(js *jsonscan.Scanner, lit string) (int64, bool) {
	if !js.Lit(lit) {
		return 0, false
	}
	return js.Int()
}

func (m *Mooncake) scan(b []byte) bool {
	l := m.in
	if !l.object(b) {
		return false
	}
	if m.scanLayout() {
		return true
	}
	if !l.object(b) {
		return false
	}
	r, v := &m.rec, &m.vals
	seen := 0
	for {
		key, end, ok := l.js.Key()
		switch {
		case !ok:
			return false
		case end:
			return true
		}
		switch string(key) {
		case "timestamp":
			v[0], ok = l.js.Int()
			r.Timestamp, ok = &v[0], l.field(&seen, 1, ok)
		case "input_length":
			v[1], ok = l.js.Int()
			r.Input, ok = &v[1], l.field(&seen, 2, ok)
		case "output_length":
			v[2], ok = l.js.Int()
			r.Output, ok = &v[2], l.field(&seen, 4, ok)
		case "hash_ids":
			r.Hashes, ok = l.hashes()
			ok = l.field(&seen, 8, ok)
		default:
			return false
		}
		if !ok {
			return false
		}
	}
}

// bailianValues holds the fast path's values that bailianRecord points to.
type bailianValues struct {
	chat, parent, input, output, turn int64
	ts                                float64
	typ                               string
}

func (b *Bailian) scan(line []byte) bool {
	l := b.in
	if !l.object(line) {
		return false
	}
	r, v := &b.rec, &b.vals
	seen := 0
	for {
		key, end, ok := l.js.Key()
		switch {
		case !ok:
			return false
		case end:
			return true
		}
		switch string(key) {
		case "chat_id":
			v.chat, ok = l.js.Int()
			r.ChatID, ok = &v.chat, l.field(&seen, 1, ok)
		case "parent_chat_id":
			v.parent, ok = l.js.Int()
			r.Parent, ok = &v.parent, l.field(&seen, 2, ok)
		case "timestamp":
			v.ts, ok = l.js.Float()
			r.Timestamp, ok = &v.ts, l.field(&seen, 4, ok)
		case "input_length":
			v.input, ok = l.js.Int()
			r.Input, ok = &v.input, l.field(&seen, 8, ok)
		case "output_length":
			v.output, ok = l.js.Int()
			r.Output, ok = &v.output, l.field(&seen, 16, ok)
		case "type":
			var s []byte
			s, ok = l.js.String()
			if t, known := b.types[string(s)]; known {
				v.typ = t
			} else {
				v.typ = string(s)
			}
			r.Type, ok = &v.typ, l.field(&seen, 32, ok)
		case "turn":
			v.turn, ok = l.js.Int()
			r.Turn, ok = &v.turn, l.field(&seen, 64, ok)
		case "hash_ids":
			r.Hashes, ok = l.hashes()
			ok = l.field(&seen, 128, ok)
		default:
			return false
		}
		if !ok {
			return false
		}
	}
}

// blockValues holds the fast path's values that blockRecord points to.
type blockValues struct {
	conv, input, output, block int64
	t                          float64
}

func (s *Blocks) scan(line []byte) bool {
	l := s.in
	if !l.object(line) {
		return false
	}
	r, v := &s.rec, &s.vals
	seen := 0
	for {
		key, end, ok := l.js.Key()
		switch {
		case !ok:
			return false
		case end:
			return true
		}
		switch string(key) {
		case "t":
			v.t, ok = l.js.Float()
			r.T, ok = &v.t, l.field(&seen, 1, ok)
		case "conv":
			v.conv, ok = l.js.Int()
			r.Conv, ok = &v.conv, l.field(&seen, 2, ok)
		case "input":
			v.input, ok = l.js.Int()
			r.Input, ok = &v.input, l.field(&seen, 4, ok)
		case "output":
			v.output, ok = l.js.Int()
			r.Output, ok = &v.output, l.field(&seen, 8, ok)
		case "block":
			v.block, ok = l.js.Int()
			r.Block, ok = &v.block, l.field(&seen, 16, ok)
		case "category":
			var c []byte
			c, ok = l.js.String()
			if k, known := s.cats[string(c)]; known {
				r.Category = k
			} else {
				r.Category = string(c)
			}
			ok = l.field(&seen, 32, ok)
		case "hashes":
			r.Hashes, ok = l.hashes()
			ok = l.field(&seen, 64, ok)
		default:
			return false
		}
		if !ok {
			return false
		}
	}
}
