// Package memtrim hands memory back to the operating system soon after a
// burst of allocation has become garbage: a big script, a big MULTI queue,
// a storm of connections closing.
//
// Go's heap keeps what it has grown to: garbage is collected only when the
// heap next reaches its target (twice what was live, so a heap that held a
// gigabyte waits for another gigabyte, or for the two-minute forced
// collection), and the freed pages are returned to the system gradually.
// A server that has just dropped a gigabyte would keep it resident for
// minutes. The parts of the server that drop much at once say so (Freed);
// once enough has been dropped, a Trimmer runs a collection and returns the
// free pages (debug.FreeOSMemory), after a short settling delay so that a
// burst is trimmed once, and never more often than MinInterval, since each
// trim costs a full collection; one more trim follows a little later, for
// what the burst's owners drop after they have reported it.
//
// It never runs on a caller's goroutine: Freed only counts.
package memtrim

import (
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of a Trimmer's zero fields.
const (
	DefaultThreshold   = 64 << 20
	DefaultSettle      = 100 * time.Millisecond
	DefaultMinInterval = 2 * time.Second
	DefaultFollowUp    = 10 * time.Second
)

// Trimmer returns dropped memory to the system. The zero value works; its
// fields must not change after first use.
type Trimmer struct {
	// Threshold is how many bytes must be dropped before a trim.
	Threshold int64
	// Settle is how long a trim waits once the threshold is reached, for
	// the rest of a burst to be dropped too.
	Settle time.Duration
	// MinInterval is the shortest time between two trims.
	MinInterval time.Duration
	// FollowUp is when a second trim follows one that the threshold
	// caused: part of what a burst leaves is dropped a little later
	// (replies still being sent, memtables being flushed) and would
	// otherwise wait for the next collection.
	FollowUp time.Duration
	// Free trims; nil is debug.FreeOSMemory. Tests replace it.
	Free func()

	pending   atomic.Int64 // bytes dropped since the last trim began
	scheduled atomic.Bool  // a trim is waiting to run
	mu        sync.Mutex
	last      time.Time // when the last trim ended
}

// Freed reports that about n bytes have just become garbage.
func (t *Trimmer) Freed(n int64) {
	if n <= 0 {
		return
	}
	t.pending.Add(n)
	t.maybeSchedule()
}

// Pending reports the bytes dropped since the last trim began.
func (t *Trimmer) Pending() int64 { return t.pending.Load() }

func (t *Trimmer) maybeSchedule() {
	if t.pending.Load() < or(t.Threshold, DefaultThreshold) || !t.scheduled.CompareAndSwap(false, true) {
		return
	}
	t.mu.Lock()
	delay := max(or(t.Settle, DefaultSettle), time.Until(t.last.Add(or(t.MinInterval, DefaultMinInterval))))
	t.mu.Unlock()
	time.AfterFunc(delay, func() { t.trim(true) })
}

// trim returns the free memory; a trim the threshold caused (first) is
// followed by another after FollowUp, unless one ran in between.
func (t *Trimmer) trim(first bool) {
	t.pending.Store(0)
	if t.Free != nil {
		t.Free()
	} else {
		debug.FreeOSMemory()
	}
	t.mu.Lock()
	t.last = time.Now()
	end := t.last
	t.mu.Unlock()
	t.scheduled.Store(false)
	if first {
		time.AfterFunc(or(t.FollowUp, DefaultFollowUp), func() {
			t.mu.Lock()
			again := t.last.Equal(end)
			t.mu.Unlock()
			if again && t.scheduled.CompareAndSwap(false, true) {
				t.trim(false)
			}
		})
	}
	// What was dropped while this trim ran waits for the next.
	t.maybeSchedule()
}

func or[T int64 | time.Duration](v, def T) T {
	if v > 0 {
		return v
	}
	return def
}
