package lualib

import (
	"context"
	"strings"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// newState is a bare gopher-lua state with the four libraries.
func newState(tb testing.TB) *lua.LState {
	tb.Helper()
	L := lua.NewState(lua.Options{RegistrySize: 1024 * 20})
	tb.Cleanup(L.Close)
	OpenAll(L)
	return L
}

// call runs lib.fn(args...) protected and returns its results, or the Lua
// error it raised. Any other failure (a Go panic) is a bug and fails the
// test.
func call(L *lua.LState, lib, fn string, args ...lua.LValue) ([]lua.LValue, error) {
	f := L.GetField(L.GetGlobal(lib), fn)
	top := L.GetTop()
	if err := L.CallByParam(lua.P{Fn: f, NRet: lua.MultRet, Protect: true}, args...); err != nil {
		L.SetTop(top)
		return nil, err
	}
	out := make([]lua.LValue, L.GetTop()-top)
	for i := range out {
		out[i] = L.Get(top + 1 + i)
	}
	L.SetTop(top)
	return out, nil
}

// call1 is call for a function that must succeed with one result.
func call1(tb testing.TB, L *lua.LState, lib, fn string, args ...lua.LValue) lua.LValue {
	tb.Helper()
	vs, err := call(L, lib, fn, args...)
	if err != nil {
		tb.Fatalf("%s.%s: %v", lib, fn, err)
	}
	if len(vs) != 1 {
		tb.Fatalf("%s.%s: %d results, want 1", lib, fn, len(vs))
	}
	return vs[0]
}

var jsonSeeds = []string{
	`{"a":[1,2,3,{"b":null}],"c":"x\u00e9\ud83d\ude00"}`, `[]`, `{}`, `"\/\b\f\n\r\t"`, `-1.5e-3`,
	`[1,]`, `{"a" 1}`, `0x1p3`, `Infinity`, `-nan`, `"\ud800"`, `[` + strings.Repeat("[", 2000),
	strings.Repeat(`{"a":`, 1500), `"unterminated`, "\x00\x00", `[1e400, -1e400, 1e-400]`,
	` true `, `nul`, `+5`, `007`, `"` + strings.Repeat(`\u00`, 10) + `"`,
}

// FuzzCJSONDecode: decoding never fails other than with a Lua error, and
// what it accepts re-encodes to text that decodes and encodes the same.
func FuzzCJSONDecode(f *testing.F) {
	for _, s := range jsonSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		L := newState(t)
		vs, err := call(L, "cjson", "decode", lua.LString(s))
		if err != nil {
			return
		}
		enc1, err := call(L, "cjson", "encode", vs[0])
		if err != nil {
			return // inf and nan decode but do not encode
		}
		back := call1(t, L, "cjson", "decode", enc1[0])
		enc2 := call1(t, L, "cjson", "encode", back)
		if enc1[0] != enc2 {
			t.Fatalf("%q: encodes as %q, then as %q", s, enc1[0], enc2)
		}
	})
}

var msgpackSeeds = []string{
	"\x93\x01\x02\x03", "\x81\xa1a\xc3", "\xcb\x3f\xb9\x99\x99\x99\x99\x99\x9a", "\xca\x3e\xcc\xcc\xcd",
	"\xcf\xff\xff\xff\xff\xff\xff\xff\xff", "\xd3\x80\x00\x00\x00\x00\x00\x00\x00", "\xdb\xff\xff\xff\xffab",
	"\xdd\xff\xff\xff\xff\x01", "\xdf\xff\xff\xff\xff\x01\x01", "\xc1", "\xc4\x01a", "\x81\xc0\x01",
	strings.Repeat("\x91", 10000), strings.Repeat("\x81\x01", 5000), strings.Repeat("\x01", 9000),
	"\xd9\x03abc\xda\x00\x01x\xcc\xff\xcd\xff\xff\xce\xff\xff\xff\xff\xd0\x80\xd1\x80\x00\xd2\x80\x00\x00\x00",
}

// FuzzCMsgpackUnpack: unpacking never fails other than with a Lua error,
// and repacking what it gives settles: a first round may drop tables
// nested past the limit and the holes their nils leave, after that pack
// and unpack are each other's inverse.
func FuzzCMsgpackUnpack(f *testing.F) {
	for _, s := range msgpackSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		L := newState(t)
		vs, err := call(L, "cmsgpack", "unpack", lua.LString(s))
		if err != nil || len(vs) == 0 {
			return
		}
		var packed []lua.LValue
		for round := 0; round < 3; round++ {
			p, err := call(L, "cmsgpack", "pack", vs...)
			if err != nil {
				return // too many values for one pack
			}
			packed = append(packed, p[0])
			if vs, err = call(L, "cmsgpack", "unpack", p[0]); err != nil {
				t.Fatalf("%q: repacked as %q, which does not unpack: %v", s, p[0], err)
			}
		}
		if packed[1] != packed[2] {
			t.Fatalf("%q: packs as %q, then as %q", s, packed[1], packed[2])
		}
	})
}

// FuzzStructUnpack: unpack and size never fail other than with a Lua
// error, and what unpacks from data of a fixed-size format packs back to
// the same bytes.
func FuzzStructUnpack(f *testing.F) {
	seeds := [][2]string{
		{">bBhHlLiI", "\xff\xff\xfe\xff\xff\xff\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x03\x00\x00\x00\x04"},
		{"<i16", strings.Repeat("\xff", 16)}, {"!4bi", "\x01\x00\x00\x00\x02\x00\x00\x00"}, {"sc3c0", "ab\x00xyz"},
		{"bc0", "\x03abc"}, {"c2147483647", "a"}, {"i99999999999", ""}, {"!3", ""}, {"x5", "aaaaa"},
		{strings.Repeat("b", 9000), strings.Repeat("\x01", 9000)}, {">fd", "\x3f\xc0\x00\x00\x3f\xb9\x99\x99\x99\x99\x99\x9a"},
	}
	for _, s := range seeds {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, format, data string) {
		L := newState(t)
		call(L, "struct", "size", lua.LString(format))
		vs, err := call(L, "struct", "unpack", lua.LString(format), lua.LString(data))
		if err != nil || strings.ContainsAny(format, "sc0123456789fdx!lLT") {
			return // packing these back is not byte-exact (floats, strings, padding)
		}
		// Integers of up to 4 bytes round-trip when the data was used from
		// the start: unpack returns the next position last.
		vals := vs[:len(vs)-1]
		args := append([]lua.LValue{lua.LString(format)}, vals...)
		p, err := call(L, "struct", "pack", args...)
		if err != nil {
			t.Fatalf("%q %q: unpacked values do not pack: %v", format, data, err)
		}
		used := int(vs[len(vs)-1].(lua.LNumber)) - 1
		if got := string(p[0].(lua.LString)); got != data[:used] {
			t.Fatalf("%q %q: packs back as %q", format, data, got)
		}
	})
}

// TestHugeSharedTables: a table that shares its subtables stands for
// 10^60 values (10^16 within cmsgpack's nesting limit); the encoders stop when the state's context ends instead of
// spinning, as Redis's C code would, past any script timeout.
func TestHugeSharedTables(t *testing.T) {
	for _, fn := range []string{"cjson.encode", "cmsgpack.pack"} {
		L := newState(t)
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		L.SetContext(ctx)
		start := time.Now()
		err := L.DoString(`local a = {} for i = 1, 60 do a = {a, a, a, a, a, a, a, a, a, a} end return ` + fn + `(a)`)
		cancel()
		if err == nil || !strings.Contains(err.Error(), "context deadline exceeded") {
			t.Errorf("%s: err %v, want the deadline", fn, err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: stopped after %v", fn, d)
		}
	}
}

// TestLargeInputs decodes inputs of a few megabytes: the decoders must be
// linear (a scan to the end of the input per number once made this take
// minutes).
func TestLargeInputs(t *testing.T) {
	L := newState(t)
	err := L.DoString(`
		local s = "[" .. string.rep("-12.5e3,", 199999) .. "7]"
		local t = cjson.decode(s)
		assert(#t == 200000 and t[1] == -12500 and t[200000] == 7, "cjson")
		local packed = cmsgpack.pack(t)
		local u = cmsgpack.unpack(packed)
		assert(#u == 200000 and u[1] == -12500 and u[200000] == 7, "cmsgpack")
		local fmt = string.rep("i", 7000)
		local data = struct.pack(fmt, unpack(t, 1, 7000))
		assert(select("#", struct.unpack(fmt, data)) == 7001, "struct")`)
	if err != nil {
		t.Fatal(err)
	}
}
