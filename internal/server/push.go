package server

import (
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Pushes: messages a client did not ask for, sent between its replies.
//
// Pub/sub messages are the first user; client-side caching invalidations
// and keyspace notifications are meant to use the same facility. Any
// goroutine may call client.push with an encoder; the message is appended,
// already encoded for the client's protocol, to the client's outbox and
// never waits for the client:
//
//	c.push(func(b []byte, resp3 bool) []byte {
//		return appendPushBulks(b, resp3, "invalidate", key)
//	})
//
// Who writes it to the socket, and when, keeps replies whole and in order:
//
//   - outMu orders everything written to the connection. The connection's
//     goroutine holds it while it runs commands and flushes their replies,
//     and lets go only while it waits for input (flushingReader) or for a
//     blocking command's keys. So a push never lands inside a reply, even
//     one the writer flushes in pieces.
//   - Before each command (outside a pipeline transaction, whose held
//     replies may be rolled back), the connection's goroutine moves queued
//     pushes into its reply buffer itself: a message published before a
//     command reaches the client before that command's reply, as in Redis.
//   - Otherwise a drainer goroutine, started on the first push into an empty
//     outbox and ending when it is empty again, takes outMu, waits until
//     the durable writer has sent this client's held replies (appendfsync
//     always, see syncingWriter), and writes the queued pushes to the
//     socket.
//
// Memory is bounded by client-output-buffer-limit: the bytes queued and
// being written count as the client's output (CLIENT LIST's omem), checked
// against its class's limits (pubsub while it has subscriptions, normal
// otherwise) on every push. A client over its hard limit, or over its soft
// limit for longer than the soft seconds, is disconnected and its queue
// dropped, as Redis closes it; the publisher never blocks.
type outbox struct {
	mu sync.Mutex
	// buf holds encoded pushes not yet written; spare is the buffer the
	// drainer wrote last, for reuse.
	buf, spare []byte
	// inflight is how many bytes the drainer is writing.
	inflight int
	draining bool
	// closed drops every later push: the connection is gone or over its
	// limit.
	closed bool
	// softSince is the unix second the soft limit was first reached, 0
	// while below it.
	softSince int64
	// size mirrors len(buf)+inflight for readers that take no lock
	// (CLIENT LIST's omem, the check before each command).
	size atomic.Int64
}

// keepPushBuf bounds the buffer kept for reuse once written.
const keepPushBuf = 64 << 10

// push queues a message for c, encoded by encode (which appends it, in
// RESP3 when resp3 is set, else RESP2, to b and returns b). It never
// blocks on the client. It returns false when the message was dropped: the
// client is gone, or this push took it over its output buffer limit and it
// is being disconnected. encode runs under the outbox's lock and must not
// call back into the client.
func (c *client) push(encode func(b []byte, resp3 bool) []byte) bool {
	resp3 := c.resp3.Load()
	o := &c.out
	o.mu.Lock()
	if o.closed || c.killed.Load() {
		o.mu.Unlock()
		return false
	}
	o.buf = encode(o.buf, resp3)
	used := int64(len(o.buf) + o.inflight)
	over := c.srv.outputLimitReached(c, o, used)
	if over {
		o.closed = true
		o.buf, o.spare = nil, nil
		used = int64(o.inflight)
	}
	o.size.Store(used)
	start := !over && !o.draining
	if start {
		o.draining = true
	}
	o.mu.Unlock()
	if over {
		c.srv.closeForOutputLimit(c)
		return false
	}
	if start {
		go c.drainPushes()
	}
	return true
}

// outputLimitReached applies client-output-buffer-limit to used bytes of
// pending output, as Redis's checkClientOutputBufferLimits does: the hard
// limit at once, the soft limit once it has held for more than its seconds
// (whole seconds, as Redis counts them). o.mu is held.
func (s *Server) outputLimitReached(c *client, o *outbox, used int64) bool {
	class := "normal"
	if c.pubsubMode.Load() {
		class = "pubsub"
	}
	lim := s.cfg.OutputBufferLimit(class)
	hard := lim.Hard > 0 && used >= lim.Hard
	soft := lim.Soft > 0 && used >= lim.Soft
	if !soft {
		o.softSince = 0
		return hard
	}
	now := time.Now().Unix()
	if o.softSince == 0 {
		o.softSince = now
		return hard
	}
	return hard || now-o.softSince > lim.SoftSeconds
}

// closeForOutputLimit disconnects a client over its output buffer limit,
// with Redis's log line.
func (s *Server) closeForOutputLimit(c *client) {
	s.ps.obufDisconnects.Add(1)
	s.log.Warn("Client " + c.describe(nil) + " scheduled to be closed ASAP for overcoming of output buffer limits.")
	c.kill()
}

// drainPushes writes queued pushes to the socket between replies (see the
// comment on outbox) until none is left.
func (c *client) drainPushes() {
	o := &c.out
	for {
		c.outMu.Lock()
		o.mu.Lock()
		buf := o.buf
		if len(buf) == 0 || o.closed {
			o.draining = false
			o.mu.Unlock()
			c.outMu.Unlock()
			return
		}
		o.buf, o.spare = o.spare[:0], nil
		o.inflight = len(buf)
		o.mu.Unlock()
		// Replies the durable writer still holds were written before these
		// pushes were taken: they go first. (waitQueued is otherwise the
		// connection goroutine's, which cannot be queueing or waiting
		// while this goroutine holds outMu.)
		c.waitQueued()
		n, err := c.nc.Write(buf)
		c.srv.stats.netOut.Add(int64(n))
		c.outMu.Unlock()
		o.mu.Lock()
		o.inflight = 0
		o.size.Store(int64(len(o.buf)))
		if cap(buf) <= keepPushBuf && o.spare == nil {
			o.spare = buf[:0]
		}
		o.mu.Unlock()
		if err != nil {
			c.kill()
			c.closePushes()
			return
		}
		c.srv.stats.writes.Add(1)
	}
}

// takePushes moves the queued pushes into the reply buffer, ahead of the
// reply to the command about to run. The connection's goroutine calls it
// holding outMu, outside a pipeline transaction. CLIENT REPLY OFF and SKIP
// do not drop them (PUBLISH takes a client's own message so): like every
// push, they pass those modes in Redis.
func (c *client) takePushes() {
	if c.out.size.Load() == 0 {
		return
	}
	o := &c.out
	o.mu.Lock()
	if o.closed || len(o.buf) == 0 {
		o.mu.Unlock()
		return
	}
	muted := c.w.PauseDiscard()
	c.w.Raw(o.buf)
	c.w.ResumeDiscard(muted)
	o.buf = o.buf[:0]
	if cap(o.buf) > keepPushBuf {
		o.buf = nil
	}
	o.size.Store(int64(o.inflight))
	o.mu.Unlock()
}

// waitBlockedUnlocked is waitBlocked with outMu let go, so that pushes
// reach a client while it waits in a blocking command.
func (s *Server) waitBlockedUnlocked(c *client, w *waiter, in *inputWatch, deadline time.Time) bool {
	// CLIENT LIST shows a blocked client's input as Redis does: what it
	// sent after the blocking command, not yet run.
	storeChanged(&c.qbuf, c.r.Buffered())
	storeChanged(&c.qbufFree, c.r.Free())
	c.outMu.Unlock()
	defer c.outMu.Lock()
	return s.waitBlocked(c, w, in, deadline)
}

// closePushes drops the client's queued pushes and refuses later ones.
func (c *client) closePushes() {
	o := &c.out
	o.mu.Lock()
	o.closed = true
	o.buf, o.spare = nil, nil
	o.size.Store(0)
	o.mu.Unlock()
}

// appendPushBulks appends a push of bulk strings: the first is a string
// (the message kind), the rest are bytes. RESP3 makes it a push (>), RESP2
// an array, as Redis sends pub/sub messages.
func appendPushBulks(b []byte, resp3 bool, kind string, elems ...[]byte) []byte {
	if resp3 {
		b = append(b, '>')
	} else {
		b = append(b, '*')
	}
	b = strconv.AppendInt(b, int64(len(elems)+1), 10)
	b = append(b, '\r', '\n', '$')
	b = strconv.AppendInt(b, int64(len(kind)), 10)
	b = append(b, '\r', '\n')
	b = append(b, kind...)
	b = append(b, '\r', '\n')
	for _, e := range elems {
		b = appendBulk(b, e)
	}
	return b
}

// appendBulk appends e as a RESP bulk string.
func appendBulk(b, e []byte) []byte {
	b = append(b, '$')
	b = strconv.AppendInt(b, int64(len(e)), 10)
	b = append(b, '\r', '\n')
	b = append(b, e...)
	return append(b, '\r', '\n')
}
