package store

import (
	"fmt"

	"github.com/cairndb/cairn/internal/encoding"
)

// Streams are keyed by entry id (docs/encoding.md): each entry is one
// record at prefix | 0x00 | ms u64 | seq u64 under the stream's version,
// so a range read from any id is one bounded scan, whatever the stream's
// length. The metadata tail holds the last generated id, the current first
// id, the largest id XDEL removed, the count of entries ever added and the
// number of consumer groups; Meta.Size is the number of entries. Unlike the
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
// An approximate trim (~) has Node > 0: Redis removes only whole radix-tree
// nodes of stream-node-max-entries entries, so Cairn removes a multiple of
// Node entries, the most that fits. For a stream whose nodes filled up in
// turn (entries added, none deleted in the middle) that is what Redis
// removes; it also makes a capped stream's trims one range tombstone every
// Node entries rather than a point delete every XADD.
type StreamTrim struct {
	Strategy TrimStrategy
	MaxLen   int64
	MinID    StreamID
	Limit    int64
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
	if err := tx.set(&ss.collection, ss.entryKey(id), encoding.AppendStreamEntry(nil, a.Fields)); err != nil {
		return id, false, 0, err
	}
	ss.Meta.Size++
	ss.s.EntriesAdded++
	ss.s.LastID = id
	if ss.Meta.Size == 1 {
		ss.s.FirstID = id
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
// number removed, which only counting records gives; trimStream counts on
// whichever side of the cut is shorter — the entries dropped or the
// entries kept, the other following from Meta.Size — so a trim that drops
// nearly all of a long stream reads no more records than it keeps.
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
	n := want
	if t.Strategy == TrimMinID {
		var err error
		if n, err = tx.countBefore(ss, t.MinID, want); err != nil {
			return 0, err
		}
	}
	if t.Node > 0 {
		// Whole nodes only: the multiple of Node below.
		n -= n % uint64(t.Node)
	}
	if n == 0 {
		return 0, nil
	}
	return int64(n), tx.dropFirst(ss, n)
}

// dropFirst deletes the stream's first n entries (0 < n <= Meta.Size).
func (tx *Tx) dropFirst(ss *streamState, n uint64) error {
	p := ss.Prefix(encoding.FamilySub)
	// From the first entry: the tombstones of earlier trims lie before it.
	start := encoding.AppendStreamEntryKey(nil, p, ss.s.FirstID)
	var first StreamID
	end := ss.entriesEnd()
	if n < ss.Meta.Size {
		k, err := tx.entryAt(ss, n)
		if err != nil {
			return err
		}
		if first, err = encoding.DecodeStreamEntryKey(k, len(p)); err != nil {
			return fmt.Errorf("stream %q: %w", ss.key, err)
		}
		end = k
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
	return nil
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

// firstEntry returns the id of the stream's first entry, 0-0 when none.
func (tx *Tx) firstEntry(ss *streamState) (StreamID, error) {
	p := ss.Prefix(encoding.FamilySub)
	it, err := tx.r.NewIter(encoding.AppendStreamEntryKey(nil, p, ss.s.FirstID), ss.entriesEnd())
	if err != nil {
		return StreamID{}, err
	}
	defer it.Close()
	if !it.First() {
		return StreamID{}, it.Error()
	}
	id, err := encoding.DecodeStreamEntryKey(it.Key(), len(p))
	if err != nil {
		return StreamID{}, fmt.Errorf("stream %q: %w", ss.key, err)
	}
	return id, nil
}

// XDel deletes the entries with the given ids, returning how many existed.
func (tx *Tx) XDel(db int, key []byte, ids []StreamID) (int64, error) {
	ss, err := tx.openStream(db, key)
	if err != nil || !ss.Exists {
		return 0, err
	}
	var n int64
	firstGone := false
	for _, id := range ids {
		k := ss.entryKey(id)
		_, found, err := tx.get(k)
		if err != nil {
			return 0, err
		}
		if !found {
			continue
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
		ss.s.FirstID = StreamID{}
	case firstGone:
		if ss.s.FirstID, err = tx.firstEntry(ss); err != nil {
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

// streamHasGroups reports whether m is a stream with consumer groups, whose
// records (pending entries of any number) a deletion must not count on
// Meta.Size to bound.
func streamHasGroups(m *encoding.Meta) bool {
	if m.Type != encoding.TypeStream {
		return false
	}
	s, err := encoding.DecodeStreamMeta(m.Value)
	return err != nil || s.Groups > 0
}

// checkStream verifies a stream's metadata against its records: the entry
// count, the first id, the last id no smaller than the last entry's, and
// the number of groups.
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
	gc := newGroupCheck()
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
			if entries == 0 {
				first = id
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
