// Package bitops is the pure bit logic of Redis's bitmap commands: bit
// counts and searches over a string seen as chunks of stored bytes (the
// gaps between them are zeros), BITOP's operations over aligned blocks,
// and BITFIELD's integer reads, writes and overflow rules. Bit 0 is the
// most significant bit of byte 0, as in Redis. It does no I/O and never
// sees the protocol.
package bitops

import (
	"math/bits"
)

// Chunker is a string as a sequence of stored chunks: Chunks calls fn
// with the stored bytes within [from, to] (byte offsets, inclusive) in
// increasing order of off; bytes of the string between chunks are zeros.
// fn returning false stops the walk.
type Chunker interface {
	Len() int64
	Chunks(from, to int64, fn func(off int64, b []byte) bool) error
}

// Bytes is a Chunker over an in-memory string.
type Bytes []byte

// Len is the string's length.
func (b Bytes) Len() int64 { return int64(len(b)) }

// Chunks yields the whole range as one chunk.
func (b Bytes) Chunks(from, to int64, fn func(off int64, b []byte) bool) error {
	to = min(to, int64(len(b))-1)
	if from <= to && from >= 0 {
		fn(from, b[from:to+1])
	}
	return nil
}

// Range converts BITCOUNT's or BITPOS's start and end (negative counting
// from the end, in bytes or, with isBit, bits) into an inclusive bit range
// of a string of length n bytes, clamped as Redis clamps it. ok is false
// for an empty range.
func Range(start, end int64, isBit bool, n int64) (from, to int64, ok bool) {
	total := n
	if isBit {
		total = n << 3
	}
	if start < 0 {
		start += total
	}
	if end < 0 {
		end += total
	}
	start, end = max(start, 0), max(end, 0)
	if end >= total {
		end = total - 1
	}
	if start > end {
		return 0, 0, false
	}
	if isBit {
		return start, end, true
	}
	return start << 3, end<<3 + 7, true
}

// edgeMask keeps the bits of byte number i (of the whole string) that
// lie in the bit range [from, to].
func edgeMask(i, from, to int64) byte {
	m := byte(0xff)
	if i == from>>3 {
		m &= 0xff >> (from & 7)
	}
	if i == to>>3 {
		m &= 0xff << (7 - to&7)
	}
	return m
}

// Count returns the number of set bits in the bit range [from, to],
// reading only the stored chunks.
func Count(c Chunker, from, to int64) (int64, error) {
	var n int64
	first, last := from>>3, to>>3
	err := c.Chunks(first, last, func(off int64, b []byte) bool {
		n += popcount(b)
		// Take back the bits of the edge bytes outside the range.
		if first >= off && first < off+int64(len(b)) {
			n -= int64(bits.OnesCount8(b[first-off] &^ edgeMask(first, from, to)))
		}
		if last != first && last >= off && last < off+int64(len(b)) {
			n -= int64(bits.OnesCount8(b[last-off] &^ edgeMask(last, from, to)))
		}
		return true
	})
	return n, err
}

func popcount(b []byte) int64 {
	var n int
	for len(b) >= 8 {
		n += bits.OnesCount64(uint64(b[0])<<56 | uint64(b[1])<<48 | uint64(b[2])<<40 | uint64(b[3])<<32 |
			uint64(b[4])<<24 | uint64(b[5])<<16 | uint64(b[6])<<8 | uint64(b[7]))
		b = b[8:]
	}
	for _, c := range b {
		n += bits.OnesCount8(c)
	}
	return int64(n)
}

// Pos returns the position of the first bit equal to bit in the bit range
// [from, to], or -1 when there is none; only stored chunks are read (the
// first clear bit may be in a gap between them).
func Pos(c Chunker, bit bool, from, to int64) (int64, error) {
	pos := int64(-1)
	next := from >> 3 // the first byte not yet seen
	first, last := from>>3, to>>3
	// inByte finds the bit in byte i, holding v, within the range.
	inByte := func(i int64, v byte) bool {
		m := edgeMask(i, from, to)
		if !bit {
			v = ^v
		}
		if v &= m; v != 0 {
			pos = i<<3 + int64(bits.LeadingZeros8(v))
			return true
		}
		return false
	}
	err := c.Chunks(first, last, func(off int64, b []byte) bool {
		if !bit && off > next {
			// A gap of zeros before this chunk.
			pos = max(next<<3, from)
			return false
		}
		i := 0
		for i < len(b) {
			at := off + int64(i)
			// Skip whole words that cannot hold the bit, except at the
			// edges of the range.
			if at != first && at+8 <= last && i+8 <= len(b) {
				w := uint64(b[i])<<56 | uint64(b[i+1])<<48 | uint64(b[i+2])<<40 | uint64(b[i+3])<<32 |
					uint64(b[i+4])<<24 | uint64(b[i+5])<<16 | uint64(b[i+6])<<8 | uint64(b[i+7])
				if (bit && w == 0) || (!bit && w == ^uint64(0)) {
					i += 8
					continue
				}
			}
			if inByte(at, b[i]) {
				return false
			}
			i++
		}
		next = off + int64(len(b))
		return true
	})
	if err != nil || pos >= 0 {
		return pos, err
	}
	if !bit && next <= last {
		// Zeros after the last chunk.
		return max(next<<3, from), nil
	}
	return -1, nil
}

// Op is a BITOP operation.
type Op uint8

// BITOP operations. DIFF, DIFF1 and ANDOR combine the first source X with
// the disjunction of the others; ONE keeps the bits set in exactly one
// source (Redis 8.2).
const (
	And Op = iota
	Or
	Xor
	Not
	Diff  // X & ^(Y1 | Y2 | ...)
	Diff1 // ^X & (Y1 | Y2 | ...)
	AndOr // X & (Y1 | Y2 | ...)
	One
)

// ParseOp returns the operation named (case-insensitively) by name.
func ParseOp(name []byte) (Op, bool) {
	switch string(upper(name)) {
	case "AND":
		return And, true
	case "OR":
		return Or, true
	case "XOR":
		return Xor, true
	case "NOT":
		return Not, true
	case "DIFF":
		return Diff, true
	case "DIFF1":
		return Diff1, true
	case "ANDOR":
		return AndOr, true
	case "ONE":
		return One, true
	}
	return 0, false
}

func upper(b []byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		out[i] = c
	}
	return out
}

// ZeroPreserving reports whether op maps all-zero sources to zero: its
// result then needs computing only where some source holds data.
func (op Op) ZeroPreserving() bool { return op != Not }

// Apply computes op over srcs into dst, byte by byte; a source shorter than
// dst (nil included) reads as zeros past its end. There must be at least
// one source (two for Diff, Diff1 and AndOr: a single one is treated as X
// with an empty disjunction).
func Apply(op Op, dst []byte, srcs [][]byte) {
	at := func(s []byte, i int) byte {
		if i < len(s) {
			return s[i]
		}
		return 0
	}
	for i := range dst {
		out := at(srcs[0], i)
		var or, common byte
		for _, s := range srcs[1:] {
			b := at(s, i)
			switch op {
			case And:
				out &= b
			case Or:
				out |= b
			case Xor:
				out ^= b
			case Diff, Diff1, AndOr:
				or |= b
			case One:
				common |= out & b
				out ^= b
			}
		}
		switch op {
		case Not:
			out = ^out
		case Diff:
			out &^= or
		case Diff1:
			out = ^out & or
		case AndOr:
			out &= or
		case One:
			out &^= common
		}
		dst[i] = out
	}
}

// Overflow is BITFIELD's OVERFLOW behaviour.
type Overflow uint8

// Overflow behaviours.
const (
	Wrap Overflow = iota
	Sat
	Fail
)

// GetUnsigned reads the bits-wide unsigned integer at bit offset off of p
// (bits past the end of p read as zeros).
func GetUnsigned(p []byte, off uint64, width int) uint64 {
	var v uint64
	for j := 0; j < width; j++ {
		i := off >> 3
		var b byte
		if i < uint64(len(p)) {
			b = p[i]
		}
		v = v<<1 | uint64(b>>(7-off&7)&1)
		off++
	}
	return v
}

// GetSigned reads a two's complement integer of width bits.
func GetSigned(p []byte, off uint64, width int) int64 {
	v := GetUnsigned(p, off, width)
	if width < 64 && v&(1<<(width-1)) != 0 {
		v |= ^uint64(0) << width
	}
	return int64(v)
}

// SetUnsigned writes the low width bits of v at bit offset off of p, which
// must hold them.
func SetUnsigned(p []byte, off uint64, width int, v uint64) {
	for j := 0; j < width; j++ {
		bit := byte(v>>(width-1-j)) & 1
		i, s := off>>3, 7-off&7
		p[i] = p[i]&^(1<<s) | bit<<s
		off++
	}
}

// UnsignedOverflow checks value+incr against an unsigned integer of width
// bits (width < 64) and reports 1 on overflow, -1 on underflow, 0 when it
// fits; on overflow, limit is what WRAP or SAT makes of it.
func UnsignedOverflow(value uint64, incr int64, width int, ow Overflow) (dir int, limit uint64) {
	max := uint64(1)<<width - 1
	maxIncr := int64(max - value)
	minIncr := -int64(value)
	wrap := func() uint64 { return (value + uint64(incr)) &^ (^uint64(0) << width) }
	switch {
	case value > max || (incr > 0 && incr > maxIncr):
		if ow == Wrap {
			return 1, wrap()
		}
		return 1, max
	case incr < 0 && incr < minIncr:
		if ow == Wrap {
			return -1, wrap()
		}
		return -1, 0
	}
	return 0, 0
}

// SignedOverflow is UnsignedOverflow for a two's complement integer of
// width bits (up to 64).
func SignedOverflow(value, incr int64, width int, ow Overflow) (dir int, limit int64) {
	max := int64(1)<<(width-1) - 1
	if width == 64 {
		max = 1<<63 - 1
	}
	min := -max - 1
	// maxIncr and minIncr may wrap; they are used only once value is known
	// to be in range, as Redis does.
	maxIncr := int64(uint64(max) - uint64(value))
	minIncr := int64(uint64(min) - uint64(value))
	wrap := func() int64 {
		c := uint64(value) + uint64(incr)
		if width < 64 {
			mask := ^uint64(0) << width
			if c&(1<<(width-1)) != 0 {
				c |= mask
			} else {
				c &^= mask
			}
		}
		return int64(c)
	}
	switch {
	case value > max || (width != 64 && incr > maxIncr) || (value >= 0 && incr > 0 && incr > maxIncr):
		if ow == Wrap {
			return 1, wrap()
		}
		return 1, max
	case value < min || (width != 64 && incr < minIncr) || (value < 0 && incr < 0 && incr < minIncr):
		if ow == Wrap {
			return -1, wrap()
		}
		return -1, min
	}
	return 0, 0
}

// FieldKind is a BITFIELD sub-command.
type FieldKind uint8

// BITFIELD sub-commands.
const (
	FieldGet FieldKind = iota
	FieldSet
	FieldIncrBy
)

// FieldOp is one BITFIELD operation.
type FieldOp struct {
	Kind     FieldKind
	Signed   bool
	Bits     int
	Offset   uint64
	Value    int64 // SET's value or INCRBY's increment
	Overflow Overflow
}

// FieldResult is one operation's reply: Nil when an overflow made a FAIL
// operation do nothing.
type FieldResult struct {
	Value int64
	Nil   bool
}

// Exec runs a write operation (SET or INCRBY) on p, a window of the string
// whose bit 0 is the string's bit base and which holds the whole field.
// It reports the reply and whether the stored bits changed.
func (op FieldOp) Exec(p []byte, base uint64) (FieldResult, bool) {
	off := op.Offset - base
	if op.Signed {
		old := GetSigned(p, off, op.Bits)
		var next, ret int64
		var dir int
		var limit int64
		if op.Kind == FieldIncrBy {
			dir, limit = SignedOverflow(old, op.Value, op.Bits, op.Overflow)
			next = old + op.Value
			if dir != 0 {
				next = limit
			}
			ret = next
		} else {
			next = op.Value
			if dir, limit = SignedOverflow(next, 0, op.Bits, op.Overflow); dir != 0 {
				next = limit
			}
			ret = old
		}
		if dir != 0 && op.Overflow == Fail {
			return FieldResult{Nil: true}, false
		}
		SetUnsigned(p, off, op.Bits, uint64(next))
		return FieldResult{Value: ret}, old != next
	}
	old := GetUnsigned(p, off, op.Bits)
	var next, ret uint64
	var dir int
	var limit uint64
	if op.Kind == FieldIncrBy {
		next = old + uint64(op.Value)
		if dir, limit = UnsignedOverflow(old, op.Value, op.Bits, op.Overflow); dir != 0 {
			next = limit
		}
		ret = next
	} else {
		next = uint64(op.Value)
		if dir, limit = UnsignedOverflow(next, 0, op.Bits, op.Overflow); dir != 0 {
			next = limit
		}
		ret = old
	}
	if dir != 0 && op.Overflow == Fail {
		return FieldResult{Nil: true}, false
	}
	SetUnsigned(p, off, op.Bits, next)
	return FieldResult{Value: int64(ret)}, old != next
}

// Get reads the field of a GET operation from p, a window of the string
// starting at bit base.
func (op FieldOp) Get(p []byte, base uint64) int64 {
	if op.Signed {
		return GetSigned(p, op.Offset-base, op.Bits)
	}
	return int64(GetUnsigned(p, op.Offset-base, op.Bits))
}
