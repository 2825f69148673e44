package server

import (
	"errors"
	"io"
	"net"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/cairndb/cairn/internal/acl"
	"github.com/cairndb/cairn/internal/resp"
	"github.com/cairndb/cairn/internal/store"
)

// client is one connection's state. Fields read by other goroutines (CLIENT
// LIST, INFO) are atomics or guarded by mu.
type client struct {
	srv *Server
	id  int64
	nc  net.Conn
	r   *resp.Reader
	w   *resp.Writer

	created time.Time
	laddr   string
	raddr   string
	// fd is the socket's descriptor, for CLIENT LIST (-1 if unknown).
	fd int

	db        atomic.Int64
	lastCmdAt atomic.Int64 // unix ms of the last input or command (CLIENT LIST idle)
	authed    atomic.Bool
	// user is the ACL user the client runs as (acl.go); aclScratch is
	// its checks' working space.
	user       atomic.Pointer[acl.User]
	aclScratch acl.Scratch
	// everAuthed is set once the client authenticated with a password.
	everAuthed atomic.Bool
	resp3      atomic.Bool

	// What CLIENT LIST shows of another client's buffers, stored by the
	// client's own goroutine each time it waits for input: unparsed input
	// (qbuf), room left in the input buffer (qbuf-free), the reply
	// buffer's size and peak (rbs, rbp). multiCount and multiMem are the
	// queued MULTI commands and their arguments' bytes (multi, multi-mem).
	qbuf, qbufFree, rbs, rbp atomic.Int64
	multiCount, multiMem     atomic.Int64

	mu      sync.Mutex
	name    string
	libName string
	libVer  string
	lastCmd string
	// blocked is set while a blocking command waits; guarded by mu so
	// that a timeout change never arms a deadline on a waiting client.
	blocked bool

	// idleDeadline records that Read armed a deadline for the timeout
	// setting, to be removed when the setting goes back to 0.
	idleDeadline bool

	// quit asks the loop to flush and close after the current command.
	quit   bool
	killed atomic.Bool
	// gone is closed when the connection is killed, to wake a blocked wait.
	gone     chan struct{}
	goneOnce sync.Once

	// needSync is set when a write was committed under appendfsync always
	// without its own fsync: the next reply bytes wait for one.
	needSync bool

	// raw reaches the socket without waiting, for the durable writer;
	// nil for a connection that does not offer it.
	raw syscall.RawConn
	// queuedReplies counts this client's replies the durable writer holds
	// (see durableWriter); queueDrained, when not nil, is closed when the
	// count falls to zero. stall holds the bytes of stallReplies replies
	// that the socket did not take at once, while stalled: drainStalled
	// is writing them. stallMu guards all but the count.
	queuedReplies atomic.Int64
	stallMu       sync.Mutex
	queueDrained  chan struct{}
	stalled       bool
	stall         []byte
	stallReplies  int

	// pipe is the transaction this client's pipelined writes share until
	// it commits (see Server.runPipelined); pipeMark is where its held
	// replies begin, pipeReplies how many there are, pipeWrites how many
	// of those commands wrote.
	pipe                    *store.Tx
	pipeMark                int
	pipeReplies, pipeWrites int

	// multi is the open MULTI transaction, nil outside one; watch is the
	// client's WATCHed keys.
	multi *multiState
	watch watchState
	// trk is the client's CLIENT TRACKING mode (nil: off); trkBroken
	// marks a redirection to a client that has gone; trkCaching is CLIENT
	// CACHING's flag for the next command.
	// reply is CLIENT REPLY's mode; noEvict and noTouch are CLIENT
	// NO-EVICT's and NO-TOUCH's; inMulti mirrors multi for CLIENT LIST.
	reply            replyMode
	noEvict, noTouch atomic.Bool
	inMulti          atomic.Bool
	// unblock receives CLIENT UNBLOCK's request (true: with an error)
	// while the client waits in a blocking command; unblockErr keeps it.
	unblock    chan bool
	unblockErr bool

	trk        atomic.Pointer[trackState]
	trkBroken  atomic.Bool
	trkCaching bool

	// outMu orders what is written to the connection: the client's
	// goroutine holds it while it runs commands and flushes their replies,
	// the push drainer while it writes pushes (see push.go).
	outMu sync.Mutex
	// out queues pushes: pub/sub messages and other unrequested messages.
	out outbox
	// pubsubMode is set while the client has any subscription (Redis's
	// CLIENT_PUBSUB): a RESP2 client may then only (un)subscribe, PING,
	// QUIT and RESET, and its output limits are the pubsub class's.
	pubsubMode atomic.Bool

	// replconf is what REPLCONF said before a SYNC (replica.go).
	replconf replClient

	// pending is input read while the client was blocked (inputWatch),
	// which the request reader takes before reading the connection again.
	pending []byte

	// Scratch reused by every command on this connection.
	ctx    ctx
	keyIdx []int
	keys   [][]byte
}

func newClient(s *Server, nc net.Conn) *client {
	c := &client{
		srv: s,
		id:  s.nextID.Add(1),
		nc:  nc,

		created: time.Now(),
		gone:    make(chan struct{}),
		unblock: make(chan bool, 1),
		laddr:   nc.LocalAddr().String(),
		raddr:   nc.RemoteAddr().String(),
		fd:      socketFD(nc),
	}
	if sc, ok := nc.(syscall.Conn); ok {
		c.raw, _ = sc.SyscallConn()
	}
	c.r = resp.NewReader(flushingReader{c})
	c.w = resp.NewWriter(syncingWriter{c})
	c.lastCmdAt.Store(c.created.UnixMilli())
	c.setDefaultAuth()
	return c
}

// authRequired reports whether the client must authenticate before running
// commands: it has not, and the default user has a password or is off. A
// client connected while there was none stays authenticated when one is
// set, and clearing the password lets everyone in, as in Redis.
func (c *client) authRequired() bool {
	return !c.authed.Load() && c.srv.defaultNeedsAuth()
}

// setLastCmd records the command CLIENT LIST shows as cmd; "" shows NULL.
func (c *client) setLastCmd(name string) {
	c.mu.Lock()
	c.lastCmd = name
	c.mu.Unlock()
}

// rearmIdleTimeout applies a changed timeout setting to a client that may
// be waiting in Read under the old one: the idle time already spent counts,
// as Redis counts it from the last interaction, and 0 removes the limit.
func (c *client) rearmIdleTimeout(t time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.blocked:
		// A blocked client is not idle; Read arms its deadline again
		// when the wait is over.
	case t <= 0 || c.pubsubMode.Load():
		_ = c.nc.SetReadDeadline(time.Time{})
	default:
		_ = c.nc.SetReadDeadline(time.UnixMilli(c.lastCmdAt.Load()).Add(t))
	}
}

// idleTimeout is the timeout setting as it applies to this client: as in
// Redis, a client with subscriptions is never idle.
func (c *client) idleTimeout() time.Duration {
	if c.pubsubMode.Load() {
		return 0
	}
	return c.srv.cfg.Timeout()
}

// setBlocked marks the client as waiting in a blocking command, or done
// waiting. As in Redis, the idle timeout does not apply while it waits:
// its deadline is removed, which also keeps the input watch, which reads
// the socket, from taking an expired deadline for a hang-up.
func (c *client) setBlocked(blocked bool) {
	c.mu.Lock()
	c.blocked = blocked
	if blocked {
		_ = c.nc.SetReadDeadline(time.Time{})
		c.idleDeadline = false
	}
	c.mu.Unlock()
}

// kill closes the connection from another goroutine (CLIENT KILL,
// shutdown); the client's own loop notices and cleans up.
func (c *client) kill() {
	c.killed.Store(true)
	c.goneOnce.Do(func() { close(c.gone) })
	_ = c.nc.Close()
}

func (c *client) serve() {
	// Held except while waiting for input (flushingReader.Read) or for a
	// blocking command's keys; released last, after the replies held for a
	// sync went out.
	c.outMu.Lock()
	defer c.outMu.Unlock()
	defer c.srv.forget(c)
	defer c.srv.watches.unwatchAll(c)
	defer c.srv.disableTracking(c)
	defer c.nc.Close()
	// Replies the durable writer holds go out before the connection closes
	// (QUIT's +OK among them).
	defer c.waitQueued()
	// No message is queued for a connection that is going away.
	defer c.closePushes()
	defer c.srv.dropSubscriptions(c)
	defer c.srv.stopMonitor(c)
	defer func() {
		// Every way out commits or discards the pipeline first; one left
		// here (after a panic) was never acknowledged and is discarded, so
		// its locks are never kept.
		if c.pipe != nil {
			c.pipe.Close()
			c.pipe = nil
		}
		if p := recover(); p != nil {
			c.srv.log.Error("panic serving client; connection closed", "client", c.id, "addr", c.raddr, "panic", p, "stack", string(debug.Stack()))
		}
	}()
	for {
		c.r.MaxBulkLen = c.srv.cfg.ProtoMaxBulkLen()
		c.r.MaxQueryBuf = c.srv.cfg.ClientQueryBufferLimit()
		c.r.Unauthenticated = c.authRequired()
		args, err := c.r.ReadCommand()
		if err != nil {
			var pe *resp.ProtocolError
			if errors.As(err, &pe) {
				// The commands before the malformed one ran, as in Redis:
				// a pipeline still open holds their writes.
				c.srv.commitPipeline(c)
				c.srv.replyError(c.w, "ERR "+pe.Error())
				_ = c.w.Flush()
				c.srv.log.Debug("protocol error; connection closed", "client", c.id, "addr", c.raddr, "err", pe.Error())
			} else if errors.Is(err, resp.ErrQueryBufLimit) {
				c.srv.queryBufLimitReached(c, c.r.Head())
			} else if !errors.Is(err, io.EOF) && !c.killed.Load() {
				c.srv.log.Debug("client read", "client", c.id, "err", err)
			}
			return
		}
		if c.killed.Load() {
			// Killed (CLIENT KILL, shutdown, or a failed sync of replies
			// the durable writer held): the requests still buffered are
			// not run.
			return
		}
		if c.pipe == nil {
			// Messages published before this command reach the client
			// before its reply.
			c.takePushes()
		}
		c.srv.dispatch(c, args)
		if c.srv.unauthRepliesPiledUp(c) {
			return
		}
		if c.quit {
			_ = c.w.Flush()
			return
		}
	}
}

// flushingReader is the connection as the request reader sees it. The
// reader calls Read only when it has no complete command left, which is
// exactly when the replies to everything read so far must go out: a whole
// pipeline is answered with one write, and a client that waits for replies
// before sending the rest of a command is never left waiting.
type flushingReader struct{ c *client }

func (f flushingReader) Read(p []byte) (int, error) {
	c := f.c
	if len(c.pending) > 0 {
		// Read while the client was blocked: requests that were waiting
		// behind the blocking command, with no wait for input here.
		n := copy(p, c.pending)
		c.pending = c.pending[n:]
		if len(c.pending) == 0 {
			c.pending = nil
		}
		return n, nil
	}
	c.srv.commitPipeline(c)
	if c.w.Buffered() > 0 {
		if err := c.w.Flush(); err != nil {
			return 0, err
		}
	}
	// A CONFIG SET timeout between reading the setting and arming the
	// deadline would leave the old one armed; the second look catches it.
	for t := c.idleTimeout(); ; {
		switch {
		case t > 0:
			_ = c.nc.SetReadDeadline(time.Now().Add(t))
			c.idleDeadline = true
		case c.idleDeadline:
			_ = c.nc.SetReadDeadline(time.Time{})
			c.idleDeadline = false
		}
		now := c.idleTimeout()
		if now == t {
			break
		}
		t = now
	}
	// Mostly unchanged from one read to the next: a load spares the store.
	storeChanged(&c.qbuf, c.r.Buffered())
	storeChanged(&c.qbufFree, c.r.Free())
	storeChanged(&c.rbs, c.w.Size())
	storeChanged(&c.rbp, c.w.Peak())
	// Pushes may go out while the client is waiting for input.
	c.outMu.Unlock()
	n, err := c.nc.Read(p)
	c.outMu.Lock()
	if n > 0 {
		c.srv.stats.reads.Add(1)
		c.srv.stats.netIn.Add(int64(n))
		// Any input is an interaction: a client sending a long request
		// slowly, or failing to authenticate, is not idle.
		c.lastCmdAt.Store(time.Now().UnixMilli())
		// The limits for unauthenticated clients apply as the input
		// arrives: the password may have been cleared while this client
		// waited.
		c.r.Unauthenticated = c.authRequired()
	}
	return n, err
}

// syncingWriter is the connection as the reply writer sees it. Under
// appendfsync always, commits skip their own fsync (Tx.DeferSync) and no
// reply after them goes out before a sync: a pipeline of writes costs one
// fsync, concurrent clients share theirs, and no write is acknowledged
// before it is durable. Replies up to maxQueuedReply are handed to the
// durable writer, which syncs once for all the replies queued meanwhile
// and sends them; larger ones wait for this client's queued replies, sync
// here and go out directly. If the sync fails the replies are not sent and
// the connection closes: the client cannot take an unsynced write for an
// acknowledged one.
type syncingWriter struct{ c *client }

func (s syncingWriter) Write(p []byte) (int, error) {
	c := s.c
	needSync := c.needSync || c.srv.st.Unsynced()
	if needSync || c.queuedReplies.Load() > 0 {
		if len(p) <= maxQueuedReply {
			if c.queuedReplies.Load() >= maxRepliesQueued {
				// A client that sends without reading gets no more
				// memory here than its socket would give it.
				c.waitQueued()
			}
			c.srv.durable.send(c, p)
			c.needSync = false
			return len(p), nil
		}
		c.waitQueued()
	}
	if needSync {
		if err := c.srv.st.SyncWAL(); err != nil {
			return 0, err
		}
		c.needSync = false
	}
	c.srv.stats.writes.Add(1)
	n, err := c.nc.Write(p)
	c.srv.stats.netOut.Add(int64(n))
	return n, err
}

// storeChanged stores v in a unless a holds it already.
func storeChanged(a *atomic.Int64, v int) {
	if a.Load() != int64(v) {
		a.Store(int64(v))
	}
}
