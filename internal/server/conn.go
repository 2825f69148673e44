package server

import (
	"errors"
	"io"
	"net"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairndb/cairn/internal/resp"
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

	db        atomic.Int64
	lastCmdAt atomic.Int64 // unix ms of the last command
	authed    atomic.Bool
	resp3     atomic.Bool

	mu      sync.Mutex
	name    string
	libName string
	libVer  string
	lastCmd string

	// quit asks the loop to flush and close after the current command.
	quit   bool
	killed atomic.Bool
	// gone is closed when the connection is killed, to wake a blocked wait.
	gone     chan struct{}
	goneOnce sync.Once

	// Scratch reused by every command on this connection.
	ctx    ctx
	keyIdx []int
	keys   [][]byte
}

func newClient(s *Server, nc net.Conn) *client {
	c := &client{
		srv:     s,
		id:      s.nextID.Add(1),
		nc:      nc,
		w:       resp.NewWriter(nc),
		created: time.Now(),
		gone:    make(chan struct{}),
		laddr:   nc.LocalAddr().String(),
		raddr:   nc.RemoteAddr().String(),
	}
	c.r = resp.NewReader(flushingReader{c})
	c.lastCmdAt.Store(c.created.UnixMilli())
	c.authed.Store(s.cfg.RequirePass() == "")
	return c
}

// kill closes the connection from another goroutine (CLIENT KILL,
// shutdown); the client's own loop notices and cleans up.
func (c *client) kill() {
	c.killed.Store(true)
	c.goneOnce.Do(func() { close(c.gone) })
	_ = c.nc.Close()
}

func (c *client) serve() {
	defer c.srv.forget(c)
	defer c.nc.Close()
	defer func() {
		if p := recover(); p != nil {
			c.srv.log.Error("panic serving client; connection closed", "client", c.id, "addr", c.raddr, "panic", p, "stack", string(debug.Stack()))
		}
	}()
	for {
		c.r.MaxBulkLen = c.srv.cfg.ProtoMaxBulkLen()
		c.r.Unauthenticated = !c.authed.Load()
		args, err := c.r.ReadCommand()
		if err != nil {
			var pe *resp.ProtocolError
			if errors.As(err, &pe) {
				c.w.Error("ERR " + pe.Error())
				_ = c.w.Flush()
				c.srv.log.Debug("protocol error; connection closed", "client", c.id, "addr", c.raddr, "err", pe.Error())
			} else if !errors.Is(err, io.EOF) && !c.killed.Load() {
				c.srv.log.Debug("client read", "client", c.id, "err", err)
			}
			return
		}
		c.srv.dispatch(c, args)
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
	if c.w.Buffered() > 0 {
		if err := c.w.Flush(); err != nil {
			return 0, err
		}
	}
	if t := c.srv.cfg.Timeout(); t > 0 {
		_ = c.nc.SetReadDeadline(time.Now().Add(t))
	}
	return c.nc.Read(p)
}
