// Package prefetch asks the processor to start loading memory that the
// program will read soon, without waiting for it: a replay that knows the
// table entries of the requests it serves next prefetches them a few
// requests ahead, so that the loads, which miss the processor's caches on
// large tables, overlap instead of stalling one request after another.
package prefetch
