package rconv

import (
	"math"
	"strconv"
)

// AppendFloat appends f as Redis 7.2+'s d2string prints a double: the form
// of ZSCORE, ZINCRBY, ZRANGE WITHSCORES, GEODIST, and RESP3 double replies.
//
//   - NaN is "nan", infinities "inf" and "-inf", zeros "0" and "-0".
//   - An integral value within ±2^62 prints as an integer: 3, -17,
//     4611686018427387904.
//   - Anything else prints fpconv_dtoa's Grisu2 digits, in plain notation when
//     short (1.5, 0.001, 12345678901234567000) and in scientific notation
//     otherwise, with a signed exponent and no leading zeros: 1e+100,
//     1.5e-7, 1.2345678901234567e+6.
//
// Redis 7.0 differs: its replies use "%.17g" (0.10000000000000001, 1e+100,
// and 1e+17 where 7.2 prints 100000000000000000). This follows 7.2+.
func AppendFloat(dst []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "nan"...)
	case math.IsInf(f, 1):
		return append(dst, "inf"...)
	case math.IsInf(f, -1):
		return append(dst, "-inf"...)
	case f == 0:
		if math.Signbit(f) {
			return append(dst, "-0"...)
		}
		return append(dst, '0')
	}
	// d2string's double2ll: the bounds are (double)(±LLONG_MAX/2), which
	// round to ±2^62.
	const limit = 1 << 62
	if f >= -limit && f <= limit {
		if i := int64(f); float64(i) == f {
			return strconv.AppendInt(dst, i, 10)
		}
	}
	if f < 0 {
		dst = append(dst, '-')
		f = -f
	}
	var digits [18]byte
	n, K := grisu2(f, &digits)
	return emitDigits(dst, digits[:n], K)
}

// emitDigits lays out digits * 10^K as fpconv's emit_digits does.
func emitDigits(dst, digits []byte, K int) []byte {
	n := len(digits)
	exp := K + n - 1 // decimal exponent of the first digit
	absExp := exp
	if absExp < 0 {
		absExp = -absExp
	}

	// An integer with few enough trailing zeros: digits then zeros.
	if K >= 0 && absExp < n+7 {
		dst = append(dst, digits...)
		for range K {
			dst = append(dst, '0')
		}
		return dst
	}

	// A fraction, unless it would need many zeros.
	if K < 0 && (K > -7 || absExp < 4) {
		point := n + K // digits before the decimal point
		if point <= 0 {
			dst = append(dst, '0', '.')
			for range -point {
				dst = append(dst, '0')
			}
			return append(dst, digits...)
		}
		dst = append(dst, digits[:point]...)
		dst = append(dst, '.')
		return append(dst, digits[point:]...)
	}

	// Scientific notation: d[.ddd]e±x, exponent without leading zeros.
	dst = append(dst, digits[0])
	if n > 1 {
		dst = append(dst, '.')
		dst = append(dst, digits[1:]...)
	}
	dst = append(dst, 'e')
	if exp < 0 {
		dst = append(dst, '-')
	} else {
		dst = append(dst, '+')
	}
	return strconv.AppendInt(dst, int64(absExp), 10)
}
