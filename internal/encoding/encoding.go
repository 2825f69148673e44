// Package encoding is the byte layout of every record Cairn writes to its
// ordered key-value engine. It is pure functions: no I/O, no locks, no clock.
//
// Every key starts with a one-byte family, so record families (metadata,
// sub-keys, score index, expiry index, bookkeeping) occupy disjoint ranges of
// the keyspace, the way Kvrocks uses column families. Integers are big-endian
// so byte order is numeric order, and a user key embedded before other fields
// is length-prefixed, so no user key can collide with another. The layouts are
// drawn in docs/encoding.md.
//
// The byte values and layouts here are part of the on-disk format: changing
// one makes existing data unreadable. Add new families, types or encoding
// versions instead.
package encoding

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

// Family is the first byte of every engine key. Part of the file format.
type Family byte

// Record families.
const (
	// FamilyMeta: one record per user key, db|slot|hash|key → Meta.
	FamilyMeta Family = 0x01
	// FamilySub: collection members, db|slot|len(key)|key|version|sub-key.
	FamilySub Family = 0x02
	// FamilyScore: the sorted-set score index, db|slot|len(key)|key|version|score|member
	// → empty, or AppendScoreIndexValue's mark of a -0 score.
	FamilyScore Family = 0x03
	// FamilyExpire: the expiry index, expire-ms|<meta key without family>.
	FamilyExpire Family = 0x04
	// FamilyInternal: the server's own bookkeeping (counters, db map, version lease).
	FamilyInternal Family = 0x05
)

// ErrCorrupt is returned (wrapped) when a record cannot be decoded.
var ErrCorrupt = errors.New("encoding: corrupt record")

// SlotCount is the number of Redis Cluster hash slots.
const SlotCount = 16384

// KeyHashLen is the size of the key hash stored in a metadata key.
const KeyHashLen = 4

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// KeyHash is the 32-bit hash that orders keys inside a slot. It gives SCAN a
// stateless cursor: (slot, hash) is a position that survives restarts and
// reconnects. CRC-32C, fixed forever (part of the file format).
func KeyHash(key []byte) uint32 { return crc32.Checksum(key, castagnoli) }

// Slot returns the Redis Cluster hash slot of key: CRC16 (XMODEM) of the hash
// tag — the part between the first '{' and the next '}' when that part is
// non-empty — or of the whole key.
func Slot(key []byte) uint16 {
	if s := indexByte(key, '{'); s >= 0 {
		if e := indexByte(key[s+1:], '}'); e > 0 {
			key = key[s+1 : s+1+e]
		}
	}
	return crc16(key) & (SlotCount - 1)
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

// MetaPrefixLen is the length of a metadata key before the user key.
const MetaPrefixLen = 1 + 2 + 2 + KeyHashLen

// AppendMetaKey appends the metadata key of (db, key):
//
//	0x01 | db u16 | slot u16 | crc32c(key) u32 | key
func AppendMetaKey(dst []byte, db uint16, key []byte) []byte {
	dst = append(dst, byte(FamilyMeta))
	dst = binary.BigEndian.AppendUint16(dst, db)
	dst = binary.BigEndian.AppendUint16(dst, Slot(key))
	dst = binary.BigEndian.AppendUint32(dst, KeyHash(key))
	return append(dst, key...)
}

// MetaKey is a decoded metadata key. Key aliases the input.
type MetaKey struct {
	DB   uint16
	Slot uint16
	Hash uint32
	Key  []byte
}

// DecodeMetaKey splits a metadata key. The user key aliases k.
func DecodeMetaKey(k []byte) (MetaKey, error) {
	if len(k) < MetaPrefixLen || Family(k[0]) != FamilyMeta {
		return MetaKey{}, fmt.Errorf("%w: metadata key of %d bytes", ErrCorrupt, len(k))
	}
	return MetaKey{
		DB:   binary.BigEndian.Uint16(k[1:]),
		Slot: binary.BigEndian.Uint16(k[3:]),
		Hash: binary.BigEndian.Uint32(k[5:]),
		Key:  k[MetaPrefixLen:],
	}, nil
}

// AppendDBPrefix appends the prefix shared by every record of family f in db
// (f must be FamilyMeta, FamilySub or FamilyScore).
func AppendDBPrefix(dst []byte, f Family, db uint16) []byte {
	dst = append(dst, byte(f))
	return binary.BigEndian.AppendUint16(dst, db)
}

// AppendScanPosition appends the metadata key at which a keyspace scan of db
// resumes from the position (slot, hash). Keys at exactly that position sort
// at or after it.
func AppendScanPosition(dst []byte, db, slot uint16, hash uint32) []byte {
	dst = AppendDBPrefix(dst, FamilyMeta, db)
	dst = binary.BigEndian.AppendUint16(dst, slot)
	return binary.BigEndian.AppendUint32(dst, hash)
}

// AppendSubKeyPrefix appends the prefix shared by every sub-key of one
// version of a collection:
//
//	family | db u16 | slot u16 | len(key) u32 | key | version u64
//
// family is FamilySub or FamilyScore. A range delete over
// [prefix, PrefixEnd(prefix)) reclaims the whole collection.
func AppendSubKeyPrefix(dst []byte, f Family, db uint16, key []byte, version uint64) []byte {
	dst = append(dst, byte(f))
	dst = binary.BigEndian.AppendUint16(dst, db)
	dst = binary.BigEndian.AppendUint16(dst, Slot(key))
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(key)))
	dst = append(dst, key...)
	return binary.BigEndian.AppendUint64(dst, version)
}

// AppendExpireKey appends the expiry index key for a metadata key:
//
//	0x04 | expire-ms u64 | metaKey[1:]
//
// Ordered by deadline, so the reaper finds due keys with one bounded scan.
func AppendExpireKey(dst []byte, expireMs int64, metaKey []byte) []byte {
	dst = append(dst, byte(FamilyExpire))
	dst = binary.BigEndian.AppendUint64(dst, uint64(expireMs))
	return append(dst, metaKey[1:]...)
}

// ExpirePrefixEnd is the expiry index key bound before which every deadline is
// ≤ nowMs: scanning [ {0x04}, ExpireUpTo(nowMs) ) yields the due entries.
func ExpireUpTo(dst []byte, nowMs int64) []byte {
	dst = append(dst, byte(FamilyExpire))
	return binary.BigEndian.AppendUint64(dst, uint64(nowMs)+1)
}

// DecodeExpireKey returns the deadline and rebuilds the metadata key
// (appended to dst) from an expiry index key.
func DecodeExpireKey(dst, k []byte) (expireMs int64, metaKey []byte, err error) {
	if len(k) < 1+8+MetaPrefixLen-1 || Family(k[0]) != FamilyExpire {
		return 0, nil, fmt.Errorf("%w: expiry key of %d bytes", ErrCorrupt, len(k))
	}
	expireMs = int64(binary.BigEndian.Uint64(k[1:]))
	dst = append(dst, byte(FamilyMeta))
	return expireMs, append(dst, k[9:]...), nil
}

// PrefixEnd returns the smallest key greater than every key with the given
// prefix (the exclusive upper bound of a prefix range), or nil when there is
// none (a prefix of all 0xff bytes).
func PrefixEnd(prefix []byte) []byte {
	end := append([]byte(nil), prefix...)
	for i := len(end) - 1; i >= 0; i-- {
		end[i]++
		if end[i] != 0 {
			return end[:i+1]
		}
	}
	return nil
}

// FamilyEnd is the exclusive upper bound of a whole family.
func FamilyEnd(f Family) []byte { return []byte{byte(f) + 1} }

// Internal bookkeeping keys: 0x05 | kind | ...
const (
	internalCounter  byte = 'c' // 0x05 'c' db u16 stripe u16 → int64 key count
	internalDBMap    byte = 'd' // 0x05 'd' logical u16 → physical u16
	internalVersion  byte = 'v' // 0x05 'v' → u64 first version not yet leased
	internalFunction byte = 'f' // 0x05 'f' library name → the library's code
)

// CounterKey is the key of the key-count shard for (physical db, stripe).
// DBSIZE sums a db's shards; each shard is only written under its stripe's
// lock, so it is exact and needs no global lock.
func CounterKey(db, stripe uint16) []byte {
	k := []byte{byte(FamilyInternal), internalCounter}
	k = binary.BigEndian.AppendUint16(k, db)
	return binary.BigEndian.AppendUint16(k, stripe)
}

// CounterPrefix bounds the counter shards of every db.
func CounterPrefix() []byte { return []byte{byte(FamilyInternal), internalCounter} }

// DecodeCounterKey splits a counter shard key.
func DecodeCounterKey(k []byte) (db, stripe uint16, err error) {
	if len(k) != 6 || Family(k[0]) != FamilyInternal || k[1] != internalCounter {
		return 0, 0, fmt.Errorf("%w: counter key of %d bytes", ErrCorrupt, len(k))
	}
	return binary.BigEndian.Uint16(k[2:]), binary.BigEndian.Uint16(k[4:]), nil
}

// DBMapKey is the key recording which physical db a logical db number
// (SELECT n) currently names; absent means the identity. SWAPDB rewrites two
// of these records instead of moving any data.
func DBMapKey(logical uint16) []byte {
	k := []byte{byte(FamilyInternal), internalDBMap}
	return binary.BigEndian.AppendUint16(k, logical)
}

// DBMapPrefix bounds every db map record.
func DBMapPrefix() []byte { return []byte{byte(FamilyInternal), internalDBMap} }

// DecodeDBMapKey returns the logical db of a db map key.
func DecodeDBMapKey(k []byte) (uint16, error) {
	if len(k) != 4 || Family(k[0]) != FamilyInternal || k[1] != internalDBMap {
		return 0, fmt.Errorf("%w: db map key of %d bytes", ErrCorrupt, len(k))
	}
	return binary.BigEndian.Uint16(k[2:]), nil
}

// VersionLeaseKey holds the first collection version not yet handed out.
func VersionLeaseKey() []byte { return []byte{byte(FamilyInternal), internalVersion} }

// FunctionKey is the key of a function library's record, whose value is
// the library's code (FUNCTION LOAD's argument, "#!lua name=..." header
// included): libraries are data, loaded again at start.
func FunctionKey(library []byte) []byte {
	k := []byte{byte(FamilyInternal), internalFunction}
	return append(k, library...)
}

// FunctionPrefix bounds every function library record.
func FunctionPrefix() []byte { return []byte{byte(FamilyInternal), internalFunction} }

// PutUint16 / Uint16 / PutUint64 / Uint64 / Int64 encode bookkeeping values.
func AppendUint16(dst []byte, v uint16) []byte { return binary.BigEndian.AppendUint16(dst, v) }

// AppendUint64 appends v big-endian.
func AppendUint64(dst []byte, v uint64) []byte { return binary.BigEndian.AppendUint64(dst, v) }

// Uint16 decodes a big-endian u16 value.
func Uint16(b []byte) (uint16, error) {
	if len(b) != 2 {
		return 0, fmt.Errorf("%w: u16 of %d bytes", ErrCorrupt, len(b))
	}
	return binary.BigEndian.Uint16(b), nil
}

// Uint64 decodes a big-endian u64 value.
func Uint64(b []byte) (uint64, error) {
	if len(b) != 8 {
		return 0, fmt.Errorf("%w: u64 of %d bytes", ErrCorrupt, len(b))
	}
	return binary.BigEndian.Uint64(b), nil
}
