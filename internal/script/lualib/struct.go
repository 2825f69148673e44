package lualib

import (
	"math"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// The struct library's sizes and limits on Redis's platforms (LP64,
// little-endian): long and size_t are 8 bytes, int 4.
const (
	structMaxIntSize = 32 // MAXINTSIZE: the largest i/I size
	structMaxAlign   = 8  // MAXALIGN: the default of '!'
)

// OpenStruct installs the global struct.
func OpenStruct(L *lua.LState) {
	register(L, "struct", map[string]lua.LGFunction{
		"pack":   structPack,
		"unpack": structUnpack,
		"size":   structSize,
	})
}

// structFormat walks a format string; like the C library it stops at a
// NUL byte.
type structFormat struct {
	L      *lua.LState
	fname  string
	fmt    string
	pos    int
	little bool
	align  int
}

func newStructFormat(L *lua.LState, fname string) *structFormat {
	f := checkLString(L, 1, fname)
	if i := strings.IndexByte(f, 0); i >= 0 {
		f = f[:i]
	}
	return &structFormat{L: L, fname: fname, fmt: f, little: true, align: 1}
}

func (f *structFormat) more() bool { return f.pos < len(f.fmt) }

func (f *structFormat) next() byte {
	c := f.fmt[f.pos]
	f.pos++
	return c
}

// num reads a decimal count, or returns def when none follows.
func (f *structFormat) num(def int) int {
	if !f.more() || !isDigit(f.fmt[f.pos]) {
		return def
	}
	a := 0
	for f.more() && isDigit(f.fmt[f.pos]) {
		d := int(f.fmt[f.pos] - '0')
		if a > math.MaxInt32/10 || a*10 > math.MaxInt32-d {
			raise(f.L, "integral size overflow")
		}
		a = a*10 + d
		f.pos++
	}
	return a
}

// size is the size of option opt, reading its count when it takes one.
func (f *structFormat) size(opt byte) int {
	switch opt {
	case 'B', 'b':
		return 1
	case 'H', 'h':
		return 2
	case 'L', 'l', 'T', 'd':
		return 8
	case 'f':
		return 4
	case 'x':
		return 1
	case 'c':
		return f.num(1)
	case 'i', 'I':
		sz := f.num(4)
		if sz > structMaxIntSize {
			raise(f.L, "integral size %d is larger than limit of %d", sz, structMaxIntSize)
		}
		return sz
	}
	return 0
}

// toAlign is the padding an item of size needs at offset pos.
func (f *structFormat) toAlign(pos uint64, opt byte, size int) uint64 {
	if size == 0 || opt == 'c' {
		return 0
	}
	s := uint64(min(size, f.align))
	return (s - (pos & (s - 1))) & (s - 1)
}

// control handles the options that set byte order and alignment.
func (f *structFormat) control(opt byte) {
	switch opt {
	case ' ':
	case '>':
		f.little = false
	case '<':
		f.little = true
	case '!':
		a := f.num(structMaxAlign)
		if a <= 0 || a&(a-1) != 0 {
			raise(f.L, "alignment %d is not a power of 2", a)
		}
		f.align = a
	default:
		argError(f.L, 1, f.fname, "invalid format option '"+string([]byte{opt})+"'")
	}
}

func isIntOption(opt byte) bool {
	switch opt {
	case 'b', 'B', 'h', 'H', 'l', 'L', 'T', 'i', 'I':
		return true
	}
	return false
}

func structPack(L *lua.LState) int {
	f := newStructFormat(L, "pack")
	// The C library pushes a nil before its buffer: a missing argument
	// right after the last one reads as nil, not as no value.
	L.Push(lua.LNil)
	var out []byte
	arg := 2
	for f.more() {
		opt := f.next()
		size := f.size(opt)
		pad := f.toAlign(uint64(len(out)), opt, size)
		for range pad {
			out = append(out, 0)
		}
		switch {
		case isIntOption(opt):
			out = packInt(out, checkNumber(L, arg, "pack"), f.little, size)
			arg++
		case opt == 'x':
			out = append(out, 0)
		case opt == 'f':
			bits := uint64(math.Float32bits(float32(checkNumber(L, arg, "pack"))))
			arg++
			out = appendUint(out, bits, 4, f.little)
		case opt == 'd':
			bits := math.Float64bits(checkNumber(L, arg, "pack"))
			arg++
			out = appendUint(out, bits, 8, f.little)
		case opt == 'c' || opt == 's':
			s := checkLString(L, arg, "pack")
			arg++
			n := size
			if n == 0 {
				n = len(s)
			}
			if len(s) < n {
				// The C library names the argument after this one.
				argError(L, arg, "pack", "string too short")
			}
			out = append(out, s[:n]...)
			if opt == 's' {
				out = append(out, 0)
			}
		default:
			f.control(opt)
		}
	}
	L.Push(lua.LString(out))
	return 1
}

// packInt writes n as a size-byte integer: negative numbers in two's
// complement of 64 bits, bytes past the eighth as zeros.
func packInt(out []byte, n float64, little bool, size int) []byte {
	var v uint64
	if n < 0 {
		v = uint64(f2i64(n))
	} else {
		v = f2u64(n)
	}
	return appendUint(out, v, size, little)
}

func appendUint(out []byte, v uint64, size int, little bool) []byte {
	start := len(out)
	for range size {
		out = append(out, 0)
	}
	b := out[start:]
	for i := range size {
		k := i
		if !little {
			k = size - 1 - i
		}
		b[k] = byte(v)
		v >>= 8
	}
	return out
}

// readInt reads a size-byte integer; like the C library it keeps only the
// last eight bytes read, and sign-extends from the top bit of the item
// (whose shift wraps modulo 64, as x86 does).
func readInt(b string, little, signed bool, size int) float64 {
	var l uint64
	for i := range size {
		k := i
		if little {
			k = size - 1 - i
		}
		l = l<<8 | uint64(b[k])
	}
	if !signed {
		return float64(l)
	}
	mask := ^uint64(0) << (uint(size*8-1) & 63)
	if l&mask != 0 {
		l |= mask
	}
	return float64(int64(l))
}

func readUint(b string, size int, little bool) uint64 {
	var v uint64
	for i := range size {
		k := i
		if little {
			k = size - 1 - i
		}
		v = v<<8 | uint64(b[k])
	}
	return v
}

func structUnpack(L *lua.LState) int {
	f := newStructFormat(L, "unpack")
	data := checkLString(L, 2, "unpack")
	ld := uint64(len(data))
	pos := uint64(optInteger(L, 3, "unpack", 1))
	if pos == 0 {
		argError(L, 3, "unpack", "offset must be 1 or greater")
	}
	pos--
	base := L.GetTop()
	var out []lua.LValue
	for f.more() {
		opt := f.next()
		size := uint64(f.size(opt))
		pos += f.toAlign(pos, opt, int(size))
		if size > ld || pos > ld-size {
			argError(L, 2, "unpack", "data string too short")
		}
		if base+len(out)+2 > maxCStack {
			raise(L, "stack overflow (too many results)")
		}
		switch {
		case isIntOption(opt):
			out = append(out, lua.LNumber(readInt(data[pos:pos+size], f.little, opt >= 'a', int(size))))
		case opt == 'x':
		case opt == 'f':
			bits := readUint(data[pos:pos+4], 4, f.little)
			out = append(out, lua.LNumber(math.Float32frombits(uint32(bits))))
		case opt == 'd':
			bits := readUint(data[pos:pos+8], 8, f.little)
			out = append(out, lua.LNumber(math.Float64frombits(bits)))
		case opt == 'c':
			if size == 0 {
				var n float64
				ok := len(out) > 0
				if ok {
					n, ok = toNumber(out[len(out)-1])
				}
				if !ok {
					raise(L, "format 'c0' needs a previous size")
				}
				out = out[:len(out)-1]
				size = f2u64(n)
				if size > ld || pos > ld-size {
					argError(L, 2, "unpack", "data string too short")
				}
			}
			out = append(out, lua.LString(data[pos:pos+size]))
		case opt == 's':
			e := strings.IndexByte(data[pos:], 0)
			if e < 0 {
				raise(L, "unfinished string in data")
			}
			out = append(out, lua.LString(data[pos:pos+uint64(e)]))
			size = uint64(e) + 1
		default:
			f.control(opt)
		}
		pos += size
	}
	for _, v := range out {
		L.Push(v)
	}
	L.Push(lua.LNumber(int64(pos + 1)))
	return len(out) + 1
}

func structSize(L *lua.LState) int {
	f := newStructFormat(L, "size")
	var pos uint64
	for f.more() {
		opt := f.next()
		size := f.size(opt)
		pos += f.toAlign(pos, opt, size)
		if opt == 's' {
			argError(L, 1, "size", "option 's' has no fixed size")
		} else if opt == 'c' && size == 0 {
			argError(L, 1, "size", "option 'c0' has no fixed size")
		}
		if !isAlnum(opt) {
			f.control(opt)
		}
		pos += uint64(size)
	}
	L.Push(lua.LNumber(int64(pos)))
	return 1
}

func isAlnum(c byte) bool {
	return isDigit(c) || ('a' <= c|0x20 && c|0x20 <= 'z')
}
