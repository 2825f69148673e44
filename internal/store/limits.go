package store

// EncodingLimits are the sizes up to which Redis keeps a collection in its
// compact encoding: hash-max-listpack-entries and -value,
// set-max-intset-entries, set-max-listpack-entries and -value, and
// zset-max-listpack-entries and -value. Cairn stores every collection as
// records whatever its size; the limits decide what OBJECT ENCODING
// reports, which collections HSCAN, SSCAN and ZSCAN return whole in one
// call, and whether a sorted set keeps a score's -0 — the three things the
// encoding changes for a Redis user. Entries count members (fields), values
// are lengths in bytes.
type EncodingLimits struct {
	HashEntries, HashValue                 int64
	SetIntsetEntries, SetEntries, SetValue int64
	ZSetEntries, ZSetValue                 int64
}

// DefaultEncodingLimits are Redis 7.2's built-in defaults.
func DefaultEncodingLimits() EncodingLimits {
	return EncodingLimits{
		HashEntries: 512, HashValue: 64,
		SetIntsetEntries: 512, SetEntries: 128, SetValue: 64,
		ZSetEntries: 128, ZSetValue: 64,
	}
}

// SetEncodingLimits replaces the encoding limits (CONFIG SET). Commands
// that started before see the old ones.
func (s *Store) SetEncodingLimits(l EncodingLimits) { s.limits.Store(&l) }

// limits returns the encoding limits in force.
func (tx *Tx) limits() *EncodingLimits { return tx.s.limits.Load() }

// setCompactMax is the most members a set in an intset or a listpack has.
func (l *EncodingLimits) setCompactMax() int64 { return max(l.SetIntsetEntries, l.SetEntries) }

// over reports whether n exceeds limit (never negative).
func over[N int | uint64](n N, limit int64) bool {
	return uint64(n) > uint64(limit)
}
