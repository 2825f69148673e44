package script

import (
	"math"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/cairndb/cairn/internal/resp"
)

// replyWriter writes a script's return value as a reply, following Redis's
// luaReplyToRedisReply in script_lua.c:
//
//	string                       bulk string
//	number                       integer, truncated toward zero
//	true / false                 RESP2 scripts: 1 / null; RESP3 scripts
//	                             (redis.setresp(3)): boolean
//	{err=s}                      error reply s
//	{ok=s}                       status reply s
//	{double=n}                   double
//	{big_number=s}               big number
//	{verbatim_string={format=f, string=s}}  verbatim string
//	{map={...}}                  map of its pairs
//	{set={...}}                  set of its keys
//	other table                  array of t[1], t[2], ... up to the first nil
//	nil and anything else        null
//
// Every table is read with raw access, so no script code runs while the
// reply is written. Nesting is bounded as in Redis, whose conversion keeps
// every enclosing element on the Lua stack: an element that would need the
// stack past Lua's LUAI_MAXCSTACK (8000 slots) is written as the error
// "ERR reached lua stack limit", so a table holding itself becomes 7995
// nested arrays and that error, exactly as Redis replies. The stack use is
// tracked as Redis's luaReplyToRedisReply grows it: one slot per array
// level, four for a map key, three for a map value or a set member.
type replyWriter struct {
	w         *resp.Writer
	scriptRES int // the script's protocol, from redis.setresp
	// onError, if set, is told of each error written (Host.ErrorReply).
	onError func(msg string, fromCommand bool)
}

// writeError writes an error reply and tells onError.
func (rw *replyWriter) writeError(msg string, fromCommand bool) {
	rw.w.Error(msg)
	if rw.onError != nil {
		rw.onError(msg, fromCommand)
	}
}

const (
	// luaMaxCStack is Lua 5.1's LUAI_MAXCSTACK.
	luaMaxCStack = 8000
	// replyBaseTop is the Lua stack in use when Redis converts a result:
	// the error handler and the result itself.
	replyBaseTop = 2
)

// stackFull reports whether Redis's lua_checkstack(lua, 4) fails for an
// element at stack height top.
func stackFull(top int) bool { return top+4 > luaMaxCStack }

// countReply counts the elements v would write, stopping once the count
// passes limit. Run before writing, it keeps a reply that cannot be sent
// (self-referencing tables, huge arrays) from being half written.
func countReply(v lua.LValue, top int, limit int) int {
	t, ok := v.(*lua.LTable)
	if !ok || stackFull(top) {
		return 1
	}
	for _, k := range []string{"err", "ok", "big_number"} {
		if _, ok := t.RawGetString(k).(lua.LString); ok {
			return 1
		}
	}
	if _, ok := t.RawGetString("double").(lua.LNumber); ok {
		return 1
	}
	if verbatim(t) != nil {
		return 1
	}
	n := 1
	if m, ok := t.RawGetString("map").(*lua.LTable); ok {
		m.ForEach(func(k, val lua.LValue) {
			if n > limit {
				return
			}
			n += countReply(k, top+4, limit-n)
			n += countReply(val, top+3, limit-n)
		})
		return n
	}
	if s, ok := t.RawGetString("set").(*lua.LTable); ok {
		s.ForEach(func(k, _ lua.LValue) {
			if n > limit {
				return
			}
			n += countReply(k, top+3, limit-n)
		})
		return n
	}
	for i := 1; n <= limit; i++ {
		e := t.RawGetInt(i)
		if e == lua.LNil {
			break
		}
		n += countReply(e, top+1, limit-n)
	}
	return n
}

// verbatim returns the {format=, string=} table of a verbatim reply, or nil.
// Only a format's first three bytes are used, as Redis copies three; a
// shorter one is not a verbatim reply here (Redis would read past it).
func verbatim(t *lua.LTable) *lua.LTable {
	v, ok := t.RawGetString("verbatim_string").(*lua.LTable)
	if !ok {
		return nil
	}
	f, ok1 := v.RawGetString("format").(lua.LString)
	_, ok2 := v.RawGetString("string").(lua.LString)
	if !ok1 || !ok2 || len(f) < 3 {
		return nil
	}
	return v
}

func (rw *replyWriter) write(v lua.LValue, top int) {
	w := rw.w
	if stackFull(top) {
		rw.writeError("ERR reached lua stack limit", false)
		return
	}
	switch v := v.(type) {
	case lua.LString:
		w.BulkString(string(v))
	case lua.LBool:
		switch {
		case rw.scriptRES == 3:
			w.Bool(bool(v))
		case bool(v):
			w.Int(1)
		default:
			w.NullBulk()
		}
	case lua.LNumber:
		w.Int(toInt64(float64(v)))
	case *lua.LTable:
		rw.table(v, top)
	default:
		w.NullBulk()
	}
}

func (rw *replyWriter) table(t *lua.LTable, top int) {
	w := rw.w
	if s, ok := t.RawGetString("err").(lua.LString); ok {
		rw.writeError(cString(string(s)), t.RawGetString(ignoreErrorStats) == lua.LTrue)
		return
	}
	if s, ok := t.RawGetString("ok").(lua.LString); ok {
		w.SimpleString(cString(string(s)))
		return
	}
	if n, ok := t.RawGetString("double").(lua.LNumber); ok {
		w.Double(float64(n))
		return
	}
	if s, ok := t.RawGetString("big_number").(lua.LString); ok {
		w.BigNumber(strings.NewReplacer("\r", " ", "\n", " ").Replace(string(s)))
		return
	}
	if v := verbatim(t); v != nil {
		w.Verbatim(string(v.RawGetString("format").(lua.LString))[:3], string(v.RawGetString("string").(lua.LString)))
		return
	}
	if m, ok := t.RawGetString("map").(*lua.LTable); ok {
		n := 0
		m.ForEach(func(_, _ lua.LValue) { n++ })
		w.Map(n)
		m.ForEach(func(k, val lua.LValue) {
			rw.write(k, top+4)
			rw.write(val, top+3)
		})
		return
	}
	if s, ok := t.RawGetString("set").(*lua.LTable); ok {
		n := 0
		s.ForEach(func(_, _ lua.LValue) { n++ })
		w.Set(n)
		s.ForEach(func(k, _ lua.LValue) { rw.write(k, top+3) })
		return
	}
	n := 0
	for t.RawGetInt(n+1) != lua.LNil {
		n++
	}
	w.Array(n)
	for i := 1; i <= n; i++ {
		rw.write(t.RawGetInt(i), top+1)
	}
}

// cString cuts s at its first NUL, as Redis's sdsnew(lua_tostring()) does
// for status and error replies. The error's text is written as it is: an
// {err="x"} table replies "-x", with no "ERR " added.
func cString(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}

// toInt64 converts a Lua number to a reply integer as C's (long long) cast
// does on x86-64: truncation toward zero, and the "integer indefinite"
// value math.MinInt64 for NaN, infinities and anything out of range.
func toInt64(f float64) int64 {
	if math.IsNaN(f) || f >= 9223372036854775808.0 || f < -9223372036854775808.0 {
		return math.MinInt64
	}
	return int64(f)
}
