package rconv

import (
	"math/big"
	"strconv"
)

// LongDouble is a value of the x87 80-bit extended type, Redis's long
// double, in which INCRBYFLOAT and HINCRBYFLOAT add: a 64-bit significand,
// so that 1000 + 0.1 is 1000.09999999999999998 there where a float64 gives
// 1000.1. The zero value is 0.
//
// Integers are held as an int64 and added without math/big (and without
// allocating) while the sum fits: every int64 is exact in 64 bits.
//
// Values below the smallest normal (about 3.4e-4932) keep the full 64 bits
// here where the hardware has fewer; they print as 0 all the same, and are
// far below half an ulp of any value that does not.
type LongDouble struct {
	// f, when not nil, is the value, with 64 bits of precision; when nil
	// the value is i.
	f *big.Float
	i int64
	// inf is +1 or -1 for an infinity, which neither f nor i holds.
	inf int8
}

// ldPrec is the x87 significand width.
const ldPrec = 64

// ParseLongDoubleExact reads b as Redis's string2ld does, with
// ParseLongDouble's accept and reject rules, and returns the long double
// strtold gives: the exact value rounded to 64 significant bits, nearest
// even.
func ParseLongDoubleExact(b []byte) (LongDouble, bool) {
	if len(b) == 0 || len(b) >= maxLongDoubleChars {
		return LongDouble{}, false
	}
	n, ok := scanFloat(b)
	switch {
	case !ok:
		return LongDouble{}, false
	case n.inf:
		if n.neg {
			return LongDouble{inf: -1}, true
		}
		return LongDouble{inf: 1}, true
	case n.zero:
		return LongDouble{}, true
	case !longDoubleInRange(b, n):
		return LongDouble{}, false
	}
	if i, ok := ParseInt(b); ok {
		return LongDouble{i: i}, true
	}
	// big.Rat reads strtod's decimal and hexadecimal syntax exactly (the
	// range check above relies on the same), and SetRat divides exactly
	// held operands, so the one rounding is the correct one.
	r, ok := new(big.Rat).SetString(string(b[n.start:]))
	if !ok {
		return LongDouble{}, false
	}
	if n.neg {
		r.Neg(r)
	}
	return LongDouble{f: new(big.Float).SetPrec(ldPrec).SetRat(r)}, true
}

// LongDoubleFromInt is the long double of i, exactly.
func LongDoubleFromInt(i int64) LongDouble { return LongDouble{i: i} }

// big returns x's value as a big.Float; x must be finite.
func (x LongDouble) big() *big.Float {
	if x.f != nil {
		return x.f
	}
	return new(big.Float).SetPrec(ldPrec).SetInt64(x.i)
}

// IsInf reports whether x is an infinity.
func (x LongDouble) IsInf() bool { return x.inf != 0 }

// Add returns x + y rounded as the x87 rounds, and false when the sum is
// not finite: an infinite operand, infinities of opposite signs (NaN), or
// an overflow past the largest long double, which is what Redis's isnan
// and isinf checks after the addition reject.
func (x LongDouble) Add(y LongDouble) (LongDouble, bool) {
	if x.inf != 0 || y.inf != 0 {
		return LongDouble{}, false
	}
	if x.f == nil && y.f == nil {
		// The int64 sum wraps only when both signs agree and its own
		// differs; then math/big takes over.
		if s := x.i + y.i; (x.i < 0) != (y.i < 0) || (s < 0) == (x.i < 0) {
			return LongDouble{i: s}, true
		}
	}
	z := new(big.Float).SetPrec(ldPrec).Add(x.big(), y.big())
	// Every finite long double is below 2^16384, whose MantExp is 16385.
	if z.MantExp(nil) > 16384 {
		return LongDouble{}, false
	}
	return LongDouble{f: z}, true
}

// AppendHuman appends x as ld2string's human mode prints it (INCRBYFLOAT's
// and HINCRBYFLOAT's reply and stored value): "%.17Lf", then trailing zeros
// and a trailing point removed, and "-0" made "0". Infinities print as "inf"
// and "-inf".
func (x LongDouble) AppendHuman(dst []byte) []byte {
	switch {
	case x.inf > 0:
		return append(dst, "inf"...)
	case x.inf < 0:
		return append(dst, "-inf"...)
	case x.f == nil:
		return strconv.AppendInt(dst, x.i, 10)
	}
	if x.f.IsInt() {
		if i, acc := x.f.Int64(); acc == big.Exact {
			return strconv.AppendInt(dst, i, 10)
		}
	}
	start := len(dst)
	// Append's 'f' converts the binary value to decimal exactly and rounds
	// half to even, as glibc's printf does in the default rounding mode.
	dst = x.f.Append(dst, 'f', 17)
	for dst[len(dst)-1] == '0' {
		dst = dst[:len(dst)-1]
	}
	if dst[len(dst)-1] == '.' {
		dst = dst[:len(dst)-1]
	}
	if string(dst[start:]) == "-0" {
		dst = append(dst[:start], '0')
	}
	return dst
}
