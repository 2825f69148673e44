package server

import (
	"bytes"
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairndb/cairn/internal/acl"
	"github.com/cairndb/cairn/internal/command"
	"github.com/cairndb/cairn/internal/rdb"
	"github.com/cairndb/cairn/internal/resp"
	"github.com/cairndb/cairn/internal/script"
	"github.com/cairndb/cairn/internal/script/lualib"
)

// Scripts and functions run as atomic groups (see atomic.go): a script
// locks its declared keys, takes any other key it touches without waiting,
// and is run again from the start with the larger key set when another
// transaction holds one. Its reply, its writes and everything it publishes
// wait for its commit.

func scriptingCommands() []cmdEntry {
	sc := command.CatScripting
	// evalKeys gives EVAL-like commands their keys: numkeys at 2, the
	// keys after it (Redis's evalGetKeys).
	evalKeys := func(e cmdEntry, f command.KeyFlag, notes string) cmdEntry {
		e.spec.Flags |= command.MovableKeys
		e.spec.KeySpecs = []command.KeySpec{{Flags: f, Notes: notes, Begin: command.IndexSearch(2), Find: command.KeyNumKeys(0, 1, 1)}}
		e.spec.KeysFunc = command.NumKeysFunc(0, 2, 3, 1)
		return e
	}
	const worst = "We cannot tell how the keys will be used so we assume the worst, RW and UPDATE"
	const evalFlags = noscript | command.SkipMonitor | command.MayReplicate | command.NoMandatoryKeys | stale
	const roFlags = noscript | command.SkipMonitor | command.NoMandatoryKeys | stale | readonly
	return []cmdEntry{
		evalKeys(def("eval", -3, evalFlags, noKeys, sc, "scripting", "2.6.0", "Executes a server-side Lua script.", cmdEval), rw|acc|upd, worst),
		evalKeys(def("evalsha", -3, evalFlags, noKeys, sc, "scripting", "2.6.0", "Executes a server-side Lua script by SHA1 digest.", cmdEvalSHA), rw|acc|upd, ""),
		evalKeys(def("eval_ro", -3, roFlags, noKeys, sc, "scripting", "7.0.0", "Executes a read-only server-side Lua script.", cmdEvalRO), ro|acc, "We cannot tell how the keys will be used so we assume the worst, RO and ACCESS"),
		evalKeys(def("evalsha_ro", -3, roFlags, noKeys, sc, "scripting", "7.0.0", "Executes a read-only server-side Lua script by SHA1 digest.", cmdEvalSHARO), ro|acc, ""),
		evalKeys(def("fcall", -3, evalFlags, noKeys, sc, "scripting", "7.0.0", "Invokes a function.", cmdFCall), rw|acc|upd, worst),
		evalKeys(def("fcall_ro", -3, roFlags, noKeys, sc, "scripting", "7.0.0", "Invokes a read-only function.", cmdFCallRO), ro|acc, "We cannot tell how the keys will be used so we assume the worst, RO and ACCESS"),
		container("script", "scripting", "2.6.0", "A container for Lua scripts management commands.", 0,
			def("script|load", 3, noscript|stale, noKeys, sc, "scripting", "2.6.0", "Loads a server-side Lua script to the script cache.", cmdScriptLoad),
			def("script|exists", -3, noscript, noKeys, sc, "scripting", "2.6.0", "Determines whether server-side Lua scripts exist in the script cache.", cmdScriptExists),
			def("script|flush", -2, noscript, noKeys, sc, "scripting", "2.6.0", "Removes all server-side Lua scripts from the script cache.", cmdScriptFlush),
			def("script|kill", 2, noscript|command.AllowBusy, noKeys, sc, "scripting", "2.6.0", "Terminates a server-side Lua script during execution.", cmdScriptKill),
			def("script|help", 2, loading|stale, noKeys, sc, "scripting", "5.0.0", "Returns helpful text about the different subcommands.", cmdScriptHelp),
		),
		container("function", "scripting", "7.0.0", "A container for function commands.", 0,
			def("function|load", -3, noscript|write|denyoom|command.LockAll, noKeys, sc, "scripting", "7.0.0", "Creates a library.", cmdFunctionLoad),
			def("function|delete", 3, noscript|write|command.LockAll, noKeys, sc, "scripting", "7.0.0", "Deletes a library and its functions.", cmdFunctionDelete),
			def("function|flush", -2, noscript|write|command.LockAll, noKeys, sc, "scripting", "7.0.0", "Deletes all libraries and functions.", cmdFunctionFlush),
			def("function|restore", -3, noscript|write|denyoom|command.LockAll, noKeys, sc, "scripting", "7.0.0", "Restores all libraries from a payload.", cmdFunctionRestore),
			def("function|dump", 2, noscript, noKeys, sc, "scripting", "7.0.0", "Dumps all libraries into a serialized binary payload.", cmdFunctionDump),
			def("function|list", -2, noscript, noKeys, sc, "scripting", "7.0.0", "Returns information about all libraries.", cmdFunctionList),
			def("function|stats", 2, noscript|command.AllowBusy, noKeys, sc, "scripting", "7.0.0", "Returns information about a function during execution.", cmdFunctionStats),
			def("function|kill", 2, noscript|command.AllowBusy, noKeys, sc, "scripting", "7.0.0", "Terminates a function during execution.", cmdFunctionKill),
			def("function|help", 2, loading|stale, noKeys, sc, "scripting", "7.0.0", "Returns helpful text about the different subcommands.", cmdFunctionHelp),
		),
	}
}

// initScripting starts the Lua engine and loads the stored libraries.
func (s *Server) initScripting() {
	s.scripts = script.NewEngine(script.Options{
		Libraries:  lualib.OpenAll,
		Version:    RedisVersion,
		VersionNum: redisVersionNum(RedisVersion),
		Log:        s.scriptLog,
		MemoryLimit: func() int64 {
			if s.cfg == nil {
				return script.DefaultMemoryLimit
			}
			return s.cfg.ScriptMemoryLimit()
		},
		Freed: s.trim.Freed,
	})
	if s.st == nil {
		return
	}
	codes, err := s.st.FunctionLibraries()
	if err == nil {
		err = s.scripts.RestoreLibraries(context.Background(), codes, script.RestoreAppend)
	}
	if err != nil {
		s.log.Error("loading the stored function libraries failed", "err", err)
	}
}

// redisVersionNum is REDIS_VERSION_NUM: 0x00MMmmpp.
func redisVersionNum(v string) int {
	n := 0
	for _, part := range strings.SplitN(v, ".", 3) {
		d, _ := strconv.Atoi(part)
		n = n<<8 | d&0xff
	}
	return n
}

func (s *Server) scriptLog(level int, msg string) {
	switch level {
	case script.LogDebug:
		s.log.Debug(msg, "from", "script")
	case script.LogVerbose:
		s.log.Debug(msg, "from", "script")
	case script.LogNotice:
		s.log.Info(msg, "from", "script")
	default:
		s.log.Warn(msg, "from", "script")
	}
}

// scriptRun is a script or function running now, for BUSY, SCRIPT KILL,
// FUNCTION KILL and FUNCTION STATS. start and cancel change with each
// attempt of a run (see runScript's retries): they are read and written
// under scriptRuns.mu only.
type scriptRun struct {
	start    time.Time
	function bool
	// name is the function's name; command the command that ran it,
	// whose bytes are the caller's request buffer: read them only under
	// scriptRuns.mu while the run is registered (see oldestCommand).
	name    string
	command [][]byte
	cancel  context.CancelFunc
	// wrote is set once the run has written: it can no longer be killed.
	wrote atomic.Bool
}

// scriptRuns are the runs in progress.
type scriptRuns struct {
	count atomic.Int64
	mu    sync.Mutex
	runs  map[*scriptRun]struct{}
	// closed is set by cancelAll: the server is shutting down, and a run
	// that starts now (a command already on its way, a retry of a run
	// cancelled meanwhile) is stopped at once instead of keeping its
	// connection, and so the shutdown, waiting.
	closed bool
}

// add registers an attempt of run, started now, that cancel stops.
func (r *scriptRuns) add(run *scriptRun, cancel context.CancelFunc) {
	r.mu.Lock()
	run.start, run.cancel = time.Now(), cancel
	if r.runs == nil {
		r.runs = map[*scriptRun]struct{}{}
	}
	r.runs[run] = struct{}{}
	if r.closed {
		cancel()
	}
	r.mu.Unlock()
	r.count.Add(1)
}

func (r *scriptRuns) remove(run *scriptRun) {
	r.mu.Lock()
	delete(r.runs, run)
	r.mu.Unlock()
	r.count.Add(-1)
}

// oldestLocked is the run that started first, or nil; r.mu is held.
func (r *scriptRuns) oldestLocked() (o *scriptRun) {
	for run := range r.runs {
		if o == nil || run.start.Before(o.start) {
			o = run
		}
	}
	return o
}

// oldest returns the run that started first, or nil, with its start and
// cancel as they were while it was registered.
func (r *scriptRuns) oldest() (o *scriptRun, start time.Time, cancel context.CancelFunc) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if o = r.oldestLocked(); o == nil {
		return nil, time.Time{}, nil
	}
	return o, o.start, o.cancel
}

// oldestCommand is oldest with a copy of the run's command, taken while
// the run is registered and its arguments valid.
func (r *scriptRuns) oldestCommand() (o *scriptRun, start time.Time, command [][]byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if o = r.oldestLocked(); o == nil {
		return nil, time.Time{}, nil
	}
	command = make([][]byte, len(o.command))
	for i, a := range o.command {
		command[i] = bytes.Clone(a)
	}
	return o, o.start, command
}

// cancelAll stops every run (shutdown).
func (r *scriptRuns) cancelAll() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	for run := range r.runs {
		run.cancel()
	}
}

// Redis's replies while a script is busy.
const (
	errBusyEval     = "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."
	errBusyFunction = "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE."
)

// busyError is the reply to a command while a script has run past
// busy-reply-threshold, or "" when none has.
func (s *Server) busyError(spec *command.Spec, args [][]byte) string {
	if s.runs.count.Load() == 0 {
		return ""
	}
	if spec.Flags&command.AllowBusy != 0 && !(spec.Name == "shutdown" && !shutdownNoSave(args)) {
		return ""
	}
	run, start, _ := s.runs.oldest()
	if run == nil || time.Since(start) < s.cfg.BusyReplyThreshold() {
		return ""
	}
	if run.function {
		return errBusyFunction
	}
	return errBusyEval
}

// shutdownNoSave reports whether a SHUTDOWN asks for NOSAVE, which Redis
// lets through while a script is busy.
func shutdownNoSave(args [][]byte) bool {
	for _, a := range args[1:] {
		if optIs(a, "NOSAVE") {
			return true
		}
	}
	return false
}

// scriptHost runs the commands of one script run inside its group.
type scriptHost struct {
	g   *group
	run *scriptRun
	buf bytes.Buffer
	w   *resp.Writer
	// failed is set when the run wrote an error into its reply.
	failed bool
}

// hostPool keeps script hosts, with their reply writer's buffer, from run to
// run: a writer's first buffer is 16 KiB, which allocated per EVAL was a
// fifth of a one-command script's cost.
var hostPool = sync.Pool{New: func() any {
	h := new(scriptHost)
	h.w = resp.NewWriter(&h.buf)
	return h
}}

// maxPooledHostBuf bounds the reply buffer a pooled host keeps.
const maxPooledHostBuf = 1 << 20

func newScriptHost(g *group, run *scriptRun) *scriptHost {
	h := hostPool.Get().(*scriptHost)
	h.g, h.run = g, run
	return h
}

func (h *scriptHost) release() {
	h.g, h.run, h.failed = nil, nil, false
	if h.buf.Cap() > maxPooledHostBuf {
		return
	}
	h.buf.Reset()
	hostPool.Put(h)
}

func (h *scriptHost) Call(args [][]byte, proto int) ([]byte, error) {
	h.buf.Reset()
	h.w.SetProtocol(proto)
	if _, err := h.g.run(args, h.w); err != nil {
		return nil, err
	}
	if err := h.w.Flush(); err != nil {
		return nil, err
	}
	if h.g.wrote {
		h.run.wrote.Store(true)
	}
	return bytes.Clone(h.buf.Bytes()), nil
}

// ACLCheck answers redis.acl_check_cmd: whether the script's caller may
// run the command line; an unknown command is an error.
func (h *scriptHost) ACLCheck(args [][]byte) (bool, error) {
	s := h.g.s
	spec := s.table.Lookup(args[0])
	if spec == nil {
		return false, script.ErrACLUnknownCommand
	}
	if len(spec.Subcommands) > 0 && len(args) > 1 {
		if spec = s.table.LookupSub(spec, args[1]); spec == nil {
			return false, script.ErrACLUnknownCommand
		}
	}
	e := s.handlers[spec]
	r, _ := h.g.c.user.Load().Profile().Check(e.aclCmd, args)
	return r == acl.OK, nil
}

func (h *scriptHost) Log(level int, msg string) { h.g.s.scriptLog(level, msg) }

// ErrorReply counts an error the script replies with, unless it is a
// command's error reply passed on, counted when the command replied; the
// script's command fails either way (Redis's afterErrorReply).
func (h *scriptHost) ErrorReply(msg string, fromCommand bool) {
	h.failed = true
	if !fromCommand {
		h.g.s.stats.errors.count(msg)
	}
}

// maxScriptAttempts is how many times a script runs with the locks it
// gathered before it runs once more excluding every writer.
const maxScriptAttempts = 3

// runScript runs a script or function as an atomic group and writes its
// reply: exec runs it once against a host. ro makes it a read-only group.
func (x *ctx) runScript(run *scriptRun, ro bool, keys [][]byte, exec func(ctx context.Context, h script.Host, w *resp.Writer) error) {
	s, c := x.srv, x.cl
	kind := groupScript
	if ro {
		kind = groupScriptRO
	}
	if outer := x.group; outer != nil {
		x.runNestedScript(outer, run, kind, keys, exec)
		return
	}
	lockKeys := keys
	lockAll := false
	w := x.w
	mark := w.Hold()
	defer w.Release()
	for attempt := 1; ; attempt++ {
		g := s.beginGroup(c, kind, lockKeys, lockAll)
		g.scriptKeys = keys
		db := x.db()
		g.db = &db
		runCtx, cancel := context.WithCancel(context.Background())
		runCtx = script.WithRunCancel(runCtx, cancel)
		run.wrote.Store(false)
		s.runs.add(run, cancel)
		h := newScriptHost(g, run)
		err := exec(runCtx, h, w)
		failed := h.failed
		h.release()
		s.runs.remove(run)
		cancel()
		if errors.Is(err, errGroupRetry) {
			w.Truncate(mark)
			wanted, all := g.wantedKeys()
			g.close()
			lockKeys = append(lockKeys[:len(lockKeys):len(lockKeys)], wanted...)
			lockAll = all || attempt >= maxScriptAttempts
			continue
		}
		var killed *script.KilledError
		switch {
		case errors.As(err, &killed):
			w.Truncate(mark)
			g.close()
			x.errorReply(strings.TrimPrefix(killed.Reply, "-"))
		case err != nil:
			w.Truncate(mark)
			g.close()
			x.internalError(err)
		default:
			if err := g.commit(); err != nil {
				w.Truncate(mark)
				g.close()
				x.errorReply(commitError(err))
			} else if failed {
				x.failed = true
			}
		}
		return
	}
}

// runNestedScript runs a script inside a transaction (EVAL in MULTI): in
// the transaction's group, which holds every lock (see needsAllLocks) and
// commits it with the rest. Its writes stand even when it ends in an
// error reply, as a script's do.
func (x *ctx) runNestedScript(outer *group, run *scriptRun, kind groupKind, keys [][]byte, exec func(ctx context.Context, h script.Host, w *resp.Writer) error) {
	s := x.srv
	db := x.db()
	inner := &group{s: s, c: x.cl, kind: kind, tx: outer.tx, lockAll: outer.lockAll, db: &db, scriptKeys: keys}
	w := x.w
	mark := w.Buffered()
	runCtx, cancel := context.WithCancel(context.Background())
	runCtx = script.WithRunCancel(runCtx, cancel)
	s.runs.add(run, cancel)
	h := newScriptHost(inner, run)
	err := exec(runCtx, h, w)
	if h.failed {
		// A script's writes stand when it ends in an error reply.
		x.failed, x.keepWrites = true, true
	}
	h.release()
	s.runs.remove(run)
	cancel()
	outer.deferred = append(outer.deferred, inner.deferred...)
	outer.wrote = outer.wrote || inner.wrote
	var killed *script.KilledError
	switch {
	case errors.As(err, &killed):
		w.Truncate(mark)
		x.errorReply(strings.TrimPrefix(killed.Reply, "-"))
	case err != nil:
		w.Truncate(mark)
		x.internalError(err)
	}
}

// scriptArgs splits EVAL-like arguments after the script or function:
// numkeys, the keys and the arguments. badNumKeys is the reply to a
// numkeys that is not an integer: EVAL's and FCALL's differ.
func (x *ctx) scriptArgs(badNumKeys string) (keys, argv [][]byte, ok bool) {
	n, err := strconv.ParseInt(string(x.arg(2)), 10, 64)
	if err != nil {
		x.errorReply(badNumKeys)
		return nil, nil, false
	}
	switch {
	case n > int64(len(x.args)-3):
		x.errorReply("ERR Number of keys can't be greater than number of args")
		return nil, nil, false
	case n < 0:
		x.errorReply("ERR Number of keys can't be negative")
		return nil, nil, false
	}
	return x.args[3 : 3+n], x.args[3+n:], true
}

// evalScript is EVAL and its variants: by body or by SHA1, read-only or not.
func evalScript(x *ctx, bySHA, ro bool) {
	keys, argv, ok := x.scriptArgs("ERR value is not an integer or out of range")
	if !ok {
		return
	}
	e := x.srv.scripts
	var sc *script.Script
	if bySHA {
		var found bool
		sc, found = e.Lookup(strings.ToLower(string(x.arg(1))))
		if !found {
			x.errorReply(strings.TrimPrefix(script.ErrNoScript.Error(), "-"))
			return
		}
	} else {
		var err error
		if sc, err = e.Load(x.arg(1)); err != nil {
			x.scriptError(err)
			return
		}
	}
	readOnly := ro
	if sc.Flags&script.FlagEvalCompat == 0 {
		if sc.Flags&script.FlagNoWrites != 0 {
			readOnly = true
		} else if ro {
			x.errorReply("ERR Can not execute a script with write flag using *_ro command.")
			return
		}
	}
	run := &scriptRun{command: x.args}
	x.runScript(run, readOnly, keys, func(ctx context.Context, h script.Host, w *resp.Writer) error {
		return e.Eval(ctx, h, sc, keys, argv, w)
	})
}

// scriptError replies with an error the script engine returned as a reply.
func (x *ctx) scriptError(err error) {
	var se *script.Error
	if errors.As(err, &se) {
		x.errorReply(strings.TrimPrefix(se.Msg, "-"))
		return
	}
	x.internalError(err)
}

func cmdEval(x *ctx)       { evalScript(x, false, false) }
func cmdEvalSHA(x *ctx)    { evalScript(x, true, false) }
func cmdEvalRO(x *ctx)     { evalScript(x, false, true) }
func cmdEvalSHARO(x *ctx)  { evalScript(x, true, true) }
func cmdFCall(x *ctx)      { fcall(x, false) }
func cmdFCallRO(x *ctx)    { fcall(x, true) }
func cmdScriptHelp(x *ctx) { x.helpReply("SCRIPT", scriptHelp...) }

func fcall(x *ctx, ro bool) {
	// Redis finds the function before it reads numkeys.
	e := x.srv.scripts
	f, found := e.LookupFunction(string(x.arg(1)))
	if !found {
		x.errorReply(strings.TrimPrefix(script.ErrFunctionNotFound.Error(), "-"))
		return
	}
	keys, argv, ok := x.scriptArgs("ERR Bad number of keys provided")
	if !ok {
		return
	}
	readOnly := ro || f.Flags&script.FlagNoWrites != 0
	if ro && f.Flags&script.FlagNoWrites == 0 {
		x.errorReply("ERR Can not execute a script with write flag using *_ro command.")
		return
	}
	run := &scriptRun{function: true, name: f.Name, command: x.args}
	x.runScript(run, readOnly, keys, func(ctx context.Context, h script.Host, w *resp.Writer) error {
		return e.FCall(ctx, h, f, keys, argv, w)
	})
}

func cmdScriptLoad(x *ctx) {
	sc, err := x.srv.scripts.Load(x.arg(2))
	if err != nil {
		x.scriptError(err)
		return
	}
	x.w.BulkString(sc.SHA)
}

func cmdScriptExists(x *ctx) {
	x.w.Array(len(x.args) - 2)
	for _, sha := range x.args[2:] {
		x.w.Int(boolInt(x.srv.scripts.Exists(strings.ToLower(string(sha)))))
	}
}

// flushMode reads the optional ASYNC|SYNC of SCRIPT FLUSH and FUNCTION
// FLUSH, replying on a bad one.
func (x *ctx) scriptFlushMode() bool {
	switch {
	case len(x.args) == 2:
		return true
	case len(x.args) == 3 && (optIs(x.arg(2), "ASYNC") || optIs(x.arg(2), "SYNC")):
		return true
	case len(x.args) == 3:
		x.errorReply("ERR SCRIPT FLUSH only support SYNC|ASYNC option")
	default:
		x.errorReply("ERR unknown subcommand or wrong number of arguments for 'flush'. Try SCRIPT HELP.")
	}
	return false
}

func cmdScriptFlush(x *ctx) {
	if !x.scriptFlushMode() {
		return
	}
	x.srv.scripts.Flush()
	x.ok()
}

func cmdScriptKill(x *ctx)   { x.killScript(false) }
func cmdFunctionKill(x *ctx) { x.killScript(true) }

// killScript is SCRIPT KILL and FUNCTION KILL, with Redis's scriptKill
// checks on the oldest run in progress.
func (x *ctx) killScript(function bool) {
	run, _, cancel := x.srv.runs.oldest()
	switch {
	case run == nil:
		x.errorReply("NOTBUSY No scripts in execution right now.")
	case run.wrote.Load():
		x.errorReply("UNKILLABLE Sorry the script already executed write commands against the dataset. You can either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command.")
	case function && !run.function:
		x.errorReply(errBusyEval)
	case !function && run.function:
		x.errorReply(errBusyFunction)
	default:
		cancel()
		x.ok()
	}
}

var scriptHelp = []string{
	"EVAL <script> <numkeys> [<key> [...]] [<arg> [...]]",
	"    Execute a Lua script.",
	"EVALSHA <sha1> <numkeys> [<key> [...]] [<arg> [...]]",
	"    Execute a Lua script by its SHA1.",
	"EXISTS <sha1> [<sha1> [...]]",
	"    Return information about the existence of the scripts in the script cache.",
	"FLUSH [ASYNC|SYNC]",
	"    Flush the Lua scripts cache. Very dangerous on replicas.",
	"    When called without the optional mode argument, the behavior is determined by the",
	"    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
	"    * ASYNC: Asynchronously flush the scripts cache.",
	"    * SYNC: Synchronously flush the scripts cache.",
	"KILL",
	"    Kill the currently executing Lua script.",
	"LOAD <script>",
	"    Load a script into the scripts cache without executing it.",
}

// Function libraries. Their changes run under the exclusive lock (LockAll
// in their specs), so they are serialized; each rewrites the stored
// libraries in the command's batch, and a failed commit puts the
// registry back as it was.

// saveLibraries writes the registry's libraries into the command's batch,
// replacing every stored one, and arranges for the registry to go back to
// before (old) if the commit fails.
func (x *ctx) saveLibraries(old []*script.Library) bool {
	e := x.srv.scripts
	if err := x.tx.FlushFunctionLibraries(); err != nil {
		x.restoreLibraries(old)
		x.internalError(err)
		return false
	}
	for _, lib := range e.Libraries("") {
		if err := x.tx.PutFunctionLibrary([]byte(lib.Name), lib.Code); err != nil {
			x.restoreLibraries(old)
			x.internalError(err)
			return false
		}
	}
	x.commitFailed = func() { x.restoreLibraries(old) }
	return true
}

// restoreLibraries puts the registry back to libs.
func (x *ctx) restoreLibraries(libs []*script.Library) {
	codes := make([][]byte, len(libs))
	for i, l := range libs {
		codes[i] = l.Code
	}
	if err := x.srv.scripts.RestoreLibraries(context.Background(), codes, script.RestoreFlush); err != nil {
		x.srv.log.Error("putting the function libraries back failed", "err", err)
	}
}

func cmdFunctionLoad(x *ctx) {
	replace := false
	code := x.arg(2)
	if len(x.args) == 4 {
		if !optIs(x.arg(2), "REPLACE") {
			x.errorReply("ERR Unknown option given: " + cstr(string(x.arg(2))))
			return
		}
		replace, code = true, x.arg(3)
	} else if len(x.args) > 4 {
		x.errorReply("ERR Unknown option given: " + cstr(string(x.arg(2))))
		return
	}
	e := x.srv.scripts
	old := e.Libraries("")
	name, err := e.LoadLibrary(context.Background(), code, replace)
	if err != nil {
		x.scriptError(err)
		return
	}
	if x.saveLibraries(old) {
		x.w.BulkString(name)
	}
}

func cmdFunctionDelete(x *ctx) {
	e := x.srv.scripts
	old := e.Libraries("")
	if err := e.DeleteLibrary(string(x.arg(2))); err != nil {
		x.scriptError(err)
		return
	}
	if x.saveLibraries(old) {
		x.ok()
	}
}

func cmdFunctionFlush(x *ctx) {
	switch {
	case len(x.args) == 2:
	case len(x.args) == 3 && (optIs(x.arg(2), "ASYNC") || optIs(x.arg(2), "SYNC")):
	case len(x.args) == 3:
		x.errorReply("ERR FUNCTION FLUSH only supports SYNC|ASYNC option")
		return
	default:
		x.errorReply("ERR unknown subcommand or wrong number of arguments for 'flush'. Try FUNCTION HELP.")
		return
	}
	e := x.srv.scripts
	old := e.Libraries("")
	e.FlushLibraries()
	if x.saveLibraries(old) {
		x.ok()
	}
}

func cmdFunctionDump(x *ctx) {
	libs := x.srv.scripts.Libraries("")
	codes := make([][]byte, len(libs))
	for i, l := range libs {
		codes[i] = l.Code
	}
	x.w.Bulk(rdb.AppendFunctions(nil, codes))
}

func cmdFunctionRestore(x *ctx) {
	if len(x.args) > 4 {
		x.subcommandSyntaxError()
		return
	}
	policy := script.RestoreAppend
	if len(x.args) == 4 {
		switch {
		case optIs(x.arg(3), "FLUSH"):
			policy = script.RestoreFlush
		case optIs(x.arg(3), "APPEND"):
			policy = script.RestoreAppend
		case optIs(x.arg(3), "REPLACE"):
			policy = script.RestoreReplace
		default:
			x.errorReply("ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.")
			return
		}
	}
	codes, err := rdb.ReadFunctions(x.arg(2))
	if err != nil {
		switch {
		case errors.Is(err, rdb.ErrBadTrailer):
			x.errorReply("ERR DUMP payload version or checksum are wrong")
		case errors.Is(err, rdb.ErrNotFunction), errors.Is(err, rdb.ErrPreGA):
			x.errorReply("ERR " + err.Error())
		default:
			x.errorReply("ERR failed loading the given functions payload")
		}
		return
	}
	e := x.srv.scripts
	old := e.Libraries("")
	if err := e.RestoreLibraries(context.Background(), codes, policy); err != nil {
		x.scriptError(err)
		return
	}
	if x.saveLibraries(old) {
		x.ok()
	}
}

func cmdFunctionList(x *ctx) {
	// As Redis's functionListCommand: each option once, a repeated one is
	// an unknown argument.
	pattern, named, withCode := "", false, false
	for i := 2; i < len(x.args); i++ {
		switch {
		case optIs(x.arg(i), "WITHCODE") && !withCode:
			withCode = true
		case optIs(x.arg(i), "LIBRARYNAME") && !named && i+1 < len(x.args):
			i++
			pattern, named = string(x.arg(i)), true
		case optIs(x.arg(i), "LIBRARYNAME") && !named:
			x.errorReply("ERR library name argument was not given")
			return
		default:
			x.errorReply("ERR Unknown argument " + cstr(string(x.arg(i))))
			return
		}
	}
	var libs []*script.Library
	if !named || pattern != "" {
		// An empty pattern matches no library's name.
		libs = x.srv.scripts.Libraries(pattern)
	}
	w := x.w
	w.Array(len(libs))
	for _, lib := range libs {
		n := 3
		if withCode {
			n = 4
		}
		w.Map(n)
		w.BulkString("library_name")
		w.BulkString(lib.Name)
		w.BulkString("engine")
		w.BulkString(lib.Engine)
		w.BulkString("functions")
		w.Array(len(lib.Functions))
		for _, f := range lib.Functions {
			w.Map(3)
			w.BulkString("name")
			w.BulkString(f.Name)
			w.BulkString("description")
			if f.HasDesc {
				w.BulkString(f.Description)
			} else {
				w.NullBulk()
			}
			w.BulkString("flags")
			names := f.Flags.Names()
			w.Set(len(names))
			for _, nm := range names {
				w.SimpleString(nm)
			}
		}
		if withCode {
			w.BulkString("library_code")
			w.Bulk(lib.Code)
		}
	}
}

func cmdFunctionStats(x *ctx) {
	w := x.w
	w.Map(2)
	w.BulkString("running_script")
	if run, start, command := x.srv.runs.oldestCommand(); run != nil && run.function {
		w.Map(3)
		w.BulkString("name")
		w.BulkString(run.name)
		w.BulkString("command")
		w.Array(len(command))
		for _, a := range command {
			w.Bulk(a)
		}
		w.BulkString("duration_ms")
		w.Int(time.Since(start).Milliseconds())
	} else {
		w.NullBulk()
	}
	libs, funcs := x.srv.scripts.FunctionStats()
	w.BulkString("engines")
	w.Map(1)
	w.BulkString("LUA")
	w.Map(2)
	w.BulkString("libraries_count")
	w.Int(int64(libs))
	w.BulkString("functions_count")
	w.Int(int64(funcs))
}

func cmdFunctionHelp(x *ctx) {
	x.helpReply("FUNCTION",
		"LOAD [REPLACE] <FUNCTION CODE>",
		"    Create a new library with the given library name and code.",
		"DELETE <LIBRARY NAME>",
		"    Delete the given library.",
		"LIST [LIBRARYNAME PATTERN] [WITHCODE]",
		"    Return general information on all the libraries:",
		"    * Library name",
		"    * The engine used to run the Library",
		"    * Library description",
		"    * Functions list",
		"    * Library code (if WITHCODE is given)",
		"    It also possible to get only function that matches a pattern using LIBRARYNAME argument.",
		"STATS",
		"    Return information about the current function running:",
		"    * Function name",
		"    * Command used to run the function",
		"    * Duration in MS that the function is running",
		"    If no function is running, return nil",
		"    In addition, returns a list of available engines.",
		"KILL",
		"    Kill the current running function.",
		"FLUSH [ASYNC|SYNC]",
		"    Delete all the libraries.",
		"    When called without the optional mode argument, the behavior is determined by the",
		"    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
		"    * ASYNC: Asynchronously flush the libraries.",
		"    * SYNC: Synchronously flush the libraries.",
		"DUMP",
		"    Return a serialized payload representing the current libraries, can be restored using FUNCTION RESTORE command",
		"RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
		"    Restore the libraries represented by the given payload, it is possible to give a restore policy to",
		"    control how to handle existing libraries (default APPEND):",
		"    * FLUSH: delete all existing libraries.",
		"    * APPEND: appends the restored libraries to the existing libraries. On collision, abort.",
		"    * REPLACE: appends the restored libraries to the existing libraries, On collision, replace the old",
		"      libraries with the new libraries (notice that even on this option there is a chance of failure",
		"      in case of functions name collision with another library).",
	)
}
