package importer

import (
	"bytes"
	"fmt"
	"io"
	"reflect"
	"testing"
	"testing/iotest"

	"pgregory.net/rapid"

	"github.com/tailbound/tailbound/models/blocktrace"
)

// OracleGeneral.Batch against Next on random files: records of size 0
// among the others, a time that may go back, a file cut inside a record,
// batches of 1 to 5,000 requests, and a reader that returns one byte at a
// time (so that records straddle the buffer's refills) or everything at
// once. The requests, and the error (its message, record number and field),
// are the same, also when each batch is read into the previous one's slice
// (whose hashes' storage Batch then reuses).
func TestOracleGeneralBatchEqualsNext(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var data bytes.Buffer
		n := rapid.IntRange(0, 6000).Draw(t, "records")
		back := rapid.IntRange(-1, n).Draw(t, "back") // a record whose time goes back; -1: none
		tm := uint32(0)
		for i := 0; i < n; i++ {
			if i == back && tm > 0 {
				tm--
			} else {
				tm += uint32(rapid.IntRange(0, 2).Draw(t, "gap"))
			}
			size := uint32(1)
			if rapid.IntRange(0, 9).Draw(t, "zero?") == 0 {
				size = 0
			}
			WriteOracleGeneral(&data, tm, rapid.Uint64Range(0, 50).Draw(t, "id"), size, -1)
		}
		raw := data.Bytes()
		raw = raw[:len(raw)-rapid.IntRange(0, min(len(raw), 30)).Draw(t, "cut")]
		slow := rapid.Bool().Draw(t, "one byte at a time")
		open := func() *OracleGeneral {
			var r io.Reader = bytes.NewReader(raw)
			if slow {
				r = iotest.OneByteReader(r)
			}
			return NewOracleGeneral(r, "t.oracleGeneral", 16)
		}
		var want []blocktrace.Request
		var wantErr error
		o := open()
		for {
			r, err := o.Next()
			if err != nil {
				wantErr = err
				break
			}
			want = append(want, r)
		}
		size := rapid.IntRange(1, 5000).Draw(t, "batch")
		reuse := rapid.Bool().Draw(t, "reuse") // read into one slice again and again, as the replay does
		var got, buf []blocktrace.Request
		var err error
		b := open()
		for err == nil {
			if !reuse {
				got, err = b.Batch(got, size)
				continue
			}
			buf, err = b.Batch(buf[:0], size)
			for _, r := range buf { // kept: the next call may reuse its hashes
				r.Hashes = append([]int64(nil), r.Hashes...)
				got = append(got, r)
			}
		}
		if len(got) == 0 && len(want) == 0 {
			got, want = nil, nil
		}
		if !reflect.DeepEqual(got, want) || fmt.Sprint(err) != fmt.Sprint(wantErr) || !reflect.DeepEqual(err, wantErr) {
			t.Fatalf("Batch: %d requests, %v; Next: %d requests, %v", len(got), err, len(want), wantErr)
		}
		if b.Summary() != o.Summary() {
			t.Fatalf("summary %+v, Next's %+v", b.Summary(), o.Summary())
		}
		// Objects: the same requests as Next's, each its time, its one
		// hash and its input, and the same error.
		var objs []blocktrace.Object
		err = nil
		for ob := open(); err == nil; {
			objs, err = ob.Objects(objs, size)
		}
		ok := len(objs) == len(want) && fmt.Sprint(err) == fmt.Sprint(wantErr) && reflect.DeepEqual(err, wantErr)
		for i := 0; ok && i < len(objs); i++ {
			w := want[i]
			ok = len(w.Hashes) == 1 && objs[i] == blocktrace.Object{Time: w.Time, Key: w.Hashes[0], Input: w.Input, Output: w.Output} && w.Conv == -1 && w.Index == i
		}
		if !ok {
			t.Fatalf("Objects: %d requests, %v; Next: %d requests, %v", len(objs), err, len(want), wantErr)
		}
	})
}

// Any bytes read as an oracleGeneral trace: Next, Batch and Objects give
// the same requests and the same error, and none panics.
func FuzzOracleGeneral(f *testing.F) {
	var seed bytes.Buffer
	for i, id := range []uint64{3, 1 << 63, 3, 0} {
		WriteOracleGeneral(&seed, uint32(i), id, uint32(i%2), -1)
	}
	f.Add(seed.Bytes(), 2)
	f.Add(seed.Bytes()[:30], 1)
	f.Fuzz(func(t *testing.T, data []byte, size int) {
		size = 1 + int(uint(size)%100)
		var want []blocktrace.Request
		var wantErr error
		for o := NewOracleGeneral(bytes.NewReader(data), "f", 4); ; {
			r, err := o.Next()
			if err != nil {
				wantErr = err
				break
			}
			want = append(want, r)
		}
		var got []blocktrace.Request
		var objs []blocktrace.Object
		var err, oerr error
		for o := NewOracleGeneral(bytes.NewReader(data), "f", 4); err == nil; {
			got, err = o.Batch(got, size)
		}
		for o := NewOracleGeneral(bytes.NewReader(data), "f", 4); oerr == nil; {
			objs, oerr = o.Objects(objs, size)
		}
		if len(got) != len(want) || len(objs) != len(want) || fmt.Sprint(err) != fmt.Sprint(wantErr) || fmt.Sprint(oerr) != fmt.Sprint(wantErr) {
			t.Fatalf("Next %d, %v; Batch %d, %v; Objects %d, %v", len(want), wantErr, len(got), err, len(objs), oerr)
		}
		for i, w := range want {
			if !reflect.DeepEqual(got[i], w) || objs[i] != (blocktrace.Object{Time: w.Time, Key: w.Hashes[0], Input: w.Input}) {
				t.Fatalf("request %d: Next %+v, Batch %+v, Objects %+v", i, w, got[i], objs[i])
			}
		}
	})
}
