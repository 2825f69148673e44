package encoding

import (
	"encoding/binary"
	"fmt"
)

// Type is the Redis type of a key, stored in the low four bits of the
// metadata flags byte. Part of the file format: never renumber.
type Type byte

// Key types.
const (
	TypeString Type = 1
	TypeHash   Type = 2
	TypeSet    Type = 3
	TypeList   Type = 4
	TypeZSet   Type = 5
	TypeStream Type = 6
	// TypeSortedint is Kvrocks's sortedint: a set of unsigned 64-bit
	// integers kept in ascending order.
	TypeSortedint Type = 7
)

// LastType is the highest type value in use.
const LastType = TypeSortedint

// String is the name TYPE replies with.
func (t Type) String() string {
	switch t {
	case TypeString:
		return "string"
	case TypeHash:
		return "hash"
	case TypeSet:
		return "set"
	case TypeList:
		return "list"
	case TypeZSet:
		return "zset"
	case TypeStream:
		return "stream"
	case TypeSortedint:
		return "sortedint"
	}
	return "unknown"
}

// IsCollection reports whether the type keeps its data in sub-keys under a
// version (everything but inline strings).
func (t Type) IsCollection() bool { return t != TypeString }

// CurrentEncodingVersion is written in the high four bits of the flags byte of
// every new record; decoders accept every version they know.
const CurrentEncodingVersion = 0

// StringReprVersion is the encoding version of a string record that
// carries a representation byte (see StringRepr):
//
//	flags u8 (1<<4 | TypeString) | expire-ms u64 | repr u8 | value...
//
// A string whose representation is ReprAuto is written at version 0,
// without the byte, so every record written before it reads unchanged.
// Part of the file format.
const StringReprVersion = 1

// FragmentedStringVersion is the encoding version of a string kept in
// fixed-size fragments under a version, like a collection's members:
//
//	flags u8 (2<<4 | TypeString) | expire-ms u64 | version u64 | length u64 | fragment-shift u8
//
// Fragment i holds bytes [i<<shift, (i+1)<<shift) of the value under the
// sub-key AppendFragmentKey(prefix, i); a fragment that is missing, or
// shorter than the fragment size, reads as zero bytes. The shift is in the
// record so that a later default fragment size leaves old strings
// readable. Part of the file format.
const FragmentedStringVersion = 2

// StringRepr is how Redis would hold a string value, which OBJECT ENCODING
// reports: Redis keeps a value built in place (APPEND to a key, SETRANGE)
// as a raw buffer whatever it holds, and one from INCRBYFLOAT as a plain
// string even when it reads as an integer. Part of the file format: never
// renumber.
type StringRepr byte

// String representations.
const (
	// ReprAuto is judged from the value as Redis's tryObjectEncoding does:
	// int, embstr up to 44 bytes, raw beyond.
	ReprAuto StringRepr = 0
	// ReprPlain is never int: embstr up to 44 bytes, raw beyond.
	ReprPlain StringRepr = 1
	// ReprRaw is raw whatever the value.
	ReprRaw StringRepr = 2
)

// Meta is the decoded metadata record of one key.
//
// String (value inline, so GET is one point read):
//
//	flags u8 | expire-ms u64 | value...
//
// or, for a value whose representation is not ReprAuto, the record of
// StringReprVersion.
//
// Collections:
//
//	flags u8 | expire-ms u64 | version u64 | size u64 | type-specific...
//
// flags = encoding-version<<4 | type. expire-ms 0 means no expiry.
type Meta struct {
	Type     Type
	ExpireMs int64
	// Version names the collection's sub-keys; a new collection under the
	// same name gets a new version and never sees stale members.
	Version uint64
	// Size is the member count (HLEN, SCARD, ZCARD, LLEN).
	Size uint64
	// Value is the inline string value, or the type-specific tail of a
	// collection's record. It aliases the decoded buffer.
	Value []byte
	// Repr is a string's representation (ReprAuto for collections).
	Repr StringRepr
	// FragShift is, for a string held in fragments, log2 of its fragment
	// size (0 for an inline string); Size is then its length and Version
	// names its fragments.
	FragShift uint8
}

// Fragmented reports whether m is a string held in fragments.
func (m *Meta) Fragmented() bool { return m.FragShift != 0 }

// HasSubKeys reports whether the key keeps records under its version: a
// collection, or a string held in fragments.
func (m *Meta) HasSubKeys() bool { return m.Type.IsCollection() || m.FragShift != 0 }

// MinFragShift and MaxFragShift bound a fragmented string's fragment size
// (16 B to 1 MiB): anything else is a corrupt record.
const (
	MinFragShift = 4
	MaxFragShift = 20
)

const (
	stringHeaderLen     = 1 + 8
	collectionHeaderLen = 1 + 8 + 8 + 8
	fragmentedLen       = collectionHeaderLen + 1
)

// Expired reports whether the key's deadline has passed at nowMs. As in
// Redis, a key lives through the millisecond of its deadline (PTTL 0) and is
// gone after it.
func (m *Meta) Expired(nowMs int64) bool { return m.ExpireMs != 0 && m.ExpireMs < nowMs }

// AppendMeta appends the encoded record.
func AppendMeta(dst []byte, m *Meta) []byte {
	if m.Type == TypeString && m.FragShift != 0 {
		dst = append(dst, FragmentedStringVersion<<4|byte(TypeString))
		dst = binary.BigEndian.AppendUint64(dst, uint64(m.ExpireMs))
		dst = binary.BigEndian.AppendUint64(dst, m.Version)
		dst = binary.BigEndian.AppendUint64(dst, m.Size)
		return append(dst, m.FragShift)
	}
	if m.Type == TypeString && m.Repr != ReprAuto {
		dst = append(dst, StringReprVersion<<4|byte(TypeString))
		dst = binary.BigEndian.AppendUint64(dst, uint64(m.ExpireMs))
		dst = append(dst, byte(m.Repr))
		return append(dst, m.Value...)
	}
	dst = append(dst, CurrentEncodingVersion<<4|byte(m.Type))
	dst = binary.BigEndian.AppendUint64(dst, uint64(m.ExpireMs))
	if m.Type.IsCollection() {
		dst = binary.BigEndian.AppendUint64(dst, m.Version)
		dst = binary.BigEndian.AppendUint64(dst, m.Size)
	}
	return append(dst, m.Value...)
}

// AppendStringMeta appends a string record without building a Meta.
func AppendStringMeta(dst []byte, expireMs int64, value []byte) []byte {
	dst = append(dst, CurrentEncodingVersion<<4|byte(TypeString))
	dst = binary.BigEndian.AppendUint64(dst, uint64(expireMs))
	return append(dst, value...)
}

// DecodeMeta decodes a metadata record. Value aliases b.
func DecodeMeta(b []byte) (Meta, error) {
	if len(b) < stringHeaderLen {
		return Meta{}, fmt.Errorf("%w: metadata of %d bytes", ErrCorrupt, len(b))
	}
	m := Meta{Type: Type(b[0] & 0x0f), ExpireMs: int64(binary.BigEndian.Uint64(b[1:]))}
	v := b[0] >> 4
	switch {
	case v == FragmentedStringVersion && m.Type == TypeString:
		if len(b) != fragmentedLen || b[fragmentedLen-1] < MinFragShift || b[fragmentedLen-1] > MaxFragShift {
			return Meta{}, fmt.Errorf("%w: fragmented string metadata of %d bytes, or a fragment shift out of range", ErrCorrupt, len(b))
		}
		m.Version = binary.BigEndian.Uint64(b[9:])
		m.Size = binary.BigEndian.Uint64(b[17:])
		m.FragShift = b[fragmentedLen-1]
	case v == StringReprVersion && m.Type == TypeString:
		// ReprAuto is never written with the byte: each record has one form.
		if len(b) < stringHeaderLen+1 || (b[stringHeaderLen] != byte(ReprPlain) && b[stringHeaderLen] != byte(ReprRaw)) {
			return Meta{}, fmt.Errorf("%w: string metadata of %d bytes, representation byte missing or unknown", ErrCorrupt, len(b))
		}
		m.Repr = StringRepr(b[stringHeaderLen])
		m.Value = b[stringHeaderLen+1:]
	case v > CurrentEncodingVersion:
		return Meta{}, fmt.Errorf("%w: unknown encoding version %d", ErrCorrupt, v)
	case m.Type == TypeString:
		m.Value = b[stringHeaderLen:]
	case m.Type >= TypeHash && m.Type <= LastType:
		if len(b) < collectionHeaderLen {
			return Meta{}, fmt.Errorf("%w: %s metadata of %d bytes", ErrCorrupt, m.Type, len(b))
		}
		m.Version = binary.BigEndian.Uint64(b[9:])
		m.Size = binary.BigEndian.Uint64(b[17:])
		m.Value = b[collectionHeaderLen:]
	default:
		return Meta{}, fmt.Errorf("%w: unknown type %d", ErrCorrupt, m.Type)
	}
	return m, nil
}
