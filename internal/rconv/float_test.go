package rconv

import (
	"errors"
	"math"
	"math/big"
	"strconv"
	"strings"
	"testing"
)

var (
	inf    = math.Inf(1)
	negInf = math.Inf(-1)
	negZ   = math.Copysign(0, -1)
)

func TestParseFloat(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		ok   bool
	}{
		{"0", 0, true},
		{"-0", negZ, true},
		{"+0", 0, true},
		{"0.000", 0, true},
		{"0e999999999999999999999", 0, true}, // zero never overflows
		{"1", 1, true},
		{"-1", -1, true},
		{"+1", 1, true},
		{"1.5", 1.5, true},
		{".5", 0.5, true},
		{"+.5", 0.5, true},
		{"-.5e-3", -0.0005, true},
		{"5.", 5, true},
		{"1.e3", 1000, true},
		{"1e3", 1000, true},
		{"1E+3", 1000, true},
		{"1e-3", 0.001, true},
		{"0.1", 0.1, true},
		{"00012", 12, true},
		{"3.14159265358979323846264338327950288", math.Pi, true},
		{"1.7976931348623157e308", math.MaxFloat64, true},
		{"1.7976931348623158e308", math.MaxFloat64, true}, // rounds down
		{"1.7976931348623159e308", 0, false},              // rounds to +Inf
		{"1e308", 1e308, true},
		{"1e309", 0, false},
		{"1e400", 0, false},
		{"-1e400", 0, false},
		{"1e99999999999999999999", 0, false},
		{"4e-324", 5e-324, true}, // subnormal: ERANGE but nonzero
		{"2.5e-324", 5e-324, true},
		{"2.4703282292062328e-324", 5e-324, true}, // just above half the smallest
		{"2.4703282292062327e-324", 0, false},     // just below rounds to zero
		{"2e-324", 0, false},
		{"1e-400", 0, false},
		{"1e-99999999999999999999", 0, false},
		{"2.2250738585072014e-308", 2.2250738585072014e-308, true},

		// Hexadecimal, as strtod reads it.
		{"0x10", 16, true},
		{"0X10", 16, true},
		{"-0x10", -16, true},
		{"0x1p3", 8, true},
		{"0x1P-2", 0.25, true},
		{"0x1.8", 1.5, true},
		{"0x.8", 0.5, true},
		{"0x8.", 8, true},
		{"0xA.8p1", 21, true},
		{"0x1e5", 0x1e5, true}, // 'e' is a hex digit
		{"0x0", 0, true},
		{"0x0p99999999999", 0, true},
		{"0x1p-1074", 5e-324, true},
		{"0x1.8p-1075", 5e-324, true}, // above the halfway point
		{"0x1p-1075", 0, false},       // exactly halfway rounds to even zero
		{"0x1.fffffffffffffp1023", math.MaxFloat64, true},
		{"0x1p1024", 0, false},
		{"0x1.fffffffffffff8p1023", 0, false}, // halfway to 2^1024 rounds up
		{"0x", 0, false},
		{"0x.", 0, false},
		{"0xp1", 0, false},
		{"0x1p", 0, false},
		{"0x1p+", 0, false},
		{"0x1g", 0, false},
		{"0x1e", 30, true},
		{"0x_1", 0, false},

		// Infinities.
		{"inf", inf, true},
		{"+inf", inf, true},
		{"-inf", negInf, true},
		{"INF", inf, true},
		{"Inf", inf, true},
		{"infinity", inf, true},
		{"-Infinity", negInf, true},
		{"INFINITY", inf, true},
		{"infinit", 0, false},
		{"infinityy", 0, false},
		{"in", 0, false},
		{"inf ", 0, false},

		// NaN is always refused.
		{"nan", 0, false},
		{"NaN", 0, false},
		{"-nan", 0, false},
		{"nan(123)", 0, false},

		// Not numbers in strtod's syntax, or not all of the argument.
		{"", 0, false},
		{" 1", 0, false},
		{"\t1", 0, false},
		{"\n1", 0, false},
		{"1 ", 0, false},
		{"1\x00", 0, false},
		{"\x001", 0, false},
		{"+", 0, false},
		{"-", 0, false},
		{".", 0, false},
		{"-.", 0, false},
		{"e5", 0, false},
		{".e5", 0, false},
		{"1e", 0, false},
		{"1e+", 0, false},
		{"1e-", 0, false},
		{"1e5.5", 0, false},
		{"1.2.3", 0, false},
		{"++1", 0, false},
		{"+-1", 0, false},
		{"1_000", 0, false},
		{"1,5", 0, false},
		{"0b101", 0, false},
		{"1f", 0, false},
		{"abc", 0, false},
	}
	for _, tt := range tests {
		got, ok := ParseFloat([]byte(tt.in))
		if ok != tt.ok || math.Float64bits(got) != math.Float64bits(tt.want) {
			t.Errorf("ParseFloat(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestParseFloatDoesNotAllocate(t *testing.T) {
	for _, s := range []string{"3.14159", "-1e-5", "inf", "12345678901234567890"} {
		b := []byte(s)
		if n := testing.AllocsPerRun(100, func() { ParseFloat(b) }); n != 0 {
			t.Errorf("ParseFloat(%q) allocates %v times", s, n)
		}
		if n := testing.AllocsPerRun(100, func() { ParseLongDouble(b) }); n != 0 {
			t.Errorf("ParseLongDouble(%q) allocates %v times", s, n)
		}
	}
}

func TestParseLongDouble(t *testing.T) {
	long := strings.Repeat("0", maxLongDoubleChars-2) + "1"
	tests := []struct {
		in   string
		want float64
		ok   bool
	}{
		{"0", 0, true},
		{"-0", negZ, true},
		{"1", 1, true},
		{"-2.5", -2.5, true},
		{"+1", 1, true},
		{".5", 0.5, true},
		{"5.", 5, true},
		{"1e5", 1e5, true},
		{"0x10", 16, true},
		{"0x1p3", 8, true},
		{"inf", inf, true}, // INCRBYFLOAT refuses the sum, not the argument
		{"-inf", negInf, true},
		{"Infinity", inf, true},

		// Beyond float64, within long double: accepted, value saturated.
		{"1e400", inf, true},
		{"-1e400", negInf, true},
		{"1e4932", inf, true},
		{"1.18973149535723176505e4932", inf, true},
		{"1e-400", 0, true},
		{"-1e-400", negZ, true},
		{"1e-4950", 0, true},
		{"1.8225997659412373013e-4951", 0, true}, // just above half the smallest subnormal
		{"0x1.0000001p-16446", 0, true},
		{"0x1p-16445", 0, true},
		{"0x1.fffffffffffffffep16383", inf, true}, // the largest long double
		{"0x1.fffffffffffffffefp16383", inf, true},

		// Beyond long double.
		{"1.18973149535723176506e4932", 0, false},
		{"1.2e4932", 0, false},
		{"1e5000", 0, false},
		{"0x1.ffffffffffffffffp16383", 0, false}, // halfway to 2^16384
		{"0x1p16384", 0, false},
		{"1.8225997659412373012e-4951", 0, false},
		{"1e-4952", 0, false},
		{"0x1p-16446", 0, false}, // halfway to the smallest rounds to zero
		{"1e-99999999999", 0, false},

		// Length: the argument plus its NUL must fit in 5 KiB.
		{long, 1, true},
		{long + "0", 0, false},

		// Syntax, as for ParseFloat.
		{"", 0, false},
		{" 1", 0, false},
		{"1 ", 0, false},
		{"nan", 0, false},
		{"-nan", 0, false},
		{"1e", 0, false},
		{"0x", 0, false},
		{"1\x00", 0, false},
		{"abc", 0, false},
	}
	for _, tt := range tests {
		got, ok := ParseLongDouble([]byte(tt.in))
		if ok != tt.ok || math.Float64bits(got) != math.Float64bits(tt.want) {
			t.Errorf("ParseLongDouble(%.40q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// fuzzFloatSeeds covers each branch of the scanner.
var fuzzFloatSeeds = []string{
	"0", "-0", "1", "-1.5", ".5", "5.", "1e5", "1E-5", "1e", "1e+", "e1", ".",
	"+", "-", "", " 1", "1 ", "0x10", "0x1.8p3", "0x", "0xp1", "0x1p", "inf",
	"-Infinity", "infinit", "nan", "NaN(1)", "1e400", "1e-400", "4e-324",
	"2e-324", "1e4932", "1e5000", "0x1p-16446", "1_0", "1\x00",
}

func FuzzParseFloat(f *testing.F) {
	for _, s := range fuzzFloatSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, ok := ParseFloat(b)
		if want, wantOK, known := modelStrtod(string(b), false); known && (ok != wantOK || (ok && math.Float64bits(v) != math.Float64bits(want))) {
			t.Fatalf("ParseFloat(%q) = %v, %v; model says %v, %v", b, v, ok, want, wantOK)
		}
		if ok {
			out := AppendFloat(nil, v)
			back, ok2 := ParseFloat(out)
			if !ok2 || math.Float64bits(back) != math.Float64bits(v) {
				t.Fatalf("ParseFloat(AppendFloat(%v) = %q) = %v, %v", v, out, back, ok2)
			}
		}
	})
}

func FuzzParseLongDouble(f *testing.F) {
	for _, s := range fuzzFloatSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, ok := ParseLongDouble(b)
		if math.IsNaN(v) {
			t.Fatalf("ParseLongDouble(%q) = NaN", b)
		}
		want, wantOK, known := modelStrtod(string(b), true)
		if known && (ok != wantOK || (ok && math.Float64bits(v) != math.Float64bits(want))) {
			t.Fatalf("ParseLongDouble(%q) = %v, %v; model says %v, %v", b, v, ok, want, wantOK)
		}
		// Everything float64 accepts, long double accepts too, and to the
		// same value.
		if f, ok64 := ParseFloat(b); ok64 && len(b) < maxLongDoubleChars && (!ok || math.Float64bits(f) != math.Float64bits(v)) {
			t.Fatalf("ParseFloat(%q) = %v but ParseLongDouble = %v, %v", b, f, v, ok)
		}
	})
}

// modelStrtod is a second reading of strtod's rules built on strconv and
// math/big: Go's float syntax, with the parts strtod lacks (underscores,
// "0b"/"0o" prefixes, NaN) filtered out and the part Go lacks (a hex
// mantissa without 'p') added. With longDouble it applies string2ld's length
// limit and the 80-bit range instead of float64's. known is false for the
// rare inputs whose exponent is too long for the model to evaluate cheaply.
func modelStrtod(s string, longDouble bool) (v float64, ok, known bool) {
	if s == "" || strings.ContainsAny(s, "_ \t\n\v\f\r\x00") {
		return 0, false, true
	}
	if longDouble && len(s) >= maxLongDoubleChars {
		return 0, false, true
	}
	body := strings.TrimLeft(s, "+-")
	if len(s)-len(body) > 1 {
		return 0, false, true
	}
	lower := strings.ToLower(body)
	switch lower {
	case "inf", "infinity":
		f, _ := strconv.ParseFloat(s[:len(s)-len(body)]+"inf", 64)
		return f, true, true
	}
	if strings.HasPrefix(lower, "n") || strings.HasPrefix(lower, "i") {
		return 0, false, true
	}
	hex := strings.HasPrefix(lower, "0x")
	expMark := "e"
	if hex {
		expMark = "p"
		digits := strings.TrimPrefix(lower, "0x")
		if strings.Trim(digits, "0123456789abcdef.p+-") != "" {
			return 0, false, true
		}
		if !strings.Contains(digits, "p") {
			s += "p0"
		}
	} else if strings.Trim(lower, "0123456789.e+-") != "" {
		return 0, false, true
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !isRangeErr(err) {
		return 0, false, true
	}
	zero := mantissaIsZero(lower, hex)
	if zero {
		return f, true, true
	}
	if !longDouble {
		if err != nil || f == 0 {
			return 0, false, true
		}
		return f, true, true
	}
	if i := strings.LastIndex(lower, expMark); i >= 0 && len(strings.TrimLeft(lower[i+1:], "+-0")) > 5 {
		return 0, false, false
	}
	x, okRat := new(big.Rat).SetString(body)
	if !okRat {
		return 0, false, true
	}
	x.Abs(x)
	maxLD := new(big.Rat).SetInt(new(big.Int).Lsh(new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 65), big.NewInt(1)), 16319))
	halfMin := new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), 16446))
	if x.Cmp(maxLD) >= 0 || x.Cmp(halfMin) <= 0 {
		return 0, false, true
	}
	return f, true, true
}

func isRangeErr(err error) bool {
	return errors.Is(err, strconv.ErrRange)
}

// mantissaIsZero reports whether every digit before the exponent is zero.
func mantissaIsZero(lower string, hex bool) bool {
	m := lower
	if hex {
		m = strings.TrimPrefix(m, "0x")
		if i := strings.IndexByte(m, 'p'); i >= 0 {
			m = m[:i]
		}
	} else if i := strings.IndexByte(m, 'e'); i >= 0 {
		m = m[:i]
	}
	return strings.Trim(m, "0.") == ""
}
