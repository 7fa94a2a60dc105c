// Package queue models the waiting the workload study's queued TTFT
// (QTTFT, seed 000 §4.3) adds to a request's prefill: n identical servers
// (serving instances, 1 by default) that each prefill one request at a
// time, first come first served.
//
// The model: request i arrives at a_i seconds and needs s_i ms of prefill
// (its TTFT without queueing, from the latency model: β + α·uncached
// tokens). It starts at S_i = max(a_i, earliest time a server is free)
// (with one server, the previous request's finish F_{i−1}) and finishes at
// F_i = S_i + s_i on that server; its queued TTFT is F_i − a_i = wait +
// service, its wait S_i − a_i. The queue is stable only while the arrival
// rate times the mean service is below n. Decoding is not modelled (it overlaps the next prefills in a
// batching server), nor batching of prefills; a real server that batches
// waits less, so QTTFT here is an upper-bound style stress measure whose
// differences between policies come from their uncached tokens.
package queue

import (
	"fmt"
	"math"
	"sort"
)

// FIFO is the single-server queue's state.
type FIFO struct {
	// Servers is the number of servers (0 means 1).
	Servers int
	frees   []float64 // times the servers become free, s
	free    float64   // latest finish, s
	last    float64
	started bool
	busyMs  float64
	first   float64
	// Waits and QTTFTs are the waits and queued TTFTs of the requests
	// served so far, ms, in order.
	Waits, QTTFTs []float64
}

// Serve queues a request arriving at arrival seconds (non-decreasing) that
// needs serviceMs ms (≥ 0) and returns its wait and queued TTFT, ms.
func (q *FIFO) Serve(arrival, serviceMs float64) (waitMs, qttftMs float64, err error) {
	if math.IsNaN(arrival) || math.IsNaN(serviceMs) || serviceMs < 0 {
		return 0, 0, fmt.Errorf("queue: arrival %g s, service %g ms: want a time and a service ≥ 0", arrival, serviceMs)
	}
	if q.started && arrival < q.last {
		return 0, 0, fmt.Errorf("queue: arrival %g s before the previous arrival %g s", arrival, q.last)
	}
	if !q.started {
		q.started, q.first, q.free = true, arrival, arrival
		q.frees = make([]float64, max(q.Servers, 1))
		for i := range q.frees {
			q.frees[i] = arrival
		}
	}
	q.last = arrival
	k := 0
	for i, f := range q.frees {
		if f < q.frees[k] {
			k = i
		}
	}
	start := math.Max(arrival, q.frees[k])
	q.frees[k] = start + serviceMs/1000
	q.free = math.Max(q.free, q.frees[k])
	q.busyMs += serviceMs
	waitMs = (start - arrival) * 1000
	qttftMs = waitMs + serviceMs
	q.Waits = append(q.Waits, waitMs)
	q.QTTFTs = append(q.QTTFTs, qttftMs)
	return waitMs, qttftMs, nil
}

// Summary is a queue's outcome, ms.
type Summary struct {
	Requests int64   `json:"requests"`
	MeanWait float64 `json:"mean_wait_ms"`
	Mean     float64 `json:"mean_ms"`
	P50      float64 `json:"p50_ms"`
	P90      float64 `json:"p90_ms"`
	P95      float64 `json:"p95_ms"`
	P99      float64 `json:"p99_ms"`
	// Utilisation is the busy time over servers × the time from the first
	// arrival to the last finish (1 when no server ever idles).
	Utilisation float64 `json:"utilisation"`
}

// Summary summarises the queued TTFTs: percentiles are the smallest value
// whose empirical CDF reaches p (nearest rank).
func (q *FIFO) Summary() Summary {
	n := len(q.QTTFTs)
	if n == 0 {
		return Summary{}
	}
	s := Summary{Requests: int64(n)}
	x := append([]float64(nil), q.QTTFTs...)
	sort.Float64s(x)
	for i := range x {
		s.Mean += x[i] / float64(n)
		s.MeanWait += q.Waits[i] / float64(n)
	}
	rank := func(p float64) float64 { return x[max(0, int(math.Ceil(p*float64(n)))-1)] }
	s.P50, s.P90, s.P95, s.P99 = rank(0.5), rank(0.9), rank(0.95), rank(0.99)
	if span := (q.free - q.first) * 1000; span > 0 {
		s.Utilisation = q.busyMs / span / float64(len(q.frees))
	} else {
		s.Utilisation = 1
	}
	return s
}
