package store

import (
	"fmt"

	"github.com/cairndb/cairn/internal/encoding"
)

// Value is a whole key's value, as DUMP reads it and RESTORE writes it.
// Only the field of its Type is used. A new type joins DUMP and RESTORE by
// adding its field here and its case to ReadValue and WriteValue.
type Value struct {
	Type encoding.Type
	// String is a string's value.
	String []byte
	// Items are a list's elements in order or a set's members.
	Items [][]byte
	// Hash is a hash's fields and values; FieldDeadlines, when not nil,
	// holds each field's absolute deadline in ms (0 for none).
	Hash           []HashEntry
	FieldDeadlines []int64
	// ZSet is a sorted set's members and scores.
	ZSet []ZMember
}

// ReadValue returns key's whole value and its deadline (absolute ms, 0 for
// none), from one consistent view.
func (tx *Tx) ReadValue(db int, key []byte) (Value, int64, bool, error) {
	info, ok, err := tx.Lookup(db, key)
	if err != nil || !ok {
		return Value{}, 0, false, err
	}
	v := Value{Type: info.Type}
	switch info.Type {
	case encoding.TypeString:
		// Not counted as a keyspace hit, as Lookup is not.
		var m encoding.Meta
		if m, _, err = tx.fragmentMeta(db, key); err == nil {
			var b []byte
			if b, err = tx.stringBytes(db, key, &m); err == nil {
				v.String = append([]byte{}, b...)
			}
		}
	case encoding.TypeList:
		v.Items, err = tx.LRange(db, key, 0, -1)
	case encoding.TypeSet:
		err = tx.SMembers(db, key, func(n int64) { v.Items = make([][]byte, 0, n) },
			func(m []byte) { v.Items = append(v.Items, append([]byte(nil), m...)) })
	case encoding.TypeZSet:
		v.ZSet, err = tx.ZRange(db, key, ZRange{By: ZByRank, Start: 0, Stop: -1, Count: -1})
	case encoding.TypeHash:
		v.Hash, err = tx.HGetAll(db, key)
		if err == nil {
			err = v.readFieldDeadlines(tx, db, key)
		}
	case encoding.TypeSortedint:
		return Value{}, 0, false, ErrNoRDBType
	default:
		return Value{}, 0, false, fmt.Errorf("store: no value reader for type %s", info.Type)
	}
	if err != nil {
		return Value{}, 0, false, err
	}
	return v, info.ExpireMs, true, nil
}

// readFieldDeadlines fills FieldDeadlines when some field has one.
func (v *Value) readFieldDeadlines(tx *Tx, db int, key []byte) error {
	fields := make([][]byte, len(v.Hash))
	for i, e := range v.Hash {
		fields[i] = e.Field
	}
	ds, err := tx.HFieldDeadlines(db, key, fields)
	if err != nil {
		return err
	}
	for i, d := range ds {
		if d < 0 {
			ds[i] = 0
			continue
		}
		v.FieldDeadlines = ds
	}
	return nil
}

// WriteValue replaces key with v and deadline (absolute ms, 0 for none),
// in the Tx's one batch. It reports whether key was written: not when v is
// a hash whose every field's deadline has passed (the old key is gone
// all the same).
func (tx *Tx) WriteValue(db int, key []byte, v Value, deadline int64) (bool, error) {
	if _, err := tx.Delete(db, key); err != nil {
		return false, err
	}
	var err error
	switch v.Type {
	case encoding.TypeString:
		_, err = tx.SetString(db, key, v.String, SetArgs{ExpireMs: deadline})
		return err == nil, err
	case encoding.TypeList:
		_, err = tx.ListPush(db, key, ListRight, v.Items, false)
	case encoding.TypeSet:
		_, err = tx.SAdd(db, key, v.Items)
	case encoding.TypeZSet:
		_, err = tx.ZAdd(db, key, ZAddArgs{}, v.ZSet)
	case encoding.TypeHash:
		err = tx.writeHash(db, key, v)
	default:
		return false, fmt.Errorf("store: no value writer for type %s", v.Type)
	}
	if err != nil {
		return false, err
	}
	if v.Type == encoding.TypeHash {
		if ok, err := tx.Exists(db, key); err != nil || !ok {
			return false, err
		}
	}
	if deadline != 0 {
		if _, err := tx.Expire(db, key, deadline, ExpireAlways); err != nil {
			return false, err
		}
	}
	return true, nil
}

// writeHash creates a hash from v's fields, leaving out those whose
// deadline has passed, and gives the others their deadlines.
func (tx *Tx) writeHash(db int, key []byte, v Value) error {
	deadlineOf := func(i int) int64 {
		if i < len(v.FieldDeadlines) {
			return v.FieldDeadlines[i]
		}
		return 0
	}
	pairs := make([][]byte, 0, 2*len(v.Hash))
	for i, e := range v.Hash {
		if d := deadlineOf(i); d != 0 && d <= tx.NowMs {
			continue
		}
		pairs = append(pairs, e.Field, e.Value)
	}
	if len(pairs) == 0 {
		return nil
	}
	if _, err := tx.HSet(db, key, pairs); err != nil {
		return err
	}
	for i, e := range v.Hash {
		if d := deadlineOf(i); d > tx.NowMs {
			if _, err := tx.HExpire(db, key, d, ExpireAlways, [][]byte{e.Field}); err != nil {
				return err
			}
		}
	}
	return nil
}
