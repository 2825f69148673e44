package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/cairndb/cairn/internal/encoding"
	"github.com/cairndb/cairn/internal/engine"
	"github.com/cairndb/cairn/internal/glob"
	"github.com/cairndb/cairn/internal/notify"
	"github.com/cairndb/cairn/internal/rconv"
)

// Hashes keep one sub-key per field (docs/encoding.md): the value record
// carries the field's own deadline, the per-hash FamilyFieldTTL index lists
// the fields that have one by deadline, and the metadata tail holds the
// earliest of them (from which putMeta keeps the FamilyFieldExpire entry).
//
// A field whose deadline has passed (deadline < the command's NowMs: it
// lives through the millisecond of its deadline, the same rule as for keys)
// is absent to every read and to every condition a write checks, whether or
// not ReapExpiredFields has reclaimed it yet; a write that replaces or
// deletes such a record reclaims it on the way. A write that gives a field a
// deadline not after NowMs deletes it at once instead (fieldDeadlinePast).
// Meta.Size counts records, expired ones included, so that Check can
// compare it with the sub-keys; HLEN subtracts the expired ones.

// HashEntry is one field of a hash and its value.
type HashEntry struct {
	Field, Value []byte
}

// Results of HEXPIRE and friends for one field, as Redis replies them.
const (
	HashNoField      = -2 // the field does not exist
	HashNoCondition  = 0  // NX, XX, GT or LT not met
	HashExpireSet    = 1  // deadline set or updated
	HashFieldDeleted = 2  // the deadline is already past: the field is gone
)

// Results of HPERSIST for one field, and the states HTTL reports.
const (
	HashNoTTL     = -1 // the field exists without a deadline
	HashPersisted = 1
)

// hashField is a field's record as a write command found it.
type hashField struct {
	// found: a record exists, live or expired.
	found  bool
	expire int64
	value  []byte
}

func (f *hashField) live(nowMs int64) bool {
	return f.found && !fieldExpired(f.expire, nowMs)
}

// fieldExpired reports whether a field whose deadline is expireMs (0: none)
// is gone at nowMs. Redis's hashTypeIsExpired is expireAt < now, as
// keyIsExpired is now > when for keys: during the millisecond of its
// deadline a field is still there (HPTTL 0).
func fieldExpired(expireMs, nowMs int64) bool { return expireMs != 0 && expireMs < nowMs }

// fieldDeadlinePast reports whether a deadline that a command sets is
// already past, so the field is deleted instead of kept. Redis's
// checkAlreadyExpired is when <= now: unlike a stored deadline, one set for
// the current millisecond deletes at once (HEXPIRE replies 2).
func fieldDeadlinePast(deadline, nowMs int64) bool { return deadline <= nowMs }

// hashState is one write command's view of a hash: the collection, and what
// it needs to keep the earliest-deadline tail exact without rescanning.
type hashState struct {
	*collection
	// tail is the earliest field deadline when the command started.
	tail int64
	// added is the earliest deadline this command wrote (0: none).
	added int64
	// tailGone is set when a deadline equal to tail left the index, so the
	// new earliest one must be looked up.
	tailGone bool
	changed  bool
	kb, vb   []byte
}

// openHash opens key as a hash for writing (ErrWrongType for another type).
func (tx *Tx) openHash(db int, key []byte) (*hashState, error) {
	c, err := tx.openCollection(db, key, encoding.TypeHash)
	if err != nil {
		return nil, err
	}
	h := &hashState{collection: c}
	if c.Exists {
		hm, err := encoding.DecodeHashMeta(c.Meta.Value)
		if err != nil {
			return nil, fmt.Errorf("key %q: %w", key, err)
		}
		h.tail = hm.MinFieldExpireMs
	}
	return h, nil
}

// hasRecords reports whether the hash can hold any record yet: it exists,
// or this command gave it a version.
func (h *hashState) hasRecords() bool { return h.Exists || h.Meta.Version != 0 }

func (h *hashState) subKey(field []byte) []byte {
	h.kb = append(append(h.kb[:0], h.Prefix(encoding.FamilySub)...), field...)
	return h.kb
}

func (h *hashState) ttlKey(expireMs int64, field []byte) []byte {
	h.kb = encoding.AppendFieldTTLKey(h.kb[:0], h.Prefix(encoding.FamilyFieldTTL), expireMs, field)
	return h.kb
}

// hashRecord reads one field's record through the batch (this command's own
// writes included). The value is a copy.
func (tx *Tx) hashRecord(h *hashState, field []byte) (hashField, error) {
	if !h.hasRecords() || !tx.mayHold(h.collection, field) {
		return hashField{}, nil
	}
	v, found, err := tx.get(h.subKey(field))
	if err != nil || !found {
		return hashField{}, err
	}
	exp, val, err := encoding.DecodeFieldValue(v)
	if err != nil {
		return hashField{}, fmt.Errorf("hash %q field %q: %w", h.key, field, err)
	}
	return hashField{found: true, expire: exp, value: val}, nil
}

// hashEnsure gives an absent hash its version before its first record.
func (tx *Tx) hashEnsure(h *hashState) error {
	if h.hasRecords() {
		return nil
	}
	if err := tx.create(h.collection); err != nil {
		return err
	}
	h.Meta.Value = nil
	h.tail = 0
	return nil
}

// hashSetField writes field = value with deadline expireMs (0: none) over the
// record old (from hashRecord), keeping the deadline index in step.
func (tx *Tx) hashSetField(h *hashState, field, value []byte, expireMs int64, old hashField) error {
	if err := tx.hashEnsure(h); err != nil {
		return err
	}
	h.vb = encoding.AppendFieldValue(h.vb[:0], expireMs, value)
	if err := tx.set(h.collection, h.subKey(field), h.vb); err != nil {
		return err
	}
	if old.found && old.expire == expireMs {
		// Same deadline (or none before and after): the index is right.
	} else {
		if old.found && old.expire != 0 {
			if err := tx.hashDropDeadline(h, old.expire, field); err != nil {
				return err
			}
		}
		if expireMs != 0 {
			if err := tx.set(h.collection, h.ttlKey(expireMs, field), nil); err != nil {
				return err
			}
			if h.added == 0 || expireMs < h.added {
				h.added = expireMs
			}
		}
	}
	if !old.found {
		h.Meta.Size++
	}
	h.changed = true
	return nil
}

// hashDelField deletes a field's record (and its deadline index entry).
func (tx *Tx) hashDelField(h *hashState, field []byte, old hashField) error {
	if err := tx.del(h.collection, h.subKey(field)); err != nil {
		return err
	}
	if old.expire != 0 {
		if err := tx.hashDropDeadline(h, old.expire, field); err != nil {
			return err
		}
	}
	h.Meta.Size--
	h.changed = true
	return nil
}

func (tx *Tx) hashDropDeadline(h *hashState, expireMs int64, field []byte) error {
	if expireMs == h.tail {
		h.tailGone = true
	}
	return tx.del(h.collection, h.ttlKey(expireMs, field))
}

// hashFinish writes the hash's metadata with its new earliest deadline, or
// deletes the key when no record is left.
func (tx *Tx) hashFinish(h *hashState) error {
	if !h.changed {
		return nil
	}
	tail := h.tail
	switch {
	case h.Meta.Size == 0:
	case h.tailGone:
		// The earliest deadline left: the next one is the first index
		// entry. Nothing sorts below min(tail, added), so the seek starts
		// there and skips nothing but the entries just deleted.
		from := h.tail
		if h.added != 0 && h.added < from {
			from = h.added
		}
		var err error
		if tail, err = tx.hashFirstDeadline(h.collection, from); err != nil {
			return err
		}
	case h.added != 0 && (tail == 0 || h.added < tail):
		tail = h.added
	}
	h.Meta.Value = encoding.AppendHashMeta(nil, encoding.HashMeta{MinFieldExpireMs: tail})
	return tx.save(h.collection)
}

// hashFirstDeadline returns the earliest deadline in a hash's FamilyFieldTTL
// index at or after from, 0 when there is none.
func (tx *Tx) hashFirstDeadline(c *collection, from int64) (int64, error) {
	it, err := tx.iter(c, encoding.FamilyFieldTTL, binary.BigEndian.AppendUint64(nil, uint64(from)), nil)
	if err != nil {
		return 0, err
	}
	defer it.Close()
	if !it.First() {
		return 0, it.Error()
	}
	return hashTTLKeyDeadline(it.Key(), len(c.Prefix(encoding.FamilyFieldTTL)))
}

// hashTTLKeyDeadline decodes the deadline of a FamilyFieldTTL key whose
// prefix is plen bytes long.
func hashTTLKeyDeadline(k []byte, plen int) (int64, error) {
	if len(k) < plen+8 {
		return 0, fmt.Errorf("%w: field deadline key of %d bytes", encoding.ErrCorrupt, len(k))
	}
	return int64(binary.BigEndian.Uint64(k[plen:])), nil
}

// --- Reads --------------------------------------------------------------

// hashMeta returns a live hash's metadata and counts the keyspace hit or
// miss, as Redis's lookupKeyRead does.
func (tx *Tx) hashMeta(db int, key []byte) (encoding.Meta, bool, error) {
	m, ok, err := tx.typedMeta(db, key, encoding.TypeHash)
	switch {
	case err != nil:
	case ok:
		tx.s.stats.KeyspaceHits.Add(1)
	default:
		tx.s.stats.KeyspaceMisses.Add(1)
	}
	return m, ok, err
}

// hashReadField reads one field of the hash described by m through tx.r. The
// value aliases a Tx buffer that the next read reuses.
func (tx *Tx) hashReadField(db int, key []byte, m *encoding.Meta, field []byte) (value []byte, expireMs int64, ok bool, err error) {
	tx.keyBuf2 = encoding.AppendSubKeyPrefix(tx.keyBuf2[:0], encoding.FamilySub, tx.s.phys(db), key, m.Version)
	tx.keyBuf2 = append(tx.keyBuf2, field...)
	v, err := tx.r.Get(tx.keyBuf2, tx.valBuf[:0])
	switch {
	case errors.Is(err, engine.ErrNotFound):
		return nil, 0, false, nil
	case err != nil:
		return nil, 0, false, err
	}
	tx.valBuf = v
	exp, val, err := encoding.DecodeFieldValue(v)
	if err != nil {
		return nil, 0, false, fmt.Errorf("hash %q field %q: %w", key, field, err)
	}
	if fieldExpired(exp, tx.NowMs) {
		return nil, 0, false, nil
	}
	return val, exp, true, nil
}

// HGet returns a field's value. The value aliases a Tx buffer that the next
// read reuses.
func (tx *Tx) HGet(db int, key, field []byte) ([]byte, bool, error) {
	m, ok, err := tx.hashMeta(db, key)
	if err != nil || !ok {
		return nil, false, err
	}
	v, _, ok, err := tx.hashReadField(db, key, &m, field)
	return v, ok, err
}

// HMGet returns the values of fields, nil for a field that is absent (a
// present value is never nil, even when empty).
func (tx *Tx) HMGet(db int, key []byte, fields [][]byte) ([][]byte, error) {
	out := make([][]byte, len(fields))
	m, ok, err := tx.hashMeta(db, key)
	if err != nil || !ok {
		return out, err
	}
	for i, f := range fields {
		v, _, ok, err := tx.hashReadField(db, key, &m, f)
		if err != nil {
			return nil, err
		}
		if ok {
			out[i] = append(make([]byte, 0, len(v)), v...)
		}
	}
	return out, nil
}

// HExists reports whether a field exists.
func (tx *Tx) HExists(db int, key, field []byte) (bool, error) {
	_, ok, err := tx.HGet(db, key, field)
	return ok, err
}

// HStrLen returns the length of a field's value, 0 when absent.
func (tx *Tx) HStrLen(db int, key, field []byte) (int64, error) {
	v, _, err := tx.HGet(db, key, field)
	return int64(len(v)), err
}

// HLen returns the number of live fields: the size field less the expired
// fields not yet reclaimed, which are counted from the deadline index only
// when the earliest deadline has passed.
func (tx *Tx) HLen(db int, key []byte) (int64, error) {
	m, ok, err := tx.hashMeta(db, key)
	if err != nil || !ok {
		return 0, err
	}
	if !fieldExpired(encoding.FieldDeadline(&m), tx.NowMs) {
		return int64(m.Size), nil
	}
	r, done := tx.stableReader()
	defer done()
	m, ok, err = tx.hashMetaFrom(r, db, key)
	if err != nil || !ok {
		return 0, err
	}
	n, err := tx.hashLiveFields(r, db, key, &m)
	return int64(n), err
}

// hashMetaFrom reads a live hash's metadata through r (bypassing the Tx's
// metadata cache, which may hold an older state than r).
func (tx *Tx) hashMetaFrom(r engine.Reader, db int, key []byte) (encoding.Meta, bool, error) {
	if r == tx.r {
		return tx.typedMeta(db, key, encoding.TypeHash)
	}
	raw, err := r.Get(encoding.AppendMetaKey(nil, tx.s.phys(db), key), nil)
	switch {
	case errors.Is(err, engine.ErrNotFound):
		return encoding.Meta{}, false, nil
	case err != nil:
		return encoding.Meta{}, false, err
	}
	m, err := encoding.DecodeMeta(raw)
	switch {
	case err != nil:
		return m, false, fmt.Errorf("key %q: %w", key, err)
	case m.Expired(tx.NowMs):
		return m, false, nil
	case m.Type != encoding.TypeHash:
		return m, false, ErrWrongType
	}
	return m, true, nil
}

// hashLiveFields counts a hash's live fields: its size less the deadlines in
// its index that have passed. O(expired fields not yet reclaimed).
func (tx *Tx) hashLiveFields(r engine.Reader, db int, key []byte, m *encoding.Meta) (uint64, error) {
	if !fieldExpired(encoding.FieldDeadline(m), tx.NowMs) {
		return m.Size, nil
	}
	p := encoding.AppendSubKeyPrefix(nil, encoding.FamilyFieldTTL, tx.s.phys(db), key, m.Version)
	// The index entries below NowMs: the deadlines that fieldExpired says
	// have passed.
	it, err := r.NewIter(p, binary.BigEndian.AppendUint64(bytes.Clone(p), uint64(tx.NowMs)))
	if err != nil {
		return 0, err
	}
	defer it.Close()
	var expired uint64
	for ok := it.First(); ok; ok = it.Next() {
		expired++
	}
	if err := it.Error(); err != nil {
		return 0, err
	}
	if expired > m.Size {
		return 0, fmt.Errorf("hash %q: %d expired fields in a hash of %d", key, expired, m.Size)
	}
	return m.Size - expired, nil
}

// hashIter iterates over the field records of the hash described by m.
func (tx *Tx) hashIter(r engine.Reader, db int, key []byte, m *encoding.Meta) (engine.Iterator, []byte, error) {
	p := encoding.AppendSubKeyPrefix(nil, encoding.FamilySub, tx.s.phys(db), key, m.Version)
	it, err := r.NewIter(p, encoding.PrefixEnd(p))
	return it, p, err
}

// hashArena copies entries into one buffer, so a reply of n fields costs
// a few allocations instead of 2n.
type hashArena struct {
	buf     []byte
	entries []HashEntry
	// spans are (field end, value end) offsets into buf, turned into
	// slices once buf stops growing.
	spans []int
}

func (a *hashArena) add(field, value []byte) {
	a.buf = append(a.buf, field...)
	fe := len(a.buf)
	a.buf = append(a.buf, value...)
	a.spans = append(a.spans, fe, len(a.buf))
}

func (a *hashArena) done() []HashEntry {
	a.entries = make([]HashEntry, len(a.spans)/2)
	start := 0
	for i := range a.entries {
		fe, ve := a.spans[2*i], a.spans[2*i+1]
		a.entries[i] = HashEntry{Field: a.buf[start:fe:fe], Value: a.buf[fe:ve:ve]}
		start = ve
	}
	return a.entries
}

// HGetAll returns every live field and its value, in storage order (field
// bytes). The entries are the caller's.
func (tx *Tx) HGetAll(db int, key []byte) ([]HashEntry, error) {
	m, ok, err := tx.hashMeta(db, key)
	if err != nil || !ok {
		return nil, err
	}
	// One iterator is one consistent view: the entries are a state the
	// hash was in, whatever writers do meanwhile.
	it, p, err := tx.hashIter(tx.r, db, key, &m)
	if err != nil {
		return nil, err
	}
	defer it.Close()
	var a hashArena
	for ok := it.First(); ok; ok = it.Next() {
		exp, v, err := encoding.DecodeFieldValue(it.Value())
		if err != nil {
			return nil, fmt.Errorf("hash %q: %w", key, err)
		}
		if fieldExpired(exp, tx.NowMs) {
			continue
		}
		a.add(it.Key()[len(p):], v)
	}
	if err := it.Error(); err != nil {
		return nil, err
	}
	return a.done(), nil
}

// HFieldDeadlines returns, for HTTL and friends, each field's absolute
// deadline in ms, or HashNoField (absent) or HashNoTTL (no deadline).
func (tx *Tx) HFieldDeadlines(db int, key []byte, fields [][]byte) ([]int64, error) {
	out := make([]int64, len(fields))
	m, ok, err := tx.typedMeta(db, key, encoding.TypeHash)
	if err != nil {
		return nil, err
	}
	for i, f := range fields {
		out[i] = HashNoField
		if !ok {
			continue
		}
		_, exp, found, err := tx.hashReadField(db, key, &m, f)
		switch {
		case err != nil:
			return nil, err
		case !found:
		case exp == 0:
			out[i] = HashNoTTL
		default:
			out[i] = exp
		}
	}
	return out, nil
}

// --- Writes -------------------------------------------------------------

// HSet sets field/value pairs (pairs alternate field, value) and returns how
// many fields were created. A field set by HSET loses its deadline.
func (tx *Tx) HSet(db int, key []byte, pairs [][]byte) (int64, error) {
	h, err := tx.openHash(db, key)
	if err != nil {
		return 0, err
	}
	var created int64
	for i := 0; i+1 < len(pairs); i += 2 {
		old, err := tx.hashRecord(h, pairs[i])
		if err != nil {
			return 0, err
		}
		if !old.live(tx.NowMs) {
			created++
		}
		if err := tx.hashSetField(h, pairs[i], pairs[i+1], 0, old); err != nil {
			return 0, err
		}
	}
	return created, tx.hashFinish(h)
}

// HSetNX sets a field only if it does not exist, and reports whether it did.
func (tx *Tx) HSetNX(db int, key, field, value []byte) (bool, error) {
	h, err := tx.openHash(db, key)
	if err != nil {
		return false, err
	}
	old, err := tx.hashRecord(h, field)
	if err != nil || old.live(tx.NowMs) {
		return false, err
	}
	if err := tx.hashSetField(h, field, value, 0, old); err != nil {
		return false, err
	}
	return true, tx.hashFinish(h)
}

// HDel deletes fields and returns how many existed. A record already past
// its deadline is reclaimed too but not counted: it no longer existed.
func (tx *Tx) HDel(db int, key []byte, fields [][]byte) (int64, error) {
	h, err := tx.openHash(db, key)
	if err != nil || !h.Exists {
		return 0, err
	}
	var n int64
	for _, f := range fields {
		old, err := tx.hashRecord(h, f)
		if err != nil {
			return 0, err
		}
		if !old.found {
			continue
		}
		if old.live(tx.NowMs) {
			n++
		}
		if err := tx.hashDelField(h, f, old); err != nil {
			return 0, err
		}
	}
	return n, tx.hashFinish(h)
}

// Errors of the hash increment commands.
const (
	ErrHashNotInteger Error = "ERR hash value is not an integer"
	ErrHashNotFloat   Error = "ERR hash value is not a float"
)

// HIncrBy adds delta to the integer in a field (absent counts as 0),
// keeping the field's deadline.
func (tx *Tx) HIncrBy(db int, key, field []byte, delta int64) (int64, error) {
	h, err := tx.openHash(db, key)
	if err != nil {
		return 0, err
	}
	old, err := tx.hashRecord(h, field)
	if err != nil {
		return 0, err
	}
	var cur, expire int64
	if old.live(tx.NowMs) {
		var ok bool
		if cur, ok = rconv.ParseInt(old.value); !ok {
			return 0, ErrHashNotInteger
		}
		expire = old.expire
	}
	if (delta < 0 && cur < 0 && delta < math.MinInt64-cur) || (delta > 0 && cur > 0 && delta > math.MaxInt64-cur) {
		return 0, ErrOverflow
	}
	n := cur + delta
	var buf [20]byte
	if err := tx.hashSetField(h, field, rconv.AppendInt(buf[:0], n), expire, old); err != nil {
		return 0, err
	}
	return n, tx.hashFinish(h)
}

// HIncrByFloat adds delta to the number in a field (absent counts as 0),
// keeping the field's deadline, and returns the new value as Redis prints
// it. The sum is a long double's, as in Redis: 1000 + 0.1 makes
// 1000.09999999999999998.
func (tx *Tx) HIncrByFloat(db int, key, field []byte, delta rconv.LongDouble) ([]byte, error) {
	h, err := tx.openHash(db, key)
	if err != nil {
		return nil, err
	}
	old, err := tx.hashRecord(h, field)
	if err != nil {
		return nil, err
	}
	var cur rconv.LongDouble
	var expire int64
	if old.live(tx.NowMs) {
		var ok bool
		if cur, ok = rconv.ParseLongDoubleExact(old.value); !ok {
			return nil, ErrHashNotFloat
		}
		expire = old.expire
	}
	n, ok := cur.Add(delta)
	if !ok {
		return nil, ErrNaNOrInf
	}
	out := n.AppendHuman(nil)
	if err := tx.hashSetField(h, field, out, expire, old); err != nil {
		return nil, err
	}
	return out, tx.hashFinish(h)
}

// HExpire sets the deadline (absolute ms) of each field if cond allows and
// returns one result per field: HashNoField, HashNoCondition, HashExpireSet,
// or HashFieldDeleted when the deadline is not in the future. cond is at
// most one of ExpireNX, ExpireXX, ExpireGT, ExpireLT; a field without a
// deadline counts as living forever (GT never applies to it, LT always).
func (tx *Tx) HExpire(db int, key []byte, deadline int64, cond ExpireCond, fields [][]byte) ([]int64, error) {
	out := make([]int64, len(fields))
	h, err := tx.openHash(db, key)
	if err != nil {
		return nil, err
	}
	for i, f := range fields {
		old, err := tx.hashRecord(h, f)
		if err != nil {
			return nil, err
		}
		switch {
		case !old.live(tx.NowMs):
			out[i] = HashNoField
		case !cond.allows(old.expire, deadline):
			out[i] = HashNoCondition
		case fieldDeadlinePast(deadline, tx.NowMs):
			out[i] = HashFieldDeleted
			err = tx.hashDelField(h, f, old)
		default:
			out[i] = HashExpireSet
			err = tx.hashSetField(h, f, old.value, deadline, old)
		}
		if err != nil {
			return nil, err
		}
	}
	return out, tx.hashFinish(h)
}

// HPersist removes the deadline of each field and returns one result per
// field: HashNoField, HashNoTTL or HashPersisted.
func (tx *Tx) HPersist(db int, key []byte, fields [][]byte) ([]int64, error) {
	out := make([]int64, len(fields))
	h, err := tx.openHash(db, key)
	if err != nil {
		return nil, err
	}
	for i, f := range fields {
		old, err := tx.hashRecord(h, f)
		switch {
		case err != nil:
			return nil, err
		case !old.live(tx.NowMs):
			out[i] = HashNoField
		case old.expire == 0:
			out[i] = HashNoTTL
		default:
			out[i] = HashPersisted
			if err := tx.hashSetField(h, f, old.value, 0, old); err != nil {
				return nil, err
			}
		}
	}
	return out, tx.hashFinish(h)
}

// HGetDel returns the values of fields (nil for an absent one, as HMGet)
// and deletes them; the key goes when its last field does.
func (tx *Tx) HGetDel(db int, key []byte, fields [][]byte) ([][]byte, error) {
	out := make([][]byte, len(fields))
	h, err := tx.openHash(db, key)
	if err != nil || !h.Exists {
		return out, err
	}
	for i, f := range fields {
		old, err := tx.hashRecord(h, f)
		if err != nil {
			return nil, err
		}
		if !old.live(tx.NowMs) {
			continue
		}
		out[i] = old.value
		if err := tx.hashDelField(h, f, old); err != nil {
			return nil, err
		}
	}
	return out, tx.hashFinish(h)
}

// HGetEx returns the values of fields (nil for an absent one) and applies
// act to the deadline of each one that exists: Set gives it act.ExpireMs
// (a deadline not in the future deletes it), Persist removes its deadline.
func (tx *Tx) HGetEx(db int, key []byte, fields [][]byte, act ExpireAction) ([][]byte, error) {
	out := make([][]byte, len(fields))
	h, err := tx.openHash(db, key)
	if err != nil || !h.Exists {
		return out, err
	}
	updated, deleted := false, false
	for i, f := range fields {
		old, err := tx.hashRecord(h, f)
		if err != nil {
			return nil, err
		}
		if !old.live(tx.NowMs) {
			continue
		}
		out[i] = old.value
		switch {
		case act.Set && fieldDeadlinePast(act.ExpireMs, tx.NowMs):
			err, deleted = tx.hashDelField(h, f, old), true
		case act.Set:
			err, updated = tx.hashSetField(h, f, old.value, act.ExpireMs, old), true
		case act.Persist && old.expire != 0:
			err, updated = tx.hashSetField(h, f, old.value, 0, old), true
		}
		if err != nil {
			return nil, err
		}
	}
	if err := tx.hashFinish(h); err != nil {
		return nil, err
	}
	// Redis 8's HGETEX events: one for what changed, "del" if nothing is
	// left.
	switch {
	case updated && act.Persist:
		tx.Notify(notify.Hash, "hpersist", db, key)
	case updated:
		tx.Notify(notify.Hash, "hexpire", db, key)
	case deleted:
		tx.Notify(notify.Hash, "hdel", db, key)
	}
	if deleted && !h.Exists {
		tx.Notify(notify.Generic, "del", db, key)
	}
	return out, nil
}

// HSetExArgs are HSETEX's options.
type HSetExArgs struct {
	// Cond is SetNX for FNX (no field may exist) or SetXX for FXX (every
	// field must exist).
	Cond SetCond
	// Expire gives every field the deadline ExpireMs (one not in the
	// future deletes them); KeepTTL keeps each field's deadline; with
	// neither, the fields lose their deadlines.
	Expire   bool
	ExpireMs int64
	KeepTTL  bool
}

// HSetEx sets field/value pairs with HSETEX's options and reports whether it
// did (false when FNX or FXX failed, and then nothing changed).
func (tx *Tx) HSetEx(db int, key []byte, pairs [][]byte, a HSetExArgs) (bool, error) {
	h, err := tx.openHash(db, key)
	if err != nil {
		return false, err
	}
	fresh := !h.Exists
	if a.Cond != SetAlways {
		for i := 0; i+1 < len(pairs); i += 2 {
			old, err := tx.hashRecord(h, pairs[i])
			if err != nil {
				return false, err
			}
			if old.live(tx.NowMs) != (a.Cond == SetXX) {
				return false, nil
			}
		}
	}
	for i := 0; i+1 < len(pairs); i += 2 {
		f, v := pairs[i], pairs[i+1]
		old, err := tx.hashRecord(h, f)
		if err != nil {
			return false, err
		}
		var expire int64
		switch {
		case a.Expire && fieldDeadlinePast(a.ExpireMs, tx.NowMs):
			// Set and at once expired: what is left is no field.
			if old.found {
				err = tx.hashDelField(h, f, old)
			}
			if err != nil {
				return false, err
			}
			continue
		case a.Expire:
			expire = a.ExpireMs
		case a.KeepTTL && old.live(tx.NowMs):
			expire = old.expire
		}
		if err := tx.hashSetField(h, f, v, expire, old); err != nil {
			return false, err
		}
	}
	if err := tx.hashFinish(h); err != nil {
		return false, err
	}
	// Redis 8's HSETEX events: "hset", then "hexpire" for a deadline or
	// "hdel" for one already past, then "del" if that left nothing. A
	// hash created and emptied at once was still created ("new").
	if fresh && !h.Exists {
		tx.Notify(notify.New, "new", db, key)
	}
	tx.Notify(notify.Hash, "hset", db, key)
	switch {
	case a.Expire && fieldDeadlinePast(a.ExpireMs, tx.NowMs):
		tx.Notify(notify.Hash, "hdel", db, key)
	case a.Expire:
		tx.Notify(notify.Hash, "hexpire", db, key)
	}
	if !h.Exists {
		tx.Notify(notify.Generic, "del", db, key)
	}
	return true, nil
}

// --- Random fields --------------------------------------------------------

// hashSampleAll is the size up to which HRANDFIELD reads the whole hash into
// memory and samples it there.
const hashSampleAll = 512

// hashRankChunk bounds how many draws a sampler of a big hash makes in one
// pass over it, and so the memory they take.
const hashRankChunk = 1 << 16

// A field's rank is its position among the live fields in storage order.
// With no index by rank in the layout (a hash is ordered by field bytes
// only), drawing fairly from a hash too big to hold in memory takes a pass
// over its records: HRANDFIELD on such a hash is O(N) where Redis's is
// O(count). Probing random byte positions instead would be O(log N) but
// badly unfair: fields named with digits, the common case, are sparse in
// byte space, and the field after each gap would come up nearly always.

// HRandField returns one random live field of a hash, and its value.
func (tx *Tx) HRandField(db int, key []byte) (HashEntry, bool, error) {
	s, err := tx.newHashSampler(db, key)
	if err != nil || s == nil {
		return HashEntry{}, false, err
	}
	defer s.close()
	if s.all != nil {
		return s.all[rand.IntN(len(s.all))], true, nil
	}
	es, err := s.atRanks([]uint64{rand.Uint64N(s.live)})
	if err != nil {
		return HashEntry{}, false, err
	}
	return es[0], true, nil
}

// HRandFields returns up to count distinct random live fields and their
// values, in random order (every field when count is at least the hash's
// length). count must not be negative; HashSampler draws with repeats.
func (tx *Tx) HRandFields(db int, key []byte, count int64) ([]HashEntry, error) {
	s, err := tx.newHashSampler(db, key)
	if err != nil || s == nil {
		return nil, err
	}
	defer s.close()
	switch {
	case count <= 0:
		// Looked up all the same: a key of another type is WRONGTYPE.
		return nil, nil
	case s.all != nil:
		return hashPickDistinct(s.all, count), nil
	case uint64(count) >= s.live:
		return s.readAll()
	}
	// Floyd's algorithm draws count distinct ranks in O(count).
	chosen := make(map[uint64]struct{}, count)
	ranks := make([]uint64, 0, count)
	for j := s.live - uint64(count); j < s.live; j++ {
		r := rand.Uint64N(j + 1)
		if _, dup := chosen[r]; dup {
			r = j
		}
		chosen[r] = struct{}{}
		ranks = append(ranks, r)
	}
	slices.Sort(ranks)
	es, err := s.atRanks(ranks)
	if err != nil {
		return nil, err
	}
	rand.Shuffle(len(es), func(i, j int) { es[i], es[j] = es[j], es[i] })
	return es, nil
}

// hashPickDistinct returns count entries of all chosen at random, in random
// order (all of them when count is at least its length), reordering all.
func hashPickDistinct(all []HashEntry, count int64) []HashEntry {
	count = min(count, int64(len(all)))
	// A partial Fisher-Yates shuffle.
	for i := range int(count) {
		j := i + rand.IntN(len(all)-i)
		all[i], all[j] = all[j], all[i]
	}
	return all[:count]
}

// HashSampler draws random live fields of one hash, with repeats
// (HRANDFIELD with a negative count). It reads a snapshot: the hash cannot
// change under it. Close it when done.
type HashSampler struct {
	s *hashSampler
	// left is how many draws the caller said it will make.
	left int64
	buf  []HashEntry
}

// NewHashSampler returns a sampler for n draws from a live, non-empty hash,
// or nil when the hash is absent or has no live field.
func (tx *Tx) NewHashSampler(db int, key []byte, n int64) (*HashSampler, error) {
	s, err := tx.newHashSampler(db, key)
	if err != nil || s == nil {
		return nil, err
	}
	return &HashSampler{s: s, left: n}, nil
}

// Next returns a random live field and its value, valid until the next
// call. A big hash is read once per 65,536 draws.
func (h *HashSampler) Next() (HashEntry, error) {
	if h.s.all != nil {
		return h.s.all[rand.IntN(len(h.s.all))], nil
	}
	if len(h.buf) == 0 {
		n := min(max(h.left, 1), hashRankChunk)
		ranks := make([]uint64, n)
		for i := range ranks {
			ranks[i] = rand.Uint64N(h.s.live)
		}
		slices.Sort(ranks)
		es, err := h.s.atRanks(ranks)
		if err != nil {
			return HashEntry{}, err
		}
		rand.Shuffle(len(es), func(i, j int) { es[i], es[j] = es[j], es[i] })
		h.buf = es
	}
	e := h.buf[0]
	h.buf = h.buf[1:]
	h.left--
	return e, nil
}

// Close releases the sampler's snapshot.
func (h *HashSampler) Close() { h.s.close() }

type hashSampler struct {
	tx     *Tx
	key    []byte
	done   func()
	live   uint64
	prefix []byte
	it     engine.Iterator
	// all holds every live entry of a small hash.
	all []HashEntry
}

// newHashSampler opens a sampler, or returns nil when the hash is absent
// or has no live field.
func (tx *Tx) newHashSampler(db int, key []byte) (*hashSampler, error) {
	if _, ok, err := tx.hashMeta(db, key); err != nil || !ok {
		return nil, err
	}
	r, done := tx.stableReader()
	s := &hashSampler{tx: tx, key: key, done: done}
	ok := false
	defer func() {
		if !ok {
			s.close()
		}
	}()
	m, found, err := tx.hashMetaFrom(r, db, key)
	if err != nil || !found {
		return nil, err
	}
	if s.live, err = tx.hashLiveFields(r, db, key, &m); err != nil || s.live == 0 {
		return nil, err
	}
	if s.it, s.prefix, err = tx.hashIter(r, db, key, &m); err != nil {
		return nil, err
	}
	if m.Size <= hashSampleAll {
		if s.all, err = s.readAll(); err != nil || len(s.all) == 0 {
			return nil, err
		}
	}
	ok = true
	return s, nil
}

func (s *hashSampler) close() {
	if s.it != nil {
		_ = s.it.Close()
		s.it = nil
	}
	if s.done != nil {
		s.done()
		s.done = nil
	}
}

// readAll returns every live entry, in storage order.
func (s *hashSampler) readAll() ([]HashEntry, error) {
	var a hashArena
	for ok := s.it.First(); ok; ok = s.it.Next() {
		e, live, err := s.entry()
		if err != nil {
			return nil, err
		}
		if live {
			a.add(e.Field, e.Value)
		}
	}
	if err := s.it.Error(); err != nil {
		return nil, err
	}
	return a.done(), nil
}

// atRanks returns the live entries at the given ranks (sorted, repeats
// allowed), in one pass that stops at the last one.
func (s *hashSampler) atRanks(ranks []uint64) ([]HashEntry, error) {
	var a hashArena
	var rank uint64
	i := 0
	for ok := s.it.First(); ok && i < len(ranks); ok = s.it.Next() {
		e, live, err := s.entry()
		if err != nil {
			return nil, err
		}
		if !live {
			continue
		}
		for ; i < len(ranks) && ranks[i] == rank; i++ {
			a.add(e.Field, e.Value)
		}
		rank++
	}
	if err := s.it.Error(); err != nil {
		return nil, err
	}
	if i < len(ranks) {
		return nil, fmt.Errorf("hash %q: rank %d of %d live fields not found", s.key, ranks[i], s.live)
	}
	return a.done(), nil
}

// entry decodes the iterator's current record; its slices alias the
// iterator.
func (s *hashSampler) entry() (HashEntry, bool, error) {
	exp, v, err := encoding.DecodeFieldValue(s.it.Value())
	if err != nil {
		return HashEntry{}, false, fmt.Errorf("hash %q: %w", s.key, err)
	}
	if fieldExpired(exp, s.tx.NowMs) {
		return HashEntry{}, false, nil
	}
	return HashEntry{Field: s.it.Key()[len(s.prefix):], Value: v}, true, nil
}

// --- HSCAN ---------------------------------------------------------------

// HScanArgs are HSCAN's options.
type HScanArgs struct {
	Count int
	// Pattern filters fields (nil: all).
	Pattern []byte
	// NoValues leaves the values out.
	NoValues bool
}

// HScan returns the live fields of a hash from cursor on, and the cursor to
// continue with (0 when done).
//
// The cursor is a position in the field order that needs no server state.
// Fields are stored in byte order and every field of a hash starts with the
// common prefix P of its smallest and largest fields. A cursor names the
// next field F to return as
//
//	s << 56 | the 7 bytes of F after its first s bytes (zero-padded)
//
// where s = min(len(P), 255). Resuming rebuilds the seek key F[:s] (the
// first s bytes of the current smallest field, which every field shares)
// followed by those 7 bytes without their trailing zeros: a prefix of F, so
// at or before F, and nothing after the previous call's last field is
// skipped. Fields between the seek key and F come again (duplicates are
// allowed). A call only stops at a field whose seek key is greater than the
// one it started from, so every call moves forward. If the fields' common
// prefix has since become shorter than s, the scan restarts at the start of
// the hash: duplicates, never a miss. Every field present for the whole
// scan is returned at least once, across restarts of the server.
func (tx *Tx) HScan(db int, key []byte, cursor uint64, a HScanArgs) (uint64, []HashEntry, error) {
	m, ok, err := tx.typedMeta(db, key, encoding.TypeHash)
	if err != nil || !ok {
		return 0, nil, err
	}
	it, p, err := tx.hashIter(tx.r, db, key, &m)
	if err != nil {
		return 0, nil, err
	}
	defer it.Close()
	var out hashArena
	emit := func() error {
		exp, v, err := encoding.DecodeFieldValue(it.Value())
		if err != nil {
			return fmt.Errorf("hash %q: %w", key, err)
		}
		f := it.Key()[len(p):]
		if fieldExpired(exp, tx.NowMs) || (a.Pattern != nil && !glob.Match(a.Pattern, f, false)) {
			return nil
		}
		if a.NoValues {
			v = nil
		}
		out.add(f, v)
		return nil
	}
	// Redis returns a listpack-encoded hash whole in one call.
	if !over(m.Size, tx.limits().HashEntries) {
		for ok := it.First(); ok; ok = it.Next() {
			if err := emit(); err != nil {
				return 0, nil, err
			}
		}
		return 0, out.done(), it.Error()
	}
	next, empty, err := scanMembers(it, p, cursor, a.Count, emit)
	if err != nil || empty {
		return 0, nil, err
	}
	return next, out.done(), nil
}

// --- OBJECT ENCODING ----------------------------------------------------------

// HashEncoding is OBJECT ENCODING for a hash key: "listpack" while it has
// at most hash-max-listpack-entries fields and every field and value is at
// most hash-max-listpack-value bytes ("listpackex" when some field has a
// deadline, as Redis 7.4 reports), else "hashtable". It reads at most
// hash-max-listpack-entries fields. Redis never converts a hash back to a
// listpack; Cairn reports what the current contents would be encoded as.
func (tx *Tx) HashEncoding(db int, key []byte) (string, bool, error) {
	m, ok, err := tx.typedMeta(db, key, encoding.TypeHash)
	if err != nil || !ok {
		return "", false, err
	}
	lim := tx.limits()
	if over(m.Size, lim.HashEntries) {
		return "hashtable", true, nil
	}
	small := "listpack"
	if encoding.FieldDeadline(&m) != 0 {
		small = "listpackex"
	}
	it, p, err := tx.hashIter(tx.r, db, key, &m)
	if err != nil {
		return "", false, err
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		_, v, err := encoding.DecodeFieldValue(it.Value())
		if err != nil {
			return "", false, fmt.Errorf("hash %q: %w", key, err)
		}
		if over(len(it.Key())-len(p), lim.HashValue) || over(len(v), lim.HashValue) {
			return "hashtable", true, it.Error()
		}
	}
	return small, true, it.Error()
}
