package queue

import (
	"fmt"
	"math"
	"testing"
)

func TestFIFOHandWorked(t *testing.T) {
	// Arrivals 0, 0.05, 0.3, 0.3 s with services 100, 100, 50, 10 ms:
	// request 0 runs 0–0.1 s; 1 waits 50 ms, runs 0.1–0.2; 2 arrives to an
	// idle server, runs 0.3–0.35; 3 waits 50 ms, runs 0.35–0.36.
	var q FIFO
	want := [][2]float64{{0, 100}, {50, 150}, {0, 50}, {50, 60}}
	for i, r := range [][2]float64{{0, 100}, {0.05, 100}, {0.3, 50}, {0.3, 10}} {
		w, qt, err := q.Serve(r[0], r[1])
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(w-want[i][0]) > 1e-9 || math.Abs(qt-want[i][1]) > 1e-9 {
			t.Errorf("request %d: wait %g, QTTFT %g; want %v", i, w, qt, want[i])
		}
	}
	s := q.Summary()
	// QTTFTs sorted 50, 60, 100, 150: mean 90, P50 = 2nd = 60, P90 = 4th.
	// Busy 260 ms over 0–0.36 s.
	if s.Requests != 4 || math.Abs(s.Mean-90) > 1e-9 || math.Abs(s.MeanWait-25) > 1e-9 || math.Abs(s.P50-60) > 1e-9 ||
		math.Abs(s.P90-150) > 1e-9 || math.Abs(s.Utilisation-260.0/360) > 1e-9 {
		t.Errorf("summary %+v", s)
	}
	if _, _, err := q.Serve(0.1, 1); err == nil {
		t.Error("arrival before the previous one accepted")
	}
	if _, _, err := q.Serve(1, -1); err == nil {
		t.Error("negative service accepted")
	}
}

func ExampleFIFO() {
	var q FIFO
	for _, a := range []float64{0, 0.01, 0.02} { // three 30 ms prefills, 10 ms apart
		w, qt, _ := q.Serve(a, 30)
		fmt.Printf("wait %.0f ms, QTTFT %.0f ms\n", w, qt)
	}
	// Output:
	// wait 0 ms, QTTFT 30 ms
	// wait 20 ms, QTTFT 50 ms
	// wait 40 ms, QTTFT 70 ms
}

// Two servers: arrivals 0, 0, 0 s, services 100, 100, 100 ms: two start at
// once, the third waits 100 ms for the first free server.
func TestFIFOTwoServers(t *testing.T) {
	q := FIFO{Servers: 2}
	want := [][2]float64{{0, 100}, {0, 100}, {100, 200}}
	for i := range want {
		w, qt, err := q.Serve(0, 100)
		if err != nil || w != want[i][0] || qt != want[i][1] {
			t.Errorf("request %d: %g, %g, %v; want %v", i, w, qt, err, want[i])
		}
	}
	// Busy 300 ms over 2 servers × 200 ms.
	if s := q.Summary(); math.Abs(s.Utilisation-0.75) > 1e-12 {
		t.Errorf("utilisation %g, want 0.75", s.Utilisation)
	}
}
