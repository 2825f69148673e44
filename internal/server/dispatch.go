package server

import (
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairndb/cairn/internal/acl"
	"github.com/cairndb/cairn/internal/command"
	"github.com/cairndb/cairn/internal/latency"
	"github.com/cairndb/cairn/internal/resp"
	"github.com/cairndb/cairn/internal/store"
)

// handler runs one command. It parses x.args, calls the store through x.tx
// and writes exactly one reply.
type handler func(x *ctx)

// cmdEntry is a command's spec beside its handler, with its statistics.
type cmdEntry struct {
	spec *command.Spec
	run  handler
	// subs are the handlers of a container's subcommands.
	subs  []cmdEntry
	stats *cmdStats
	// aclCmd is the command as ACL rules know it (acl.go).
	aclCmd *acl.Command
	// rewrites marks a command Redis flags read-only that may still
	// rewrite a key's value (PFCOUNT's cached cardinality): it runs in a
	// write transaction on its keys.
	rewrites bool
	// guard, for a command flagged Protected, is the setting that says
	// who may run it (protected.go).
	guard *protectedCommand
	// ownTx marks a write command that reads from a snapshot and opens its
	// own write transaction when it is ready to write (MIGRATE, which must
	// not hold its keys' locks while it waits for the network). In an
	// atomic group it runs in the group's transaction like any other.
	ownTx bool
}

// cmdStats are a command's INFO commandstats figures, and the histogram of
// its latencies (INFO latencystats, LATENCY HISTOGRAM) once it has one.
type cmdStats struct {
	calls    atomic.Int64
	nanos    atomic.Int64
	failed   atomic.Int64
	rejected atomic.Int64
	hist     atomic.Pointer[latency.Histogram]
}

// record counts one call that ran for d (its execution, without the time a
// blocking command waited), and adds d to its histogram when tracking.
func (st *cmdStats) record(d time.Duration, failed, tracking bool) {
	st.calls.Add(1)
	st.nanos.Add(int64(d))
	if failed {
		st.failed.Add(1)
	}
	if !tracking {
		return
	}
	h := st.hist.Load()
	for h == nil {
		// The first call makes the histogram; a CONFIG RESETSTAT may drop
		// it again before the load: then the next round makes another.
		st.hist.CompareAndSwap(nil, new(latency.Histogram))
		h = st.hist.Load()
	}
	h.Record(d)
}

// reset zeroes the figures and drops the histogram, as CONFIG RESETSTAT
// does; a call finishing meanwhile may be counted or not.
func (st *cmdStats) reset() {
	st.calls.Store(0)
	st.nanos.Store(0)
	st.failed.Store(0)
	st.rejected.Store(0)
	st.hist.Store(nil)
}

// ctx is what a handler sees: its arguments, its connection, the reply
// writer and the store transaction dispatch opened for it.
type ctx struct {
	srv  *Server
	cl   *client
	w    *resp.Writer
	tx   *store.Tx
	args [][]byte
	// failed is set when the handler replied with an error.
	failed bool
	// keepWrites, with failed, keeps what the handler wrote before its
	// error: Redis leaves a corrupt HLL that PFADD updated in part so.
	keepWrites bool
	// blocked is set by a blocking handler that found nothing to serve.
	blocked *blockRequest
	// afterCommit, set by a handler, runs once its writes are committed
	// (not for plain writes, which may share a pipeline's commit);
	// commitFailed runs instead when the commit fails.
	afterCommit, commitFailed func()
	// deferred collects, for a command inside an atomic group (MULTI/EXEC,
	// a script), what must wait for the group's commit (see later).
	deferred *[]func()
	// woken is set when a blocking command runs again after it blocked.
	// Redis then serves it only from keys that hold what it waits for: a
	// key that has meanwhile become another type leaves it waiting, where
	// the first run replies WRONGTYPE.
	woken bool
	// scriptDB, inside a script, is the script's own selected database.
	scriptDB *int
	// group is the atomic group running the command, nil outside one.
	group *group
}

// later runs fn once the command's effects are visible to other clients:
// at once for a command on its own, after the commit for a command inside
// a MULTI/EXEC or a script, so that nothing of a group (a PUBLISH, an
// invalidation) escapes before the group's writes are committed.
func (x *ctx) later(fn func()) {
	if x.deferred != nil {
		*x.deferred = append(*x.deferred, fn)
		return
	}
	fn()
}

// inGroup reports whether the command runs inside an atomic group
// (MULTI/EXEC, a script), where blocking commands may not block.
func (x *ctx) inGroup() bool { return x.deferred != nil }

// db is the client's selected database.
func (x *ctx) db() int {
	if x.scriptDB != nil {
		return *x.scriptDB
	}
	return int(x.cl.db.Load())
}

func (s *Server) register(e *cmdEntry) {
	if e.run == nil && e.spec.CheckArity(1) {
		// dispatch runs a container called without a subcommand when its
		// arity allows that (COMMAND); it must have a handler for it.
		panic("server: command " + e.spec.Name + " accepts no arguments but has no handler")
	}
	if len(e.subs) > 0 {
		e.spec.Subcommands = make([]*command.Spec, len(e.subs))
		for i := range e.subs {
			e.spec.Subcommands[i] = e.subs[i].spec
			s.handlers[e.subs[i].spec] = &e.subs[i]
		}
	}
	s.table.Add(e.spec)
	s.handlers[e.spec] = e
}

// dispatch runs one command: lookup, arity, authentication, locking, the
// handler, and the commit, in that order, the same for every command.
func (s *Server) dispatch(c *client, args [][]byte) {
	c.startReply()
	defer c.endReply()
	spec := s.table.Lookup(args[0])
	if spec == nil {
		c.setLastCmd("")
		s.reject(c, nil, unknownCommand(args))
		return
	}
	// A container with a second argument is that subcommand; alone, it is
	// checked (and, for COMMAND, run) as itself, as Redis looks commands up.
	if len(spec.Subcommands) > 0 && len(args) > 1 {
		sub := s.table.LookupSub(spec, args[1])
		if sub == nil {
			// Redis knows no command here, so no command's statistics
			// count the rejection and CLIENT LIST shows cmd=NULL.
			c.setLastCmd("")
			s.reject(c, nil, "ERR unknown subcommand '"+truncate(cstr(string(args[1])), 128)+"'. Try "+strings.ToUpper(spec.Name)+" HELP.")
			return
		}
		spec = sub
	}
	e := s.handlers[spec]
	// Redis records the command as the client's last before checking it,
	// so CLIENT LIST shows a rejected command and the command running.
	c.setLastCmd(spec.Name)
	if !spec.CheckArity(len(args)) {
		e.stats.rejected.Add(1)
		s.reject(c, spec, "ERR wrong number of arguments for '"+spec.Name+"' command")
		return
	}
	// protected.go: DEBUG and MODULE LOAD run only for the clients their
	// enable-*-command setting allows, checked before authentication as
	// in Redis.
	if spec.Flags&command.Protected != 0 {
		if msg := s.protectedError(c, e); msg != "" {
			e.stats.rejected.Add(1)
			s.reject(c, spec, msg)
			return
		}
	}
	if spec.Flags&command.NoAuth == 0 && c.authRequired() {
		e.stats.rejected.Add(1)
		s.reject(c, spec, "NOAUTH Authentication required.")
		return
	}
	// acl.go: the user's permissions, after authentication as in Redis;
	// a command MULTI refuses is refused by queue first.
	if c.multi == nil || spec.Flags&command.NoMulti == 0 {
		if msg := s.checkACL(c, e, args, aclContext(c)); msg != "" {
			e.stats.rejected.Add(1)
			s.reject(c, spec, msg)
			return
		}
	}
	if msg := s.replicaError(c, spec); msg != "" { // replica.go
		e.stats.rejected.Add(1)
		s.reject(c, spec, msg)
		return
	}
	if msg := c.subscribedModeError(spec); msg != "" {
		e.stats.rejected.Add(1)
		s.reject(c, spec, msg)
		return
	}
	if msg := s.busyError(spec, args); msg != "" {
		e.stats.rejected.Add(1)
		s.reject(c, spec, msg)
		return
	}
	// diag.go: a client in MONITOR mode may not touch the keyspace.
	if msg := s.monitorClientError(c, spec); msg != "" {
		e.stats.rejected.Add(1)
		s.reject(c, spec, msg)
		return
	}
	if !s.waitPause(c, spec) {
		return
	}
	if c.multi != nil && !inMultiPassThrough(spec.Name) {
		s.queue(c, spec, args)
		return
	}
	if !joinsPipeline(spec) || sortOwnTx(spec, args) || e.ownTx {
		// The commit of the writes pipelined before this command is
		// theirs: it is not timed as this command's.
		s.commitPipeline(c)
	}
	if c.trk.Load() != nil {
		s.trackRead(c, spec, args)
		if !strings.HasPrefix(spec.Name, "client|") {
			// CLIENT CACHING applies to the next command (or
			// transaction) only, as in Redis.
			defer func() {
				if c.multi == nil {
					c.trkCaching = false
				}
			}()
		}
	}
	start := time.Now()
	c.lastCmdAt.Store(start.UnixMilli())
	if s.monitoring() && spec.Flags&command.SkipMonitor != 0 && isScriptCall(spec) {
		// diag.go: a script's call shows before its commands, as in Redis.
		s.sendMonitorLine(c, int(c.db.Load()), false, args)
	}
	failed, req := s.execute(c, spec, e, args, false)
	ran := time.Since(start)
	// diag.go: monitors see the command once, when it first ran.
	s.feedMonitors(c, spec, int(c.db.Load()), false, args)
	if req != nil {
		var more time.Duration
		var gone bool
		failed, more, gone = s.waitAndRetry(c, spec, e, args, req)
		if gone {
			// The client went away while it waited: the command never
			// completed, and Redis does not count it.
			s.stats.commands.Add(1)
			return
		}
		ran += more
	}
	e.stats.record(ran, failed, s.cfg.LatencyTracking())
	s.noteCommand(c, false, spec, args, ran) // diag.go: SLOWLOG, LATENCY
	// Counted after the command, as Redis counts it: only commands that
	// ran, and CONFIG RESETSTAT counts itself.
	s.stats.commands.Add(1)
}

// reject answers a command that does not run (spec, nil when unknown)
// with an error. A pipeline transaction commits first, so that the replies
// it holds stay exactly its own commands' (see failPipeline). A refused
// EXEC discards the transaction, MULTI or not, and says why, as Redis's
// rejectCommand does.
func (s *Server) reject(c *client, spec *command.Spec, msg string) {
	s.commitPipeline(c)
	if spec != nil && spec.Name == "exec" {
		s.endMulti(c)
		// Redis formats most of these reasons without a code.
		s.replyError(c.w, "EXECABORT Transaction discarded because of: "+strings.TrimPrefix(msg, "ERR "))
		return
	}
	if c.multi != nil {
		// A command refused while queueing dooms the transaction.
		c.multi.aborted = true
	}
	s.replyError(c.w, msg)
}

// joinsPipeline reports whether a command is a plain write, which shares
// the transaction of the client's pipelined writes (see runPipelined); any
// other command commits that transaction first.
func joinsPipeline(spec *command.Spec) bool {
	return spec.Flags&(command.Write|command.LockAll|command.Blocking) == command.Write
}

// execute runs a command once: it opens the store transaction the spec
// calls for, runs the handler, commits, and wakes clients blocked on the
// keys the commit changed. It returns whether the reply was an error, and
// the handler's block request when it found nothing to serve.
//
// Consecutive plain writes from one client's pipeline share a transaction
// (see joinPipeline), committed once before the client's replies go out.
func (s *Server) execute(c *client, spec *command.Spec, e *cmdEntry, args [][]byte, woken bool) (failed bool, blocked *blockRequest) {
	w := c.w
	// The ctx and key buffers live in the client, so a command allocates
	// nothing here.
	x := &c.ctx
	*x = ctx{srv: s, cl: c, w: w, args: args, woken: woken}
	if joinsPipeline(spec) && !sortOwnTx(spec, args) && !e.ownTx {
		s.runPipelined(c, spec, e, args)
		return x.failed, nil
	}
	// Any other command finds the client's pipeline committed: dispatch
	// commits it before it starts the command's clock.
	// A handler that panics must not leave its keys locked: the connection
	// dies (conn.serve recovers), the transaction is released here.
	defer func() {
		if x.tx != nil {
			x.tx.Close()
			x.tx = nil
		}
	}()
	switch {
	case spec.Name == "sort":
		x.tx = s.beginSort(c, spec, args)
	case e.ownTx:
		x.tx = s.st.Read(true)
	case spec.Flags&command.LockAll != 0:
		x.tx = s.st.BeginAll()
	case spec.Flags&command.Write != 0 || e.rewrites:
		x.tx = s.st.Begin(c.commandKeys(spec, args))
	case spec.Flags&command.ReadOnly != 0:
		// Commands reading several keys read them from one snapshot.
		x.tx = s.st.Read(spec.Last != spec.First || spec.Flags&command.MovableKeys != 0)
	}
	if x.tx != nil && !c.touches(spec) {
		x.tx.SetTouch(false)
	}
	writing := x.tx != nil && x.tx.Writable()
	mark := 0
	if writing {
		mark = w.Hold()
		x.tx.DeferSync()
	}
	e.run(x)
	if writing {
		// A command about to block may have written already (XREADGROUP
		// creates its consumer, as Redis 7.2 does before it blocks):
		// that commits before it waits.
		if !x.failed || x.keepWrites {
			if err := x.tx.Commit(); err != nil {
				// Nothing was written: take back the reply the handler
				// prepared and report the failure instead.
				w.Truncate(mark)
				x.blocked = nil
				x.internalError(err)
				if x.commitFailed != nil {
					x.commitFailed()
				}
			} else {
				c.needSync = c.needSync || x.tx.SyncPending
				s.keysModified(x.tx, c)
				if x.afterCommit != nil {
					x.afterCommit()
				}
			}
		}
		// The locks go before the replies: releasing the hold may write
		// to a slow client's socket.
		x.tx.Close()
		x.tx = nil
		w.Release()
	}
	if x.tx != nil {
		// A command that wrote nothing may have recorded "keymiss"
		// events: with no commit to wait for they go out now, as Redis
		// publishes them while the command runs, error reply or not.
		if x.tx.HasEvents() {
			s.publishEvents(x.tx)
		}
		x.tx.Close()
		x.tx = nil
	}
	return x.failed, x.blocked
}

// commandKeys lists the keys of a command, in the client's scratch space.
func (c *client) commandKeys(spec *command.Spec, args [][]byte) [][]byte {
	c.keyIdx = spec.AppendKeyIndices(c.keyIdx[:0], args)
	c.keys = c.keys[:0]
	for _, k := range c.keyIdx {
		c.keys = append(c.keys, args[k])
	}
	return c.keys
}

// Limits on what one pipeline transaction gathers before it commits (in
// commands, and in bytes written and replies held): its locks keep other
// clients off its keys, and its replies wait for it in memory.
const (
	maxPipelineCommands = 256
	maxPipelineBytes    = 1 << 20
)

// runPipelined runs a plain write (not blocking, not locking everything) in
// the client's pipeline transaction. Pebble's commit is most of a small
// write's cost, so a pipeline of writes shares one: the transaction stays
// open while more of the client's input is already buffered, and commits
// before the next command of another kind, before the client's input runs
// out (flushingReader), or when it grows past the limits above. The
// replies are held until then, so nothing is acknowledged uncommitted.
//
// The transaction gains each command's locks without waiting (Tx.TryLock);
// if another transaction holds one, this one commits first and the command
// starts a new one, so no client ever waits for a lock while holding one.
// A command that fails has its writes rolled back (Tx.RollbackCommand),
// which leaves the other commands' writes in place: each command is still
// atomic on its own.
func (s *Server) runPipelined(c *client, spec *command.Spec, e *cmdEntry, args [][]byte) {
	x := &c.ctx
	keys := c.commandKeys(spec, args)
	if c.pipe != nil && !c.pipe.TryLock(keys) {
		s.commitPipeline(c)
	}
	if c.pipe == nil {
		c.pipe = s.st.Begin(keys)
		c.pipe.DeferSync()
		c.pipeMark = c.w.Hold()
	}
	x.tx = c.pipe
	x.tx.SetTouch(c.touches(spec))
	mark := x.tx.StartCommand()
	e.run(x)
	x.tx = nil
	c.pipeReplies++
	if x.failed && !x.keepWrites {
		if err := c.pipe.RollbackCommand(mark); err != nil {
			s.failPipeline(c, err)
			return
		}
	} else {
		c.pipeWrites++
	}
	if (c.r.Buffered() == 0 && !s.isMasterClient(c)) || c.pipeReplies >= maxPipelineCommands ||
		c.pipe.Size() >= maxPipelineBytes || c.w.Buffered()-c.pipeMark >= maxPipelineBytes {
		s.commitPipeline(c)
	}
}

// commitPipeline commits the client's pipeline transaction, if it has one,
// wakes the clients blocked on the keys it changed and lets its replies go.
func (s *Server) commitPipeline(c *client) {
	tx := c.pipe
	if tx == nil {
		return
	}
	if c.pipeWrites > 0 {
		if err := tx.Commit(); err != nil {
			s.failPipeline(c, err)
			return
		}
		c.needSync = c.needSync || tx.SyncPending
		s.keysModified(tx, c)
	}
	s.endPipeline(c)
}

// failPipeline reports that the pipeline transaction could not be written:
// nothing of it was committed, so every reply it held becomes the error.
func (s *Server) failPipeline(c *client, err error) {
	c.w.Truncate(c.pipeMark)
	s.log.Error("commit failed", "client", c.id, "commands", c.pipeReplies, "err", err)
	msg := "ERR " + err.Error()
	if errors.Is(err, store.ErrEngineFailed) {
		msg = "MISCONF Errors writing to the AOF file: " + err.Error()
	}
	for range c.pipeReplies {
		s.replyError(c.w, msg)
	}
	s.endPipeline(c)
}

func (s *Server) endPipeline(c *client) {
	c.pipe.Close()
	c.pipe = nil
	c.pipeWrites, c.pipeReplies = 0, 0
	c.w.Release()
}

// waitAndRetry parks a client whose blocking command found nothing, and runs
// the command again each time one of its keys changes, until it is served,
// times out or the client goes away. It returns whether the reply was an
// error, how long the command ran (its runs and the timeout reply, not the
// wait), and whether the client went away before a reply.
func (s *Server) waitAndRetry(c *client, spec *command.Spec, e *cmdEntry, args [][]byte, req *blockRequest) (failed bool, ran time.Duration, gone bool) {
	wt := &waiter{cl: c, wake: make(chan struct{}, 1), timed: !req.deadline.IsZero()}
	db := int(c.db.Load())
	for _, k := range req.keys {
		wt.keys = append(wt.keys, blockKey{db: db, key: string(k)})
	}
	s.blocked.add(wt)
	defer s.blocked.remove(wt)
	// A CLIENT UNBLOCK meant for an earlier wait is stale.
	select {
	case <-c.unblock:
	default:
	}
	c.unblockErr = false
	c.setBlocked(true)
	defer c.setBlocked(false)
	// Replies to commands pipelined before this one go out before it waits.
	if err := c.w.Flush(); err != nil {
		return false, ran, true
	}
	// The connection is read while the client waits, so that a hang-up
	// takes it out of the queues at once.
	in := c.watchInput()
	defer in.stop()
	// ran is the time the command ran, which Redis's statistics count, not
	// the time it waited.
	timedOut := func() (bool, time.Duration, bool) {
		if c.killed.Load() {
			// Killed or hung up while waiting: no reply can reach it.
			return false, ran, true
		}
		start := time.Now()
		x := &c.ctx
		*x = ctx{srv: s, cl: c, w: c.w, args: args}
		if c.unblockErr {
			x.errorReply("UNBLOCKED client unblocked via CLIENT UNBLOCK")
		} else {
			req.timeout(x)
		}
		return x.failed, ran + time.Since(start), false
	}
	for {
		// The waiter is queued and awake, so a change committed since the
		// previous run either shows in this run or marks the waiter
		// changed: no push can slip in between a run and the wait.
		start := time.Now()
		failed, again := s.execute(c, spec, e, args, true)
		ran += time.Since(start)
		if again == nil {
			return failed, ran, false
		}
		if s.blocked.sleep(wt) {
			if !s.waitBlockedUnlocked(c, wt, in, req.deadline) {
				return timedOut()
			}
		} else if (!req.deadline.IsZero() && !time.Now().Before(req.deadline)) || in.ended(s) {
			return timedOut()
		}
	}
}

// unknownCommand is Redis's reply text for a command it does not know: the
// quoted arguments are cut off once 128 bytes of them have been written.
// Each name is cut at a NUL byte, where Redis's %s formatting stops.
func unknownCommand(args [][]byte) string {
	var quoted strings.Builder
	for _, a := range args[1:] {
		room := 128 - quoted.Len()
		if room <= 0 {
			break
		}
		quoted.WriteByte('\'')
		quoted.WriteString(truncate(cstr(string(a)), room))
		quoted.WriteString("' ")
	}
	return "ERR unknown command '" + truncate(cstr(string(args[0])), 128) + "', with args beginning with: " + quoted.String()
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// errorStats are INFO's total_error_replies and errorstats section: error
// replies counted by their code, the first word of the text.
type errorStats struct {
	total  atomic.Int64
	mu     sync.Mutex
	byCode map[string]int64
}

// maxErrorCodes bounds the distinct codes tracked, as Redis's
// ERROR_STATS_NUMBER does, so arbitrary script errors cannot grow it.
const maxErrorCodes = 128

func (e *errorStats) count(msg string) {
	e.total.Add(1)
	// Redis looks for the space ending the code within the first 32 bytes
	// of the reply, its leading '-' included, and says ERR otherwise.
	code := "ERR"
	if i := strings.IndexByte(msg[:min(len(msg), 31)], ' '); i >= 0 {
		code = msg[:i]
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.byCode == nil {
		e.byCode = map[string]int64{}
	}
	if _, ok := e.byCode[code]; ok {
		e.byCode[code]++
	} else if len(e.byCode) < maxErrorCodes {
		// Cloned, so the key does not keep the whole message alive.
		e.byCode[strings.Clone(code)] = 1
	}
}

func (e *errorStats) reset() {
	e.total.Store(0)
	e.mu.Lock()
	e.byCode = nil
	e.mu.Unlock()
}

// replyError writes an error reply and counts it.
func (s *Server) replyError(w *resp.Writer, msg string) {
	s.stats.errors.count(msg)
	w.Error(msg)
}

// errorReply writes a Redis error reply.
func (x *ctx) errorReply(msg string) {
	x.failed = true
	x.srv.replyError(x.w, msg)
}

// storeError replies to an error from the store: a user error goes out as
// its text, anything else is an engine failure.
func (x *ctx) storeError(err error) {
	var ue store.Error
	if errors.As(err, &ue) {
		x.errorReply(string(ue))
		return
	}
	x.internalError(err)
}

func (x *ctx) internalError(err error) {
	x.srv.log.Error("command failed", "command", string(x.args[0]), "err", err)
	if errors.Is(err, store.ErrEngineFailed) {
		// Redis's reply when it cannot persist writes any more.
		x.errorReply("MISCONF Errors writing to the AOF file: " + err.Error())
		return
	}
	x.errorReply("ERR " + err.Error())
}

// replyInt and replyBool answer a store call that returns a count or a
// yes/no: the error reply, or the integer.
func (x *ctx) replyInt(n int64, err error) {
	if err != nil {
		x.storeError(err)
		return
	}
	x.w.Int(n)
}

func (x *ctx) replyBool(ok bool, err error) {
	if err != nil {
		x.storeError(err)
		return
	}
	x.w.Int(boolInt(ok))
}

// replyBulkOrNil answers a store lookup: the error reply, a nil for an
// absent value, or the value.
func (x *ctx) replyBulkOrNil(v []byte, found bool, err error) {
	switch {
	case err != nil:
		x.storeError(err)
	case !found:
		x.w.NullBulk()
	default:
		x.w.Bulk(v)
	}
}

func (x *ctx) syntaxError()        { x.errorReply("ERR syntax error") }
func (x *ctx) notInteger()         { x.errorReply("ERR value is not an integer or out of range") }
func (x *ctx) ok()                 { x.w.SimpleString("OK") }
func (x *ctx) arg(i int) []byte    { return x.args[i] }
func (x *ctx) argStr(i int) string { return string(x.args[i]) }
