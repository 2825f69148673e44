package rdb

import (
	"encoding/binary"
	"strconv"
)

// The compact containers Redis serializes as one RDB string: listpack
// (Redis 7), intset, and the older ziplist. Each decoder returns the
// entries as byte strings (integers in their decimal form), checks every
// length against the bytes that remain, and never trusts a header's count
// to size an allocation.

// DecodeListpack returns a listpack's entries.
//
// Layout: total bytes (uint32 LE), entry count (uint16 LE, 65535 when
// unknown), the entries, then 0xff. An entry is an encoding byte with its
// data, then a back-length of 1 to 5 bytes giving the size of the two.
func DecodeListpack(lp []byte) ([][]byte, error) {
	entries, err := listpackEntries(lp)
	if err != nil {
		return nil, err
	}
	out := make([][]byte, len(entries))
	for i, e := range entries {
		out[i] = e.bytes()
	}
	return out, nil
}

// lpEntry is one listpack entry: a string, or an integer when isInt.
type lpEntry struct {
	s     []byte
	v     int64
	isInt bool
}

// bytes is the entry as a string, an integer in decimal.
func (e lpEntry) bytes() []byte {
	if e.isInt {
		return strconv.AppendInt(nil, e.v, 10)
	}
	return e.s
}

// int is the entry as an integer: an integer entry, or a string holding
// one in canonical decimal (Redis's string2ll); ok is false otherwise.
func (e lpEntry) int() (int64, bool) {
	if e.isInt {
		return e.v, true
	}
	if len(e.s) == 0 || len(e.s) > 20 {
		return 0, false
	}
	v, err := strconv.ParseInt(string(e.s), 10, 64)
	if err != nil || string(strconv.AppendInt(nil, v, 10)) != string(e.s) {
		return 0, false
	}
	return v, true
}

// listpackEntries checks a whole listpack and returns its entries; strings
// alias lp.
func listpackEntries(lp []byte) ([]lpEntry, error) {
	if len(lp) < 7 {
		return nil, corrupt("listpack of %d bytes", len(lp))
	}
	if total := binary.LittleEndian.Uint32(lp); uint64(total) != uint64(len(lp)) {
		return nil, corrupt("listpack header says %d bytes, have %d", total, len(lp))
	}
	count := int(binary.LittleEndian.Uint16(lp[4:]))
	if lp[len(lp)-1] != 0xff {
		return nil, corrupt("listpack without its end byte")
	}
	var out []lpEntry
	if count != 0xffff {
		// Every entry takes at least two bytes.
		out = make([]lpEntry, 0, min(count, len(lp)/2))
	}
	off := 6
	for {
		if off >= len(lp) {
			return nil, corrupt("listpack entry past the end at %d", off)
		}
		b := lp[off]
		if b == 0xff {
			break
		}
		var entry lpEntry
		var size int // encoding byte(s) plus data
		need := func(n int) bool { return off+n <= len(lp)-1 }
		switch {
		case b&0x80 == 0: // 7-bit unsigned integer
			entry, size = lpEntry{v: int64(b & 0x7f), isInt: true}, 1
		case b&0xc0 == 0x80: // string of up to 63 bytes
			n := int(b & 0x3f)
			if !need(1 + n) {
				return nil, corrupt("listpack string past the end at %d", off)
			}
			entry, size = lpEntry{s: lp[off+1 : off+1+n]}, 1+n
		case b&0xe0 == 0xc0: // 13-bit signed integer
			if !need(2) {
				return nil, corrupt("listpack integer past the end at %d", off)
			}
			v := int64(b&0x1f)<<8 | int64(lp[off+1])
			if v >= 1<<12 {
				v -= 1 << 13
			}
			entry, size = lpEntry{v: v, isInt: true}, 2
		case b&0xf0 == 0xe0: // string of up to 4095 bytes
			if !need(2) {
				return nil, corrupt("listpack string past the end at %d", off)
			}
			n := int(b&0x0f)<<8 | int(lp[off+1])
			if !need(2 + n) {
				return nil, corrupt("listpack string past the end at %d", off)
			}
			entry, size = lpEntry{s: lp[off+2 : off+2+n]}, 2+n
		case b == 0xf0: // string with a 32-bit length
			if !need(5) {
				return nil, corrupt("listpack string past the end at %d", off)
			}
			n := uint64(binary.LittleEndian.Uint32(lp[off+1:]))
			if n > uint64(len(lp)) || !need(5+int(n)) {
				return nil, corrupt("listpack string past the end at %d", off)
			}
			entry, size = lpEntry{s: lp[off+5 : off+5+int(n)]}, 5+int(n)
		case b >= 0xf1 && b <= 0xf4: // 16, 24, 32 or 64-bit signed integer
			width := [...]int{2, 3, 4, 8}[b-0xf1]
			if !need(1 + width) {
				return nil, corrupt("listpack integer past the end at %d", off)
			}
			var u uint64
			for i := width - 1; i >= 0; i-- {
				u = u<<8 | uint64(lp[off+1+i])
			}
			shift := uint(64 - 8*width)
			entry, size = lpEntry{v: int64(u<<shift) >> shift, isInt: true}, 1+width
		default:
			return nil, corrupt("listpack encoding %#x at %d", b, off)
		}
		off += size
		// The back-length: size in 7-bit groups, most significant first
		// when read backwards, the high bit marking a continuation.
		bl := backlenSize(size)
		if !need(bl) {
			return nil, corrupt("listpack back-length past the end at %d", off)
		}
		if got, ok := readBacklen(lp[off : off+bl]); !ok || got != uint64(size) {
			return nil, corrupt("listpack back-length at %d does not match", off)
		}
		off += bl
		out = append(out, entry)
	}
	if off != len(lp)-1 {
		return nil, corrupt("listpack end byte at %d of %d", off, len(lp))
	}
	if count != 0xffff && count != len(out) {
		return nil, corrupt("listpack header says %d entries, have %d", count, len(out))
	}
	return out, nil
}

func backlenSize(n int) int {
	switch {
	case n <= 127:
		return 1
	case n < 16383:
		return 2
	case n < 2097151:
		return 3
	case n < 268435455:
		return 4
	}
	return 5
}

// readBacklen decodes a back-length stored in p: 7-bit groups, the most
// significant first in memory, every byte after the first carrying the
// continuation bit (a reader walking backwards stops at the first without).
func readBacklen(p []byte) (uint64, bool) {
	var v uint64
	for i, b := range p {
		if (b&0x80 != 0) != (i > 0) {
			return 0, false
		}
		v = v<<7 | uint64(b&0x7f)
	}
	return v, true
}

// AppendListpack appends a listpack holding entries, each stored as a
// string (Redis reads either form).
func AppendListpack(dst []byte, entries [][]byte) []byte {
	lb := startListpack(dst)
	for _, e := range entries {
		lb.str(e)
	}
	return lb.finish()
}

// listpackBuilder appends a listpack's entries one at a time.
type listpackBuilder struct {
	buf   []byte
	start int
	n     int
}

func startListpack(dst []byte) listpackBuilder {
	return listpackBuilder{buf: append(dst, 0, 0, 0, 0, 0, 0), start: len(dst)}
}

// size is the listpack's size so far, its end byte included.
func (lb *listpackBuilder) size() int { return len(lb.buf) - lb.start + 1 }

// str appends a string entry.
func (lb *listpackBuilder) str(e []byte) {
	var size int
	switch n := len(e); {
	case n < 64:
		lb.buf = append(lb.buf, 0x80|byte(n))
		size = 1 + n
	case n < 4096:
		lb.buf = append(lb.buf, 0xe0|byte(n>>8), byte(n))
		size = 2 + n
	default:
		lb.buf = append(lb.buf, 0xf0)
		lb.buf = binary.LittleEndian.AppendUint32(lb.buf, uint32(n))
		size = 5 + n
	}
	lb.buf = append(lb.buf, e...)
	lb.buf = appendBacklen(lb.buf, size)
	lb.n++
}

// int appends an integer entry in the smallest of the integer encodings.
func (lb *listpackBuilder) int(v int64) {
	b := lb.buf
	var size int
	switch {
	case v >= 0 && v <= 127:
		b = append(b, byte(v))
		size = 1
	case v >= -4096 && v <= 4095:
		u := uint64(v) & 0x1fff
		b = append(b, 0xc0|byte(u>>8), byte(u))
		size = 2
	default:
		width, enc := 8, byte(0xf4)
		switch {
		case v >= -1<<15 && v < 1<<15:
			width, enc = 2, 0xf1
		case v >= -1<<23 && v < 1<<23:
			width, enc = 3, 0xf2
		case v >= -1<<31 && v < 1<<31:
			width, enc = 4, 0xf3
		}
		b = append(b, enc)
		for i := range width {
			b = append(b, byte(uint64(v)>>(8*i)))
		}
		size = 1 + width
	}
	lb.buf = appendBacklen(b, size)
	lb.n++
}

// finish writes the header and the end byte and returns the whole buffer.
func (lb *listpackBuilder) finish() []byte {
	lb.buf = append(lb.buf, 0xff)
	binary.LittleEndian.PutUint32(lb.buf[lb.start:], uint32(len(lb.buf)-lb.start))
	count := uint16(0xffff)
	if lb.n < 0xffff {
		count = uint16(lb.n)
	}
	binary.LittleEndian.PutUint16(lb.buf[lb.start+4:], count)
	return lb.buf
}

func appendBacklen(dst []byte, n int) []byte {
	k := backlenSize(n)
	// Groups of 7 bits, least significant last in memory; every byte
	// but the first in memory carries the continuation bit.
	for i := k - 1; i >= 0; i-- {
		b := byte(n>>(7*uint(i))) & 0x7f
		if i < k-1 {
			b |= 0x80
		}
		dst = append(dst, b)
	}
	return dst
}

// DecodeIntset returns an intset's members in decimal.
//
// Layout: element width in bytes (uint32 LE: 2, 4 or 8), count (uint32
// LE), then the sorted signed little-endian elements.
func DecodeIntset(is []byte) ([][]byte, error) {
	if len(is) < 8 {
		return nil, corrupt("intset of %d bytes", len(is))
	}
	width := binary.LittleEndian.Uint32(is)
	if width != 2 && width != 4 && width != 8 {
		return nil, corrupt("intset element width %d", width)
	}
	count := uint64(binary.LittleEndian.Uint32(is[4:]))
	if count*uint64(width) != uint64(len(is)-8) {
		return nil, corrupt("intset of %d elements in %d bytes", count, len(is)-8)
	}
	out := make([][]byte, 0, count)
	var prev int64
	for i := range int(count) {
		p := is[8+i*int(width):]
		var v int64
		switch width {
		case 2:
			v = int64(int16(binary.LittleEndian.Uint16(p)))
		case 4:
			v = int64(int32(binary.LittleEndian.Uint32(p)))
		default:
			v = int64(binary.LittleEndian.Uint64(p))
		}
		if i > 0 && v <= prev {
			return nil, corrupt("intset not sorted or with duplicates")
		}
		prev = v
		out = append(out, strconv.AppendInt(nil, v, 10))
	}
	return out, nil
}

// DecodeZiplist returns a ziplist's entries (Redis before 7.0).
//
// Layout: total bytes (uint32 LE), offset of the last entry (uint32 LE),
// count (uint16 LE), the entries, then 0xff. An entry is the previous
// entry's length (1 byte, or 0xfe and 4 bytes), an encoding, the data.
func DecodeZiplist(zl []byte) ([][]byte, error) {
	if len(zl) < 11 {
		return nil, corrupt("ziplist of %d bytes", len(zl))
	}
	if total := binary.LittleEndian.Uint32(zl); uint64(total) != uint64(len(zl)) {
		return nil, corrupt("ziplist header says %d bytes, have %d", total, len(zl))
	}
	if zl[len(zl)-1] != 0xff {
		return nil, corrupt("ziplist without its end byte")
	}
	count := int(binary.LittleEndian.Uint16(zl[8:]))
	var out [][]byte
	if count != 0xffff {
		out = make([][]byte, 0, min(count, len(zl)/2))
	}
	off, prevLen := 10, 0
	end := len(zl) - 1
	for off < end {
		start := off
		pl := int(zl[off])
		off++
		if pl == 0xfe {
			if off+4 > end {
				return nil, corrupt("ziplist entry past the end at %d", start)
			}
			pl = int(binary.LittleEndian.Uint32(zl[off:]))
			off += 4
		}
		if pl != prevLen {
			return nil, corrupt("ziplist previous length at %d does not match", start)
		}
		if off >= end {
			return nil, corrupt("ziplist entry past the end at %d", start)
		}
		b := zl[off]
		var entry []byte
		strLen := -1
		switch b >> 6 {
		case 0:
			strLen = int(b & 0x3f)
			off++
		case 1:
			if off+2 > end {
				return nil, corrupt("ziplist entry past the end at %d", start)
			}
			strLen = int(b&0x3f)<<8 | int(zl[off+1])
			off += 2
		case 2:
			if off+5 > end {
				return nil, corrupt("ziplist entry past the end at %d", start)
			}
			n := uint64(binary.BigEndian.Uint32(zl[off+1:]))
			if n > uint64(end) {
				return nil, corrupt("ziplist entry past the end at %d", start)
			}
			strLen = int(n)
			off += 5
		default:
			var width int
			switch b {
			case 0xc0:
				width = 2
			case 0xd0:
				width = 4
			case 0xe0:
				width = 8
			case 0xf0:
				width = 3
			case 0xfe:
				width = 1
			default:
				if b < 0xf1 || b > 0xfd {
					return nil, corrupt("ziplist encoding %#x at %d", b, off)
				}
				entry = strconv.AppendInt(nil, int64(b&0x0f)-1, 10)
			}
			off++
			if entry == nil {
				if off+width > end {
					return nil, corrupt("ziplist integer past the end at %d", start)
				}
				var u uint64
				for i := width - 1; i >= 0; i-- {
					u = u<<8 | uint64(zl[off+i])
				}
				shift := uint(64 - 8*width)
				entry = strconv.AppendInt(nil, int64(u<<shift)>>shift, 10)
				off += width
			}
		}
		if strLen >= 0 {
			if off+strLen > end {
				return nil, corrupt("ziplist string past the end at %d", start)
			}
			entry = zl[off : off+strLen]
			off += strLen
		}
		prevLen = off - start
		out = append(out, entry)
	}
	if count != 0xffff && count != len(out) {
		return nil, corrupt("ziplist header says %d entries, have %d", count, len(out))
	}
	return out, nil
}

// DecodeZipmap returns a zipmap's keys and values, alternating (hashes of
// Redis 2.4 and older).
//
// Layout: a count byte (254 or more: unknown), then per entry the key's
// length, the key, the value's length, a byte of free space after the
// value, the value and that free space; then 0xff. A length is one byte
// below 254, or 254 and a 4-byte little-endian length.
func DecodeZipmap(zm []byte) ([][]byte, error) {
	if len(zm) < 2 || zm[len(zm)-1] != 0xff {
		return nil, corrupt("zipmap without its end byte")
	}
	end := len(zm) - 1
	off := 1
	readLen := func() (int, error) {
		if off >= end {
			return 0, corrupt("zipmap length past the end at %d", off)
		}
		b := zm[off]
		off++
		if b < 254 {
			return int(b), nil
		}
		if b == 255 || off+4 > end {
			return 0, corrupt("zipmap length at %d", off-1)
		}
		n := uint64(binary.LittleEndian.Uint32(zm[off:]))
		off += 4
		if n > uint64(end) {
			return 0, corrupt("zipmap length %d past the end", n)
		}
		return int(n), nil
	}
	var out [][]byte
	for off < end {
		klen, err := readLen()
		if err != nil {
			return nil, err
		}
		if off+klen > end {
			return nil, corrupt("zipmap key past the end at %d", off)
		}
		key := zm[off : off+klen]
		off += klen
		vlen, err := readLen()
		if err != nil {
			return nil, err
		}
		if off >= end {
			return nil, corrupt("zipmap free byte past the end at %d", off)
		}
		free := int(zm[off])
		off++
		if off+vlen+free > end {
			return nil, corrupt("zipmap value past the end at %d", off)
		}
		out = append(out, key, zm[off:off+vlen])
		off += vlen + free
	}
	if n := int(zm[0]); n < 254 && n != len(out)/2 {
		return nil, corrupt("zipmap header says %d entries, have %d", n, len(out)/2)
	}
	return out, nil
}
