package script

import (
	"context"
	"math"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// The messages of Redis's sandbox (script_lua.c and its patched Lua).
const (
	msgReadonly  = "Attempt to modify a readonly table"
	msgNoGlobalF = "Script attempted to access nonexistent global variable '%s'"
)

// globalsAllowed are the globals Redis 7.2 leaves to scripts from Lua's own
// libraries (script_lua.c's allow lists); everything else gopher-lua
// defines (print, dofile, loadfile, require, module, ...) is removed.
var globalsAllowed = map[string]bool{
	"xpcall": true, "tostring": true, "getfenv": true, "setmetatable": true,
	"next": true, "assert": true, "tonumber": true, "rawequal": true,
	"collectgarbage": true, "getmetatable": true, "rawset": true, "pcall": true,
	"coroutine": true, "type": true, "_G": true, "select": true, "unpack": true,
	"gcinfo": true, "pairs": true, "rawget": true, "loadstring": true,
	"ipairs": true, "_VERSION": true, "setfenv": true, "load": true,
	"error": true, "newproxy": true,
	"string": true, "math": true, "table": true,
	"cjson": true, "bit": true, "cmsgpack": true, "struct": true,
}

// vm is one pooled Lua state with Redis's sandbox. Scripts see the globals
// through env, an empty table whose metatable reads the real globals and
// refuses every write, the way Redis 7.2's function engine does; library
// tables (string, math, redis, ...) are seen through such read-only views
// too, so no script can change what the next script finds.
type vm struct {
	e    *Engine
	L    *lua.LState
	real *lua.LTable // the real globals
	env  *lua.LTable // the view scripts get as their environment and _G
	// libAPI holds the only global a library sees while it loads: its own
	// redis table (register_function, log, ...).
	libAPI *lua.LTable
	// views maps each read-only view to the table it shows.
	views map[*lua.LTable]*lua.LTable
	// metaViews is what getmetatable returns for a view.
	metaViews  map[*lua.LTable]*lua.LTable
	stringMeta *lua.LTable
	errHandler *lua.LFunction

	run     *run     // the script run in progress, nil between runs
	loading *loadCtx // the library load in progress, nil otherwise
	rng     lrand48
	// chunks maps the names loadstring's chunks show in messages back to
	// their sources, which error replies print as Lua's debug info does.
	chunks     map[string]string
	chunkBytes int // the bytes of chunks' names
	// cdepth counts nested pcall/xpcall, each a Go frame; Lua 5.1 stops
	// at LUAI_MAXCCALLS (200) nested C calls with "C stack overflow".
	cdepth int

	libGen uint64                    // the library generation funcs belongs to
	funcs  map[string]*lua.LFunction // FCALL's functions, by name
	broken bool                      // must not go back to the pool
}

func newVM(e *Engine) *vm {
	L := lua.NewState(lua.Options{
		SkipOpenLibs:     true,
		CallStackSize:    e.opts.CallStackSize,
		RegistrySize:     1024,
		RegistryMaxSize:  e.opts.RegistryMaxSize,
		RegistryGrowStep: 8192,
		// A fixed call stack, so that overflowing it is Lua's "stack
		// overflow" error rather than a panic of the growing one.
	})
	v := &vm{
		e:         e,
		L:         L,
		views:     make(map[*lua.LTable]*lua.LTable),
		metaViews: make(map[*lua.LTable]*lua.LTable),
		chunks:    make(map[string]string),
	}
	v.rng.x = 0x1234ABCD330E // rand48's initial state, as Redis starts
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{
		{lua.BaseLibName, lua.OpenBase},
		{lua.TabLibName, lua.OpenTable},
		{lua.StringLibName, lua.OpenString},
		{lua.MathLibName, lua.OpenMath},
		{lua.CoroutineLibName, lua.OpenCoroutine},
	} {
		L.Push(L.NewFunction(lib.open))
		L.Push(lua.LString(lib.name))
		L.Call(1, 0)
	}
	if e.opts.Libraries != nil {
		e.opts.Libraries(L)
	}
	real := L.Get(lua.GlobalsIndex).(*lua.LTable)
	v.real = real
	var drop []string
	real.ForEach(func(k, _ lua.LValue) {
		if s, ok := k.(lua.LString); !ok || !globalsAllowed[string(s)] {
			drop = append(drop, k.String())
		}
	})
	for _, k := range drop {
		real.RawSetString(k, lua.LNil)
	}
	v.installBase()
	if str, ok := real.RawGetString("string").(*lua.LTable); ok {
		installStringLib(L, str, v.e.maxString) // strlib.go
	}
	real.RawSetString("tonumber", L.NewFunction(luaToNumber)) // strlib.go
	real.RawSetString("redis", v.redisTable())

	// The error handler Redis's eval.c defines in Lua, here in Go: it adds
	// where the error happened (the caller, when a Go function raised it).
	v.errHandler = L.NewFunction(v.handleError)

	// The environment view: reads fall through to the real globals, or to
	// the library API while a library loads; a missing name is an error.
	v.env = L.NewTable()
	envMeta := L.NewTable()
	envMeta.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		k := L.Get(2)
		src := v.real
		if v.loading != nil {
			src = v.libAPI
		}
		val := src.RawGet(k)
		if val == lua.LNil {
			L.RaiseError(msgNoGlobalF, lua.LVAsString(k))
		}
		L.Push(val)
		return 1
	}))
	envMeta.RawSetString("__newindex", L.NewFunction(readonlyError))
	L.SetMetatable(v.env, envMeta)
	v.views[v.env] = real
	v.metaViews[v.env] = v.protect(v.copyMeta(envMeta), false)

	for _, name := range []string{"string", "math", "table", "coroutine", "redis", "cjson", "bit", "cmsgpack", "struct"} {
		if t, ok := real.RawGetString(name).(*lua.LTable); ok {
			real.RawSetString(name, v.protectDeep(t, map[*lua.LTable]*lua.LTable{}))
		}
	}
	real.RawSetString("_G", v.env)
	sm := L.NewTable()
	sm.RawSetString("__index", real.RawGetString("string"))
	v.stringMeta = v.protect(sm, false)

	v.libAPI = L.NewTable()
	v.libAPI.RawSetString("redis", v.protect(v.libraryRedisTable(), true))
	// Every chunk reads the concatenation of its .. once (concat.go),
	// whether it runs as a script or loads a library.
	concat := L.NewFunction(v.concat)
	real.RawSetString(concatName, concat)
	v.libAPI.RawSetString(concatName, concat)

	L.Env = v.env
	L.G.Global = real
	return v
}

// copyMeta returns a copy of a view's metatable that is safe to hand to a
// script: its fields are functions or views, never a real table.
func (v *vm) copyMeta(mt *lua.LTable) *lua.LTable {
	c := v.L.NewTable()
	mt.ForEach(func(k, val lua.LValue) { c.RawSet(k, val) })
	return c
}

// protectDeep returns a read-only view of t whose table fields are views
// too, as Redis protects every table reachable from the globals.
func (v *vm) protectDeep(t *lua.LTable, seen map[*lua.LTable]*lua.LTable) *lua.LTable {
	if view, ok := seen[t]; ok {
		return view
	}
	view := v.protect(t, false)
	seen[t] = view
	var nested []lua.LValue
	t.ForEach(func(k, val lua.LValue) {
		if _, ok := val.(*lua.LTable); ok {
			nested = append(nested, k)
		}
	})
	for _, k := range nested {
		t.RawSet(k, v.protectDeep(t.RawGet(k).(*lua.LTable), seen))
	}
	return view
}

// protect returns a read-only view of t. With strict, reading a missing
// field is an error too, as for the globals (Redis's error metatable).
func (v *vm) protect(t *lua.LTable, strict bool) *lua.LTable {
	L := v.L
	view := L.NewTable()
	mt := L.NewTable()
	if strict {
		mt.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
			k := L.Get(2)
			val := t.RawGet(k)
			if val == lua.LNil {
				L.RaiseError(msgNoGlobalF, lua.LVAsString(k))
			}
			L.Push(val)
			return 1
		}))
	} else {
		mt.RawSetString("__index", t)
	}
	mt.RawSetString("__newindex", L.NewFunction(readonlyError))
	L.SetMetatable(view, mt)
	v.views[view] = t
	safe := L.NewTable()
	if strict {
		safe.RawSetString("__index", mt.RawGetString("__index"))
	} else {
		safe.RawSetString("__index", view)
	}
	safe.RawSetString("__newindex", mt.RawGetString("__newindex"))
	sv := L.NewTable()
	svm := L.NewTable()
	svm.RawSetString("__index", safe)
	svm.RawSetString("__newindex", mt.RawGetString("__newindex"))
	L.SetMetatable(sv, svm)
	v.views[sv] = safe
	v.metaViews[view] = sv
	return view
}

func readonlyError(L *lua.LState) int {
	L.RaiseError(msgReadonly)
	return 0
}

// real returns the table a view shows, or t itself.
func (v *vm) unview(t *lua.LTable) *lua.LTable {
	if r, ok := v.views[t]; ok {
		return r
	}
	return t
}

// installBase replaces the base functions that could see through or write
// into a view, and pcall/xpcall/coroutine.resume so that an aborted or
// killed run cannot be caught by the script.
func (v *vm) installBase() {
	L, real := v.L, v.real
	next := L.NewFunction(func(L *lua.LState) int {
		t := v.unview(L.CheckTable(1))
		k, val := t.Next(L.Get(2))
		if k == lua.LNil {
			L.Push(lua.LNil)
			return 1
		}
		L.Push(k)
		L.Push(val)
		return 2
	})
	real.RawSetString("next", next)
	real.RawSetString("pairs", L.NewFunction(func(L *lua.LState) int {
		t := L.CheckTable(1)
		L.Push(next)
		L.Push(t)
		L.Push(lua.LNil)
		return 3
	}))
	real.RawSetString("rawget", L.NewFunction(func(L *lua.LState) int {
		L.Push(v.unview(L.CheckTable(1)).RawGet(L.CheckAny(2)))
		return 1
	}))
	real.RawSetString("rawset", L.NewFunction(func(L *lua.LState) int {
		t := L.CheckTable(1)
		if _, ok := v.views[t]; ok {
			// Raised inside a C function in Redis: no position.
			L.Error(lua.LString(msgReadonly), 0)
		}
		t.RawSet(L.CheckAny(2), L.CheckAny(3))
		L.SetTop(1)
		return 1
	}))
	origSetMT := real.RawGetString("setmetatable")
	real.RawSetString("setmetatable", L.NewFunction(func(L *lua.LState) int {
		if t, ok := L.Get(1).(*lua.LTable); ok {
			if _, ok := v.views[t]; ok {
				L.Error(lua.LString(msgReadonly), 0)
			}
		}
		return v.forward(L, origSetMT)
	}))
	origGetMT := real.RawGetString("getmetatable")
	real.RawSetString("getmetatable", L.NewFunction(func(L *lua.LState) int {
		switch x := L.Get(1).(type) {
		case *lua.LTable:
			if mv, ok := v.metaViews[x]; ok {
				L.Push(mv)
				return 1
			}
			if _, ok := v.views[x]; ok {
				L.Push(lua.LNil)
				return 1
			}
		case lua.LString:
			L.Push(v.stringMeta)
			return 1
		}
		return v.forward(L, origGetMT)
	}))
	origGetFEnv := real.RawGetString("getfenv")
	real.RawSetString("getfenv", L.NewFunction(func(L *lua.LState) int {
		n := v.forward(L, origGetFEnv)
		if t, ok := L.Get(-1).(*lua.LTable); ok && t == v.real {
			L.Replace(-1, v.env)
		}
		return n
	}))
	origSetFEnv := real.RawGetString("setfenv")
	real.RawSetString("setfenv", L.NewFunction(func(L *lua.LState) int {
		if f, ok := L.Get(1).(*lua.LFunction); ok && f.IsG {
			L.RaiseError("'setfenv' cannot change environment of given object")
		}
		if n, ok := L.Get(1).(lua.LNumber); ok && n == 0 {
			L.RaiseError("'setfenv' cannot change the environment of the script's thread")
		}
		return v.forward(L, origSetFEnv)
	}))
	real.RawSetString("pcall", L.NewFunction(v.pcall))
	real.RawSetString("xpcall", L.NewFunction(v.xpcall))
	if co, ok := real.RawGetString("coroutine").(*lua.LTable); ok {
		// A coroutine is a state of its own, made with this state's
		// options: let its call stack grow on demand rather than take the
		// main state's full preallocated one.
		create := co.RawGetString("create")
		co.RawSetString("create", L.NewFunction(func(L *lua.LState) int {
			saved := L.Options
			L.Options.MinimizeStackMemory = true
			defer func() { L.Options = saved }()
			return v.forward(L, create)
		}))
		wrap := co.RawGetString("wrap")
		co.RawSetString("wrap", L.NewFunction(func(L *lua.LState) int {
			saved := L.Options
			L.Options.MinimizeStackMemory = true
			defer func() { L.Options = saved }()
			return v.forward(L, wrap)
		}))
		resume := co.RawGetString("resume")
		co.RawSetString("resume", L.NewFunction(func(L *lua.LState) int {
			n := v.forward(L, resume)
			v.checkAbort(L)
			return n
		}))
	}
	real.RawSetString("unpack", L.NewFunction(func(L *lua.LState) int {
		t := L.CheckTable(1)
		i := L.OptInt(2, 1)
		j := L.OptInt(3, t.Len())
		if i > j {
			return 0
		}
		n := j - i + 1
		// Lua 5.1's lua_checkstack refuses more than LUAI_MAXCSTACK (8000)
		// values on a C function's stack.
		if n <= 0 || n+L.GetTop() > 8000 {
			L.RaiseError("too many results to unpack")
		}
		for k := i; k <= j; k++ {
			L.Push(t.RawGetInt(k))
		}
		return n
	}))
	// gopher-lua's collectgarbage runs a full collection of the whole
	// server's heap; the Lua heap is Go's, so there is nothing of the
	// script's own to collect or count.
	real.RawSetString("collectgarbage", L.NewFunction(func(L *lua.LState) int {
		switch opt := L.OptString(1, "collect"); opt {
		case "collect", "stop", "restart", "setpause", "setstepmul":
			L.Push(lua.LNumber(0))
		case "count":
			L.Push(lua.LNumber(0))
		case "step":
			L.Push(lua.LFalse)
		default:
			L.ArgError(1, "invalid option '"+opt+"'")
		}
		return 1
	}))
	real.RawSetString("gcinfo", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LNumber(0))
		return 1
	}))
	real.RawSetString("loadstring", L.NewFunction(func(L *lua.LState) int {
		src := L.CheckString(1)
		name := L.OptString(2, src)
		id := chunkID(name)
		proto, err := compile([]byte(src), id)
		if err != nil {
			L.Push(lua.LNil)
			L.Push(lua.LString(err.Error()))
			return 2
		}
		// The names default to the sources: bound their bytes too, or a
		// pooled state would keep every big chunk a script ever loaded.
		if len(v.chunks) >= 1024 || v.chunkBytes+len(name) > 1<<20 {
			clear(v.chunks)
			v.chunkBytes = 0
		}
		v.chunks[id] = name
		v.chunkBytes += len(name)
		fn := L.NewFunctionFromProto(proto)
		fn.Env = v.env
		L.Push(fn)
		return 1
	}))
	origToString := real.RawGetString("tostring")
	real.RawSetString("tostring", L.NewFunction(func(L *lua.LState) int {
		if n, ok := L.Get(1).(lua.LNumber); ok {
			L.Push(lua.LString(luaNumber(float64(n))))
			return 1
		}
		return v.forward(L, origToString)
	}))
	if tab, ok := real.RawGetString("table").(*lua.LTable); ok {
		// table's functions write with raw access: refuse views as Redis's
		// read-only tables refuse them.
		for _, name := range []string{"insert", "remove", "sort"} {
			orig := tab.RawGetString(name)
			tab.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
				if t, ok := L.Get(1).(*lua.LTable); ok {
					if _, ok := v.views[t]; ok {
						L.Error(lua.LString(msgReadonly), 0)
					}
				}
				return v.forward(L, orig)
			}))
		}
	}
	if str, ok := real.RawGetString("string").(*lua.LTable); ok {
		rep := str.RawGetString("rep")
		str.RawSetString("rep", L.NewFunction(func(L *lua.LState) int {
			s := L.CheckString(1)
			n := L.CheckInt(2)
			if n > 0 && int64(len(s))*int64(n) > v.e.maxString() {
				L.RaiseError("not enough memory")
			}
			return v.forward(L, rep)
		}))
	}
	if m, ok := real.RawGetString("math").(*lua.LTable); ok {
		m.RawSetString("random", L.NewFunction(v.mathRandom))
		m.RawSetString("randomseed", L.NewFunction(func(L *lua.LState) int {
			// luaL_checkint: a numeric string will do.
			v.rng.seed(int32(toInteger(checkLNumber(L, 1, "randomseed"))))
			return 0
		}))
	}
	v.capStrings()
}

// chunkID is how Lua 5.1 names a chunk in messages (luaO_chunkid, with
// LUA_IDSIZE 60): "=name" as name, "@file" as file, and a string as
// [string "its first line"], cut with "..." when long.
func chunkID(source string) string {
	const idSize = 60
	switch {
	case strings.HasPrefix(source, "="):
		s := source[1:]
		if len(s) > idSize-1 {
			s = s[:idSize-1]
		}
		return s
	case strings.HasPrefix(source, "@"):
		s := source[1:]
		if max := idSize - len(" '...' ") - 1; len(s) > max {
			s = "..." + s[len(s)-max:]
		}
		return s
	}
	n := strings.IndexAny(source, "\n\r")
	if n < 0 {
		n = len(source)
	}
	if max := idSize - len(" [string \"...\"] ") - 1; n > max {
		n = max
	}
	if n < len(source) {
		return `[string "` + source[:n] + `..."]`
	}
	return `[string "` + source + `"]`
}

// luaNumber formats a number as Lua 5.1 does (LUA_NUMBER_FMT, "%.14g").
// gopher-lua's own conversion (used by .. and string.format's %s) prints
// Go's shortest form instead; tostring at least says what Redis says.
func luaNumber(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	return strconv.FormatFloat(f, 'g', 14, 64)
}

// forward calls fn with this call's arguments and returns its results. L
// is the running thread, a coroutine's rather than v.L inside one.
func (v *vm) forward(L *lua.LState, fn lua.LValue) int {
	n := L.GetTop()
	L.Push(fn)
	for i := 1; i <= n; i++ {
		L.Push(L.Get(i))
	}
	L.Call(n, lua.MultRet)
	return L.GetTop() - n
}

// checkAbort re-raises when the run must stop: the host failed a call, or
// the context was cancelled (SCRIPT KILL, FUNCTION KILL, shutdown).
func (v *vm) checkAbort(L *lua.LState) {
	if v.stopping() {
		L.RaiseError("script aborted")
	}
}

func (v *vm) stopping() bool {
	if r := v.run; r != nil && r.abort != nil {
		return true
	}
	if ctx := v.L.Context(); ctx != nil && ctx.Err() != nil {
		return true
	}
	return false
}

// pcall is Redis's luaRedisPcall: pcall that returns the message of an
// {err=...} table rather than the table, and that cannot catch an abort.
func (v *vm) pcall(L *lua.LState) int {
	L.CheckAny(1)
	nargs := L.GetTop() - 1
	v.enterC(L)
	err := L.PCall(nargs, lua.MultRet, nil)
	v.cdepth--
	v.checkAbort(L)
	if err == nil {
		L.Insert(lua.LTrue, 1)
		return L.GetTop()
	}
	obj := lua.LValue(lua.LString(err.Error()))
	if ae, ok := err.(*lua.ApiError); ok {
		obj = ae.Object
	}
	if t, ok := obj.(*lua.LTable); ok {
		if s := t.RawGetString("err"); s.Type() == lua.LTString || s.Type() == lua.LTNumber {
			obj = s
		}
	}
	L.SetTop(0)
	L.Push(lua.LFalse)
	L.Push(obj)
	return 2
}

func (v *vm) xpcall(L *lua.LState) int {
	fn := L.CheckAny(1)
	handler := L.CheckFunction(2)
	L.SetTop(0)
	L.Push(fn)
	v.enterC(L)
	err := L.PCall(0, lua.MultRet, handler)
	v.cdepth--
	v.checkAbort(L)
	if err == nil {
		L.Insert(lua.LTrue, 1)
		return L.GetTop()
	}
	obj := lua.LValue(lua.LString(err.Error()))
	if ae, ok := err.(*lua.ApiError); ok {
		obj = ae.Object
	}
	L.SetTop(0)
	L.Push(lua.LFalse)
	L.Push(obj)
	return 2
}

// maxCCalls is Lua 5.1's LUAI_MAXCCALLS.
const maxCCalls = 200

func (v *vm) enterC(L *lua.LState) {
	if v.cdepth >= maxCCalls {
		L.RaiseError("C stack overflow")
	}
	v.cdepth++
}

// handleError is the error handler of a run (__redis__err__handler): it
// turns the error into a table with err, source and line fields.
func (v *vm) handleError(L *lua.LState) int {
	e := L.Get(1)
	t, ok := e.(*lua.LTable)
	if !ok {
		msg := lua.LVAsString(L.ToStringMeta(e))
		if msg == "lua callstack overflow" { // gopher-lua's growing stack says so
			msg = "stack overflow"
		}
		t = L.NewTable()
		t.RawSetString("err", lua.LString("ERR "+msg))
	}
	level := 1
	if d, ok := L.GetStack(level); ok {
		if _, err := L.GetInfo("Sl", d, lua.LNil); err == nil && d.What == "G" {
			level = 2
		}
	}
	if d, ok := L.GetStack(level); ok {
		if _, err := L.GetInfo("Sl", d, lua.LNil); err == nil && d.What != "G" {
			src, ok := v.chunks[d.Source]
			if !ok {
				src = "@" + d.Source
			}
			t.RawSetString("source", lua.LString(src))
			t.RawSetString("line", lua.LNumber(d.CurrentLine))
		}
	}
	L.Push(t)
	return 1
}

// clean reports whether the state is fit for reuse after a run: no view
// was written behind the sandbox's back (table.insert writes raw), and the
// thread's environment is still the sandbox's.
func (v *vm) clean() bool {
	if v.broken || v.L.Env != v.env {
		return false
	}
	for view := range v.views {
		if k, _ := view.Next(lua.LNil); k != lua.LNil {
			return false
		}
	}
	return true
}

// mathRandom is Redis's redis_math_random: Lua's math.random over lrand48,
// the same sequence on every platform.
func (v *vm) mathRandom(L *lua.LState) int {
	const max = 2147483647 // REDIS_LRAND48_MAX
	r := float64(v.rng.next()%max) / float64(max)
	switch L.GetTop() {
	case 0:
		L.Push(lua.LNumber(r))
	case 1:
		u := L.CheckInt(1)
		if u < 1 {
			L.ArgError(1, "interval is empty")
		}
		L.Push(lua.LNumber(floor(r*float64(u)) + 1))
	case 2:
		l, u := L.CheckInt(1), L.CheckInt(2)
		if l > u {
			L.ArgError(2, "interval is empty")
		}
		L.Push(lua.LNumber(floor(r*float64(u-l+1)) + float64(l)))
	default:
		L.RaiseError("wrong number of arguments")
	}
	return 1
}

func floor(f float64) float64 {
	i := float64(int64(f))
	if i > f {
		i--
	}
	return i
}

// lrand48 is the 48-bit linear congruential generator of rand48, which
// Redis's redisLrand48 implements.
type lrand48 struct{ x uint64 }

func (r *lrand48) seed(s int32) { r.x = uint64(uint32(s))<<16 | 0x330E }

func (r *lrand48) next() int32 {
	r.x = (0x5DEECE66D*r.x + 0xB) & (1<<48 - 1)
	return int32(r.x >> 17)
}

// compile turns source into a function prototype; the error is Lua's
// message as Lua 5.1 would phrase it, "name:line: message near 'token'".
func compile(src []byte, name string) (*lua.FunctionProto, error) {
	chunk, err := parseChunk(src, name)
	if err != nil {
		return nil, err
	}
	proto, err := lua.Compile(boundConcats(chunk), name)
	if err != nil {
		return nil, &compileError{msg: name + ": " + strings.TrimSpace(err.Error())}
	}
	return proto, nil
}

// runCtx is the context a run checks; nil contexts mean Background.
func runCtx(ctx context.Context) context.Context {
	if ctx == nil {
		return context.Background()
	}
	return ctx
}
