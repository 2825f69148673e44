package script

import (
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/cairndb/cairn/internal/rconv"
)

// Log levels of redis.log, Redis's LL_* values.
const (
	LogDebug   = 0
	LogVerbose = 1
	LogNotice  = 2
	LogWarning = 3
)

// Replication flags of redis.set_repl (Redis's PROPAGATE_*).
const (
	ReplNone = 0
	ReplAOF  = 1
	ReplRepl = 2
	ReplAll  = ReplAOF | ReplRepl
)

// ErrACLUnknownCommand is what a Host's ACLCheck returns (or wraps) for a
// command that does not exist; the script then gets Redis's error "Invalid
// command passed to redis.acl_check_cmd()".
var ErrACLUnknownCommand = errors.New("Invalid command passed to redis.acl_check_cmd()")

// raise raises Redis's {err=...} table for msg (luaPushError + luaError).
func raise(L *lua.LState, msg string) {
	L.Error(errorTable(L, msg), 1)
}

// redisTable builds the redis table scripts and functions see at run time.
func (v *vm) redisTable() *lua.LTable {
	L := v.L
	t := L.NewTable()
	set := func(name string, fn lua.LGFunction) { t.RawSetString(name, L.NewFunction(fn)) }
	set("call", func(L *lua.LState) int { return v.redisCall(L, true) })
	set("pcall", func(L *lua.LState) int { return v.redisCall(L, false) })
	v.setLog(t)
	v.setVersion(t)
	set("setresp", func(L *lua.LState) int {
		r := v.mustRun(L)
		if L.GetTop() != 1 {
			raise(L, "redis.setresp() requires one argument.")
		}
		n := int(lua.LVAsNumber(L.Get(1)))
		if n != 2 && n != 3 {
			raise(L, "RESP version must be 2 or 3.")
		}
		r.resp = n
		return 0
	})
	set("sha1hex", func(L *lua.LState) int {
		if L.GetTop() != 1 {
			raise(L, "wrong number of arguments")
		}
		s, _ := toArg(L.Get(1))
		sum := sha1.Sum(s)
		L.Push(lua.LString(hex.EncodeToString(sum[:])))
		return 1
	})
	set("error_reply", func(L *lua.LState) int {
		s, ok := L.Get(1).(lua.LString)
		if L.GetTop() != 1 || !ok {
			L.Push(errorTable(L, "wrong number or type of arguments"))
			return 1
		}
		msg := string(s)
		if !strings.HasPrefix(msg, "-") {
			msg = "-" + msg
		}
		L.Push(errorTable(L, msg))
		return 1
	})
	set("status_reply", func(L *lua.LState) int {
		s, ok := L.Get(1).(lua.LString)
		if L.GetTop() != 1 || !ok {
			L.Push(errorTable(L, "wrong number or type of arguments"))
			return 1
		}
		r := L.NewTable()
		r.RawSetString("ok", s)
		L.Push(r)
		return 1
	})
	set("set_repl", func(L *lua.LState) int {
		r := v.mustRun(L)
		if L.GetTop() != 1 {
			raise(L, "redis.set_repl() requires one argument.")
		}
		flags := int(lua.LVAsNumber(L.Get(1)))
		if flags&^ReplAll != 0 {
			raise(L, "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.")
		}
		r.repl = flags
		return 0
	})
	for name, val := range map[string]int{"REPL_NONE": ReplNone, "REPL_AOF": ReplAOF,
		"REPL_SLAVE": ReplRepl, "REPL_REPLICA": ReplRepl, "REPL_ALL": ReplAll} {
		t.RawSetString(name, lua.LNumber(val))
	}
	set("acl_check_cmd", func(L *lua.LState) int {
		r := v.mustRun(L)
		args, msg := luaArgs(L)
		if msg != "" {
			raise(L, msg)
		}
		ok, err := r.host.ACLCheck(args)
		if errors.Is(err, ErrACLUnknownCommand) {
			raise(L, ErrACLUnknownCommand.Error())
		}
		if err != nil {
			v.abort(L, err)
		}
		L.Push(lua.LBool(ok))
		return 1
	})
	// Outside SCRIPT DEBUG, which Cairn does not have, these do nothing.
	set("breakpoint", func(L *lua.LState) int { L.Push(lua.LFalse); return 1 })
	set("debug", func(L *lua.LState) int { return 0 })
	set("replicate_commands", func(L *lua.LState) int { L.Push(lua.LTrue); return 1 })
	return t
}

// libraryRedisTable builds the redis table a library sees while it loads.
func (v *vm) libraryRedisTable() *lua.LTable {
	t := v.L.NewTable()
	t.RawSetString("register_function", v.L.NewFunction(v.registerFunction))
	v.setLog(t)
	v.setVersion(t)
	return t
}

func (v *vm) setVersion(t *lua.LTable) {
	t.RawSetString("REDIS_VERSION_NUM", lua.LNumber(v.e.opts.VersionNum))
	t.RawSetString("REDIS_VERSION", lua.LString(v.e.opts.Version))
}

func (v *vm) setLog(t *lua.LTable) {
	t.RawSetString("log", v.L.NewFunction(func(L *lua.LState) int {
		argc := L.GetTop()
		if argc < 2 {
			raise(L, "redis.log() requires two arguments or more.")
		}
		lv, ok := L.Get(1).(lua.LNumber)
		if !ok {
			if s, isStr := L.Get(1).(lua.LString); isStr {
				if f, ok2 := rconv.ParseFloat([]byte(strings.TrimSpace(string(s)))); ok2 {
					lv, ok = lua.LNumber(f), true
				}
			}
		}
		if !ok {
			raise(L, "First argument must be a number (log level).")
		}
		level := int(lv)
		if level < LogDebug || level > LogWarning {
			raise(L, "Invalid debug level.")
		}
		var b strings.Builder
		for j := 2; j <= argc; j++ {
			s, ok := toArg(L.Get(j))
			if !ok {
				continue
			}
			if j != 2 {
				b.WriteByte(' ')
			}
			b.Write(s)
		}
		if r := v.run; r != nil {
			r.host.Log(level, b.String())
		} else if v.e.opts.Log != nil && (v.loading == nil || !v.loading.quiet) {
			v.e.opts.Log(level, b.String())
		}
		return 0
	}))
	for name, val := range map[string]int{"LOG_DEBUG": LogDebug, "LOG_VERBOSE": LogVerbose,
		"LOG_NOTICE": LogNotice, "LOG_WARNING": LogWarning} {
		t.RawSetString(name, lua.LNumber(val))
	}
}

// mustRun returns the run in progress; the run-time redis table is not
// reachable while a library loads, but a script may smuggle a function out.
func (v *vm) mustRun(L *lua.LState) *run {
	if v.run == nil {
		raise(L, "This Redis command is not allowed from script")
	}
	return v.run
}

// abort stops the run for a host failure: the error is kept for Run to
// return, and the pcall wrappers will not let the script catch it.
func (v *vm) abort(L *lua.LState, err error) {
	v.run.abort = err
	L.RaiseError("script aborted by the server")
}

// toArg converts a Lua value to a command argument as lua_tolstring does:
// strings as they are, numbers as Redis prints them (integers without a
// fraction, others as %.17g), anything else is not an argument.
func toArg(val lua.LValue) ([]byte, bool) {
	switch x := val.(type) {
	case lua.LString:
		return []byte(x), true
	case lua.LNumber:
		f := float64(x)
		if f == float64(int64(f)) && f >= -9223372036854775808.0 && f < 9223372036854775808.0 {
			return rconv.AppendInt(nil, int64(f)), true
		}
		return rconv.AppendFloat(nil, f), true
	}
	return nil, false
}

// luaArgs reads the arguments of redis.call and friends; msg is Redis's
// error when they are not usable.
func luaArgs(L *lua.LState) ([][]byte, string) {
	argc := L.GetTop()
	if argc == 0 {
		return nil, "Please specify at least one argument for this redis lib call"
	}
	args := make([][]byte, argc)
	for j := 1; j <= argc; j++ {
		a, ok := toArg(L.Get(j))
		if !ok {
			return nil, "Lua redis lib command arguments must be strings or integers"
		}
		args[j-1] = a
	}
	return args, ""
}

// redisCall is redis.call (raise) and redis.pcall (!raise), Redis's
// luaRedisGenericCommand.
func (v *vm) redisCall(L *lua.LState, raiseErr bool) int {
	r := v.mustRun(L)
	args, msg := luaArgs(L)
	if msg != "" {
		t := errorTable(L, msg)
		if raiseErr {
			L.Error(t, 1)
		}
		L.Push(t)
		return 1
	}
	reply, err := r.host.Call(args, r.resp)
	if err != nil {
		v.abort(L, err)
	}
	val, err := parseReply(L, reply, v.e.opts.MaxReplyDepth)
	if err != nil {
		v.abort(L, err)
	}
	if raiseErr && len(reply) > 0 && (reply[0] == '-' || reply[0] == '!') {
		L.Error(val, 1)
	}
	L.Push(val)
	return 1
}
