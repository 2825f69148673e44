package lualib

import (
	"encoding/binary"
	"math"

	lua "github.com/yuin/gopher-lua"
)

// msgpackMaxNesting is LUACMSGPACK_MAX_NESTING: tables nested deeper are
// packed as nil.
const msgpackMaxNesting = 16

// OpenCMsgpack installs the global cmsgpack (lua-cmsgpack 0.4.0).
func OpenCMsgpack(L *lua.LState) {
	t := register(L, "cmsgpack", map[string]lua.LGFunction{
		"pack":         msgpackPack,
		"unpack":       func(L *lua.LState) int { return msgpackUnpack(L, "unpack", 0, 0) },
		"unpack_one":   msgpackUnpackOne,
		"unpack_limit": msgpackUnpackLimit,
	})
	t.RawSetString("_NAME", lua.LString("cmsgpack"))
	t.RawSetString("_VERSION", lua.LString("lua-cmsgpack 0.4.0"))
	t.RawSetString("_COPYRIGHT", lua.LString("Copyright (C) 2012, Salvatore Sanfilippo"))
	t.RawSetString("_DESCRIPTION", lua.LString("MessagePack C implementation for Lua"))
}

// ===== packing =====

func msgpackPack(L *lua.LState) int {
	n := L.GetTop()
	if n == 0 {
		argError(L, 0, "pack", "MessagePack pack needs input.")
	}
	if 2*n > maxCStack {
		argError(L, 0, "pack", "Too many arguments for MessagePack pack.")
	}
	var buf []byte
	b := &budget{L: L}
	for i := 1; i <= n; i++ {
		buf = msgpackEncode(b, buf, L.Get(i), 0)
	}
	L.Push(lua.LString(buf))
	return 1
}

func msgpackEncode(b *budget, buf []byte, v lua.LValue, level int) []byte {
	b.step(len(buf), "MessagePack pack")
	switch x := v.(type) {
	case lua.LString:
		return msgpackBytes(buf, string(x))
	case lua.LBool:
		if x {
			return append(buf, 0xc3)
		}
		return append(buf, 0xc2)
	case lua.LNumber:
		f := float64(x)
		if f >= -9223372036854775808.0 && f < 9223372036854775808.0 && math.Trunc(f) == f {
			return msgpackInt(buf, int64(f))
		}
		if float64(float32(f)) == f {
			buf = append(buf, 0xca)
			return binary.BigEndian.AppendUint32(buf, math.Float32bits(float32(f)))
		}
		buf = append(buf, 0xcb)
		return binary.BigEndian.AppendUint64(buf, math.Float64bits(f))
	case *lua.LTable:
		if level == msgpackMaxNesting {
			return append(buf, 0xc0)
		}
		if msgpackIsArray(x) {
			n := x.Len()
			buf = msgpackHeader(buf, 0x90, 0xdc, 0xdd, uint64(n))
			for j := 1; j <= n; j++ {
				buf = msgpackEncode(b, buf, b.L.GetTable(x, lua.LNumber(j)), level+1)
			}
			return buf
		}
		n := 0
		for k, _ := x.Next(lua.LNil); k != lua.LNil; k, _ = x.Next(k) {
			n++
		}
		buf = msgpackHeader(buf, 0x80, 0xde, 0xdf, uint64(n))
		for k, val := x.Next(lua.LNil); k != lua.LNil; k, val = x.Next(k) {
			buf = msgpackEncode(b, buf, k, level+1)
			buf = msgpackEncode(b, buf, val, level+1)
		}
		return buf
	}
	return append(buf, 0xc0) // nil, functions, userdata (cjson.null too), threads
}

// msgpackIsArray reports whether t's keys are exactly 1..n.
func msgpackIsArray(t *lua.LTable) bool {
	var max, count int64
	for k, _ := t.Next(lua.LNil); k != lua.LNil; k, _ = t.Next(k) {
		n, ok := k.(lua.LNumber)
		f := float64(n)
		if !ok || f <= 0 || float64(f2i32(f)) != f { // a C int must hold it
			return false
		}
		max = int64(math.Max(float64(max), f))
		count++
	}
	return max == count
}

func msgpackBytes(buf []byte, s string) []byte {
	n := len(s)
	switch {
	case n < 32:
		buf = append(buf, 0xa0|byte(n))
	case n <= 0xff:
		buf = append(buf, 0xd9, byte(n))
	case n <= 0xffff:
		buf = append(buf, 0xda)
		buf = binary.BigEndian.AppendUint16(buf, uint16(n))
	default:
		buf = append(buf, 0xdb)
		buf = binary.BigEndian.AppendUint32(buf, uint32(n))
	}
	return append(buf, s...)
}

func msgpackHeader(buf []byte, fix, b16, b32 byte, n uint64) []byte {
	switch {
	case n <= 15:
		return append(buf, fix|byte(n))
	case n <= 0xffff:
		return binary.BigEndian.AppendUint16(append(buf, b16), uint16(n))
	}
	return binary.BigEndian.AppendUint32(append(buf, b32), uint32(n))
}

func msgpackInt(buf []byte, n int64) []byte {
	if n >= 0 {
		switch {
		case n <= 127:
			return append(buf, byte(n))
		case n <= 0xff:
			return append(buf, 0xcc, byte(n))
		case n <= 0xffff:
			return binary.BigEndian.AppendUint16(append(buf, 0xcd), uint16(n))
		case n <= 0xffffffff:
			return binary.BigEndian.AppendUint32(append(buf, 0xce), uint32(n))
		}
		return binary.BigEndian.AppendUint64(append(buf, 0xcf), uint64(n))
	}
	switch {
	case n >= -32:
		return append(buf, byte(n))
	case n >= -128:
		return append(buf, 0xd0, byte(n))
	case n >= -32768:
		return binary.BigEndian.AppendUint16(append(buf, 0xd1), uint16(n))
	case n >= -2147483648:
		return binary.BigEndian.AppendUint32(append(buf, 0xd2), uint32(n))
	}
	return binary.BigEndian.AppendUint64(append(buf, 0xd3), uint64(n))
}

// ===== unpacking =====

type msgpackErr int

const (
	msgpackOK msgpackErr = iota
	msgpackEOF
	msgpackBadFormat
)

// msgpackDecoder reads values; slots counts the stack slots the C decoder
// would hold, whose limit stops deep or numerous values.
type msgpackDecoder struct {
	L     *lua.LState
	data  string
	pos   int
	err   msgpackErr
	slots int
}

func (d *msgpackDecoder) left() int { return len(d.data) - d.pos }

func (d *msgpackDecoder) need(n int) bool {
	if d.left() < n {
		d.err = msgpackEOF
		return false
	}
	return true
}

func (d *msgpackDecoder) checkStack(what string) {
	if d.slots+1 > maxCStack {
		raise(d.L, "stack overflow (%s)", what)
	}
}

func (d *msgpackDecoder) u8(i int) uint64  { return uint64(d.data[d.pos+i]) }
func (d *msgpackDecoder) u16(i int) uint64 { return d.u8(i)<<8 | d.u8(i+1) }
func (d *msgpackDecoder) u32(i int) uint64 { return d.u16(i)<<16 | d.u16(i+2) }
func (d *msgpackDecoder) u64(i int) uint64 { return d.u32(i)<<32 | d.u32(i+4) }

// value decodes one value; on an error it returns nil with d.err set.
func (d *msgpackDecoder) value() lua.LValue {
	if !d.need(1) {
		return nil
	}
	d.checkStack("too many return values at once; use unpack_one or unpack_limit instead.")
	c := d.data[d.pos]
	fixed := func(n int, v lua.LValue) lua.LValue {
		if !d.need(n) {
			return nil
		}
		d.pos += n
		return v
	}
	str := func(hdr int, n uint64) lua.LValue {
		if uint64(d.left()-hdr) < n {
			d.err = msgpackEOF
			return nil
		}
		s := d.data[d.pos+hdr : d.pos+hdr+int(n)]
		d.pos += hdr + int(n)
		return lua.LString(s)
	}
	switch c {
	case 0xc0:
		d.pos++
		return lua.LNil
	case 0xc2, 0xc3:
		d.pos++
		return lua.LBool(c == 0xc3)
	case 0xcc, 0xd0:
		if !d.need(2) {
			return nil
		}
		if c == 0xcc {
			return fixed(2, lua.LNumber(d.u8(1)))
		}
		return fixed(2, lua.LNumber(int8(d.u8(1))))
	case 0xcd, 0xd1:
		if !d.need(3) {
			return nil
		}
		if c == 0xcd {
			return fixed(3, lua.LNumber(d.u16(1)))
		}
		return fixed(3, lua.LNumber(int16(d.u16(1))))
	case 0xce, 0xd2, 0xca:
		if !d.need(5) {
			return nil
		}
		switch c {
		case 0xce:
			return fixed(5, lua.LNumber(d.u32(1)))
		case 0xd2:
			return fixed(5, lua.LNumber(int32(d.u32(1))))
		}
		return fixed(5, lua.LNumber(math.Float32frombits(uint32(d.u32(1)))))
	case 0xcf, 0xd3, 0xcb:
		if !d.need(9) {
			return nil
		}
		if c == 0xcb {
			return fixed(9, lua.LNumber(math.Float64frombits(d.u64(1))))
		}
		// uint 64 goes through a signed lua_Integer, as in Redis.
		return fixed(9, lua.LNumber(int64(d.u64(1))))
	case 0xd9:
		if !d.need(2) {
			return nil
		}
		return str(2, d.u8(1))
	case 0xda:
		if !d.need(3) {
			return nil
		}
		return str(3, d.u16(1))
	case 0xdb:
		if !d.need(5) {
			return nil
		}
		return str(5, d.u32(1))
	case 0xdc, 0xde:
		if !d.need(3) {
			return nil
		}
		n := d.u16(1)
		d.pos += 3
		return d.container(c == 0xde, n)
	case 0xdd, 0xdf:
		if !d.need(5) {
			return nil
		}
		n := d.u32(1)
		d.pos += 5
		return d.container(c == 0xdf, n)
	}
	switch {
	case c&0x80 == 0:
		d.pos++
		return lua.LNumber(c)
	case c&0xe0 == 0xe0:
		d.pos++
		return lua.LNumber(int8(c))
	case c&0xe0 == 0xa0:
		return str(1, uint64(c&0x1f))
	case c&0xf0 == 0x90:
		d.pos++
		return d.container(false, uint64(c&0xf))
	case c&0xf0 == 0x80:
		d.pos++
		return d.container(true, uint64(c&0xf))
	}
	d.err = msgpackBadFormat
	return nil
}

// container decodes n elements (pairs when isMap) into a new table. The
// count comes from the input and may be huge: every element consumes at
// least one byte, so the loop ends when the input does.
func (d *msgpackDecoder) container(isMap bool, n uint64) lua.LValue {
	t := d.L.CreateTable(0, 0)
	d.slots++ // the table
	defer func() { d.slots-- }()
	if !isMap {
		d.checkStack("in function mp_decode_to_lua_array")
	}
	for i := uint64(1); i <= n; i++ {
		var k lua.LValue
		if isMap {
			if k = d.value(); d.err != msgpackOK {
				return nil
			}
		} else {
			k = lua.LNumber(i)
		}
		d.slots++ // the key
		v := d.value()
		d.slots--
		if d.err != msgpackOK {
			return nil
		}
		d.setTable(t, k, v)
	}
	return t
}

// setTable is lua_settable on a fresh table.
func (d *msgpackDecoder) setTable(t *lua.LTable, k, v lua.LValue) {
	switch kk := k.(type) {
	case *lua.LNilType:
		raiseRuntime(d.L, "table index is nil")
	case lua.LNumber:
		if math.IsNaN(float64(kk)) {
			raiseRuntime(d.L, "table index is NaN")
		}
	}
	t.RawSet(k, v)
}

func msgpackUnpackOne(L *lua.LState) int {
	offset := optInteger(L, 2, "unpack_one", 0)
	L.SetTop(1)
	return msgpackUnpack(L, "unpack_one", 1, offset)
}

func msgpackUnpackLimit(L *lua.LState) int {
	limit := checkInteger(L, 2, "unpack_limit")
	offset := optInteger(L, 3, "unpack_limit", 0)
	L.SetTop(1)
	return msgpackUnpack(L, "unpack_limit", limit, offset)
}

// msgpackUnpack decodes up to limit values from offset; with neither it
// decodes everything and returns the values alone, else it returns the
// offset to go on from (-1 at the end) before them.
func msgpackUnpack(L *lua.LState, fname string, limit, offset int64) int {
	s := checkLString(L, 1, fname)
	all := limit == 0 && offset == 0
	if offset < 0 || limit < 0 {
		raise(L, "Invalid request to unpack with offset of %d and limit of %d.", int32(offset), int32(len(s)))
	}
	if uint64(offset) > uint64(len(s)) {
		raise(L, "Start offset %d greater than input length %d.", int32(offset), int32(len(s)))
	}
	if all {
		limit = math.MaxInt32
	}
	d := &msgpackDecoder{L: L, data: s, pos: int(offset), slots: L.GetTop()}
	var out []lua.LValue
	for cnt := int64(0); d.left() > 0 && cnt < limit; cnt++ {
		v := d.value()
		switch d.err {
		case msgpackEOF:
			raise(L, "Missing bytes in input.")
		case msgpackBadFormat:
			raise(L, "Bad data format in input.")
		}
		out = append(out, v)
		d.slots++
	}
	if !all {
		if d.slots+1 > maxCStack {
			raise(L, "stack overflow (in function mp_unpack_full)")
		}
		next := lua.LNumber(-1)
		if d.left() > 0 {
			next = lua.LNumber(d.pos)
		}
		L.Push(next)
	}
	for _, v := range out {
		L.Push(v)
	}
	if all {
		return len(out)
	}
	return len(out) + 1
}
