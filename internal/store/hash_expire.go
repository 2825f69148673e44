package store

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/cairndb/cairn/internal/encoding"
	"github.com/cairndb/cairn/internal/notify"
)

// reapFieldsPerTx bounds the field records one reclaiming transaction
// deletes, so a hash whose million fields share a deadline is reclaimed in
// many short transactions instead of one that holds its lock for seconds.
const reapFieldsPerTx = 4096

// ReapExpiredFields reclaims hash fields whose deadline has come (at or
// before now: see dueHashes), for at most budget, and returns how many it
// deleted. It walks the field-expiry index (one entry per hash, keyed by the
// hash's earliest field deadline) up to now, as ReapExpired walks the key
// expiry index; under each hash's lock it deletes the due fields, re-files
// the hash under its next deadline, and deletes the hash once it has no
// field left. Reads never depend on it: an expired field is absent whether
// or not it has been reclaimed.
func (s *Store) ReapExpiredFields(budget time.Duration) (int, error) {
	start := time.Now()
	total := 0
	from := []byte{byte(encoding.FamilyFieldExpire)}
	for {
		due, err := s.dueHashes(from, reapBatch)
		if err != nil || len(due) == 0 {
			return total, err
		}
		n, resume, err := s.reapFields(due)
		total += n
		if err != nil {
			return total, err
		}
		// Resume after the last entry handled, so entries passed over (a
		// hash whose key itself has expired, left to ReapExpired) never
		// stall the walk; or at the re-filed entry of a hash with more due
		// fields than one transaction deletes.
		from = resume
		if len(due) < reapBatch && n < reapFieldsPerTx || time.Since(start) > budget {
			return total, nil
		}
	}
}

// dueHashes reads up to limit field-expiry entries at or after from whose
// deadline is at or before now.
//
// This reaps one millisecond earlier than reads hide a field (fieldExpired
// is deadline < now) and than ReapExpired reaps keys (deadline < now), on
// purpose: Redis's active field expiry (ebExpire over db->hexpires, then
// ebExpire or listpackExExpire over the hash) takes every field whose
// deadline is <= now, where its active key expiry takes only now > when.
func (s *Store) dueHashes(from []byte, limit int) ([]dueEntry, error) {
	upTo := binary.BigEndian.AppendUint64([]byte{byte(encoding.FamilyFieldExpire)}, uint64(s.nowMs())+1)
	return s.collectDue(from, upTo, limit, encoding.DecodeFieldExpireKey)
}

// reapFields reclaims the due fields of the hashes behind due, under their
// locks, in one transaction of at most reapFieldsPerTx deletions. It
// returns the fields deleted and where the walk of the index resumes.
func (s *Store) reapFields(due []dueEntry) (int, []byte, error) {
	keys := make([][]byte, len(due))
	for i, d := range due {
		keys[i] = d.metaKey.Key
	}
	tx := s.Begin(keys)
	defer tx.Close()
	n := 0
	resume := append(bytes.Clone(due[len(due)-1].expireKey), 0)
	for _, d := range due {
		m, refiled, err := tx.reapFieldsOf(d, reapFieldsPerTx-n)
		if err != nil {
			return 0, nil, err
		}
		n += m
		if n >= reapFieldsPerTx {
			// The hash may have more due fields: its new entry sorts at
			// or after every entry handled so far.
			if refiled != nil {
				resume = refiled
			} else {
				resume = append(bytes.Clone(d.expireKey), 0)
			}
			break
		}
	}
	// Like ReapExpired: if this commit is lost, the index still lists the
	// hashes and the next run reclaims their fields again.
	tx.noSync = true
	if err := tx.Commit(); err != nil {
		return 0, nil, err
	}
	s.sinkEvents(tx)
	return n, resume, nil
}

// reapFieldsOf deletes up to limit due fields of the hash behind one
// field-expiry entry, re-checked under the lock: an entry that no longer
// matches the hash's earliest deadline (the hash changed, was deleted or
// flushed) is dropped as stale. It returns the fields deleted and the
// hash's new field-expiry entry, if it has one.
func (tx *Tx) reapFieldsOf(d dueEntry, limit int) (int, []byte, error) {
	pdb, key := d.metaKey.DB, d.metaKey.Key
	_, raw, found, err := tx.rawMeta(pdb, key)
	if err != nil {
		return 0, nil, err
	}
	var m encoding.Meta
	if found {
		if m, err = encoding.DecodeMeta(raw); err != nil {
			return 0, nil, err
		}
	}
	db, mapped := tx.s.logicalDBOf(pdb)
	if !found || !mapped || encoding.FieldDeadline(&m) != d.deadline {
		return 0, nil, tx.b.Delete(d.expireKey)
	}
	if m.Expired(tx.NowMs) {
		// The whole key is due: ReapExpired deletes it, entry included.
		return 0, nil, nil
	}
	m.Value = bytes.Clone(m.Value)
	h := &hashState{
		collection: &collection{db: db, pdb: pdb, key: key, Meta: m, Exists: true},
		tail:       d.deadline,
	}
	it, err := tx.iter(h.collection, encoding.FamilyFieldTTL, nil, nil)
	if err != nil {
		return 0, nil, err
	}
	plen := len(h.Prefix(encoding.FamilyFieldTTL))
	type dueField struct {
		deadline int64
		field    []byte
	}
	var fields []dueField
	var next int64
	for ok := it.First(); ok; ok = it.Next() {
		dl, err := hashTTLKeyDeadline(it.Key(), plen)
		if err != nil {
			it.Close()
			return 0, nil, err
		}
		// Due means deadline <= NowMs, as dueHashes explains.
		if dl > tx.NowMs || len(fields) >= limit {
			// The first deadline left is the hash's next earliest.
			next = dl
			break
		}
		fields = append(fields, dueField{dl, bytes.Clone(it.Key()[plen+8:])})
	}
	if err := it.Close(); err != nil {
		return 0, nil, err
	}
	for _, f := range fields {
		if err := tx.del(h.collection, h.ttlKey(f.deadline, f.field)); err != nil {
			return 0, nil, err
		}
		if err := tx.del(h.collection, h.subKey(f.field)); err != nil {
			return 0, nil, err
		}
	}
	h.Meta.Size -= uint64(len(fields))
	h.Meta.Value = encoding.AppendHashMeta(nil, encoding.HashMeta{MinFieldExpireMs: next})
	// save re-files the hash under next (putMeta moves its field-expiry
	// entry) or deletes it when no field is left.
	if err := tx.save(h.collection); err != nil {
		return 0, nil, err
	}
	if len(fields) > 0 {
		// Redis's active field expiry: "hexpired", then "del" when the
		// hash lost its last field.
		tx.Notify(notify.Hash, "hexpired", db, key)
		if !h.Exists {
			tx.Notify(notify.Generic, "del", db, key)
		}
	}
	var refiled []byte
	if h.Meta.Size > 0 && next != 0 {
		refiled = encoding.AppendFieldExpireKey(nil, next, encoding.AppendMetaKey(nil, pdb, key))
	}
	return len(fields), refiled, nil
}

// logicalDBOf returns the logical db that names physical db pdb. Callers
// hold a stripe lock, so SWAPDB cannot change the map meanwhile.
func (s *Store) logicalDBOf(pdb uint16) (int, bool) {
	for l, p := range *s.dbMap.Load() {
		if p == pdb {
			return l, true
		}
	}
	return 0, false
}

// CheckHashFields verifies the field-deadline invariants of every hash, in
// the manner of Check: a field's FamilyFieldTTL entry exists exactly when
// its value record carries a deadline, with the same deadline; the metadata
// tail is the earliest of them; and the hash is filed under it in the
// field-expiry index (putMeta's job). For tests and offline checks.
func CheckHashFields(s *Store) error {
	tx := s.BeginAll()
	defer tx.Close()
	for db := range s.databases {
		pdb := s.phys(db)
		lo := encoding.AppendDBPrefix(nil, encoding.FamilyMeta, pdb)
		it, err := s.eng.NewIter(lo, encoding.PrefixEnd(lo))
		if err != nil {
			return err
		}
		for ok := it.First(); ok; ok = it.Next() {
			m, err := encoding.DecodeMeta(it.Value())
			if err != nil {
				it.Close()
				return err
			}
			if m.Type != encoding.TypeHash {
				continue
			}
			key := bytes.Clone(it.Key()[encoding.MetaPrefixLen:])
			if err := checkHashFieldsOf(s, pdb, key, &m); err != nil {
				it.Close()
				return fmt.Errorf("db %d hash %q: %w", db, key, err)
			}
		}
		if err := it.Close(); err != nil {
			return err
		}
	}
	return nil
}

func checkHashFieldsOf(s *Store, pdb uint16, key []byte, m *encoding.Meta) error {
	deadlines := map[string]int64{}
	p := encoding.AppendSubKeyPrefix(nil, encoding.FamilySub, pdb, key, m.Version)
	it, err := s.eng.NewIter(p, encoding.PrefixEnd(p))
	if err != nil {
		return err
	}
	for ok := it.First(); ok; ok = it.Next() {
		exp, _, err := encoding.DecodeFieldValue(it.Value())
		if err != nil {
			it.Close()
			return err
		}
		if exp != 0 {
			deadlines[string(it.Key()[len(p):])] = exp
		}
	}
	if err := it.Close(); err != nil {
		return err
	}
	p = encoding.AppendSubKeyPrefix(nil, encoding.FamilyFieldTTL, pdb, key, m.Version)
	if it, err = s.eng.NewIter(p, encoding.PrefixEnd(p)); err != nil {
		return err
	}
	var earliest int64
	for ok := it.First(); ok; ok = it.Next() {
		dl, err := hashTTLKeyDeadline(it.Key(), len(p))
		if err != nil {
			it.Close()
			return err
		}
		f := string(it.Key()[len(p)+8:])
		if got, ok := deadlines[f]; !ok || got != dl {
			it.Close()
			return fmt.Errorf("deadline index lists field %q at %d, its record says %d", f, dl, got)
		}
		delete(deadlines, f)
		if earliest == 0 {
			earliest = dl
		}
	}
	if err := it.Close(); err != nil {
		return err
	}
	for f, dl := range deadlines {
		return fmt.Errorf("field %q has deadline %d but no index entry", f, dl)
	}
	if tail := encoding.FieldDeadline(m); tail != earliest {
		return fmt.Errorf("metadata tail %d, earliest field deadline %d", tail, earliest)
	}
	if earliest != 0 {
		ek := encoding.AppendFieldExpireKey(nil, earliest, encoding.AppendMetaKey(nil, pdb, key))
		if _, err := s.eng.Get(ek, nil); err != nil {
			return fmt.Errorf("not filed under its earliest deadline %d: %w", earliest, err)
		}
	}
	return nil
}
