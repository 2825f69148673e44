package store

import (
	"errors"

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
	prefix map[encoding.Family][]byte
}

// openCollection reads key as a collection of type t; an absent key yields
// Exists false, a key of another type ErrWrongType.
func (tx *Tx) openCollection(db int, key []byte, t encoding.Type) (*collection, error) {
	m, ok, err := tx.typedMeta(db, key, t)
	if err != nil {
		return nil, err
	}
	c := &collection{db: db, pdb: tx.s.phys(db), key: key, Exists: ok}
	if ok {
		m.Value = append([]byte(nil), m.Value...)
		c.Meta = m
	} else {
		c.Meta = encoding.Meta{Type: t}
	}
	return c, nil
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
	c.prefix = nil
	return nil
}

// Prefix returns the prefix of the collection's records in family f.
func (c *collection) Prefix(f encoding.Family) []byte {
	if p, ok := c.prefix[f]; ok {
		return p
	}
	if c.prefix == nil {
		c.prefix = map[encoding.Family][]byte{}
	}
	p := encoding.AppendSubKeyPrefix(nil, f, c.pdb, c.key, c.Meta.Version)
	c.prefix[f] = p
	return p
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
	if err := tx.putMeta(c.db, c.key, &c.Meta); err != nil {
		return err
	}
	c.Exists = true
	return nil
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
	return tx.b.Set(k, v)
}

func (tx *Tx) del(c *collection, k []byte) error {
	if err := tx.checkWrite(c.key); err != nil {
		return err
	}
	return tx.b.Delete(k)
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
