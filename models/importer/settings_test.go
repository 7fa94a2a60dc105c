package importer

import (
	"reflect"
	"testing"
)

func TestSettingsOptions(t *testing.T) {
	for _, c := range []struct {
		s    Settings
		want Options
		err  string
	}{
		{Settings{Chain: "ceil", MinSharedBlocks: 1}, Options{Chain: ChainCeil, MinSharedBlocks: 1}, ""},
		{Settings{Chain: "floor", ExtraTypes: []string{"audio"}}, Options{Chain: ChainFloor, ExtraTypes: []string{"audio"}}, ""},
		{Settings{Chain: "any", MinSharedBlocks: 3}, Options{Chain: ChainAny, MinSharedBlocks: 3}, ""},
		{Settings{Chain: "round"}, Options{}, `flag --chain-length: chain rule "round": want ceil|floor|any`},
		{Settings{Chain: "ceil", MinSharedBlocks: -1}, Options{}, "flag --min-shared-blocks: -1 must be ≥ 0 blocks"},
	} {
		got, err := c.s.Options()
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%+v: error %v, want %q", c.s, err, c.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%+v: %+v, %v; want %+v", c.s, got, err, c.want)
		}
	}
}
