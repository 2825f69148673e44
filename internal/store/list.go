package store

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/cairndb/cairn/internal/encoding"
)

// Lists are arrays (docs/encoding.md): the items of one version of a list
// sit at consecutive u64 indices [Head, Tail), so the n-th item is one
// point read at Head+n, a push or pop at either end writes one record, and
// a range is one bounded scan that never passes over anything but the items
// it returns (the tombstones that pops leave lie outside [Head, Tail)).
// Only an insertion or removal in the middle (LINSERT, LREM) moves items;
// it moves those on the shorter side, within the O(N) Redis allows there.
//
// Meta.Size always equals Tail-Head, which Check verifies along with the
// record count.

// ErrIndexRange is LSET's reply for an index outside the list.
const ErrIndexRange Error = "ERR index out of range"

// ListEnd names an end of a list: Redis's LEFT (the head) or RIGHT.
type ListEnd uint8

// The ends of a list.
const (
	ListLeft ListEnd = iota
	ListRight
)

// listRangeDeleteMin is the smallest span of items that is deleted with one
// range tombstone rather than one point tombstone per item. A range
// tombstone makes a large LTRIM O(1) in writes, but every one of them in
// the memtable is re-fragmented by reads until it is flushed, so the small
// spans of everyday pops and capped-list trims stay point deletes.
const listRangeDeleteMin = 16

// listState is one command's view of a list key.
type listState struct {
	collection
	l encoding.ListMeta
	// prefix is the FamilySub prefix of the version; nil until the list
	// has one.
	prefix []byte
	// kb holds itemKey's keys, bounds scanList's iterator bounds (in bmem
	// when they fit).
	kb, bounds []byte
	bmem       [112]byte
}

// openList opens key as a list (ErrWrongType for another type).
func (tx *Tx) openList(db int, key []byte) (*listState, error) {
	ls := new(listState)
	if err := tx.initCollection(&ls.collection, db, key, encoding.TypeList); err != nil {
		return nil, err
	}
	if ls.Exists {
		var err error
		if ls.l, err = encoding.DecodeListMeta(ls.Meta.Value); err != nil {
			return nil, fmt.Errorf("key %q: %w", key, err)
		}
		ls.prefix = ls.Prefix(encoding.FamilySub)
	}
	return ls, nil
}

func (ls *listState) len() uint64 { return ls.l.Tail - ls.l.Head }

// ensureList gives an absent list a fresh version before its first item.
func (tx *Tx) ensureList(ls *listState) error {
	if ls.prefix != nil {
		return nil
	}
	if err := tx.create(&ls.collection); err != nil {
		return err
	}
	ls.l = encoding.ListMeta{Head: encoding.ListStart, Tail: encoding.ListStart}
	ls.prefix = ls.Prefix(encoding.FamilySub)
	return nil
}

// itemKey returns the sub-key of the item at physical index i, in a buffer
// the next call reuses.
func (ls *listState) itemKey(i uint64) []byte {
	ls.kb = encoding.AppendListIndex(ls.kb[:0], ls.prefix, i)
	return ls.kb
}

// saveList writes the list's metadata, or deletes the key (and with it
// every record of its version) when no item is left.
func (tx *Tx) saveList(ls *listState) error {
	ls.Meta.Size = ls.len()
	ls.Meta.Value = encoding.AppendListMeta(ls.Meta.Value[:0], ls.l)
	if err := tx.save(&ls.collection); err != nil {
		return err
	}
	if !ls.Exists {
		ls.prefix = nil
		ls.Meta.Version = 0
	}
	return nil
}

// listItem reads the item at physical index i, which must exist.
func (tx *Tx) listItem(ls *listState, i uint64) ([]byte, error) {
	v, found, err := tx.get(ls.itemKey(i))
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, fmt.Errorf("%w: list %q has no item at index %d", encoding.ErrCorrupt, ls.key, i)
	}
	return v, nil
}

// scanList visits the items at physical indices [from, to) in order, or
// from the end when reverse, until visit returns false. v is valid only
// during the call. The scan reads the batch as it was when it started, so
// visit may write items the scan has yet to reach.
func (tx *Tx) scanList(ls *listState, from, to uint64, reverse bool, visit func(i uint64, v []byte) (bool, error)) error {
	if from >= to {
		return nil
	}
	// The bounds must outlive the iterator: scans never nest, so one
	// buffer serves them all.
	if ls.bounds == nil {
		ls.bounds = ls.bmem[:0]
	}
	ls.bounds = encoding.AppendListIndex(ls.bounds[:0], ls.prefix, from)
	ls.bounds = encoding.AppendListIndex(ls.bounds, ls.prefix, to)
	lo, hi := ls.bounds[:len(ls.bounds)/2], ls.bounds[len(ls.bounds)/2:]
	it, err := tx.r.NewIter(lo, hi)
	if err != nil {
		return err
	}
	defer it.Close()
	want, ok := from, it.First()
	if reverse {
		want, ok = to-1, it.Last()
	}
	p := len(ls.prefix)
	n := to - from
	for ; ok; n-- {
		k := it.Key()
		if len(k) != p+8 || binary.BigEndian.Uint64(k[p:]) != want {
			return fmt.Errorf("%w: list %q has no item at index %d", encoding.ErrCorrupt, ls.key, want)
		}
		more, err := visit(want, it.Value())
		if err != nil || !more {
			return err
		}
		if reverse {
			want--
			ok = it.Prev()
		} else {
			want++
			ok = it.Next()
		}
	}
	if err := it.Error(); err != nil {
		return err
	}
	if n != 0 {
		return fmt.Errorf("%w: list %q has no item at index %d", encoding.ErrCorrupt, ls.key, want)
	}
	return nil
}

// delRange deletes the collection's records in [start, end) with one range
// tombstone; the key must be locked.
func (tx *Tx) delRange(c *collection, start, end []byte) error {
	if err := tx.checkWrite(c.key); err != nil {
		return err
	}
	return tx.b.DeleteRange(start, end)
}

// dropItems deletes the items at physical indices [from, to).
func (tx *Tx) dropItems(ls *listState, from, to uint64) error {
	if to-from >= listRangeDeleteMin {
		start := encoding.AppendListIndex(nil, ls.prefix, from)
		return tx.delRange(&ls.collection, start, ls.itemKey(to))
	}
	for i := from; i < to; i++ {
		if err := tx.del(&ls.collection, ls.itemKey(i)); err != nil {
			return err
		}
	}
	return nil
}

// pushItems adds items one by one at end, as LPUSH a b c leaves c first.
func (tx *Tx) pushItems(ls *listState, end ListEnd, items [][]byte) error {
	if err := tx.ensureList(ls); err != nil {
		return err
	}
	n := uint64(len(items))
	if end == ListLeft {
		if ls.l.Head < n {
			return fmt.Errorf("store: list %q has no index left below its head", ls.key)
		}
		for _, v := range items {
			ls.l.Head--
			if err := tx.set(&ls.collection, ls.itemKey(ls.l.Head), v); err != nil {
				return err
			}
		}
		return nil
	}
	if math.MaxUint64-ls.l.Tail < n {
		return fmt.Errorf("store: list %q has no index left above its tail", ls.key)
	}
	for _, v := range items {
		if err := tx.set(&ls.collection, ls.itemKey(ls.l.Tail), v); err != nil {
			return err
		}
		ls.l.Tail++
	}
	return nil
}

// itemArena copies items into one buffer, so n items cost a few
// allocations instead of n.
type itemArena struct {
	buf  []byte
	ends []int
	// hint is how many items are expected: the buffer starts with room
	// for that many of the first one's size (within reason).
	hint int
}

func (a *itemArena) add(v []byte) {
	if a.buf == nil && a.hint > 1 {
		a.buf = make([]byte, 0, min((len(v)+len(v)/2)*a.hint, 1<<20))
		a.ends = make([]int, 0, a.hint)
	}
	a.buf = append(a.buf, v...)
	a.ends = append(a.ends, len(a.buf))
}

func (a *itemArena) done() [][]byte {
	out := make([][]byte, len(a.ends))
	start := 0
	for i, e := range a.ends {
		out[i] = a.buf[start:e:e]
		start = e
	}
	return out
}

// popItems removes up to n items from end and returns them in the order
// they were popped. The records of a list that this empties are left to
// saveList, whose deletion of the key reclaims them all at once.
func (tx *Tx) popItems(ls *listState, end ListEnd, n uint64) ([][]byte, error) {
	size := ls.len()
	n = min(n, size)
	if n == 0 {
		return [][]byte{}, nil
	}
	from, to := ls.l.Head, ls.l.Head+n
	if end == ListRight {
		from, to = ls.l.Tail-n, ls.l.Tail
	}
	var items [][]byte
	if n == 1 {
		v, err := tx.listItem(ls, from)
		if err != nil {
			return nil, err
		}
		items = [][]byte{v}
	} else {
		a := itemArena{hint: int(min(n, 1<<16))}
		err := tx.scanList(ls, from, to, end == ListRight, func(_ uint64, v []byte) (bool, error) {
			a.add(v)
			return true, nil
		})
		if err != nil {
			return nil, err
		}
		items = a.done()
	}
	if n < size {
		if err := tx.dropItems(ls, from, to); err != nil {
			return nil, err
		}
	}
	if end == ListLeft {
		ls.l.Head += n
	} else {
		ls.l.Tail -= n
	}
	return items, nil
}

// ListPush pushes items one by one at end of the list at key (LPUSH,
// RPUSH) and returns its new length. With existing (LPUSHX, RPUSHX) an
// absent key is left absent and the length is 0.
func (tx *Tx) ListPush(db int, key []byte, end ListEnd, items [][]byte, existing bool) (int64, error) {
	ls, err := tx.openList(db, key)
	if err != nil {
		return 0, err
	}
	if existing && !ls.Exists {
		return 0, nil
	}
	if err := tx.pushItems(ls, end, items); err != nil {
		return 0, err
	}
	if err := tx.saveList(ls); err != nil {
		return 0, err
	}
	return int64(ls.len()), nil
}

// ListPop removes and returns up to count items from end of the list at key
// (LPOP, RPOP), in the order they were popped. found is false when the key
// is absent; count 0 on a list returns no items.
func (tx *Tx) ListPop(db int, key []byte, end ListEnd, count int64) (items [][]byte, found bool, err error) {
	ls, err := tx.openList(db, key)
	if err != nil || !ls.Exists {
		return nil, false, err
	}
	if items, err = tx.popItems(ls, end, uint64(max(count, 0))); err != nil {
		return nil, false, err
	}
	if len(items) > 0 {
		if err := tx.saveList(ls); err != nil {
			return nil, false, err
		}
	}
	return items, true, nil
}

// ListMPop pops up to count items from end of the first of keys that holds
// a list (LMPOP, BLPOP, ...), and returns that key; key is nil when every
// one is absent. A key of another type met before that list is an error,
// unless skipOthers (a blocked BLPOP woken up looks only for lists).
func (tx *Tx) ListMPop(db int, keys [][]byte, end ListEnd, count int64, skipOthers bool) (key []byte, items [][]byte, err error) {
	for _, k := range keys {
		items, found, err := tx.ListPop(db, k, end, max(count, 1))
		if skipOthers && err == ErrWrongType {
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		if found {
			return k, items, nil
		}
	}
	return nil, nil, nil
}

// LMove pops an item from end from of the list at src and pushes it at end
// to of the list at dst (LMOVE, RPOPLPUSH), creating dst if needed. found is
// false when src is absent. dst must be absent or a list, even when src is
// the same key (then the item rotates to the other end).
func (tx *Tx) LMove(db int, src, dst []byte, from, to ListEnd) (item []byte, found bool, err error) {
	s, err := tx.openList(db, src)
	if err != nil || !s.Exists {
		return nil, false, err
	}
	if bytes.Equal(src, dst) {
		return tx.rotate(s, from, to)
	}
	d, err := tx.openList(db, dst)
	if err != nil {
		return nil, false, err
	}
	items, err := tx.popItems(s, from, 1)
	if err != nil {
		return nil, false, err
	}
	if err := tx.pushItems(d, to, items); err != nil {
		return nil, false, err
	}
	if err := tx.saveList(s); err != nil {
		return nil, false, err
	}
	if err := tx.saveList(d); err != nil {
		return nil, false, err
	}
	return items[0], true, nil
}

// rotate is LMOVE of a list onto itself: the item at from moves to to. The
// key counts as modified even when nothing moves, as in Redis.
func (tx *Tx) rotate(ls *listState, from, to ListEnd) ([]byte, bool, error) {
	i := ls.l.Head
	if from == ListRight {
		i = ls.l.Tail - 1
	}
	v, err := tx.listItem(ls, i)
	if err != nil {
		return nil, false, err
	}
	if from != to && ls.len() > 1 {
		if err := tx.del(&ls.collection, ls.itemKey(i)); err != nil {
			return nil, false, err
		}
		if from == ListLeft {
			ls.l.Head++
		} else {
			ls.l.Tail--
		}
		if err := tx.pushItems(ls, to, [][]byte{v}); err != nil {
			return nil, false, err
		}
	}
	return v, true, tx.saveList(ls)
}

// listMeta reads the list at key for a reading command. A read-only Tx is
// first pinned to one state of the store: the metadata and the items are
// separate records, and read from the live engine one after the other they
// could straddle a concurrent write (an LPOP between them would make
// LINDEX 0 miss its item).
func (tx *Tx) listMeta(db int, key []byte) (*listState, error) {
	if tx.b == nil && tx.snap == nil {
		tx.pinView()
	}
	return tx.openList(db, key)
}

// LLen returns the length of the list at key, 0 when absent.
func (tx *Tx) LLen(db int, key []byte) (int64, error) {
	m, ok, err := tx.typedMeta(db, key, encoding.TypeList)
	if err != nil || !ok {
		return 0, err
	}
	return int64(m.Size), nil
}

// listIndex turns a Redis index (negative: from the end) into a logical
// position, reporting whether it falls inside a list of size items.
func listIndex(index int64, size uint64) (uint64, bool) {
	if index < 0 {
		if uint64(-(index + 1)) >= size {
			return 0, false
		}
		return size - uint64(-(index + 1)) - 1, true
	}
	if uint64(index) >= size {
		return 0, false
	}
	return uint64(index), true
}

// LIndex returns the item at index (negative: from the end) of the list at
// key; found is false when the key is absent or the index is outside it.
func (tx *Tx) LIndex(db int, key []byte, index int64) (item []byte, found bool, err error) {
	ls, err := tx.listMeta(db, key)
	if err != nil || !ls.Exists {
		return nil, false, err
	}
	p, ok := listIndex(index, ls.len())
	if !ok {
		return nil, false, nil
	}
	v, err := tx.listItem(ls, ls.l.Head+p)
	return v, err == nil, err
}

// listSpan resolves Redis's start/stop range (LRANGE, LTRIM) over a list
// of size items into logical positions [from, to); empty reports a range
// that selects nothing.
func listSpan(start, stop int64, size uint64) (from, to uint64, empty bool) {
	n := int64(min(size, math.MaxInt64))
	if start < 0 {
		start = max(n+start, 0)
	}
	if stop < 0 {
		stop = n + stop
	}
	if start > stop || start >= n {
		return 0, 0, true
	}
	stop = min(stop, n-1)
	return uint64(start), uint64(stop) + 1, false
}

// LRange returns the items from start to stop inclusive (negative: from
// the end) of the list at key.
func (tx *Tx) LRange(db int, key []byte, start, stop int64) ([][]byte, error) {
	var a itemArena
	err := tx.LRangeEach(db, key, start, stop,
		func(n int) { a.hint = min(n, 1<<16) },
		func(item []byte) { a.add(item) })
	if err != nil || len(a.ends) == 0 {
		return nil, err
	}
	return a.done(), nil
}

// LRangeEach calls size with the number of items from start to stop
// inclusive (negative: from the end) of the list at key, 0 when it is
// absent, then each with every one of those items in order. The items
// stream from one state of the store in one iterator pass, never all in
// memory; each's argument is valid only during the call. An error after
// size was called comes from the engine (or a corrupt list).
func (tx *Tx) LRangeEach(db int, key []byte, start, stop int64, size func(n int), each func(item []byte)) error {
	ls, err := tx.listMeta(db, key)
	if err != nil {
		return err
	}
	from, to, empty := listSpan(start, stop, ls.len())
	if !ls.Exists || empty {
		size(0)
		return nil
	}
	size(int(to - from))
	return tx.scanList(ls, ls.l.Head+from, ls.l.Head+to, false, func(_ uint64, v []byte) (bool, error) {
		each(v)
		return true, nil
	})
}

// LSet replaces the item at index (negative: from the end) of the list at
// key: ErrNoSuchKey when absent, ErrIndexRange outside the list.
func (tx *Tx) LSet(db int, key []byte, index int64, value []byte) error {
	ls, err := tx.openList(db, key)
	if err != nil {
		return err
	}
	if !ls.Exists {
		return ErrNoSuchKey
	}
	p, ok := listIndex(index, ls.len())
	if !ok {
		return ErrIndexRange
	}
	if err := tx.set(&ls.collection, ls.itemKey(ls.l.Head+p), value); err != nil {
		return err
	}
	// The metadata is unchanged, but the key was modified.
	tx.touch(db, key)
	return nil
}

// LInsert inserts value before (or after) the first item equal to pivot in
// the list at key, and returns the new length: 0 when the key is absent, -1
// when no item equals pivot. The items on the shorter side of the insertion
// point move by one.
func (tx *Tx) LInsert(db int, key []byte, after bool, pivot, value []byte) (int64, error) {
	ls, err := tx.openList(db, key)
	if err != nil || !ls.Exists {
		return 0, err
	}
	var at uint64
	found := false
	err = tx.scanList(ls, ls.l.Head, ls.l.Tail, false, func(i uint64, v []byte) (bool, error) {
		if bytes.Equal(v, pivot) {
			at, found = i-ls.l.Head, true
			return false, nil
		}
		return true, nil
	})
	if err != nil {
		return 0, err
	}
	if !found {
		return -1, nil
	}
	if after {
		at++
	}
	if at < ls.len()-at {
		// Move the items before the insertion point one step towards the
		// head.
		if ls.l.Head == 0 {
			return 0, fmt.Errorf("store: list %q has no index left below its head", key)
		}
		err = tx.scanList(ls, ls.l.Head, ls.l.Head+at, false, func(i uint64, v []byte) (bool, error) {
			return true, tx.set(&ls.collection, ls.itemKey(i-1), v)
		})
		ls.l.Head--
	} else {
		if ls.l.Tail == math.MaxUint64 {
			return 0, fmt.Errorf("store: list %q has no index left above its tail", key)
		}
		err = tx.scanList(ls, ls.l.Head+at, ls.l.Tail, false, func(i uint64, v []byte) (bool, error) {
			return true, tx.set(&ls.collection, ls.itemKey(i+1), v)
		})
		ls.l.Tail++
	}
	if err != nil {
		return 0, err
	}
	if err := tx.set(&ls.collection, ls.itemKey(ls.l.Head+at), value); err != nil {
		return 0, err
	}
	if err := tx.saveList(ls); err != nil {
		return 0, err
	}
	return int64(ls.len()), nil
}

// LRem removes items equal to value from the list at key and returns how
// many: the first count from the head (count > 0), the last -count from the
// tail (count < 0), or all (count 0). The survivors close the gaps from
// whichever side moves fewer of them.
func (tx *Tx) LRem(db int, key []byte, count int64, value []byte) (int64, error) {
	ls, err := tx.openList(db, key)
	if err != nil || !ls.Exists {
		return 0, err
	}
	limit := uint64(0) // 0: no limit
	if count > 0 {
		limit = uint64(count)
	} else if count < 0 {
		limit = uint64(-(count + 1)) + 1
	}
	head := ls.l.Head
	// pos are the logical positions of the matches, in scan order.
	var pos []uint64
	err = tx.scanList(ls, head, ls.l.Tail, count < 0, func(i uint64, v []byte) (bool, error) {
		if bytes.Equal(v, value) {
			pos = append(pos, i-head)
		}
		return limit == 0 || uint64(len(pos)) < limit, nil
	})
	if err != nil {
		return 0, err
	}
	k := uint64(len(pos))
	if k == 0 {
		return 0, nil
	}
	if count < 0 {
		for i, j := 0, len(pos)-1; i < j; i, j = i+1, j-1 {
			pos[i], pos[j] = pos[j], pos[i]
		}
	}
	size := ls.len()
	switch {
	case k == size:
		ls.l.Head = ls.l.Tail
	case size-pos[0]-k <= pos[k-1]+1-k:
		// Move the survivors after the first match towards the head.
		w, j := head+pos[0], 0
		err = tx.scanList(ls, head+pos[0], ls.l.Tail, false, func(i uint64, v []byte) (bool, error) {
			if j < len(pos) && i-head == pos[j] {
				j++
				return true, nil
			}
			w++
			return true, tx.set(&ls.collection, ls.itemKey(w-1), v)
		})
		if err == nil {
			err = tx.dropItems(ls, ls.l.Tail-k, ls.l.Tail)
		}
		ls.l.Tail -= k
	default:
		// Move the survivors before the last match towards the tail.
		w, j := head+pos[k-1], len(pos)-1
		err = tx.scanList(ls, head, head+pos[k-1]+1, true, func(i uint64, v []byte) (bool, error) {
			if j >= 0 && i-head == pos[j] {
				j--
				return true, nil
			}
			w--
			return true, tx.set(&ls.collection, ls.itemKey(w+1), v)
		})
		if err == nil {
			err = tx.dropItems(ls, head, head+k)
		}
		ls.l.Head += k
	}
	if err != nil {
		return 0, err
	}
	if err := tx.saveList(ls); err != nil {
		return 0, err
	}
	return int64(k), nil
}

// LTrim keeps only the items from start to stop inclusive (negative: from
// the end) of the list at key, deleting the key when none is left. Each
// trimmed end of more than a few items costs one range tombstone, so
// trimming a long list is O(1) in writes.
func (tx *Tx) LTrim(db int, key []byte, start, stop int64) error {
	ls, err := tx.openList(db, key)
	if err != nil || !ls.Exists {
		return err
	}
	from, to, empty := listSpan(start, stop, ls.len())
	if empty {
		ls.l.Head = ls.l.Tail
	} else {
		head, tail := ls.l.Head+from, ls.l.Head+to
		if err := tx.dropItems(ls, ls.l.Head, head); err != nil {
			return err
		}
		if err := tx.dropItems(ls, tail, ls.l.Tail); err != nil {
			return err
		}
		ls.l.Head, ls.l.Tail = head, tail
	}
	// Redis counts the key as modified even when nothing was trimmed.
	return tx.saveList(ls)
}

// LPosArgs are LPOS's options.
type LPosArgs struct {
	// Rank selects the rank-th match from the head, or from the tail when
	// negative; it must not be 0.
	Rank int64
	// Count is the most matches returned, 0 for all.
	Count int64
	// MaxLen is the most items compared, 0 for all.
	MaxLen int64
}

// LPos returns the positions (from the head) of the items equal to value
// in the list at key, as LPOS selects them.
func (tx *Tx) LPos(db int, key, value []byte, a LPosArgs) ([]int64, error) {
	ls, err := tx.listMeta(db, key)
	if err != nil || !ls.Exists {
		return nil, err
	}
	reverse := a.Rank < 0
	skip := uint64(a.Rank - 1)
	if reverse {
		skip = uint64(-(a.Rank + 1))
	}
	from, to := ls.l.Head, ls.l.Tail
	if a.MaxLen > 0 && uint64(a.MaxLen) < ls.len() {
		if reverse {
			from = to - uint64(a.MaxLen)
		} else {
			to = from + uint64(a.MaxLen)
		}
	}
	var out []int64
	err = tx.scanList(ls, from, to, reverse, func(i uint64, v []byte) (bool, error) {
		if !bytes.Equal(v, value) {
			return true, nil
		}
		if skip > 0 {
			skip--
			return true, nil
		}
		out = append(out, int64(i-ls.l.Head))
		return a.Count == 0 || int64(len(out)) < a.Count, nil
	})
	return out, err
}

// ListEncoding is OBJECT ENCODING for a list key. Redis 7.0 keeps every
// list as a quicklist (7.2 reports "listpack" for small ones).
func (tx *Tx) ListEncoding(db int, key []byte) (string, bool, error) {
	_, ok, err := tx.typedMeta(db, key, encoding.TypeList)
	if err != nil || !ok {
		return "", false, err
	}
	return "quicklist", true, nil
}

// ListStore replaces whatever dst holds with a list of items, in order, or
// deletes dst when items is empty, as SORT ... STORE does; dst's deadline
// goes with it. It returns the length of the list stored.
func (tx *Tx) ListStore(db int, dst []byte, items [][]byte) (int64, error) {
	if len(items) == 0 {
		_, err := tx.deleteKey(db, dst)
		return 0, err
	}
	if err := tx.checkWrite(dst); err != nil {
		return 0, err
	}
	ls := &listState{collection: collection{db: db, pdb: tx.s.phys(db), key: dst, Meta: encoding.Meta{Type: encoding.TypeList}}}
	if err := tx.pushItems(ls, ListRight, items); err != nil {
		return 0, err
	}
	if err := tx.saveList(ls); err != nil {
		return 0, err
	}
	return int64(ls.len()), nil
}
