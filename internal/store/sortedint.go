package store

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/cairndb/cairn/internal/encoding"
)

// Sortedints (Kvrocks's type) keep one sub-key per member with an empty
// value, the member as a big-endian u64 (docs/encoding.md):
//
//	0x02 | db | slot | len(key) | key | version | id u64 → (empty)
//
// so members are in numeric order, SIEXISTS is one point read per id (SIADD
// and SIREM skip the read when the member filter rules the id out), SICARD
// is the metadata's size, and every range is a seek and a scan inside the
// key's prefix. DEL drops the version, as for every collection.

func (tx *Tx) openSortedint(db int, key []byte) (*collection, error) {
	return tx.openCollection(db, key, encoding.TypeSortedint)
}

// SIAdd adds ids to a sortedint, creating it, and returns how many were new.
func (tx *Tx) SIAdd(db int, key []byte, ids []uint64) (int64, error) {
	c, err := tx.openSortedint(db, key)
	if err != nil {
		return 0, err
	}
	if err := tx.create(c); err != nil {
		return 0, err
	}
	p := c.Prefix(encoding.FamilySub)
	var added int64
	var buf []byte
	for _, id := range ids {
		buf = encoding.AppendSortedintMember(buf[:0], p, id)
		// The batch reads its own writes, and the member filter learns
		// each write: a repeated id is new only once.
		found, err := tx.hasMember(c, buf, buf[len(p):])
		if err != nil {
			return 0, err
		}
		if found {
			continue
		}
		if err := tx.set(c, buf, nil); err != nil {
			return 0, err
		}
		added++
	}
	if added == 0 {
		return 0, nil
	}
	c.Meta.Size += uint64(added)
	return added, tx.save(c)
}

// SIRem removes ids from a sortedint and returns how many were there. A
// sortedint left empty is deleted.
func (tx *Tx) SIRem(db int, key []byte, ids []uint64) (int64, error) {
	c, err := tx.openSortedint(db, key)
	if err != nil || !c.Exists {
		return 0, err
	}
	p := c.Prefix(encoding.FamilySub)
	var removed int64
	var buf []byte
	for _, id := range ids {
		buf = encoding.AppendSortedintMember(buf[:0], p, id)
		found, err := tx.hasMember(c, buf, buf[len(p):])
		if err != nil {
			return 0, err
		}
		if !found {
			continue
		}
		if err := tx.del(c, buf); err != nil {
			return 0, err
		}
		removed++
	}
	if removed == 0 {
		return 0, nil
	}
	c.Meta.Size -= uint64(removed)
	return removed, tx.save(c)
}

// SICard returns the number of members of a sortedint (0 when absent).
func (tx *Tx) SICard(db int, key []byte) (int64, error) {
	c, err := tx.openSortedint(db, key)
	if err != nil || !c.Exists {
		return 0, err
	}
	return int64(c.Meta.Size), nil
}

// SIExists reports, for each id, whether it is in the sortedint.
func (tx *Tx) SIExists(db int, key []byte, ids []uint64) ([]bool, error) {
	out := make([]bool, len(ids))
	c, err := tx.openSortedint(db, key)
	if err != nil || !c.Exists {
		return out, err
	}
	p := c.Prefix(encoding.FamilySub)
	var buf []byte
	for i, id := range ids {
		buf = encoding.AppendSortedintMember(buf[:0], p, id)
		if _, out[i], err = tx.get(buf); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// SIRangeArgs are SIRANGE's and SIREVRANGE's: skip Offset members, then
// return up to Limit (0: no limit), ascending or, with Reverse, descending.
// A Cursor other than 0 starts the walk just past it (above it ascending,
// below it descending) and is itself never returned; 0 starts at the
// first member, 0 included (Kvrocks skips a member 0 here, a quirk of its
// cursor test that Cairn does not keep).
type SIRangeArgs struct {
	Offset, Limit uint64
	Cursor        uint64
	Reverse       bool
}

// SIRange returns the members SIRangeArgs select.
func (tx *Tx) SIRange(db int, key []byte, a SIRangeArgs) ([]uint64, error) {
	lo, hi := uint64(0), uint64(math.MaxUint64)
	switch {
	case a.Cursor == 0:
	case a.Reverse:
		hi = a.Cursor - 1
	case a.Cursor == math.MaxUint64:
		lo, hi = 1, 0 // nothing above it
	default:
		lo = a.Cursor + 1
	}
	return tx.siScan(db, key, lo, hi, a.Offset, a.Limit, a.Reverse)
}

// SIValueRange is SIRANGEBYVALUE's and SIREVRANGEBYVALUE's selection: the
// members between Min and Max (each excluded when its Ex is set), after
// skipping Offset (negative: none), up to Count (0 or negative: no limit).
type SIValueRange struct {
	Min, Max     uint64
	MinEx, MaxEx bool
	Offset       int64
	Count        int64
	Reverse      bool
}

// SIRangeByValue returns the members SIValueRange selects, ascending or,
// with Reverse, descending.
func (tx *Tx) SIRangeByValue(db int, key []byte, r SIValueRange) ([]uint64, error) {
	lo, hi := r.Min, r.Max
	if r.MinEx {
		if lo == math.MaxUint64 {
			lo, hi = 1, 0 // nothing above it
		} else {
			lo++
		}
	}
	if r.MaxEx {
		if hi == 0 {
			lo, hi = 1, 0 // nothing below it
		} else {
			hi--
		}
	}
	off, limit := uint64(0), uint64(0)
	if r.Offset > 0 {
		off = uint64(r.Offset)
	}
	if r.Count > 0 {
		limit = uint64(r.Count)
	}
	return tx.siScan(db, key, lo, hi, off, limit, r.Reverse)
}

// siScan returns the members in [lo, hi], skipping off of them from the
// start of the walk and returning up to limit (0: all).
func (tx *Tx) siScan(db int, key []byte, lo, hi, off, limit uint64, reverse bool) ([]uint64, error) {
	// An empty range still type-checks the key, as every read does.
	c, err := tx.openSortedint(db, key)
	if err != nil || !c.Exists || lo > hi {
		return nil, err
	}
	from := binary.BigEndian.AppendUint64(nil, lo)
	var to []byte
	if hi != math.MaxUint64 {
		to = binary.BigEndian.AppendUint64(nil, hi+1)
	}
	it, err := tx.iter(c, encoding.FamilySub, from, to)
	if err != nil {
		return nil, err
	}
	p := len(c.Prefix(encoding.FamilySub))
	var out []uint64
	var skipped uint64
	ok := it.First()
	if reverse {
		ok = it.Last()
	}
	for ; ok; ok = siStep(it, reverse) {
		if skipped < off {
			skipped++
			continue
		}
		id, err := encoding.DecodeSortedintMember(it.Key()[p:])
		if err != nil {
			_ = it.Close()
			return nil, fmt.Errorf("sortedint %q: %w", key, err)
		}
		out = append(out, id)
		if limit > 0 && uint64(len(out)) >= limit {
			break
		}
	}
	if err := it.Error(); err != nil {
		_ = it.Close()
		return nil, err
	}
	return out, it.Close()
}

// siStep moves it one record on, backwards with reverse.
func siStep(it interface {
	Next() bool
	Prev() bool
}, reverse bool) bool {
	if reverse {
		return it.Prev()
	}
	return it.Next()
}
