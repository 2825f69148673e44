package server

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairndb/cairn/internal/command"
	"github.com/cairndb/cairn/internal/rconv"
)

// The CLIENT subcommands that change how the server treats a connection:
// REPLY, UNBLOCK, PAUSE/UNPAUSE, NO-EVICT and NO-TOUCH.

// replyMode is CLIENT REPLY's state of a connection.
type replyMode struct {
	off bool
	// skip drops the current command's reply; skipNext the next one's.
	skip, skipNext bool
}

// startReply makes the reply writer drop this command's reply when CLIENT
// REPLY says so. endReply moves SKIP on by one command, as Redis's call()
// does.
func (c *client) startReply() {
	if c.reply.off || c.reply.skip {
		c.w.Discard()
	}
}

func (c *client) endReply() {
	c.w.EndDiscard()
	c.reply.skip = false
	if c.reply.skipNext {
		c.reply.skip, c.reply.skipNext = true, false
	}
}

func cmdClientReply(x *ctx) {
	c := x.cl
	switch {
	case optIs(x.arg(2), "ON"):
		c.reply = replyMode{}
		// Its own OK goes out, as Redis clears the flags first.
		x.w.EndDiscard()
		x.ok()
	case optIs(x.arg(2), "OFF"):
		c.reply.off = true
	case optIs(x.arg(2), "SKIP"):
		if !c.reply.off {
			c.reply.skipNext = true
		}
	default:
		x.syntaxError()
	}
}

func cmdClientNoEvict(x *ctx) { clientFlag(x, &x.cl.noEvict) }
func cmdClientNoTouch(x *ctx) { clientFlag(x, &x.cl.noTouch) }

// clientFlag is CLIENT NO-EVICT and NO-TOUCH: ON or OFF.
func clientFlag(x *ctx, flag interface{ Store(bool) }) {
	switch {
	case optIs(x.arg(2), "ON"):
		flag.Store(true)
	case optIs(x.arg(2), "OFF"):
		flag.Store(false)
	default:
		x.syntaxError()
		return
	}
	x.ok()
}

// touches reports whether a command of c counts as a use of the keys it
// reads (OBJECT IDLETIME): not under CLIENT NO-TOUCH, except TOUCH itself.
func (c *client) touches(spec *command.Spec) bool {
	return !c.noTouch.Load() || spec.Name == "touch"
}

// CLIENT UNBLOCK id [TIMEOUT|ERROR]: a client waiting in a blocking command
// gives up now, as if its timeout had passed or with an error.
func cmdClientUnblock(x *ctx) {
	id, ok := rconv.ParseInt(x.arg(2))
	if !ok {
		x.notInteger()
		return
	}
	withError := false
	if len(x.args) == 4 {
		switch {
		case optIs(x.arg(3), "TIMEOUT"):
		case optIs(x.arg(3), "ERROR"):
			withError = true
		default:
			x.errorReply("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR")
			return
		}
	}
	target := x.srv.clientByID(id)
	if target == nil {
		x.w.Int(0)
		return
	}
	target.mu.Lock()
	blocked := target.blocked
	target.mu.Unlock()
	if !blocked {
		x.w.Int(0)
		return
	}
	select {
	case target.unblock <- withError:
		x.w.Int(1)
	default:
		// Already asked.
		x.w.Int(0)
	}
}

// pauseState is CLIENT PAUSE: until when, and whether reads pause too.
type pauseState struct {
	mu    sync.Mutex
	until time.Time
	all   bool
	// over is closed when the pause ends early (CLIENT UNPAUSE).
	over chan struct{}
	// ever is set by the first CLIENT PAUSE, so that commands skip the
	// lock while no pause was ever asked for.
	ever atomic.Bool
}

// CLIENT PAUSE timeout [WRITE|ALL].
func cmdClientPause(x *ctx) {
	ms, ok := rconv.ParseInt(x.arg(2))
	switch {
	case !ok:
		x.errorReply("ERR timeout is not an integer or out of range")
		return
	case ms < 0:
		x.errorReply("ERR timeout is negative")
		return
	}
	all := true
	if len(x.args) == 4 {
		switch {
		case optIs(x.arg(3), "ALL"):
		case optIs(x.arg(3), "WRITE"):
			all = false
		default:
			x.errorReply("ERR CLIENT PAUSE mode must be WRITE or ALL")
			return
		}
	}
	p := &x.srv.pause
	p.ever.Store(true)
	p.mu.Lock()
	until := time.Now().Add(time.Duration(ms) * time.Millisecond)
	if time.Now().Before(p.until) {
		// A pause in force only grows: the later end and the stricter
		// mode win, as in Redis.
		p.all = p.all || all
		if until.After(p.until) {
			p.until = until
		}
	} else {
		p.all, p.until = all, until
		p.over = make(chan struct{})
	}
	p.mu.Unlock()
	x.ok()
}

func cmdClientUnpause(x *ctx) {
	p := &x.srv.pause
	p.mu.Lock()
	if time.Now().Before(p.until) {
		close(p.over)
	}
	p.until = time.Time{}
	p.mu.Unlock()
	x.ok()
}

// pausedFor reports whether a command must wait for a pause: every command
// under PAUSE ALL, those that write (or may: EVAL, PUBLISH, an EXEC of
// writes) under PAUSE WRITE. It returns the pause's end and a channel
// closed if it ends early.
func (s *Server) pausedFor(c *client, spec *command.Spec) (time.Time, <-chan struct{}, bool) {
	p := &s.pause
	p.mu.Lock()
	defer p.mu.Unlock()
	if !time.Now().Before(p.until) {
		return time.Time{}, nil, false
	}
	if p.all {
		return p.until, p.over, true
	}
	writes := spec.Flags&(command.Write|command.MayReplicate) != 0
	if spec.Name == "exec" && c.multi != nil {
		for _, q := range c.multi.queued {
			writes = writes || q.spec.Flags&(command.Write|command.MayReplicate) != 0
		}
	}
	return p.until, p.over, writes
}

// waitPause holds a command until the pause that applies to it ends, or
// the client goes. Its pipeline is committed first and its earlier replies
// sent, so it holds no lock and owes nothing while it waits. It reports
// false when the client went away.
func (s *Server) waitPause(c *client, spec *command.Spec) bool {
	if !s.pause.ever.Load() {
		return true
	}
	until, over, paused := s.pausedFor(c, spec)
	if !paused {
		return true
	}
	s.commitPipeline(c)
	if err := c.w.Flush(); err != nil {
		return false
	}
	c.setBlocked(true)
	defer c.setBlocked(false)
	// Its connection is read meanwhile, as for a blocking command: a client
	// that hangs up is dropped at once and its paused command never runs,
	// as in Redis.
	in := c.watchInput()
	defer in.stop()
	c.outMu.Unlock()
	defer c.outMu.Lock()
	for paused {
		t := time.NewTimer(time.Until(until))
		select {
		case <-t.C:
		case <-over:
		case <-c.gone:
			t.Stop()
			return false
		case err := <-in.done:
			t.Stop()
			in.end(s, err)
			return false
		}
		t.Stop()
		until, over, paused = s.pausedFor(c, spec)
	}
	return !in.ended(s)
}

// clientFlags is CLIENT LIST's flags field, in Redis's order.
func (c *client) clientFlags() string {
	var f []byte
	if c.srv.isMasterClient(c) {
		f = append(f, 'M') // the master's stream (replica.go)
	}
	if c.srv.diag.monitors.has(c) {
		f = append(f, 'O') // MONITOR (diag.go)
	}
	if c.pubsubMode.Load() {
		f = append(f, 'P')
	}
	if c.inMulti.Load() {
		f = append(f, 'x')
	}
	c.mu.Lock()
	blocked := c.blocked
	c.mu.Unlock()
	if blocked {
		f = append(f, 'b')
	}
	if st := c.tracking(); st != nil {
		f = append(f, 't')
		if c.trkBroken.Load() {
			f = append(f, 'R')
		}
		if st.bcast {
			f = append(f, 'B')
		}
	}
	if c.watch.dirty.Load() {
		f = append(f, 'd')
	}
	if c.noEvict.Load() {
		f = append(f, 'e')
	}
	if c.noTouch.Load() {
		f = append(f, 'T')
	}
	if len(f) == 0 {
		return "N"
	}
	return string(f)
}
