package rdb

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc64"
	"strconv"
)

// Version is the RDB format version Cairn writes: Redis 7.2's. Payloads of
// this version or older are read.
const Version = 11

// Opcodes and types of the RDB format used here (src/rdb.h).
const (
	// OpFunction2 precedes a function library's code in FUNCTION DUMP's
	// payload and in RDB files (Redis 7.0 and later).
	OpFunction2 = 245
	// OpFunctionPreGA is the format of Redis 7.0's release candidates,
	// which Redis itself no longer reads.
	OpFunctionPreGA = 246
)

// Length-encoding markers: the two high bits of a length's first byte.
const (
	len6bit   = 0
	len14bit  = 1
	len32or64 = 2
	lenEncVal = 3

	len32 = 0x80
	len64 = 0x81

	encInt8  = 0
	encInt16 = 1
	encInt32 = 2
	encLZF   = 3
)

// ErrCorrupt reports input that is not a valid encoding.
var ErrCorrupt = errors.New("rdb: corrupt input")

func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
}

// crcTable is the reflected form of the Jones polynomial
// 0xad93d23594c935a9 that Redis's crc64 uses.
var crcTable = crc64.MakeTable(0x95ac9329ac4bc9b5)

// CRC64 extends crc, Redis's CRC-64/Jones (no initial or final inversion),
// with p. CRC64(0, "123456789") is 0xe9c6d914c4b8d9ca.
func CRC64(crc uint64, p []byte) uint64 {
	// hash/crc64 inverts before and after; undoing both gives Redis's.
	return ^crc64.Update(^crc, crcTable, p)
}

// AppendLength appends n in RDB's length encoding.
func AppendLength(dst []byte, n uint64) []byte {
	switch {
	case n < 1<<6:
		return append(dst, byte(n))
	case n < 1<<14:
		return append(dst, byte(n>>8)|len14bit<<6, byte(n))
	case n <= 0xffffffff:
		dst = append(dst, len32)
		return binary.BigEndian.AppendUint32(dst, uint32(n))
	default:
		dst = append(dst, len64)
		return binary.BigEndian.AppendUint64(dst, n)
	}
}

// AppendString appends s as an RDB string: a length and the raw bytes.
// Redis may also write small integers in their integer encoding and long
// strings LZF-compressed; readers take all three, so the plain form is
// always valid.
func AppendString(dst, s []byte) []byte {
	dst = AppendLength(dst, uint64(len(s)))
	return append(dst, s...)
}

// Reader reads RDB-encoded values from a byte slice.
type Reader struct {
	buf []byte
	off int
}

// NewReader reads from b.
func NewReader(b []byte) *Reader { return &Reader{buf: b} }

// Len returns how many bytes remain.
func (r *Reader) Len() int { return len(r.buf) - r.off }

// Byte reads one byte.
func (r *Reader) Byte() (byte, error) {
	if r.off >= len(r.buf) {
		return 0, corrupt("unexpected end of input at %d", r.off)
	}
	b := r.buf[r.off]
	r.off++
	return b, nil
}

func (r *Reader) take(n uint64) ([]byte, error) {
	if n > uint64(r.Len()) {
		return nil, corrupt("length %d past the end of input at %d", n, r.off)
	}
	b := r.buf[r.off : r.off+int(n)]
	r.off += int(n)
	return b, nil
}

// byteSource is what a length is read from: a slice (Reader) or a stream
// (the RDB file reader's source).
type byteSource interface {
	readByte() (byte, error)
	// readSmall returns the next n (at most 8) bytes, valid until the next
	// read.
	readSmall(n int) ([]byte, error)
}

func (r *Reader) readByte() (byte, error)         { return r.Byte() }
func (r *Reader) readSmall(n int) ([]byte, error) { return r.take(uint64(n)) }

// readLength reads a length or, when encoded is returned true, the special
// encoding number of a string.
func readLength(src byteSource) (n uint64, encoded bool, err error) {
	b, err := src.readByte()
	if err != nil {
		return 0, false, err
	}
	switch b >> 6 {
	case len6bit:
		return uint64(b & 0x3f), false, nil
	case len14bit:
		b2, err := src.readByte()
		if err != nil {
			return 0, false, err
		}
		return uint64(b&0x3f)<<8 | uint64(b2), false, nil
	case lenEncVal:
		return uint64(b & 0x3f), true, nil
	}
	switch b {
	case len32:
		p, err := src.readSmall(4)
		if err != nil {
			return 0, false, err
		}
		return uint64(binary.BigEndian.Uint32(p)), false, nil
	case len64:
		p, err := src.readSmall(8)
		if err != nil {
			return 0, false, err
		}
		return binary.BigEndian.Uint64(p), false, nil
	}
	return 0, false, corrupt("unknown length encoding %#x", b)
}

func (r *Reader) length() (n uint64, encoded bool, err error) { return readLength(r) }

// Length reads a length.
func (r *Reader) Length() (uint64, error) {
	n, enc, err := r.length()
	if err == nil && enc {
		err = corrupt("encoded value where a length was expected")
	}
	return n, err
}

// String reads an RDB string in any of its encodings: raw, integer, or
// LZF-compressed. The result may alias the input.
func (r *Reader) String() ([]byte, error) {
	n, enc, err := r.length()
	if err != nil {
		return nil, err
	}
	if !enc {
		return r.take(n)
	}
	switch n {
	case encInt8:
		p, err := r.take(1)
		if err != nil {
			return nil, err
		}
		return strconv.AppendInt(nil, int64(int8(p[0])), 10), nil
	case encInt16:
		p, err := r.take(2)
		if err != nil {
			return nil, err
		}
		return strconv.AppendInt(nil, int64(int16(binary.LittleEndian.Uint16(p))), 10), nil
	case encInt32:
		p, err := r.take(4)
		if err != nil {
			return nil, err
		}
		return strconv.AppendInt(nil, int64(int32(binary.LittleEndian.Uint32(p))), 10), nil
	case encLZF:
		clen, err := r.Length()
		if err != nil {
			return nil, err
		}
		ulen, err := r.Length()
		if err != nil {
			return nil, err
		}
		comp, err := r.take(clen)
		if err != nil {
			return nil, err
		}
		// LZF expands a byte to at most about 264: a claimed length
		// beyond that is a lie, refused before anything is allocated.
		if ulen > uint64(len(comp))*264+264 {
			return nil, corrupt("LZF length %d from %d compressed bytes", ulen, len(comp))
		}
		return lzfDecompress(comp, int(ulen))
	}
	return nil, corrupt("unknown string encoding %d", n)
}

// lzfDecompress expands LZF data (as liblzf's lzf_decompress) into exactly
// n bytes.
func lzfDecompress(in []byte, n int) ([]byte, error) {
	// Grown as the output is produced, so that a lying length costs no
	// more than the data really expands to.
	out := make([]byte, 0, min(n, 4*len(in)+64))
	for i := 0; i < len(in); {
		ctrl := int(in[i])
		i++
		if ctrl < 1<<5 {
			// A literal run of ctrl+1 bytes.
			run := ctrl + 1
			if i+run > len(in) || len(out)+run > n {
				return nil, corrupt("LZF literal run past the end")
			}
			out = append(out, in[i:i+run]...)
			i += run
			continue
		}
		// A back reference: length in the top 3 bits (7 = one more byte).
		length := ctrl >> 5
		if length == 7 {
			if i >= len(in) {
				return nil, corrupt("LZF reference past the end")
			}
			length += int(in[i])
			i++
		}
		if i >= len(in) {
			return nil, corrupt("LZF reference past the end")
		}
		back := (ctrl&0x1f)<<8 + int(in[i]) + 1
		i++
		length += 2
		if back > len(out) || len(out)+length > n {
			return nil, corrupt("LZF reference out of range")
		}
		start := len(out) - back
		for k := range length {
			// Byte by byte: a reference may overlap what it produces.
			out = append(out, out[start+k])
		}
	}
	if len(out) != n {
		return nil, corrupt("LZF output %d bytes, want %d", len(out), n)
	}
	return out, nil
}

// AppendTrailer ends a DUMP-style payload: the RDB version (2 bytes,
// little-endian) and the CRC64 of everything before it, version included
// (8 bytes, little-endian).
func AppendTrailer(payload []byte) []byte {
	payload = binary.LittleEndian.AppendUint16(payload, Version)
	return binary.LittleEndian.AppendUint64(payload, CRC64(0, payload))
}

// ErrBadTrailer is RESTORE's "payload version or checksum are wrong".
var ErrBadTrailer = errors.New("rdb: payload version or checksum are wrong")

// CheckTrailer verifies a DUMP-style payload's version and checksum and
// returns the body before the trailer.
func CheckTrailer(payload []byte) ([]byte, error) { return checkTrailer(payload, Version) }

func checkTrailer(payload []byte, maxVersion uint16) ([]byte, error) {
	if len(payload) < 10 {
		return nil, ErrBadTrailer
	}
	body := payload[:len(payload)-10]
	ver := binary.LittleEndian.Uint16(payload[len(payload)-10:])
	if ver > maxVersion {
		return nil, ErrBadTrailer
	}
	crc := binary.LittleEndian.Uint64(payload[len(payload)-8:])
	if crc != CRC64(0, payload[:len(payload)-8]) {
		return nil, ErrBadTrailer
	}
	return body, nil
}

// AppendFunctions builds FUNCTION DUMP's payload from the libraries' code.
func AppendFunctions(dst []byte, codes [][]byte) []byte {
	for _, c := range codes {
		dst = append(dst, OpFunction2)
		dst = AppendString(dst, c)
	}
	return AppendTrailer(dst)
}

// Errors FUNCTION RESTORE reports as Redis words them.
var (
	ErrNotFunction = errors.New("given type is not a function")
	ErrPreGA       = errors.New("Pre-GA function format not supported")
)

// ReadFunctions decodes FUNCTION DUMP's payload into the libraries' code.
func ReadFunctions(payload []byte) ([][]byte, error) {
	body, err := CheckTrailer(payload)
	if err != nil {
		return nil, err
	}
	r := NewReader(body)
	var codes [][]byte
	for r.Len() > 0 {
		op, _ := r.Byte()
		switch op {
		case OpFunction2:
		case OpFunctionPreGA:
			return nil, ErrPreGA
		default:
			return nil, ErrNotFunction
		}
		code, err := r.String()
		if err != nil {
			return nil, err
		}
		codes = append(codes, code)
	}
	return codes, nil
}
