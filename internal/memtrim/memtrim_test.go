package memtrim

import (
	"testing"
	"time"
)

// TestTrimmer: nothing is trimmed below the threshold; a burst that
// crosses it is trimmed once, after it settles; what is dropped later
// waits for the next crossing.
func TestTrimmer(t *testing.T) {
	trims := make(chan time.Time, 10)
	tr := &Trimmer{Threshold: 1000, Settle: 20 * time.Millisecond, MinInterval: 50 * time.Millisecond,
		Free: func() { trims <- time.Now() }}
	tr.Freed(999)
	tr.Freed(0)
	tr.Freed(-5)
	select {
	case <-trims:
		t.Fatal("trimmed below the threshold")
	case <-time.After(100 * time.Millisecond):
	}
	start := time.Now()
	for range 100 {
		tr.Freed(100) // one burst, far past the threshold
	}
	var first time.Time
	select {
	case first = <-trims:
	case <-time.After(10 * time.Second):
		t.Fatal("no trim after the threshold was crossed")
	}
	if first.Sub(start) < 20*time.Millisecond {
		t.Errorf("trimmed %v after the burst, want after the settling delay", first.Sub(start))
	}
	select {
	case <-trims:
		t.Fatal("one burst trimmed twice")
	case <-time.After(100 * time.Millisecond):
	}
	if p := tr.Pending(); p != 0 {
		t.Errorf("pending %d after the trim, want 0", p)
	}
	// The next burst waits for MinInterval after the first trim.
	tr.Freed(5000)
	var second time.Time
	select {
	case second = <-trims:
	case <-time.After(10 * time.Second):
		t.Fatal("no second trim")
	}
	if second.Sub(first) < 50*time.Millisecond {
		t.Errorf("trims %v apart, want at least MinInterval", second.Sub(first))
	}
}
