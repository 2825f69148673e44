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
		FollowUp: time.Hour, Free: func() { trims <- time.Now() }}
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

// TestTrimmerFollowUp: a trim the threshold caused is followed by one
// more, and only one.
func TestTrimmerFollowUp(t *testing.T) {
	trims := make(chan time.Time, 10)
	tr := &Trimmer{Threshold: 1000, Settle: time.Millisecond, FollowUp: 30 * time.Millisecond,
		Free: func() { trims <- time.Now() }}
	tr.Freed(2000)
	var at [2]time.Time
	for i := range at {
		select {
		case at[i] = <-trims:
		case <-time.After(10 * time.Second):
			t.Fatalf("trim %d did not come", i+1)
		}
	}
	if d := at[1].Sub(at[0]); d < 30*time.Millisecond {
		t.Errorf("follow-up %v after the first trim, want at least 30ms", d)
	}
	select {
	case <-trims:
		t.Fatal("a follow-up trim was followed up")
	case <-time.After(200 * time.Millisecond):
	}
}
