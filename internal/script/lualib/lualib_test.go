package lualib

import (
	"math"
	"testing"
)

// TestStrtod pins the strtod prefix rules that cjson.decode and Lua's
// string-to-number conversion rest on (glibc's behaviour).
func TestStrtod(t *testing.T) {
	for _, c := range []struct {
		in   string
		want float64
		n    int
	}{
		{"1", 1, 1}, {"-1.5e3x", -1500, 6}, {"1.", 1, 2}, {".5", 0.5, 2}, {".", 0, 0}, {"-", 0, 0},
		{"1e", 1, 1}, {"1e+", 1, 1}, {"1e+2", 100, 4}, {"+7", 7, 2}, {"007", 7, 3},
		{"0x1F", 31, 4}, {"0x", 0, 1}, {"0x.8", 0.5, 4}, {"0x1p4", 16, 5}, {"0x1p", 1, 3}, {"-0X10", -16, 5},
		{"inf", math.Inf(1), 3}, {"-Infinity", math.Inf(-1), 9}, {"INFIN", math.Inf(1), 3},
		{"1e400", math.Inf(1), 5}, {"1e-400", 0, 6}, {"abc", 0, 0}, {"", 0, 0},
	} {
		got, n := strtod(c.in)
		if n != c.n || got != c.want {
			t.Errorf("strtod(%q) = %v, %d; want %v, %d", c.in, got, n, c.want, c.n)
		}
	}
	for _, in := range []string{"nan", "-NaN", "nan(123)x"} {
		if got, n := strtod(in); !math.IsNaN(got) || n == 0 {
			t.Errorf("strtod(%q) = %v, %d; want NaN", in, got, n)
		}
	}
}

// TestStr2number pins Lua 5.1's string-to-number conversion.
func TestStr2number(t *testing.T) {
	for _, c := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{" 10 ", 10, true}, {"0x10", 16, true}, {"10x", 0, false}, {"", 0, false}, {"  ", 0, false},
		{"5\x00junk", 5, true}, {"1e2", 100, true}, {"- 1", 0, false},
	} {
		got, ok := str2number(c.in)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("str2number(%q) = %v, %v; want %v, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

// TestFormatG pins %.14g, the format of Lua 5.1 and of cjson's numbers.
func TestFormatG(t *testing.T) {
	for _, c := range []struct {
		f    float64
		prec int
		want string
	}{
		{1, 14, "1"}, {0.1, 14, "0.1"}, {1e20, 14, "1e+20"}, {1e-5, 14, "1e-05"}, {123456789012345678, 14, "1.2345678901235e+17"},
		{100, 2, "1e+02"}, {1.0 / 3, 3, "0.333"}, {math.Copysign(0, -1), 14, "-0"}, {math.Inf(1), 14, "inf"},
		{math.Inf(-1), 14, "-inf"}, {math.NaN(), 14, "nan"}, {1 << 53, 14, "9.007199254741e+15"},
	} {
		if got := formatG(c.f, c.prec); got != c.want {
			t.Errorf("formatG(%v, %d) = %q, want %q", c.f, c.prec, got, c.want)
		}
	}
}

// TestFloatConversions pins the x86-64 conversions the C libraries rely on.
func TestFloatConversions(t *testing.T) {
	if got := f2i64(math.NaN()); got != math.MinInt64 {
		t.Errorf("f2i64(NaN) = %d", got)
	}
	if got := f2i64(1e30); got != math.MinInt64 {
		t.Errorf("f2i64(1e30) = %d", got)
	}
	if got := f2i64(-2.7); got != -2 {
		t.Errorf("f2i64(-2.7) = %d", got)
	}
	for _, c := range []struct {
		f    float64
		want uint64
	}{{0, 0}, {2.9, 2}, {1 << 63, 1 << 63}, {1 << 64, 0}, {math.NaN(), 1 << 63}, {-1, math.MaxUint64}} {
		if got := f2u64(c.f); got != c.want {
			t.Errorf("f2u64(%v) = %#x, want %#x", c.f, got, c.want)
		}
	}
	if got := f2i32(3e9); got != math.MinInt32 {
		t.Errorf("f2i32(3e9) = %d", got)
	}
}
