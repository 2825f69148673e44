// Package lualib gives gopher-lua (Lua 5.1) the four C libraries that Redis
// bundles with its Lua interpreter and exposes to scripts: cjson
// (lua-cjson 2.1.0), cmsgpack (lua-cmsgpack 0.4.0), bit (LuaBitOp 1.0.2) and
// struct (Roberto Ierusalimschy's struct library). Each behaves as the build
// in Redis 7 does, down to the error texts, the limits, and the quirks of
// the C originals that scripts can observe (the number formats, the 32-bit
// wrap-around of bit, the argument numbers in struct's errors).
//
// The C libraries run on a stack that Lua 5.1 caps at 8000 slots
// (LUAI_MAXCSTACK); where Redis fails with "stack overflow (...)" for that
// reason, the Go code counts the same slots and fails the same way, so that
// deep or huge inputs end in an error after bounded work and memory.
//
// The package knows nothing of Redis or the server: it only installs Lua
// tables of Go functions into an LState. It never panics on bad input;
// every failure is raised as a Lua error whose text is luaL_error's: the
// calling Lua code's "chunk:line: ", then the message. The encoders also
// stop when the state's context ends (a script's deadline) and past
// maxOutput bytes, where Redis's C code would spin on.
//
// Caveats:
//   - JSON objects and msgpack maps are written in gopher-lua's table
//     iteration order, which differs from C Lua's; Redis promises no order.
//   - cmsgpack.unpack and struct.unpack can return up to 7999 values, as in
//     Redis: the state needs a registry that holds them (lua.Options
//     RegistrySize about 16k, or RegistryMaxSize to let it grow), or those
//     calls fail with gopher-lua's "registry overflow".
//   - Making the globals read-only, as Redis 7 does, is the caller's job.
package lualib

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// maxCStack is LUAI_MAXCSTACK of Lua 5.1: lua_checkstack refuses to let a C
// function hold more slots than this.
const maxCStack = 8000

// maxOutput bounds what an encoder (cjson.encode, cmsgpack.pack) may
// produce: proto-max-bulk-len's default, the largest string a reply can
// carry. A table that shares its subtables can stand for an output far
// larger than memory; where Redis would spin until it runs out, the Go
// encoders stop with an error.
const maxOutput = 512 << 20

// OpenAll installs cjson, struct, cmsgpack and bit as globals, in the order
// Redis's luaLoadLibraries loads them.
func OpenAll(L *lua.LState) {
	OpenCJSON(L)
	OpenStruct(L)
	OpenCMsgpack(L)
	OpenBit(L)
}

// register makes a module table of fns, sets it as the global name (as
// luaL_register does) and returns it.
func register(L *lua.LState, name string, fns map[string]lua.LGFunction) *lua.LTable {
	t := L.CreateTable(0, len(fns))
	for k, fn := range fns {
		t.RawSetString(k, L.NewFunction(fn))
	}
	L.SetGlobal(name, t)
	return t
}

// raise throws a Lua error the way luaL_error does from a C function: the
// message starts with the position of the calling Lua code, or with
// nothing when the caller is not Lua code (pcall(cjson.decode, s), say).
func raise(L *lua.LState, format string, args ...any) {
	L.Error(lua.LString(where(L)+fmt.Sprintf(format, args...)), 0)
}

// raiseRuntime throws a Lua error the way the VM's own errors raised inside
// a C function read: with no position at all.
func raiseRuntime(L *lua.LState, msg string) {
	L.Error(lua.LString(msg), 0)
}

// budget lets long loops over Lua data be stopped: by the state's context
// (the script's deadline or a kill), checked every 1024 steps, and by
// maxOutput.
type budget struct {
	L     *lua.LState
	steps uint
}

func (b *budget) step(outLen int, what string) {
	b.steps++
	if b.steps%1024 == 0 {
		if ctx := b.L.Context(); ctx != nil && ctx.Err() != nil {
			raise(b.L, "%s", ctx.Err().Error())
		}
	}
	if outLen > maxOutput {
		raise(b.L, "%s: output exceeds %d bytes", what, maxOutput)
	}
}

// where is luaL_where(L, 1): "chunk:line: " of the caller.
func where(L *lua.LState) string {
	dbg, ok := L.GetStack(1)
	if !ok {
		return ""
	}
	if _, err := L.GetInfo("Sl", dbg, lua.LNil); err != nil || dbg.CurrentLine <= 0 {
		return ""
	}
	src := dbg.Source
	if src != "" && (src[0] == '@' || src[0] == '=') {
		src = src[1:]
	}
	return fmt.Sprintf("%s:%d: ", src, dbg.CurrentLine)
}

// argError is luaL_argerror.
func argError(L *lua.LState, n int, fname, msg string) {
	raise(L, "bad argument #%d to '%s' (%s)", n, fname, msg)
}

// typeName is luaL_typename: "no value" past the top.
func typeName(L *lua.LState, n int) string {
	if n > L.GetTop() {
		return "no value"
	}
	return L.Get(n).Type().String()
}

// typeError is luaL_typerror.
func typeError(L *lua.LState, n int, fname, expected string) {
	argError(L, n, fname, fmt.Sprintf("%s expected, got %s", expected, typeName(L, n)))
}

// isNone reports whether argument n was not passed at all.
func isNone(L *lua.LState, n int) bool { return n > L.GetTop() }

// isNoneOrNil is lua_isnoneornil.
func isNoneOrNil(L *lua.LState, n int) bool {
	return isNone(L, n) || L.Get(n) == lua.LNil
}

// toNumber is lua_tonumber: a number, or a string that Lua 5.1 converts.
func toNumber(v lua.LValue) (float64, bool) {
	switch x := v.(type) {
	case lua.LNumber:
		return float64(x), true
	case lua.LString:
		return str2number(string(x))
	}
	return 0, false
}

// str2number is Lua 5.1's luaO_str2d on a C string: strtod, or a hex
// integer, surrounded by optional white space and nothing else.
func str2number(s string) (float64, bool) {
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	start := 0
	for start < len(s) && isSpace(s[start]) {
		start++
	}
	f, n := strtod(s[start:])
	if n == 0 {
		return 0, false
	}
	end := start + n
	for end < len(s) && isSpace(s[end]) {
		end++
	}
	return f, end == len(s)
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isHexDigit(c byte) bool {
	return isDigit(c) || ('a' <= c|0x20 && c|0x20 <= 'f')
}

// strtod parses the longest prefix of s that C's strtod (glibc) accepts,
// without skipping white space, and returns its value and length (0 when
// there is none): decimal and hexadecimal numbers, inf, infinity and nan
// in any case, each with an optional sign.
func strtod(s string) (float64, int) {
	i := 0
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	sign := func(f float64) float64 {
		if neg {
			return -f
		}
		return f
	}
	rest := s[i:]
	if hasPrefixFold(rest, "inf") {
		if hasPrefixFold(rest, "infinity") {
			return sign(math.Inf(1)), i + 8
		}
		return sign(math.Inf(1)), i + 3
	}
	if hasPrefixFold(rest, "nan") {
		n := i + 3
		if n < len(s) && s[n] == '(' {
			j := n + 1
			for j < len(s) && (isDigit(s[j]) || ('a' <= s[j]|0x20 && s[j]|0x20 <= 'z') || s[j] == '_') {
				j++
			}
			if j < len(s) && s[j] == ')' {
				n = j + 1
			}
		}
		return sign(math.NaN()), n
	}
	if len(rest) >= 3 && rest[0] == '0' && rest[1]|0x20 == 'x' &&
		(isHexDigit(rest[2]) || (rest[2] == '.' && len(rest) > 3 && isHexDigit(rest[3]))) {
		return hexFloat(s, i, neg)
	}
	j := i
	digits := 0
	for j < len(s) && isDigit(s[j]) {
		j++
		digits++
	}
	if j < len(s) && s[j] == '.' {
		k := j + 1
		for k < len(s) && isDigit(s[k]) {
			k++
			digits++
		}
		if digits > 0 {
			j = k
		}
	}
	if digits == 0 {
		return 0, 0
	}
	if j < len(s) && s[j]|0x20 == 'e' {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && isDigit(s[k]) {
			for k < len(s) && isDigit(s[k]) {
				k++
			}
			j = k
		}
	}
	f, err := strconv.ParseFloat(s[i:j], 64)
	if err != nil && !isRangeErr(err) {
		return 0, 0
	}
	return sign(f), j
}

// hexFloat parses a C99 hexadecimal floating constant at s[i:] (just after
// the sign, at "0x").
func hexFloat(s string, i int, neg bool) (float64, int) {
	j := i + 2
	for j < len(s) && isHexDigit(s[j]) {
		j++
	}
	if j < len(s) && s[j] == '.' {
		j++
		for j < len(s) && isHexDigit(s[j]) {
			j++
		}
	}
	mant := s[i:j]
	if strings.HasSuffix(mant, ".") {
		mant = mant[:len(mant)-1]
	}
	exp := "p0"
	if j < len(s) && s[j]|0x20 == 'p' {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && isDigit(s[k]) {
			for k < len(s) && isDigit(s[k]) {
				k++
			}
			exp = s[j:k]
			j = k
		}
	}
	f, err := strconv.ParseFloat(mant+exp, 64)
	if err != nil && !isRangeErr(err) {
		return 0, 0
	}
	if neg {
		f = -f
	}
	return f, j
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// formatG is C's printf("%.<prec>g"), with glibc's spelling of infinities
// and NaN.
func formatG(f float64, prec int) string {
	switch {
	case math.IsNaN(f):
		if math.Signbit(f) {
			return "-nan"
		}
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return strconv.FormatFloat(f, 'g', prec, 64)
}

// numberString is lua_tolstring of a number: "%.14g".
func numberString(f float64) string { return formatG(f, 14) }

// toLString is lua_tolstring: strings as they are, numbers formatted.
func toLString(v lua.LValue) (string, bool) {
	switch x := v.(type) {
	case lua.LString:
		return string(x), true
	case lua.LNumber:
		return numberString(float64(x)), true
	}
	return "", false
}

// checkLString is luaL_checklstring.
func checkLString(L *lua.LState, n int, fname string) string {
	if !isNone(L, n) {
		if s, ok := toLString(L.Get(n)); ok {
			return s
		}
	}
	typeError(L, n, fname, "string")
	return ""
}

// checkNumber is luaL_checknumber.
func checkNumber(L *lua.LState, n int, fname string) float64 {
	if !isNone(L, n) {
		if f, ok := toNumber(L.Get(n)); ok {
			return f
		}
	}
	typeError(L, n, fname, "number")
	return 0
}

// checkInteger is luaL_checkinteger: the number truncated to a 64-bit
// integer the way the x86-64 C cast does (out of range gives MinInt64).
func checkInteger(L *lua.LState, n int, fname string) int64 {
	return f2i64(checkNumber(L, n, fname))
}

// optInteger is luaL_optinteger.
func optInteger(L *lua.LState, n int, fname string, def int64) int64 {
	if isNoneOrNil(L, n) {
		return def
	}
	return checkInteger(L, n, fname)
}

// f2i64 converts like x86-64's cvttsd2si: truncation, and MinInt64 for NaN
// and values out of range.
func f2i64(f float64) int64 {
	if f >= -9223372036854775808.0 && f < 9223372036854775808.0 {
		return int64(f)
	}
	return math.MinInt64
}

// f2u64 converts like gcc's double to uint64 conversion on x86-64 (NaN
// takes the signed path).
func f2u64(f float64) uint64 {
	if !(f >= 9223372036854775808.0) {
		return uint64(f2i64(f))
	}
	return uint64(f2i64(f-9223372036854775808.0)) ^ (1 << 63)
}

// f2i32 converts like the 32-bit cvttsd2si: MinInt32 when out of range.
func f2i32(f float64) int32 {
	if f > -2147483649.0 && f < 2147483648.0 {
		return int32(f)
	}
	return math.MinInt32
}
