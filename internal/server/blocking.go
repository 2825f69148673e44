package server

import (
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Blocking commands (BLPOP, BZPOPMIN, BLMOVE, ...) wait here without holding
// a lock or spinning. A handler that finds nothing to serve calls x.block;
// dispatch then queues the client on each of its keys, in arrival order,
// runs the command once more (a change committed before the client was
// queued must not be missed) and waits. When a later command commits a
// change to one of those keys, dispatch tells the first client of the
// key's queue: it wakes it, or, if that client is running already, marks
// it to run again. The client re-runs its command from the start (taking
// locks again). If it is served, it leaves the queue and passes the change
// on to the next in line, whose run its own commit may have made useful;
// if the key was emptied again meanwhile, it goes back to waiting in its
// place. So clients are served in the order they blocked, each wake-up
// costs one run, and nobody polls.

// blockKey names a key in a logical database.
type blockKey struct {
	db  int
	key string
}

// waiter is one blocked client.
type waiter struct {
	cl   *client
	keys []blockKey
	wake chan struct{} // buffered 1
	// awake is set (under blockers.mu) while the waiter is not waiting on
	// wake: queued but not yet parked, or signalled and not yet decided
	// whether it was served.
	awake bool
	// changed is set (under blockers.mu) when one of its keys changed
	// while it was awake: its run may have looked before the change, so it
	// must run again before it waits.
	changed bool
	// timed is set when the wait has a timeout (INFO's
	// clients_in_timeout_table).
	timed bool
}

// blockers tracks every blocked client by key.
type blockers struct {
	mu     sync.Mutex
	queues map[blockKey][]*waiter
	// count is the number of blocked clients, read without the lock on
	// every commit so the common case (nobody blocked) costs one load.
	count atomic.Int64
}

// keyCounts returns how many keys blocked clients wait on (INFO's
// total_blocking_keys) and, of those, how many are waited on by a command
// that is served even when the key is deleted (total_blocking_keys_on_nokey:
// none in Cairn, whose blocking commands all wait for a value).
func (b *blockers) keyCounts() (keys, onNoKey int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return int64(len(b.queues)), 0
}

// withTimeout counts the blocked clients whose wait has a timeout.
func (b *blockers) withTimeout() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	seen := map[*waiter]bool{}
	for _, q := range b.queues {
		for _, w := range q {
			if w.timed {
				seen[w] = true
			}
		}
	}
	return int64(len(seen))
}

// add queues a waiter, awake: the caller runs its command once more before
// it waits, so a change committed before the waiter was queued is not
// missed.
func (b *blockers) add(w *waiter) {
	b.mu.Lock()
	w.awake = true
	if b.queues == nil {
		b.queues = map[blockKey][]*waiter{}
	}
	for _, k := range w.keys {
		b.queues[k] = append(b.queues[k], w)
	}
	b.mu.Unlock()
	b.count.Add(1)
}

// remove takes a waiter out of its queues. One that leaves awake passes a
// change on to the next waiter of each of its keys: it may have been told
// of a change it never ran for (it timed out or hung up meanwhile), and
// when it was served, its own commit is the change that must reach the
// next in line. A spurious pass costs the next waiter one run.
func (b *blockers) remove(w *waiter) {
	b.mu.Lock()
	for _, k := range w.keys {
		q := b.queues[k]
		for i, o := range q {
			if o == w {
				q = append(q[:i:i], q[i+1:]...)
				break
			}
		}
		if len(q) == 0 {
			delete(b.queues, k)
		} else {
			b.queues[k] = q
		}
	}
	if w.awake {
		for _, k := range w.keys {
			b.signalLocked(k)
		}
	}
	b.mu.Unlock()
	b.count.Add(-1)
}

// sleep marks an awake waiter that was not served as waiting again. It
// reports false, leaving the waiter awake, when one of its keys changed
// meanwhile: the caller must run the command again instead of waiting.
func (b *blockers) sleep(w *waiter) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if w.changed {
		w.changed = false
		return false
	}
	w.awake = false
	return true
}

// signal tells the first waiter on (db, key) that the key changed.
func (b *blockers) signal(db int, key []byte) {
	if b.count.Load() == 0 {
		return
	}
	b.mu.Lock()
	b.signalLocked(blockKey{db, string(key)})
	b.mu.Unlock()
}

// signalDBs tells the first waiter on every key of the given databases
// that its key may have changed (FLUSHDB, FLUSHALL, SWAPDB).
func (b *blockers) signalDBs(dbs ...int) {
	if b.count.Load() == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for k := range b.queues {
		if slices.Contains(dbs, k.db) {
			b.signalLocked(k)
		}
	}
}

// signalLocked wakes the first waiter of k, or marks it changed when it is
// already awake. Only the first is told: it runs before anyone behind it,
// and when it leaves (served or not) remove passes the change on, so
// clients are served in the order they blocked.
func (b *blockers) signalLocked(k blockKey) {
	q := b.queues[k]
	if len(q) == 0 {
		return
	}
	w := q[0]
	if w.awake {
		w.changed = true
		return
	}
	w.awake = true
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// blockRequest is what a handler asks for when it found nothing to serve.
type blockRequest struct {
	keys [][]byte
	// deadline is zero to wait forever.
	deadline time.Time
	// timeout writes the command's reply for a wait that timed out.
	timeout func(x *ctx)
}

// block asks dispatch to park the client on keys until one changes or the
// timeout (0 = forever) passes. The handler writes no reply. Inside a
// transaction a blocking command does not wait: it times out at once, as in
// Redis.
func (x *ctx) block(keys [][]byte, timeout time.Duration, onTimeout func(x *ctx)) {
	req := &blockRequest{keys: keys, timeout: onTimeout}
	if timeout > 0 {
		req.deadline = time.Now().Add(timeout)
	}
	x.blocked = req
}

// waitBlocked parks the client until it is woken, times out, or goes away.
// It returns true when the command should be run again.
func (s *Server) waitBlocked(c *client, w *waiter, deadline time.Time) (retry bool) {
	var timer <-chan time.Time
	if !deadline.IsZero() {
		t := time.NewTimer(time.Until(deadline))
		defer t.Stop()
		timer = t.C
	}
	// A blocked client sends nothing, so its connection is checked now and
	// then for a hang-up, without reading (and consuming) anything.
	probe := time.NewTicker(100 * time.Millisecond)
	defer probe.Stop()
	for {
		select {
		case <-w.wake:
			return true
		case <-timer:
			return false
		case <-c.gone:
			return false
		case withError := <-c.unblock:
			c.unblockErr = withError
			return false
		case <-probe.C:
			if c.hungUp() {
				c.kill()
				return false
			}
		}
	}
}

// hungUp reports whether the peer closed the connection, by peeking at the
// socket without consuming anything.
func (c *client) hungUp() bool {
	sc, ok := c.nc.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return true
	}
	closed := false
	var buf [1]byte
	err = rc.Read(func(fd uintptr) bool {
		n, _, err := syscall.Recvfrom(int(fd), buf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		closed = n == 0 && err == nil
		return true
	})
	return closed || err != nil
}
