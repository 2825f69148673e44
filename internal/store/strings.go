package store

import (
	"bytes"
	"math"

	"github.com/cairndb/cairn/internal/encoding"
	"github.com/cairndb/cairn/internal/notify"
	"github.com/cairndb/cairn/internal/rconv"
)

// GetString returns the value of a string key. The value aliases a buffer
// of the Tx that the next read reuses.
func (tx *Tx) GetString(db int, key []byte) ([]byte, bool, error) {
	m, ok, err := tx.fragmentMeta(db, key)
	if err != nil {
		return nil, false, err
	}
	// As in Redis, finding a key of the wrong type is still a hit.
	if !ok {
		tx.s.stats.KeyspaceMisses.Add(1)
		return nil, false, nil
	}
	tx.s.stats.KeyspaceHits.Add(1)
	if m.Type != encoding.TypeString {
		return nil, false, ErrWrongType
	}
	v, err := tx.stringBytes(db, key, &m)
	return v, err == nil, err
}

// StrLen returns a string key's length (0 for an absent key) without
// reading its value.
func (tx *Tx) StrLen(db int, key []byte) (int64, bool, error) {
	m, ok, err := tx.meta(db, key)
	if err != nil || !ok {
		if err == nil {
			tx.s.stats.KeyspaceMisses.Add(1)
		}
		return 0, false, err
	}
	tx.s.stats.KeyspaceHits.Add(1)
	if m.Type != encoding.TypeString {
		return 0, false, ErrWrongType
	}
	if m.Fragmented() {
		return int64(m.Size), true, nil
	}
	return int64(len(m.Value)), true, nil
}

// GetRange returns the bytes start..end of a string key by GETRANGE's
// rules (negative indices count from the end, both ends are clamped, an
// empty or inverted range is empty), reading only the fragments of the
// range.
func (tx *Tx) GetRange(db int, key []byte, start, end int64) ([]byte, bool, error) {
	sv, err := tx.OpenString(db, key, true)
	if err != nil || !sv.Exists() {
		return nil, false, err
	}
	n := sv.Len()
	if start < 0 && end < 0 && start > end {
		return nil, true, nil
	}
	if start < 0 {
		start += n
	}
	if end < 0 {
		end += n
	}
	start, end = max(start, 0), max(end, 0)
	if end >= n {
		end = n - 1
	}
	if start > end || n == 0 {
		return nil, true, nil
	}
	b := make([]byte, end-start+1)
	return b, true, sv.ReadAt(b, start)
}

// SetCond restricts SET to absent (NX) or present (XX) keys.
type SetCond uint8

// SET conditions.
const (
	SetAlways SetCond = iota
	SetNX
	SetXX
)

// SetArgs are SET's options.
type SetArgs struct {
	Cond SetCond
	// ExpireMs is the absolute deadline, 0 for none.
	ExpireMs int64
	// KeepTTL keeps the key's current deadline.
	KeepTTL bool
	// Get asks for the old value (and fails on a non-string key).
	Get bool
}

// SetResult reports what SetString did.
type SetResult struct {
	Written bool
	// Old is the previous value, when SetArgs.Get and the key was a string.
	Old      []byte
	OldFound bool
}

// SetString sets a string key, replacing a value of any type (unless Get is
// asked, when a non-string key is an error, as in Redis 7).
func (tx *Tx) SetString(db int, key, value []byte, a SetArgs) (SetResult, error) {
	var res SetResult
	cur, exists, err := tx.meta(db, key)
	if err != nil {
		return res, err
	}
	if a.Get {
		// GET reads the key as GET does, and counts as a lookup.
		if !exists {
			tx.s.stats.KeyspaceMisses.Add(1)
		} else {
			tx.s.stats.KeyspaceHits.Add(1)
			if cur.Type != encoding.TypeString {
				return res, ErrWrongType
			}
			old, err := tx.stringBytes(db, key, &cur)
			if err != nil {
				return res, err
			}
			res.Old = bytes.Clone(old)
			if res.Old == nil {
				res.Old = []byte{}
			}
			res.OldFound = true
		}
	}
	if (a.Cond == SetNX && exists) || (a.Cond == SetXX && !exists) {
		return res, nil
	}
	expire := a.ExpireMs
	if a.KeepTTL && exists {
		expire = cur.ExpireMs
	}
	res.Written = true
	if expire != 0 && expire <= tx.NowMs {
		// A deadline already past: the key ends up absent, as Redis 7 does
		// by deleting it instead of storing it. Redis creates it first:
		// a new key is still reported (after an expired record's
		// "expired", which the deletion reports).
		if _, err := tx.deleteKey(db, key); err != nil {
			return res, err
		}
		if !exists {
			tx.Notify(notify.New, "new", db, key)
		}
		return res, nil
	}
	return res, tx.putString(db, key, &encoding.Meta{Type: encoding.TypeString, ExpireMs: expire}, value)
}

// MSet sets every key/value pair (clearing deadlines). With nx it sets none
// and reports false when any key exists.
func (tx *Tx) MSet(db int, pairs [][]byte, nx bool) (bool, error) {
	if nx {
		for i := 0; i < len(pairs); i += 2 {
			_, ok, err := tx.meta(db, pairs[i])
			if err != nil {
				return false, err
			}
			if ok {
				return false, nil
			}
		}
	}
	for i := 0; i < len(pairs); i += 2 {
		if err := tx.putString(db, pairs[i], &encoding.Meta{Type: encoding.TypeString}, pairs[i+1]); err != nil {
			return false, err
		}
		// Each key's "set" follows its "new", as Redis sets them one by
		// one.
		tx.Notify(notify.String, "set", db, pairs[i])
	}
	return true, nil
}

// GetDel returns a string key's value and deletes the key.
func (tx *Tx) GetDel(db int, key []byte) ([]byte, bool, error) {
	v, ok, err := tx.GetString(db, key)
	if err != nil || !ok {
		return nil, false, err
	}
	v = append([]byte(nil), v...)
	_, err = tx.deleteKey(db, key)
	return v, true, err
}

// ExpireAction is what GETEX does to the deadline.
type ExpireAction struct {
	// Set replaces the deadline with ExpireMs; Persist removes it.
	Set      bool
	Persist  bool
	ExpireMs int64
}

// GetEx returns a string key's value and applies act to its deadline. It
// does not count as a keyspace hit or miss: GETEX counts its lookup with
// GetString before it validates the expiry.
func (tx *Tx) GetEx(db int, key []byte, act ExpireAction) ([]byte, bool, error) {
	m, ok, err := tx.typedMeta(db, key, encoding.TypeString)
	if err != nil || !ok {
		return nil, false, err
	}
	v, err := tx.stringBytes(db, key, &m)
	if err != nil {
		return nil, false, err
	}
	if !m.Fragmented() {
		// The value read aliases a buffer that the write below reuses.
		v = append([]byte{}, v...)
		m.Value = v
	}
	switch {
	case act.Set && act.ExpireMs <= tx.NowMs:
		_, err = tx.deleteKey(db, key)
	case act.Set:
		m.ExpireMs = act.ExpireMs
		err = tx.putMeta(db, key, &m)
	case act.Persist && m.ExpireMs != 0:
		m.ExpireMs = 0
		err = tx.putMeta(db, key, &m)
	}
	return v, true, err
}

// updateString rewrites a string key's value, keeping its deadline; repr
// is how Redis would now hold it (OBJECT ENCODING).
func (tx *Tx) updateString(db int, key []byte, expireMs int64, value []byte, repr encoding.StringRepr) error {
	return tx.putString(db, key, &encoding.Meta{Type: encoding.TypeString, ExpireMs: expireMs, Repr: repr}, value)
}

// IncrBy adds delta to the integer in a string key (absent counts as 0).
func (tx *Tx) IncrBy(db int, key []byte, delta int64) (int64, error) {
	m, ok, err := tx.typedMeta(db, key, encoding.TypeString)
	if err != nil {
		return 0, err
	}
	var cur int64
	if ok {
		var valid bool
		if cur, valid = rconv.ParseInt(m.Value); !valid {
			return 0, ErrNotInteger
		}
	}
	if (delta > 0 && cur > math.MaxInt64-delta) || (delta < 0 && cur < math.MinInt64-delta) {
		return 0, ErrOverflow
	}
	n := cur + delta
	var buf [20]byte
	return n, tx.updateString(db, key, m.ExpireMs, rconv.AppendInt(buf[:0], n), encoding.ReprAuto)
}

// IncrByFloat adds delta, a number as the client sent it, to the number in a
// string key (absent counts as 0) and returns the new value as Redis prints
// it. As in Redis, the key's type is checked before either number.
func (tx *Tx) IncrByFloat(db int, key, delta []byte) ([]byte, error) {
	m, ok, err := tx.typedMeta(db, key, encoding.TypeString)
	if err != nil {
		return nil, err
	}
	cur := []byte("0")
	if ok {
		cur = m.Value
	}
	out, err := incrLongDouble(cur, delta)
	if err != nil {
		return nil, err
	}
	// Redis stores INCRBYFLOAT's result as a plain string, never an int.
	return out, tx.updateString(db, key, m.ExpireMs, out, encoding.ReprPlain)
}

// incrLongDouble computes cur+delta as INCRBYFLOAT does: both numbers read
// by strtold into x87 80-bit long doubles, added, and printed with "%.17Lf"
// minus trailing zeros (rconv.LongDouble). Float64 arithmetic would differ
// visibly: 1e17 + 123456789.123456789 is 100000000123456789.125 in Redis,
// and 1e308 + 1e308 is finite.
func incrLongDouble(cur, delta []byte) ([]byte, error) {
	a, ok := rconv.ParseLongDoubleExact(cur)
	if !ok {
		return nil, ErrNotFloat
	}
	b, ok := rconv.ParseLongDoubleExact(delta)
	if !ok {
		return nil, ErrNotFloat
	}
	// inf+x is infinite and inf-inf is NaN: an error either way, as is an
	// overflow.
	sum, ok := a.Add(b)
	if !ok {
		return nil, ErrNaNOrInf
	}
	return sum.AppendHuman(nil), nil
}

// Append appends to a string key (creating it) and returns the new length.
// It writes only the fragments of the appended bytes.
func (tx *Tx) Append(db int, key, suffix []byte, maxLen int64) (int64, error) {
	sv, err := tx.OpenString(db, key, false)
	if err != nil {
		return 0, err
	}
	if !sv.Exists() {
		// A new key is just the suffix, which the protocol already
		// bounded, encoded as SET would; Redis checks the length only
		// when appending.
		m := encoding.Meta{Type: encoding.TypeString}
		return int64(len(suffix)), tx.putString(db, key, &m, suffix)
	}
	n := sv.Len()
	if n > maxLen-int64(len(suffix)) {
		return 0, ErrTooBig
	}
	sv.Grow(n + int64(len(suffix)))
	if err := sv.WriteAt(suffix, n); err != nil {
		return 0, err
	}
	// Even an empty suffix leaves the value raw, as Redis's in-place
	// append does.
	sv.changed = true
	// Redis appends in place to a raw copy of the old value.
	return sv.Len(), sv.Save(encoding.ReprRaw)
}

// SetRange overwrites part of a string key at offset, zero-padding, and
// returns the new length. An empty value changes nothing. It writes only
// the fragments of the range.
func (tx *Tx) SetRange(db int, key []byte, offset int64, value []byte, maxLen int64) (int64, error) {
	sv, err := tx.OpenString(db, key, false)
	if err != nil {
		return 0, err
	}
	if len(value) == 0 {
		return sv.Len(), nil
	}
	// Written so that a huge offset cannot overflow.
	if offset > maxLen-int64(len(value)) {
		return 0, ErrTooBig
	}
	sv.Grow(offset + int64(len(value)))
	if err := sv.WriteAt(value, offset); err != nil {
		return 0, err
	}
	// Redis builds the new value in a raw buffer, for a new key too.
	return sv.Len(), sv.Save(encoding.ReprRaw)
}

// StringEncoding is OBJECT ENCODING for a string value held as repr, as
// Redis reports it.
func StringEncoding(v []byte, repr encoding.StringRepr) string {
	if repr == encoding.ReprRaw {
		return "raw"
	}
	if len(v) <= 20 && repr == encoding.ReprAuto {
		if _, ok := rconv.ParseInt(v); ok {
			return "int"
		}
	}
	if len(v) <= 44 {
		return "embstr"
	}
	return "raw"
}
