package lualib

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// luaQuote writes s as a Lua string literal, every byte escaped, so that
// any input travels through EVAL's script text unchanged.
func luaQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, "\\%03d", s[i])
	}
	b.WriteByte('"')
	return b.String()
}

// pieces glues n random pieces together, with now and then a random byte.
func pieces(r *rand.Rand, from []string, n int) string {
	var b strings.Builder
	for range 1 + r.IntN(n) {
		if r.IntN(10) == 0 {
			b.WriteByte(byte(r.IntN(256)))
		} else {
			b.WriteString(from[r.IntN(len(from))])
		}
	}
	return b.String()
}

var (
	jsonPieces = []string{"[", "]", "{", "}", `"a"`, `"b"`, ":", ",", " ", "1", "-", "0", "07", "0x1F",
		"1.5", "1e5", "-2E-3", ".5", "1.", "e", "+1", `"\u00e9"`, `"\ud83d\ude00"`, `"\ud800"`, `"\udc00"`,
		`"\u12"`, `"\/"`, `"\q"`, `"x`, "true", "false", "null", "nul", "inf", "-Infinity", "nan", "NaN",
		"\x00", "\t\n", `"\"\\"`, "9007199254740993", "1e400", "0x1p4"}
	msgpackPieces = []string{"\x90", "\x91", "\x93", "\x80", "\x81", "\x82", "\xdc\x00\x02", "\xdd\x00\x00\x00\x01",
		"\xde\x00\x01", "\xdf\xff\xff\xff\xff", "\xa3abc", "\xa0", "\xd9\x02xy", "\xda\x00\x01z",
		"\xdb\x00\x00\x00\x02ab", "\xc0", "\xc2", "\xc3", "\x01", "\x7f", "\xff", "\xe0", "\xcc\xff",
		"\xcd\x01\x00", "\xce\xff\xff\xff\xff", "\xcf\xff\xff\xff\xff\xff\xff\xff\xff", "\xd0\x80",
		"\xd1\x80\x00", "\xd2\x80\x00\x00\x00", "\xd3\x80\x00\x00\x00\x00\x00\x00\x01",
		"\xca\x3f\xc0\x00\x00", "\xca\x7f\xc0\x00\x00", "\xcb\x3f\xb9\x99\x99\x99\x99\x99\x9a", "\xc1", "\xc4", "\xd4"}
	structPieces = []string{"b", "B", "h", "H", "l", "L", "T", "i", "I", "i3", "I7", "i16", "f", "d", "s", "c",
		"c0", "c2", "x", "<", ">", "!", "!2", "!4", "!3", " ", "z", "9"}
)

var (
	bitOps     = []string{"tobit", "bnot", "band", "bor", "bxor", "lshift", "rshift", "arshift", "rol", "ror", "bswap", "tohex"}
	bitNumbers = []string{"0", "1", "-1", "31", "32", "33", "-8", "0.5", "1.5", "2.5", "-2.5", "2^31", "2^32", "2^32+1",
		"-2^31", "-2^31-1", "2^51", "2^52", "2^53", "2^53+2", "2^63", "1e300", "-1e300", "1/0", "-1/0", "0/0",
		"0x7fffffff", "0x12345678", "'10'", "'0x10'", "' 7 '", "'x'", "nil", "{}"}
	structArgs = []string{"0", "1", "-1", "255", "256", "-129", "65536", "2^31", "2^32", "-2^31", "2^53", "2^63",
		"2^64", "-2^63", "-2^64", "1.5", "-1.5", "1/0", "-1/0", "0/0", "1e40", "'ab'", "'abc\\0d'", "''", "nil", "'12'"}
)

func pick(r *rand.Rand, from []string) string { return from[r.IntN(len(from))] }

// TestAgainstRedisRandom decodes random inputs, built to reach the
// decoders' corners, in both Redis and gopher-lua and compares the
// outcome. The seed is printed; set it in the code to replay a failure.
func TestAgainstRedisRandom(t *testing.T) {
	ref := startReference(t)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, seed))
	var codes []string
	for range 150 {
		codes = append(codes,
			"return cjson.decode("+luaQuote(pieces(r, jsonPieces, 12))+")",
			"return cmsgpack.unpack("+luaQuote(pieces(r, msgpackPieces, 10))+")",
			fmt.Sprintf("return cmsgpack.unpack_limit(%s, %d, %d)", luaQuote(pieces(r, msgpackPieces, 6)), r.IntN(4), r.IntN(6)),
			fmt.Sprintf("return struct.unpack(%s, %s)", luaQuote(pieces(r, structPieces, 6)), luaQuote(randomBytes(r, 40))),
			"return struct.size("+luaQuote(pieces(r, structPieces, 6))+")",
			fmt.Sprintf("return bit.%s(%s, %s)", bitOps[r.IntN(len(bitOps))], pick(r, bitNumbers), pick(r, bitNumbers)),
			fmt.Sprintf("return struct.pack(%s, %s, %s, %s)", luaQuote(pieces(r, structPieces, 4)),
				pick(r, structArgs), pick(r, structArgs), pick(r, structArgs)),
		)
	}
	for _, code := range codes {
		want := ref(code)
		if got := runOurs(t, code); got != want {
			t.Errorf("%s\n ours:  %s\n redis: %s", code, got, want)
		}
	}
}

func randomBytes(r *rand.Rand, n int) string {
	b := make([]byte, r.IntN(n))
	for i := range b {
		if r.IntN(3) == 0 {
			b[i] = 0
		} else {
			b[i] = byte(r.IntN(256))
		}
	}
	return string(b)
}

// tableGen writes random Lua table constructors with at most one value
// that an encoder refuses, so that which error comes first never depends
// on the order tables are walked in (which differs from C Lua's).
type tableGen struct {
	r   *rand.Rand
	bad bool
}

var (
	goodScalars = []string{"0", "1", "-1", "0.5", "-0", "1e20", "1/3", "2^53", "2^63", "-2^63", "123456789012345678",
		"3.14159265358979", "1e-7", "255", "65536", "-129", `""`, `"abc"`, `"a/b\"c\\\n\0\127\200"`,
		"string.rep('x', 40)", "true", "false", "cjson.null"}
	badScalars = []string{"1/0", "-1/0", "0/0", "string.len"}
)

func (g *tableGen) value(depth int) string {
	if depth < 4 && g.r.IntN(3) == 0 {
		return g.table(depth + 1)
	}
	if !g.bad && g.r.IntN(25) == 0 {
		g.bad = true
		return badScalars[g.r.IntN(len(badScalars))]
	}
	return goodScalars[g.r.IntN(len(goodScalars))]
}

func (g *tableGen) table(depth int) string {
	var items []string
	switch g.r.IntN(4) {
	case 0: // an array, maybe with holes
		for range g.r.IntN(6) {
			if g.r.IntN(8) == 0 {
				items = append(items, "nil")
			} else {
				items = append(items, g.value(depth))
			}
		}
	case 1: // keys that may or may not make an array
		for range g.r.IntN(4) {
			k := []int{1, 2, 3, 4, 11, 12, 0, -1}[g.r.IntN(8)]
			if k > 10 || k < 1 {
				if g.bad {
					continue
				}
				g.bad = true // sparse, or not an array at all
			}
			items = append(items, fmt.Sprintf("[%d]=%s", k, g.value(depth)))
		}
	case 2: // one named or numbered key: an object written in one order
		k := []string{"a", `["x y"]`, "[1.5]", "[2^40]"}[g.r.IntN(4)]
		items = append(items, k+"="+g.value(depth))
	default:
		if !g.bad && g.r.IntN(4) == 0 {
			g.bad = true
			items = append(items, "[true]=1")
		}
	}
	return "{" + strings.Join(items, ",") + "}"
}

// TestAgainstRedisRandomEncode encodes random tables in both and compares
// the length of the output and what it decodes back to.
func TestAgainstRedisRandomEncode(t *testing.T) {
	ref := startReference(t)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, seed))
	for range 150 {
		g := &tableGen{r: r}
		tbl := g.value(0)
		for _, code := range []string{
			"local ok, s = pcall(cjson.encode, " + tbl + ") if not ok then return s end return #s, cjson.decode(s)",
			"local s = cmsgpack.pack(" + tbl + ") return #s, cmsgpack.unpack(s)",
		} {
			want := ref(code)
			if got := runOurs(t, code); got != want {
				t.Errorf("%s\n ours:  %s\n redis: %s", code, got, want)
			}
		}
	}
}
