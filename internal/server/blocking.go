package server

import (
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Blocking commands (BLPOP, BZPOPMIN, BLMOVE, ...) wait here without holding
// a lock or spinning. A handler that finds nothing to serve calls x.block;
// dispatch then parks the client on each of its keys, in arrival order, and
// waits. When a later command commits a change to one of those keys,
// dispatch wakes the first waiting client of the key that is not already
// awake; that client re-runs its command from the start (taking locks
// again). If it is served, its own commit touches the key and wakes the
// next client in line; if the key was emptied again meanwhile, it goes back
// to waiting in its place. So clients are served in the order they blocked,
// each wake-up costs one retry, and nobody polls.

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
	// awake is set (under blockers.mu) when the waiter has been signalled
	// and has not yet decided whether it was served.
	awake bool
}

// blockers tracks every blocked client by key.
type blockers struct {
	mu     sync.Mutex
	queues map[blockKey][]*waiter
	// count is the number of blocked clients, read without the lock on
	// every commit so the common case (nobody blocked) costs one load.
	count atomic.Int64
}

func (b *blockers) add(w *waiter) {
	b.mu.Lock()
	if b.queues == nil {
		b.queues = map[blockKey][]*waiter{}
	}
	for _, k := range w.keys {
		b.queues[k] = append(b.queues[k], w)
	}
	b.mu.Unlock()
	b.count.Add(1)
}

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
	b.mu.Unlock()
	b.count.Add(-1)
}

// sleep marks a woken waiter as waiting again (it was not served).
func (b *blockers) sleep(w *waiter) {
	b.mu.Lock()
	w.awake = false
	b.mu.Unlock()
}

// signal wakes the first waiter on (db, key) that is not already awake.
func (b *blockers) signal(db int, key []byte) {
	if b.count.Load() == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, w := range b.queues[blockKey{db, string(key)}] {
		if !w.awake {
			w.awake = true
			select {
			case w.wake <- struct{}{}:
			default:
			}
			return
		}
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
