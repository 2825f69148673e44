package encoding

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Families added for the collection types. Part of the file format.
const (
	// FamilyFieldTTL: per-hash index of field deadlines,
	// db|slot|len(key)|key|version|expire-ms u64|field → nothing. Lets HLEN
	// count a hash's expired-but-unreclaimed fields without reading them.
	FamilyFieldTTL Family = 0x06
	// FamilyFieldExpire: one entry per hash that has field deadlines, keyed
	// by its earliest one: expire-ms|<meta key without family>. The reaper
	// finds hashes with due fields here, as it finds due keys in
	// FamilyExpire.
	FamilyFieldExpire Family = 0x07
)

// SubKeyFamilies are the families that hold a collection's records under
// its version: everything a range delete of one version must cover.
var SubKeyFamilies = [...]Family{FamilySub, FamilyScore, FamilyFieldTTL}

// AppendSubKey appends the sub-key of member under prefix (from
// AppendSubKeyPrefix). The member is last, so it needs no length.
func AppendSubKey(dst, prefix, member []byte) []byte {
	dst = append(dst, prefix...)
	return append(dst, member...)
}

// --- Lists -----------------------------------------------------------------

// ListStart is where a new list's head and tail begin: the middle of the
// uint64 range, so a list can grow a long way at either end.
const ListStart uint64 = 1 << 63

// ListMeta is a list's type-specific metadata: items live at indices
// [Head, Tail).
type ListMeta struct{ Head, Tail uint64 }

// AppendListMeta appends the list tail of a metadata record.
func AppendListMeta(dst []byte, l ListMeta) []byte {
	dst = binary.BigEndian.AppendUint64(dst, l.Head)
	return binary.BigEndian.AppendUint64(dst, l.Tail)
}

// DecodeListMeta decodes Meta.Value of a list.
func DecodeListMeta(b []byte) (ListMeta, error) {
	if len(b) != 16 {
		return ListMeta{}, fmt.Errorf("%w: list metadata tail of %d bytes", ErrCorrupt, len(b))
	}
	return ListMeta{Head: binary.BigEndian.Uint64(b), Tail: binary.BigEndian.Uint64(b[8:])}, nil
}

// AppendListIndex appends the sub-key of the item at index i.
func AppendListIndex(dst, prefix []byte, i uint64) []byte {
	dst = append(dst, prefix...)
	return binary.BigEndian.AppendUint64(dst, i)
}

// --- Sorted sets -------------------------------------------------------------

// ScoreBits maps a score to a uint64 whose unsigned order is the numeric
// order of scores, -inf and +inf included: positive numbers get the sign bit
// set, negative numbers are inverted. -0 gets the code of +0: they compare
// equal, so in the score index they tie and order by member, as in Redis.
// NaN must be rejected before.
func ScoreBits(f float64) uint64 {
	if f == 0 {
		f = 0 // -0 → +0
	}
	return signedScoreBits(f)
}

// NegZeroBits is the code of -0 in a member's score record: ScoreBits' order
// with -0 just below +0 (it is what the mapping gives -0 before ScoreBits
// folds it into +0). Only member records hold it. Part of the file format.
const NegZeroBits uint64 = 1<<63 - 1

func signedScoreBits(f float64) uint64 {
	b := math.Float64bits(f)
	if b>>63 == 0 {
		return b | 1<<63
	}
	return ^b
}

// ScoreFromBits inverts ScoreBits, and decodes NegZeroBits as -0.
func ScoreFromBits(u uint64) float64 {
	if u>>63 == 1 {
		return math.Float64frombits(u &^ (1 << 63))
	}
	return math.Float64frombits(^u)
}

// AppendScore appends the order-preserving 8-byte form of a score, as the
// score index keys hold it (-0 as +0).
func AppendScore(dst []byte, f float64) []byte {
	return binary.BigEndian.AppendUint64(dst, ScoreBits(f))
}

// AppendMemberScore appends a member record's score: AppendScore's form,
// except that -0 keeps its sign as NegZeroBits. Redis keeps a -0 score only
// in a sorted set it holds as a skiplist (its listpack stores 0 as the
// integer 0); deciding which is the caller's job: it passes +0 where Redis
// would have stored it.
func AppendMemberScore(dst []byte, f float64) []byte {
	return binary.BigEndian.AppendUint64(dst, signedScoreBits(f))
}

// DecodeScore decodes AppendScore's and AppendMemberScore's forms.
func DecodeScore(b []byte) (float64, error) {
	if len(b) < 8 {
		return 0, fmt.Errorf("%w: score of %d bytes", ErrCorrupt, len(b))
	}
	return ScoreFromBits(binary.BigEndian.Uint64(b)), nil
}

// scoreIndexNegZero is the value of a score index entry whose member
// scores -0; every other entry's value is empty. Part of the file format.
const scoreIndexNegZero = 0x01

// IsNegZero reports whether f is -0.
func IsNegZero(f float64) bool { return f == 0 && math.Signbit(f) }

// AppendScoreIndexValue appends the value of the score index entry of a
// member scoring f: nothing, or a one-byte mark for -0, whose key holds the
// code of +0 (the two must tie in the index), so that range reads get the
// sign without reading the member record.
func AppendScoreIndexValue(dst []byte, f float64) []byte {
	if IsNegZero(f) {
		return append(dst, scoreIndexNegZero)
	}
	return dst
}

// ScoreFromIndex returns the score of a score index entry whose key holds
// score (decoded) and whose value is v.
func ScoreFromIndex(score float64, v []byte) (float64, error) {
	switch {
	case len(v) == 0:
		return score, nil
	case len(v) == 1 && v[0] == scoreIndexNegZero && score == 0:
		return math.Copysign(0, -1), nil
	}
	return 0, fmt.Errorf("%w: score index value %x for score %g", ErrCorrupt, v, score)
}

// AppendScoreKey appends a score index key: prefix (FamilyScore) | score |
// member.
func AppendScoreKey(dst, prefix []byte, score float64, member []byte) []byte {
	dst = append(dst, prefix...)
	dst = AppendScore(dst, score)
	return append(dst, member...)
}

// ZSetMeta is a sorted set's type-specific metadata: bounds on the score
// index. Every live member's ScoreBits lie within [Low, High], so a reader
// of the score index can start at prefix|Low and stop before
// prefix|High+1, never walking the entries (and tombstones) of members
// removed below or above. They are true bounds at all times, not
// necessarily the exact extremes.
type ZSetMeta struct{ Low, High uint64 }

// ZSetUnbounded is the bounds of a set whose metadata records none: every
// score index key of the set's version lies within them.
var ZSetUnbounded = ZSetMeta{Low: 0, High: math.MaxUint64}

// zsetMetaLen is the length of a zset tail that holds bounds. The length
// of the tail is its layout version: 0 bytes = no bounds (ZSetUnbounded),
// 16 bytes = Low u64 | High u64. Part of the file format.
const zsetMetaLen = 16

// AppendZSetMeta appends the zset tail of a metadata record: nothing for
// ZSetUnbounded, else Low | High.
func AppendZSetMeta(dst []byte, z ZSetMeta) []byte {
	if z == ZSetUnbounded {
		return dst
	}
	dst = binary.BigEndian.AppendUint64(dst, z.Low)
	return binary.BigEndian.AppendUint64(dst, z.High)
}

// DecodeZSetMeta decodes Meta.Value of a sorted set.
func DecodeZSetMeta(b []byte) (ZSetMeta, error) {
	switch len(b) {
	case 0:
		return ZSetUnbounded, nil
	case zsetMetaLen:
		z := ZSetMeta{Low: binary.BigEndian.Uint64(b), High: binary.BigEndian.Uint64(b[8:])}
		if z.Low > z.High {
			return ZSetMeta{}, fmt.Errorf("%w: zset score bounds %#x > %#x", ErrCorrupt, z.Low, z.High)
		}
		return z, nil
	}
	return ZSetMeta{}, fmt.Errorf("%w: zset metadata tail of %d bytes", ErrCorrupt, len(b))
}

// Contains reports whether score bits u lie within the bounds.
func (z ZSetMeta) Contains(u uint64) bool { return z.Low <= u && u <= z.High }

// --- Hashes -------------------------------------------------------------------

// A hash field's value record: a tag byte, then the deadline when the tag
// says the field has one, then the value.
const (
	fieldPlain   byte = 0
	fieldExpires byte = 1
)

// AppendFieldValue appends a hash field's value record (expireMs 0: none).
func AppendFieldValue(dst []byte, expireMs int64, value []byte) []byte {
	if expireMs == 0 {
		dst = append(dst, fieldPlain)
	} else {
		dst = append(dst, fieldExpires)
		dst = binary.BigEndian.AppendUint64(dst, uint64(expireMs))
	}
	return append(dst, value...)
}

// DecodeFieldValue splits a field value record. value aliases b.
func DecodeFieldValue(b []byte) (expireMs int64, value []byte, err error) {
	switch {
	case len(b) >= 1 && b[0] == fieldPlain:
		return 0, b[1:], nil
	case len(b) >= 9 && b[0] == fieldExpires:
		return int64(binary.BigEndian.Uint64(b[1:])), b[9:], nil
	}
	return 0, nil, fmt.Errorf("%w: hash field value of %d bytes", ErrCorrupt, len(b))
}

// HashMeta is a hash's type-specific metadata: the earliest field deadline
// (0: no field has one), which is also the key of its FamilyFieldExpire
// entry.
type HashMeta struct{ MinFieldExpireMs int64 }

// AppendHashMeta appends the hash tail of a metadata record. A hash with no
// field deadlines has an empty tail.
func AppendHashMeta(dst []byte, h HashMeta) []byte {
	if h.MinFieldExpireMs == 0 {
		return dst
	}
	return binary.BigEndian.AppendUint64(dst, uint64(h.MinFieldExpireMs))
}

// DecodeHashMeta decodes Meta.Value of a hash.
func DecodeHashMeta(b []byte) (HashMeta, error) {
	switch len(b) {
	case 0:
		return HashMeta{}, nil
	case 8:
		return HashMeta{MinFieldExpireMs: int64(binary.BigEndian.Uint64(b))}, nil
	}
	return HashMeta{}, fmt.Errorf("%w: hash metadata tail of %d bytes", ErrCorrupt, len(b))
}

// FieldDeadline returns the earliest field deadline recorded in a hash's
// metadata, 0 for anything else.
func FieldDeadline(m *Meta) int64 {
	if m.Type != TypeHash {
		return 0
	}
	h, err := DecodeHashMeta(m.Value)
	if err != nil {
		return 0
	}
	return h.MinFieldExpireMs
}

// AppendFieldTTLKey appends a per-hash field deadline index key:
// prefix (FamilyFieldTTL) | expire-ms | field.
func AppendFieldTTLKey(dst, prefix []byte, expireMs int64, field []byte) []byte {
	dst = append(dst, prefix...)
	dst = binary.BigEndian.AppendUint64(dst, uint64(expireMs))
	return append(dst, field...)
}

// AppendFieldExpireKey appends a hash's FamilyFieldExpire entry: its
// earliest field deadline, then its metadata key without the family byte.
func AppendFieldExpireKey(dst []byte, expireMs int64, metaKey []byte) []byte {
	dst = append(dst, byte(FamilyFieldExpire))
	dst = binary.BigEndian.AppendUint64(dst, uint64(expireMs))
	return append(dst, metaKey[1:]...)
}

// DecodeFieldExpireKey is DecodeExpireKey for FamilyFieldExpire.
func DecodeFieldExpireKey(dst, k []byte) (expireMs int64, metaKey []byte, err error) {
	if len(k) < 1+8+MetaPrefixLen-1 || Family(k[0]) != FamilyFieldExpire {
		return 0, nil, fmt.Errorf("%w: field expiry key of %d bytes", ErrCorrupt, len(k))
	}
	expireMs = int64(binary.BigEndian.Uint64(k[1:]))
	dst = append(dst, byte(FamilyMeta))
	return expireMs, append(dst, k[9:]...), nil
}

// --- Sortedints ----------------------------------------------------------------

// Sortedints (Kvrocks's type) keep one FamilySub record per member with an
// empty value, the member as a big-endian u64, so byte order is numeric
// order.

// AppendSortedintMember appends the sub-key of id under prefix.
func AppendSortedintMember(dst, prefix []byte, id uint64) []byte {
	dst = append(dst, prefix...)
	return binary.BigEndian.AppendUint64(dst, id)
}

// DecodeSortedintMember decodes the member part of a sortedint sub-key.
func DecodeSortedintMember(b []byte) (uint64, error) {
	if len(b) != 8 {
		return 0, fmt.Errorf("%w: sortedint member of %d bytes", ErrCorrupt, len(b))
	}
	return binary.BigEndian.Uint64(b), nil
}
