package script

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
	"github.com/yuin/gopher-lua/parse"

	"github.com/cairndb/cairn/internal/resp"
)

// Host runs the commands a script calls. One per script run; not shared
// across goroutines.
type Host interface {
	// Call runs one command (args[0] is its name) for redis.call /
	// redis.pcall and returns its reply as RESP bytes in protocol resp (2
	// or 3, from redis.setresp). An error reply is a normal reply. A
	// non-nil error aborts the whole run: the engine stops the script at
	// once, even inside pcall, and Eval/FCall return that error.
	Call(args [][]byte, resp int) ([]byte, error)
	// ACLCheck answers redis.acl_check_cmd for the calling user. Return
	// ErrACLUnknownCommand for a command that does not exist; any other
	// error aborts the run as Call's does.
	ACLCheck(args [][]byte) (bool, error)
	// Log writes a redis.log line; level is LogDebug..LogWarning. The host
	// filters by its verbosity setting.
	Log(level int, msg string)
	// ErrorReply is told of every error the run writes to its reply (the
	// script's error, or one inside its result), for the error
	// statistics. fromCommand marks a command's error reply passed on,
	// which the host counted when the command replied (Redis's
	// ignore_error_stats_update); the run's command failed all the same.
	ErrorReply(msg string, fromCommand bool)
}

// Options configure an Engine. The zero value works.
type Options struct {
	// Libraries opens the extra libraries Redis gives scripts (cjson,
	// cmsgpack, bit, struct) as globals of L; nil opens none.
	Libraries func(L *lua.LState)
	// Version and VersionNum are redis.REDIS_VERSION and
	// redis.REDIS_VERSION_NUM; defaults "7.2.4" and 0x070204.
	Version    string
	VersionNum int
	// Log receives redis.log lines written while a library loads (there
	// is no Host then); nil drops them.
	Log func(level int, msg string)
	// LoadTimeout bounds a library's load-time code (Redis's
	// LOAD_TIMEOUT_MS); default 500ms.
	LoadTimeout time.Duration
	// MaxReplyDepth bounds the nesting of a command's reply read into Lua;
	// default 1000. (A script's result is bounded as Redis bounds it, by
	// Lua's stack of 8000 slots.)
	MaxReplyDepth int
	// MaxReplyElements bounds the elements of a script's result; a larger
	// result is replaced by an error reply. Default 1<<24.
	MaxReplyElements int
	// MaxStringLen bounds string.rep's result, which would otherwise let
	// one call allocate without limit; default 512 MiB (proto-max-bulk-len).
	MaxStringLen int64
	// MemoryLimit returns, when a run starts, how much it may grow the
	// heap before it is stopped with an OOM error (see memory.go); zero or
	// less is no limit. Nil means DefaultMemoryLimit.
	MemoryLimit func() int64
	// Freed, when set, is told after a run that grew the heap by many
	// bytes that those bytes are garbage now, so that the host can hand
	// them back to the operating system.
	Freed func(n int64)
	// PoolSize is how many idle Lua states are kept; default 8. A state
	// costs about 1 MB and 0.5 ms to make.
	PoolSize int
	// CallStackSize is the deepest Lua call nesting, preallocated per
	// state (Lua 5.1's LUAI_MAXCALLS is 20000); default 10000.
	// RegistryMaxSize bounds each
	// state's value stack; default 1<<18 slots.
	CallStackSize   int
	RegistryMaxSize int
}

func (o *Options) fill() {
	if o.Version == "" {
		o.Version, o.VersionNum = "7.2.4", 0x070204
	}
	if o.LoadTimeout <= 0 {
		o.LoadTimeout = 500 * time.Millisecond
	}
	if o.MaxReplyDepth <= 0 {
		o.MaxReplyDepth = 1000
	}
	if o.MaxReplyElements <= 0 {
		o.MaxReplyElements = 1 << 24
	}
	if o.MaxStringLen <= 0 {
		o.MaxStringLen = 512 << 20
	}
	if o.PoolSize <= 0 {
		o.PoolSize = 8
	}
	if o.CallStackSize <= 0 {
		o.CallStackSize = 10000
	}
	if o.RegistryMaxSize <= 0 {
		o.RegistryMaxSize = 1 << 18
	}
}

// Script is a compiled EVAL script. It is immutable and shared: every
// pooled state runs the same prototype.
type Script struct {
	SHA   string // lower-case hex SHA1 of Body
	Body  []byte
	Flags Flags
	proto *lua.FunctionProto
}

// Error is an error the engine replies with: Error() is the whole reply
// text with its code, e.g. "ERR Error compiling script (new function):
// user_script:1: ...". Write it with w.Error(err.Error()).
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

func replyErr(format string, args ...any) error { return &Error{Msg: fmt.Sprintf(format, args...)} }

// ErrNoScript is EVALSHA's reply for an unknown SHA1.
var ErrNoScript = &Error{Msg: "NOSCRIPT No matching script. Please use EVAL."}

// ErrKilled is matched (errors.Is) by the error of a run whose context was
// cancelled; the error is a *KilledError.
var ErrKilled = errors.New("script killed")

// KilledError is returned by a run stopped by its context. Nothing was
// written to the reply; Reply is Redis's error text for it ("ERR Script
// killed by user with SCRIPT KILL... script: ..., on @user_script:N."),
// for the host to send when the kill came from SCRIPT KILL or FUNCTION
// KILL.
type KilledError struct {
	Reply string
	Cause error // the context's error
}

func (e *KilledError) Error() string        { return "script killed: " + e.Cause.Error() }
func (e *KilledError) Is(target error) bool { return target == ErrKilled }
func (e *KilledError) Unwrap() error        { return e.Cause }

// Engine is the scripting engine: the script cache, the function
// libraries and a pool of sandboxed Lua states. It is safe for concurrent
// use; each run takes a state of its own.
type Engine struct {
	opts Options

	mu      sync.RWMutex
	scripts map[string]*Script

	libs libraries

	pool chan *vm

	mem memWatch
}

// NewEngine returns an Engine with no scripts and no libraries.
func NewEngine(opts Options) *Engine {
	opts.fill()
	return &Engine{
		opts:    opts,
		scripts: make(map[string]*Script),
		libs:    newLibraries(),
		pool:    make(chan *vm, opts.PoolSize),
	}
}

// Close releases the idle Lua states. Runs in progress are not affected.
func (e *Engine) Close() {
	for {
		select {
		case v := <-e.pool:
			v.L.Close()
		default:
			return
		}
	}
}

func (e *Engine) get() *vm {
	select {
	case v := <-e.pool:
		return v
	default:
		return newVM(e)
	}
}

func (e *Engine) put(v *vm) {
	v.L.SetTop(0)
	if !v.clean() {
		v.L.Close()
		return
	}
	select {
	case e.pool <- v:
	default:
		v.L.Close()
	}
}

// memoryLimit is the limit of a run starting now; zero or less is none.
func (e *Engine) memoryLimit() int64 {
	if e.opts.MemoryLimit == nil {
		return DefaultMemoryLimit
	}
	return e.opts.MemoryLimit()
}

// maxString is the longest string a library function may build.
func (e *Engine) maxString() int64 {
	if l := e.memoryLimit(); l > 0 && l < e.opts.MaxStringLen {
		return l
	}
	return e.opts.MaxStringLen
}

// SHA1Hex returns the lower-case hex SHA1 of b, a script's name.
func SHA1Hex(b []byte) string {
	sum := sha1.Sum(b)
	return hex.EncodeToString(sum[:])
}

// Load compiles body and caches it (SCRIPT LOAD, and EVAL's first run of a
// body). A body already cached is not compiled again. Errors are *Error:
// a bad shebang ("ERR Unexpected engine in script shebang: ...") or
// "ERR Error compiling script (new function): user_script:1: ...".
func (e *Engine) Load(body []byte) (*Script, error) {
	sha := SHA1Hex(body)
	e.mu.RLock()
	s := e.scripts[sha]
	e.mu.RUnlock()
	if s != nil {
		return s, nil
	}
	flags, skip, err := ParseShebang(body)
	if err != nil {
		return nil, replyErr("ERR %s", err.Error())
	}
	proto, err := compile(body[skip:], "user_script")
	if err != nil {
		return nil, replyErr("ERR Error compiling script (new function): %s", err.Error())
	}
	s = &Script{SHA: sha, Body: bytes.Clone(body), Flags: flags, proto: proto}
	e.mu.Lock()
	if old := e.scripts[sha]; old != nil {
		s = old
	} else {
		e.scripts[sha] = s
	}
	e.mu.Unlock()
	return s, nil
}

// Lookup finds a cached script by SHA1, in either case (EVALSHA).
func (e *Engine) Lookup(sha string) (*Script, bool) {
	if len(sha) != 40 {
		return nil, false
	}
	e.mu.RLock()
	s, ok := e.scripts[strings.ToLower(sha)]
	e.mu.RUnlock()
	return s, ok
}

// Exists answers SCRIPT EXISTS for one SHA1, in either case (Redis's
// script dictionary compares names case-insensitively).
func (e *Engine) Exists(sha string) bool {
	_, ok := e.Lookup(sha)
	return ok
}

// Flush empties the script cache (SCRIPT FLUSH).
func (e *Engine) Flush() {
	e.mu.Lock()
	e.scripts = make(map[string]*Script)
	e.mu.Unlock()
}

// Scripts returns the cached scripts' count, for INFO's number_of_cached_scripts.
func (e *Engine) Scripts() int {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return len(e.scripts)
}

// run is the state of one script run.
type run struct {
	host  Host
	resp  int   // redis.setresp
	repl  int   // redis.set_repl
	abort error // the host's failure
	name  string
}

// Eval runs s with KEYS and ARGV (EVAL, EVALSHA, EVAL_RO, ...) and writes
// its reply, or its error reply, to w. It returns nil when a reply was
// written, a *KilledError (errors.Is ErrKilled) when ctx was cancelled
// first, or the Host's error when a Call failed; in those two cases
// nothing was written.
func (e *Engine) Eval(ctx context.Context, h Host, s *Script, keys, argv [][]byte, w *resp.Writer) error {
	v := e.get()
	defer e.put(v)
	fn := v.L.NewFunctionFromProto(s.proto)
	fn.Env = v.env
	v.real.RawSetString("KEYS", strTable(v.L, keys))
	v.real.RawSetString("ARGV", strTable(v.L, argv))
	defer func() {
		v.real.RawSetString("KEYS", lua.LNil)
		v.real.RawSetString("ARGV", lua.LNil)
	}()
	return v.execute(ctx, h, s.SHA, fn, nil, w)
}

// EvalSHA is Eval of the script cached under sha, or the NOSCRIPT error
// reply when there is none.
func (e *Engine) EvalSHA(ctx context.Context, h Host, sha string, keys, argv [][]byte, w *resp.Writer) error {
	s, ok := e.Lookup(sha)
	if !ok {
		w.Error(ErrNoScript.Msg)
		return nil
	}
	return e.Eval(ctx, h, s, keys, argv, w)
}

func strTable(L *lua.LState, items [][]byte) *lua.LTable {
	t := L.CreateTable(len(items), 0)
	for i, b := range items {
		t.RawSetInt(i+1, lua.LString(b))
	}
	return t
}

// execute calls fn(args...) in a run and writes its result.
func (v *vm) execute(ctx context.Context, h Host, name string, fn *lua.LFunction, args []lua.LValue, w *resp.Writer) error {
	ctx = runCtx(ctx)
	limit := v.e.memoryLimit()
	var overLimit func() bool
	stopped := func() bool { return false }
	if limit > 0 {
		var done func() uint64
		ctx, overLimit, stopped, done = v.e.mem.watch(ctx, limit)
		defer func() {
			if grown := done(); grown >= min(bigRun, uint64(limit)/2) {
				// Stale slots of the state's stacks may still hold what
				// the run built: do not pool it.
				v.broken = true
				if v.e.opts.Freed != nil {
					v.e.opts.Freed(int64(grown))
				}
			}
		}()
	}
	L := v.L
	r := &run{host: h, resp: 2, name: name}
	v.run = r
	v.cdepth = 0
	if ctx.Done() != nil {
		// Checked before every instruction; a context that can never be
		// cancelled costs nothing.
		L.SetContext(ctx)
		defer L.RemoveContext()
	}
	defer func() { v.run = nil }()
	L.Push(fn)
	for _, a := range args {
		L.Push(a)
	}
	perr := v.pcall0(len(args))
	if r.abort != nil {
		return r.abort
	}
	if perr != nil {
		info := errorInfo(perr)
		if stopped() {
			w.Error(memoryReply(limit) + info.suffix(name))
			return nil
		}
		if ctx.Err() != nil {
			return &KilledError{Reply: "ERR Script killed by user with SCRIPT KILL..." + info.suffix(name), Cause: ctx.Err()}
		}
		var ae *lua.ApiError
		if !errors.As(perr, &ae) || ae.Type != lua.ApiErrorRun {
			v.broken = true
		}
		msg := cString(info.msg) + info.suffix(name)
		w.Error(msg)
		h.ErrorReply(msg, info.fromCommand)
		return nil
	}
	if overLimit != nil && overLimit() {
		L.Pop(1)
		w.Error(memoryReply(limit))
		return nil
	}
	result := L.Get(-1)
	L.Pop(1)
	rw := replyWriter{w: w, scriptRES: r.resp, onError: h.ErrorReply}
	if n := countReply(result, replyBaseTop, v.e.opts.MaxReplyElements); n > v.e.opts.MaxReplyElements {
		rw.writeError(fmt.Sprintf("ERR reply of more than %d elements", v.e.opts.MaxReplyElements), false)
		return nil
	}
	rw.write(result, replyBaseTop)
	return nil
}

// pcall0 calls the function under its nargs arguments with the run's error
// handler. gopher-lua can panic past PCall when the error handler itself
// fails (no room left on a full stack); such a state is not reused.
func (v *vm) pcall0(nargs int) (err error) {
	defer func() {
		if p := recover(); p != nil {
			v.broken = true
			msg := fmt.Sprint(p)
			if ae, ok := p.(*lua.ApiError); ok {
				msg = lua.LVAsString(ae.Object)
			}
			if msg == "lua callstack overflow" {
				// The call stack is still as deep as it got: say where,
				// as Lua's "stack overflow" error would.
				msg = "stack overflow"
			}
			t := v.L.NewTable()
			for level := 0; level < 3; level++ {
				d, ok := v.L.GetStack(level)
				if !ok {
					break
				}
				if _, gerr := v.L.GetInfo("Sl", d, lua.LNil); gerr == nil && d.What != "G" && d.CurrentLine > 0 {
					msg = fmt.Sprintf("%s:%d: %s", d.Source, d.CurrentLine, msg)
					t.RawSetString("source", lua.LString("@"+d.Source))
					t.RawSetString("line", lua.LNumber(d.CurrentLine))
					break
				}
			}
			t.RawSetString("err", lua.LString("ERR "+msg))
			err = &lua.ApiError{Type: lua.ApiErrorPanic, Object: t}
		}
	}()
	return v.L.PCall(nargs, 1, v.errHandler)
}

// errInfo is an error's fields as luaExtractErrorInformation reads them.
type errInfo struct {
	msg, source string
	line        int
	hasLine     bool
	fromCommand bool // ignore_error_stats_update
}

func (i errInfo) suffix(name string) string {
	if !i.hasLine || i.source == "" {
		return ""
	}
	return fmt.Sprintf(" script: %s, on %s:%d.", name, i.source, i.line)
}

func errorInfo(err error) errInfo {
	var ae *lua.ApiError
	if !errors.As(err, &ae) {
		return errInfo{msg: "ERR " + err.Error()}
	}
	t, ok := ae.Object.(*lua.LTable)
	if !ok {
		msg := lua.LVAsString(ae.Object)
		if i := strings.Index(msg, "\nstack traceback:"); i >= 0 {
			msg = msg[:i]
		}
		if msg == "lua callstack overflow" { // gopher-lua's growing stack
			msg = "stack overflow"
		}
		// The error handler could not run (no room left on the stack):
		// take the position from the message, "source:line: text".
		i := errInfo{msg: "ERR " + msg}
		if src, rest, ok := strings.Cut(msg, ":"); ok && src != "" && !strings.ContainsAny(src, " \n") {
			if num, _, ok := strings.Cut(rest, ":"); ok {
				if n, err := strconv.Atoi(num); err == nil {
					i.source, i.line, i.hasLine = "@"+src, n, true
				}
			}
		}
		return i
	}
	var i errInfo
	switch m := t.RawGetString("err").(type) {
	case lua.LString:
		i.msg = string(m)
	case lua.LNumber:
		i.msg = m.String()
	default:
		i.msg = "ERR unknown error"
	}
	if s, ok := t.RawGetString("source").(lua.LString); ok {
		i.source = string(s)
	}
	if n, ok := t.RawGetString("line").(lua.LNumber); ok {
		i.line, i.hasLine = int(n), true
	}
	i.fromCommand = t.RawGetString(ignoreErrorStats) == lua.LTrue
	return i
}

// compileError is a compilation failure in Lua's words.
type compileError struct{ msg string }

func (e *compileError) Error() string { return e.msg }

// parseChunk parses Lua source, rewording gopher-lua's syntax errors as
// Lua 5.1 prints them: "name:line: message near 'token'".
func parseChunk(src []byte, name string) (chunk []ast.Stmt, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &compileError{msg: fmt.Sprintf("%s: %v", name, p)}
		}
	}()
	c, perr := parse.Parse(bytes.NewReader(src), name)
	if perr == nil {
		return c, nil
	}
	var pe *parse.Error
	if errors.As(perr, &pe) {
		line, tok := pe.Pos.Line, pe.Token
		if line <= 0 {
			line, tok = bytes.Count(src, []byte("\n"))+1, "<eof>"
		}
		msg := pe.Message
		if msg == "syntax error" || msg == "parse error" {
			// gopher-lua's parser has no finer diagnosis; this is Lua's
			// most common one.
			msg = "unexpected symbol"
		}
		return nil, &compileError{msg: fmt.Sprintf("%s:%d: %s near '%s'", name, line, msg, tok)}
	}
	return nil, &compileError{msg: fmt.Sprintf("%s: %s", name, strings.TrimSpace(perr.Error()))}
}
