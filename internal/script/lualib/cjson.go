package lualib

import (
	"fmt"
	"math"

	lua "github.com/yuin/gopher-lua"
)

// The defaults of Redis's lua-cjson build.
const (
	jsonSparseRatio     = 2
	jsonSparseSafe      = 10
	jsonMaxDepth        = 1000
	jsonNumberPrecision = 14
)

// nullKey is where the state's cjson.null sentinel lives in the registry.
const nullKey = "cairn.lualib.cjson.null"

// Null returns L's cjson.null: the userdata that stands for JSON null (C
// lua-cjson uses a NULL lightuserdata). Every cjson module of L shares it,
// so scripts may compare against it; the script package can recognise it
// when converting values to replies.
func Null(L *lua.LState) *lua.LUserData {
	if ud, ok := L.G.Registry.RawGetString(nullKey).(*lua.LUserData); ok {
		return ud
	}
	ud := L.NewUserData()
	L.G.Registry.RawSetString(nullKey, ud)
	return ud
}

// jsonConfig is one cjson module's settings (json_config_t).
type jsonConfig struct {
	sparseConvert  bool
	sparseRatio    int32
	sparseSafe     int32
	encodeMaxDepth int32
	decodeMaxDepth int32
	encodeInvalid  int // 0 off, 1 on, 2 "null"
	decodeInvalid  bool
	precision      int32
	keepBuffer     bool
	null           *lua.LUserData
}

// OpenCJSON installs the global cjson.
func OpenCJSON(L *lua.LState) {
	L.SetGlobal("cjson", newCJSON(L))
}

func newCJSON(L *lua.LState) *lua.LTable {
	cfg := &jsonConfig{
		sparseRatio:    jsonSparseRatio,
		sparseSafe:     jsonSparseSafe,
		encodeMaxDepth: jsonMaxDepth,
		decodeMaxDepth: jsonMaxDepth,
		decodeInvalid:  true,
		precision:      jsonNumberPrecision,
		keepBuffer:     true,
		null:           Null(L),
	}
	fns := map[string]lua.LGFunction{
		"encode":                  cfg.encode,
		"decode":                  cfg.decode,
		"encode_sparse_array":     cfg.optSparseArray,
		"encode_max_depth":        cfg.optEncodeMaxDepth,
		"decode_max_depth":        cfg.optDecodeMaxDepth,
		"encode_number_precision": cfg.optPrecision,
		"encode_keep_buffer":      cfg.optKeepBuffer,
		"encode_invalid_numbers":  cfg.optEncodeInvalid,
		"decode_invalid_numbers":  cfg.optDecodeInvalid,
		"new":                     func(L *lua.LState) int { L.Push(newCJSON(L)); return 1 },
	}
	t := L.CreateTable(0, len(fns)+3)
	for k, fn := range fns {
		t.RawSetString(k, L.NewFunction(fn))
	}
	t.RawSetString("null", cfg.null)
	t.RawSetString("_NAME", lua.LString("cjson"))
	t.RawSetString("_VERSION", lua.LString("2.1.0"))
	return t
}

// ===== configuration functions =====

// optArgs refuses more than n arguments and pads them to n with nils, as
// json_arg_init does, so that results pushed go after them.
func optArgs(L *lua.LState, n int, fname string) {
	if L.GetTop() > n {
		argError(L, n+1, fname, "found too many arguments")
	}
	for L.GetTop() < n {
		L.Push(lua.LNil)
	}
}

// intOption reads an integer setting at index i when given, checks its
// range (reporting argument 1, as lua-cjson does) and pushes the value.
func intOption(L *lua.LState, i int, fname string, setting *int32, lo, hi int32) {
	if !isNoneOrNil(L, i) {
		v := int32(checkInteger(L, i, fname)) // stored in a C int
		if v < lo || v > hi {
			argError(L, 1, fname, fmt.Sprintf("expected integer between %d and %d", lo, hi))
		}
		*setting = v
	}
	L.Push(lua.LNumber(*setting))
}

// enumOption reads a setting at index i that is a boolean or one of
// options, and pushes it back: as a boolean when it is off or on, else by
// name.
func enumOption(L *lua.LState, i int, fname string, setting *int, options []string) {
	if !isNoneOrNil(L, i) {
		if b, ok := L.Get(i).(lua.LBool); ok {
			*setting = 0
			if b {
				*setting = 1
			}
		} else {
			s, ok := toLString(L.Get(i))
			if !ok {
				typeError(L, i, fname, "string")
			}
			found := -1
			for k, o := range options {
				if o == s {
					found = k
					break
				}
			}
			if found < 0 {
				argError(L, i, fname, fmt.Sprintf("invalid option '%s'", s))
			}
			*setting = found
		}
	}
	if *setting <= 1 {
		L.Push(lua.LBool(*setting == 1))
	} else {
		L.Push(lua.LString(options[*setting]))
	}
}

var onOff = []string{"off", "on"}

func boolOption(L *lua.LState, i int, fname string, setting *bool) {
	v := 0
	if *setting {
		v = 1
	}
	enumOption(L, i, fname, &v, onOff)
	*setting = v == 1
}

func (cfg *jsonConfig) optSparseArray(L *lua.LState) int {
	const fname = "encode_sparse_array"
	optArgs(L, 3, fname)
	boolOption(L, 1, fname, &cfg.sparseConvert)
	intOption(L, 2, fname, &cfg.sparseRatio, 0, math.MaxInt32)
	intOption(L, 3, fname, &cfg.sparseSafe, 0, math.MaxInt32)
	return 3
}

func (cfg *jsonConfig) optEncodeMaxDepth(L *lua.LState) int {
	optArgs(L, 1, "encode_max_depth")
	intOption(L, 1, "encode_max_depth", &cfg.encodeMaxDepth, 1, math.MaxInt32)
	return 1
}

func (cfg *jsonConfig) optDecodeMaxDepth(L *lua.LState) int {
	optArgs(L, 1, "decode_max_depth")
	intOption(L, 1, "decode_max_depth", &cfg.decodeMaxDepth, 1, math.MaxInt32)
	return 1
}

func (cfg *jsonConfig) optPrecision(L *lua.LState) int {
	optArgs(L, 1, "encode_number_precision")
	intOption(L, 1, "encode_number_precision", &cfg.precision, 1, 14)
	return 1
}

func (cfg *jsonConfig) optKeepBuffer(L *lua.LState) int {
	optArgs(L, 1, "encode_keep_buffer")
	boolOption(L, 1, "encode_keep_buffer", &cfg.keepBuffer)
	return 1
}

func (cfg *jsonConfig) optEncodeInvalid(L *lua.LState) int {
	optArgs(L, 1, "encode_invalid_numbers")
	enumOption(L, 1, "encode_invalid_numbers", &cfg.encodeInvalid, []string{"off", "on", "null"})
	return 1
}

func (cfg *jsonConfig) optDecodeInvalid(L *lua.LState) int {
	optArgs(L, 1, "decode_invalid_numbers")
	boolOption(L, 1, "decode_invalid_numbers", &cfg.decodeInvalid)
	return 1
}

// ===== encoding =====

// jsonEscapes maps each byte that lua-cjson escapes to its escape.
var jsonEscapes = func() [256]string {
	var t [256]string
	for c := 0; c < 0x20; c++ {
		t[c] = fmt.Sprintf("\\u%04x", c)
	}
	t['\b'], t['\t'], t['\n'], t['\f'], t['\r'] = `\b`, `\t`, `\n`, `\f`, `\r`
	t['"'], t['\\'], t['/'], t[0x7f] = `\"`, `\\`, `\/`, `\u007f`
	return t
}()

type jsonEncoder struct {
	L      *lua.LState
	cfg    *jsonConfig
	buf    []byte
	budget budget
}

func (cfg *jsonConfig) encode(L *lua.LState) int {
	if L.GetTop() != 1 {
		argError(L, 1, "encode", "expected 1 argument")
	}
	e := &jsonEncoder{L: L, cfg: cfg, budget: budget{L: L}}
	// The C encoder holds its argument on the stack: one slot in use.
	e.value(L.Get(1), 0, 1)
	L.Push(lua.LString(e.buf))
	return 1
}

func (e *jsonEncoder) fail(v lua.LValue, reason string) {
	raise(e.L, "Cannot serialise %s: %s", v.Type().String(), reason)
}

func (e *jsonEncoder) str(s string) {
	e.buf = append(e.buf, '"')
	for i := 0; i < len(s); i++ {
		if esc := jsonEscapes[s[i]]; esc != "" {
			e.buf = append(e.buf, esc...)
		} else {
			e.buf = append(e.buf, s[i])
		}
	}
	e.buf = append(e.buf, '"')
}

func (e *jsonEncoder) number(v lua.LNumber) {
	f := float64(v)
	switch e.cfg.encodeInvalid {
	case 0:
		if math.IsInf(f, 0) || math.IsNaN(f) {
			e.fail(v, "must not be NaN or Inf")
		}
	case 1:
		if math.IsNaN(f) {
			e.buf = append(e.buf, "nan"...)
			return
		}
	default:
		if math.IsInf(f, 0) || math.IsNaN(f) {
			e.buf = append(e.buf, "null"...)
			return
		}
	}
	e.buf = append(e.buf, formatG(f, int(e.cfg.precision))...)
}

// value appends v; depth counts the tables around it, slots the stack
// slots the C encoder would hold.
func (e *jsonEncoder) value(v lua.LValue, depth, slots int) {
	e.budget.step(len(e.buf), "Cannot serialise")
	switch x := v.(type) {
	case lua.LString:
		e.str(string(x))
	case lua.LNumber:
		e.number(x)
	case lua.LBool:
		if x {
			e.buf = append(e.buf, "true"...)
		} else {
			e.buf = append(e.buf, "false"...)
		}
	case *lua.LNilType:
		e.buf = append(e.buf, "null"...)
	case *lua.LUserData:
		if x != e.cfg.null {
			e.fail(v, "type not supported")
		}
		e.buf = append(e.buf, "null"...)
	case *lua.LTable:
		depth++
		if depth > int(e.cfg.encodeMaxDepth) || slots+3 > maxCStack {
			raise(e.L, "Cannot serialise, excessive nesting (%d)", depth)
		}
		if n := e.arrayLength(x); n > 0 {
			e.array(x, n, depth, slots)
		} else {
			e.object(x, depth, slots)
		}
	default:
		e.fail(v, "type not supported")
	}
}

// arrayLength returns the length of t if it is to be written as a JSON
// array, or -1 (or 0 for an empty table) if as an object; an excessively
// sparse array is an error unless the conversion to an object is on.
func (e *jsonEncoder) arrayLength(t *lua.LTable) int {
	var max int32
	var items int64
	for k, _ := t.Next(lua.LNil); k != lua.LNil; k, _ = t.Next(k) {
		n, ok := k.(lua.LNumber)
		f := float64(n)
		if !ok || f == 0 || math.Floor(f) != f || f < 1 {
			return -1
		}
		if f > float64(max) {
			max = f2i32(f) // a C int: out of range wraps to MinInt32
		}
		items++
	}
	ratio, safe := int64(e.cfg.sparseRatio), e.cfg.sparseSafe
	if ratio > 0 && int64(max) > items*ratio && max > safe {
		if !e.cfg.sparseConvert {
			e.fail(t, "excessively sparse array")
		}
		return -1
	}
	return int(max)
}

func (e *jsonEncoder) array(t *lua.LTable, n, depth, slots int) {
	e.buf = append(e.buf, '[')
	for i := 1; i <= n; i++ {
		if i > 1 {
			e.buf = append(e.buf, ',')
		}
		e.value(t.RawGetInt(i), depth, slots+1)
	}
	e.buf = append(e.buf, ']')
}

func (e *jsonEncoder) object(t *lua.LTable, depth, slots int) {
	e.buf = append(e.buf, '{')
	first := true
	for k, v := t.Next(lua.LNil); k != lua.LNil; k, v = t.Next(k) {
		if !first {
			e.buf = append(e.buf, ',')
		}
		first = false
		switch kk := k.(type) {
		case lua.LNumber:
			e.buf = append(e.buf, '"')
			e.number(kk)
			e.buf = append(e.buf, '"', ':')
		case lua.LString:
			e.str(string(kk))
			e.buf = append(e.buf, ':')
		default:
			e.fail(k, "table key must be a number or string")
		}
		e.value(v, depth, slots+2)
	}
	e.buf = append(e.buf, '}')
}

// ===== decoding =====

type jsonTokenType int

const (
	tObjBegin jsonTokenType = iota
	tObjEnd
	tArrBegin
	tArrEnd
	tString
	tNumber
	tBoolean
	tNull
	tColon
	tComma
	tEnd
	tWhitespace
	tError
	tUnknown
)

// jsonTokenNames are the names decode errors give tokens.
var jsonTokenNames = [...]string{
	"T_OBJ_BEGIN", "T_OBJ_END", "T_ARR_BEGIN", "T_ARR_END", "T_STRING",
	"T_NUMBER", "T_BOOLEAN", "T_NULL", "T_COLON", "T_COMMA", "T_END",
	"T_WHITESPACE", "T_ERROR", "T_UNKNOWN",
}

// jsonCharTokens classifies a token's first byte.
var jsonCharTokens = func() [256]jsonTokenType {
	var t [256]jsonTokenType
	for i := range t {
		t[i] = tError
	}
	t['{'], t['}'], t['['], t[']'] = tObjBegin, tObjEnd, tArrBegin, tArrEnd
	t[','], t[':'], t[0] = tComma, tColon, tEnd
	t[' '], t['\t'], t['\n'], t['\r'] = tWhitespace, tWhitespace, tWhitespace, tWhitespace
	for _, c := range "fiInNt\"+-0123456789" {
		t[c] = tUnknown
	}
	return t
}()

// jsonUnescapes maps the byte after a backslash to what it stands for.
var jsonUnescapes = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 't': '\t',
	'n': '\n', 'f': '\f', 'r': '\r', 'u': 'u'}

type jsonToken struct {
	typ   jsonTokenType
	index int
	str   string // the string, or the error's description
	num   float64
	b     bool
}

type jsonDecoder struct {
	L     *lua.LState
	cfg   *jsonConfig
	data  string
	pos   int
	depth int
	slots int
	tmp   []byte
}

// at reads like the C decoder does through a NUL-terminated buffer: the
// end of input, like any NUL byte, reads as 0.
func (d *jsonDecoder) at(i int) byte {
	if i < len(d.data) {
		return d.data[i]
	}
	return 0
}

func (cfg *jsonConfig) decode(L *lua.LState) int {
	if L.GetTop() != 1 {
		argError(L, 1, "decode", "expected 1 argument")
	}
	data := checkLString(L, 1, "decode")
	L.Push(decodeJSON(L, cfg, data))
	return 1
}

// decodeJSON is cjson.decode with cfg's settings; it raises a Lua error on
// bad input.
func decodeJSON(L *lua.LState, cfg *jsonConfig, data string) lua.LValue {
	if len(data) >= 2 && (data[0] == 0 || data[1] == 0) {
		raise(L, "JSON parser does not support UTF-16 or UTF-32")
	}
	d := &jsonDecoder{L: L, cfg: cfg, data: data, slots: 1}
	var tok jsonToken
	d.next(&tok)
	v := d.value(&tok)
	d.next(&tok)
	if tok.typ != tEnd {
		d.fail("the end", &tok)
	}
	return v
}

func (d *jsonDecoder) fail(expected string, tok *jsonToken) {
	found := jsonTokenNames[tok.typ]
	if tok.typ == tError {
		found = tok.str
	}
	raise(d.L, "Expected %s but found %s at character %d", expected, found, tok.index+1)
}

func (d *jsonDecoder) tokenError(tok *jsonToken, what string) {
	tok.typ = tError
	tok.index = d.pos
	tok.str = what
}

func (d *jsonDecoder) next(tok *jsonToken) {
	for jsonCharTokens[d.at(d.pos)] == tWhitespace {
		d.pos++
	}
	c := d.at(d.pos)
	tok.typ = jsonCharTokens[c]
	tok.index = d.pos
	switch tok.typ {
	case tError:
		d.tokenError(tok, "invalid token")
		return
	case tEnd:
		return
	case tUnknown:
	default:
		d.pos++
		return
	}
	rest := d.data[d.pos:]
	switch {
	case c == '"':
		d.string(tok)
	case c == '-' || isDigit(c):
		if !d.cfg.decodeInvalid && d.invalidNumber() {
			d.tokenError(tok, "invalid number")
			return
		}
		d.number(tok)
	case hasPrefix(rest, "true"):
		tok.typ, tok.b = tBoolean, true
		d.pos += 4
	case hasPrefix(rest, "false"):
		tok.typ, tok.b = tBoolean, false
		d.pos += 5
	case hasPrefix(rest, "null"):
		tok.typ = tNull
		d.pos += 4
	case d.cfg.decodeInvalid && d.invalidNumber():
		d.number(tok)
	default:
		d.tokenError(tok, "invalid token")
	}
}

func hasPrefix(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }

// invalidNumber reports a number strtod takes but JSON does not: a leading
// '+', hexadecimal, leading zeros, inf and nan.
func (d *jsonDecoder) invalidNumber() bool {
	p := d.pos
	if d.at(p) == '+' {
		return true
	}
	if d.at(p) == '-' {
		p++
	}
	if c := d.at(p); c == '0' {
		c2 := d.at(p + 1)
		return c2|0x20 == 'x' || isDigit(c2)
	} else if c <= '9' {
		return false
	}
	rest := d.data[min(p, len(d.data)):]
	return hasPrefixFold(rest, "inf") || hasPrefixFold(rest, "nan")
}

func (d *jsonDecoder) number(tok *jsonToken) {
	tok.typ = tNumber
	// strtod stops at a NUL byte as the C one does at the string's end:
	// no character of a number is NUL.
	f, n := strtod(d.data[d.pos:])
	if n == 0 {
		d.tokenError(tok, "invalid number")
		return
	}
	tok.num = f
	d.pos += n
}

func (d *jsonDecoder) string(tok *jsonToken) {
	d.pos++ // the opening quote
	d.tmp = d.tmp[:0]
	for {
		c := d.at(d.pos)
		if c == '"' {
			break
		}
		if c == 0 {
			d.tokenError(tok, "unexpected end of string")
			return
		}
		if c == '\\' {
			c = jsonUnescapes[d.at(d.pos+1)]
			if c == 'u' {
				if !d.unicodeEscape() {
					d.tokenError(tok, "invalid unicode escape code")
					return
				}
				continue
			}
			if c == 0 {
				d.tokenError(tok, "invalid escape code")
				return
			}
			d.pos++
		}
		d.tmp = append(d.tmp, c)
		d.pos++
	}
	d.pos++ // the closing quote
	tok.typ = tString
	tok.str = string(d.tmp)
}

func (d *jsonDecoder) hex4(i int) int {
	v := 0
	for k := range 4 {
		c := d.at(i + k)
		var x int
		switch {
		case isDigit(c):
			x = int(c - '0')
		case 'a' <= c|0x20 && c|0x20 <= 'f':
			x = int(c|0x20-'a') + 10
		default:
			return -1
		}
		v = v<<4 | x
	}
	return v
}

// unicodeEscape decodes the \uXXXX (or surrogate pair) at d.pos into UTF-8.
func (d *jsonDecoder) unicodeEscape() bool {
	cp := d.hex4(d.pos + 2)
	if cp < 0 {
		return false
	}
	n := 6
	if cp&0xF800 == 0xD800 {
		if cp&0x400 != 0 { // a low surrogate first
			return false
		}
		if d.at(d.pos+6) != '\\' || d.at(d.pos+7) != 'u' {
			return false
		}
		low := d.hex4(d.pos + 8)
		if low < 0 || low&0xFC00 != 0xDC00 {
			return false
		}
		cp = ((cp&0x3FF)<<10 | low&0x3FF) + 0x10000
		n = 12
	}
	switch {
	case cp <= 0x7F:
		d.tmp = append(d.tmp, byte(cp))
	case cp <= 0x7FF:
		d.tmp = append(d.tmp, byte(cp>>6|0xC0), byte(cp&0x3F|0x80))
	case cp <= 0xFFFF:
		d.tmp = append(d.tmp, byte(cp>>12|0xE0), byte(cp>>6&0x3F|0x80), byte(cp&0x3F|0x80))
	default:
		d.tmp = append(d.tmp, byte(cp>>18|0xF0), byte(cp>>12&0x3F|0x80), byte(cp>>6&0x3F|0x80), byte(cp&0x3F|0x80))
	}
	d.pos += n
	return true
}

// descend enters an array or object that needs slots more stack slots.
func (d *jsonDecoder) descend(slots int) {
	d.depth++
	if d.depth <= int(d.cfg.decodeMaxDepth) && d.slots+slots <= maxCStack {
		return
	}
	raise(d.L, "Found too many nested data structures (%d) at character %d", d.depth, d.pos)
}

func (d *jsonDecoder) value(tok *jsonToken) lua.LValue {
	switch tok.typ {
	case tString:
		return lua.LString(tok.str)
	case tNumber:
		return lua.LNumber(tok.num)
	case tBoolean:
		return lua.LBool(tok.b)
	case tNull:
		return d.cfg.null
	case tObjBegin:
		return d.object()
	case tArrBegin:
		return d.array()
	}
	d.fail("value", tok)
	return nil
}

func (d *jsonDecoder) object() lua.LValue {
	d.descend(3)
	t := d.L.CreateTable(0, 0)
	var tok jsonToken
	d.next(&tok)
	if tok.typ == tObjEnd {
		d.depth--
		return t
	}
	d.slots += 2 // the table and a key
	for {
		if tok.typ != tString {
			d.fail("object key string", &tok)
		}
		key := tok.str
		d.next(&tok)
		if tok.typ != tColon {
			d.fail("colon", &tok)
		}
		d.next(&tok)
		t.RawSetString(key, d.value(&tok))
		d.next(&tok)
		if tok.typ == tObjEnd {
			d.depth--
			d.slots -= 2
			return t
		}
		if tok.typ != tComma {
			d.fail("comma or object end", &tok)
		}
		d.next(&tok)
	}
}

func (d *jsonDecoder) array() lua.LValue {
	d.descend(2)
	t := d.L.CreateTable(0, 0)
	var tok jsonToken
	d.next(&tok)
	if tok.typ == tArrEnd {
		d.depth--
		return t
	}
	d.slots++ // the table
	for i := 1; ; i++ {
		t.RawSetInt(i, d.value(&tok))
		d.next(&tok)
		if tok.typ == tArrEnd {
			d.depth--
			d.slots--
			return t
		}
		if tok.typ != tComma {
			d.fail("comma or array end", &tok)
		}
		d.next(&tok)
	}
}
