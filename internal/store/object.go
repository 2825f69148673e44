package store

import (
	"fmt"

	"github.com/cairndb/cairn/internal/encoding"
)

// Encoding is OBJECT ENCODING: the name Redis 7 would give the key's
// internal representation, judged by the same size thresholds (Cairn's own
// layout on disk is the same whatever the size).
func (tx *Tx) Encoding(db int, key []byte) (string, bool, error) {
	m, ok, err := tx.meta(db, key)
	if err != nil || !ok {
		return "", false, err
	}
	switch m.Type {
	case encoding.TypeString:
		if m.Fragmented() {
			// Longer than any embstr or int.
			return "raw", true, nil
		}
		return StringEncoding(m.Value, m.Repr), true, nil
	case encoding.TypeHash:
		return tx.HashEncoding(db, key)
	case encoding.TypeSet:
		return tx.SetEncoding(db, key)
	case encoding.TypeList:
		return tx.ListEncoding(db, key)
	case encoding.TypeZSet:
		return tx.ZSetEncoding(db, key)
	case encoding.TypeStream:
		return StreamEncoding, true, nil
	case encoding.TypeSortedint:
		// Redis has no such type; Kvrocks names none either.
		return "sortedint", true, nil
	}
	return "", false, fmt.Errorf("key %q: no encoding for type %s", key, m.Type)
}
