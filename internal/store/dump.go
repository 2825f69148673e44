package store

import (
	"fmt"

	"github.com/cairndb/cairn/internal/encoding"
	"github.com/cairndb/cairn/internal/rdb"
)

// Value is a whole key's value, as DUMP reads it and RESTORE writes it.
// Only the field of its Type is used. A new type joins DUMP, RESTORE, SAVE
// and the RDB import by adding its field here, its case to ReadValue and
// WriteValue, and its conversion to ObjectOf and ValueOf: this file is the
// one place where the store meets package rdb.
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
	// Stream is a stream's entries, counters and consumer groups.
	Stream *rdb.Stream
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
	case encoding.TypeStream:
		v.Stream, err = tx.readStream(db, key)
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
	case encoding.TypeStream:
		err = tx.writeStream(db, key, v.Stream)
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

// readStream reads a whole stream: its entries, counters, groups with
// their pending entries, and consumers.
func (tx *Tx) readStream(db int, key []byte) (*rdb.Stream, error) {
	ss, err := tx.openStream(db, key)
	if err != nil {
		return nil, err
	}
	entries, err := tx.streamRange(ss, StreamID{}, encoding.MaxStreamID, 0, false)
	if err != nil {
		return nil, err
	}
	s := &rdb.Stream{LastID: rdb.StreamID(ss.s.LastID), FirstID: rdb.StreamID(ss.s.FirstID),
		MaxDeletedID: rdb.StreamID(ss.s.MaxDeletedID), EntriesAdded: ss.s.EntriesAdded}
	if len(entries) > 0 {
		s.Entries = make([]rdb.StreamEntry, len(entries))
		for i, e := range entries {
			s.Entries[i] = rdb.StreamEntry{ID: rdb.StreamID(e.ID), Fields: e.Fields}
		}
	}
	groups, err := tx.groups(ss)
	if err != nil {
		return nil, err
	}
	for _, g := range groups {
		rg := rdb.StreamGroup{Name: g.Name, LastID: rdb.StreamID(g.LastID), EntriesRead: g.EntriesRead}
		p := encoding.AppendStreamPELPrefix(nil, ss.Prefix(encoding.FamilySub), g.Name)
		_, err := tx.scanIDs(p, StreamID{}, encoding.MaxStreamID, 0, func(id StreamID, v []byte) (bool, error) {
			pe, err := encoding.DecodeStreamPending(append([]byte(nil), v...))
			if err != nil {
				return false, fmt.Errorf("stream %q group %q: %w", key, g.Name, err)
			}
			rg.Pending = append(rg.Pending, rdb.StreamPending{ID: rdb.StreamID(id), DeliveryMs: pe.DeliveryMs, Count: pe.Count, Consumer: pe.Consumer})
			return false, nil
		})
		if err != nil {
			return nil, err
		}
		cs, err := tx.consumers(ss, g.Name)
		if err != nil {
			return nil, err
		}
		for _, c := range cs {
			rg.Consumers = append(rg.Consumers, rdb.StreamConsumer{Name: c.Name, SeenMs: c.SeenMs, ActiveMs: c.ActiveMs})
		}
		s.Groups = append(s.Groups, rg)
	}
	return s, nil
}

// writeStream creates key as stream s, with the records of its entries,
// groups, consumers and pending entries and the counts they keep.
func (tx *Tx) writeStream(db int, key []byte, s *rdb.Stream) error {
	if s == nil {
		return fmt.Errorf("store: stream value of key %q without its stream", key)
	}
	ss, err := tx.openStream(db, key)
	if err != nil {
		return err
	}
	if err := tx.create(&ss.collection); err != nil {
		return err
	}
	for i, e := range s.Entries {
		if i > 0 && StreamID(e.ID).Compare(StreamID(s.Entries[i-1].ID)) <= 0 {
			return fmt.Errorf("store: stream %q: entry %d-%d out of order", key, e.ID.Ms, e.ID.Seq)
		}
		if err := tx.set(&ss.collection, ss.entryKey(StreamID(e.ID)), encoding.AppendStreamEntryIndexed(nil, uint64(i), e.Fields)); err != nil {
			return err
		}
	}
	ss.Meta.Size = uint64(len(s.Entries))
	ss.s = encoding.StreamMeta{LastID: StreamID(s.LastID), MaxDeletedID: StreamID(s.MaxDeletedID),
		EntriesAdded: s.EntriesAdded, Groups: uint64(len(s.Groups)), NextIndex: uint64(len(s.Entries))}
	if len(s.Entries) > 0 {
		// The first entry's id, whatever the payload recorded: the store
		// keeps it exact (Redis 5's format had none).
		ss.s.FirstID = StreamID(s.Entries[0].ID)
		ss.s.FirstIndexKnown = true
	}
	// The counts kept in the records must be exact: duplicates would
	// break them, so they are refused (the decoder refuses them too).
	groups := make(map[string]bool, len(s.Groups))
	for _, g := range s.Groups {
		if groups[string(g.Name)] {
			return fmt.Errorf("store: stream %q: group %q twice", key, g.Name)
		}
		groups[string(g.Name)] = true
		owned := make(map[string]uint64, len(g.Consumers))
		for _, c := range g.Consumers {
			if _, dup := owned[string(c.Name)]; dup {
				return fmt.Errorf("store: stream %q group %q: consumer %q twice", key, g.Name, c.Name)
			}
			owned[string(c.Name)] = 0
		}
		pending := make(map[rdb.StreamID]bool, len(g.Pending))
		var pelMax StreamID
		for _, p := range g.Pending {
			n, ok := owned[string(p.Consumer)]
			if !ok {
				return fmt.Errorf("store: stream %q group %q: pending entry of %q, who is no consumer", key, g.Name, p.Consumer)
			}
			if pending[p.ID] {
				return fmt.Errorf("store: stream %q group %q: entry %d-%d pending twice", key, g.Name, p.ID.Ms, p.ID.Seq)
			}
			pending[p.ID] = true
			owned[string(p.Consumer)] = n + 1
			id := StreamID(p.ID)
			if id.Compare(pelMax) > 0 {
				pelMax = id
			}
			rec := encoding.AppendStreamPending(nil, encoding.StreamPending{DeliveryMs: p.DeliveryMs, Count: p.Count, Consumer: p.Consumer})
			if err := tx.set(&ss.collection, ss.pelKey(g.Name, id), rec); err != nil {
				return err
			}
			if err := tx.set(&ss.collection, ss.consumerPELKey(g.Name, p.Consumer, id), nil); err != nil {
				return err
			}
		}
		for _, c := range g.Consumers {
			rec := encoding.AppendStreamConsumer(nil, encoding.StreamConsumer{SeenMs: c.SeenMs, ActiveMs: c.ActiveMs, Pending: owned[string(c.Name)]})
			if err := tx.set(&ss.collection, ss.consumerKey(g.Name, c.Name), rec); err != nil {
				return err
			}
		}
		rec := encoding.AppendStreamGroup(nil, encoding.StreamGroup{LastID: StreamID(g.LastID), EntriesRead: g.EntriesRead,
			Pending: uint64(len(g.Pending)), Consumers: uint64(len(g.Consumers)), PELMax: pelMax})
		if err := tx.set(&ss.collection, ss.groupKey(g.Name), rec); err != nil {
			return err
		}
	}
	return tx.saveStream(ss)
}

// ObjectOf is v in package rdb's form, for DUMP and SAVE; the two share
// memory.
func ObjectOf(v Value) rdb.Object {
	switch v.Type {
	case encoding.TypeList:
		return rdb.Object{Kind: rdb.KindList, Items: v.Items}
	case encoding.TypeSet:
		return rdb.Object{Kind: rdb.KindSet, Items: v.Items}
	case encoding.TypeZSet:
		z := make([]rdb.ScoredMember, len(v.ZSet))
		for i, m := range v.ZSet {
			z[i] = rdb.ScoredMember{Member: m.Member, Score: m.Score}
		}
		return rdb.Object{Kind: rdb.KindZSet, ZSet: z}
	case encoding.TypeHash:
		pairs := make([][]byte, 0, 2*len(v.Hash))
		for _, e := range v.Hash {
			pairs = append(pairs, e.Field, e.Value)
		}
		return rdb.Object{Kind: rdb.KindHash, Pairs: pairs, FieldDeadlines: v.FieldDeadlines}
	case encoding.TypeStream:
		return rdb.Object{Kind: rdb.KindStream, Stream: v.Stream}
	}
	return rdb.Object{Kind: rdb.KindString, String: v.String}
}

// ValueOf is a decoded value in the store's form, for RESTORE and the RDB
// import; the two share memory.
func ValueOf(o rdb.Object) Value {
	switch o.Kind {
	case rdb.KindList:
		return Value{Type: encoding.TypeList, Items: o.Items}
	case rdb.KindSet:
		return Value{Type: encoding.TypeSet, Items: o.Items}
	case rdb.KindZSet:
		z := make([]ZMember, len(o.ZSet))
		for i, m := range o.ZSet {
			z[i] = ZMember{Member: m.Member, Score: m.Score}
		}
		return Value{Type: encoding.TypeZSet, ZSet: z}
	case rdb.KindHash:
		h := make([]HashEntry, 0, len(o.Pairs)/2)
		for i := 0; i+1 < len(o.Pairs); i += 2 {
			h = append(h, HashEntry{Field: o.Pairs[i], Value: o.Pairs[i+1]})
		}
		return Value{Type: encoding.TypeHash, Hash: h, FieldDeadlines: o.FieldDeadlines}
	case rdb.KindStream:
		return Value{Type: encoding.TypeStream, Stream: o.Stream}
	}
	return Value{Type: encoding.TypeString, String: o.String}
}
