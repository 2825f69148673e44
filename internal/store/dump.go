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
		v.String = append([]byte(nil), info.Value...)
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
// in the Tx's one batch. It reports whether a key was replaced.
func (tx *Tx) WriteValue(db int, key []byte, v Value, deadline int64) (bool, error) {
	existed, err := tx.Delete(db, key)
	if err != nil {
		return false, err
	}
	switch v.Type {
	case encoding.TypeString:
		_, err = tx.SetString(db, key, v.String, SetArgs{ExpireMs: deadline})
		return existed, err
	case encoding.TypeList:
		_, err = tx.ListPush(db, key, ListRight, v.Items, false)
	case encoding.TypeSet:
		_, err = tx.SAdd(db, key, v.Items)
	case encoding.TypeZSet:
		_, err = tx.ZAdd(db, key, ZAddArgs{}, v.ZSet)
	case encoding.TypeHash:
		pairs := make([][]byte, 0, 2*len(v.Hash))
		for _, e := range v.Hash {
			pairs = append(pairs, e.Field, e.Value)
		}
		if _, err = tx.HSet(db, key, pairs); err == nil && v.FieldDeadlines != nil {
			for i, d := range v.FieldDeadlines {
				if d == 0 {
					continue
				}
				if _, err = tx.HExpire(db, key, d, ExpireAlways, [][]byte{v.Hash[i].Field}); err != nil {
					break
				}
			}
		}
	default:
		return false, fmt.Errorf("store: no value writer for type %s", v.Type)
	}
	if err == nil && deadline != 0 {
		_, err = tx.Expire(db, key, deadline, ExpireAlways)
	}
	return existed, err
}
