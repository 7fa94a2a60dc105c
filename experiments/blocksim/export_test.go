package blocksim

// WithLateFrom returns o whose LRU sweeps send every request of at least
// from input tokens (from > 0) to their shared Late store.
func WithLateFrom(o Options, from int64) Options {
	o.lateFrom = from
	return o
}
