package lualib

import (
	"math"

	lua "github.com/yuin/gopher-lua"
)

// OpenBit installs the global bit (LuaBitOp 1.0.2). Every operation works
// on 32-bit integers and returns a signed 32-bit result as a number.
func OpenBit(L *lua.LState) {
	fns := map[string]lua.LGFunction{
		"tobit":  func(L *lua.LState) int { return bitRet(L, bitArg(L, 1, "tobit")) },
		"bnot":   func(L *lua.LState) int { return bitRet(L, ^bitArg(L, 1, "bnot")) },
		"band":   bitFold("band", func(a, b uint32) uint32 { return a & b }),
		"bor":    bitFold("bor", func(a, b uint32) uint32 { return a | b }),
		"bxor":   bitFold("bxor", func(a, b uint32) uint32 { return a ^ b }),
		"lshift": bitShift("lshift", func(b, n uint32) uint32 { return b << n }),
		"rshift": bitShift("rshift", func(b, n uint32) uint32 { return b >> n }),
		"arshift": bitShift("arshift", func(b, n uint32) uint32 {
			return uint32(int32(b) >> n)
		}),
		"rol":   bitShift("rol", func(b, n uint32) uint32 { return b<<n | b>>(32-n) }),
		"ror":   bitShift("ror", func(b, n uint32) uint32 { return b<<(32-n) | b>>n }),
		"bswap": func(L *lua.LState) int { return bitRet(L, bswap(bitArg(L, 1, "bswap"))) },
		"tohex": bitToHex,
	}
	register(L, "bit", fns)
}

// bitArg converts argument i to 32 bits the way LuaBitOp does on doubles:
// add 2^52+2^51 and keep the low word of the sum, which is the number
// modulo 2^32 after rounding to an integer (half to even).
func bitArg(L *lua.LState, i int, fname string) uint32 {
	var f float64
	ok := false
	if !isNone(L, i) {
		f, ok = toNumber(L.Get(i))
	}
	b := uint32(math.Float64bits(f + 6755399441055744.0))
	if b == 0 && !ok {
		typeError(L, i, fname, "number")
	}
	return b
}

func bitRet(L *lua.LState, b uint32) int {
	L.Push(lua.LNumber(int32(b)))
	return 1
}

func bswap(b uint32) uint32 {
	return b>>24 | b>>8&0xff00 | (b&0xff00)<<8 | b<<24
}

// bitFold applies op over all arguments; like LuaBitOp it converts them
// from the last to the second, after the first.
func bitFold(fname string, op func(a, b uint32) uint32) lua.LGFunction {
	return func(L *lua.LState) int {
		b := bitArg(L, 1, fname)
		for i := L.GetTop(); i > 1; i-- {
			b = op(b, bitArg(L, i, fname))
		}
		return bitRet(L, b)
	}
}

func bitShift(fname string, op func(b, n uint32) uint32) lua.LGFunction {
	return func(L *lua.LState) int {
		b := bitArg(L, 1, fname)
		n := bitArg(L, 2, fname) & 31
		return bitRet(L, op(b, n))
	}
}

func bitToHex(L *lua.LState) int {
	b := bitArg(L, 1, "tohex")
	n := int32(8)
	if !isNone(L, 2) {
		n = int32(bitArg(L, 2, "tohex"))
	}
	digits := "0123456789abcdef"
	if n == math.MinInt32 {
		n = math.MinInt32 + 1
	}
	if n < 0 {
		n = -n
		digits = "0123456789ABCDEF"
	}
	n = min(n, 8)
	buf := make([]byte, n)
	for i := n - 1; i >= 0; i-- {
		buf[i] = digits[b&15]
		b >>= 4
	}
	L.Push(lua.LString(buf))
	return 1
}
