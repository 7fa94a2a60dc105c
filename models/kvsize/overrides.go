package kvsize

import (
	"fmt"
	"os"
	"strings"

	"github.com/tailbound/tailbound/internal/option"
)

// Overrides choose a model configuration as the command line does: a
// preset or a JSON file, then any architecture field replaced. Each field
// holds the value of the flag named in its comment, in that flag's units.
type Overrides struct {
	// Name is the preset (--model).
	Name string
	// JSON is the path of a configuration file (--model-json); when not
	// empty it is read instead of the preset.
	JSON string
	// Layers, KVHeads, HeadDim (values) and Heads replace the fields of
	// the same name (--model-layers, --kv-heads, --head-dim, --heads).
	Layers, KVHeads, HeadDim, Heads int
	// BytesPerValue replaces the cache's bytes per value (--bytes-per-value).
	BytesPerValue float64
	// Params replaces the parameter count (--params).
	Params float64
}

// Resolve returns the configuration o chooses. changed reports whether a
// flag was given (pflag.FlagSet.Changed; nil: none was): only a given
// override replaces a field, so that an override of 0 is refused rather
// than ignored. Errors name the flag, except the final validation's, which
// names the model.
func (o Overrides) Resolve(changed func(flag string) bool) (Config, error) {
	c, err := o.base()
	if err != nil {
		return c, err
	}
	given := func(flag string) bool { return changed != nil && changed(flag) }
	for _, f := range []struct {
		flag string
		dst  *int
		v    int
	}{{"model-layers", &c.Layers, o.Layers}, {"kv-heads", &c.KVHeads, o.KVHeads}, {"head-dim", &c.HeadDim, o.HeadDim}, {"heads", &c.Heads, o.Heads}} {
		if given(f.flag) {
			*f.dst = f.v
		}
	}
	if given("bytes-per-value") {
		c.BytesPerValue = o.BytesPerValue
	}
	if given("params") {
		c.Params = o.Params
	}
	if err := c.Validate(); err != nil {
		return c, fmt.Errorf("model %s: %s", c.Name, strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	return c, nil
}

// base returns the configuration before overrides: the JSON file's when
// one is named, else the preset's.
func (o Overrides) base() (Config, error) {
	if o.JSON == "" {
		c, err := Preset(o.Name)
		return c, option.Wrap("model", err)
	}
	f, err := os.Open(o.JSON)
	if err != nil {
		return Config{}, option.Wrap("model-json", err)
	}
	defer f.Close()
	return ReadJSON(f, o.JSON)
}
