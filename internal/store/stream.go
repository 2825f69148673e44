package store

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/cairndb/cairn/internal/encoding"
)

// Streams are keyed by entry id (docs/encoding.md): each entry is one
// record at prefix | 0x00 | ms u64 | seq u64 under the stream's version,
// so a range read from any id is one bounded scan, whatever the stream's
// length. The metadata tail holds the last generated id, the current first
// id, the largest id XDEL removed, the count of entries ever added, the
// number of consumer groups and the next insertion index (each entry's
// value carries its own, which lets a trim count what it drops without
// reading it: trimStream, and place it in the radix-tree node Redis would
// hold it in: nodeTrim); Meta.Size is the number of entries. Unlike the
// other collections, a stream that loses its last entry stays: only DEL
// (or an expiry) removes it, with the usual range tombstones.

// StreamID is a stream entry id.
type StreamID = encoding.StreamID

// StreamEntry is one entry: its id and its fields and values, alternating.
type StreamEntry struct {
	ID     StreamID
	Fields [][]byte
}

// Stream errors, Redis's texts.
const (
	ErrStreamExhausted Error = "ERR The stream has exhausted the last possible ID, unable to add more items"
	ErrStreamIDSmall   Error = "ERR The ID specified in XADD is equal or smaller than the target stream top item"
	ErrXSetIDMaxDel    Error = "ERR The ID specified in XSETID is smaller than current max_deleted_entry_id"
	ErrXSetIDSmall     Error = "ERR The ID specified in XSETID is smaller than the target stream top item"
	ErrXSetIDAdded     Error = "ERR The entries_added specified in XSETID is smaller than the target stream length"
)

// TrimStrategy is how XADD and XTRIM trim a stream.
type TrimStrategy uint8

// Trim strategies.
const (
	TrimNone TrimStrategy = iota
	TrimMaxLen
	TrimMinID
)

// StreamTrim is a trimming request: drop the oldest entries until at most
// MaxLen remain (TrimMaxLen) or none is older than MinID (TrimMinID),
// deleting at most Limit entries when Limit > 0.
//
// Node is stream-node-max-entries. An approximate trim (~, Approx) removes
// what Redis removes: whole radix-tree nodes from the head, the last
// partly filled one included (nodeTrim). Cairn has no nodes; it emulates
// Redis's from the insertion indexes, nodes of Node entries filled in
// turn (nodeStart). With Node <= 0 (Redis's nodes then fill by bytes only)
// a ~ trim is exact. An approximate trim also makes a capped stream's
// trims one range tombstone a node rather than a point delete every XADD.
type StreamTrim struct {
	Strategy TrimStrategy
	MaxLen   int64
	MinID    StreamID
	Limit    int64
	Approx   bool
	Node     int64
}

// XAddArgs is one XADD.
type XAddArgs struct {
	// ID is the id asked for, when IDGiven; SeqGiven is false for the
	// ms-* form.
	ID                StreamID
	IDGiven, SeqGiven bool
	NoMkStream        bool
	Trim              StreamTrim
	Fields            [][]byte
}

// streamState is one command's view of a stream key.
type streamState struct {
	collection
	s encoding.StreamMeta
}

// openStream opens key as a stream (ErrWrongType for another type).
func (tx *Tx) openStream(db int, key []byte) (*streamState, error) {
	ss := new(streamState)
	if err := tx.initCollection(&ss.collection, db, key, encoding.TypeStream); err != nil {
		return nil, err
	}
	if ss.Exists {
		var err error
		if ss.s, err = encoding.DecodeStreamMeta(ss.Meta.Value); err != nil {
			return nil, fmt.Errorf("key %q: %w", key, err)
		}
	}
	return ss, nil
}

// saveStream writes the stream's metadata, unless it is what the engine
// holds. An empty stream stays.
func (tx *Tx) saveStream(ss *streamState) error {
	ss.Meta.Value = encoding.AppendStreamMeta(ss.Meta.Value[:0], ss.s)
	if ss.Exists && ss.unchanged() {
		// A consumer-group command (XREADGROUP, XACK, ...) changed
		// its group's records, not the stream's: the same record is
		// not written again. The key still counts as modified.
		if err := tx.checkWrite(ss.key); err != nil {
			return err
		}
		tx.touch(ss.db, ss.key)
		return nil
	}
	if err := tx.putMeta(ss.db, ss.key, &ss.Meta); err != nil {
		return err
	}
	ss.Exists = true
	ss.remember()
	return nil
}

func (ss *streamState) entryKey(id StreamID) []byte {
	return encoding.AppendStreamEntryKey(nil, ss.Prefix(encoding.FamilySub), id)
}

// entriesEnd is the bound after every entry record of the version.
func (ss *streamState) entriesEnd() []byte {
	p := ss.Prefix(encoding.FamilySub)
	return append(append([]byte(nil), p...), encoding.StreamEntryTag+1)
}

// nextID computes the id XADD gives its entry.
func (tx *Tx) nextID(ss *streamState, a *XAddArgs) (StreamID, error) {
	last := ss.s.LastID
	switch {
	case !a.IDGiven:
		ms := uint64(max(tx.NowMs, 0))
		if ms > last.Ms {
			return StreamID{Ms: ms}, nil
		}
		id, ok := last.Next()
		if !ok {
			return id, ErrStreamExhausted
		}
		return id, nil
	case !a.SeqGiven:
		switch {
		case a.ID.Ms > last.Ms:
			return StreamID{Ms: a.ID.Ms}, nil
		case a.ID.Ms == last.Ms && last.Seq != ^uint64(0):
			return StreamID{Ms: a.ID.Ms, Seq: last.Seq + 1}, nil
		}
		return StreamID{}, ErrStreamIDSmall
	}
	if a.ID.Compare(last) <= 0 {
		return StreamID{}, ErrStreamIDSmall
	}
	return a.ID, nil
}

// XAdd appends an entry. added is false when NoMkStream found no stream;
// trimmed is the number of entries the trim removed.
func (tx *Tx) XAdd(db int, key []byte, a *XAddArgs) (id StreamID, added bool, trimmed int64, err error) {
	ss, err := tx.openStream(db, key)
	if err != nil {
		return id, false, 0, err
	}
	if !ss.Exists {
		if a.NoMkStream {
			return id, false, 0, nil
		}
		if err := tx.create(&ss.collection); err != nil {
			return id, false, 0, err
		}
		ss.s = encoding.StreamMeta{}
	}
	if ss.s.LastID == encoding.MaxStreamID {
		return id, false, 0, ErrStreamExhausted
	}
	if id, err = tx.nextID(ss, a); err != nil {
		return id, false, 0, err
	}
	if err := tx.set(&ss.collection, ss.entryKey(id), encoding.AppendStreamEntryIndexed(nil, ss.s.NextIndex, a.Fields)); err != nil {
		return id, false, 0, err
	}
	ss.s.NextIndex++
	ss.Meta.Size++
	ss.s.EntriesAdded++
	ss.s.LastID = id
	if ss.Meta.Size == 1 {
		ss.s.FirstID = id
		ss.s.FirstIndex, ss.s.FirstIndexKnown = ss.s.NextIndex-1, true
	}
	if a.Trim.Strategy != TrimNone {
		if trimmed, err = tx.trimStream(ss, &a.Trim); err != nil {
			return id, false, 0, err
		}
	}
	return id, true, trimmed, tx.saveStream(ss)
}

// trimStream drops the oldest entries as t asks, returning how many.
//
// The entries dropped are a prefix: they go with one range tombstone
// (point deletes when fewer than listRangeDeleteMin), so a trim writes
// O(1) records whatever it removes. Keeping Meta.Size exact needs the
// number removed. For MINID, entries carry their insertion index
// (docs/encoding.md): the entries before the cut are the difference of
// the indexes of the first entry and of the first entry from the cut on,
// less the entries XDEL removed between them (their records, usually
// none, are counted) — two point reads whatever the trim drops. Entries
// written without an index (by an older Cairn) are counted instead, on
// whichever side of the cut is shorter (countBefore).
func (tx *Tx) trimStream(ss *streamState, t *StreamTrim) (int64, error) {
	var want uint64 // entries to drop at most
	switch t.Strategy {
	case TrimMaxLen:
		if ss.Meta.Size <= uint64(t.MaxLen) {
			return 0, nil
		}
		want = ss.Meta.Size - uint64(t.MaxLen)
	case TrimMinID:
		if ss.Meta.Size == 0 || ss.s.FirstID.Compare(t.MinID) >= 0 {
			return 0, nil
		}
		want = ss.Meta.Size
	default:
		return 0, nil
	}
	if t.Limit > 0 && want > uint64(t.Limit) {
		want = uint64(t.Limit)
	}
	nodes := t.Approx && t.Node > 0
	if nodes {
		n, cut, ok, err := tx.nodeTrim(ss, t, want)
		if err != nil {
			return 0, err
		}
		if ok {
			if n == 0 {
				return 0, nil
			}
			return int64(n), tx.dropFirst(ss, n, cut, true)
		}
		// The stream starts with entries an older Cairn wrote, without
		// indexes: whole nodes are taken as multiples of Node, below.
	}
	n := want
	var cut *streamCut
	if t.Strategy == TrimMinID {
		c, err := tx.cutAt(ss, t.MinID)
		if err != nil {
			return 0, err
		}
		if c != nil {
			cut = c
			n = min(c.before, want)
		} else if n, err = tx.countBefore(ss, t.MinID, want); err != nil {
			return 0, err
		}
	}
	if nodes {
		n -= n % uint64(t.Node)
	}
	if n == 0 {
		return 0, nil
	}
	fresh := true
	if t.Strategy == TrimMinID && n == ss.Meta.Size && t.Node > 0 && !nodes {
		keep, err := tx.keepsEmptyNode(ss, t.MinID, uint64(t.Node))
		if err != nil {
			return 0, err
		}
		fresh = !keep
	}
	return int64(n), tx.dropFirst(ss, n, cut, fresh)
}

// Redis's radix-tree nodes, emulated. Redis keeps a stream's entries in
// nodes of up to stream-node-max-entries entries (and 4096 bytes, which
// Cairn does not count): XADD fills the last node, and starts a new one
// when it is full or when there is none, because the stream is new or
// XDEL emptied the last node (a node goes when its last entry does). An
// approximate trim removes whole nodes from the head, so what it removes
// depends on where the nodes begin. Insertion indexes number the entries
// as XADD added them, so with nodes of n entries filled in turn, the node
// of index i starts at i - i%n. Two events move the nodes off that grid:
// the stream emptying (every node goes; Cairn then starts the indexes at 0
// again, resetNodes) and XDEL emptying the last node while older entries
// stay (the next node starts at the next index: a node-start record
// there, endTailNode). Entries XDEL or an exact trim removed still count
// in their node, as in Redis, where they stay as deleted entries.

// nodeStart is the first insertion index of the node that holds index i:
// nodes of n entries in turn from the last node-start record at or below
// i, or from 0.
func (tx *Tx) nodeStart(ss *streamState, i, n uint64) (uint64, error) {
	p := ss.Prefix(encoding.FamilySub)
	it, err := tx.r.NewIter(encoding.AppendStreamNodeStartKey(nil, p, 0), encoding.AppendStreamNodeStartKey(nil, p, i+1))
	if err != nil {
		return 0, err
	}
	var o uint64
	if it.Last() {
		o, err = encoding.DecodeStreamNodeStartKey(it.Key(), len(p))
	}
	if err := errors.Join(err, it.Error(), it.Close()); err != nil {
		return 0, fmt.Errorf("stream %q: %w", ss.key, err)
	}
	return o + (i-o)/n*n, nil
}

// headNode returns the first entry's index and the start of its node
// (nodeStart), with one iterator: an XADD to a capped stream asks this
// every time. indexed is false for an unindexed first entry.
func (tx *Tx) headNode(ss *streamState, node uint64) (first, start uint64, indexed bool, err error) {
	p := ss.Prefix(encoding.FamilySub)
	it, err := tx.r.NewIter(ss.entryKey(ss.s.FirstID), append(append([]byte(nil), p...), encoding.StreamNodeStartTag+1))
	if err != nil {
		return 0, 0, false, err
	}
	defer it.Close()
	if !it.First() || it.Key()[len(p)] != encoding.StreamEntryTag {
		return 0, 0, false, errors.Join(it.Error(), fmt.Errorf("stream %q: no first entry %s", ss.key, ss.s.FirstID))
	}
	if first, indexed = encoding.StreamEntryIndex(it.Value()); !indexed {
		return 0, 0, false, nil
	}
	var o uint64
	if it.SeekLT(encoding.AppendStreamNodeStartKey(nil, p, first+1)) && it.Key()[len(p)] == encoding.StreamNodeStartTag {
		if o, err = encoding.DecodeStreamNodeStartKey(it.Key(), len(p)); err != nil {
			return 0, 0, false, fmt.Errorf("stream %q: %w", ss.key, err)
		}
	}
	if err := it.Error(); err != nil {
		return 0, 0, false, err
	}
	return first, o + (first-o)/node*node, true, nil
}

// nodeTrim is an approximate trim as Redis's streamTrim makes it: whole
// nodes from the head while the entries left stay at least MAXLEN (or the
// node's last id, a deleted entry's included, is below MINID) and the
// entries removed stay within the limit; want is the most the count and
// the limit allow. The first entry that must stay (stop) fixes the cut:
// the start of its node, or for MINID the node of the first index from
// MINID on, whose last id is not below it. Every entry with an index
// below the cut goes: stepping back from stop over less than a node finds
// the first one kept. ok is false when the stop entry has no index (an
// older Cairn's stream): the caller rounds counts instead.
func (tx *Tx) nodeTrim(ss *streamState, t *StreamTrim, want uint64) (n uint64, cut *streamCut, ok bool, err error) {
	node := uint64(t.Node)
	var first, head uint64
	if ss.s.FirstIndexKnown && ss.s.NodeStartMax <= ss.s.FirstIndex {
		// No node-start record above the first entry: its node is on
		// the grid of the last one, if any.
		first = ss.s.FirstIndex
		head = ss.s.NodeStartMax + (first-ss.s.NodeStartMax)/node*node
	} else {
		var indexed bool
		var err error
		if first, head, indexed, err = tx.headNode(ss, node); err != nil || !indexed {
			return 0, nil, false, err
		}
	}
	// Most trims of a capped stream remove nothing: the first node holds
	// more entries than want. It holds at least its indexes from the
	// first entry's less every index freed after the first entry.
	if slots := ss.s.NextIndex - first; slots >= ss.Meta.Size {
		inHead := min(head+node, ss.s.NextIndex) - first
		if dead := slots - ss.Meta.Size; inHead > dead && want < inHead-dead {
			return 0, nil, true, nil
		}
	}
	var stop []byte   // the first entry that must stay; nil: none
	var before uint64 // the entries ahead of stop
	var slot uint64   // an index whose node must stay
	atWant := true
	switch {
	case t.Strategy == TrimMinID:
		c, err := tx.cutAt(ss, t.MinID)
		if err != nil || c == nil {
			return 0, nil, false, err
		}
		if c.before <= want {
			// MINID cuts before the limit does. The first index from
			// MINID on is the stop entry's less the XDEL records
			// between, or past the last entry the next index less
			// those after MINID.
			upper := ss.s.NextIndex
			var to *StreamID
			if c.key != nil {
				upper, to = c.index, &c.id
			}
			d, err := tx.countDeletedFrom(ss, t.MinID, to)
			if err != nil {
				return 0, nil, false, err
			}
			if d > upper {
				return 0, nil, false, fmt.Errorf("stream %q: %d deleted-entry records from %s below index %d", ss.key, d, t.MinID, upper)
			}
			stop, before, slot, atWant = c.key, c.before, upper-d, false
		}
	case want >= ss.Meta.Size:
		// MAXLEN 0 within the limit: every node goes.
		return ss.Meta.Size, &streamCut{before: ss.Meta.Size}, true, nil
	}
	if atWant {
		k, err := tx.entryKeyAt(ss, want)
		if err != nil {
			return 0, nil, false, err
		}
		v, found, err := tx.get(k)
		if err != nil || !found {
			return 0, nil, false, errors.Join(err, fmt.Errorf("stream %q: entry %x vanished", ss.key, k))
		}
		idx, indexed := encoding.StreamEntryIndex(v)
		if !indexed {
			return 0, nil, false, nil
		}
		stop, before, slot = k, want, idx
	}
	if slot >= ss.s.NextIndex {
		// No index from MINID on: every node goes.
		return before, &streamCut{key: stop, before: before}, true, nil
	}
	start, err := tx.nodeStart(ss, slot, node)
	if err != nil {
		return 0, nil, false, err
	}
	p := ss.Prefix(encoding.FamilySub)
	hi := stop
	if hi == nil {
		hi = ss.entriesEnd()
	}
	it, err := tx.r.NewIter(encoding.AppendStreamEntryKey(nil, p, ss.s.FirstID), hi)
	if err != nil {
		return 0, nil, false, err
	}
	var steps uint64
	key := stop
	for ok := it.Last(); ok && steps < before; ok = it.Prev() {
		idx, indexed := encoding.StreamEntryIndex(it.Value())
		if !indexed || idx < start {
			break
		}
		steps++
		key = append(key[:0:0], it.Key()...)
	}
	if err := errors.Join(it.Error(), it.Close()); err != nil {
		return 0, nil, false, err
	}
	n = before - steps
	return n, &streamCut{key: key, before: n}, true, nil
}

// keepsEmptyNode reports whether Redis, trimming every entry exactly by
// minID, keeps the stream's last node: when the node of the first index
// from minID on (an entry XDEL removed) still had an entry, its last id is
// not below minID, so the trim only marks its entries deleted, and the
// next XADD fills that node on. The indexes must then go on too.
func (tx *Tx) keepsEmptyNode(ss *streamState, minID StreamID, node uint64) (bool, error) {
	d, err := tx.countDeletedFrom(ss, minID, nil)
	if err != nil || d == 0 || d > ss.s.NextIndex {
		return false, err
	}
	start, err := tx.nodeStart(ss, ss.s.NextIndex-d, node)
	if err != nil {
		return false, err
	}
	idx, indexed, err := tx.lastEntryIndex(ss)
	return indexed && idx >= start, err
}

// lastEntryIndex is the insertion index of the stream's last entry;
// indexed is false when it has none (or no entry).
func (tx *Tx) lastEntryIndex(ss *streamState) (idx uint64, indexed bool, err error) {
	p := ss.Prefix(encoding.FamilySub)
	it, err := tx.r.NewIter(encoding.AppendStreamEntryKey(nil, p, ss.s.FirstID), ss.entriesEnd())
	if err != nil {
		return 0, false, err
	}
	if it.Last() {
		idx, indexed = encoding.StreamEntryIndex(it.Value())
	}
	return idx, indexed, errors.Join(it.Error(), it.Close())
}

// endTailNode follows an XDEL that removed an entry with index deleted
// from a stream that still has entries: when the last node has no entry
// left, Redis drops it and the next XADD starts a node of its own, so a
// node-start record goes at the next index. A full last node needs none:
// the next node starts there anyway.
func (tx *Tx) endTailNode(ss *streamState, deleted, node uint64) error {
	next := ss.s.NextIndex
	if next == 0 || deleted >= next {
		return nil
	}
	start, err := tx.nodeStart(ss, next-1, node)
	if err != nil || deleted < start || next-start >= node {
		return err
	}
	idx, indexed, err := tx.lastEntryIndex(ss)
	if err != nil || (indexed && idx >= start) {
		return err
	}
	ss.s.NodeStartMax = max(ss.s.NodeStartMax, next)
	return tx.set(&ss.collection, encoding.AppendStreamNodeStartKey(nil, ss.Prefix(encoding.FamilySub), next), nil)
}

// resetNodes follows the stream's losing its last entry, and with it, in
// Redis, every node: the indexes start at 0 again (no entry and no XDEL
// record is left to keep them apart) and the node-start records go.
func (tx *Tx) resetNodes(ss *streamState) error {
	ss.s.NextIndex, ss.s.NodeStartMax = 0, 0
	p := ss.Prefix(encoding.FamilySub)
	lo := append(append([]byte(nil), p...), encoding.StreamNodeStartTag)
	hi := append(append([]byte(nil), p...), encoding.StreamNodeStartTag+1)
	it, err := tx.r.NewIter(lo, hi)
	if err != nil {
		return err
	}
	some := it.First()
	if err := errors.Join(it.Error(), it.Close()); err != nil || !some {
		return err
	}
	return tx.delRange(&ss.collection, lo, hi)
}

// streamCut is where a MINID trim cuts a stream of indexed entries: key is
// the first entry from the cut on (nil when there is none) and before the
// number of entries ahead of it.
type streamCut struct {
	key    []byte
	before uint64
	// id and index are the entry's at key (cutAt).
	id    StreamID
	index uint64
}

// cutAt finds the first entry with an id from id on and counts the entries
// before it from the insertion indexes (trimStream). It returns nil when
// the first entry or that one has no index: the caller counts instead.
func (tx *Tx) cutAt(ss *streamState, id StreamID) (*streamCut, error) {
	p := ss.Prefix(encoding.FamilySub)
	v, found, err := tx.get(ss.entryKey(ss.s.FirstID))
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, fmt.Errorf("stream %q: no first entry %s", ss.key, ss.s.FirstID)
	}
	firstIdx, ok := encoding.StreamEntryIndex(v)
	if !ok {
		return nil, nil
	}
	it, err := tx.r.NewIter(encoding.AppendStreamEntryKey(nil, p, id), ss.entriesEnd())
	if err != nil {
		return nil, err
	}
	defer it.Close()
	if !it.First() {
		if err := it.Error(); err != nil {
			return nil, err
		}
		return &streamCut{before: ss.Meta.Size}, nil
	}
	cutIdx, ok := encoding.StreamEntryIndex(it.Value())
	if !ok {
		return nil, nil
	}
	cutID, err := encoding.DecodeStreamEntryKey(it.Key(), len(p))
	if err != nil {
		return nil, fmt.Errorf("stream %q: %w", ss.key, err)
	}
	c := &streamCut{key: append([]byte(nil), it.Key()...), id: cutID, index: cutIdx}
	if cutIdx < firstIdx {
		return nil, fmt.Errorf("stream %q: entry %s has index %d below the first's %d", ss.key, cutID, cutIdx, firstIdx)
	}
	deleted, err := tx.countDeleted(ss, ss.s.FirstID, cutID)
	if err != nil {
		return nil, err
	}
	if gap := cutIdx - firstIdx; gap < deleted || gap-deleted > ss.Meta.Size {
		return nil, fmt.Errorf("stream %q: indexes %d..%d with %d deleted between for %d entries", ss.key, firstIdx, cutIdx, deleted, ss.Meta.Size)
	}
	c.before = cutIdx - firstIdx - deleted
	return c, nil
}

// countDeleted counts the records of entries XDEL removed with ids in
// [from, to).
func (tx *Tx) countDeleted(ss *streamState, from, to StreamID) (uint64, error) {
	p := ss.Prefix(encoding.FamilySub)
	it, err := tx.r.NewIter(encoding.AppendStreamDeletedKey(nil, p, from), encoding.AppendStreamDeletedKey(nil, p, to))
	if err != nil {
		return 0, err
	}
	defer it.Close()
	var n uint64
	for ok := it.First(); ok; ok = it.Next() {
		n++
	}
	return n, it.Error()
}

// countDeletedFrom counts the records of entries XDEL removed with ids
// from from on, below *to when to is not nil.
func (tx *Tx) countDeletedFrom(ss *streamState, from StreamID, to *StreamID) (uint64, error) {
	if to != nil {
		return tx.countDeleted(ss, from, *to)
	}
	p := ss.Prefix(encoding.FamilySub)
	it, err := tx.r.NewIter(encoding.AppendStreamDeletedKey(nil, p, from), append(append([]byte(nil), p...), encoding.StreamDeletedTag+1))
	if err != nil {
		return 0, err
	}
	defer it.Close()
	var n uint64
	for ok := it.First(); ok; ok = it.Next() {
		n++
	}
	return n, it.Error()
}

// dropDeleted deletes the records of entries XDEL removed with ids below
// id (all of them when all), if there are any.
func (tx *Tx) dropDeleted(ss *streamState, id StreamID, all bool) error {
	p := ss.Prefix(encoding.FamilySub)
	lo := append(append([]byte(nil), p...), encoding.StreamDeletedTag)
	hi := append(append([]byte(nil), p...), encoding.StreamDeletedTag+1)
	if !all {
		hi = encoding.AppendStreamDeletedKey(nil, p, id)
	}
	it, err := tx.r.NewIter(lo, hi)
	if err != nil {
		return err
	}
	some := it.First()
	if err := errors.Join(it.Error(), it.Close()); err != nil {
		return err
	}
	if !some {
		return nil
	}
	return tx.delRange(&ss.collection, lo, hi)
}

// dropFirst deletes the stream's first n entries (0 < n <= Meta.Size).
// cut, when not nil, is a cut with cut.before >= n (its key nil: past the
// last entry). Dropping every entry drops Redis's nodes too (resetNodes)
// unless fresh is false (keepsEmptyNode).
func (tx *Tx) dropFirst(ss *streamState, n uint64, cut *streamCut, fresh bool) error {
	p := ss.Prefix(encoding.FamilySub)
	// From the first entry: the tombstones of earlier trims lie before it.
	start := encoding.AppendStreamEntryKey(nil, p, ss.s.FirstID)
	var first StreamID
	var firstIdx uint64
	indexed := false
	end := ss.entriesEnd()
	if n < ss.Meta.Size {
		var k []byte
		var err error
		switch {
		case cut != nil && cut.before == n && cut.key != nil:
			k = cut.key
		case cut != nil && cut.key != nil && cut.before-n < n:
			k, err = tx.stepBack(ss, cut.key, cut.before-n)
		default:
			k, err = tx.entryKeyAt(ss, n)
		}
		if err != nil {
			return err
		}
		if first, err = encoding.DecodeStreamEntryKey(k, len(p)); err != nil {
			return fmt.Errorf("stream %q: %w", ss.key, err)
		}
		end = k
		v, found, err := tx.get(k)
		if err != nil || !found {
			return errors.Join(err, fmt.Errorf("stream %q: no entry %s", ss.key, first))
		}
		firstIdx, indexed = encoding.StreamEntryIndex(v)
	}
	if err := tx.dropDeleted(ss, first, n == ss.Meta.Size); err != nil {
		return err
	}
	// (The cut is found first: reads see the batch's own deletes.)
	if n >= listRangeDeleteMin {
		if err := tx.delRange(&ss.collection, start, end); err != nil {
			return err
		}
	} else {
		it, err := tx.r.NewIter(start, end)
		if err != nil {
			return err
		}
		var doomed [][]byte
		for ok := it.First(); ok; ok = it.Next() {
			doomed = append(doomed, append([]byte(nil), it.Key()...))
		}
		if err := it.Close(); err != nil {
			return err
		}
		if uint64(len(doomed)) != n {
			return fmt.Errorf("stream %q: %d entries before its entry %d", ss.key, len(doomed), n)
		}
		for _, k := range doomed {
			if err := tx.del(&ss.collection, k); err != nil {
				return err
			}
		}
	}
	ss.Meta.Size -= n
	ss.s.FirstID = first
	ss.s.FirstIndex, ss.s.FirstIndexKnown = firstIdx, indexed
	if ss.Meta.Size == 0 && fresh {
		return tx.resetNodes(ss)
	}
	return nil
}

// entryKeyAt returns the key of the entry at 0-based position i
// (< Meta.Size): walked to near the ends, bisected to far from both.
func (tx *Tx) entryKeyAt(ss *streamState, i uint64) ([]byte, error) {
	if min(i, ss.Meta.Size-i) > entrySearchMin {
		return tx.searchEntry(ss, i)
	}
	return tx.entryAt(ss, i)
}

// entryAt returns the key of the entry at 0-based position i (< Meta.Size),
// stepping from whichever end of the stream is nearer.
func (tx *Tx) entryAt(ss *streamState, i uint64) ([]byte, error) {
	p := ss.Prefix(encoding.FamilySub)
	it, err := tx.r.NewIter(encoding.AppendStreamEntryKey(nil, p, ss.s.FirstID), ss.entriesEnd())
	if err != nil {
		return nil, err
	}
	defer it.Close()
	ok, steps, step := it.First(), i, it.Next
	if back := ss.Meta.Size - 1 - i; back < i {
		ok, steps, step = it.Last(), back, it.Prev
	}
	for ; ok && steps > 0; steps-- {
		ok = step()
	}
	if !ok {
		if err := it.Error(); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("stream %q: no entry at %d of the %d its size says", ss.key, i, ss.Meta.Size)
	}
	return append([]byte(nil), it.Key()...), nil
}

// entrySearchMin is how far from both ends of a stream an entry must be
// for searchEntry to find it rather than entryAt's walk.
const entrySearchMin = 1024

// searchEntry returns the key of the entry at 0-based position i
// (0 < i < Meta.Size) by bisecting the ids between the first and the last
// entry: the position of the first entry from an id on is what cutAt
// counts from the insertion indexes, so this is some 128 cutAt reads
// however far in the entry lies. For a stream without indexes it walks
// (entryAt).
func (tx *Tx) searchEntry(ss *streamState, i uint64) ([]byte, error) {
	last, ok, err := tx.lastEntry(ss)
	if err != nil || !ok {
		return nil, fmt.Errorf("stream %q: no last entry: %w", ss.key, err)
	}
	// before(lo) < i <= before(hi), before(x) being the entries below x.
	lo, hi := ss.s.FirstID, last
	var at []byte
	for {
		mid := midID(lo, hi)
		if mid == lo {
			break
		}
		c, err := tx.cutAt(ss, mid)
		if err != nil {
			return nil, err
		}
		if c == nil {
			return tx.entryAt(ss, i)
		}
		if c.before >= i {
			hi, at = mid, c.key
		} else {
			lo = mid
		}
	}
	if at == nil {
		// hi is still the last entry, which is the one at i.
		c, err := tx.cutAt(ss, hi)
		if err != nil || c == nil {
			if err == nil {
				return tx.entryAt(ss, i)
			}
			return nil, err
		}
		at = c.key
	}
	return at, nil
}

// midID is the id halfway between lo and hi (lo <= hi), rounded down.
func midID(lo, hi StreamID) StreamID {
	dSeq, borrow := bits.Sub64(hi.Seq, lo.Seq, 0)
	dMs, _ := bits.Sub64(hi.Ms, lo.Ms, borrow)
	seq, carry := bits.Add64(lo.Seq, dSeq>>1|dMs<<63, 0)
	ms, _ := bits.Add64(lo.Ms, dMs>>1, carry)
	return StreamID{Ms: ms, Seq: seq}
}

// stepBack returns the key of the entry steps entries before the entry at
// key.
func (tx *Tx) stepBack(ss *streamState, key []byte, steps uint64) ([]byte, error) {
	p := ss.Prefix(encoding.FamilySub)
	it, err := tx.r.NewIter(encoding.AppendStreamEntryKey(nil, p, ss.s.FirstID), key)
	if err != nil {
		return nil, err
	}
	defer it.Close()
	ok := it.Last()
	for ; ok && steps > 1; steps-- {
		ok = it.Prev()
	}
	if !ok || steps == 0 {
		if err := it.Error(); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("stream %q: fewer entries before the cut than its indexes say", ss.key)
	}
	return append([]byte(nil), it.Key()...), nil
}

// countBefore counts the entries with ids below id, up to limit. It steps
// through the entries below id and those from id on at once, and stops as
// soon as either side is done: the count of the other follows from
// Meta.Size, so it reads about twice the smaller side.
func (tx *Tx) countBefore(ss *streamState, id StreamID, limit uint64) (uint64, error) {
	p := ss.Prefix(encoding.FamilySub)
	cut := encoding.AppendStreamEntryKey(nil, p, id)
	below, err := tx.r.NewIter(encoding.AppendStreamEntryKey(nil, p, ss.s.FirstID), cut)
	if err != nil {
		return 0, err
	}
	defer below.Close()
	above, err := tx.r.NewIter(cut, ss.entriesEnd())
	if err != nil {
		return 0, err
	}
	defer above.Close()
	var nb, na uint64
	okB, okA := below.First(), above.First()
	for {
		if !okB || nb == limit {
			if err := below.Error(); err != nil {
				return 0, err
			}
			return nb, nil
		}
		if !okA {
			if err := above.Error(); err != nil {
				return 0, err
			}
			if na > ss.Meta.Size {
				return 0, fmt.Errorf("stream %q: more entries than its size %d", ss.key, ss.Meta.Size)
			}
			return min(ss.Meta.Size-na, limit), nil
		}
		nb++
		na++
		okB, okA = below.Next(), above.Next()
	}
}

// XTrim trims a stream; an absent key trims nothing.
func (tx *Tx) XTrim(db int, key []byte, t *StreamTrim) (int64, error) {
	ss, err := tx.openStream(db, key)
	if err != nil || !ss.Exists {
		return 0, err
	}
	n, err := tx.trimStream(ss, t)
	if err != nil || n == 0 {
		return 0, err
	}
	return n, tx.saveStream(ss)
}

// XLen is the number of entries (0 for an absent key).
func (tx *Tx) XLen(db int, key []byte) (int64, bool, error) {
	m, ok, err := tx.typedMeta(db, key, encoding.TypeStream)
	if err != nil || !ok {
		return 0, false, err
	}
	return int64(m.Size), true, nil
}

// StreamMeta returns a stream's metadata tail and length; ok is false for
// an absent key.
func (tx *Tx) StreamMeta(db int, key []byte) (s encoding.StreamMeta, length uint64, ok bool, err error) {
	m, ok, err := tx.typedMeta(db, key, encoding.TypeStream)
	if err != nil || !ok {
		return s, 0, ok, err
	}
	s, err = encoding.DecodeStreamMeta(m.Value)
	if err != nil {
		return s, 0, false, fmt.Errorf("key %q: %w", key, err)
	}
	return s, m.Size, true, nil
}

// XRange returns the entries with ids in [start, end], oldest first (or
// newest first when rev), at most count of them when count > 0. ok is false
// for an absent key.
func (tx *Tx) XRange(db int, key []byte, start, end StreamID, count int64, rev bool) (entries []StreamEntry, ok bool, err error) {
	ss, err := tx.openStream(db, key)
	if err != nil || !ss.Exists {
		return nil, false, err
	}
	entries, err = tx.streamRange(ss, start, end, count, rev)
	return entries, true, err
}

// streamRange reads the entries with ids in [start, end].
func (tx *Tx) streamRange(ss *streamState, start, end StreamID, count int64, rev bool) ([]StreamEntry, error) {
	if start.Compare(end) > 0 || ss.Meta.Size == 0 {
		return nil, nil
	}
	if start.Compare(ss.s.FirstID) < 0 {
		// Nothing lies before the first entry but tombstones.
		start = ss.s.FirstID
	}
	p := ss.Prefix(encoding.FamilySub)
	lo := encoding.AppendStreamEntryKey(nil, p, start)
	var hi []byte
	if after, ok := end.Next(); ok {
		hi = encoding.AppendStreamEntryKey(nil, p, after)
	} else {
		hi = ss.entriesEnd()
	}
	it, err := tx.r.NewIter(lo, hi)
	if err != nil {
		return nil, err
	}
	defer it.Close()
	var out []StreamEntry
	ok := it.First()
	if rev {
		ok = it.Last()
	}
	for ; ok && (count <= 0 || int64(len(out)) < count); ok = next(it, rev) {
		id, err := encoding.DecodeStreamEntryKey(it.Key(), len(p))
		if err != nil {
			return nil, fmt.Errorf("stream %q: %w", ss.key, err)
		}
		fields, err := encoding.DecodeStreamEntry(append([]byte(nil), it.Value()...))
		if err != nil {
			return nil, fmt.Errorf("stream %q entry %s: %w", ss.key, id, err)
		}
		out = append(out, StreamEntry{ID: id, Fields: fields})
	}
	return out, it.Error()
}

func next(it interface {
	Next() bool
	Prev() bool
}, rev bool) bool {
	if rev {
		return it.Prev()
	}
	return it.Next()
}

// lastEntry returns the id of the stream's last entry; ok is false when it
// has none.
func (tx *Tx) lastEntry(ss *streamState) (StreamID, bool, error) {
	e, err := tx.streamRange(ss, StreamID{}, encoding.MaxStreamID, 1, true)
	if err != nil || len(e) == 0 {
		return StreamID{}, false, err
	}
	return e[0].ID, true, nil
}

// setFirstEntry makes the stream's first entry the one from its current
// first id on (none: 0-0), with its insertion index.
func (tx *Tx) setFirstEntry(ss *streamState) error {
	p := ss.Prefix(encoding.FamilySub)
	it, err := tx.r.NewIter(encoding.AppendStreamEntryKey(nil, p, ss.s.FirstID), ss.entriesEnd())
	if err != nil {
		return err
	}
	defer it.Close()
	ss.s.FirstID, ss.s.FirstIndexKnown = StreamID{}, false
	if !it.First() {
		return it.Error()
	}
	id, err := encoding.DecodeStreamEntryKey(it.Key(), len(p))
	if err != nil {
		return fmt.Errorf("stream %q: %w", ss.key, err)
	}
	ss.s.FirstID = id
	ss.s.FirstIndex, ss.s.FirstIndexKnown = encoding.StreamEntryIndex(it.Value())
	return nil
}

// XDel deletes the entries with the given ids, returning how many existed.
// node is stream-node-max-entries, for the emulation of Redis's nodes
// (endTailNode).
func (tx *Tx) XDel(db int, key []byte, ids []StreamID, node int64) (int64, error) {
	ss, err := tx.openStream(db, key)
	if err != nil || !ss.Exists {
		return 0, err
	}
	var n int64
	firstGone := false
	var lastIdx uint64 // the highest index removed
	someIndexed := false
	for _, id := range ids {
		k := ss.entryKey(id)
		v, found, err := tx.get(k)
		if err != nil {
			return 0, err
		}
		if !found {
			continue
		}
		idx, indexed := encoding.StreamEntryIndex(v)
		if indexed && (!someIndexed || idx > lastIdx) {
			lastIdx, someIndexed = idx, true
		}
		if indexed && id != ss.s.FirstID {
			// Trims count the entries before their cut from the indexes
			// less these records (trimStream). The first entry needs
			// none: trims count from the first entry left.
			if err := tx.set(&ss.collection, encoding.AppendStreamDeletedKey(nil, ss.Prefix(encoding.FamilySub), id), nil); err != nil {
				return 0, err
			}
		}
		if err := tx.del(&ss.collection, k); err != nil {
			return 0, err
		}
		n++
		ss.Meta.Size--
		if id == ss.s.FirstID {
			firstGone = true
		}
		if id.Compare(ss.s.MaxDeletedID) > 0 {
			ss.s.MaxDeletedID = id
		}
	}
	if n == 0 {
		return 0, nil
	}
	switch {
	case ss.Meta.Size == 0:
		ss.s.FirstID, ss.s.FirstIndexKnown = StreamID{}, false
		if err := tx.dropDeleted(ss, StreamID{}, true); err != nil {
			return 0, err
		}
		if err := tx.resetNodes(ss); err != nil {
			return 0, err
		}
	case firstGone:
		if err := tx.setFirstEntry(ss); err != nil {
			return 0, err
		}
	}
	if ss.Meta.Size > 0 && someIndexed && node > 0 {
		if err := tx.endTailNode(ss, lastIdx, uint64(node)); err != nil {
			return 0, err
		}
	}
	return n, tx.saveStream(ss)
}

// XSetID sets a stream's last id, and its entries-added counter when
// entriesAdded >= 0 and its max deleted id when maxDeleted is not 0-0.
func (tx *Tx) XSetID(db int, key []byte, id StreamID, entriesAdded int64, maxDeleted StreamID) error {
	ss, err := tx.openStream(db, key)
	if err != nil {
		return err
	}
	if !ss.Exists {
		return ErrNoSuchKey
	}
	if id.Compare(ss.s.MaxDeletedID) < 0 {
		return ErrXSetIDMaxDel
	}
	if ss.Meta.Size > 0 {
		last, _, err := tx.lastEntry(ss)
		if err != nil {
			return err
		}
		if id.Compare(last) < 0 {
			return ErrXSetIDSmall
		}
		if entriesAdded != -1 && ss.Meta.Size > uint64(entriesAdded) {
			return ErrXSetIDAdded
		}
	}
	ss.s.LastID = id
	if entriesAdded != -1 {
		ss.s.EntriesAdded = uint64(entriesAdded)
	}
	if !maxDeleted.IsZero() {
		ss.s.MaxDeletedID = maxDeleted
	}
	return tx.saveStream(ss)
}

// StreamEncoding is OBJECT ENCODING of a stream.
const StreamEncoding = "stream"

// streamUnbounded reports whether m is a stream whose records a deletion
// must not count on Meta.Size to bound: one with consumer groups (pending
// entries of any number) or one XDEL ever removed an entry from (its
// deleted-entry records).
func streamUnbounded(m *encoding.Meta) bool {
	if m.Type != encoding.TypeStream {
		return false
	}
	s, err := encoding.DecodeStreamMeta(m.Value)
	return err != nil || s.Groups > 0 || !s.MaxDeletedID.IsZero()
}

// checkStream verifies a stream's metadata against its records: the entry
// count, the first id, the last id no smaller than the last entry's, the
// number of groups, and the insertion indexes trims count with: they grow
// with the ids, below the next index, after every entry without one, and
// each gap between two neighbours is the number of XDEL records between
// them (no such record lies between neighbours without a gap); no
// node-start record lies past the next index.
func checkStream(s *Store, pdb uint16, key []byte, m *encoding.Meta) error {
	sm, err := encoding.DecodeStreamMeta(m.Value)
	if err != nil {
		return fmt.Errorf("stream %q: %w", key, err)
	}
	p := encoding.AppendSubKeyPrefix(nil, encoding.FamilySub, pdb, key, m.Version)
	it, err := s.eng.NewIter(p, encoding.PrefixEnd(p))
	if err != nil {
		return err
	}
	defer it.Close()
	var entries, groups uint64
	var first, last StreamID
	var firstIdx, nodeStartMax uint64
	firstIndexed := false
	gc := newGroupCheck()
	ic := indexCheck{next: sm.NextIndex}
	for ok := it.First(); ok; ok = it.Next() {
		k := it.Key()
		if len(k) <= len(p) {
			return fmt.Errorf("stream %q: record %x without a kind", key, k)
		}
		switch k[len(p)] {
		case encoding.StreamEntryTag:
			id, err := encoding.DecodeStreamEntryKey(k, len(p))
			if err != nil {
				return fmt.Errorf("stream %q: %w", key, err)
			}
			if _, err := encoding.DecodeStreamEntry(it.Value()); err != nil {
				return fmt.Errorf("stream %q entry %s: %w", key, id, err)
			}
			if err := ic.entry(id, it.Value()); err != nil {
				return fmt.Errorf("stream %q: %w", key, err)
			}
			if entries == 0 {
				first = id
				firstIdx, firstIndexed = encoding.StreamEntryIndex(it.Value())
			}
			last = id
			entries++
		case encoding.StreamGroupTag:
			groups++
			g, err := encoding.DecodeStreamGroup(it.Value())
			if err != nil {
				return fmt.Errorf("stream %q: %w", key, err)
			}
			gc.groups[string(k[len(p)+1:])] = g
		case encoding.StreamDeletedTag:
			id, err := encoding.DecodeStreamID(k[len(p)+1:])
			if err != nil || len(k) != len(p)+17 {
				return fmt.Errorf("stream %q: deleted-entry record %x", key, k)
			}
			if err := ic.deleted(id); err != nil {
				return fmt.Errorf("stream %q: %w", key, err)
			}
		case encoding.StreamNodeStartTag:
			i, err := encoding.DecodeStreamNodeStartKey(k, len(p))
			if err != nil {
				return fmt.Errorf("stream %q: %w", key, err)
			}
			if i > sm.NextIndex {
				return fmt.Errorf("stream %q: a node starts at index %d, past the next index %d", key, i, sm.NextIndex)
			}
			nodeStartMax = max(nodeStartMax, i)
		default:
			if err := gc.add(k[len(p):], it.Value()); err != nil {
				return fmt.Errorf("stream %q: %w", key, err)
			}
		}
	}
	if err := it.Error(); err != nil {
		return err
	}
	if err := gc.check(); err != nil {
		return fmt.Errorf("stream %q: %w", key, err)
	}
	if err := ic.check(); err != nil {
		return fmt.Errorf("stream %q: %w", key, err)
	}
	switch {
	case entries != m.Size:
		return fmt.Errorf("stream %q: size field %d, %d entries", key, m.Size, entries)
	case first != sm.FirstID:
		return fmt.Errorf("stream %q: first id field %s, first entry %s", key, sm.FirstID, first)
	case last.Compare(sm.LastID) > 0:
		return fmt.Errorf("stream %q: last id field %s, last entry %s", key, sm.LastID, last)
	case sm.EntriesAdded < entries:
		return fmt.Errorf("stream %q: entries-added %d below its %d entries", key, sm.EntriesAdded, entries)
	case groups != sm.Groups:
		return fmt.Errorf("stream %q: groups field %d, %d groups", key, sm.Groups, groups)
	case sm.FirstIndexKnown && (!firstIndexed || firstIdx != sm.FirstIndex):
		return fmt.Errorf("stream %q: first index field %d, first entry's %d (indexed %t)", key, sm.FirstIndex, firstIdx, firstIndexed)
	case sm.NodeStartMax != nodeStartMax:
		return fmt.Errorf("stream %q: node-start max field %d, records up to %d", key, sm.NodeStartMax, nodeStartMax)
	}
	return nil
}

// indexCheck verifies a stream's insertion indexes for checkStream. Entry
// records sort before the XDEL records, so the gaps are known first.
type indexCheck struct {
	next    uint64 // the metadata's next index
	indexed bool   // an entry with an index was seen
	prev    uint64 // the last index seen
	prevID  StreamID
	firstID StreamID // the first entry with an index
	gaps    []indexGap
	at      int // the gap the XDEL records have reached
}

// indexGap is a run of missing indexes between neighbours lo and hi.
type indexGap struct {
	lo, hi    StreamID
	want, got uint64
}

func (ic *indexCheck) entry(id StreamID, v []byte) error {
	idx, ok := encoding.StreamEntryIndex(v)
	switch {
	case !ok && ic.indexed:
		return fmt.Errorf("entry %s without an index after entries with one", id)
	case !ok:
		return nil
	case idx >= ic.next:
		return fmt.Errorf("entry %s has index %d, next index %d", id, idx, ic.next)
	case ic.indexed && idx <= ic.prev:
		return fmt.Errorf("entry %s has index %d after %d", id, idx, ic.prev)
	case ic.indexed && idx > ic.prev+1:
		ic.gaps = append(ic.gaps, indexGap{lo: ic.prevID, hi: id, want: idx - ic.prev - 1})
	}
	if !ic.indexed {
		ic.firstID = id
	}
	ic.indexed, ic.prev, ic.prevID = true, idx, id
	return nil
}

// deleted takes the XDEL records in id order: each between the first
// and the last entry with an index must lie in a gap.
func (ic *indexCheck) deleted(id StreamID) error {
	if !ic.indexed || id.Compare(ic.firstID) < 0 || id.Compare(ic.prevID) > 0 {
		return nil // before the entries a trim counts, or after them
	}
	for ic.at < len(ic.gaps) && ic.gaps[ic.at].hi.Compare(id) <= 0 {
		ic.at++
	}
	if ic.at == len(ic.gaps) || ic.gaps[ic.at].lo.Compare(id) >= 0 {
		return fmt.Errorf("deleted-entry record %s between entries with consecutive indexes", id)
	}
	ic.gaps[ic.at].got++
	return nil
}

func (ic *indexCheck) check() error {
	for _, g := range ic.gaps {
		if g.got != g.want {
			return fmt.Errorf("entries %s and %s: %d indexes missing, %d deleted-entry records", g.lo, g.hi, g.want, g.got)
		}
	}
	return nil
}

// groupCheck tallies a stream's consumer-group records for checkStream.
type groupCheck struct {
	groups    map[string]encoding.StreamGroup
	consumers map[string]map[string]uint64 // group → consumer → its pending field
	pel       map[string]map[string]uint64 // group → owner → group PEL entries
	cpel      map[string]map[string]uint64 // group → consumer → index entries
	pelMax    map[string]StreamID          // group → its highest pending id
}

func newGroupCheck() *groupCheck {
	return &groupCheck{groups: map[string]encoding.StreamGroup{}, consumers: map[string]map[string]uint64{},
		pel: map[string]map[string]uint64{}, cpel: map[string]map[string]uint64{}, pelMax: map[string]StreamID{}}
}

// scoped splits len(group) u32 | group | rest.
func scoped(b []byte) (group, rest []byte, err error) {
	if len(b) < 4 {
		return nil, nil, fmt.Errorf("%w: group-scoped key of %d bytes", encoding.ErrCorrupt, len(b))
	}
	n := uint64(b[0])<<24 | uint64(b[1])<<16 | uint64(b[2])<<8 | uint64(b[3])
	if n > uint64(len(b)-4) {
		return nil, nil, fmt.Errorf("%w: group name of %d bytes cut short", encoding.ErrCorrupt, n)
	}
	return b[4 : 4+n], b[4+n:], nil
}

func bump(m map[string]map[string]uint64, g, c string, by uint64) {
	if m[g] == nil {
		m[g] = map[string]uint64{}
	}
	m[g][c] += by
}

// add tallies one record, k starting at its kind byte.
func (gc *groupCheck) add(k, v []byte) error {
	group, rest, err := scoped(k[1:])
	if err != nil {
		return err
	}
	g := string(group)
	switch k[0] {
	case encoding.StreamConsumerTag:
		c, err := encoding.DecodeStreamConsumer(v)
		if err != nil {
			return err
		}
		bump(gc.consumers, g, string(rest), c.Pending)
	case encoding.StreamPELTag:
		p, err := encoding.DecodeStreamPending(v)
		if err != nil {
			return err
		}
		bump(gc.pel, g, string(p.Consumer), 1)
		id, err := encoding.DecodeStreamID(rest)
		if err != nil {
			return err
		}
		if id.Compare(gc.pelMax[g]) > 0 {
			gc.pelMax[g] = id
		}
	case encoding.StreamConsumerPELTag:
		c, _, err := scoped(rest)
		if err != nil {
			return err
		}
		bump(gc.cpel, g, string(c), 1)
	default:
		return fmt.Errorf("%w: stream record of kind %#x", encoding.ErrCorrupt, k[0])
	}
	return nil
}

// check verifies the tallies against the group and consumer records.
func (gc *groupCheck) check() error {
	for _, m := range []map[string]map[string]uint64{gc.consumers, gc.pel, gc.cpel} {
		for g := range m {
			if _, ok := gc.groups[g]; !ok {
				return fmt.Errorf("records of group %q, which has no group record", g)
			}
		}
	}
	for name, g := range gc.groups {
		var pending uint64
		for owner, n := range gc.pel[name] {
			pending += n
			if _, ok := gc.consumers[name][owner]; !ok {
				return fmt.Errorf("group %q: %d pending entries owned by %q, who is no consumer", name, n, owner)
			}
		}
		if pending != g.Pending {
			return fmt.Errorf("group %q: pending field %d, %d pending entries", name, g.Pending, pending)
		}
		if gc.pelMax[name].Compare(g.PELMax) > 0 {
			return fmt.Errorf("group %q: pending id %s above its pel-max-id %s", name, gc.pelMax[name], g.PELMax)
		}
		if uint64(len(gc.consumers[name])) != g.Consumers {
			return fmt.Errorf("group %q: consumers field %d, %d consumers", name, g.Consumers, len(gc.consumers[name]))
		}
		for c, n := range gc.consumers[name] {
			if gc.pel[name][c] != n || gc.cpel[name][c] != n {
				return fmt.Errorf("group %q consumer %q: pending field %d, owns %d pending entries, %d in its index", name, c, n, gc.pel[name][c], gc.cpel[name][c])
			}
		}
	}
	return nil
}
