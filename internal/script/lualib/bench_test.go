package lualib

import (
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// benchInput builds, in L, the global t: n small records.
func benchInput(b *testing.B, L *lua.LState, n string) {
	b.Helper()
	if err := L.DoString(`t = {} for i = 1, ` + n + ` do t[i] = {a = i, b = "xx" .. i, c = {1.5, true}} end
		json = cjson.encode(t) packed = cmsgpack.pack(t)`); err != nil {
		b.Fatal(err)
	}
}

func benchLua(b *testing.B, code string) {
	L := newState(b)
	benchInput(b, L, "10000")
	fn, err := L.LoadString(code)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		L.Push(fn)
		if err := L.PCall(0, 0, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCJSONEncode(b *testing.B)    { benchLua(b, `cjson.encode(t)`) }
func BenchmarkCJSONDecode(b *testing.B)    { benchLua(b, `cjson.decode(json)`) }
func BenchmarkCMsgpackPack(b *testing.B)   { benchLua(b, `cmsgpack.pack(t)`) }
func BenchmarkCMsgpackUnpack(b *testing.B) { benchLua(b, `cmsgpack.unpack(packed)`) }
