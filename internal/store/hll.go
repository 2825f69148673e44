package store

import "github.com/cairndb/cairn/internal/encoding"

// PeekString is LookupString for a reader that only looks: an inline
// value is not copied, and is valid only until the Tx's next call (a
// caller that changes it copies it first).
func (tx *Tx) PeekString(db int, key []byte, counted bool) ([]byte, bool, error) {
	return tx.lookupString(db, key, counted, false)
}

// LookupString returns a copy of a string key's value for a command that
// rewrites it in place, as the HyperLogLog commands do. counted says
// whether the lookup counts as a keyspace hit or miss, as Redis's
// lookupKeyRead does and its lookupKeyWrite does not. A key of another
// type is ErrWrongType.
func (tx *Tx) LookupString(db int, key []byte, counted bool) ([]byte, bool, error) {
	return tx.lookupString(db, key, counted, true)
}

func (tx *Tx) lookupString(db int, key []byte, counted, copied bool) ([]byte, bool, error) {
	m, ok, err := tx.meta(db, key)
	if err != nil {
		return nil, false, err
	}
	if counted {
		if ok {
			tx.s.stats.KeyspaceHits.Add(1)
		} else {
			tx.s.stats.KeyspaceMisses.Add(1)
		}
	}
	if !ok {
		return nil, false, nil
	}
	if m.Type != encoding.TypeString {
		return nil, false, ErrWrongType
	}
	v, err := tx.stringBytes(db, key, &m)
	if err != nil {
		return nil, false, err
	}
	if copied && !m.Fragmented() {
		// A fragmented value is a fresh buffer already.
		v = append([]byte(nil), v...)
	}
	return v, true, nil
}

// RewriteString stores value in string key, keeping the key's deadline (a
// new key has none), held raw as Redis holds a value it changed in place.
func (tx *Tx) RewriteString(db int, key, value []byte) error {
	m, ok, err := tx.meta(db, key)
	if err != nil {
		return err
	}
	var expire int64
	if ok {
		expire = m.ExpireMs
	}
	return tx.updateString(db, key, expire, value, encoding.ReprRaw)
}
