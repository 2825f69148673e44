package server

import (
	"time"

	"github.com/cairndb/cairn/internal/command"
	"github.com/cairndb/cairn/internal/store"
)

func transactionCommands() []cmdEntry {
	tr := command.CatTransaction
	return []cmdEntry{
		def("multi", 1, noscript|loading|stale|fast|command.AllowBusy, noKeys, tr, "transactions", "1.2.0", "Starts a transaction.", cmdMulti),
		def("exec", 1, noscript|loading|stale|command.SkipSlowlog, noKeys, tr, "transactions", "1.2.0", "Executes all commands in a transaction.", cmdExec),
		def("discard", 1, noscript|loading|stale|fast|command.AllowBusy, noKeys, tr, "transactions", "2.0.0", "Discards a transaction.", cmdDiscard),
		withKeyFlags(def("watch", -2, noscript|loading|stale|fast|command.AllowBusy, keys{1, -1, 1}, tr, "transactions", "2.2.0", "Monitors changes to keys to determine the execution of a transaction.", cmdWatch), ro),
		def("unwatch", 1, noscript|loading|stale|fast|command.AllowBusy, noKeys, tr, "transactions", "2.2.0", "Forgets about watched keys of a transaction.", cmdUnwatch),
	}
}

// multiState is a client's open transaction: the commands queued since
// MULTI, and whether queueing one failed (EXEC then aborts).
type multiState struct {
	queued  []queuedCommand
	bytes   int64
	aborted bool
}

// queuedCommand is a command waiting for EXEC: its spec (already checked)
// and its arguments, copied out of the request buffer.
type queuedCommand struct {
	spec *command.Spec
	args [][]byte
}

// A client's queued transaction is input it has sent and Cairn holds, so
// it counts against client-query-buffer-limit: each argument's slice header
// and allocation beside its bytes. Past the limit the queue is dropped and
// EXEC aborts, with an error that says why.

// queuedArgOverhead is what an argument costs besides its bytes.
const queuedArgOverhead = 40

// inMultiPassThrough reports whether a command runs at once inside MULTI
// instead of being queued, as Redis's processCommand lets them.
func inMultiPassThrough(name string) bool {
	switch name {
	case "exec", "discard", "multi", "watch", "quit", "reset":
		return true
	}
	return false
}

// queue adds a checked command to the client's transaction and answers
// +QUEUED.
func (s *Server) queue(c *client, spec *command.Spec, args [][]byte) {
	m := c.multi
	if spec.Flags&command.NoMulti != 0 {
		s.abortQueue(c, "ERR Command not allowed inside a transaction")
		return
	}
	size := int64(64)
	for _, a := range args {
		size += int64(len(a)) + queuedArgOverhead
	}
	if m.bytes+size > s.cfg.ClientQueryBufferLimit() {
		s.abortQueue(c, "ERR Transaction discarded: the queued commands exceed client-query-buffer-limit")
		m.queued = nil
		m.bytes = 0
		c.multiCount.Store(0)
		c.multiMem.Store(0)
		return
	}
	if m.aborted {
		// Nothing of an aborted transaction will run: keep no more of it.
		c.w.SimpleString("QUEUED")
		return
	}
	// One allocation holds the copied arguments.
	total := 0
	for _, a := range args {
		total += len(a)
	}
	buf := make([]byte, 0, total)
	copied := make([][]byte, len(args))
	for i, a := range args {
		start := len(buf)
		buf = append(buf, a...)
		copied[i] = buf[start:len(buf):len(buf)]
	}
	m.queued = append(m.queued, queuedCommand{spec: spec, args: copied})
	m.bytes += size
	// CLIENT LIST's multi and multi-mem, counted as Redis counts them.
	c.multiCount.Add(1)
	c.multiMem.Add(int64(total) + 8*int64(len(args)))
	c.w.SimpleString("QUEUED")
}

// abortQueue rejects a command while queueing: EXEC will answer
// EXECABORT, as Redis's flagTransaction arranges.
func (s *Server) abortQueue(c *client, msg string) {
	c.multi.aborted = true
	s.replyError(c.w, msg)
}

func cmdMulti(x *ctx) {
	if x.cl.multi != nil {
		x.errorReply("ERR MULTI calls can not be nested")
		return
	}
	x.cl.multi = &multiState{}
	x.cl.inMulti.Store(true)
	x.ok()
}

func cmdDiscard(x *ctx) {
	if x.cl.multi == nil {
		x.errorReply("ERR DISCARD without MULTI")
		return
	}
	x.srv.endMulti(x.cl)
	x.ok()
}

// endMulti forgets the client's transaction and its watched keys.
func (s *Server) endMulti(c *client) {
	c.multi = nil
	c.inMulti.Store(false)
	c.multiCount.Store(0)
	c.multiMem.Store(0)
	s.watches.unwatchAll(c)
}

func cmdWatch(x *ctx) {
	if x.cl.multi != nil {
		x.errorReply("ERR WATCH inside MULTI is not allowed")
		return
	}
	db := x.db()
	tx := x.srv.st.Read(false)
	defer tx.Close()
	tx.SetTouch(false)
	for _, k := range x.args[1:] {
		deadline, err := tx.Deadline(db, k)
		if err != nil {
			x.storeError(err)
			return
		}
		wk := watchedKey{watchKey: watchKey{db: db, key: string(k)}}
		if deadline > 0 {
			wk.deadline = deadline
		}
		x.srv.watches.add(x.cl, wk)
	}
	x.ok()
}

func cmdUnwatch(x *ctx) {
	x.srv.watches.unwatchAll(x.cl)
	x.ok()
}

func cmdExec(x *ctx) {
	c, s := x.cl, x.srv
	m := c.multi
	if m == nil {
		x.errorReply("ERR EXEC without MULTI")
		return
	}
	if m.aborted {
		s.endMulti(c)
		x.errorReply("EXECABORT Transaction discarded because of previous errors.")
		return
	}
	// The group locks the queued commands' keys and the watched ones, so
	// no commit to a watched key can land between the check and the end.
	specs := make([]*command.Spec, len(m.queued))
	argv := make([][][]byte, len(m.queued))
	var keys [][]byte
	var idx []int
	for i, q := range m.queued {
		specs[i], argv[i] = q.spec, q.args
		idx = q.spec.AppendKeyIndices(idx[:0], q.args)
		for _, k := range idx {
			keys = append(keys, q.args[k])
		}
	}
	for _, wk := range c.watch.watched {
		keys = append(keys, []byte(wk.key))
	}
	// Once EXEC ends, the queue and the group's batch (about the queue's
	// size again) are garbage.
	defer s.trim.Freed(2 * m.bytes)
	g := s.beginGroup(c, groupMulti, keys, groupNeedsAll(specs, argv))
	defer g.close()
	if c.watch.dirty.Load() || watchedExpired(c, g.tx) {
		s.endMulti(c)
		x.w.NullArray()
		return
	}
	s.endMulti(c)
	w := x.w
	mark := w.Hold()
	w.Array(len(m.queued))
	for _, q := range m.queued {
		if _, err := g.run(q.args, w); err != nil {
			// A group of queued commands holds all its locks from the
			// start: only an engine failure gets here.
			w.Truncate(mark)
			x.internalError(err)
			w.Release()
			return
		}
	}
	if err := g.commit(); err != nil {
		w.Truncate(mark)
		x.internalError(err)
	}
	w.Release()
}

// watchedExpired reports whether a key the client watched while it was
// live has expired since, which aborts EXEC even before anything reclaims
// the key.
func watchedExpired(c *client, tx *store.Tx) bool {
	now := time.Now().UnixMilli()
	if tx != nil {
		now = tx.NowMs
	}
	for _, wk := range c.watch.watched {
		if wk.deadline != 0 && wk.deadline <= now {
			return true
		}
	}
	return false
}
