// Package hll is Redis's HyperLogLog, byte for byte: the 16-byte "HYLL"
// header with its cached cardinality, the sparse (run-length) and dense
// (6-bit registers) encodings, MurmurHash64A with Redis's seed, the rules
// by which a sparse HLL is rewritten and promoted to dense, and Redis 7's
// cardinality estimator (Ertl's "improved" estimator). An HLL is a plain
// byte slice, the value of a Redis string; functions that change it
// return the new slice. A malformed HLL is reported as ErrCorrupt, never
// a panic.
//
// Layout (see Redis's src/hyperloglog.c): bytes 0-3 "HYLL", byte 4 the
// encoding (0 dense, 1 sparse), bytes 5-7 unused, bytes 8-15 the cached
// cardinality little endian, its top bit set when stale. Dense: 16384
// registers of 6 bits packed from the least significant bit of each byte.
// Sparse: opcodes ZERO 00xxxxxx (1-64 zero registers), XZERO 01xxxxxx
// yyyyyyyy (1-16384 zero registers), VAL 1vvvvvxx (1-4 registers of value
// 1-32).
package hll

import (
	"errors"
	"math"
	"strconv"
	"strings"
)

// Sizes and encodings of Redis's HyperLogLog.
const (
	P          = 14     // bits of the hash that pick a register
	Registers  = 1 << P // 16384
	Bits       = 6      // width of a dense register
	HeaderSize = 16     // "HYLL", encoding, 3 unused, cached cardinality
	DenseSize  = HeaderSize + (Registers*Bits+7)/8
	Dense      = 0      // encoding byte of the dense form
	Sparse     = 1      // encoding byte of the sparse form
	q          = 64 - P // hash bits left for the run of zeros
	regMax     = 1<<Bits - 1
	Seed       = 0xadc83b19 // Redis's seed for hashing elements
	// Sparse opcode limits.
	valMaxValue = 32
	valMaxLen   = 4
	zeroMaxLen  = 64
)

// ErrCorrupt reports a malformed HLL (Redis: INVALIDOBJ).
var ErrCorrupt = errors.New("corrupted HLL object")

// IsHLL reports whether b passes Redis's isHLLObjectOrReply checks: long
// enough for the header, the magic, a known encoding, and the exact length
// of a dense HLL. The sparse opcodes are checked only when read.
func IsHLL(b []byte) bool {
	if len(b) < HeaderSize || string(b[:4]) != "HYLL" || b[4] > Sparse {
		return false
	}
	return b[4] != Dense || len(b) == DenseSize
}

// New returns an empty HLL as Redis creates it: sparse, one XZERO opcode
// for all the registers, and a cached cardinality of zero.
func New() []byte {
	b := make([]byte, HeaderSize+2)
	copy(b, "HYLL")
	b[4] = Sparse
	putXZero(b[HeaderSize:], Registers)
	return b
}

// Cached returns the cached cardinality and whether it is valid.
func Cached(b []byte) (uint64, bool) {
	var c uint64
	for i := 7; i >= 0; i-- {
		c = c<<8 | uint64(b[8+i])
	}
	return c, b[15]&0x80 == 0
}

// SetCache stores card as the cached cardinality.
func SetCache(b []byte, card uint64) {
	for i := 0; i < 8; i++ {
		b[8+i] = byte(card >> (8 * i))
	}
}

// Invalidate marks the cached cardinality stale, keeping its other bits as
// Redis does.
func Invalidate(b []byte) { b[15] |= 0x80 }

// Hash is Redis's MurmurHash64A (its endian-neutral form) of data with
// seed s; the HLL hashes its elements with Seed.
func Hash(data []byte, s uint64) uint64 {
	const m = 0xc6a4a7935bd1e995
	const r = 47
	h := s ^ (uint64(len(data)) * m)
	n := len(data) &^ 7
	for i := 0; i < n; i += 8 {
		k := uint64(data[i]) | uint64(data[i+1])<<8 | uint64(data[i+2])<<16 | uint64(data[i+3])<<24 |
			uint64(data[i+4])<<32 | uint64(data[i+5])<<40 | uint64(data[i+6])<<48 | uint64(data[i+7])<<56
		k *= m
		k ^= k >> r
		k *= m
		h ^= k
		h *= m
	}
	if rest := data[n:]; len(rest) > 0 {
		for i := len(rest) - 1; i >= 0; i-- {
			h ^= uint64(rest[i]) << (8 * i)
		}
		h *= m
	}
	h ^= h >> r
	h *= m
	h ^= h >> r
	return h
}

// patLen returns the register an element hashes to and the length of the
// run of zeros (plus one) in the rest of its hash.
func patLen(ele []byte) (int, uint8) {
	h := Hash(ele, Seed)
	idx := int(h & (Registers - 1))
	h >>= P
	h |= 1 << q
	n := uint8(1)
	for h&1 == 0 {
		h >>= 1
		n++
	}
	return idx, n
}

// at reads b[i], or 0 past the end, as Redis reads the string's
// terminating zero byte when a malformed opcode runs off the end.
func at(b []byte, i int) byte {
	if i < len(b) {
		return b[i]
	}
	return 0
}

// denseGet returns dense register i of regs (the bytes after the header).
func denseGet(regs []byte, i int) uint8 {
	byteIdx := i * Bits / 8
	fb := uint(i * Bits & 7)
	b0 := uint(regs[byteIdx])
	b1 := uint(at(regs, byteIdx+1))
	return uint8((b0>>fb | b1<<(8-fb)) & regMax)
}

// denseSet sets dense register i of regs to v.
func denseSet(regs []byte, i int, v uint8) {
	byteIdx := i * Bits / 8
	fb := uint(i * Bits & 7)
	fb8 := 8 - fb
	regs[byteIdx] &^= byte(regMax << fb)
	regs[byteIdx] |= byte(uint(v) << fb)
	if byteIdx+1 < len(regs) {
		regs[byteIdx+1] &^= byte(regMax >> fb8)
		regs[byteIdx+1] |= byte(uint(v) >> fb8)
	}
}

// op is one decoded sparse opcode.
type op struct {
	size  int   // bytes: 1, or 2 for XZERO
	run   int   // registers covered
	value uint8 // 0 for ZERO and XZERO
	xzero bool
}

func decodeOp(s []byte, p int) op {
	c := s[p]
	switch {
	case c&0xc0 == 0:
		return op{size: 1, run: int(c&0x3f) + 1}
	case c&0xc0 == 0x40:
		return op{size: 2, run: (int(c&0x3f)<<8 | int(at(s, p+1))) + 1, xzero: true}
	default:
		return op{size: 1, run: int(c&3) + 1, value: (c>>2)&0x1f + 1}
	}
}

func valOp(v uint8, n int) byte { return byte(int(v-1)<<2|(n-1)) | 0x80 }

func putXZero(s []byte, n int) {
	s[0] = byte((n-1)>>8) | 0x40
	s[1] = byte((n - 1) & 0xff)
}

// appendZeros appends the shortest opcode for n zero registers.
func appendZeros(s []byte, n int) []byte {
	if n > zeroMaxLen {
		var x [2]byte
		putXZero(x[:], n)
		return append(s, x[:]...)
	}
	return append(s, byte(n-1))
}

// Merge raises each of max's registers to b's register where b's is
// larger. A sparse HLL whose opcodes do not cover exactly the registers is
// ErrCorrupt. b must pass IsHLL.
func Merge(max *[Registers]uint8, b []byte) error {
	if b[4] == Dense {
		// Four 6-bit registers in each 3 bytes.
		regs := b[HeaderSize:DenseSize]
		for g := 0; g < Registers/4; g++ {
			b0, b1, b2 := regs[3*g], regs[3*g+1], regs[3*g+2]
			r := max[4*g : 4*g+4 : 4*g+4]
			r0, r1, r2, r3 := b0&regMax, (b0>>6|b1<<2)&regMax, (b1>>4|b2<<4)&regMax, b2>>2
			if r0 > r[0] {
				r[0] = r0
			}
			if r1 > r[1] {
				r[1] = r1
			}
			if r2 > r[2] {
				r[2] = r2
			}
			if r3 > r[3] {
				r[3] = r3
			}
		}
		return nil
	}
	s := b[HeaderSize:]
	i := 0
	for p := 0; p < len(s); {
		o := decodeOp(s, p)
		p += o.size
		if o.value == 0 {
			i += o.run
			continue
		}
		if i+o.run > Registers {
			return ErrCorrupt
		}
		for ; o.run > 0; o.run-- {
			if o.value > max[i] {
				max[i] = o.value
			}
			i++
		}
	}
	if i != Registers {
		return ErrCorrupt
	}
	return nil
}

// ToDense returns b in the dense encoding (b itself when already dense),
// keeping the header's cached cardinality. b must pass IsHLL.
func ToDense(b []byte) ([]byte, error) {
	if b[4] == Dense {
		return b, nil
	}
	var regs [Registers]uint8
	if err := Merge(&regs, b); err != nil {
		return nil, err
	}
	d := make([]byte, DenseSize)
	copy(d, b[:HeaderSize])
	d[4] = Dense
	for i, v := range regs {
		if v != 0 {
			denseSet(d[HeaderSize:], i, v)
		}
	}
	return d, nil
}

// Add adds ele to b, returning the HLL (possibly a new slice) and whether
// a register changed (the estimate may have). maxSparse is
// hll-sparse-max-bytes. b must pass IsHLL.
func Add(b, ele []byte, maxSparse int64) ([]byte, bool, error) {
	idx, n := patLen(ele)
	return Set(b, idx, n, maxSparse)
}

// Set raises register idx of b to count, as Redis's hllDenseSet and
// hllSparseSet do: a sparse HLL is rewritten in place where the register
// falls, and turns dense when count does not fit a VAL opcode or when it
// would grow past maxSparse bytes. It reports whether the register
// changed; a changed sparse HLL gets its cache invalidated.
func Set(b []byte, idx int, count uint8, maxSparse int64) ([]byte, bool, error) {
	if b[4] == Dense {
		regs := b[HeaderSize:]
		if count > denseGet(regs, idx) {
			denseSet(regs, idx, count)
			return b, true, nil
		}
		return b, false, nil
	}
	if count > valMaxValue {
		return promote(b, idx, count)
	}
	s := b[HeaderSize:]
	// Find the opcode covering idx.
	first, p, prev := 0, 0, -1
	var o op
	found := false
	for p < len(s) {
		o = decodeOp(s, p)
		if idx <= first+o.run-1 {
			found = true
			break
		}
		prev = p
		p += o.size
		first += o.run
	}
	if !found {
		return nil, false, ErrCorrupt
	}
	if o.value != 0 {
		if o.value >= count {
			return b, false, nil
		}
		if o.run == 1 {
			s[p] = valOp(count, 1)
			return mergeVals(b, prev), true, nil
		}
	}
	if o.value == 0 && !o.xzero && o.run == 1 {
		s[p] = valOp(count, 1)
		return mergeVals(b, prev), true, nil
	}
	// Split the opcode into up to three.
	last := first + o.run - 1
	seq := make([]byte, 0, 5)
	if o.value == 0 {
		if idx != first {
			seq = appendZeros(seq, idx-first)
		}
		seq = append(seq, valOp(count, 1))
		if idx != last {
			seq = appendZeros(seq, last-idx)
		}
	} else {
		if idx != first {
			seq = append(seq, valOp(o.value, idx-first))
		}
		seq = append(seq, valOp(count, 1))
		if idx != last {
			seq = append(seq, valOp(o.value, last-idx))
		}
	}
	delta := len(seq) - o.size
	newLen := len(b) + delta
	if delta > 0 && int64(newLen) > maxSparse {
		return promote(b, idx, count)
	}
	// An XZERO cut short by the end of the string (Redis reads its
	// terminating zero) leaves a string one byte shorter than the splice.
	tail := []byte(nil)
	if p+o.size < len(s) {
		tail = s[p+o.size:]
	}
	out := make([]byte, 0, newLen+1)
	out = append(out, b[:HeaderSize+p]...)
	out = append(out, seq...)
	out = append(out, tail...)
	out = out[:newLen]
	return mergeVals(out, prev), true, nil
}

// mergeVals joins adjacent VAL opcodes of equal value that fit one opcode,
// scanning up to five opcodes from prev (the opcode before the changed
// one, or the first), and invalidates the cache: Redis's step 4.
func mergeVals(b []byte, prev int) []byte {
	s := b[HeaderSize:]
	p := max(prev, 0)
	for scan := 5; p < len(s) && scan > 0; scan-- {
		o := decodeOp(s, p)
		if o.value == 0 {
			p += o.size
			continue
		}
		if p+1 < len(s) && s[p+1]&0x80 != 0 {
			o2 := decodeOp(s, p+1)
			if o.value == o2.value && o.run+o2.run <= valMaxLen {
				s[p+1] = valOp(o.value, o.run+o2.run)
				copy(s[p:], s[p+1:])
				s = s[:len(s)-1]
				continue
			}
		}
		p++
	}
	b = b[:HeaderSize+len(s)]
	Invalidate(b)
	return b
}

// promote turns sparse b dense and sets register idx to count there.
func promote(b []byte, idx int, count uint8) ([]byte, bool, error) {
	d, err := ToDense(b)
	if err != nil {
		return nil, false, err
	}
	regs := d[HeaderSize:]
	if count > denseGet(regs, idx) {
		denseSet(regs, idx, count)
	}
	return d, true, nil
}

// Count estimates the cardinality of b. A sparse HLL whose opcodes do not
// cover exactly the registers is ErrCorrupt. b must pass IsHLL.
func Count(b []byte) (uint64, error) {
	var histo [64]int
	if b[4] == Dense {
		// Four 6-bit registers in each 3 bytes.
		regs := b[HeaderSize:DenseSize]
		for g := 0; g < Registers/4; g++ {
			b0, b1, b2 := regs[3*g], regs[3*g+1], regs[3*g+2]
			histo[b0&regMax]++
			histo[(b0>>6|b1<<2)&regMax]++
			histo[(b1>>4|b2<<4)&regMax]++
			histo[b2>>2]++
		}
	} else {
		s := b[HeaderSize:]
		total := 0
		for p := 0; p < len(s); {
			o := decodeOp(s, p)
			p += o.size
			total += o.run
			histo[o.value] += o.run
		}
		if total != Registers {
			return 0, ErrCorrupt
		}
	}
	return estimate(&histo), nil
}

// CountRegisters estimates the cardinality of an HLL given by its
// registers, as PFCOUNT of several keys does with their union.
func CountRegisters(regs *[Registers]uint8) uint64 {
	var histo [64]int
	for _, v := range regs {
		histo[v&63]++
	}
	return estimate(&histo)
}

// estimate is Redis's hllCount from a histogram of register values
// (Ertl, "New cardinality estimation algorithms for HyperLogLog
// sketches", arXiv:1702.01284), with Redis's order of operations so that
// the rounding is the same.
func estimate(histo *[64]int) uint64 {
	const m = float64(Registers)
	const alphaInf = 0.721347520444481703680 // 0.5/ln(2)
	z := m * tau((m-float64(histo[q+1]))/m)
	for j := q; j >= 1; j-- {
		z += float64(histo[j])
		z *= 0.5
	}
	z += float64(m * sigma(float64(histo[0])/m))
	return uint64(math.Round(alphaInf * m * m / z))
}

func sigma(x float64) float64 {
	if x == 1 {
		return math.Inf(1)
	}
	y, z := 1.0, x
	for {
		x *= x
		zPrev := z
		z += float64(x * y)
		y += y
		if z == zPrev {
			return z
		}
	}
}

func tau(x float64) float64 {
	if x == 0 || x == 1 {
		return 0
	}
	y, z := 1.0, 1-x
	for {
		x = math.Sqrt(x)
		zPrev := z
		y *= 0.5
		d := 1 - x
		z -= float64(d * d * y)
		if z == zPrev {
			return z / 3
		}
	}
}

// Register returns register i of d, a dense HLL.
func Register(d []byte, i int) uint8 { return denseGet(d[HeaderSize:], i) }

// Describe is PFDEBUG DECODE: a sparse HLL's opcodes as "z:N", "Z:N" and
// "v:VALUE,N", space separated.
func Describe(b []byte) string {
	var sb strings.Builder
	s := b[HeaderSize:]
	for p := 0; p < len(s); {
		o := decodeOp(s, p)
		p += o.size
		if sb.Len() > 0 {
			sb.WriteByte(' ')
		}
		switch {
		case o.xzero:
			sb.WriteString("Z:" + strconv.Itoa(o.run))
		case o.value == 0:
			sb.WriteString("z:" + strconv.Itoa(o.run))
		default:
			sb.WriteString("v:" + strconv.Itoa(int(o.value)) + "," + strconv.Itoa(o.run))
		}
	}
	return sb.String()
}

// Raises reports whether adding ele to b would raise a register: false
// only when b is dense and ele's register already holds its count (a
// sparse b is not searched). b must pass IsHLL.
func Raises(b, ele []byte) bool {
	if b[4] != Dense {
		return true
	}
	idx, n := patLen(ele)
	return n > denseGet(b[HeaderSize:], idx)
}
