package store

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/cairndb/cairn/internal/encoding"
	"github.com/cairndb/cairn/internal/engine"
)

// Check verifies the store's invariants against what is on disk: every db's
// key count equals its metadata records, every deadline has its expiry
// index entry, and every collection's size equals its sub-key count. It
// reads everything: for tests and offline checks, not for a live server
// under load (it takes every lock). It also verifies that the key cache
// agrees with the engine, and that member filters hold every member.
func Check(s *Store) error {
	if err := checkKeys(s); err != nil {
		return err
	}
	if err := checkKeyCache(s); err != nil {
		return err
	}
	return CheckHashFields(s)
}

// checkKeyCache compares every cached metadata record with the engine's.
func checkKeyCache(s *Store) error {
	if s.keys == nil {
		return nil
	}
	tx := s.BeginAll()
	defer tx.Close()
	for i := range s.keys.shards {
		sh := &s.keys.shards[i]
		sh.mu.Lock()
		for _, slot := range sh.t.slots {
			h, e := slot.h, slot.e
			if h == 0 {
				continue
			}
			mk := e.key()
			if h != s.keys.keyHash(mk) || sh.t.find(h) < 0 {
				sh.mu.Unlock()
				return fmt.Errorf("key cache: %q filed under another key's hash, or where a search does not reach it", mk)
			}
			raw, err := s.eng.Get(mk, nil)
			found := err == nil
			if err != nil && !errors.Is(err, engine.ErrNotFound) {
				sh.mu.Unlock()
				return err
			}
			if found != e.found || !bytes.Equal(raw, e.raw()) {
				sh.mu.Unlock()
				return fmt.Errorf("key cache: %q cached as (%t, %x), engine has (%t, %x)", mk, e.found, e.raw(), found, raw)
			}
		}
		sh.mu.Unlock()
	}
	// A database held whole must have every record of the engine cached.
	for pdb := range s.databases {
		if !s.keys.holdsAll(uint16(pdb)) {
			continue
		}
		lo := encoding.AppendDBPrefix(nil, encoding.FamilyMeta, uint16(pdb))
		it, err := s.eng.NewIter(lo, encoding.PrefixEnd(lo))
		if err != nil {
			return err
		}
		for ok := it.First(); ok; ok = it.Next() {
			sh := &s.keys.shards[stripeOf(it.Key()[encoding.MetaPrefixLen:])]
			sh.mu.Lock()
			e, cached := s.keys.entry(sh, it.Key())
			sh.mu.Unlock()
			if !cached || !e.found {
				err := fmt.Errorf("key cache: database %d held whole, but %q is not cached", pdb, it.Key())
				_ = it.Close()
				return err
			}
		}
		if err := errors.Join(it.Error(), it.Close()); err != nil {
			return err
		}
	}
	return nil
}

func checkKeys(s *Store) error {
	tx := s.BeginAll()
	defer tx.Close()
	for db := range s.databases {
		pdb := s.phys(db)
		lo := encoding.AppendDBPrefix(nil, encoding.FamilyMeta, pdb)
		it, err := s.eng.NewIter(lo, encoding.PrefixEnd(lo))
		if err != nil {
			return err
		}
		var n int64
		for ok := it.First(); ok; ok = it.Next() {
			n++
			mk := append([]byte(nil), it.Key()...)
			m, err := encoding.DecodeMeta(it.Value())
			if err != nil {
				it.Close()
				return fmt.Errorf("db %d key %q: %w", db, mk[encoding.MetaPrefixLen:], err)
			}
			if m.ExpireMs != 0 {
				if _, err := s.eng.Get(encoding.AppendExpireKey(nil, m.ExpireMs, mk), nil); err != nil {
					it.Close()
					return fmt.Errorf("db %d key %q: deadline %d has no expiry index entry: %w", db, mk[encoding.MetaPrefixLen:], m.ExpireMs, err)
				}
			}
			if m.Fragmented() {
				if err := checkFragments(s, pdb, mk[encoding.MetaPrefixLen:], &m); err != nil {
					it.Close()
					return fmt.Errorf("db %d: %w", db, err)
				}
			}
			if m.Type.IsCollection() {
				if err := checkCollection(s, pdb, mk[encoding.MetaPrefixLen:], &m); err != nil {
					it.Close()
					return fmt.Errorf("db %d: %w", db, err)
				}
			}
		}
		if err := it.Close(); err != nil {
			return err
		}
		if size := s.DBSize(db); size != n {
			return fmt.Errorf("db %d: DBSIZE %d, %d metadata records", db, size, n)
		}
	}
	return nil
}

// checkFragments verifies a fragmented string's length against its
// fragments: every fragment is a fragment key, non-empty (an all-zero
// fragment is deleted), no longer than the fragment size, and ends within
// the length.
func checkFragments(s *Store, pdb uint16, key []byte, m *encoding.Meta) error {
	p := encoding.AppendSubKeyPrefix(nil, encoding.FamilySub, pdb, key, m.Version)
	it, err := s.eng.NewIter(p, encoding.PrefixEnd(p))
	if err != nil {
		return err
	}
	defer it.Close()
	fs := uint64(1) << m.FragShift
	for ok := it.First(); ok; ok = it.Next() {
		i, err := encoding.DecodeFragmentIndex(it.Key(), len(p))
		if err != nil {
			return fmt.Errorf("string %q: %w", key, err)
		}
		n := uint64(len(it.Value()))
		switch {
		case n == 0:
			return fmt.Errorf("string %q: fragment %d is empty", key, i)
		case n > fs:
			return fmt.Errorf("string %q: fragment %d holds %d bytes, more than the fragment size %d", key, i, n, fs)
		case i > (m.Size-1)/fs || i*fs+n > m.Size:
			return fmt.Errorf("string %q: length field %d, fragment %d holds bytes up to %d", key, m.Size, i, i*fs+n)
		case it.Value()[n-1] == 0:
			return fmt.Errorf("string %q: fragment %d stored with trailing zeros", key, i)
		}
	}
	return it.Error()
}

// checkCollection verifies one collection's size against its records.
func checkCollection(s *Store, pdb uint16, key []byte, m *encoding.Meta) error {
	count := func(f encoding.Family) (uint64, error) {
		p := encoding.AppendSubKeyPrefix(nil, f, pdb, key, m.Version)
		it, err := s.eng.NewIter(p, encoding.PrefixEnd(p))
		if err != nil {
			return 0, err
		}
		defer it.Close()
		var n uint64
		for ok := it.First(); ok; ok = it.Next() {
			n++
		}
		return n, it.Error()
	}
	if m.Type == encoding.TypeStream {
		return checkStream(s, pdb, key, m)
	}
	members, err := count(encoding.FamilySub)
	if err != nil {
		return err
	}
	if err := checkMemberFilter(s, pdb, key, m); err != nil {
		return err
	}
	if members != m.Size {
		return fmt.Errorf("%s %q: size field %d, %d members", m.Type, key, m.Size, members)
	}
	switch m.Type {
	case encoding.TypeZSet:
		return checkZSetIndex(s, pdb, key, m)
	case encoding.TypeSortedint:
		return checkSortedint(s, pdb, key, m)
	case encoding.TypeList:
		l, err := encoding.DecodeListMeta(m.Value)
		if err != nil {
			return err
		}
		if l.Tail-l.Head != m.Size {
			return fmt.Errorf("list %q: size field %d, head..tail spans %d", key, m.Size, l.Tail-l.Head)
		}
	case encoding.TypeHash:
		h, err := encoding.DecodeHashMeta(m.Value)
		if err != nil {
			return err
		}
		if h.MinFieldExpireMs != 0 {
			mk := encoding.AppendMetaKey(nil, pdb, key)
			if _, err := s.eng.Get(encoding.AppendFieldExpireKey(nil, h.MinFieldExpireMs, mk), nil); err != nil {
				return fmt.Errorf("hash %q: earliest field deadline %d has no field-expiry entry: %w", key, h.MinFieldExpireMs, err)
			}
		}
	}
	return nil
}

// checkMemberFilter verifies that the member filter of a collection's
// version, if it has one, holds every member: a member it missed would be
// written a second time as new.
func checkMemberFilter(s *Store, pdb uint16, key []byte, m *encoding.Meta) error {
	f := s.filters.lookup(m.Version)
	if f == nil {
		return nil
	}
	p := encoding.AppendSubKeyPrefix(nil, encoding.FamilySub, pdb, key, m.Version)
	it, err := s.eng.NewIter(p, encoding.PrefixEnd(p))
	if err != nil {
		return err
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		if member := it.Key()[len(p):]; !f.mayHold(s.filters.hash(member)) {
			return fmt.Errorf("%s %q: member %q missing from the member filter", m.Type, key, member)
		}
	}
	return it.Error()
}

// checkZSetIndex verifies a sorted set's score index: one entry per member,
// every one of them within the score bounds of the metadata (readers never
// look outside them, so an entry beyond a bound is a member lost to every
// range read).
func checkZSetIndex(s *Store, pdb uint16, key []byte, m *encoding.Meta) error {
	b, err := encoding.DecodeZSetMeta(m.Value)
	if err != nil {
		return fmt.Errorf("zset %q: %w", key, err)
	}
	p := encoding.AppendSubKeyPrefix(nil, encoding.FamilyScore, pdb, key, m.Version)
	it, err := s.eng.NewIter(p, encoding.PrefixEnd(p))
	if err != nil {
		return err
	}
	defer it.Close()
	var n uint64
	for ok := it.First(); ok; ok = it.Next() {
		n++
		u, err := zbits(it.Key(), len(p))
		if err != nil {
			return fmt.Errorf("zset %q: %w", key, err)
		}
		if !b.Contains(u) {
			return fmt.Errorf("zset %q: member %q scores %g, outside the metadata's bounds [%g, %g]",
				key, it.Key()[len(p)+8:], encoding.ScoreFromBits(u), encoding.ScoreFromBits(b.Low), encoding.ScoreFromBits(b.High))
		}
	}
	if err := it.Error(); err != nil {
		return err
	}
	if n != m.Size {
		return fmt.Errorf("zset %q: size field %d, %d score index entries", key, m.Size, n)
	}
	return nil
}

// checkSortedint verifies that every member record of a sortedint holds an
// 8-byte id: anything else would be skipped or misread by range reads.
func checkSortedint(s *Store, pdb uint16, key []byte, m *encoding.Meta) error {
	p := encoding.AppendSubKeyPrefix(nil, encoding.FamilySub, pdb, key, m.Version)
	it, err := s.eng.NewIter(p, encoding.PrefixEnd(p))
	if err != nil {
		return err
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		if _, err := encoding.DecodeSortedintMember(it.Key()[len(p):]); err != nil {
			return fmt.Errorf("sortedint %q: %w", key, err)
		}
		if len(it.Value()) != 0 {
			return fmt.Errorf("sortedint %q: member record with a %d-byte value", key, len(it.Value()))
		}
	}
	return it.Error()
}
