package rconv

import (
	"math"
	"strconv"
)

// maxIntLen is LONG_STR_SIZE - 1: string2ll rejects anything of 21 bytes or
// more before looking at it. No valid int64 needs more than 20.
const maxIntLen = 20

// ParseInt parses b as Redis's string2ll does: an optional '-', then either
// "0" alone or a digit 1-9 followed by digits, with the value in int64 range.
// There is no '+', no leading zero, no "-0", no space and no empty string.
func ParseInt(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > maxIntLen {
		return 0, false
	}
	if len(b) == 1 && b[0] == '0' {
		return 0, true
	}
	neg := b[0] == '-'
	if neg {
		b = b[1:]
		if len(b) == 0 {
			return 0, false
		}
	}
	if b[0] < '1' || b[0] > '9' {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if v > (math.MaxUint64-d)/10 {
			return 0, false
		}
		v = v*10 + d
	}
	if neg {
		if v > 1<<63 {
			return 0, false
		}
		return int64(-v), true
	}
	if v > math.MaxInt64 {
		return 0, false
	}
	return int64(v), true
}

// ParseCursor parses a SCAN/HSCAN/SSCAN/ZSCAN cursor as Redis 7's
// parseScanCursorOrReply does with strtoul(s, &end, 10) on the C string:
//
//   - the argument ends at its first NUL byte, since C sees no further;
//   - the first byte must not be whitespace;
//   - an optional '+' or '-', then decimal digits, leading zeros allowed;
//   - '-' negates modulo 2^64, so "-1" is 18446744073709551615;
//   - no digits at all is cursor 0 when nothing else follows, so "" is 0;
//   - a magnitude above 2^64-1 is out of range and rejected.
func ParseCursor(b []byte) (uint64, bool) {
	for i, c := range b {
		if c == 0 {
			b = b[:i]
			break
		}
	}
	if len(b) == 0 {
		return 0, true
	}
	if isCSpace(b[0]) {
		return 0, false
	}
	neg := false
	digits := b
	if b[0] == '+' || b[0] == '-' {
		neg = b[0] == '-'
		digits = b[1:]
	}
	// strtoul with no digits leaves the end pointer at the start, so a lone
	// sign is trailing garbage.
	if len(digits) == 0 {
		return 0, false
	}
	var v uint64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if v > (math.MaxUint64-d)/10 {
			return 0, false
		}
		v = v*10 + d
	}
	if neg {
		v = -v
	}
	return v, true
}

// AppendInt appends n in decimal, as ll2string prints it.
func AppendInt(dst []byte, n int64) []byte {
	return strconv.AppendInt(dst, n, 10)
}

// isCSpace is isspace in the "C" locale.
func isCSpace(c byte) bool {
	return c == ' ' || (c >= '\t' && c <= '\r')
}
