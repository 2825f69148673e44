package server

import (
	"net"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

// clientOverhead is what a connection costs before any buffer: the client
// state itself, counted in CLIENT LIST's tot-mem as Redis counts its
// struct client.
const clientOverhead = int64(unsafe.Sizeof(client{}))

// socketFD returns the descriptor of nc's socket (through TLS), or -1.
func socketFD(nc net.Conn) int {
	if tc, ok := nc.(interface{ NetConn() net.Conn }); ok {
		nc = tc.NetConn()
	}
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return -1
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return -1
	}
	fd := -1
	if raw.Control(func(f uintptr) { fd = int(f) }) != nil {
		return -1
	}
	return fd
}

// outputBytes is what the client has been sent but its socket has not
// taken yet: replies the durable writer holds and pushes not yet written.
func (c *client) outputBytes() int64 {
	c.stallMu.Lock()
	stalled := int64(len(c.stall))
	c.stallMu.Unlock()
	return stalled + c.out.size.Load()
}

// clientBuffers is a client's buffers as CLIENT LIST shows them.
type clientBuffers struct {
	qbuf, qbufFree, argvMem, multiMem int64
	rbs, rbp, obl, oll, omem          int64
}

// buffers reads c's buffers. x is the command asking: a client describing
// itself reads its own buffers as they are now (and its command's
// arguments count as argv-mem, as in Redis), any other client is seen as
// its goroutine last left it before waiting for input.
func (c *client) buffers(x *ctx) clientBuffers {
	b := clientBuffers{multiMem: c.multiMem.Load()}
	c.stallMu.Lock()
	b.obl = int64(len(c.stall))
	c.stallMu.Unlock()
	b.oll = c.queuedReplies.Load()
	b.omem = b.obl + c.out.size.Load()
	if x != nil && x.cl == c {
		// The command running counts in qbuf until the pipeline it came
		// in has run, as in Redis (26 for its own CLIENT LIST).
		b.qbuf, b.qbufFree = int64(c.r.QueryBuf()), int64(c.r.Free())
		b.rbs, b.rbp = int64(c.w.Size()), int64(c.w.Peak())
		b.obl += int64(c.w.Buffered())
		for _, a := range x.args {
			b.argvMem += int64(len(a))
		}
		return b
	}
	b.qbuf, b.qbufFree = c.qbuf.Load(), c.qbufFree.Load()
	b.rbs, b.rbp = c.rbs.Load(), c.rbp.Load()
	return b
}

// total is CLIENT LIST's tot-mem: the client's state and every buffer it
// holds.
func (b clientBuffers) total() int64 {
	return clientOverhead + b.qbuf + b.qbufFree + b.argvMem + b.multiMem + b.rbs + b.omem
}

// describe is the client's CLIENT LIST line, with Redis 7.2's fields in
// its order. x is the command asking, nil when the line is for a log.
func (c *client) describe(x *ctx) string {
	c.mu.Lock()
	name, lib, ver, last := c.name, c.libName, c.libVer, c.lastCmd
	c.mu.Unlock()
	if last == "" {
		last = "NULL"
	}
	proto := 2
	if c.resp3.Load() {
		proto = 3
	}
	idle := (c.srv.nowMs() - c.lastCmdAt.Load()) / 1000
	multi := int64(-1)
	if c.inMulti.Load() {
		multi = c.multiCount.Load()
	}
	redir := int64(-1)
	if st := c.tracking(); st != nil {
		redir = st.redirect
	}
	bufs := c.buffers(x)
	events := "r"
	if bufs.omem > 0 {
		events = "rw"
	}
	sub, psub, ssub := c.srv.ps.hub.Counts(c)
	var b strings.Builder
	field := func(k, v string) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(v)
	}
	num := func(k string, n int64) { field(k, strconv.FormatInt(n, 10)) }
	num("id", c.id)
	field("addr", c.raddr)
	field("laddr", c.laddr)
	num("fd", int64(c.fd))
	field("name", name)
	num("age", int64(c.age().Seconds()))
	num("idle", max(idle, 0))
	field("flags", c.clientFlags())
	num("db", c.db.Load())
	num("sub", int64(sub))
	num("psub", int64(psub))
	num("ssub", int64(ssub))
	num("multi", multi)
	num("qbuf", bufs.qbuf)
	num("qbuf-free", bufs.qbufFree)
	num("argv-mem", bufs.argvMem)
	num("multi-mem", bufs.multiMem)
	num("rbs", bufs.rbs)
	num("rbp", bufs.rbp)
	num("obl", bufs.obl)
	num("oll", bufs.oll)
	num("omem", bufs.omem)
	num("tot-mem", bufs.total())
	field("events", events)
	field("cmd", last)
	field("user", c.user.Load().Name())
	num("redir", redir)
	num("resp", int64(proto))
	field("lib-name", lib)
	field("lib-ver", ver)
	return b.String()
}
