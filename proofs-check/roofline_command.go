package proofscheck

import "fmt"

// Command implements claim.Runnable: the 'tailbound recompute measure' run
// of the tier and context length (tokens) whose r0 missed the measured
// optimum. It measures hardware, so it reproduces the setting, not the
// numbers.
func (l *liveInstance) Command() string {
	return fmt.Sprintf("tailbound recompute measure --tiers %s --tokens %d", l.Tier, l.Tokens)
}
