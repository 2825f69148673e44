package rconv

import (
	"math"
	"math/bits"
)

// Redis 7.2+ prints doubles with fpconv_dtoa (deps/fpconv), an
// implementation of Florian Loitsch's Grisu2. Grisu2 always round-trips but,
// for a small share of doubles, does not produce the shortest or the closest
// digit string, so a generic shortest-digits algorithm (Ryu, strconv) would
// differ from Redis in those last digits. This file reproduces fpconv's
// choices: its boundaries, its cached powers of ten and how it picks one, its
// rounding of 64x64-bit products, and its digit generation and weeding.

// diyFP is an unnormalized binary float f * 2^e with a 64-bit significand.
type diyFP struct {
	f uint64
	e int
}

const (
	cachedPowerCount = 87
	cachedPowerStep  = 8    // decimal exponent between table entries
	cachedPowerFirst = -348 // decimal exponent of cachedPowers[0]

	// The window the scaled upper boundary's binary exponent must fall in,
	// so that its integral part fits in 32 bits.
	grisuMinExp = -60
	grisuMaxExp = -32

	float64HiddenBit = 1 << 52
	float64FracMask  = float64HiddenBit - 1
)

// pow10u64[i] is 10^(19-i).
var pow10u64 = [20]uint64{
	1e19, 1e18, 1e17, 1e16, 1e15, 1e14, 1e13, 1e12, 1e11, 1e10,
	1e9, 1e8, 1e7, 1e6, 1e5, 1e4, 1e3, 1e2, 1e1, 1,
}

// grisu2 writes the decimal digits of the positive finite nonzero v into
// digits and returns their count n and the decimal exponent K: v is about
// digits * 10^K.
func grisu2(v float64, digits *[18]byte) (n, K int) {
	w := float64ToDiy(v)
	lower, upper := boundaries(w)
	w = normalizeDiy(w)

	cp, k := cachedPower(upper.e)
	w = mulDiy(w, cp)
	upper = mulDiy(upper, cp)
	lower = mulDiy(lower, cp)
	// Shrink the interval by one unit on each side to stay safe from the
	// multiplication's rounding error.
	lower.f++
	upper.f--
	return generateDigits(w, upper, lower, digits, -k)
}

func float64ToDiy(v float64) diyFP {
	b := math.Float64bits(v)
	frac := b & float64FracMask
	exp := int((b >> 52) & 0x7ff)
	if exp != 0 {
		return diyFP{frac + float64HiddenBit, exp - 1075}
	}
	return diyFP{frac, -1074}
}

// boundaries returns the midpoints between w and its neighbours, both scaled
// to the upper one's exponent with its significand's top bit set.
func boundaries(w diyFP) (lower, upper diyFP) {
	upper = diyFP{w.f<<1 + 1, w.e - 1}
	for upper.f&(float64HiddenBit<<1) == 0 {
		upper.f <<= 1
		upper.e--
	}
	upper.f <<= 64 - 52 - 2
	upper.e -= 64 - 52 - 2

	// At a power of two the gap below is half the gap above. fpconv applies
	// this to every significand equal to the hidden bit, including the
	// smallest normal, whose lower gap is not in fact smaller.
	shift := 1
	if w.f == float64HiddenBit {
		shift = 2
	}
	lower = diyFP{w.f<<shift - 1, w.e - shift}
	lower.f <<= uint(lower.e - upper.e)
	lower.e = upper.e
	return lower, upper
}

func normalizeDiy(w diyFP) diyFP {
	for w.f&float64HiddenBit == 0 {
		w.f <<= 1
		w.e--
	}
	w.f <<= 64 - 52 - 1
	w.e -= 64 - 52 - 1
	return w
}

// cachedPower picks the cached power of ten c that brings e + c.e + 64 into
// [grisuMinExp, grisuMaxExp], starting from fpconv's estimate so that the
// same entry is chosen when two would do. It returns c and its decimal
// exponent.
func cachedPower(e int) (diyFP, int) {
	const log10Of2 = 0.30102999566398114
	approx := int(float64(-(e + cachedPowerCount)) * log10Of2)
	idx := (approx - cachedPowerFirst) / cachedPowerStep
	for {
		current := e + cachedPowers[idx].e + 64
		switch {
		case current < grisuMinExp:
			idx++
		case current > grisuMaxExp:
			idx--
		default:
			return cachedPowers[idx], cachedPowerFirst + idx*cachedPowerStep
		}
	}
}

// mulDiy returns the high 64 bits of a.f * b.f rounded half up.
func mulDiy(a, b diyFP) diyFP {
	hi, lo := bits.Mul64(a.f, b.f)
	if lo&(1<<63) != 0 {
		hi++
	}
	return diyFP{hi, a.e + b.e + 64}
}

// generateDigits emits digits of upper until the rest lies within the
// interval [lower, upper], then weeds the last digit towards w.
func generateDigits(w, upper, lower diyFP, digits *[18]byte, K int) (int, int) {
	wfrac := upper.f - w.f
	delta := upper.f - lower.f
	shift := uint(-upper.e)
	one := uint64(1) << shift
	part1 := upper.f >> shift
	part2 := upper.f & (one - 1)

	n := 0
	// Integral part: part1 < 2^32 < 10^10, so ten digit positions cover it.
	for kappa, i := 10, 10; kappa > 0; i++ {
		div := pow10u64[i]
		digit := part1 / div
		if digit != 0 || n != 0 {
			digits[n] = byte('0' + digit)
			n++
		}
		part1 -= digit * div
		kappa--
		rest := part1<<shift + part2
		if rest <= delta {
			roundWeed(digits[:n], delta, rest, div<<shift, wfrac)
			return n, K + kappa
		}
	}
	// Fractional part.
	for kappa, unit := 0, 18; ; unit-- {
		part2 *= 10
		delta *= 10
		kappa--
		digit := part2 >> shift
		if digit != 0 || n != 0 {
			digits[n] = byte('0' + digit)
			n++
		}
		part2 &= one - 1
		if part2 < delta {
			roundWeed(digits[:n], delta, part2, one, wfrac*pow10u64[unit])
			return n, K + kappa
		}
	}
}

// roundWeed lowers the last digit while that moves the number closer to w
// and keeps it inside the interval.
func roundWeed(digits []byte, delta, rest, tenKappa, wfrac uint64) {
	last := len(digits) - 1
	for rest < wfrac && delta-rest >= tenKappa &&
		(rest+tenKappa < wfrac || wfrac-rest > rest+tenKappa-wfrac) {
		digits[last]--
		rest += tenKappa
	}
}
