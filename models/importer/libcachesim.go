package importer

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/tailbound/tailbound/models/blocktrace"
)

// libCacheSim (github.com/1a1a11a/libCacheSim) describes object caches: a
// trace is a sequence of object references. Read as a block stream, every
// reference is a request of one block — its object id as the block's hash,
// no prefix chain — of the block size the caller gives (tokens), with
// output 0 and no conversation (Conv = −1: objects, not conversations). A
// capacity of N blocks then holds N objects, as cachesim's
// --ignore-obj-size 1 does. Object sizes are read and checked but not
// used, except that a reference of size 0 is skipped, as cachesim skips
// it (its readers' ignore_size_zero_req, on by default).

// CSVParams are the options of libCacheSim's csv reader, as its
// --trace-type-params (-t) string gives them: "time-col=1,obj-id-col=2,
// obj-size-col=3,delimiter=,,has-header=true,obj-id-is-num=1". Columns
// count from 1; 0 means absent.
type CSVParams struct {
	// TimeCol is the arrival time column (seconds); 0: every time is 0.
	TimeCol int
	// ObjIDCol is the object id column (required).
	ObjIDCol int
	// ObjSizeCol is the object size column (bytes; checked, not used).
	ObjSizeCol int
	// Delimiter separates fields; 0 detects it from the first line as
	// libCacheSim does (the most frequent of tab, ',', '|', ':', weighted
	// 4, 3, 2, 1).
	Delimiter byte
	// HeaderSet says whether HasHeader was given; when not, the first line
	// is a header unless it has more digits than letters (libCacheSim's
	// rule).
	HeaderSet, HasHeader bool
	// ObjIDIsNum reads ids as unsigned integers (decimal, 0x hex or 0
	// octal, as C's strtoull with base 0); otherwise an id is a string and
	// equal strings are the same object (the default of libCacheSim's
	// option parser).
	ObjIDIsNum bool
}

// csvIgnored are libCacheSim csv options that do not change a block
// stream (operation, TTL, tenant, feature columns); they are accepted and
// ignored.
var csvIgnored = []string{"op-col", "op-type-col", "ttl-col", "cnt-col", "cnt-field", "next-access-col", "next-access-field", "tenant-col", "feature-cols", "block-size"}

// ParseCSVParams parses libCacheSim's csv option string (keys time-col,
// obj-id-col, obj-size-col, delimiter, has-header, obj-id-is-num and
// libCacheSim's other spellings of them; the value of delimiter is one
// character, "," included, or \t).
func ParseCSVParams(s string) (CSVParams, error) {
	var p CSVParams
	for rest := strings.TrimSpace(s); rest != ""; {
		kv := rest
		rest = ""
		key, val, ok := strings.Cut(kv, "=")
		key = strings.ReplaceAll(strings.ToLower(strings.TrimSpace(key)), "_", "-")
		switch key { // libCacheSim's other names for the same options
		case "time-field":
			key = "time-col"
		case "obj-id-field":
			key = "obj-id-col"
		case "obj-size-field", "size-col", "size-field":
			key = "obj-size-col"
		case "header":
			key = "has-header"
		}
		if !ok {
			return p, fmt.Errorf("csv option %q: want key=value", strings.TrimSpace(kv))
		}
		if key == "delimiter" {
			// Its value may itself be a comma: one character, or \t.
			switch {
			case strings.HasPrefix(val, `\t`):
				p.Delimiter, val = '\t', val[2:]
			case strings.HasPrefix(val, `\,`):
				p.Delimiter, val = ',', val[2:]
			case val == "" || val[0] == ',' && (len(val) == 1 || val[1] == ','):
				if val == "" {
					return p, errors.New(`csv option delimiter: empty (give one character, or \t)`)
				}
				p.Delimiter, val = ',', val[1:]
			default:
				p.Delimiter, val = val[0], val[1:]
			}
			if val != "" && val[0] != ',' {
				return p, fmt.Errorf("csv option delimiter: want one character, or \\t, got %q", "delimiter="+string(p.Delimiter)+val)
			}
			rest = strings.TrimPrefix(val, ",")
			continue
		}
		val, rest, _ = strings.Cut(val, ",")
		val = strings.TrimSpace(val)
		switch key {
		case "time-col", "obj-id-col", "obj-size-col":
			n, err := strconv.Atoi(val)
			if err != nil || n < 1 {
				return p, fmt.Errorf("csv option %s: want a column number ≥ 1, got %q", key, val)
			}
			switch key {
			case "time-col":
				p.TimeCol = n
			case "obj-id-col":
				p.ObjIDCol = n
			default:
				p.ObjSizeCol = n
			}
		case "has-header", "obj-id-is-num":
			var b bool
			switch strings.ToLower(val) {
			case "1", "true", "yes":
				b = true
			case "0", "false", "no":
			default:
				return p, fmt.Errorf("csv option %s: want true or false, got %q", key, val)
			}
			if key == "has-header" {
				p.HeaderSet, p.HasHeader = true, b
			} else {
				p.ObjIDIsNum = b
			}
		default:
			known := false
			for _, k := range csvIgnored {
				known = known || k == key
			}
			if !known {
				return p, fmt.Errorf("csv option %q: want time-col, obj-id-col, obj-size-col, delimiter, has-header or obj-id-is-num", key)
			}
		}
	}
	if p.ObjIDCol == 0 {
		return p, errors.New("csv options: obj-id-col is required (the object id column, from 1)")
	}
	return p, nil
}

// singles hands out one-element hash slices from shared chunks, so that a
// stream of single-block requests allocates once per 4,096 requests.
type singles []int64

func (s *singles) one(id int64) []int64 {
	if len(*s) == cap(*s) {
		*s = make([]int64, 0, 4096)
	}
	*s = append(*s, id)
	n := len(*s)
	return (*s)[n-1 : n : n]
}

// LibCacheSimCSV reads a libCacheSim csv trace as a stream of single-block
// requests.
type LibCacheSimCSV struct {
	in    *lines
	p     CSVParams
	block int
	ids   map[string]int64
	hs    singles
	last  float64
	sum   Summary
	ready bool
}

// NewLibCacheSimCSV returns a reader of the libCacheSim csv trace r with
// options p, each object a block of block tokens; name is used in errors.
func NewLibCacheSimCSV(r io.Reader, name string, p CSVParams, block int) *LibCacheSimCSV {
	return &LibCacheSimCSV{in: newLines(r, name, 0), p: p, block: block, ids: map[string]int64{}}
}

// detect applies libCacheSim's delimiter and header rules to the first
// line.
func (c *LibCacheSimCSV) detect(first []byte) (skip bool) {
	if c.p.Delimiter == 0 {
		best := 0
		for i, d := range []byte{'\t', ',', '|', ':'} {
			if n := bytes.Count(first, []byte{d}) * (4 - i); n > best {
				best, c.p.Delimiter = n, d
			}
		}
		if c.p.Delimiter == 0 {
			c.p.Delimiter = ','
		}
	}
	if !c.p.HeaderSet {
		digits, letters := 0, 0
		for _, b := range first {
			switch {
			case b >= '0' && b <= '9':
				digits++
			case b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z':
				letters++
			}
		}
		c.p.HeaderSet, c.p.HasHeader = true, digits <= letters
	}
	return c.p.HasHeader
}

// fields splits line at the delimiter; a field in double quotes may hold
// the delimiter and doubled quotes.
func fields(line []byte, delim byte, out [][]byte) ([][]byte, bool) {
	out = out[:0]
	for i := 0; ; {
		if i < len(line) && line[i] == '"' {
			var f []byte
			j := i + 1
			for {
				k := bytes.IndexByte(line[j:], '"')
				if k < 0 {
					return out, false
				}
				f = append(f, line[j:j+k]...)
				j += k + 1
				if j < len(line) && line[j] == '"' {
					f = append(f, '"')
					j++
					continue
				}
				break
			}
			out = append(out, f)
			if j == len(line) {
				return out, true
			}
			if line[j] != delim {
				return out, false
			}
			i = j + 1
			continue
		}
		k := bytes.IndexByte(line[i:], delim)
		if k < 0 {
			return append(out, bytes.TrimSpace(line[i:])), true
		}
		out = append(out, bytes.TrimSpace(line[i:i+k]))
		i += k + 1
	}
}

// Next returns the next request, io.EOF at the end, or a *ParseError.
func (c *LibCacheSimCSV) Next() (blocktrace.Request, error) {
	for {
		r, skip, err := c.next()
		if !skip || err != nil {
			return r, err
		}
	}
}

// next reads one line; skip reports a reference of size 0.
func (c *LibCacheSimCSV) next() (blocktrace.Request, bool, error) {
	line, err := c.in.next()
	if err != nil {
		return blocktrace.Request{}, false, err
	}
	if !c.ready {
		c.ready = true
		if c.detect(line) {
			if line, err = c.in.next(); err != nil {
				return blocktrace.Request{}, false, err
			}
		}
	}
	var buf [8][]byte
	fs, ok := fields(line, c.p.Delimiter, buf[:0])
	if !ok {
		return blocktrace.Request{}, false, c.in.fail("", "unterminated or misplaced quote (delimiter %q)", c.p.Delimiter)
	}
	col := func(n int, what string) ([]byte, error) {
		if n > len(fs) {
			return nil, c.in.fail(fmt.Sprintf("column %d", n), "missing: the line has %d fields at delimiter %q (%s)", len(fs), c.p.Delimiter, what)
		}
		return fs[n-1], nil
	}
	t := 0.0
	if c.p.TimeCol > 0 {
		f, err := col(c.p.TimeCol, "time-col")
		if err != nil {
			return blocktrace.Request{}, false, err
		}
		if t, err = strconv.ParseFloat(string(f), 64); err != nil || !finite(t) || t < 0 {
			return blocktrace.Request{}, false, c.in.fail(fmt.Sprintf("column %d", c.p.TimeCol), "time %q: want a finite number of seconds ≥ 0", f)
		}
		if c.sum.Requests > 0 && t < c.last {
			return blocktrace.Request{}, false, c.in.fail(fmt.Sprintf("column %d", c.p.TimeCol), "time %v s goes back before the previous request's %v s (the trace must be in arrival order)", t, c.last)
		}
	}
	if c.p.ObjSizeCol > 0 {
		f, err := col(c.p.ObjSizeCol, "obj-size-col")
		if err != nil {
			return blocktrace.Request{}, false, err
		}
		size, err := parseCUint(f)
		if err != nil {
			return blocktrace.Request{}, false, c.in.fail(fmt.Sprintf("column %d", c.p.ObjSizeCol), "object size %q: want an unsigned integer (bytes)", f)
		}
		if size == 0 {
			return blocktrace.Request{}, true, nil
		}
	}
	f, err := col(c.p.ObjIDCol, "obj-id-col")
	if err != nil {
		return blocktrace.Request{}, false, err
	}
	var id int64
	if c.p.ObjIDIsNum {
		u, err := parseCUint(f)
		if err != nil {
			return blocktrace.Request{}, false, c.in.fail(fmt.Sprintf("column %d", c.p.ObjIDCol), "object id %q: want an unsigned integer (obj-id-is-num is set)", f)
		}
		id = int64(u) // the same 64 bits: equal ids stay equal
	} else {
		v, ok := c.ids[string(f)]
		if !ok {
			v = int64(len(c.ids))
			c.ids[string(f)] = v
		}
		id = v
	}
	c.last = t
	r := blocktrace.Request{Index: int(c.sum.Requests), Time: t, Input: int64(c.block), Hashes: c.hs.one(id), Conv: -1}
	c.sum.Requests++
	return r, false, nil
}

// parseCUint parses an unsigned integer as C's strtoull with base 0 does
// for well-formed input: decimal, 0x hexadecimal or 0-prefixed octal.
func parseCUint(f []byte) (uint64, error) {
	if bytes.IndexByte(f, '_') >= 0 || len(f) > 1 && f[0] == '0' && (f[1] == 'o' || f[1] == 'O' || f[1] == 'b' || f[1] == 'B') {
		return 0, errors.New("not a C integer")
	}
	return strconv.ParseUint(string(f), 0, 64)
}

// BlockTokens returns the block size given to the constructor.
func (c *LibCacheSimCSV) BlockTokens() int { return c.block }

// ConvName returns c in decimal (the stream has no conversations).
func (c *LibCacheSimCSV) ConvName(conv int) string { return strconv.Itoa(conv) }

// Summary counts the requests read so far.
func (c *LibCacheSimCSV) Summary() Summary { return c.sum }

// OracleGeneralRecord is the size in bytes of one oracleGeneral record:
// little-endian uint32 time (s), uint64 object id, uint32 object size
// (bytes), int64 next access (virtual time, −1 for never).
const OracleGeneralRecord = 24

// OracleGeneral reads libCacheSim's oracleGeneral binary trace as a
// stream of single-block requests. The next-access field is not used.
type OracleGeneral struct {
	name  string
	r     *bufio.Reader
	block int
	hs    singles
	last  uint32
	sum   Summary
	// skipped counts the records of size 0 passed over.
	skipped int
	objs    []blocktrace.Object // Batch's scratch
}

// record returns the 1-based number of the record being read.
func (o *OracleGeneral) record() int { return int(o.sum.Requests) + o.skipped + 1 }

// NewOracleGeneral returns a reader of the oracleGeneral trace r, each
// object a block of block tokens; name is used in errors.
func NewOracleGeneral(r io.Reader, name string, block int) *OracleGeneral {
	return &OracleGeneral{name: name, r: bufio.NewReaderSize(r, 1<<16), block: block}
}

// Next returns the next request, io.EOF at the end, or a *ParseError
// whose line is the 1-based record number.
func (o *OracleGeneral) Next() (blocktrace.Request, error) {
	for {
		// Peek decodes the record in the reader's buffer: no copy and no
		// interface call per record, a third of the reading cost.
		rec, err := o.r.Peek(OracleGeneralRecord)
		if err != nil {
			return o.fail(len(rec), err)
		}
		size := binary.LittleEndian.Uint32(rec[12:])
		t := binary.LittleEndian.Uint32(rec[0:])
		id := binary.LittleEndian.Uint64(rec[4:])
		o.r.Discard(OracleGeneralRecord) // buffered: cannot fail
		if size == 0 {
			o.skipped++ // size 0: skipped as cachesim does
			continue
		}
		if o.sum.Requests > 0 && t < o.last {
			return blocktrace.Request{}, &ParseError{File: o.name, Line: o.record(), Field: "time",
				Msg: fmt.Sprintf("record %d: %d s goes back before the previous record's %d s (the trace must be in arrival order)", o.record(), t, o.last)}
		}
		o.last = t
		r := blocktrace.Request{Index: int(o.sum.Requests), Time: float64(t), Input: int64(o.block), Hashes: o.hs.one(int64(id)), Conv: -1}
		o.sum.Requests++
		return r, nil
	}
}

// Batch appends up to n requests to dst and returns it: the requests and
// the error that n calls of Next would give (io.EOF at the end, a
// *ParseError on a bad record), the requests appended before an error
// being valid. It decodes the records in bulk (Objects): the read of a
// single-block stream in bulk (blocktrace.Bulk).
func (o *OracleGeneral) Batch(dst []blocktrace.Request, n int) ([]blocktrace.Request, error) {
	first := o.sum.Requests
	objs, err := o.Objects(o.objs[:0], n)
	o.objs = objs[:0]
	// The hashes of the requests, side by side: one allocation per call
	// rather than a slice per request, and none when dst's spare elements
	// have hashes to reuse.
	var hs []int64
	for i, ob := range objs {
		var h []int64
		if j := len(dst); j < cap(dst) && cap(dst[:j+1][j].Hashes) > 0 {
			h = dst[:j+1][j].Hashes[:1:1] // the caller is done with it (blocktrace.Bulk)
		} else {
			if len(hs) == cap(hs) {
				hs = make([]int64, 0, len(objs)-i)
			}
			hs = hs[:len(hs)+1]
			h = hs[len(hs)-1 : len(hs) : len(hs)]
		}
		h[0] = ob.Key
		dst = append(dst, blocktrace.Request{Index: int(first) + i, Time: ob.Time, Input: ob.Input, Hashes: h, Conv: -1})
	}
	return dst, err
}

// Objects is Batch for a replay of objects (blocktrace.ObjectBulk): it
// appends up to n requests to dst as Objects, with the error Batch would
// give. It decodes every whole record in the reader's buffer in one loop,
// without a call per record.
func (o *OracleGeneral) Objects(dst []blocktrace.Object, n int) ([]blocktrace.Object, error) {
	for n > 0 {
		if o.r.Buffered() < OracleGeneralRecord {
			if rec, err := o.r.Peek(OracleGeneralRecord); err != nil {
				_, err := o.fail(len(rec), err)
				return dst, err
			}
		}
		buf, _ := o.r.Peek(o.r.Buffered() / OracleGeneralRecord * OracleGeneralRecord)
		k := min(n, len(buf)/OracleGeneralRecord)
		i := 0
		for ; i < k; i++ {
			rec := buf[i*OracleGeneralRecord : (i+1)*OracleGeneralRecord : (i+1)*OracleGeneralRecord]
			size := binary.LittleEndian.Uint32(rec[12:])
			if size == 0 {
				o.skipped++ // size 0: skipped as cachesim does
				continue
			}
			t := binary.LittleEndian.Uint32(rec[0:])
			if o.sum.Requests > 0 && t < o.last {
				o.r.Discard((i + 1) * OracleGeneralRecord)
				return dst, &ParseError{File: o.name, Line: o.record(), Field: "time",
					Msg: fmt.Sprintf("record %d: %d s goes back before the previous record's %d s (the trace must be in arrival order)", o.record(), t, o.last)}
			}
			o.last = t
			dst = append(dst, blocktrace.Object{Time: float64(t), Key: int64(binary.LittleEndian.Uint64(rec[4:])), Input: int64(o.block)})
			o.sum.Requests++
			n--
		}
		o.r.Discard(i * OracleGeneralRecord) // buffered: cannot fail
	}
	return dst, nil
}

// fail reports the end of the file or a read error, n bytes into a record.
func (o *OracleGeneral) fail(n int, err error) (blocktrace.Request, error) {
	switch {
	case err == io.EOF && n == 0:
		return blocktrace.Request{}, io.EOF
	case err == io.EOF:
		return blocktrace.Request{}, &ParseError{File: o.name, Line: o.record(),
			Msg: fmt.Sprintf("record %d: the file ends after %d of its %d bytes (not an oracleGeneral trace?)", o.record(), n, OracleGeneralRecord)}
	}
	return blocktrace.Request{}, fmt.Errorf("%s: record %d: %w", o.name, o.record(), err)
}

// BlockTokens returns the block size given to the constructor.
func (o *OracleGeneral) BlockTokens() int { return o.block }

// ConvName returns c in decimal (the stream has no conversations).
func (o *OracleGeneral) ConvName(c int) string { return strconv.Itoa(c) }

// Summary counts the requests read so far.
func (o *OracleGeneral) Summary() Summary { return o.sum }

// WriteOracleGeneral writes one oracleGeneral record to w: time in
// seconds, object id, size in bytes and next access (−1 for never).
func WriteOracleGeneral(w io.Writer, time uint32, id uint64, size uint32, next int64) error {
	var rec [OracleGeneralRecord]byte
	binary.LittleEndian.PutUint32(rec[0:], time)
	binary.LittleEndian.PutUint64(rec[4:], id)
	binary.LittleEndian.PutUint32(rec[12:], size)
	binary.LittleEndian.PutUint64(rec[16:], uint64(next))
	_, err := w.Write(rec[:])
	return err
}
