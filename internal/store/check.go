package store

import (
	"fmt"

	"github.com/cairndb/cairn/internal/encoding"
)

// Check verifies the store's invariants against what is on disk: every db's
// key count equals its metadata records, every deadline has its expiry
// index entry, and every collection's size equals its sub-key count. It
// reads everything: for tests and offline checks, not for a live server
// under load (it takes every lock).
func Check(s *Store) error {
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
			if m.Type.IsCollection() {
				key := mk[encoding.MetaPrefixLen:]
				p := encoding.AppendSubKeyPrefix(nil, encoding.FamilySub, pdb, key, m.Version)
				sub, err := s.eng.NewIter(p, encoding.PrefixEnd(p))
				if err != nil {
					it.Close()
					return err
				}
				var members uint64
				for ok := sub.First(); ok; ok = sub.Next() {
					members++
				}
				sub.Close()
				if members != m.Size {
					it.Close()
					return fmt.Errorf("db %d key %q: size field %d, %d sub-keys", db, key, m.Size, members)
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
