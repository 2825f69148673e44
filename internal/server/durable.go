package server

import (
	"errors"
	"sync"
	"syscall"
	"time"
)

// durableWriter sends the replies that must wait for a WAL sync under
// appendfsync always, so that the clients' goroutines need not wait for it.
//
// Without it every client whose reply follows a deferred commit calls
// SyncWAL itself: it parks until the sync that covers its commit ends, is
// woken, writes its reply and parks again in Read for the next request.
// With it, the client copies its reply here and goes straight back to
// Read; one goroutine syncs once for every reply queued since its last
// sync and writes them all, back to back — Redis's order of work, which
// fsyncs its AOF once per event-loop pass and then writes the pass's
// replies. A client goroutine is woken once per request instead of twice,
// and the client side receives the replies in bursts. Measured on 2 cores
// with 50 clients and appendfsync always, SET -P 1 over twelve alternating
// rounds: 26.4–37.6k ops/s (median 30.1k) against 22.8–30.5k (26.9k), and
// a median 33 µs of CPU per command against 37.75; -P 16 the same within
// the noise (bench/RESULTS.md, History, session 8). A second goroutine
// that sent one batch while the next synced was slower (26.7–32.3k).
//
// A client's replies keep their order: while any of its replies is queued
// here, its later replies are queued too (small ones) or wait until the
// queue has written them (large ones, see syncingWriter). The writer never
// blocks on one client's socket: a reply the socket cannot take at once
// goes, with that client's later replies, to a goroutine of the client's
// own (drainStalled), so a client that stops reading delays nobody else.
type durableWriter struct {
	s         *Server
	once      sync.Once
	closeOnce sync.Once
	wake      chan struct{}
	stop      chan struct{}
	done      chan struct{}

	mu sync.Mutex
	// queue holds the replies waiting for the next sync; spare is the
	// array the writer emptied last, whose buffers the next replies reuse.
	queue, spare []queuedReply
}

// queuedReply is one client's reply bytes waiting for a sync.
type queuedReply struct {
	c   *client
	buf []byte
}

// maxQueuedReply is the largest write queued: a larger one (a reply
// bigger than this, or the writer's 64 KiB chunks of one) waits for the
// client's queued replies and then for its own sync, and goes out from the
// client's goroutine.
const maxQueuedReply = 16 << 10

// maxRepliesQueued bounds one client's replies in the durable writer (at
// most 1 MiB with maxQueuedReply): past it, the client's goroutine waits
// for them before it queues another, and so stops reading requests, as it
// would if it wrote to a full socket itself.
const maxRepliesQueued = 64

// keepQueuedBuf bounds the buffers kept for reuse, keepQueued the length
// of the array kept, and keepStall a stalled client's buffer once drained.
const (
	keepQueuedBuf = 4 << 10
	keepQueued    = 1024
	keepStall     = 64 << 10
)

// send copies p, a reply of c that must not go out before a WAL sync,
// for the writer to send after its next sync.
func (d *durableWriter) send(c *client, p []byte) {
	d.once.Do(d.start)
	c.queuedReplies.Add(1)
	d.mu.Lock()
	n := len(d.queue)
	if n < cap(d.queue) {
		d.queue = d.queue[:n+1]
		d.queue[n].c = c
		d.queue[n].buf = append(d.queue[n].buf[:0], p...)
	} else {
		d.queue = append(d.queue, queuedReply{c: c, buf: append([]byte(nil), p...)})
	}
	d.mu.Unlock()
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

func (d *durableWriter) start() {
	d.wake = make(chan struct{}, 1)
	d.stop = make(chan struct{})
	d.done = make(chan struct{})
	go d.run()
}

// close stops the writer once every client has gone (their goroutines
// wait for their queued replies before they end, so the queue is empty).
func (d *durableWriter) close() {
	d.closeOnce.Do(func() {
		d.once.Do(func() {})
		if d.stop != nil {
			close(d.stop)
			<-d.done
		}
	})
}

func (d *durableWriter) run() {
	defer close(d.done)
	for {
		select {
		case <-d.wake:
		case <-d.stop:
			return
		}
		d.mu.Lock()
		batch := d.queue
		if len(batch) == 0 {
			d.mu.Unlock()
			continue
		}
		d.queue = d.spare[:0]
		d.mu.Unlock()
		// The sync covers every commit made before its call, so every
		// commit whose reply is in batch: each was made before its reply
		// was queued.
		syncStart := time.Now()
		err := d.s.st.SyncWAL()
		d.s.noteLatency("aof-fsync-always", time.Since(syncStart)) // diag.go
		for i := range batch {
			q := &batch[i]
			if err != nil {
				// As without the writer: the replies are not sent, and
				// the connection closes so that the client cannot take an
				// unsynced write for an acknowledged one.
				q.c.kill()
				q.c.repliesWritten(1)
			} else {
				q.c.sendQueued(q.buf)
			}
			q.c = nil
			if cap(q.buf) > keepQueuedBuf {
				q.buf = nil
			}
		}
		if cap(batch) > keepQueued {
			batch = nil
		}
		d.spare = batch
	}
}

// sendQueued writes one reply from the durable writer without blocking:
// what the socket does not take at once goes to drainStalled, and so does
// everything after it while drainStalled has bytes left.
func (c *client) sendQueued(buf []byte) {
	c.stallMu.Lock()
	if c.stalled {
		c.stall = append(c.stall, buf...)
		c.stallReplies++
		c.stallMu.Unlock()
		return
	}
	n, err := c.writeNow(buf)
	if err != nil {
		c.stallMu.Unlock()
		// The connection is gone or broken; its goroutine finds out when
		// it next reads.
		c.kill()
		c.repliesWritten(1)
		return
	}
	if n == len(buf) {
		c.stallMu.Unlock()
		c.repliesWritten(1)
		return
	}
	c.stalled = true
	c.stall = append(c.stall[:0], buf[n:]...)
	c.stallReplies = 1
	c.stallMu.Unlock()
	go c.drainStalled()
}

// writeNow writes as much of buf as the socket takes without waiting.
func (c *client) writeNow(buf []byte) (int, error) {
	if c.raw == nil {
		return 0, nil // no raw access: drainStalled writes it
	}
	var n int
	var werr error
	err := c.raw.Write(func(fd uintptr) bool {
		for n < len(buf) {
			m, err := syscall.Write(int(fd), buf[n:])
			if m > 0 {
				n += m
			}
			switch {
			case errors.Is(err, syscall.EINTR):
				continue
			case errors.Is(err, syscall.EAGAIN):
				return true
			case err != nil:
				werr = err
				return true
			}
		}
		return true
	})
	if err == nil {
		err = werr
	}
	if n == len(buf) {
		c.srv.stats.writes.Add(1)
	}
	c.srv.stats.netOut.Add(int64(n))
	return n, err
}

// drainStalled writes, blocking, the replies the durable writer could not
// write at once, until none is left. (A connection without raw access to
// its socket sends every queued reply this way.)
func (c *client) drainStalled() {
	var buf []byte
	for {
		c.stallMu.Lock()
		if len(c.stall) == 0 {
			c.stalled = false
			if cap(c.stall) > keepStall {
				c.stall = nil
			}
			c.stallMu.Unlock()
			return
		}
		buf, c.stall = c.stall, buf[:0]
		replies := c.stallReplies
		c.stallReplies = 0
		c.stallMu.Unlock()
		n, err := c.nc.Write(buf)
		c.srv.stats.netOut.Add(int64(n))
		if err != nil {
			c.kill()
		} else {
			c.srv.stats.writes.Add(1)
		}
		c.repliesWritten(replies)
	}
}

// repliesWritten counts n queued replies as settled (written, or dropped
// with the connection) and wakes a waitQueued once none is left.
func (c *client) repliesWritten(n int) {
	if c.queuedReplies.Add(-int64(n)) != 0 {
		return
	}
	c.stallMu.Lock()
	// The client may have queued another reply since the count reached
	// zero, and be waiting for that one: only a count still at zero ends
	// the wait.
	if c.queuedReplies.Load() == 0 && c.queueDrained != nil {
		close(c.queueDrained)
		c.queueDrained = nil
	}
	c.stallMu.Unlock()
}

// waitQueued waits until the durable writer has settled every reply of c
// it holds. Only c's own goroutine, which alone queues replies, calls it.
func (c *client) waitQueued() {
	for c.queuedReplies.Load() > 0 {
		c.stallMu.Lock()
		if c.queuedReplies.Load() == 0 {
			c.stallMu.Unlock()
			return
		}
		if c.queueDrained == nil {
			c.queueDrained = make(chan struct{})
		}
		ch := c.queueDrained
		c.stallMu.Unlock()
		<-ch
	}
}
