package suite

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// roundTrip writes f and reads it back under name, as merge reads a file.
func roundTrip(t *testing.T, f *File, name string) *File {
	t.Helper()
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := ReadFile(&buf, name)
	if err != nil {
		t.Fatal(err)
	}
	return back
}

// tamper returns a deep copy of f (through JSON) changed by edit.
func tamper(t *testing.T, f *File, edit func(c *File)) *File {
	t.Helper()
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	var c File
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	edit(&c)
	return &c
}

// TestMergeRefusesTamperedShards (issue 26, item 6): a shard whose records
// do not match the grid points it claims, or whose records were edited,
// is refused with one line naming the file and what is wrong; settings
// that differ are named by their flag; the genuine shards merge to the
// unsharded run's records.
func TestMergeRefusesTamperedShards(t *testing.T) {
	ctx := context.Background()
	s := Recompute()
	o := Options{Seed: 1, Small: true, Workers: 1}
	var parts []*File
	for i := 1; i <= 2; i++ {
		f, err := Run(ctx, s, o, Shard{i, 2})
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, roundTrip(t, f, "shard-"+string(rune('0'+i))+".json"))
	}
	if len(parts[0].Points) < 2 || len(parts[0].Records) < 2 {
		t.Fatalf("shard 1 has %d points, %d records: too few to tamper with", len(parts[0].Points), len(parts[0].Records))
	}
	whole, err := Run(ctx, s, o, Shard{1, 1})
	if err != nil {
		t.Fatal(err)
	}
	merged, err := Merge(parts)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := mustJSON(t, merged), mustJSON(t, whole); a != b {
		t.Errorf("merged file differs from the unsharded run's:\n%s\n%s", a, b)
	}
	first := parts[0].Points[0]
	other, err := Run(ctx, s, Options{Seed: 1, Small: true, Workers: 1, Params: map[string]string{"tokens": "4096"}}, Shard{2, 2})
	if err != nil {
		t.Fatal(err)
	}
	// lone is shard 1/2 of a two-point grid, genuine but alone.
	lone := &File{Suite: s.Name, Options: o, Shard: Shard{1, 2}, Grid: []Point{{"x": "1"}, {"x": "2"}}, Points: []int{0},
		Records: []Record{{Point: 0, Key: "a", Values: map[string]Num{"v": 1}}}}
	lone.Options.Workers = 0
	if lone.Digest, err = lone.ComputeDigest(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		files []*File
		want  string
	}{
		{"empty records", []*File{tamper(t, parts[0], func(c *File) { c.Records = nil }), parts[1]},
			`merge: shard-1.json: field "records": none for grid point 0 `},
		{"records of one point dropped", []*File{tamper(t, parts[0], func(c *File) {
			var keep []Record
			for _, r := range c.Records {
				if r.Point != first {
					keep = append(keep, r)
				}
			}
			c.Records = keep
		}), parts[1]}, `merge: shard-1.json: field "records": none for grid point 0 `},
		{"duplicated record", []*File{tamper(t, parts[0], func(c *File) { c.Records = append(c.Records, c.Records[0]) }), parts[1]},
			`merge: shard-1.json: field "digest": does not match the file's records, grid and settings (edited or damaged after the run; re-run shard 1/2)`},
		{"unknown key", []*File{tamper(t, parts[0], func(c *File) { c.Records[0].Key = "no-such-policy" }), parts[1]},
			`merge: shard-1.json: field "digest": does not match`},
		{"changed value", []*File{tamper(t, parts[0], func(c *File) {
			for k := range c.Records[0].Values {
				c.Records[0].Values[k]++
				break
			}
		}), parts[1]}, `merge: shard-1.json: field "digest": does not match`},
		{"record of a point not listed", []*File{tamper(t, parts[0], func(c *File) { c.Records[0].Point = parts[1].Points[0] }), parts[1]},
			`merge: shard-1.json: record 1 (key "`},
		{"point listed twice", []*File{tamper(t, parts[0], func(c *File) { c.Points = append(c.Points, first) }), parts[1]},
			`merge: shard-1.json: field "points": grid point 0 listed twice`},
		{"point of another shard", []*File{tamper(t, parts[0], func(c *File) { c.Points = append(c.Points, parts[1].Points[0]) }), parts[1]},
			`merge: shard-1.json: field "points": grid point 1 is not in shard 1/2`},
		{"no digest", []*File{tamper(t, parts[0], func(c *File) { c.Digest = "" }), parts[1]},
			`merge: shard-1.json: field "digest": missing`},
		{"missing shard", []*File{parts[0]}, "merge: grid points " + joinPoints(parts[1].Points) + " are in no file (a shard is missing)"},
		{"missing point", []*File{lone}, "merge: grid point 1 is in no file (a shard is missing)"},
		{"other settings", []*File{parts[0], other},
			`merge: shard-1.json and file 2 were run with different settings: --tokens: "`},
	} {
		// Tampered copies keep their names only through a file round trip.
		for i, f := range c.files {
			if f.name == "" && f != other && f != lone {
				c.files[i] = roundTrip(t, f, "shard-"+string(rune('1'+i))+".json")
			}
		}
		_, err := Merge(c.files)
		if err == nil {
			t.Errorf("%s: merged", c.name)
			continue
		}
		if msg := err.Error(); !strings.HasPrefix(msg, c.want) || strings.Contains(msg, "\n") || len(msg) > 240 {
			t.Errorf("%s: %q, want one line (≤ 240 characters) starting %q", c.name, msg, c.want)
		}
	}
}

func mustJSON(t *testing.T, f *File) string {
	t.Helper()
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func joinPoints(p []int) string {
	var s []string
	for _, i := range p {
		s = append(s, strconv.Itoa(i))
	}
	return strings.Join(s, ",")
}

// TestReadFileRefusesUnknownFields: a result file with a field that
// tables --shard never writes (here in a record) is refused by name, not
// merged with the field dropped.
func TestReadFileRefusesUnknownFields(t *testing.T) {
	f, err := Run(context.Background(), Recompute(), Options{Seed: 1, Small: true, Workers: 1}, Shard{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(bytes.NewReader(buf.Bytes()), "s1.json"); err != nil {
		t.Fatalf("the file as written: %v", err)
	}
	tampered := bytes.Replace(buf.Bytes(), []byte(`"values": {`), []byte(`"nosuchkey": 1, "values": {`), 1)
	if bytes.Equal(tampered, buf.Bytes()) {
		t.Fatal("no record to tamper with")
	}
	_, err = ReadFile(bytes.NewReader(tampered), "s1.json")
	if err == nil || !strings.Contains(err.Error(), `s1.json: json: unknown field "nosuchkey"`) {
		t.Errorf("tampered file: %v, want the unknown field named", err)
	}
}
