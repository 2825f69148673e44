package script

import (
	"context"
	"sort"
	"strings"
	"sync"

	lua "github.com/yuin/gopher-lua"

	"github.com/cairndb/cairn/internal/glob"
	"github.com/cairndb/cairn/internal/resp"
)

// Library is a loaded function library (FUNCTION LOAD). It is immutable.
type Library struct {
	Name      string
	Engine    string // always "LUA", as FUNCTION LIST prints it
	Code      []byte // the whole payload, header line included, for persistence
	Functions []*Function
}

// Function is a function a library registered.
type Function struct {
	Name        string
	Description string
	HasDesc     bool // whether a description was given (FUNCTION LIST prints null if not)
	Flags       Flags
	Library     *Library
}

// libraries is the registry: the current set of libraries and a
// generation number that changes with it, so that a pooled state knows
// when its loaded functions are stale.
type libraries struct {
	mu    sync.RWMutex
	gen   uint64
	libs  map[string]*Library
	funcs map[string]*Function // by funcKey
}

// funcKey is a function's key in the registry and in a state's loaded
// functions: Redis's function dictionary compares names ignoring case (its
// library names are compared exactly).
func funcKey(name string) string { return strings.ToLower(name) }

func newLibraries() libraries {
	return libraries{gen: 1, libs: map[string]*Library{}, funcs: map[string]*Function{}}
}

// loadCtx collects what a library registers while its code runs.
type loadCtx struct {
	lib   *Library
	funcs map[string]*lua.LFunction
	quiet bool // a reload into a pooled state: redis.log writes nothing
}

// registerFunction is redis.register_function, in both its forms.
func (v *vm) registerFunction(L *lua.LState) int {
	lc := v.loading
	if lc == nil {
		raise(L, "redis.register_function can only be called on FUNCTION LOAD command")
	}
	f := &Function{Library: lc.lib}
	var cb *lua.LFunction
	switch L.GetTop() {
	case 1:
		t, ok := L.Get(1).(*lua.LTable)
		if !ok {
			raise(L, "calling redis.register_function with a single argument is only applicable to Lua table (representing named arguments).")
		}
		named := false
		var msg string
		t.ForEach(func(k, val lua.LValue) {
			if msg != "" {
				return
			}
			ks, ok := toArg(k)
			if !ok {
				msg = "named argument key given to redis.register_function is not a string"
				return
			}
			switch strings.ToLower(string(ks)) {
			case "function_name":
				s, ok := toArg(val)
				if !ok {
					msg = "function_name argument given to redis.register_function must be a string"
					return
				}
				f.Name, named = string(s), true
			case "description":
				s, ok := toArg(val)
				if !ok {
					msg = "description argument given to redis.register_function must be a string"
					return
				}
				f.Description, f.HasDesc = string(s), true
			case "callback":
				fn, ok := val.(*lua.LFunction)
				if !ok {
					msg = "callback argument given to redis.register_function must be a function"
					return
				}
				cb = fn
			case "flags":
				ft, ok := val.(*lua.LTable)
				if !ok {
					msg = "flags argument to redis.register_function must be a table representing function flags"
					return
				}
				for i := 1; ; i++ {
					e := ft.RawGetInt(i)
					if e == lua.LNil {
						break
					}
					s, ok := toArg(e)
					fl, found := flagByName(string(s), true)
					if !ok || !found {
						msg = "unknown flag given"
						return
					}
					f.Flags |= fl
				}
			default:
				msg = "unknown argument given to redis.register_function"
			}
		})
		switch {
		case msg != "":
			raise(L, msg)
		case !named:
			raise(L, "redis.register_function must get a function name argument")
		case cb == nil:
			raise(L, "redis.register_function must get a callback argument")
		}
	case 2:
		s, ok := toArg(L.Get(1))
		if !ok {
			raise(L, "first argument to redis.register_function must be a string")
		}
		fn, ok := L.Get(2).(*lua.LFunction)
		if !ok {
			raise(L, "second argument to redis.register_function must be a function")
		}
		f.Name, cb = string(s), fn
	default:
		raise(L, "wrong number of arguments to redis.register_function")
	}
	if !validName(f.Name) {
		raise(L, "Library names can only contain letters, numbers, or underscores(_) and must be at least one character long")
	}
	// Redis 7.0 takes "f" and "F" in one library, then crashes when
	// it is replaced: here they collide.
	if _, dup := lc.funcs[funcKey(f.Name)]; dup {
		raise(L, "Function already exists in the library")
	}
	lc.funcs[funcKey(f.Name)] = cb
	lc.lib.Functions = append(lc.lib.Functions, f)
	return 0
}

// loadLibrary runs a library's code in v's load-time sandbox and returns
// what it registered. The error is Redis's reply text.
func (v *vm) loadLibrary(ctx context.Context, lib *Library, code []byte, quiet bool) (map[string]*lua.LFunction, error) {
	proto, err := compile(code, "user_function")
	if err != nil {
		return nil, replyErr("ERR Error compiling function: %s", err.Error())
	}
	L := v.L
	ctx, cancel := context.WithTimeout(runCtx(ctx), v.e.opts.LoadTimeout)
	defer cancel()
	lc := &loadCtx{lib: lib, funcs: map[string]*lua.LFunction{}, quiet: quiet}
	v.loading = lc
	L.SetContext(ctx)
	defer func() {
		L.RemoveContext()
		v.loading = nil
		L.SetTop(0)
	}()
	fn := L.NewFunctionFromProto(proto)
	fn.Env = v.env
	L.Push(fn)
	if err := L.PCall(0, 0, nil); err != nil {
		msg := errorInfo(err).msg
		if ctx.Err() != nil {
			msg = "ERR FUNCTION LOAD timeout"
		}
		return nil, replyErr("ERR Error registering functions: %s", msg)
	}
	return lc.funcs, nil
}

// buildLibrary parses and loads one payload without touching the registry.
func (e *Engine) buildLibrary(ctx context.Context, v *vm, payload []byte) (*Library, map[string]*lua.LFunction, error) {
	h, err := ParseLibraryHeader(payload)
	if err != nil {
		return nil, nil, replyErr("ERR %s", err.Error())
	}
	if !validName(h.Name) {
		return nil, nil, replyErr("ERR Library names can only contain letters, numbers, or underscores(_) and must be at least one character long")
	}
	if !strings.EqualFold(h.Engine, "lua") {
		return nil, nil, replyErr("ERR Engine '%s' not found", h.Engine)
	}
	lib := &Library{Name: h.Name, Engine: "LUA", Code: append([]byte(nil), payload...)}
	funcs, err := v.loadLibrary(ctx, lib, h.Code, false)
	if err != nil {
		return nil, nil, err
	}
	if len(lib.Functions) == 0 {
		return nil, nil, replyErr("ERR No functions registered")
	}
	return lib, funcs, nil
}

// LoadLibrary is FUNCTION LOAD [REPLACE]: it runs the payload's code (its
// first line "#!lua name=<library>"), and on success adds the library, or
// replaces the one of the same name when replace is set. It returns the
// library's name; errors are *Error with Redis's texts.
func (e *Engine) LoadLibrary(ctx context.Context, payload []byte, replace bool) (string, error) {
	v := e.get()
	lib, _, err := e.buildLibrary(ctx, v, payload)
	v.libGen = 0 // its functions are the new library's only: reload on next FCALL
	e.put(v)
	if err != nil {
		return "", err
	}
	r := &e.libs
	r.mu.Lock()
	defer r.mu.Unlock()
	old := r.libs[lib.Name]
	if old != nil && !replace {
		return "", replyErr("ERR Library '%s' already exists", lib.Name)
	}
	for _, f := range lib.Functions {
		if g, ok := r.funcs[funcKey(f.Name)]; ok && g.Library != old {
			return "", replyErr("ERR Function %s already exists", f.Name)
		}
	}
	r.unlink(old)
	r.link(lib)
	return lib.Name, nil
}

func (r *libraries) link(lib *Library) {
	r.libs[lib.Name] = lib
	for _, f := range lib.Functions {
		r.funcs[funcKey(f.Name)] = f
	}
	r.gen++
}

func (r *libraries) unlink(lib *Library) {
	if lib == nil {
		return
	}
	delete(r.libs, lib.Name)
	for _, f := range lib.Functions {
		delete(r.funcs, funcKey(f.Name))
	}
	r.gen++
}

// DeleteLibrary is FUNCTION DELETE; the error is "ERR Library not found".
func (e *Engine) DeleteLibrary(name string) error {
	r := &e.libs
	r.mu.Lock()
	defer r.mu.Unlock()
	lib := r.libs[name]
	if lib == nil {
		return replyErr("ERR Library not found")
	}
	r.unlink(lib)
	return nil
}

// FlushLibraries is FUNCTION FLUSH.
func (e *Engine) FlushLibraries() {
	r := &e.libs
	r.mu.Lock()
	r.libs, r.funcs = map[string]*Library{}, map[string]*Function{}
	r.gen++
	r.mu.Unlock()
}

// Libraries returns the libraries whose names match pattern (Redis glob,
// case-insensitive as FUNCTION LIST's LIBRARYNAME; "" for all), sorted by name, for FUNCTION LIST and for
// persisting them (each Library's Code reloads it).
func (e *Engine) Libraries(pattern string) []*Library {
	r := &e.libs
	r.mu.RLock()
	out := make([]*Library, 0, len(r.libs))
	for _, lib := range r.libs {
		if pattern == "" || glob.MatchString(pattern, lib.Name, true) {
			out = append(out, lib)
		}
	}
	r.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// FunctionStats returns the counts FUNCTION STATS reports for the LUA engine.
func (e *Engine) FunctionStats() (libraries, functions int) {
	r := &e.libs
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.libs), len(r.funcs)
}

// LookupFunction finds a function by name, in any case, for FCALL/FCALL_RO
// (the caller checks its Flags, e.g. no-writes for FCALL_RO).
func (e *Engine) LookupFunction(name string) (*Function, bool) {
	r := &e.libs
	r.mu.RLock()
	f, ok := r.funcs[funcKey(name)]
	r.mu.RUnlock()
	return f, ok
}

// ErrFunctionNotFound is FCALL's reply for an unknown function.
var ErrFunctionNotFound = &Error{Msg: "ERR Function not found"}

// RestorePolicy is how RestoreLibraries treats the libraries already loaded.
type RestorePolicy int

const (
	// RestoreAppend adds the libraries and fails on any name collision.
	RestoreAppend RestorePolicy = iota
	// RestoreReplace adds them, replacing libraries of the same name.
	RestoreReplace
	// RestoreFlush drops every loaded library first.
	RestoreFlush
)

// RestoreLibraries loads several payloads at once, all or nothing (FUNCTION
// RESTORE and loading persisted libraries at start-up).
func (e *Engine) RestoreLibraries(ctx context.Context, payloads [][]byte, policy RestorePolicy) error {
	v := e.get()
	libs := make([]*Library, 0, len(payloads))
	var err error
	for _, p := range payloads {
		var lib *Library
		if lib, _, err = e.buildLibrary(ctx, v, p); err != nil {
			break
		}
		libs = append(libs, lib)
	}
	v.libGen = 0
	e.put(v)
	if err != nil {
		return err
	}
	r := &e.libs
	r.mu.Lock()
	defer r.mu.Unlock()
	next := newLibraries()
	if policy != RestoreFlush {
		for _, lib := range r.libs {
			next.link(lib)
		}
	}
	for _, lib := range libs {
		if old := next.libs[lib.Name]; old != nil {
			if policy != RestoreReplace {
				return replyErr("ERR Library %s already exists", lib.Name)
			}
			next.unlink(old)
		}
		for _, f := range lib.Functions {
			if _, ok := next.funcs[funcKey(f.Name)]; ok {
				return replyErr("ERR Function %s already exists", f.Name)
			}
		}
		next.link(lib)
	}
	r.libs, r.funcs = next.libs, next.funcs
	r.gen++
	return nil
}

// ensureLibraries makes v's functions those of the current generation,
// reloading every library's code when they are stale.
func (e *Engine) ensureLibraries(ctx context.Context, v *vm) error {
	r := &e.libs
	r.mu.RLock()
	gen := r.gen
	libs := make([]*Library, 0, len(r.libs))
	for _, lib := range r.libs {
		libs = append(libs, lib)
	}
	r.mu.RUnlock()
	if v.libGen == gen {
		return nil
	}
	funcs := map[string]*lua.LFunction{}
	for _, lib := range libs {
		h, err := ParseLibraryHeader(lib.Code)
		if err != nil {
			return err
		}
		scratch := &Library{Name: lib.Name}
		fs, err := v.loadLibrary(ctx, scratch, h.Code, true)
		if err != nil {
			return err
		}
		for name, fn := range fs {
			funcs[name] = fn
		}
	}
	v.funcs, v.libGen = funcs, gen
	return nil
}

// FCall runs function f with its keys and arguments (FCALL, FCALL_RO) and
// writes its reply; the results are Eval's.
func (e *Engine) FCall(ctx context.Context, h Host, f *Function, keys, args [][]byte, w *resp.Writer) error {
	v := e.get()
	defer e.put(v)
	if err := e.ensureLibraries(ctx, v); err != nil {
		// A library that loaded before failed to load again in this state
		// (its load-time code ran out of time, say): reply with the error.
		v.broken = true
		if ctx != nil && ctx.Err() != nil {
			return &KilledError{Reply: "ERR Script killed by user with SCRIPT KILL...", Cause: ctx.Err()}
		}
		w.Error(err.Error())
		h.ErrorReply(err.Error(), false)
		return nil
	}
	fn := v.funcs[funcKey(f.Name)]
	if fn == nil {
		// The library changed between the lookup and now.
		w.Error(ErrFunctionNotFound.Msg)
		h.ErrorReply(ErrFunctionNotFound.Msg, false)
		return nil
	}
	return v.execute(ctx, h, f.Name, fn, []lua.LValue{strTable(v.L, keys), strTable(v.L, args)}, w)
}
