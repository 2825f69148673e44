package script

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// The string library's pattern functions (find, match, gmatch, gsub) and
// string.format, written from Lua 5.1's lstrlib.c, replace gopher-lua's.
//
// gopher-lua checks its context only between VM instructions, and its
// pattern matcher runs to the end of a search however long it takes: a
// backtracking pattern ran for 36 s deaf to SCRIPT KILL. This matcher is
// lstrlib.c's backtracking one, with a step counter that looks at the run's
// context every checkEvery steps, so a kill or a shutdown stops it. gmatch
// is lazy, as Lua's is, instead of finding every match up front. format
// follows lstrlib.c's str_format (C printf's conversions, Lua's errors)
// instead of passing the directives to Go's fmt.

const (
	maxCaptures   = 32 // LUA_MAXCAPTURES
	capUnfinished = -1
	capPosition   = -2
	// maxMatchDepth bounds the matcher's recursion (one level per pattern
	// item at most): Lua 5.1 has no bound but the C stack's.
	maxMatchDepth = 1 << 16
	// checkEvery is how many matcher steps pass between looks at the
	// context: a few microseconds of work.
	checkEvery = 1 << 12
)

// installStringLib puts this file's functions into the string table str.
// string.format refuses up front, with Lua's "not enough memory", a result
// that could be longer than maxLen() (nil: no bound): a kill could only
// stop the run after the allocation.
func installStringLib(L *lua.LState, str *lua.LTable, maxLen func() int64) {
	str.RawSetString("find", L.NewFunction(func(L *lua.LState) int { return strFindAux(L, true) }))
	str.RawSetString("match", L.NewFunction(func(L *lua.LState) int { return strFindAux(L, false) }))
	str.RawSetString("gmatch", L.NewFunction(strGmatch))
	str.RawSetString("gsub", L.NewFunction(strGsub))
	str.RawSetString("format", L.NewFunction(func(L *lua.LState) int {
		if maxLen != nil && formatSize(L) > maxLen() {
			L.RaiseError("not enough memory")
		}
		return strFormat(L)
	}))
}

// luaTypeName is lua_typename of argument n: "no value" past the top.
func luaTypeName(L *lua.LState, n int) string {
	if n > L.GetTop() {
		return "no value"
	}
	return L.Get(n).Type().String()
}

// calledFromLua reports whether the running Go function was called by
// Lua code, rather than by another Go function (pcall(string.find, ...)).
func calledFromLua(L *lua.LState) bool {
	d, ok := L.GetStack(1)
	if !ok {
		return false
	}
	_, err := L.GetInfo("S", d, lua.LNil)
	return err == nil && d.What != "G"
}

// luaError raises msg as luaL_error does: prefixed with the position of
// the Lua code that called the library function, and with none when a Go
// function called it (luaL_where of a C function is empty).
func luaError(L *lua.LState, msg string) {
	if calledFromLua(L) {
		L.RaiseError("%s", msg)
	}
	L.Error(lua.LString(msg), 0)
}

// argError raises luaL_argerror's message. Lua names the function as its
// caller did; called by a Go function it has no name ('?').
func argError(L *lua.LState, n int, fname, msg string) {
	if !calledFromLua(L) {
		fname = "?"
	}
	luaError(L, fmt.Sprintf("bad argument #%d to '%s' (%s)", n, fname, msg))
}

func typeError(L *lua.LState, n int, fname, want string) {
	argError(L, n, fname, want+" expected, got "+luaTypeName(L, n))
}

// checkLString is luaL_checklstring: a string, or a number as Lua prints
// it (%.14g).
func checkLString(L *lua.LState, n int, fname string) string {
	switch v := L.Get(n).(type) {
	case lua.LString:
		return string(v)
	case lua.LNumber:
		return luaNumber(float64(v))
	}
	typeError(L, n, fname, "string")
	return ""
}

// checkLNumber is luaL_checknumber: a number, or a string that reads as
// one.
func checkLNumber(L *lua.LState, n int, fname string) float64 {
	switch v := L.Get(n).(type) {
	case lua.LNumber:
		return float64(v)
	case lua.LString:
		if f, ok := strToNumber(string(v)); ok {
			return f
		}
	}
	typeError(L, n, fname, "number")
	return 0
}

// optLInteger is luaL_optinteger: def when absent or nil, else the number
// truncated.
func optLInteger(L *lua.LState, n int, fname string, def int64) int64 {
	if L.Get(n) == lua.LNil {
		return def
	}
	return toInteger(checkLNumber(L, n, fname))
}

// toInteger converts as C's cast of a double to a 64-bit integer does on
// amd64: truncation, and the minimum for what does not fit.
func toInteger(f float64) int64 {
	if math.IsNaN(f) || f >= 1<<63 || f < -(1<<63) {
		return math.MinInt64
	}
	return int64(f)
}

// toUnsigned converts as C's cast of a double to an unsigned 64-bit
// integer does on amd64: below 2^63 as a signed conversion, above it the
// signed conversion of x-2^63 with the top bit flipped (so infinity and
// values past 2^64 give 0, NaN 2^63).
func toUnsigned(f float64) uint64 {
	if f >= 1<<63 {
		return uint64(toInteger(f-(1<<63))) ^ (1 << 63)
	}
	return uint64(toInteger(f))
}

// strToNumber is lua_str2number: strtod's decimal or hexadecimal, with
// spaces around.
func strToNumber(s string) (float64, bool) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, false
	}
	neg := false
	u := t
	if u[0] == '-' || u[0] == '+' {
		neg = u[0] == '-'
		u = u[1:]
	}
	if len(u) > 2 && u[0] == '0' && (u[1] == 'x' || u[1] == 'X') {
		n, err := strconv.ParseUint(u[2:], 16, 64)
		if err != nil {
			return 0, false
		}
		f := float64(n)
		if neg {
			f = -f
		}
		return f, true
	}
	for i := 0; i < len(u); i++ {
		c := u[i]
		if !(c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+') {
			// strtod takes "inf" and "nan" too; Lua 5.1 did.
			l := strings.ToLower(u)
			if l == "inf" || l == "infinity" || l == "nan" {
				break
			}
			return 0, false
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil {
		var ne *strconv.NumError
		if ok := asNumError(err, &ne); ok && ne.Err == strconv.ErrRange {
			return f, true
		}
		return 0, false
	}
	return f, true
}

func asNumError(err error, target **strconv.NumError) bool {
	ne, ok := err.(*strconv.NumError)
	if ok {
		*target = ne
	}
	return ok
}

// posrelat turns a relative string position (negative means back from
// the end) into an absolute one.
func posrelat(pos int64, n int) int64 {
	if pos < 0 {
		pos += int64(n) + 1
	}
	if pos < 0 {
		return 0
	}
	return pos
}

// matchState is lstrlib.c's MatchState, with the step counter.
type matchState struct {
	L       *lua.LState
	src     string
	pat     string
	level   int
	capture [maxCaptures]struct{ init, len int }
	depth   int
	steps   int
	done    <-chan struct{}
}

func newMatchState(L *lua.LState, src, pat string) *matchState {
	ms := &matchState{L: L, src: src, pat: pat}
	if ctx := L.Context(); ctx != nil {
		ms.done = ctx.Done()
	}
	return ms
}

// step counts work and stops the run when its context is done.
func (ms *matchState) step() {
	ms.steps++
	if ms.steps&(checkEvery-1) != 0 || ms.done == nil {
		return
	}
	select {
	case <-ms.done:
		ms.L.RaiseError("%s", ms.L.Context().Err().Error())
	default:
	}
}

// p returns the pattern's byte at i, or 0 past its end: the pattern is a C
// string in Lua 5.1, so an embedded zero ends it too.
func (ms *matchState) p(i int) byte {
	if i < len(ms.pat) {
		return ms.pat[i]
	}
	return 0
}

// s returns the subject's byte at i, or 0 at its end (Lua strings end in
// a zero byte).
func (ms *matchState) s(i int) byte {
	if i < len(ms.src) {
		return ms.src[i]
	}
	return 0
}

func (ms *matchState) error(msg string) {
	luaError(ms.L, msg)
}

func (ms *matchState) checkCapture(l int) int {
	l -= '1'
	if l < 0 || l >= ms.level || ms.capture[l].len == capUnfinished {
		ms.error("invalid capture index")
	}
	return l
}

func (ms *matchState) captureToClose() int {
	for level := ms.level - 1; level >= 0; level-- {
		if ms.capture[level].len == capUnfinished {
			return level
		}
	}
	ms.error("invalid pattern capture")
	return 0
}

func (ms *matchState) classEnd(p int) int {
	c := ms.p(p)
	p++
	switch c {
	case '%':
		if ms.p(p) == 0 {
			ms.error("malformed pattern (ends with '%')")
		}
		return p + 1
	case '[':
		if ms.p(p) == '^' {
			p++
		}
		for {
			if ms.p(p) == 0 {
				ms.error("malformed pattern (missing ']')")
			}
			c := ms.p(p)
			p++
			if c == '%' && ms.p(p) != 0 {
				p++
			}
			if ms.p(p) == ']' {
				return p + 1
			}
		}
	default:
		return p
	}
}

func isalpha(c byte) bool  { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isdigit(c byte) bool  { return c >= '0' && c <= '9' }
func islower(c byte) bool  { return c >= 'a' && c <= 'z' }
func isupper(c byte) bool  { return c >= 'A' && c <= 'Z' }
func isspace(c byte) bool  { return c == ' ' || c >= '\t' && c <= '\r' }
func iscntrl(c byte) bool  { return c < 32 || c == 127 }
func isalnum(c byte) bool  { return isalpha(c) || isdigit(c) }
func ispunct(c byte) bool  { return c > 32 && c < 127 && !isalnum(c) }
func isxdigit(c byte) bool { return isdigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func tolower(c byte) byte {
	if isupper(c) {
		return c + 'a' - 'A'
	}
	return c
}

// matchClass is match_class: c against %cl, in the C locale.
func matchClass(c, cl byte) bool {
	var res bool
	switch tolower(cl) {
	case 'a':
		res = isalpha(c)
	case 'c':
		res = iscntrl(c)
	case 'd':
		res = isdigit(c)
	case 'l':
		res = islower(c)
	case 'p':
		res = ispunct(c)
	case 's':
		res = isspace(c)
	case 'u':
		res = isupper(c)
	case 'w':
		res = isalnum(c)
	case 'x':
		res = isxdigit(c)
	case 'z':
		res = c == 0
	default:
		return cl == c
	}
	if islower(cl) {
		return res
	}
	return !res
}

// matchBracketClass is matchbracketclass: p at the '[', ec at the ']'.
func (ms *matchState) matchBracketClass(c byte, p, ec int) bool {
	sig := true
	if ms.p(p+1) == '^' {
		sig = false
		p++
	}
	for p++; p < ec; p++ {
		switch {
		case ms.p(p) == '%':
			p++
			if matchClass(c, ms.p(p)) {
				return sig
			}
		case ms.p(p+1) == '-' && p+2 < ec:
			p += 2
			if ms.p(p-2) <= c && c <= ms.p(p) {
				return sig
			}
		case ms.p(p) == c:
			return sig
		}
	}
	return !sig
}

func (ms *matchState) singleMatch(c byte, p, ep int) bool {
	switch ms.p(p) {
	case '.':
		return true
	case '%':
		return matchClass(c, ms.p(p+1))
	case '[':
		return ms.matchBracketClass(c, p, ep-1)
	default:
		return ms.p(p) == c
	}
}

func (ms *matchState) matchBalance(s, p int) int {
	if ms.p(p) == 0 || ms.p(p+1) == 0 {
		ms.error("unbalanced pattern")
	}
	if ms.s(s) != ms.p(p) {
		return -1
	}
	b, e := ms.p(p), ms.p(p+1)
	cont := 1
	for s++; s < len(ms.src); s++ {
		ms.step()
		switch ms.src[s] {
		case e:
			if cont--; cont == 0 {
				return s + 1
			}
		case b:
			cont++
		}
	}
	return -1
}

func (ms *matchState) maxExpand(s, p, ep int) int {
	i := 0
	for s+i < len(ms.src) && ms.singleMatch(ms.src[s+i], p, ep) {
		ms.step()
		i++
	}
	for ; i >= 0; i-- {
		if res := ms.match(s+i, ep+1); res != -1 {
			return res
		}
	}
	return -1
}

func (ms *matchState) minExpand(s, p, ep int) int {
	for {
		if res := ms.match(s, ep+1); res != -1 {
			return res
		}
		if s < len(ms.src) && ms.singleMatch(ms.src[s], p, ep) {
			s++
		} else {
			return -1
		}
	}
}

func (ms *matchState) startCapture(s, p, what int) int {
	level := ms.level
	if level >= maxCaptures {
		ms.error("too many captures")
	}
	ms.capture[level].init = s
	ms.capture[level].len = what
	ms.level = level + 1
	res := ms.match(s, p)
	if res == -1 {
		ms.level--
	}
	return res
}

func (ms *matchState) endCapture(s, p int) int {
	l := ms.captureToClose()
	ms.capture[l].len = s - ms.capture[l].init
	res := ms.match(s, p)
	if res == -1 {
		ms.capture[l].len = capUnfinished
	}
	return res
}

func (ms *matchState) matchCapture(s int, l byte) int {
	i := ms.checkCapture(int(l))
	c := ms.capture[i]
	// A position capture's length is capPosition, which Lua compares as
	// a huge unsigned size: it never matches.
	if c.len >= 0 && len(ms.src)-s >= c.len && ms.src[c.init:c.init+c.len] == ms.src[s:s+c.len] {
		return s + c.len
	}
	return -1
}

// match is lstrlib.c's match: the end of the match of the pattern from p
// against the subject from s, or -1.
func (ms *matchState) match(s, p int) int {
	ms.depth++
	if ms.depth > maxMatchDepth {
		ms.error("pattern too complex")
	}
	defer func() { ms.depth-- }()
	for {
		ms.step()
		switch ms.p(p) {
		case '(':
			if ms.p(p+1) == ')' {
				return ms.startCapture(s, p+2, capPosition)
			}
			return ms.startCapture(s, p+1, capUnfinished)
		case ')':
			return ms.endCapture(s, p+1)
		case 0:
			return s
		case '$':
			if ms.p(p+1) == 0 {
				if s == len(ms.src) {
					return s
				}
				return -1
			}
		case '%':
			switch ms.p(p + 1) {
			case 'b':
				s = ms.matchBalance(s, p+2)
				if s == -1 {
					return -1
				}
				p += 4
				continue
			case 'f':
				p += 2
				if ms.p(p) != '[' {
					ms.error("missing '[' after '%f' in pattern")
				}
				ep := ms.classEnd(p)
				var prev byte
				if s > 0 {
					prev = ms.src[s-1]
				}
				if ms.matchBracketClass(prev, p, ep-1) || !ms.matchBracketClass(ms.s(s), p, ep-1) {
					return -1
				}
				p = ep
				continue
			default:
				if isdigit(ms.p(p + 1)) {
					s = ms.matchCapture(s, ms.p(p+1))
					if s == -1 {
						return -1
					}
					p += 2
					continue
				}
			}
		}
		// A single-character class, maybe with a repetition.
		ep := ms.classEnd(p)
		m := s < len(ms.src) && ms.singleMatch(ms.src[s], p, ep)
		switch ms.p(ep) {
		case '?':
			if m {
				if res := ms.match(s+1, ep+1); res != -1 {
					return res
				}
			}
			p = ep + 1
		case '*':
			return ms.maxExpand(s, p, ep)
		case '+':
			if !m {
				return -1
			}
			return ms.maxExpand(s+1, p, ep)
		case '-':
			return ms.minExpand(s, p, ep)
		default:
			if !m {
				return -1
			}
			s++
			p = ep
		}
	}
}

// capture returns capture i of a match of [s, e): a string or a position.
func (ms *matchState) capture1(i, s, e int) lua.LValue {
	if i >= ms.level {
		if i == 0 {
			return lua.LString(ms.src[s:e])
		}
		ms.error("invalid capture index")
	}
	c := ms.capture[i]
	switch c.len {
	case capUnfinished:
		ms.error("unfinished capture")
	case capPosition:
		return lua.LNumber(c.init + 1)
	}
	return lua.LString(ms.src[c.init : c.init+c.len])
}

// pushCaptures pushes the captures, or the whole match when there are
// none and s >= 0, and returns how many.
func (ms *matchState) pushCaptures(s, e int) int {
	n := ms.level
	if n == 0 && s >= 0 {
		n = 1
	}
	for i := 0; i < n; i++ {
		ms.L.Push(ms.capture1(i, s, e))
	}
	return n
}

// hasSpecials is strpbrk(p, SPECIALS) != NULL, up to p's first zero byte.
func hasSpecials(p string) bool {
	if i := strings.IndexByte(p, 0); i >= 0 {
		p = p[:i]
	}
	return strings.ContainsAny(p, "^$*+?.([%-")
}

// strFindAux is str_find_aux: string.find when find, else string.match.
func strFindAux(L *lua.LState, find bool) int {
	fname := "match"
	if find {
		fname = "find"
	}
	s := checkLString(L, 1, fname)
	pat := checkLString(L, 2, fname)
	init := posrelat(optLInteger(L, 3, fname, 1), len(s)) - 1
	if init < 0 {
		init = 0
	} else if init > int64(len(s)) {
		init = int64(len(s))
	}
	if find && (lua.LVAsBool(L.Get(4)) || !hasSpecials(pat)) {
		if i := strings.Index(s[init:], pat); i >= 0 {
			L.Push(lua.LNumber(int(init) + i + 1))
			L.Push(lua.LNumber(int(init) + i + len(pat)))
			return 2
		}
		L.Push(lua.LNil)
		return 1
	}
	ms := newMatchState(L, s, pat)
	p := 0
	anchor := ms.p(0) == '^'
	if anchor {
		p = 1
	}
	for s1 := int(init); ; s1++ {
		ms.level = 0
		if e := ms.match(s1, p); e != -1 {
			if find {
				L.Push(lua.LNumber(s1 + 1))
				L.Push(lua.LNumber(e))
				return ms.pushCaptures(-1, 0) + 2
			}
			return ms.pushCaptures(s1, e)
		}
		if s1 >= len(s) || anchor {
			break
		}
	}
	L.Push(lua.LNil)
	return 1
}

// strGmatch is string.gmatch: an iterator over the matches, found one at
// a time.
func strGmatch(L *lua.LState) int {
	s := checkLString(L, 1, "gmatch")
	pat := checkLString(L, 2, "gmatch")
	start := 0
	L.Push(L.NewFunction(func(L *lua.LState) int {
		ms := newMatchState(L, s, pat)
		for src := start; src <= len(s); src++ {
			ms.level = 0
			if e := ms.match(src, 0); e != -1 {
				start = e
				if e == src {
					start++ // an empty match: go on one further
				}
				return ms.pushCaptures(src, e)
			}
		}
		start = len(s) + 1
		return 0
	}))
	return 1
}

// strGsub is str_gsub.
func strGsub(L *lua.LState) int {
	src := checkLString(L, 1, "gsub")
	pat := checkLString(L, 2, "gsub")
	repl := L.Get(3)
	switch repl.Type() {
	case lua.LTNumber, lua.LTString, lua.LTFunction, lua.LTTable:
	default:
		argError(L, 3, "gsub", "string/function/table expected")
	}
	maxN := optLInteger(L, 4, "gsub", int64(len(src))+1)
	ms := newMatchState(L, src, pat)
	p := 0
	anchor := ms.p(0) == '^'
	if anchor {
		p = 1
	}
	var b strings.Builder
	s, n := 0, int64(0)
	for n < maxN {
		ms.level = 0
		e := ms.match(s, p)
		if e != -1 {
			n++
			ms.addValue(&b, repl, s, e)
		}
		switch {
		case e != -1 && e > s:
			s = e
		case s < len(src):
			b.WriteByte(src[s])
			s++
		default:
			anchor = true // the end: stop
		}
		if anchor {
			break
		}
	}
	b.WriteString(src[min(s, len(src)):])
	L.Push(lua.LString(b.String()))
	L.Push(lua.LNumber(n))
	return 2
}

// addValue is add_value: the replacement of the match [s, e).
func (ms *matchState) addValue(b *strings.Builder, repl lua.LValue, s, e int) {
	L := ms.L
	var val lua.LValue
	switch r := repl.(type) {
	case lua.LString:
		ms.addS(b, string(r), s, e)
		return
	case lua.LNumber:
		ms.addS(b, luaNumber(float64(r)), s, e)
		return
	case *lua.LFunction:
		top := L.GetTop()
		L.Push(r)
		n := ms.pushCaptures(s, e)
		L.Call(n, 1)
		val = L.Get(-1)
		L.SetTop(top)
	case *lua.LTable:
		val = L.GetTable(r, ms.capture1(0, s, e))
	}
	switch v := val.(type) {
	case lua.LString:
		b.WriteString(string(v))
	case lua.LNumber:
		b.WriteString(luaNumber(float64(v)))
	default:
		if !lua.LVAsBool(val) {
			b.WriteString(ms.src[s:e]) // nil or false: keep the match
			return
		}
		ms.error("invalid replacement value (a " + val.Type().String() + ")")
	}
}

// addS is add_s: a replacement string with %0-%9 and %% in it.
func (ms *matchState) addS(b *strings.Builder, news string, s, e int) {
	for i := 0; i < len(news); i++ {
		c := news[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		i++
		var d byte // a trailing % reads the terminating zero
		if i < len(news) {
			d = news[i]
		}
		switch {
		case !isdigit(d):
			b.WriteByte(d)
		case d == '0':
			b.WriteString(ms.src[s:e])
		default:
			switch v := ms.capture1(int(d-'1'), s, e).(type) {
			case lua.LString:
				b.WriteString(string(v))
			case lua.LNumber:
				b.WriteString(luaNumber(float64(v)))
			}
		}
	}
}

// strFormat is str_format.
func strFormat(L *lua.LState) int {
	top := L.GetTop()
	arg := 1
	f := checkLString(L, arg, "format")
	var b strings.Builder
	for i := 0; i < len(f); {
		c := f[i]
		if c != '%' {
			b.WriteByte(c)
			i++
			continue
		}
		i++
		if i < len(f) && f[i] == '%' {
			b.WriteByte('%')
			i++
			continue
		}
		arg++
		if arg > top {
			argError(L, arg, "format", "no value")
		}
		spec, conv, next := scanFormat(L, f, i)
		i = next
		var item string
		switch conv {
		case 'c':
			item = padC(spec, string([]byte{byte(int32(toInteger(checkLNumber(L, arg, "format"))))}))
		case 'd', 'i':
			n := toInteger(checkLNumber(L, arg, "format"))
			mag := uint64(n)
			if n < 0 {
				mag = -mag
			}
			item = formatInt(spec, conv, n < 0, mag)
		case 'o', 'u', 'x', 'X':
			item = formatInt(spec, conv, false, toUnsigned(checkLNumber(L, arg, "format")))
		case 'e', 'E', 'f', 'g', 'G':
			item = formatFloat(spec, conv, checkLNumber(L, arg, "format"))
		case 'q':
			addQuoted(&b, checkLString(L, arg, "format"))
			continue
		case 's':
			s := checkLString(L, arg, "format")
			if spec.prec == "" && len(s) >= 100 {
				// No precision and too long to format: as it is.
				b.WriteString(s)
				continue
			}
			if z := strings.IndexByte(s, 0); z >= 0 {
				s = s[:z] // sprintf's %s reads a C string
			}
			if spec.prec != "" {
				p, _ := strconv.Atoi(spec.prec[1:])
				if p < len(s) {
					s = s[:p]
				}
			}
			item = padC(spec, s)
		default:
			var opt string
			if conv != 0 {
				opt = string([]byte{conv})
			}
			luaError(L, "invalid option '%"+opt+"' to 'format'")
		}
		// luaL_addlstring(buff, strlen(buff)): a zero byte ends the item.
		if z := strings.IndexByte(item, 0); z >= 0 {
			item = item[:z]
		}
		b.WriteString(item)
	}
	L.Push(lua.LString(b.String()))
	return 1
}

// fmtSpec is a directive's flags, width and precision (with its '.'), as
// scanformat reads them.
type fmtSpec struct {
	flags, width, prec string
}

// scanFormat is scanformat: the directive after the '%' at i, its
// conversion character (0 past the end) and where the text goes on.
func scanFormat(L *lua.LState, f string, i int) (fmtSpec, byte, int) {
	at := func(j int) byte {
		if j < len(f) {
			return f[j]
		}
		return 0
	}
	var spec fmtSpec
	start := i
	for at(i) != 0 && strings.IndexByte("-+ #0", at(i)) >= 0 {
		i++
	}
	if i-start >= len("-+ #0")+1 {
		luaError(L, "invalid format (repeated flags)")
	}
	spec.flags = f[start:i]
	w := i
	if isdigit(at(i)) {
		i++
	}
	if isdigit(at(i)) {
		i++
	}
	spec.width = f[w:i]
	if at(i) == '.' {
		pr := i
		i++
		if isdigit(at(i)) {
			i++
		}
		if isdigit(at(i)) {
			i++
		}
		spec.prec = f[pr:i]
	}
	if isdigit(at(i)) {
		luaError(L, "invalid format (width or precision too long)")
	}
	conv := at(i)
	if i < len(f) {
		i++
	}
	return spec, conv, i
}

// formatInt is printf's %d, %i, %o, %u, %x and %X of a magnitude and a
// sign: the precision is the least number of digits (none for a zero of
// precision 0), '#' prefixes 0 (octal) or 0x (hexadecimal, not zero),
// '+' or ' ' marks a signed conversion's non-negative value, and '0' pads
// with zeros when no precision is given.
func formatInt(spec fmtSpec, conv byte, neg bool, mag uint64) string {
	base := 10
	switch conv {
	case 'o':
		base = 8
	case 'x', 'X':
		base = 16
	}
	digits := strconv.FormatUint(mag, base)
	if conv == 'X' {
		digits = strings.ToUpper(digits)
	}
	hasPrec := spec.prec != ""
	if hasPrec {
		p, _ := strconv.Atoi(spec.prec[1:])
		if p == 0 && mag == 0 {
			digits = ""
		}
		if len(digits) < p {
			digits = strings.Repeat("0", p-len(digits)) + digits
		}
	}
	flag := func(c byte) bool { return strings.IndexByte(spec.flags, c) >= 0 }
	var prefix string
	switch {
	case conv == 'o' && flag('#') && !strings.HasPrefix(digits, "0"):
		digits = "0" + digits
	case (conv == 'x' || conv == 'X') && flag('#') && mag != 0:
		prefix = "0" + string(conv)
	case conv == 'd' || conv == 'i':
		switch {
		case neg:
			prefix = "-"
		case flag('+'):
			prefix = "+"
		case flag(' '):
			prefix = " "
		}
	}
	w, _ := strconv.Atoi(spec.width)
	if pad := w - len(prefix) - len(digits); pad > 0 {
		switch {
		case flag('-'):
			return prefix + digits + strings.Repeat(" ", pad)
		case flag('0') && !hasPrec:
			return prefix + strings.Repeat("0", pad) + digits
		default:
			return strings.Repeat(" ", pad) + prefix + digits
		}
	}
	return prefix + digits
}

// padC pads s to the directive's width with spaces, on the left unless
// the '-' flag is given, as printf's %s and %c do.
func padC(spec fmtSpec, s string) string {
	w, _ := strconv.Atoi(spec.width)
	if len(s) >= w {
		return s
	}
	pad := strings.Repeat(" ", w-len(s))
	if strings.Contains(spec.flags, "-") {
		return s + pad
	}
	return pad + s
}

// formatFloat is printf's %e, %E, %f, %g and %G of x, with C's default
// precision (6) and C's names for infinities and NaN.
func formatFloat(spec fmtSpec, conv byte, x float64) string {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		var s string
		switch {
		case math.IsNaN(x) && math.Signbit(x):
			s = "-nan"
		case math.IsNaN(x):
			s = "nan"
		case x < 0:
			s = "-inf"
		default:
			s = "inf"
		}
		if s[0] != '-' {
			if strings.Contains(spec.flags, "+") {
				s = "+" + s
			} else if strings.Contains(spec.flags, " ") {
				s = " " + s
			}
		}
		if conv == 'E' || conv == 'G' {
			s = strings.ToUpper(s)
		}
		return padC(spec, s)
	}
	prec := spec.prec
	if prec == "" {
		prec = ".6"
	} else if prec == "." {
		prec = ".0"
	}
	return fmt.Sprintf("%"+spec.flags+spec.width+prec+string(conv), x)
}

// addQuoted is addquoted: %q, a string as Lua source reads it back.
func addQuoted(b *strings.Builder, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\', '\n':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\r':
			b.WriteString("\\r")
		case 0:
			b.WriteString("\\000")
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
}

// luaToNumber is Lua 5.1's tonumber: gopher-lua's reads no exponent
// ("1e5" gave nil).
func luaToNumber(L *lua.LState) int {
	base := int64(10)
	if L.GetTop() >= 2 && L.Get(2) != lua.LNil {
		base = toInteger(checkLNumber(L, 2, "tonumber"))
	}
	if base == 10 {
		if L.GetTop() < 1 {
			argError(L, 1, "tonumber", "value expected")
		}
		switch v := L.Get(1).(type) {
		case lua.LNumber:
			L.Push(v)
			return 1
		case lua.LString:
			s := string(v)
			if z := strings.IndexByte(s, 0); z >= 0 {
				s = s[:z] // a C string to strtod
			}
			if f, ok := strToNumber(s); ok {
				L.Push(lua.LNumber(f))
				return 1
			}
		}
		L.Push(lua.LNil)
		return 1
	}
	s := checkLString(L, 1, "tonumber")
	if base < 2 || base > 36 {
		argError(L, 2, "tonumber", "base out of range")
	}
	// strtoul: spaces, a sign, digits of the base (0x allowed in 16).
	i := 0
	for i < len(s) && isspace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		neg = s[i] == '-'
		i++
	}
	if base == 16 && i+2 < len(s) && s[i] == '0' && (s[i+1] == 'x' || s[i+1] == 'X') && digitValue(s[i+2]) < 16 {
		i += 2
	}
	start := i
	var n uint64
	for i < len(s) {
		d := digitValue(s[i])
		if d >= int(base) {
			break
		}
		n = n*uint64(base) + uint64(d)
		i++
	}
	if i == start {
		L.Push(lua.LNil)
		return 1
	}
	for i < len(s) && isspace(s[i]) {
		i++
	}
	if i != len(s) && s[i] != 0 {
		L.Push(lua.LNil)
		return 1
	}
	if neg {
		n = -n
	}
	// unsigned long is 64 bits: a negative number wraps, as in C.
	L.Push(lua.LNumber(float64(n)))
	return 1
}

func digitValue(c byte) int {
	switch {
	case isdigit(c):
		return int(c - '0')
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'Z':
		return int(c-'A') + 10
	}
	return 99
}
