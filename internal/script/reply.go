package script

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// ErrBadReply is wrapped by the error Eval and FCall return when the bytes
// a Host returned from Call are not one well-formed RESP2/RESP3 reply (or
// nest deeper than Options.MaxReplyDepth); the run stops as for a Host
// error, with nothing written.
var ErrBadReply = errors.New("script: malformed command reply")

// replyParser turns one command reply, in RESP2 or RESP3 bytes, into the Lua
// value redis.call returns, following Redis's redisProtocolToLuaType
// callbacks in script_lua.c:
//
//	integer            number
//	bulk / simple      string / {ok=string}
//	null bulk / array  false
//	error (- and !)    {err="CODE message"}
//	array / push       array table
//	map                {map={k=v,...}}
//	set                {set={member=true,...}}
//	null (_)           nil
//	boolean            boolean
//	double             {double=number}
//	big number         {big_number=string}
//	verbatim           {verbatim_string={format=..., string=...}}
//	attribute          skipped; the value after it is used
//
// It is bounded: nesting deeper than maxDepth and lengths the remaining
// bytes cannot hold are errors, so no reply can make it recurse or
// allocate without limit.
type replyParser struct {
	L        *lua.LState
	buf      []byte
	pos      int
	maxDepth int
}

// parseReply parses b, which must hold exactly one reply. build is false to
// only check the bytes (the fuzz target, attributes).
func parseReply(L *lua.LState, b []byte, maxDepth int) (lua.LValue, error) {
	p := replyParser{L: L, buf: b, maxDepth: maxDepth}
	v, err := p.value(0, true)
	if err != nil {
		return nil, err
	}
	if p.pos != len(b) {
		return nil, fmt.Errorf("%w: %d bytes after the reply", ErrBadReply, len(b)-p.pos)
	}
	return v, nil
}

func (p *replyParser) fail(format string, args ...any) error {
	return fmt.Errorf("%w at byte %d: %s", ErrBadReply, p.pos, fmt.Sprintf(format, args...))
}

// line returns the text up to the next CRLF and moves past it.
func (p *replyParser) line() ([]byte, error) {
	i := bytes.Index(p.buf[p.pos:], []byte("\r\n"))
	if i < 0 {
		return nil, p.fail("line without CRLF")
	}
	l := p.buf[p.pos : p.pos+i]
	p.pos += i + 2
	return l, nil
}

// length parses a count line; -1 is allowed when null is true. A count
// larger than the bytes left could hold (each element takes at least three
// bytes) is refused before anything is allocated.
func (p *replyParser) length(l []byte, per int) (int, error) {
	n, err := strconv.ParseInt(string(l), 10, 64)
	if err != nil || n < -1 {
		return 0, p.fail("bad length %q", l)
	}
	if n > 0 && n > int64(len(p.buf)-p.pos)/int64(per) {
		return 0, p.fail("length %d beyond the reply's end", n)
	}
	return int(n), nil
}

func (p *replyParser) bulk(l []byte) ([]byte, bool, error) {
	n, err := p.length(l, 1)
	if err != nil {
		return nil, false, err
	}
	if n < 0 {
		return nil, true, nil
	}
	if len(p.buf)-p.pos < n+2 || p.buf[p.pos+n] != '\r' || p.buf[p.pos+n+1] != '\n' {
		return nil, false, p.fail("bulk of %d bytes not followed by CRLF", n)
	}
	b := p.buf[p.pos : p.pos+n]
	p.pos += n + 2
	return b, false, nil
}

func (p *replyParser) table(kv ...any) *lua.LTable {
	t := p.L.CreateTable(0, len(kv)/2)
	for i := 0; i < len(kv); i += 2 {
		t.RawSetString(kv[i].(string), kv[i+1].(lua.LValue))
	}
	return t
}

func (p *replyParser) value(depth int, build bool) (lua.LValue, error) {
	if depth > p.maxDepth {
		return nil, p.fail("reply nested deeper than %d", p.maxDepth)
	}
	if p.pos >= len(p.buf) {
		return nil, p.fail("missing reply")
	}
	kind := p.buf[p.pos]
	p.pos++
	l, err := p.line()
	if err != nil {
		return nil, err
	}
	switch kind {
	case '+':
		if !build {
			return nil, nil
		}
		return p.table("ok", lua.LString(l)), nil
	case '-':
		if !build {
			return nil, nil
		}
		return commandErrorTable(p.L, "-"+string(l)), nil
	case ':':
		n, err := strconv.ParseInt(string(l), 10, 64)
		if err != nil {
			return nil, p.fail("bad integer %q", l)
		}
		return lua.LNumber(float64(n)), nil
	case '$', '!', '=':
		b, null, err := p.bulk(l)
		if err != nil {
			return nil, err
		}
		switch {
		case !build:
			return nil, nil
		case null && kind == '$':
			return lua.LFalse, nil
		case null:
			return nil, p.fail("null %c reply", kind)
		case kind == '$':
			return lua.LString(b), nil
		case kind == '!':
			return commandErrorTable(p.L, "-"+string(b)), nil
		}
		if len(b) < 4 || b[3] != ':' {
			return nil, p.fail("verbatim string without a format")
		}
		return p.table("verbatim_string", p.table("format", lua.LString(b[:3]), "string", lua.LString(b[4:]))), nil
	case '*', '>', '~', '%', '|':
		per := 3
		if kind == '%' || kind == '|' {
			per = 6
		}
		n, err := p.length(l, per)
		if err != nil {
			return nil, err
		}
		if n < 0 {
			if kind != '*' {
				return nil, p.fail("null %c reply", kind)
			}
			return lua.LFalse, nil
		}
		switch kind {
		case '|':
			for i := 0; i < 2*n; i++ {
				if _, err := p.value(depth+1, false); err != nil {
					return nil, err
				}
			}
			return p.value(depth, build)
		case '%':
			var t *lua.LTable
			if build {
				t = p.L.CreateTable(0, n)
			}
			for i := 0; i < n; i++ {
				k, err := p.value(depth+1, build)
				if err != nil {
					return nil, err
				}
				v, err := p.value(depth+1, build)
				if err != nil {
					return nil, err
				}
				if build && k != lua.LNil {
					setKey(t, k, v)
				}
			}
			if !build {
				return nil, nil
			}
			return p.table("map", t), nil
		case '~':
			var t *lua.LTable
			if build {
				t = p.L.CreateTable(0, n)
			}
			for i := 0; i < n; i++ {
				k, err := p.value(depth+1, build)
				if err != nil {
					return nil, err
				}
				if build && k != lua.LNil {
					setKey(t, k, lua.LTrue)
				}
			}
			if !build {
				return nil, nil
			}
			return p.table("set", t), nil
		}
		var t *lua.LTable
		if build {
			t = p.L.CreateTable(n, 0)
		}
		for i := 0; i < n; i++ {
			v, err := p.value(depth+1, build)
			if err != nil {
				return nil, err
			}
			if build {
				t.RawSetInt(i+1, v)
			}
		}
		if !build {
			return nil, nil
		}
		return t, nil
	case '_':
		if len(l) != 0 {
			return nil, p.fail("bad null")
		}
		return lua.LNil, nil
	case '#':
		switch string(l) {
		case "t":
			return lua.LTrue, nil
		case "f":
			return lua.LFalse, nil
		}
		return nil, p.fail("bad boolean %q", l)
	case ',':
		f, err := strconv.ParseFloat(string(l), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return nil, p.fail("bad double %q", l)
		}
		if !build {
			return nil, nil
		}
		return p.table("double", lua.LNumber(f)), nil
	case '(':
		if !build {
			return nil, nil
		}
		return p.table("big_number", lua.LString(l)), nil
	}
	return nil, p.fail("unknown reply type %q", kind)
}

// setKey stores v under k the way lua_settable would for the keys a reply
// can produce; a NaN key (a double) cannot be stored and is dropped.
func setKey(t *lua.LTable, k, v lua.LValue) {
	if n, ok := k.(lua.LNumber); ok && math.IsNaN(float64(n)) {
		return
	}
	t.RawSet(k, v)
}

// ignoreErrorStats is the field Redis 7 sets in the error table of a
// command's error reply: the error was counted in the error statistics
// when the command replied, and is not counted again if the script
// returns it. Scripts see it, as they do in Redis.
const ignoreErrorStats = "ignore_error_stats_update"

// commandErrorTable is errorTable for a command's error reply.
func commandErrorTable(L *lua.LState, s string) *lua.LTable {
	t := errorTable(L, s)
	t.RawSetString(ignoreErrorStats, lua.LTrue)
	return t
}

// errorTable builds the {err=...} table Redis's luaPushErrorBuff does:
// "-CODE message" keeps its code, a text without a leading "-" (or without
// a space after the code) gets "ERR", and a trailing CR/LF is trimmed.
func errorTable(L *lua.LState, s string) *lua.LTable {
	var code, msg string
	if rest, ok := strings.CutPrefix(s, "-"); ok {
		if c, m, ok := strings.Cut(rest, " "); ok {
			code, msg = c, m
		} else {
			code, msg = "ERR", rest
		}
	} else {
		code, msg = "ERR", s
	}
	msg = strings.Trim(msg, "\r\n")
	t := L.CreateTable(0, 1)
	t.RawSetString("err", lua.LString(code+" "+msg))
	return t
}
