package store

import (
	"bytes"
	"errors"
	"math/rand/v2"

	"github.com/cairndb/cairn/internal/encoding"
	"github.com/cairndb/cairn/internal/glob"
	"github.com/cairndb/cairn/internal/notify"
)

// Exists reports whether key is live in db.
func (tx *Tx) Exists(db int, key []byte) (bool, error) {
	_, ok, err := tx.meta(db, key)
	return ok, err
}

// KeyInfo is what TYPE and OBJECT ENCODING need of a key.
type KeyInfo struct {
	Type     encoding.Type
	ExpireMs int64
	Size     uint64
	// Value is a string's value (aliasing a Tx buffer).
	Value []byte
	// Repr is how Redis would hold a string's value.
	Repr encoding.StringRepr
}

// Lookup returns a live key's type, deadline and size.
func (tx *Tx) Lookup(db int, key []byte) (KeyInfo, bool, error) {
	m, ok, err := tx.meta(db, key)
	if err != nil || !ok {
		return KeyInfo{}, false, err
	}
	return KeyInfo{Type: m.Type, ExpireMs: m.ExpireMs, Size: m.Size, Value: m.Value, Repr: m.Repr}, true, nil
}

// Delete removes key and reports whether it existed.
func (tx *Tx) Delete(db int, key []byte) (bool, error) { return tx.deleteKey(db, key) }

// ExpireCond is EXPIRE's NX/XX/GT/LT options, as a set of bits: XX
// combines with GT or LT, and every condition given must hold.
type ExpireCond uint8

// Expire conditions.
const (
	ExpireNX ExpireCond = 1 << iota
	ExpireXX
	ExpireGT
	ExpireLT
)

// ExpireAlways sets the deadline whatever the key's current one.
const ExpireAlways ExpireCond = 0

// Expire sets key's deadline (absolute ms) if cond allows, and reports
// whether it did. A deadline already past deletes the key.
func (tx *Tx) Expire(db int, key []byte, deadline int64, cond ExpireCond) (bool, error) {
	m, ok, err := tx.meta(db, key)
	if err != nil || !ok {
		return false, err
	}
	if !cond.allows(m.ExpireMs, deadline) {
		return false, nil
	}
	if deadline <= tx.NowMs {
		_, err := tx.deleteKey(db, key)
		return err == nil, err
	}
	m.ExpireMs = deadline
	m.Value = append([]byte(nil), m.Value...)
	return true, tx.putMeta(db, key, &m)
}

// allows reports whether a key whose deadline is cur (0 for none) may take
// the deadline next. A key without a deadline counts as living forever for
// GT and LT, so GT never applies to it and LT always does.
func (c ExpireCond) allows(cur, next int64) bool {
	switch {
	case c&ExpireNX != 0 && cur != 0,
		c&ExpireXX != 0 && cur == 0,
		c&ExpireGT != 0 && (cur == 0 || next <= cur),
		c&ExpireLT != 0 && cur != 0 && next >= cur:
		return false
	}
	return true
}

// Persist removes key's deadline and reports whether it had one.
func (tx *Tx) Persist(db int, key []byte) (bool, error) {
	m, ok, err := tx.meta(db, key)
	if err != nil || !ok || m.ExpireMs == 0 {
		return false, err
	}
	m.ExpireMs = 0
	m.Value = append([]byte(nil), m.Value...)
	return true, tx.putMeta(db, key, &m)
}

// TTL states, as TTL and EXPIRETIME reply them.
const (
	TTLMissing   = -2
	TTLPersisted = -1
)

// Deadline returns key's absolute deadline in ms, or TTLMissing/TTLPersisted.
func (tx *Tx) Deadline(db int, key []byte) (int64, error) {
	m, ok, err := tx.meta(db, key)
	switch {
	case err != nil:
		return 0, err
	case !ok:
		return TTLMissing, nil
	case m.ExpireMs == 0:
		return TTLPersisted, nil
	}
	return m.ExpireMs, nil
}

// Rename moves src to dst in db, keeping the deadline and replacing dst. With
// nx it does nothing and reports false when dst exists.
func (tx *Tx) Rename(db int, src, dst []byte, nx bool) (bool, error) {
	m, ok, err := tx.ownedMeta(db, src)
	if err != nil {
		return false, err
	}
	if !ok {
		return false, ErrNoSuchKey
	}
	if bytes.Equal(src, dst) {
		return !nx, nil
	}
	if nx {
		if _, exists, err := tx.meta(db, dst); err != nil || exists {
			return false, err
		}
	}
	if err := tx.copyKey(db, src, m, db, dst); err != nil {
		return false, err
	}
	_, err = tx.deleteKey(db, src)
	return err == nil, err
}

// Copy copies src in srcDB to dst in dstDB, deadline included. Without
// replace it reports false when dst exists.
func (tx *Tx) Copy(srcDB int, src []byte, dstDB int, dst []byte, replace bool) (bool, error) {
	if srcDB == dstDB && bytes.Equal(src, dst) {
		return false, ErrSameObject
	}
	m, ok, err := tx.ownedMeta(srcDB, src)
	if err != nil || !ok {
		return false, err
	}
	if !replace {
		if _, exists, err := tx.meta(dstDB, dst); err != nil || exists {
			return false, err
		}
	}
	return true, tx.copyKey(srcDB, src, m, dstDB, dst)
}

// Move moves key from db to dstDB unless it exists there.
func (tx *Tx) Move(db int, key []byte, dstDB int) (bool, error) {
	if db == dstDB {
		return false, ErrSameObject
	}
	m, ok, err := tx.ownedMeta(db, key)
	if err != nil || !ok {
		return false, err
	}
	if _, exists, err := tx.meta(dstDB, key); err != nil || exists {
		return false, err
	}
	if err := tx.copyKey(db, key, m, dstDB, key); err != nil {
		return false, err
	}
	_, err = tx.deleteKey(db, key)
	return err == nil, err
}

// ownedMeta is meta with a Value of its own. The source of a RENAME, COPY
// or MOVE needs one: reading the destination's record next reuses the
// buffer that meta's Value aliases, and an expired destination record would
// overwrite the value about to be copied.
func (tx *Tx) ownedMeta(db int, key []byte) (encoding.Meta, bool, error) {
	m, ok, err := tx.meta(db, key)
	if ok {
		m.Value = bytes.Clone(m.Value)
	}
	return m, ok, err
}

// copyKey writes a copy of the key described by m (from ownedMeta) under
// (dstDB, dst), replacing whatever dst held. A collection's sub-keys are
// copied under a new version (a fragmented string's fragments too): O(size),
// as in Redis.
func (tx *Tx) copyKey(srcDB int, src []byte, m encoding.Meta, dstDB int, dst []byte) error {
	// Redis deletes a live destination and adds the copy as a new key:
	// putMeta reports "new" only for an absent one.
	if tx.Notifies(notify.New) {
		if _, live, err := tx.meta(dstDB, dst); err != nil {
			return err
		} else if live {
			tx.Notify(notify.New, "new", dstDB, dst)
		}
	}
	if !m.HasSubKeys() {
		return tx.putMeta(dstDB, dst, &m)
	}
	version, err := tx.newVersion()
	if err != nil {
		return err
	}
	if err := tx.checkWrite(dst); err != nil {
		return err
	}
	spdb, dpdb := tx.s.phys(srcDB), tx.s.phys(dstDB)
	for _, f := range encoding.SubKeyFamilies {
		from := encoding.AppendSubKeyPrefix(nil, f, spdb, src, m.Version)
		to := encoding.AppendSubKeyPrefix(nil, f, dpdb, dst, version)
		it, err := tx.r.NewIter(from, encoding.PrefixEnd(from))
		if err != nil {
			return err
		}
		for ok := it.First(); ok; ok = it.Next() {
			k := append(to[:len(to):len(to)], it.Key()[len(from):]...)
			if err := tx.b.Set(k, it.Value()); err != nil {
				it.Close()
				return err
			}
		}
		if err := it.Close(); err != nil {
			return err
		}
	}
	m.Version = version
	return tx.putMeta(dstDB, dst, &m)
}

// metaRange returns the bounds of db's metadata records.
func (tx *Tx) metaRange(db int) (lo, hi []byte) {
	lo = encoding.AppendDBPrefix(nil, encoding.FamilyMeta, tx.s.phys(db))
	return lo, encoding.PrefixEnd(lo)
}

// Keys calls fn for every live key of db matching pattern, in storage order.
func (tx *Tx) Keys(db int, pattern []byte, fn func(key []byte) error) error {
	if glob.Literal(pattern) {
		key := glob.LiteralPrefix(pattern)
		if ok, err := tx.Exists(db, key); err != nil || !ok {
			return err
		}
		return fn(key)
	}
	matchAll := bytes.Equal(pattern, []byte("*"))
	lo, hi := tx.metaRange(db)
	it, err := tx.r.NewIter(lo, hi)
	if err != nil {
		return err
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		key := it.Key()[encoding.MetaPrefixLen:]
		if !matchAll && !glob.Match(pattern, key, false) {
			continue
		}
		if expireOf(it.Value()) != 0 {
			if m, err := encoding.DecodeMeta(it.Value()); err != nil || m.Expired(tx.NowMs) {
				continue
			}
		}
		if err := fn(key); err != nil {
			return err
		}
	}
	return it.Error()
}

// ScanArgs are SCAN's options.
type ScanArgs struct {
	Count   int
	Pattern []byte
	// Type filters by type when TypeSet; the zero Type matches no key.
	Type    encoding.Type
	TypeSet bool
}

// Scan returns the keys of db from cursor on, and the cursor to continue
// with (0 when done). The cursor is a storage position — slot<<32 | key
// hash — so it needs no server state, survives restarts, and every key
// present for the whole iteration is returned at least once.
func (tx *Tx) Scan(db int, cursor uint64, a ScanArgs) (uint64, [][]byte, error) {
	if cursor>>32 >= encoding.SlotCount {
		return 0, nil, nil
	}
	lo, hi := tx.metaRange(db)
	start := encoding.AppendScanPosition(nil, tx.s.phys(db), uint16(cursor>>32), uint32(cursor))
	it, err := tx.r.NewIter(lo, hi)
	if err != nil {
		return 0, nil, err
	}
	defer it.Close()
	var keys [][]byte
	visited := 0
	var lastPos uint64
	for ok := it.SeekGE(start); ok; ok = it.Next() {
		mk, err := encoding.DecodeMetaKey(it.Key())
		if err != nil {
			return 0, nil, err
		}
		pos := uint64(mk.Slot)<<32 | uint64(mk.Hash)
		// Stop only between positions: keys sharing a position (a hash
		// collision) are returned together, so the next cursor is past
		// all of them and the scan always progresses.
		if visited >= a.Count && pos != lastPos {
			return pos, keys, nil
		}
		visited++
		lastPos = pos
		if a.Pattern != nil && !glob.Match(a.Pattern, mk.Key, false) {
			continue
		}
		m, err := encoding.DecodeMeta(it.Value())
		if err != nil {
			return 0, nil, err
		}
		if m.Expired(tx.NowMs) || (a.TypeSet && m.Type != a.Type) {
			continue
		}
		keys = append(keys, append([]byte(nil), mk.Key...))
	}
	return 0, keys, it.Error()
}

// RandomKey returns a random live key of db, or false when it has none.
func (tx *Tx) RandomKey(db int) ([]byte, bool, error) {
	lo, hi := tx.metaRange(db)
	it, err := tx.r.NewIter(lo, hi)
	if err != nil {
		return nil, false, err
	}
	defer it.Close()
	r := rand.Uint64()
	start := encoding.AppendScanPosition(nil, tx.s.phys(db), uint16(r>>32)%encoding.SlotCount, uint32(r))
	ok := it.SeekGE(start)
	wrapped := false
	for {
		if !ok {
			if wrapped {
				return nil, false, it.Error()
			}
			wrapped = true
			if ok = it.First(); !ok {
				return nil, false, it.Error()
			}
		}
		if wrapped && bytes.Compare(it.Key(), start) >= 0 {
			return nil, false, nil
		}
		m, err := encoding.DecodeMeta(it.Value())
		if err != nil {
			return nil, false, err
		}
		if !m.Expired(tx.NowMs) {
			return append([]byte(nil), it.Key()[encoding.MetaPrefixLen:]...), true, nil
		}
		ok = it.Next()
	}
}

// FlushDB deletes every key of db with range tombstones: O(1) writes. Needs
// a BeginAll transaction.
func (tx *Tx) FlushDB(db int) error {
	if !tx.lockAll {
		return errors.New("store: FLUSHDB outside BeginAll")
	}
	pdb := tx.s.phys(db)
	for _, f := range append([]encoding.Family{encoding.FamilyMeta}, encoding.SubKeyFamilies[:]...) {
		lo := encoding.AppendDBPrefix(nil, f, pdb)
		if err := tx.b.DeleteRange(lo, encoding.PrefixEnd(lo)); err != nil {
			return err
		}
	}
	// Expiry index entries of the flushed keys stay behind; the reaper drops
	// them when they come due and find no key.
	tx.clearCounts(pdb)
	tx.cache.valid = false
	tx.flushed = true
	tx.flushedDBs = append(tx.flushedDBs, pdb)
	tx.wholeDBs = append(tx.wholeDBs, db)
	return nil
}

// FlushAll deletes every key of every db.
func (tx *Tx) FlushAll() error {
	if !tx.lockAll {
		return errors.New("store: FLUSHALL outside BeginAll")
	}
	for _, f := range []encoding.Family{encoding.FamilyMeta, encoding.FamilySub, encoding.FamilyScore, encoding.FamilyExpire, encoding.FamilyFieldTTL, encoding.FamilyFieldExpire} {
		if err := tx.b.DeleteRange([]byte{byte(f)}, encoding.FamilyEnd(f)); err != nil {
			return err
		}
	}
	for pdb := range tx.s.databases {
		tx.clearCounts(uint16(pdb))
		tx.flushedDBs = append(tx.flushedDBs, uint16(pdb))
		// The physical databases are the logical ones, in another order.
		tx.wholeDBs = append(tx.wholeDBs, pdb)
	}
	tx.cache.valid = false
	tx.flushed = true
	return nil
}

// clearCounts zeroes every key-count shard of a physical db.
func (tx *Tx) clearCounts(pdb uint16) {
	c := tx.s.counts[pdb].Load()
	if c == nil {
		return
	}
	for st := range c {
		if n := c[st].Load(); n != 0 {
			tx.deltas = append(tx.deltas, countDelta{pdb: pdb, stripe: uint16(st), delta: -n})
		}
	}
}

// SwapDB exchanges two databases by rewriting the logical→physical map: no
// data moves. Needs a BeginAll transaction; takes effect at Commit.
func (tx *Tx) SwapDB(a, b int) error {
	if !tx.lockAll {
		return errors.New("store: SWAPDB outside BeginAll")
	}
	if a == b {
		return nil
	}
	m := append([]uint16(nil), *tx.s.dbMap.Load()...)
	m[a], m[b] = m[b], m[a]
	for _, l := range []int{a, b} {
		if err := tx.b.Set(encoding.DBMapKey(uint16(l)), encoding.AppendUint16(nil, m[l])); err != nil {
			return err
		}
	}
	tx.pendingDBMap = m
	tx.wholeDBs = append(tx.wholeDBs, a, b)
	tx.cache.valid = false
	return nil
}
