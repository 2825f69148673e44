package rconv

import (
	"math"
	"math/big"
	"strconv"
)

// maxLongDoubleChars is MAX_LONG_DOUBLE_CHARS: string2ld copies its input
// into a buffer of this size and rejects anything that does not fit with its
// terminating NUL.
const maxLongDoubleChars = 5 * 1024

// ParseFloat parses b as Redis's string2d (getDoubleFromObject) does: the
// whole of b must be one number in glibc strtod's syntax, with no leading
// whitespace, and must neither overflow to infinity nor underflow to zero.
//
// Accepted: decimal ("1", "-.5", "1.e3", "+2E-3"), hexadecimal ("0x10",
// "0x1.8p3", binary exponent optional), and "inf"/"infinity" in any case with
// an optional sign. Rejected: "", spaces anywhere, trailing bytes, NaN in any
// spelling, "1e400", and nonzero values that round to zero such as "1e-400".
// Subnormal results such as "4e-324" are accepted.
func ParseFloat(b []byte) (float64, bool) {
	n, ok := scanFloat(b)
	if !ok {
		return 0, false
	}
	switch {
	case n.inf:
		return n.signed(math.Inf(1)), true
	case n.zero:
		return n.signed(0), true
	case n.hex:
		// Exact cut-offs are left to the conversion; these bounds only keep
		// absurd exponents away from it.
		if n.mag > 1030 || n.mag < -1080 {
			return 0, false
		}
		f, ok := hexToFloat64(b)
		if !ok || math.IsInf(f, 0) || f == 0 {
			return 0, false
		}
		return f, true
	default:
		if n.mag > 310 || n.mag < -330 {
			return 0, false
		}
		// Already known to be in strtod's syntax, which is a subset of Go's
		// for decimal numbers, and correctly rounded by both.
		f, err := strconv.ParseFloat(string(b), 64)
		if err != nil || f == 0 {
			return 0, false
		}
		return f, true
	}
}

// ParseLongDouble decides like Redis's string2ld, the parser of INCRBYFLOAT
// and HINCRBYFLOAT arguments and values: the syntax of ParseFloat, at most
// 5119 bytes, no NaN, and the range of an x87 80-bit long double. Infinity is
// accepted (INCRBYFLOAT then refuses the result, not the argument).
//
// Caveat: the value is returned as the nearest float64. Redis keeps a long
// double, so an accepted argument beyond float64's range (such as "1e400",
// which INCRBYFLOAT stores as a 401-digit integer) comes back as ±Inf, and
// one below it (such as "1e-400") as ±0.
func ParseLongDouble(b []byte) (float64, bool) {
	if len(b) == 0 || len(b) >= maxLongDoubleChars {
		return 0, false
	}
	n, ok := scanFloat(b)
	if !ok {
		return 0, false
	}
	switch {
	case n.inf:
		return n.signed(math.Inf(1)), true
	case n.zero:
		return n.signed(0), true
	}
	if !longDoubleInRange(b, n) {
		return 0, false
	}
	if n.hex {
		switch {
		case n.mag > 1030:
			return n.signed(math.Inf(1)), true
		case n.mag < -1080:
			return n.signed(0), true
		}
		return hexToFloat64(b)
	}
	// ErrRange only reports that float64 overflowed to ±Inf, which is the
	// documented result.
	f, _ := strconv.ParseFloat(string(b), 64)
	return f, true
}

// The x87 extended format: a 64-bit significand with an explicit integer
// bit, exponents from -16382 (-16445 for subnormals) to 16383.
const (
	ldMaxExp2      = 16384  // every finite value is below 2^16384
	ldHalfMinExp2  = -16446 // half the smallest subnormal, which rounds to 0
	ldMaxDecExp    = 4933   // max ≈ 1.19e4932 lies in [10^4932, 10^4933)
	ldMinDecExpLow = -4950  // 2^-16446 ≈ 1.82e-4951 lies in [10^-4951, 10^-4950)
)

// longDoubleInRange reports whether strtold would return a finite, nonzero
// value for the nonzero number b, i.e. neither overflow nor underflow to zero.
// The magnitude estimate settles all but numbers next to the limits, which
// are compared exactly.
func longDoubleInRange(b []byte, n number) bool {
	if n.hex {
		// The value lies in [2^(mag-4), 2^mag).
		switch {
		case n.mag-4 >= ldMaxExp2:
			return false
		case n.mag <= ldHalfMinExp2:
			return false
		case n.mag <= ldMaxExp2-1 && n.mag-4 > ldHalfMinExp2:
			return true
		}
	} else {
		// The value lies in [10^(mag-1), 10^mag).
		switch {
		case n.mag > ldMaxDecExp:
			return false
		case n.mag < ldMinDecExpLow:
			return false
		case n.mag < ldMaxDecExp && n.mag > ldMinDecExpLow:
			return true
		}
	}
	x, ok := new(big.Rat).SetString(string(b[n.start:]))
	if !ok {
		// scanFloat accepted it, so this cannot happen; refuse rather than
		// guess.
		return false
	}
	// Round to nearest, ties to even: the largest finite value has an odd
	// significand, so the halfway point above it already overflows...
	overflow := new(big.Rat).SetFrac(
		new(big.Int).Lsh(new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 65), big.NewInt(1)), 16319),
		big.NewInt(1))
	if x.Cmp(overflow) >= 0 {
		return false
	}
	// ...and half the smallest subnormal rounds to the even neighbour, zero.
	underflow := new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), -ldHalfMinExp2))
	return x.Cmp(underflow) > 0
}

// hexToFloat64 converts a hexadecimal number accepted by scanFloat, with
// correct rounding (big.Rat reads strtod's hex syntax, 'p' optional). It
// reports false only if the two syntaxes ever disagreed.
func hexToFloat64(b []byte) (float64, bool) {
	x, ok := new(big.Rat).SetString(string(b))
	if !ok {
		return 0, false
	}
	f, _ := x.Float64()
	return f, true
}

// number describes a string that scanFloat accepted.
type number struct {
	neg  bool
	inf  bool
	hex  bool
	zero bool // every mantissa digit is 0
	// start is the index of the first byte after the sign.
	start int
	// mag places a nonzero value: in [10^(mag-1), 10^mag) for decimal, in
	// [2^(mag-4), 2^mag) for hexadecimal. It saturates far outside any
	// float's range.
	mag int64
}

func (n number) signed(f float64) float64 {
	if n.neg {
		return -f
	}
	return f
}

// expLimit bounds exponents while scanning; anything past it is far outside
// every supported range, and the bound keeps the arithmetic from overflowing.
const expLimit = 1 << 40

// scanFloat reports whether all of b is one number in the syntax glibc's
// strtod/strtold accept in the "C" locale, and describes it. NaN is reported
// as not a number, since every Redis caller rejects it.
func scanFloat(b []byte) (number, bool) {
	var n number
	i := 0
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		n.neg = b[i] == '-'
		i++
	}
	n.start = i
	rest := b[i:]
	if len(rest) == 0 {
		return n, false
	}
	switch rest[0] | 0x20 {
	case 'i':
		n.inf = equalFold(rest, "inf") || equalFold(rest, "infinity")
		return n, n.inf
	case 'n':
		return n, false
	}
	if len(rest) >= 2 && rest[0] == '0' && rest[1]|0x20 == 'x' {
		n.hex = true
		return n, scanHex(rest[2:], &n)
	}
	return n, scanDecimal(rest, &n)
}

// scanDecimal scans digits, an optional fraction and an optional exponent.
func scanDecimal(s []byte, n *number) bool {
	i, digits := 0, 0
	n.zero = true
	intDigits, lead := 0, 0
	for ; i < len(s) && isDigit(s[i]); i++ {
		if n.zero && s[i] != '0' {
			n.zero = false
			lead = intDigits
		}
		digits++
		intDigits++
	}
	if !n.zero {
		n.mag = int64(intDigits - lead)
	}
	if i < len(s) && s[i] == '.' {
		i++
		frac := 0
		for ; i < len(s) && isDigit(s[i]); i++ {
			if n.zero && s[i] != '0' {
				n.zero = false
				n.mag = -int64(frac)
			}
			digits++
			frac++
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && s[i]|0x20 == 'e' {
		exp, used, ok := scanExponent(s[i+1:])
		if !ok {
			// strtod would stop before the 'e', leaving it unparsed.
			return false
		}
		i += 1 + used
		n.mag += exp
	}
	return i == len(s)
}

// scanHex scans what follows "0x": hex digits, an optional fraction and an
// optional binary exponent introduced by 'p'.
func scanHex(s []byte, n *number) bool {
	i, digits := 0, 0
	n.zero = true
	intDigits, lead := 0, 0
	for ; i < len(s) && isHexDigit(s[i]); i++ {
		if n.zero && s[i] != '0' {
			n.zero = false
			lead = intDigits
		}
		digits++
		intDigits++
	}
	if !n.zero {
		n.mag = 4 * int64(intDigits-lead)
	}
	if i < len(s) && s[i] == '.' {
		i++
		frac := 0
		for ; i < len(s) && isHexDigit(s[i]); i++ {
			if n.zero && s[i] != '0' {
				n.zero = false
				n.mag = -4 * int64(frac)
			}
			digits++
			frac++
		}
	}
	if digits == 0 {
		// strtod reads just the "0" of "0x" and stops.
		return false
	}
	if i < len(s) && s[i]|0x20 == 'p' {
		exp, used, ok := scanExponent(s[i+1:])
		if !ok {
			return false
		}
		i += 1 + used
		n.mag += exp
	}
	return i == len(s)
}

// scanExponent reads an optionally signed run of decimal digits at the start
// of s, saturating its value at ±expLimit.
func scanExponent(s []byte) (exp int64, used int, ok bool) {
	neg := false
	if used < len(s) && (s[used] == '+' || s[used] == '-') {
		neg = s[used] == '-'
		used++
	}
	start := used
	for ; used < len(s) && isDigit(s[used]); used++ {
		if exp < expLimit {
			exp = exp*10 + int64(s[used]-'0')
		}
	}
	if used == start {
		return 0, 0, false
	}
	exp = min(exp, expLimit)
	if neg {
		exp = -exp
	}
	return exp, used, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHexDigit(c byte) bool {
	return isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'f')
}

// equalFold compares b with the lower-case ASCII word w, ignoring case.
func equalFold(b []byte, w string) bool {
	if len(b) != len(w) {
		return false
	}
	for i := range b {
		if b[i]|0x20 != w[i] {
			return false
		}
	}
	return true
}
