package store

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/cairndb/cairn/internal/encoding"
)

// Consumer groups live under the stream's version (docs/encoding.md): a
// record per group (last delivered id, entries read, pending and consumer
// counts), per consumer (seen and active times, pending count), per pending
// entry in the group's list (delivery time and count, owner), and an index
// of each consumer's pending ids. Destroying a group is its record and
// three range tombstones; DEL of the stream reclaims them all with the
// entries.

// Consumer group errors. ErrNoGroup is never sent as is: each command
// words its NOGROUP reply.
const (
	ErrNoGroup     Error = "NOGROUP"
	ErrBusyGroup   Error = "BUSYGROUP Consumer Group name already exists"
	ErrXGroupNoKey Error = "ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically."
)

// InvalidEntriesRead is a group's entries-read counter when unknown.
const InvalidEntriesRead int64 = -1

// groupState is a group as one command works on it: its record and the
// consumers it changed, written back by saveGroup.
type groupState struct {
	name      []byte
	g         encoding.StreamGroup
	consumers map[string]*encoding.StreamConsumer
}

func (ss *streamState) groupKey(name []byte) []byte {
	return encoding.AppendStreamGroupKey(nil, ss.Prefix(encoding.FamilySub), name)
}

func (ss *streamState) consumerKey(group, consumer []byte) []byte {
	return append(encoding.AppendStreamConsumersPrefix(nil, ss.Prefix(encoding.FamilySub), group), consumer...)
}

func (ss *streamState) pelKey(group []byte, id StreamID) []byte {
	return encoding.AppendStreamID(encoding.AppendStreamPELPrefix(nil, ss.Prefix(encoding.FamilySub), group), id)
}

func (ss *streamState) consumerPELKey(group, consumer []byte, id StreamID) []byte {
	return encoding.AppendStreamID(encoding.AppendStreamConsumerPELPrefix(nil, ss.Prefix(encoding.FamilySub), group, consumer), id)
}

// openGroup reads group of an open stream; nil when it has none.
func (tx *Tx) openGroup(ss *streamState, name []byte) (*groupState, error) {
	if !ss.Exists || ss.s.Groups == 0 {
		return nil, nil
	}
	v, found, err := tx.get(ss.groupKey(name))
	if err != nil || !found {
		return nil, err
	}
	g, err := encoding.DecodeStreamGroup(v)
	if err != nil {
		return nil, fmt.Errorf("stream %q group %q: %w", ss.key, name, err)
	}
	return &groupState{name: name, g: g, consumers: map[string]*encoding.StreamConsumer{}}, nil
}

// openStreamGroup opens key and its group; ErrNoGroup when either is
// missing.
func (tx *Tx) openStreamGroup(db int, key, group []byte) (*streamState, *groupState, error) {
	ss, err := tx.openStream(db, key)
	if err != nil {
		return nil, nil, err
	}
	gs, err := tx.openGroup(ss, group)
	if err == nil && gs == nil {
		err = ErrNoGroup
	}
	return ss, gs, err
}

// consumer returns group's consumer, read once per command; nil when it
// does not exist.
func (tx *Tx) consumer(ss *streamState, gs *groupState, name []byte) (*encoding.StreamConsumer, error) {
	if c, ok := gs.consumers[string(name)]; ok {
		return c, nil
	}
	v, found, err := tx.get(ss.consumerKey(gs.name, name))
	if err != nil || !found {
		return nil, err
	}
	c, err := encoding.DecodeStreamConsumer(v)
	if err != nil {
		return nil, fmt.Errorf("stream %q consumer %q: %w", ss.key, name, err)
	}
	gs.consumers[string(name)] = &c
	return &c, nil
}

// ensureConsumer returns group's consumer, creating it when absent
// (created reports that).
func (tx *Tx) ensureConsumer(ss *streamState, gs *groupState, name []byte) (c *encoding.StreamConsumer, created bool, err error) {
	if c, err = tx.consumer(ss, gs, name); err != nil || c != nil {
		return c, false, err
	}
	c = &encoding.StreamConsumer{SeenMs: tx.NowMs, ActiveMs: -1}
	gs.consumers[string(name)] = c
	gs.g.Consumers++
	return c, true, nil
}

// saveGroup writes the group's record and the consumers the command read,
// then the stream's metadata (so that the key counts as modified).
func (tx *Tx) saveGroup(ss *streamState, gs *groupState) error {
	for name, c := range gs.consumers {
		if c == nil {
			continue
		}
		if err := tx.set(&ss.collection, ss.consumerKey(gs.name, []byte(name)), encoding.AppendStreamConsumer(nil, *c)); err != nil {
			return err
		}
	}
	if err := tx.set(&ss.collection, ss.groupKey(gs.name), encoding.AppendStreamGroup(nil, gs.g)); err != nil {
		return err
	}
	return tx.saveStream(ss)
}

// StreamGroupExists reports whether key holds a stream with group.
func (tx *Tx) StreamGroupExists(db int, key, group []byte) (bool, error) {
	ss, err := tx.openStream(db, key)
	if err != nil {
		return false, err
	}
	gs, err := tx.openGroup(ss, group)
	return gs != nil, err
}

// XGroupCreate creates group with last delivered id id (the stream's last
// id when dollar), creating an empty stream first when mkstream.
func (tx *Tx) XGroupCreate(db int, key, group []byte, id StreamID, dollar, mkstream bool, entriesRead int64) error {
	ss, err := tx.openStream(db, key)
	if err != nil {
		return err
	}
	if !ss.Exists {
		if !mkstream {
			return ErrXGroupNoKey
		}
		if err := tx.create(&ss.collection); err != nil {
			return err
		}
		ss.s = encoding.StreamMeta{}
	}
	if dollar {
		id = ss.s.LastID
	}
	gs, err := tx.openGroup(ss, group)
	if err != nil {
		return err
	}
	if gs != nil {
		return ErrBusyGroup
	}
	ss.s.Groups++
	gs = &groupState{name: group, g: encoding.StreamGroup{LastID: id, EntriesRead: entriesRead}}
	return tx.saveGroup(ss, gs)
}

// XGroupSetID sets group's last delivered id and entries-read counter.
func (tx *Tx) XGroupSetID(db int, key, group []byte, id StreamID, dollar bool, entriesRead int64) error {
	ss, gs, err := tx.openStreamGroup(db, key, group)
	if err != nil {
		return err
	}
	if dollar {
		id = ss.s.LastID
	}
	gs.g.LastID, gs.g.EntriesRead = id, entriesRead
	return tx.saveGroup(ss, gs)
}

// XGroupDestroy removes group and everything it owns; false when there was
// no such group.
func (tx *Tx) XGroupDestroy(db int, key, group []byte) (bool, error) {
	ss, err := tx.openStream(db, key)
	if err != nil {
		return false, err
	}
	gs, err := tx.openGroup(ss, group)
	if err != nil || gs == nil {
		return false, err
	}
	if err := tx.del(&ss.collection, ss.groupKey(group)); err != nil {
		return false, err
	}
	for _, p := range encoding.StreamGroupScopes(ss.Prefix(encoding.FamilySub), group) {
		if err := tx.delRange(&ss.collection, p, encoding.PrefixEnd(p)); err != nil {
			return false, err
		}
	}
	ss.s.Groups--
	return true, tx.saveStream(ss)
}

// XGroupCreateConsumer creates consumer in group; false when it existed.
func (tx *Tx) XGroupCreateConsumer(db int, key, group, consumer []byte) (bool, error) {
	ss, gs, err := tx.openStreamGroup(db, key, group)
	if err != nil {
		return false, err
	}
	_, created, err := tx.ensureConsumer(ss, gs, consumer)
	if err != nil || !created {
		return false, err
	}
	return true, tx.saveGroup(ss, gs)
}

// XGroupDelConsumer deletes consumer and its pending entries, returning
// how many it had; existed is false when there was no such consumer.
func (tx *Tx) XGroupDelConsumer(db int, key, group, consumer []byte) (pending int64, existed bool, err error) {
	ss, gs, err := tx.openStreamGroup(db, key, group)
	if err != nil {
		return 0, false, err
	}
	c, err := tx.consumer(ss, gs, consumer)
	if err != nil || c == nil {
		return 0, false, err
	}
	ids, err := tx.consumerPending(ss, gs.name, consumer, StreamID{}, encoding.MaxStreamID, 0)
	if err != nil {
		return 0, false, err
	}
	for _, id := range ids {
		if err := tx.del(&ss.collection, ss.pelKey(group, id)); err != nil {
			return 0, false, err
		}
		if err := tx.del(&ss.collection, ss.consumerPELKey(group, consumer, id)); err != nil {
			return 0, false, err
		}
	}
	if err := tx.del(&ss.collection, ss.consumerKey(group, consumer)); err != nil {
		return 0, false, err
	}
	gs.consumers[string(consumer)] = nil
	gs.g.Pending -= uint64(len(ids))
	gs.g.Consumers--
	return int64(len(ids)), true, tx.saveGroup(ss, gs)
}

// consumerPending lists the ids in consumer's pending list within
// [start, end], at most count of them when count > 0.
func (tx *Tx) consumerPending(ss *streamState, group, consumer []byte, start, end StreamID, count int64) ([]StreamID, error) {
	p := encoding.AppendStreamConsumerPELPrefix(nil, ss.Prefix(encoding.FamilySub), group, consumer)
	return tx.scanIDs(p, start, end, count, nil)
}

// scanIDs lists the ids after prefix p within [start, end], at most count
// when count > 0, calling each (when not nil) with every record's value;
// each returning false skips the id.
func (tx *Tx) scanIDs(p []byte, start, end StreamID, count int64, each func(id StreamID, v []byte) (bool, error)) ([]StreamID, error) {
	lo := encoding.AppendStreamID(append([]byte(nil), p...), start)
	var hi []byte
	if after, ok := end.Next(); ok {
		hi = encoding.AppendStreamID(append([]byte(nil), p...), after)
	} else {
		hi = encoding.PrefixEnd(p)
	}
	it, err := tx.r.NewIter(lo, hi)
	if err != nil {
		return nil, err
	}
	defer it.Close()
	var out []StreamID
	for ok := it.First(); ok && (count <= 0 || int64(len(out)) < count); ok = it.Next() {
		k := it.Key()
		if len(k) != len(p)+16 {
			return nil, fmt.Errorf("%w: stream pending key of %d bytes", encoding.ErrCorrupt, len(k))
		}
		id, _ := encoding.DecodeStreamID(k[len(p):])
		if each != nil {
			keep, err := each(id, it.Value())
			if err != nil {
				return nil, err
			}
			if !keep {
				continue
			}
		}
		out = append(out, id)
	}
	return out, it.Error()
}

// hasTombstones is Redis 7.2's streamRangeHasTombstones from start to the
// end.
func (ss *streamState) hasTombstones(start StreamID) bool {
	if ss.Meta.Size == 0 || ss.s.MaxDeletedID.IsZero() || ss.s.FirstID.Compare(ss.s.MaxDeletedID) > 0 {
		return false
	}
	return start.Compare(ss.s.MaxDeletedID) <= 0
}

// estimateRead is Redis 7.2's streamEstimateDistanceFromFirstEverEntry: the
// entries-read counter of id, or InvalidEntriesRead.
func (ss *streamState) estimateRead(id StreamID) int64 {
	s := &ss.s
	if s.EntriesAdded == 0 {
		return 0
	}
	if ss.Meta.Size == 0 && id.Compare(s.LastID) < 1 {
		return int64(s.EntriesAdded)
	}
	switch c := id.Compare(s.LastID); {
	case c == 0:
		return int64(s.EntriesAdded)
	case c > 0:
		return InvalidEntriesRead
	}
	if s.MaxDeletedID.IsZero() || s.MaxDeletedID.Compare(s.FirstID) < 0 {
		switch id.Compare(s.FirstID) {
		case -1:
			return int64(s.EntriesAdded - ss.Meta.Size)
		case 0:
			return int64(s.EntriesAdded - ss.Meta.Size + 1)
		}
	}
	return InvalidEntriesRead
}

// lag is Redis 7.2's streamReplyWithCGLag; ok is false when it is unknown.
func (ss *streamState) lag(g *encoding.StreamGroup) (int64, bool) {
	s := &ss.s
	switch {
	case s.EntriesAdded == 0:
		return 0, true
	case g.EntriesRead != InvalidEntriesRead && !ss.hasTombstones(g.LastID):
		return int64(s.EntriesAdded) - g.EntriesRead, true
	}
	if r := ss.estimateRead(g.LastID); r != InvalidEntriesRead {
		return int64(s.EntriesAdded) - r, true
	}
	return 0, false
}

// deliver records the delivery of entry id to consumer: a new pending
// entry, or one taken over from whoever had it, delivery count 1.
func (tx *Tx) deliver(ss *streamState, gs *groupState, consumer []byte, c *encoding.StreamConsumer, id StreamID) error {
	if id.Compare(gs.g.PELMax) > 0 {
		// Newer than anything ever pending: no record to look up, which
		// spares a read through the tombstones acknowledged entries leave.
		gs.g.Pending++
		return tx.own(ss, gs, consumer, c, id, encoding.StreamPending{DeliveryMs: tx.NowMs, Count: 1, Consumer: consumer})
	}
	k := ss.pelKey(gs.name, id)
	v, found, err := tx.get(k)
	if err != nil {
		return err
	}
	if found {
		p, err := encoding.DecodeStreamPending(v)
		if err != nil {
			return fmt.Errorf("stream %q: %w", ss.key, err)
		}
		if err := tx.disown(ss, gs, p.Consumer, id); err != nil {
			return err
		}
	} else {
		gs.g.Pending++
	}
	return tx.own(ss, gs, consumer, c, id, encoding.StreamPending{DeliveryMs: tx.NowMs, Count: 1, Consumer: consumer})
}

// disown takes id out of consumer's pending list (not the group's).
func (tx *Tx) disown(ss *streamState, gs *groupState, consumer []byte, id StreamID) error {
	old, err := tx.consumer(ss, gs, consumer)
	if err != nil {
		return err
	}
	if old != nil && old.Pending > 0 {
		old.Pending--
	}
	return tx.del(&ss.collection, ss.consumerPELKey(gs.name, consumer, id))
}

// own writes id's pending entry p, owned by consumer c.
func (tx *Tx) own(ss *streamState, gs *groupState, consumer []byte, c *encoding.StreamConsumer, id StreamID, p encoding.StreamPending) error {
	c.Pending++
	if id.Compare(gs.g.PELMax) > 0 {
		gs.g.PELMax = id
	}
	if err := tx.set(&ss.collection, ss.pelKey(gs.name, id), encoding.AppendStreamPending(nil, p)); err != nil {
		return err
	}
	return tx.set(&ss.collection, ss.consumerPELKey(gs.name, consumer, id), nil)
}

// XReadGroupResult is what XREADGROUP read from one stream.
type XReadGroupResult struct {
	// Entries are the entries served; an entry of a consumer's history that
	// was deleted meanwhile has nil Fields.
	Entries []StreamEntry
	// ConsumerCreated reports that the read created the consumer.
	ConsumerCreated bool
}

// XReadGroup serves consumer of group from key: new entries (after the
// group's last delivered id) when !history, else the consumer's own
// pending entries from start on (none when count < 0). With noack, new entries are not added to
// the pending lists.
//
// With quiet, a read of new entries that finds none writes nothing: a
// blocked client's runs after a wake-up must not touch the key they wait
// on, or each would wake the next (and itself) for ever.
func (tx *Tx) XReadGroup(db int, key, group, consumer []byte, start StreamID, history bool, count int64, noack, quiet bool) (XReadGroupResult, error) {
	var r XReadGroupResult
	ss, gs, err := tx.openStreamGroup(db, key, group)
	if err != nil {
		return r, err
	}
	c, created, err := tx.ensureConsumer(ss, gs, consumer)
	if err != nil {
		return r, err
	}
	r.ConsumerCreated = created
	c.SeenMs = tx.NowMs
	if history {
		var ids []StreamID
		if count >= 0 { // a negative count serves nothing
			if ids, err = tx.consumerPending(ss, group, consumer, start, encoding.MaxStreamID, count); err != nil {
				return r, err
			}
		}
		for _, id := range ids {
			e, err := tx.streamRange(ss, id, id, 1, false)
			if err != nil {
				return r, err
			}
			if len(e) == 0 {
				r.Entries = append(r.Entries, StreamEntry{ID: id})
				continue
			}
			r.Entries = append(r.Entries, e[0])
			if err := tx.touchPending(ss, gs, id, func(p *encoding.StreamPending) { p.DeliveryMs = tx.NowMs; p.Count++ }); err != nil {
				return r, err
			}
		}
		return r, tx.saveGroup(ss, gs)
	}
	if after, ok := gs.g.LastID.Next(); ok {
		if r.Entries, err = tx.streamRange(ss, after, encoding.MaxStreamID, count, false); err != nil {
			return r, err
		}
	}
	if quiet && len(r.Entries) == 0 {
		r.ConsumerCreated = false
		return r, nil
	}
	for _, e := range r.Entries {
		if e.ID.Compare(gs.g.LastID) > 0 {
			if gs.g.EntriesRead != InvalidEntriesRead && !ss.hasTombstones(e.ID) {
				gs.g.EntriesRead++
			} else if ss.s.EntriesAdded != 0 {
				gs.g.EntriesRead = ss.estimateRead(e.ID)
			}
			gs.g.LastID = e.ID
		}
		if !noack {
			if err := tx.deliver(ss, gs, consumer, c, e.ID); err != nil {
				return r, err
			}
			c.ActiveMs = tx.NowMs
		}
	}
	return r, tx.saveGroup(ss, gs)
}

// touchPending rewrites the pending entry of id with change applied.
func (tx *Tx) touchPending(ss *streamState, gs *groupState, id StreamID, change func(p *encoding.StreamPending)) error {
	k := ss.pelKey(gs.name, id)
	v, found, err := tx.get(k)
	if err != nil || !found {
		return err
	}
	p, err := encoding.DecodeStreamPending(bytes.Clone(v))
	if err != nil {
		return fmt.Errorf("stream %q: %w", ss.key, err)
	}
	change(&p)
	return tx.set(&ss.collection, k, encoding.AppendStreamPending(nil, p))
}

// XAck acknowledges ids in group, returning how many were pending. A
// missing key or group acknowledges nothing.
func (tx *Tx) XAck(db int, key, group []byte, ids []StreamID) (int64, error) {
	ss, gs, err := tx.openStreamGroup(db, key, group)
	if err == ErrNoGroup {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	var n int64
	if len(ids) >= ackScanMin {
		// The ids in order, each once: acknowledging one twice counts
		// it once, whatever the order.
		ids = slices.Clone(ids)
		slices.SortFunc(ids, StreamID.Compare)
		ids = slices.Compact(ids)
		pending, err := tx.pendingOf(ss, group, ids)
		if err != nil {
			return 0, err
		}
		for _, r := range pending {
			if err := tx.del(&ss.collection, ss.pelKey(group, r.id)); err != nil {
				return 0, err
			}
			if err := tx.disown(ss, gs, r.p.Consumer, r.id); err != nil {
				return 0, err
			}
			gs.g.Pending--
			n++
		}
		ids = nil
	}
	for _, id := range ids {
		k := ss.pelKey(group, id)
		v, found, err := tx.get(k)
		if err != nil {
			return 0, err
		}
		if !found {
			continue
		}
		p, err := encoding.DecodeStreamPending(bytes.Clone(v))
		if err != nil {
			return 0, fmt.Errorf("stream %q: %w", ss.key, err)
		}
		if err := tx.del(&ss.collection, k); err != nil {
			return 0, err
		}
		if err := tx.disown(ss, gs, p.Consumer, id); err != nil {
			return 0, err
		}
		gs.g.Pending--
		n++
	}
	if n == 0 {
		return 0, nil
	}
	return n, tx.saveGroup(ss, gs)
}

// ackScanMin is the number of ids from which XACK reads their pending
// records with one iterator rather than a lookup each: a consumer
// acknowledges what one read gave it, consecutive records, which one
// seek and a few steps reach.
const ackScanMin = 3

// ackSteps is how many records the iterator steps over before it seeks
// to the next id instead.
const ackSteps = 4

// pendingRecord is an id's record in a group's pending list.
type pendingRecord struct {
	id StreamID
	p  encoding.StreamPending
}

// pendingOf returns the pending records of ids (sorted, distinct) in
// group, in order, skipping those not pending, read with one iterator.
func (tx *Tx) pendingOf(ss *streamState, group []byte, ids []StreamID) ([]pendingRecord, error) {
	pp := encoding.AppendStreamPELPrefix(nil, ss.Prefix(encoding.FamilySub), group)
	lo := encoding.AppendStreamID(slices.Clip(pp), ids[0])
	hi := encoding.PrefixEnd(pp)
	if after, ok := ids[len(ids)-1].Next(); ok {
		hi = encoding.AppendStreamID(slices.Clip(pp), after)
	}
	it, err := tx.r.NewIter(lo, hi)
	if err != nil {
		return nil, err
	}
	defer it.Close()
	keyID := func() (StreamID, error) {
		k := it.Key()
		if len(k) != len(pp)+16 {
			return StreamID{}, fmt.Errorf("stream %q: %w: pending key of %d bytes", ss.key, encoding.ErrCorrupt, len(k))
		}
		id, _ := encoding.DecodeStreamID(k[len(pp):])
		return id, nil
	}
	var out []pendingRecord
	ok := it.First()
	for _, id := range ids {
		for steps := 0; ok; steps++ {
			at, err := keyID()
			if err != nil {
				return nil, err
			}
			if at.Compare(id) >= 0 {
				break
			}
			if steps < ackSteps {
				ok = it.Next()
			} else {
				ok = it.SeekGE(encoding.AppendStreamID(slices.Clip(pp), id))
			}
		}
		if !ok {
			break
		}
		if at, _ := keyID(); at != id {
			continue
		}
		p, err := encoding.DecodeStreamPending(bytes.Clone(it.Value()))
		if err != nil {
			return nil, fmt.Errorf("stream %q: %w", ss.key, err)
		}
		out = append(out, pendingRecord{id, p})
	}
	return out, it.Error()
}

// PendingSummary is XPENDING's summary of a group.
type PendingSummary struct {
	Count       int64
	First, Last StreamID
	// Consumers are the consumers with pending entries, by name, and how
	// many each has.
	Consumers []ConsumerPending
}

// ConsumerPending is a consumer's name and its number of pending entries.
type ConsumerPending struct {
	Name    []byte
	Pending int64
}

// XPendingSummary is XPENDING key group.
func (tx *Tx) XPendingSummary(db int, key, group []byte) (PendingSummary, error) {
	var s PendingSummary
	ss, gs, err := tx.openStreamGroup(db, key, group)
	if err != nil {
		return s, err
	}
	s.Count = int64(gs.g.Pending)
	if s.Count == 0 {
		return s, nil
	}
	p := encoding.AppendStreamPELPrefix(nil, ss.Prefix(encoding.FamilySub), group)
	first, err := tx.scanIDs(p, StreamID{}, encoding.MaxStreamID, 1, nil)
	if err != nil {
		return s, err
	}
	last, err := tx.lastID(p)
	if err != nil {
		return s, err
	}
	if len(first) == 1 {
		s.First = first[0]
	}
	s.Last = last
	cp := encoding.AppendStreamConsumersPrefix(nil, ss.Prefix(encoding.FamilySub), group)
	err = tx.eachConsumer(cp, func(name []byte, c encoding.StreamConsumer) {
		if c.Pending > 0 {
			s.Consumers = append(s.Consumers, ConsumerPending{Name: bytes.Clone(name), Pending: int64(c.Pending)})
		}
	})
	return s, err
}

// lastID returns the id of the last record after prefix p.
func (tx *Tx) lastID(p []byte) (StreamID, error) {
	it, err := tx.r.NewIter(p, encoding.PrefixEnd(p))
	if err != nil {
		return StreamID{}, err
	}
	defer it.Close()
	if !it.Last() {
		return StreamID{}, it.Error()
	}
	return encoding.DecodeStreamID(it.Key()[len(p):])
}

// eachConsumer calls fn with every consumer record under cp, by name.
func (tx *Tx) eachConsumer(cp []byte, fn func(name []byte, c encoding.StreamConsumer)) error {
	it, err := tx.r.NewIter(cp, encoding.PrefixEnd(cp))
	if err != nil {
		return err
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		c, err := encoding.DecodeStreamConsumer(it.Value())
		if err != nil {
			return err
		}
		fn(it.Key()[len(cp):], c)
	}
	return it.Error()
}

// PendingEntry is one entry of XPENDING's extended form.
type PendingEntry struct {
	ID         StreamID
	Consumer   []byte
	IdleMs     int64
	Deliveries int64
}

// XPendingRange is XPENDING's extended form: the pending entries of group
// (of consumer, when not nil) within [start, end] idle for at least minIdle
// ms, at most count.
func (tx *Tx) XPendingRange(db int, key, group []byte, start, end StreamID, count, minIdle int64, consumer []byte) ([]PendingEntry, error) {
	ss, gs, err := tx.openStreamGroup(db, key, group)
	if err != nil {
		return nil, err
	}
	if count <= 0 || start.Compare(end) > 0 {
		return nil, nil
	}
	var out []PendingEntry
	visit := func(id StreamID) (bool, error) {
		v, found, err := tx.get(ss.pelKey(group, id))
		if err != nil || !found {
			return false, err
		}
		p, err := encoding.DecodeStreamPending(v)
		if err != nil {
			return false, err
		}
		idle := max(tx.NowMs-p.DeliveryMs, 0)
		if minIdle != 0 && tx.NowMs-p.DeliveryMs < minIdle {
			return false, nil
		}
		out = append(out, PendingEntry{ID: id, Consumer: bytes.Clone(p.Consumer), IdleMs: idle, Deliveries: int64(p.Count)})
		return true, nil
	}
	var p []byte
	if consumer != nil {
		c, err := tx.consumer(ss, gs, consumer)
		if err != nil || c == nil {
			return nil, err
		}
		p = encoding.AppendStreamConsumerPELPrefix(nil, ss.Prefix(encoding.FamilySub), group, consumer)
	} else {
		p = encoding.AppendStreamPELPrefix(nil, ss.Prefix(encoding.FamilySub), group)
	}
	_, err = tx.scanIDs(p, start, end, count, func(id StreamID, _ []byte) (bool, error) { return visit(id) })
	return out, err
}

// XClaimArgs is one XCLAIM.
type XClaimArgs struct {
	MinIdle int64
	// DeliveryMs is the delivery time to record, -1 for now.
	DeliveryMs int64
	// RetryCount is the delivery count to set, -1 to count this one.
	RetryCount int64
	Force      bool
	JustID     bool
	LastID     StreamID
}

// XClaim gives consumer the pending entries ids of group that have been
// idle for at least MinIdle ms, returning them (Fields nil with JustID).
// An id whose entry was deleted leaves the pending list.
// created reports that the command created the consumer.
func (tx *Tx) XClaim(db int, key, group, consumer []byte, ids []StreamID, a *XClaimArgs) (entries []StreamEntry, created bool, err error) {
	ss, gs, err := tx.openStreamGroup(db, key, group)
	if err != nil {
		return nil, false, err
	}
	now := tx.NowMs
	if a.LastID.Compare(gs.g.LastID) > 0 {
		gs.g.LastID = a.LastID
	}
	delivery := a.DeliveryMs
	if delivery < 0 || delivery > now {
		delivery = now
	}
	c, created, err := tx.ensureConsumer(ss, gs, consumer)
	if err != nil {
		return nil, false, err
	}
	c.SeenMs = now
	var out []StreamEntry
	for _, id := range ids {
		p, found, err := tx.pendingEntry(ss, gs, id)
		if err != nil {
			return nil, false, err
		}
		e, err := tx.streamRange(ss, id, id, 1, false)
		if err != nil {
			return nil, false, err
		}
		if len(e) == 0 {
			if found {
				if err := tx.dropPending(ss, gs, id, p.Consumer); err != nil {
					return nil, false, err
				}
			}
			continue
		}
		owned := found
		if !found {
			if !a.Force {
				continue
			}
			p = encoding.StreamPending{DeliveryMs: now, Count: 1}
			gs.g.Pending++
		}
		if owned && a.MinIdle > 0 && now-p.DeliveryMs < a.MinIdle {
			continue
		}
		p.DeliveryMs = delivery
		if a.RetryCount >= 0 {
			p.Count = uint64(a.RetryCount)
		} else if !a.JustID {
			p.Count++
		}
		if err := tx.claim(ss, gs, id, p, owned, consumer, c); err != nil {
			return nil, false, err
		}
		c.ActiveMs = now
		if a.JustID {
			e[0].Fields = nil
		}
		out = append(out, e[0])
	}
	return out, created, tx.saveGroup(ss, gs)
}

// pendingEntry reads id's entry in group's pending list.
func (tx *Tx) pendingEntry(ss *streamState, gs *groupState, id StreamID) (encoding.StreamPending, bool, error) {
	v, found, err := tx.get(ss.pelKey(gs.name, id))
	if err != nil || !found {
		return encoding.StreamPending{}, false, err
	}
	p, err := encoding.DecodeStreamPending(bytes.Clone(v))
	if err != nil {
		return p, false, fmt.Errorf("stream %q: %w", ss.key, err)
	}
	return p, true, nil
}

// dropPending deletes id from group's pending list and its owner's.
func (tx *Tx) dropPending(ss *streamState, gs *groupState, id StreamID, owner []byte) error {
	if err := tx.del(&ss.collection, ss.pelKey(gs.name, id)); err != nil {
		return err
	}
	gs.g.Pending--
	return tx.disown(ss, gs, owner, id)
}

// claim writes pending entry p of id as consumer's; owned says whether it
// had an owner (p.Consumer) before.
func (tx *Tx) claim(ss *streamState, gs *groupState, id StreamID, p encoding.StreamPending, owned bool, consumer []byte, c *encoding.StreamConsumer) error {
	if owned && bytes.Equal(p.Consumer, consumer) {
		return tx.set(&ss.collection, ss.pelKey(gs.name, id), encoding.AppendStreamPending(nil, p))
	}
	if owned {
		if err := tx.disown(ss, gs, p.Consumer, id); err != nil {
			return err
		}
	}
	p.Consumer = consumer
	return tx.own(ss, gs, consumer, c, id, p)
}

// XAutoClaimResult is what XAUTOCLAIM claimed.
type XAutoClaimResult struct {
	Claimed []StreamEntry
	// Next is the id to continue from, 0-0 when the scan reached the end.
	Next StreamID
	// Deleted are the pending ids whose entries no longer exist, removed
	// from the pending list.
	Deleted []StreamID
	// ConsumerCreated reports that the command created the consumer.
	ConsumerCreated bool
}

// XAutoClaim is XCLAIM over group's pending list from start on: at most
// count entries idle for at least minIdle ms, looking at no more than
// 10×count pending entries.
func (tx *Tx) XAutoClaim(db int, key, group, consumer []byte, minIdle int64, start StreamID, count int64, justID bool) (XAutoClaimResult, error) {
	var r XAutoClaimResult
	ss, gs, err := tx.openStreamGroup(db, key, group)
	if err != nil {
		return r, err
	}
	now := tx.NowMs
	c, created, err := tx.ensureConsumer(ss, gs, consumer)
	if err != nil {
		return r, err
	}
	r.ConsumerCreated = created
	c.SeenMs = now
	attempts := count * 10
	// The pending ids to look at, and the one after them: read first, as
	// the claims rewrite the list.
	limit := min(attempts, int64(gs.g.Pending)) + 1
	p := encoding.AppendStreamPELPrefix(nil, ss.Prefix(encoding.FamilySub), group)
	ids, err := tx.scanIDs(p, start, encoding.MaxStreamID, limit, nil)
	if err != nil {
		return r, err
	}
	i := 0
	for ; i < len(ids) && attempts > 0 && count > 0; i++ {
		attempts--
		id := ids[i]
		pe, found, err := tx.pendingEntry(ss, gs, id)
		if err != nil {
			return r, err
		}
		if !found {
			continue
		}
		e, err := tx.streamRange(ss, id, id, 1, false)
		if err != nil {
			return r, err
		}
		if len(e) == 0 {
			if err := tx.dropPending(ss, gs, id, pe.Consumer); err != nil {
				return r, err
			}
			r.Deleted = append(r.Deleted, id)
			count--
			continue
		}
		if minIdle > 0 && now-pe.DeliveryMs < minIdle {
			continue
		}
		pe.DeliveryMs = now
		if !justID {
			pe.Count++
		}
		if err := tx.claim(ss, gs, id, pe, true, consumer, c); err != nil {
			return r, err
		}
		c.ActiveMs = now
		if justID {
			e[0].Fields = nil
		}
		r.Claimed = append(r.Claimed, e[0])
		count--
	}
	if i < len(ids) {
		r.Next = ids[i]
	}
	return r, tx.saveGroup(ss, gs)
}

// GroupInfo is a consumer group as XINFO reports it.
type GroupInfo struct {
	Name []byte
	encoding.StreamGroup
	// Lag is the number of entries not yet delivered, when LagKnown.
	Lag      int64
	LagKnown bool
}

// StreamInfo is a stream as XINFO STREAM reports it.
type StreamInfo struct {
	Length uint64
	encoding.StreamMeta
	// First and Last are the first and last entries, nil when empty.
	First, Last *StreamEntry
	Groups      []GroupInfo
}

// XInfoStream describes a stream; ok is false for an absent key.
func (tx *Tx) XInfoStream(db int, key []byte) (info StreamInfo, ok bool, err error) {
	ss, err := tx.openStream(db, key)
	if err != nil || !ss.Exists {
		return info, false, err
	}
	info.Length, info.StreamMeta = ss.Meta.Size, ss.s
	for _, rev := range []bool{false, true} {
		e, err := tx.streamRange(ss, StreamID{}, encoding.MaxStreamID, 1, rev)
		if err != nil {
			return info, false, err
		}
		if len(e) == 1 && !rev {
			info.First = &e[0]
		} else if len(e) == 1 {
			info.Last = &e[0]
		}
	}
	info.Groups, err = tx.groups(ss)
	return info, true, err
}

// groups lists a stream's groups by name.
func (tx *Tx) groups(ss *streamState) ([]GroupInfo, error) {
	if ss.s.Groups == 0 {
		return nil, nil
	}
	p := append(append([]byte(nil), ss.Prefix(encoding.FamilySub)...), encoding.StreamGroupTag)
	it, err := tx.r.NewIter(p, encoding.PrefixEnd(p))
	if err != nil {
		return nil, err
	}
	defer it.Close()
	var out []GroupInfo
	for ok := it.First(); ok; ok = it.Next() {
		g, err := encoding.DecodeStreamGroup(it.Value())
		if err != nil {
			return nil, fmt.Errorf("stream %q: %w", ss.key, err)
		}
		lag, known := ss.lag(&g)
		out = append(out, GroupInfo{Name: bytes.Clone(it.Key()[len(p):]), StreamGroup: g, Lag: lag, LagKnown: known})
	}
	return out, it.Error()
}

// XInfoGroups lists key's groups; ok is false for an absent key.
func (tx *Tx) XInfoGroups(db int, key []byte) ([]GroupInfo, bool, error) {
	ss, err := tx.openStream(db, key)
	if err != nil || !ss.Exists {
		return nil, false, err
	}
	g, err := tx.groups(ss)
	return g, true, err
}

// ConsumerInfo is a consumer as XINFO reports it.
type ConsumerInfo struct {
	Name []byte
	encoding.StreamConsumer
}

// XInfoConsumers lists group's consumers by name; ErrNoSuchKey for an
// absent key, ErrNoGroup for an absent group.
func (tx *Tx) XInfoConsumers(db int, key, group []byte) ([]ConsumerInfo, error) {
	ss, err := tx.openStream(db, key)
	if err != nil {
		return nil, err
	}
	if !ss.Exists {
		return nil, ErrNoSuchKey
	}
	gs, err := tx.openGroup(ss, group)
	if err != nil {
		return nil, err
	}
	if gs == nil {
		return nil, ErrNoGroup
	}
	return tx.consumers(ss, group)
}

func (tx *Tx) consumers(ss *streamState, group []byte) ([]ConsumerInfo, error) {
	var out []ConsumerInfo
	cp := encoding.AppendStreamConsumersPrefix(nil, ss.Prefix(encoding.FamilySub), group)
	err := tx.eachConsumer(cp, func(name []byte, c encoding.StreamConsumer) {
		out = append(out, ConsumerInfo{Name: bytes.Clone(name), StreamConsumer: c})
	})
	return out, err
}

// FullPending is a pending entry in XINFO STREAM FULL.
type FullPending struct {
	ID       StreamID
	Consumer []byte
	encoding.StreamPending
}

// FullGroup is a group in XINFO STREAM FULL: its pending entries and its
// consumers with theirs, at most count of each list when count > 0.
type FullGroup struct {
	GroupInfo
	Pending   []FullPending
	Consumers []FullConsumer
}

// FullConsumer is a consumer in XINFO STREAM FULL.
type FullConsumer struct {
	ConsumerInfo
	Pending []FullPending
}

// XInfoStreamFull is XINFO STREAM FULL: the stream, its first count
// entries (all when count is 0) and every group in full.
func (tx *Tx) XInfoStreamFull(db int, key []byte, count int64) (info StreamInfo, entries []StreamEntry, groups []FullGroup, ok bool, err error) {
	if info, ok, err = tx.XInfoStream(db, key); err != nil || !ok {
		return info, nil, nil, ok, err
	}
	ss, err := tx.openStream(db, key)
	if err != nil {
		return info, nil, nil, false, err
	}
	if entries, err = tx.streamRange(ss, StreamID{}, encoding.MaxStreamID, count, false); err != nil {
		return info, nil, nil, false, err
	}
	for _, g := range info.Groups {
		fg := FullGroup{GroupInfo: g}
		gs := &groupState{name: g.Name}
		read := func(id StreamID, v []byte) (bool, error) {
			p, err := encoding.DecodeStreamPending(bytes.Clone(v))
			if err != nil {
				return false, err
			}
			fg.Pending = append(fg.Pending, FullPending{ID: id, Consumer: p.Consumer, StreamPending: p})
			return true, nil
		}
		p := encoding.AppendStreamPELPrefix(nil, ss.Prefix(encoding.FamilySub), g.Name)
		if _, err := tx.scanIDs(p, StreamID{}, encoding.MaxStreamID, count, read); err != nil {
			return info, nil, nil, false, err
		}
		cs, err := tx.consumers(ss, g.Name)
		if err != nil {
			return info, nil, nil, false, err
		}
		for _, c := range cs {
			fc := FullConsumer{ConsumerInfo: c}
			ids, err := tx.consumerPending(ss, g.Name, c.Name, StreamID{}, encoding.MaxStreamID, count)
			if err != nil {
				return info, nil, nil, false, err
			}
			for _, id := range ids {
				pe, found, err := tx.pendingEntry(ss, gs, id)
				if err != nil {
					return info, nil, nil, false, err
				}
				if found {
					fc.Pending = append(fc.Pending, FullPending{ID: id, Consumer: c.Name, StreamPending: pe})
				}
			}
			fg.Consumers = append(fg.Consumers, fc)
		}
		groups = append(groups, fg)
	}
	return info, entries, groups, true, nil
}
