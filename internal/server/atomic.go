package server

import (
	"errors"
	"strings"
	"time"

	"github.com/cairndb/cairn/internal/command"
	"github.com/cairndb/cairn/internal/resp"
	"github.com/cairndb/cairn/internal/store"
)

// An atomic group is a run of commands that commits as one store
// transaction — one batch, one log record a replica could replay — and that
// no other client observes half done: MULTI/EXEC, a Lua script, a function.
//
// Atomicity without a global lock: a group locks the stripes of every key
// it will touch, in stripe order, before it runs (Store.Begin), exactly as
// a single multi-key command does, so groups and commands on disjoint keys
// run in parallel. EXEC knows its keys from the queued commands' specs
// (and the WATCHed keys). A script declares its keys, but Redis lets it
// touch others; a command of the group whose keys are not locked takes
// their locks without waiting (Tx.TryLock). If another transaction holds
// one, the run is abandoned — nothing of it was committed or sent, since
// replies, publishes and wake-ups wait for the commit — and the script
// runs again from the start holding the larger key set (lockRetry). A
// command that must exclude every writer (FLUSHALL, SWAPDB), or a read of
// the whole keyspace (KEYS, SCAN, DBSIZE, RANDOMKEY), asks for the
// exclusive lock the same way. A read-only script (EVAL_RO, no-writes)
// takes no locks: it reads one consistent view of the store.

// errGroupRetry reports that a group's command needs keys it could not
// lock without waiting: the group must be closed and run again with the
// keys it wanted (group.wantedKeys).
var errGroupRetry = errors.New("server: the group needs more locks")

// groupKind says whose restrictions a group's commands obey.
type groupKind uint8

const (
	groupMulti groupKind = iota
	groupScript
	// groupScriptRO is a script that may not write (EVAL_RO, FCALL_RO,
	// no-writes): it runs on a view, without locks.
	groupScriptRO
)

// group is an atomic group of commands in progress.
type group struct {
	s    *Server
	c    *client
	kind groupKind
	tx   *store.Tx
	// lockAll is set when tx excludes every writer.
	lockAll bool
	// deferred is what must wait for the commit (ctx.later, afterCommit).
	deferred []func()
	// wanted are keys a command could not lock (copied), needAll whether
	// one asked for the exclusive lock; see errGroupRetry.
	wanted  [][]byte
	needAll bool
	// db is the database a script's commands use: a script starts in its
	// caller's and SELECT inside it changes only its own (Redis 7).
	db *int
	// wrote is set once a write command of the group has run, whether or
	// not it changed anything: Redis's SCRIPT_WRITE_DIRTY, which makes a
	// script unkillable.
	wrote bool
	// scriptKeys are a script's declared keys, which its reads are
	// tracked by (trackScriptRead).
	scriptKeys [][]byte

	keyIdx []int
	keys   [][]byte
}

// beginGroup opens a group over keys (repeats allowed), excluding every
// writer when lockAll.
func (s *Server) beginGroup(c *client, kind groupKind, keys [][]byte, lockAll bool) *group {
	g := &group{s: s, c: c, kind: kind, lockAll: lockAll}
	switch {
	case kind == groupScriptRO:
		g.tx = s.st.Read(true)
	case lockAll:
		g.tx = s.st.BeginAll()
	default:
		g.tx = s.st.Begin(keys)
	}
	if g.tx.Writable() {
		g.tx.DeferSync()
	}
	return g
}

// wantedKeys returns the keys a retry must lock besides those it had, and
// whether it must exclude every writer.
func (g *group) wantedKeys() ([][]byte, bool) { return g.wanted, g.needAll }

// scriptError writes the error a script gets for a command it may not
// run (dispatch's own checks have other texts). As Redis's scriptCall
// does, the error counts in the error statistics, and as a rejected call
// of the command when there is one.
func (g *group) scriptError(w *resp.Writer, spec *command.Spec, msg string) {
	if spec != nil {
		g.s.handlers[spec].stats.rejected.Add(1)
	}
	g.s.replyError(w, msg)
}

// run executes one command of the group, args[0] naming it, writing its
// reply to w. It makes the checks dispatch makes for a command of this
// kind of group (MULTI's were made while queueing). It returns
// errGroupRetry, having written nothing, when the command's keys cannot be
// locked without waiting.
func (g *group) run(args [][]byte, w *resp.Writer) (failed bool, err error) {
	s := g.s
	spec := s.table.Lookup(args[0])
	if spec != nil && len(spec.Subcommands) > 0 && len(args) > 1 {
		if sub := s.table.LookupSub(spec, args[1]); sub != nil {
			spec = sub
		} else if g.kind != groupMulti {
			spec = nil
		}
	}
	if g.kind != groupMulti {
		switch {
		case spec == nil:
			g.scriptError(w, nil, "ERR Unknown Redis command called from script")
			return true, nil
		case !spec.CheckArity(len(args)):
			g.scriptError(w, spec, "ERR Wrong number of args calling Redis command from script")
			return true, nil
		case spec.Flags&command.NoScript != 0:
			g.scriptError(w, spec, "ERR This Redis command is not allowed from script")
			return true, nil
		}
	}
	// acl.go: the user's permissions, checked again at EXEC as Redis
	// does (they may have changed since the command was queued), and for
	// every command a script calls.
	if msg := g.aclCheck(spec, args); msg != "" {
		if g.kind == groupMulti {
			s.replyError(w, msg)
		} else {
			g.scriptError(w, spec, msg)
		}
		return true, nil
	}
	if g.kind != groupMulti {
		switch {
		case g.kind == groupScriptRO && spec.Flags&(command.Write|command.MayReplicate) != 0:
			// Redis counts a may-replicate command (PFCOUNT) as a write
			// here.
			g.scriptError(w, spec, "ERR Write commands are not allowed from read-only scripts.")
			return true, nil
		case spec.Flags&command.Write != 0 && s.replicaRefusesWrite(g.c): // replica.go
			g.scriptError(w, spec, "READONLY You can't write against a read only replica.")
			return true, nil
		}
	}
	e := s.handlers[spec]
	if g.kind != groupScriptRO {
		if err := g.lock(spec, args); err != nil {
			return false, err
		}
	}
	if spec.Flags&command.Write != 0 {
		g.wrote = true
	}
	if g.c.trk.Load() != nil {
		if g.kind == groupMulti {
			s.trackRead(g.c, spec, args)
		} else {
			s.trackScriptRead(g.c, spec, g.scriptKeys)
		}
	}
	start := time.Now()
	x := &ctx{srv: s, cl: g.c, w: w, tx: g.tx, args: args, deferred: &g.deferred, scriptDB: g.db, group: g}
	g.tx.SetTouch(g.c.touches(spec))
	var mark store.CommandMark
	if g.tx.Writable() {
		mark = g.tx.StartCommand()
	}
	s.feedGroupScriptCall(g, spec, args) // diag.go
	e.run(x)
	if x.blocked != nil {
		// Inside a group a blocking command does not wait: it answers
		// as if its timeout had passed, as Redis's do inside MULTI and
		// scripts.
		req := x.blocked
		x.blocked = nil
		req.timeout(x)
	}
	if g.tx.Writable() {
		if x.failed && !x.keepWrites {
			if err := g.tx.RollbackCommand(mark); err != nil {
				return true, err
			}
		}
	}
	if x.afterCommit != nil {
		g.deferred = append(g.deferred, x.afterCommit)
	}
	ran := time.Since(start)
	e.stats.record(ran, x.failed, s.cfg.LatencyTracking())
	s.noteCommand(g.c, g.kind != groupMulti, spec, args, ran)
	s.feedGroupMonitors(g, spec, args)
	s.stats.commands.Add(1)
	return x.failed, nil
}

// lock makes sure the group holds the locks the command needs.
func (g *group) lock(spec *command.Spec, args [][]byte) error {
	if g.lockAll {
		return nil
	}
	if needsAllLocks(spec, args) {
		g.needAll = true
		return errGroupRetry
	}
	g.keyIdx = spec.AppendKeyIndices(g.keyIdx[:0], args)
	g.keys = g.keys[:0]
	for _, i := range g.keyIdx {
		g.keys = append(g.keys, args[i])
	}
	if g.tx.TryLock(g.keys) {
		return nil
	}
	for _, k := range g.keys {
		g.wanted = append(g.wanted, append([]byte(nil), k...))
	}
	return errGroupRetry
}

// needsAllLocks reports whether a command inside a group needs every
// writer excluded: it does itself (FLUSHALL, SWAPDB), or it reads the
// whole keyspace (KEYS, SCAN, DBSIZE, RANDOMKEY) or keys its arguments do
// not name (SORT's BY and GET patterns), which another writer must not
// change under the group's feet.
func needsAllLocks(spec *command.Spec, args [][]byte) bool {
	if sortDerefs(spec, args) {
		return true
	}
	if spec.Flags&command.LockAll != 0 || runsScript(spec) {
		// A script inside a transaction may touch keys it did not
		// declare, and a transaction cannot start again: it holds them
		// all from the start.
		return true
	}
	return spec.Flags&command.ReadOnly != 0 && len(spec.KeySpecs) == 0 && spec.KeysFunc == nil
}

// runsScript reports whether a command runs a script or function.
func runsScript(spec *command.Spec) bool {
	switch spec.Name {
	case "eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro":
		return true
	}
	return false
}

// groupNeedsAll reports whether any of a group's commands (specs[i] with
// args[i]) needs every writer excluded.
func groupNeedsAll(specs []*command.Spec, args [][][]byte) bool {
	for i, sp := range specs {
		if needsAllLocks(sp, args[i]) {
			return true
		}
	}
	return false
}

// commit makes the group's writes durable and visible, then lets out what
// waited for them: blocked clients and WATCHers learn of the keys changed,
// and deferred effects (publishes) run. A failed commit wrote nothing.
func (g *group) commit() error {
	if g.tx.Writable() {
		if err := g.tx.Commit(); err != nil {
			return err
		}
		g.c.needSync = g.c.needSync || g.tx.SyncPending
		g.s.keysModified(g.tx, g.c)
	} else if g.tx.HasEvents() {
		// A read-only script's "keymiss" events: nothing to commit.
		g.s.publishEvents(g.tx)
	}
	g.tx.Close()
	g.tx = nil
	for _, fn := range g.deferred {
		fn()
	}
	g.deferred = nil
	return nil
}

// close discards whatever the group did not commit and releases its locks.
func (g *group) close() {
	if g.tx != nil {
		g.tx.Close()
		g.tx = nil
	}
}

// commitError is the error reply for a group whose commit failed.
func commitError(err error) string {
	if errors.Is(err, store.ErrEngineFailed) {
		return "MISCONF Errors writing to the AOF file: " + err.Error()
	}
	return "ERR " + strings.TrimPrefix(err.Error(), "ERR ")
}
