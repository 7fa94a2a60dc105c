package importer

import (
	"bytes"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/models/blocktrace"
)

func TestParseCSVParams(t *testing.T) {
	cases := []struct {
		in   string
		want CSVParams
		err  string
	}{
		{"obj-id-col=2", CSVParams{ObjIDCol: 2}, ""},
		{"time-col=1,obj-id-col=2,obj-size-col=3,delimiter=,,has-header=false,obj-id-is-num=1",
			CSVParams{TimeCol: 1, ObjIDCol: 2, ObjSizeCol: 3, Delimiter: ',', HeaderSet: true, ObjIDIsNum: true}, ""},
		{"TIME_FIELD=1,obj_id_field=2,size-col=3,header=1", CSVParams{TimeCol: 1, ObjIDCol: 2, ObjSizeCol: 3, HeaderSet: true, HasHeader: true}, ""},
		{"obj-id-col=1, delimiter=\\t, has-header=true, obj-id-is-num=0",
			CSVParams{ObjIDCol: 1, Delimiter: '\t', HeaderSet: true, HasHeader: true}, ""},
		{"delimiter=|,obj-id-col=4,op-col=5", CSVParams{ObjIDCol: 4, Delimiter: '|'}, ""},
		{"delimiter=,", CSVParams{}, "obj-id-col is required"},
		{"time-col=1", CSVParams{}, "obj-id-col is required"},
		{"obj-id-col=0", CSVParams{}, "column number"},
		{"obj-id-col=2,has-header=maybe", CSVParams{}, "true or false"},
		{"obj-id-col=2,colour=red", CSVParams{}, `"colour"`},
		{"obj-id-col=2,delimiter=ab", CSVParams{}, "one character"},
		{"obj-id-col", CSVParams{}, "key=value"},
	}
	for _, c := range cases {
		got, err := ParseCSVParams(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want one containing %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q: %+v %v, want %+v", c.in, got, err, c.want)
		}
	}
}

// drain reads src to the end.
func drain(t *testing.T, src Source) ([]blocktrace.Request, error) {
	t.Helper()
	var out []blocktrace.Request
	for {
		r, err := src.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
}

// single is the request a libCacheSim reference of object id at time t
// becomes: one block of block tokens, no conversation.
func single(i int, t float64, id int64, block int64) blocktrace.Request {
	return blocktrace.Request{Index: i, Time: t, Input: block, Hashes: []int64{id}, Conv: -1}
}

func TestLibCacheSimCSV(t *testing.T) {
	f, err := os.Open("testdata/small.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := ParseCSVParams("time-col=1,obj-id-col=2,obj-size-col=3,obj-id-is-num=1")
	if err != nil {
		t.Fatal(err)
	}
	got, err := drain(t, NewLibCacheSimCSV(f, "small.csv", p, 16))
	if err != nil {
		t.Fatal(err)
	}
	// The header is detected (more letters than digits), 0x0a is object
	// 10, the quoted "11" is 11, the size-0 line is skipped.
	want := []blocktrace.Request{single(0, 1, 10, 16), single(1, 2, 10, 16), single(2, 2, 11, 16), single(3, 5, 10, 16)}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read %+v, want %+v", got, want)
	}

	// Tab-delimited, no header, string ids: detected; equal strings are
	// one object, numbered in order of first appearance.
	p, _ = ParseCSVParams("obj-id-col=2,obj-id-is-num=0")
	got, err = drain(t, NewLibCacheSimCSV(strings.NewReader("0\tk1\t5\n1\tk2\t5\n1\tk1\t5\n"), "tab", p, 1))
	if err != nil {
		t.Fatal(err)
	}
	want = []blocktrace.Request{single(0, 0, 0, 1), single(1, 0, 1, 1), single(2, 0, 0, 1)}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("tab-delimited: read %+v, want %+v", got, want)
	}
}

func TestLibCacheSimCSVErrors(t *testing.T) {
	cases := []struct {
		name, params, input, field string
		line                       int
	}{
		{"missing column", "obj-id-col=3,has-header=0", "1,2,3\n4,5\n", "column 3", 2},
		{"id not a number", "obj-id-col=2,has-header=0,obj-id-is-num=1", "1,2\n1,x7\n", "column 2", 2},
		{"time backwards", "time-col=1,obj-id-col=2,has-header=0", "5,1\n4,1\n", "column 1", 2},
		{"time not a number", "time-col=1,obj-id-col=2,has-header=0", "1,1\nnan,1\n", "column 1", 2},
		{"size not a number", "obj-id-col=1,obj-size-col=2,has-header=0", "1,1\n1,-3\n", "column 2", 2},
		{"open quote", "obj-id-col=1,has-header=0", "1\n\"2\n", "", 2},
	}
	for _, c := range cases {
		p, err := ParseCSVParams(c.params)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		_, err = drain(t, NewLibCacheSimCSV(strings.NewReader(c.input), "in.jsonl", p, 1))
		wantParseError(t, c.name, err, c.line, c.field)
	}
}

func TestOracleGeneral(t *testing.T) {
	data, err := os.ReadFile("testdata/small.oracleGeneral")
	if err != nil {
		t.Fatal(err)
	}
	got, err := drain(t, NewOracleGeneral(bytes.NewReader(data), "small", 512))
	if err != nil {
		t.Fatal(err)
	}
	// Records (time, id, size): (0, 7, 4096) (1, 8, 512) (1, 9, 0: skipped)
	// (3, 7, 4096) (4, 2^64−1, 1); ids are the same 64 bits as int64.
	want := []blocktrace.Request{single(0, 0, 7, 512), single(1, 1, 8, 512), single(2, 3, 7, 512), single(3, 4, -1, 512)}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read %+v, want %+v", got, want)
	}

	// A cut last record names its record number (5, counting the skipped
	// one); a time going back names the record and the field.
	_, err = drain(t, NewOracleGeneral(bytes.NewReader(data[:len(data)-5]), "in.jsonl", 1))
	wantParseError(t, "cut record", err, 5, "")
	var back bytes.Buffer
	WriteOracleGeneral(&back, 9, 1, 1, -1)
	WriteOracleGeneral(&back, 8, 2, 1, -1)
	_, err = drain(t, NewOracleGeneral(&back, "in.jsonl", 1))
	wantParseError(t, "time backwards", err, 2, "time")
}
