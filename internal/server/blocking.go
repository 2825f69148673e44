package server

import (
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairndb/cairn/internal/resp"
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
func (s *Server) waitBlocked(c *client, w *waiter, in *inputWatch, deadline time.Time) (retry bool) {
	var timer <-chan time.Time
	if !deadline.IsZero() {
		t := time.NewTimer(time.Until(deadline))
		defer t.Stop()
		timer = t.C
	}
	select {
	case <-w.wake:
		// A hang-up seen meanwhile wins: no element may go to a client
		// that cannot take it.
		return !in.ended(s)
	case <-timer:
		return false
	case <-c.gone:
		return false
	case withError := <-c.unblock:
		c.unblockErr = withError
		return false
	case err := <-in.done:
		in.end(s, err)
		return false
	}
}

// inputWatch reads a blocked client's connection while its command waits,
// as Redis goes on reading a blocked client's socket into its query buffer:
// a client that hangs up is dropped at once, and taken out of the queues of
// its keys before anything is handed to it, even when it sent more requests
// before it went (a peek at the socket would find those, not the end).
// What a live client sends meanwhile is kept and runs, in order, once the
// blocking command has its reply; it counts against
// client-query-buffer-limit, like a request being read.
type inputWatch struct {
	c *client
	// done receives the goroutine's last read error (or
	// errBlockedQueryBuf), once; received is set when it was taken.
	done     chan error
	received bool
	// buf is the input read, the goroutine's until done is received.
	buf []byte
	// held is what the client's input buffer held when the wait began;
	// limit is client-query-buffer-limit.
	held, limit int64
}

// errBlockedQueryBuf ends the watch of a client that sent more than
// client-query-buffer-limit while it was blocked.
var errBlockedQueryBuf = errors.New("query buffer limit reached while blocked")

// watchInputFrom is the smallest read of a watch: most blocked clients send
// nothing, or a few small requests.
const watchInputFrom = 512

// watchInput starts reading c's connection for the time of a blocking wait.
// The master's link has no input of its own to watch: its watch never
// ends.
func (c *client) watchInput() *inputWatch {
	in := &inputWatch{c: c, done: make(chan error, 1)}
	if c.srv.isMasterClient(c) {
		return in
	}
	in.held = int64(c.r.Buffered()) + int64(len(c.pending))
	in.limit = c.r.MaxQueryBuf
	if in.limit <= 0 {
		in.limit = resp.DefaultMaxQueryBuf
	}
	go in.run()
	return in
}

func (in *inputWatch) run() {
	c := in.c
	for {
		if len(in.buf) == cap(in.buf) {
			in.buf = slices.Grow(in.buf, max(cap(in.buf), watchInputFrom))
		}
		n, err := c.nc.Read(in.buf[len(in.buf):cap(in.buf)])
		in.buf = in.buf[:len(in.buf)+n]
		if n > 0 {
			c.srv.stats.reads.Add(1)
			c.srv.stats.netIn.Add(int64(n))
			c.lastCmdAt.Store(time.Now().UnixMilli())
			// CLIENT LIST's qbuf shows what waits behind the blocking
			// command, as Redis's query buffer does.
			storeChanged(&c.qbuf, int(in.held)+len(in.buf))
			if err == nil && in.held+int64(len(in.buf)) > in.limit {
				err = errBlockedQueryBuf
			}
		}
		if err != nil {
			in.done <- err
			return
		}
	}
}

// end closes the connection of a client whose input ended (or outgrew its
// limit) while it was blocked, once its watch reported err.
func (in *inputWatch) end(s *Server, err error) {
	in.received = true
	if errors.Is(err, errBlockedQueryBuf) {
		// The input read while blocked is the query buffer Redis
		// describes.
		storeChanged(&in.c.qbuf, len(in.buf))
		s.queryBufLimitReached(in.c, in.buf[:min(len(in.buf), 64)])
	}
	in.c.kill()
}

// ended reports, without waiting, whether the watch has ended, and then
// closes the connection.
func (in *inputWatch) ended(s *Server) bool {
	if in.received {
		return true
	}
	select {
	case err := <-in.done:
		in.end(s, err)
		return true
	default:
		return false
	}
}

// stop ends the watch of a client whose wait is over and keeps what it
// read as the client's next input. The read in progress is interrupted by
// a deadline in the past; the connection then has none, as a blocked
// client's has not (the next read for a request arms the idle timeout).
func (in *inputWatch) stop() {
	c := in.c
	if c.srv.isMasterClient(c) {
		return
	}
	if !in.received {
		_ = c.nc.SetReadDeadline(time.Unix(1, 0))
		<-in.done
		in.received = true
		_ = c.nc.SetReadDeadline(time.Time{})
	}
	// An error other than the deadline (the client hung up as it was
	// served) comes again from the connection's next read, after this.
	switch {
	case len(in.buf) == 0 || c.killed.Load():
	case len(c.pending) == 0:
		c.pending = in.buf
	default:
		c.pending = append(c.pending, in.buf...)
	}
	in.buf = nil
}
