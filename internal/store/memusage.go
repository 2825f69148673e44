package store

import (
	"github.com/cairndb/cairn/internal/encoding"
)

// MemoryUsage is MEMORY USAGE's estimate of the bytes key occupies in the
// store: its metadata record (key and value) and, for a collection, the
// records of its members. Up to samples records of each sub-key family
// are read (all of them when samples is 0); when a family has more, the
// average of those read is multiplied by the member count, as Redis
// samples a big collection's elements. The figure is the records' logical
// size, before Pebble's compression and without its per-record overhead.
// A fragmented string counts its fragments, every one of them (they are
// what it occupies, and a sparse bitmap has few). found is false for an
// absent key. It does not count as an access.
func (tx *Tx) MemoryUsage(db int, key []byte, samples int) (size int64, found bool, err error) {
	m, ok, err := tx.meta(db, key)
	if err != nil || !ok {
		return 0, false, err
	}
	mk, raw, _, err := tx.rawMeta(tx.s.phys(db), key)
	if err != nil {
		return 0, false, err
	}
	size = int64(len(mk) + len(raw))
	if m.Type == encoding.TypeString {
		if m.Fragmented() {
			if m, ok, err = tx.fragmentMeta(db, key); err != nil || !ok || !m.Fragmented() {
				return size, ok, err
			}
			p := encoding.AppendSubKeyPrefix(nil, encoding.FamilySub, tx.s.phys(db), key, m.Version)
			it, err := tx.r.NewIter(p, encoding.PrefixEnd(p))
			if err != nil {
				return 0, false, err
			}
			defer it.Close()
			for ok := it.First(); ok; ok = it.Next() {
				size += int64(len(it.Key()) + len(it.Value()))
			}
			return size, true, it.Error()
		}
		return size, true, nil
	}
	c := new(collection)
	if err := tx.initCollection(c, db, key, m.Type); err != nil {
		return 0, false, err
	}
	for _, f := range encoding.SubKeyFamilies {
		n, bytes, more, err := tx.sampleFamily(c, f, samples)
		if err != nil {
			return 0, false, err
		}
		if more && n > 0 {
			bytes = bytes / int64(n) * int64(c.Meta.Size)
		}
		size += bytes
	}
	return size, true, nil
}

// sampleFamily reads up to limit records of family f (all when limit is
// 0) and returns how many it read, their bytes, and whether more remain.
func (tx *Tx) sampleFamily(c *collection, f encoding.Family, limit int) (n int, bytes int64, more bool, err error) {
	it, err := tx.iter(c, f, nil, nil)
	if err != nil {
		return 0, 0, false, err
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		if limit > 0 && n == limit {
			return n, bytes, true, it.Error()
		}
		n++
		bytes += int64(len(it.Key()) + len(it.Value()))
	}
	return n, bytes, false, it.Error()
}
