package report

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// TestStampedJSON: the stamped document decodes to the original fields plus
// "produced_by" (first), and an empty object gets the stamp alone.
func TestStampedJSON(t *testing.T) {
	st := &Stamp{Version: "v1", Command: "simulate", Settings: map[string]string{"seed": "1"}}
	for _, doc := range []any{
		map[string]any{"b": 2.5, "a": []int{1, 2}},
		struct {
			X int `json:"x"`
		}{7},
		map[string]any{},
	} {
		var buf bytes.Buffer
		if err := Emit(&Stamped{Writer: &buf, Stamp: st}, "json", doc); err != nil {
			t.Fatal(err)
		}
		var got map[string]any
		if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, buf.Bytes())
		}
		if !bytes.HasPrefix(buf.Bytes(), []byte("{\n  \"produced_by\": {")) {
			t.Errorf("stamp is not the first field:\n%s", buf.Bytes())
		}
		want := map[string]any{"version": "v1", "command": "simulate", "settings": map[string]any{"seed": "1"}}
		if !reflect.DeepEqual(got["produced_by"], want) {
			t.Errorf("produced_by %v, want %v", got["produced_by"], want)
		}
		delete(got, "produced_by")
		orig, _ := json.Marshal(doc)
		var o map[string]any
		json.Unmarshal(orig, &o)
		if !reflect.DeepEqual(got, o) {
			t.Errorf("fields %v, want %v", got, o)
		}
	}
}
