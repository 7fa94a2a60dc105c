package namelist

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"testing"
)

type entry struct{ name, doc string }

func entryName(e entry) string { return e.name }

var all = []entry{{"lru", "a"}, {"fifo", "b"}, {"tlru", "c"}}

func TestSelect(t *testing.T) {
	cases := []struct {
		list    string
		want    []string
		wantErr string
	}{
		{"lru", []string{"lru"}, ""},
		{"tlru, lru", []string{"tlru", "lru"}, ""},
		{"fifo,,lru,", []string{"fifo", "lru"}, ""},
		{"lru,lru", []string{"lru", "lru"}, ""},
		{"lru,nosuch", nil, `unknown policy "nosuch" (known: lru, fifo, tlru)`},
		{"", nil, "no policy named (known: lru, fifo, tlru)"},
		{" , ", nil, "no policy named (known: lru, fifo, tlru)"},
	}
	for _, c := range cases {
		got, err := Select(c.list, all, entryName, "policy")
		if c.wantErr != "" {
			if err == nil || err.Error() != c.wantErr {
				t.Errorf("%q: error %v, want %q", c.list, err, c.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.list, err)
			continue
		}
		if names := Names(got, entryName); !reflect.DeepEqual(names, c.want) {
			t.Errorf("%q: %v, want %v", c.list, names, c.want)
		}
	}
}

func ExampleSelect() {
	got, err := Select("tlru,lru", all, entryName, "policy")
	fmt.Println(Names(got, entryName), err)
	_, err = Select("lfu", all, entryName, "policy")
	fmt.Println(err)
	// Output:
	// [tlru lru] <nil>
	// unknown policy "lfu" (known: lru, fifo, tlru)
}

func TestParseEach(t *testing.T) {
	got, err := ParseEach(" 1, 2 ,3", strconv.Atoi)
	if err != nil || !slices.Equal(got, []int{1, 2, 3}) {
		t.Errorf("got %v, %v", got, err)
	}
	if _, err := ParseEach("1,x", strconv.Atoi); err == nil {
		t.Error("a bad item: no error")
	}
}
