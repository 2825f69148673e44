package store

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/cairndb/cairn/internal/encoding"
	"github.com/cairndb/cairn/internal/engine"
)

// collection is a collection key as one Tx works on it: its metadata and
// the prefix its members live under. Every type's write follows the same
// idiom (Kvrocks's): open (type-checked), change members and Meta.Size in
// the batch, then save, which writes the metadata once — or deletes the key
// when the collection became empty, as Redis does.
type collection struct {
	db  int
	pdb uint16
	key []byte
	// Meta is the live metadata; Meta.Value is the type-specific tail,
	// owned by the collection (a copy, safe across reads).
	Meta encoding.Meta
	// Exists is false for a key that is absent (or expired): the first
	// write creates it under a new version.
	Exists bool
	// prefix holds the prefixes built so far, by family (see familySlot);
	// pbuf is their memory, starting in pmem, and vmem that of Meta.Value,
	// so that opening a collection with a short key allocates only the
	// collection.
	prefix [len(encoding.SubKeyFamilies)][]byte
	pbuf   []byte
	pmem   [96]byte
	vmem   [24]byte
	// filter is the member filter of version filterVersion (see
	// Tx.memberFilter), nil if it has none.
	filter        *memberFilter
	filterVersion uint64
	// stored is the metadata as the engine holds it (Exists), from the
	// open or the last save; storedVal holds its Value.
	stored    encoding.Meta
	storedVal [24]byte
}

// openCollection reads key as a collection of type t; an absent key yields
// Exists false, a key of another type ErrWrongType.
func (tx *Tx) openCollection(db int, key []byte, t encoding.Type) (*collection, error) {
	c := new(collection)
	if err := tx.initCollection(c, db, key, t); err != nil {
		return nil, err
	}
	return c, nil
}

// initCollection is openCollection into c, which may be part of a larger
// structure (a list's state).
func (tx *Tx) initCollection(c *collection, db int, key []byte, t encoding.Type) error {
	m, ok, err := tx.typedMeta(db, key, t)
	if err != nil {
		return err
	}
	c.db, c.pdb, c.key, c.Exists = db, tx.s.phys(db), key, ok
	if ok {
		m.Value = append(c.vmem[:0], m.Value...)
		c.Meta = m
		c.remember()
	} else {
		c.Meta = encoding.Meta{Type: t}
	}
	return nil
}

// create gives an absent collection a fresh version, so no member of any
// earlier collection under this name is ever visible to it. Type-specific
// fields (list head/tail) are the caller's to set.
func (tx *Tx) create(c *collection) error {
	if c.Exists {
		return nil
	}
	v, err := tx.newVersion()
	if err != nil {
		return err
	}
	c.Meta.Version = v
	c.Meta.Size = 0
	c.Meta.ExpireMs = 0
	c.forgetPrefixes()
	tx.filterCreate(c)
	return nil
}

// familySlot is the index of a sub-key family in collection.prefix.
func familySlot(f encoding.Family) int {
	for i, g := range encoding.SubKeyFamilies {
		if g == f {
			return i
		}
	}
	panic(fmt.Sprintf("store: %#x is not a sub-key family", f))
}

// Prefix returns the prefix of the collection's records in family f.
func (c *collection) Prefix(f encoding.Family) []byte {
	i := familySlot(f)
	if p := c.prefix[i]; p != nil {
		return p
	}
	if c.pbuf == nil {
		// Never copy a collection: the copy would build its prefixes in
		// the same memory.
		c.pbuf = c.pmem[:0]
	}
	// Earlier prefixes keep the memory they were built in if pbuf grows.
	start := len(c.pbuf)
	c.pbuf = encoding.AppendSubKeyPrefix(c.pbuf, f, c.pdb, c.key, c.Meta.Version)
	p := c.pbuf[start:len(c.pbuf):len(c.pbuf)]
	c.prefix[i] = p
	return p
}

// forgetPrefixes drops the prefixes built so far, after a version change.
// The next ones are built after them: the old ones may still be in use.
func (c *collection) forgetPrefixes() {
	c.prefix = [len(c.prefix)][]byte{}
	c.pbuf = c.pbuf[len(c.pbuf):]
}

// SubKey returns the FamilySub key of member.
func (c *collection) SubKey(member []byte) []byte {
	return encoding.AppendSubKey(nil, c.Prefix(encoding.FamilySub), member)
}

// save writes the collection's metadata, or deletes the key when it has no
// members left. A collection that never existed and is still empty writes
// nothing.
func (tx *Tx) save(c *collection) error {
	if c.Meta.Size == 0 {
		if c.Exists {
			_, err := tx.deleteKey(c.db, c.key)
			c.Exists = false
			return err
		}
		return nil
	}
	if c.Exists && c.unchanged() {
		// Members changed, the metadata did not (a new score, an
		// overwritten field, LSET): one record fewer to write. The key
		// still counts as modified.
		tx.touch(c.db, c.key)
		return nil
	}
	if err := tx.putMeta(c.db, c.key, &c.Meta); err != nil {
		return err
	}
	c.Exists = true
	c.remember()
	return nil
}

// remember notes c.Meta as what the engine holds.
func (c *collection) remember() {
	c.stored = c.Meta
	c.stored.Value = append(c.storedVal[:0], c.Meta.Value...)
}

// unchanged reports whether c.Meta is what the engine holds.
func (c *collection) unchanged() bool {
	m, o := &c.Meta, &c.stored
	return m.Type == o.Type && m.Version == o.Version && m.Size == o.Size && m.ExpireMs == o.ExpireMs && bytes.Equal(m.Value, o.Value)
}

// get reads one record of the collection through the Tx (its own writes
// included); found is false when absent.
func (tx *Tx) get(k []byte) (v []byte, found bool, err error) {
	v, err = tx.r.Get(k, nil)
	if errors.Is(err, engine.ErrNotFound) {
		return nil, false, nil
	}
	return v, err == nil, err
}

// set and del write one record of a collection; the key must be locked.
func (tx *Tx) set(c *collection, k, v []byte) error {
	if err := tx.checkWrite(c.key); err != nil {
		return err
	}
	tx.filterAdd(c, k)
	tx.forgetAbsent(c, k)
	return tx.b.Set(k, v)
}

func (tx *Tx) del(c *collection, k []byte) error {
	if err := tx.checkWrite(c.key); err != nil {
		return err
	}
	if err := tx.b.Delete(k); err != nil {
		return err
	}
	tx.noteAbsent(c, k)
	return nil
}

// iter opens an iterator over the collection's records in family f, within
// [prefix+from, prefix+to); nil bounds mean the whole family range.
func (tx *Tx) iter(c *collection, f encoding.Family, from, to []byte) (engine.Iterator, error) {
	p := c.Prefix(f)
	lo := append(append([]byte(nil), p...), from...)
	var hi []byte
	if to != nil {
		hi = append(append([]byte(nil), p...), to...)
	} else {
		hi = encoding.PrefixEnd(p)
	}
	return tx.r.NewIter(lo, hi)
}
