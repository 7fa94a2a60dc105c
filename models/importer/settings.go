package importer

import "github.com/tailbound/tailbound/internal/option"

// Settings are the importer's options as a command line gives them (flags
// --chain-length, --min-shared-blocks and --extra-types of import and
// characterize).
type Settings struct {
	// Chain is the chain-length rule: ceil, floor or any (ParseChainRule).
	Chain string
	// MinSharedBlocks is the Mooncake linking guard k, blocks (≥ 0).
	MinSharedBlocks int
	// ExtraTypes are Bailian request types accepted besides text, search,
	// image and file.
	ExtraTypes []string
}

// Options returns the importer options, or an *option.Error naming the
// flag of a setting that cannot be used.
func (s Settings) Options() (Options, error) {
	rule, err := ParseChainRule(s.Chain)
	if err != nil {
		return Options{}, option.Wrap("chain-length", err)
	}
	if s.MinSharedBlocks < 0 {
		return Options{}, option.Errorf("min-shared-blocks", "%d must be ≥ 0 blocks", s.MinSharedBlocks)
	}
	return Options{Chain: rule, MinSharedBlocks: s.MinSharedBlocks, ExtraTypes: s.ExtraTypes}, nil
}
