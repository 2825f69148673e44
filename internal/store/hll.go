package store

import "github.com/cairndb/cairn/internal/encoding"

// LookupString returns a copy of a string key's value for a command that
// rewrites it in place, as the HyperLogLog commands do. counted says
// whether the lookup counts as a keyspace hit or miss, as Redis's
// lookupKeyRead does and its lookupKeyWrite does not. A key of another
// type is ErrWrongType.
func (tx *Tx) LookupString(db int, key []byte, counted bool) ([]byte, bool, error) {
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
	return append([]byte(nil), v...), true, nil
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

// RewriteStringFragmented is RewriteString for a value kept in fragments
// of 1<<shift bytes whatever its length (a dense HyperLogLog), so that a
// later change through OpenString writes only the fragments it touches.
// An empty value, or a shift out of encoding's bounds, is written as
// RewriteString writes it.
func (tx *Tx) RewriteStringFragmented(db int, key, value []byte, shift uint8) error {
	if len(value) == 0 || shift < encoding.MinFragShift || shift > encoding.MaxFragShift {
		return tx.RewriteString(db, key, value)
	}
	m, ok, err := tx.meta(db, key)
	if err != nil {
		return err
	}
	var expire int64
	if ok {
		expire = m.ExpireMs
	}
	return tx.putFragments(db, key, &encoding.Meta{Type: encoding.TypeString, ExpireMs: expire}, value, shift)
}
