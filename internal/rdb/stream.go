package rdb

import (
	"bytes"
	"encoding/binary"
)

// Streams (RDB_TYPE_STREAM_LISTPACKS, _2 of Redis 7.0, _3 of Redis 7.2):
//
//	nodes (len) | nodes × (master id: string of 16 B, big-endian ms, seq | listpack: string)
//	length | last id (ms, seq)
//	[_2, _3] first id (ms, seq) | max deleted id (ms, seq) | entries added
//	groups (len) | groups × group
//
// all numbers in RDB's length encoding. A group is its name (string), its
// last delivered id (ms, seq), [_2, _3] its entries-read counter (-1 as a
// 64-bit length when unknown), its pending entries list — a count, then per
// entry the raw 16-byte id, the delivery time (8 B little-endian ms) and
// the delivery count — and its consumers: a count, then per consumer its
// name, seen time (8 B LE), [_3] active time (8 B LE), and the raw ids of
// the pending entries it owns.
//
// A node's listpack starts with the master entry: live count, deleted
// count, the number of master fields, the fields, 0. Each entry follows:
// flags (1 deleted, 2 same fields as the master), ms and seq as differences
// from the master id (wrapping 64-bit), then either the number of fields
// and the fields and values interleaved or, with flag 2, the values alone,
// and last the number of listpack elements the entry took (lp-count).

// Stream value types (src/rdb.h). Part of the format: never renumber.
const (
	TypeStreamListpacks  = 15
	TypeStreamListpacks2 = 19
	TypeStreamListpacks3 = 21
)

// Stream entry flags inside a node's listpack.
const (
	streamFlagDeleted    = 1
	streamFlagSameFields = 2
)

// Node limits DUMP writes with, Redis's defaults of stream-node-max-bytes
// and stream-node-max-entries.
const (
	streamNodeMaxBytes   = 4096
	streamNodeMaxEntries = 100
)

// StreamID is a stream entry id.
type StreamID struct{ Ms, Seq uint64 }

func (id StreamID) compare(o StreamID) int {
	switch {
	case id.Ms != o.Ms:
		if id.Ms < o.Ms {
			return -1
		}
		return 1
	case id.Seq < o.Seq:
		return -1
	case id.Seq > o.Seq:
		return 1
	}
	return 0
}

func appendRawID(dst []byte, id StreamID) []byte {
	dst = binary.BigEndian.AppendUint64(dst, id.Ms)
	return binary.BigEndian.AppendUint64(dst, id.Seq)
}

func rawID(p []byte) StreamID {
	return StreamID{binary.BigEndian.Uint64(p), binary.BigEndian.Uint64(p[8:])}
}

// StreamEntry is a stream entry: its id and its fields and values,
// alternating.
type StreamEntry struct {
	ID     StreamID
	Fields [][]byte
}

// Stream is a stream's value. Entries hold the live entries in id order;
// the counters are Redis's (XINFO STREAM's).
type Stream struct {
	Entries                       []StreamEntry
	LastID, FirstID, MaxDeletedID StreamID
	EntriesAdded                  uint64
	Groups                        []StreamGroup
}

// StreamGroup is a consumer group. Every pending entry names one of the
// group's consumers as its owner.
type StreamGroup struct {
	Name   []byte
	LastID StreamID
	// EntriesRead is -1 when unknown.
	EntriesRead int64
	Pending     []StreamPending
	Consumers   []StreamConsumer
}

// StreamPending is an entry of a group's pending entries list.
type StreamPending struct {
	ID         StreamID
	DeliveryMs int64
	Count      uint64
	Consumer   []byte
}

// StreamConsumer is a consumer of a group. ActiveMs is -1 when it never
// read an entry; a payload of Redis 7.0's type has no active time, and
// Redis 7.2 then takes the seen time for it, as DecodeValue does.
type StreamConsumer struct {
	Name             []byte
	SeenMs, ActiveMs int64
}

// appendStream writes s in the layout of type t (one of the stream types).
func appendStream(dst []byte, s *Stream, t byte) []byte {
	nodes := streamNodes(s.Entries)
	dst = AppendLength(dst, uint64(len(nodes)))
	var lp []byte
	for _, n := range nodes {
		master := s.Entries[n.from].ID
		dst = AppendString(dst, appendRawID(nil, master))
		lp = appendStreamNode(lp[:0], s.Entries[n.from:n.to])
		dst = AppendString(dst, lp)
	}
	dst = AppendLength(dst, uint64(len(s.Entries)))
	dst = AppendLength(dst, s.LastID.Ms)
	dst = AppendLength(dst, s.LastID.Seq)
	if t >= TypeStreamListpacks2 {
		dst = AppendLength(dst, s.FirstID.Ms)
		dst = AppendLength(dst, s.FirstID.Seq)
		dst = AppendLength(dst, s.MaxDeletedID.Ms)
		dst = AppendLength(dst, s.MaxDeletedID.Seq)
		dst = AppendLength(dst, s.EntriesAdded)
	}
	dst = AppendLength(dst, uint64(len(s.Groups)))
	for i := range s.Groups {
		g := &s.Groups[i]
		dst = AppendString(dst, g.Name)
		dst = AppendLength(dst, g.LastID.Ms)
		dst = AppendLength(dst, g.LastID.Seq)
		if t >= TypeStreamListpacks2 {
			dst = AppendLength(dst, uint64(g.EntriesRead))
		}
		dst = AppendLength(dst, uint64(len(g.Pending)))
		owned := make(map[string][]StreamID, len(g.Consumers))
		for _, p := range g.Pending {
			dst = appendRawID(dst, p.ID)
			dst = binary.LittleEndian.AppendUint64(dst, uint64(p.DeliveryMs))
			dst = AppendLength(dst, p.Count)
			owned[string(p.Consumer)] = append(owned[string(p.Consumer)], p.ID)
		}
		dst = AppendLength(dst, uint64(len(g.Consumers)))
		for _, c := range g.Consumers {
			dst = AppendString(dst, c.Name)
			dst = binary.LittleEndian.AppendUint64(dst, uint64(c.SeenMs))
			if t >= TypeStreamListpacks3 {
				dst = binary.LittleEndian.AppendUint64(dst, uint64(c.ActiveMs))
			}
			ids := owned[string(c.Name)]
			dst = AppendLength(dst, uint64(len(ids)))
			for _, id := range ids {
				dst = appendRawID(dst, id)
			}
		}
	}
	return dst
}

// streamNodes splits entries into nodes as Redis's XADD fills them: a new
// node when the current one holds streamNodeMaxEntries entries or the next
// entry's strings would take it to streamNodeMaxBytes.
func streamNodes(entries []StreamEntry) []struct{ from, to int } {
	var nodes []struct{ from, to int }
	size := 0
	for i, e := range entries {
		strs := 0
		for _, f := range e.Fields {
			strs += len(f)
		}
		last := len(nodes) - 1
		if last < 0 || i-nodes[last].from >= streamNodeMaxEntries || size+strs >= streamNodeMaxBytes {
			nodes = append(nodes, struct{ from, to int }{i, i})
			last++
			// The header and the master entry's fields.
			size = 7 + 4
			for j := 0; j < len(e.Fields); j += 2 {
				size += len(e.Fields[j]) + 3
			}
		}
		nodes[last].to = i + 1
		// Each string's encoding and back-length, and four small integers.
		size += strs + 3*len(e.Fields) + 8
	}
	return nodes
}

// appendStreamNode appends a node's listpack: the master entry, with the
// first entry's fields, then the entries, delta-encoded from the first.
func appendStreamNode(dst []byte, entries []StreamEntry) []byte {
	master := entries[0]
	nf := len(master.Fields) / 2
	lb := startListpack(dst)
	lb.int(int64(len(entries)))
	lb.int(0) // deleted
	lb.int(int64(nf))
	for j := range nf {
		lb.str(master.Fields[2*j])
	}
	lb.int(0)
	for _, e := range entries {
		n := len(e.Fields) / 2
		same := n == nf
		for j := 0; same && j < n; j++ {
			same = bytes.Equal(e.Fields[2*j], master.Fields[2*j])
		}
		flags := int64(0)
		if same {
			flags = streamFlagSameFields
		}
		lb.int(flags)
		lb.int(int64(e.ID.Ms - master.ID.Ms))
		lb.int(int64(e.ID.Seq - master.ID.Seq))
		if same {
			for j := range n {
				lb.str(e.Fields[2*j+1])
			}
			lb.int(int64(n + 3))
			continue
		}
		lb.int(int64(n))
		for _, f := range e.Fields[:2*n] {
			lb.str(f)
		}
		lb.int(int64(2*n + 4))
	}
	return lb.finish()
}

// stream reads a stream of type t.
func (r *Reader) stream(t byte) (Object, error) {
	// A node takes at least a 17-byte key and an 8-byte listpack.
	nodes, err := r.count(25)
	if err != nil {
		return Object{}, err
	}
	s := &Stream{}
	var prevKey []byte
	for range nodes {
		key, err := r.String()
		if err != nil {
			return Object{}, err
		}
		if len(key) != 16 {
			return Object{}, corrupt("stream node key of %d bytes", len(key))
		}
		if prevKey != nil && bytes.Compare(key, prevKey) <= 0 {
			return Object{}, corrupt("stream node keys out of order")
		}
		prevKey = key
		lp, err := r.String()
		if err != nil {
			return Object{}, err
		}
		if err := s.readNode(rawID(key), lp); err != nil {
			return Object{}, err
		}
	}
	nums := 3
	if t >= TypeStreamListpacks2 {
		nums += 5
	}
	var n [8]uint64
	for i := range nums {
		if n[i], err = r.Length(); err != nil {
			return Object{}, err
		}
	}
	length := n[0]
	s.LastID = StreamID{n[1], n[2]}
	if t >= TypeStreamListpacks2 {
		s.FirstID = StreamID{n[3], n[4]}
		s.MaxDeletedID = StreamID{n[5], n[6]}
		s.EntriesAdded = n[7]
	} else {
		// What Redis 7 takes for a stream of Redis 5 or 6.
		s.EntriesAdded = length
		if len(s.Entries) > 0 {
			s.FirstID = s.Entries[0].ID
		}
	}
	switch {
	case length != uint64(len(s.Entries)):
		return Object{}, corrupt("stream length %d, %d entries", length, len(s.Entries))
	case len(s.Entries) > 0 && s.Entries[len(s.Entries)-1].ID.compare(s.LastID) > 0:
		return Object{}, corrupt("stream entry after the last id")
	case s.EntriesAdded < length:
		return Object{}, corrupt("stream of %d entries with %d added", length, s.EntriesAdded)
	}
	minGroup := 5
	if t >= TypeStreamListpacks2 {
		minGroup++
	}
	groups, err := r.count(minGroup)
	if err != nil {
		return Object{}, err
	}
	names := make(map[string]bool, groups)
	for range groups {
		g, err := r.streamGroup(t, s)
		if err != nil {
			return Object{}, err
		}
		if names[string(g.Name)] {
			return Object{}, corrupt("duplicate consumer group %q", g.Name)
		}
		names[string(g.Name)] = true
		s.Groups = append(s.Groups, g)
	}
	return Object{Kind: KindStream, Stream: s}, nil
}

// readNode appends the live entries of a node's listpack to s.
func (s *Stream) readNode(master StreamID, lp []byte) error {
	es, err := listpackEntries(lp)
	if err != nil {
		return err
	}
	if len(es) == 0 {
		return corrupt("empty listpack in a stream")
	}
	i := 0
	next := func() (lpEntry, error) {
		if i >= len(es) {
			return lpEntry{}, corrupt("stream listpack cut short")
		}
		i++
		return es[i-1], nil
	}
	// count reads a non-negative integer of at most the entries left.
	count := func() (int, error) {
		e, err := next()
		if err != nil {
			return 0, err
		}
		v, ok := e.int()
		if !ok || v < 0 || v > int64(len(es)) {
			return 0, corrupt("stream listpack count %q", e.bytes())
		}
		return int(v), nil
	}
	integer := func() (int64, error) {
		e, err := next()
		if err != nil {
			return 0, err
		}
		v, ok := e.int()
		if !ok {
			return 0, corrupt("stream listpack integer %q", e.bytes())
		}
		return v, nil
	}
	live, err := count()
	if err != nil {
		return err
	}
	deleted, err := count()
	if err != nil {
		return err
	}
	nf, err := count()
	if err != nil {
		return err
	}
	if i+nf > len(es) {
		return corrupt("stream master entry cut short")
	}
	masterFields := es[i : i+nf]
	i += nf
	if z, err := integer(); err != nil || z != 0 {
		return corrupt("stream master entry without its terminator")
	}
	for range live + deleted {
		flags, err := integer()
		if err != nil {
			return err
		}
		msd, err := integer()
		if err != nil {
			return err
		}
		seqd, err := integer()
		if err != nil {
			return err
		}
		n, strs := nf, nf
		same := flags&streamFlagSameFields != 0
		if !same {
			if n, err = count(); err != nil {
				return err
			}
			strs = 2 * n
		}
		if i+strs > len(es) {
			return corrupt("stream entry cut short")
		}
		vals := es[i : i+strs]
		i += strs
		lpCount, err := integer()
		if err != nil {
			return err
		}
		if want := int64(strs + 3); (same && lpCount != want) || (!same && lpCount != want+1) {
			return corrupt("stream entry lp-count %d", lpCount)
		}
		if flags&streamFlagDeleted != 0 {
			continue
		}
		id := StreamID{master.Ms + uint64(msd), master.Seq + uint64(seqd)}
		if k := len(s.Entries); k > 0 && id.compare(s.Entries[k-1].ID) <= 0 {
			return corrupt("stream entry %d-%d out of order", id.Ms, id.Seq)
		}
		fields := make([][]byte, 0, 2*n)
		for j := range n {
			if same {
				fields = append(fields, masterFields[j].bytes(), vals[j].bytes())
			} else {
				fields = append(fields, vals[2*j].bytes(), vals[2*j+1].bytes())
			}
		}
		s.Entries = append(s.Entries, StreamEntry{ID: id, Fields: fields})
	}
	if i != len(es) {
		return corrupt("stream listpack with %d elements after its entries", len(es)-i)
	}
	return nil
}

// id reads an id as two lengths.
func (r *Reader) id() (StreamID, error) {
	ms, err := r.Length()
	if err != nil {
		return StreamID{}, err
	}
	seq, err := r.Length()
	return StreamID{ms, seq}, err
}

func (r *Reader) millis() (int64, error) {
	p, err := r.take(8)
	if err != nil {
		return 0, err
	}
	return int64(binary.LittleEndian.Uint64(p)), nil
}

// streamGroup reads a consumer group of a stream of type t, s holding
// what was read of the stream before the groups.
func (r *Reader) streamGroup(t byte, s *Stream) (StreamGroup, error) {
	var g StreamGroup
	var err error
	if g.Name, err = r.String(); err != nil {
		return g, err
	}
	if g.LastID, err = r.id(); err != nil {
		return g, err
	}
	if t >= TypeStreamListpacks2 {
		n, err := r.Length()
		if err != nil {
			return g, err
		}
		g.EntriesRead = int64(n)
	} else {
		g.EntriesRead = s.estimateEntriesRead(g.LastID)
	}
	pel, err := r.count(16 + 8 + 1)
	if err != nil {
		return g, err
	}
	if pel > 0 {
		g.Pending = make([]StreamPending, 0, pel)
	}
	index := make(map[StreamID]int, pel)
	for range pel {
		p, err := r.take(16)
		if err != nil {
			return g, err
		}
		pe := StreamPending{ID: rawID(p)}
		if pe.DeliveryMs, err = r.millis(); err != nil {
			return g, err
		}
		if pe.Count, err = r.Length(); err != nil {
			return g, err
		}
		if _, dup := index[pe.ID]; dup {
			return g, corrupt("duplicate pending entry %d-%d in group %q", pe.ID.Ms, pe.ID.Seq, g.Name)
		}
		index[pe.ID] = len(g.Pending)
		g.Pending = append(g.Pending, pe)
	}
	minConsumer := 1 + 8 + 1
	if t >= TypeStreamListpacks3 {
		minConsumer += 8
	}
	consumers, err := r.count(minConsumer)
	if err != nil {
		return g, err
	}
	if consumers > 0 {
		g.Consumers = make([]StreamConsumer, 0, consumers)
	}
	names := make(map[string]bool, consumers)
	for range consumers {
		var c StreamConsumer
		if c.Name, err = r.String(); err != nil {
			return g, err
		}
		if names[string(c.Name)] {
			return g, corrupt("duplicate consumer %q in group %q", c.Name, g.Name)
		}
		names[string(c.Name)] = true
		if c.SeenMs, err = r.millis(); err != nil {
			return g, err
		}
		c.ActiveMs = c.SeenMs
		if t >= TypeStreamListpacks3 {
			if c.ActiveMs, err = r.millis(); err != nil {
				return g, err
			}
		}
		owned, err := r.count(16)
		if err != nil {
			return g, err
		}
		for range owned {
			p, err := r.take(16)
			if err != nil {
				return g, err
			}
			k, ok := index[rawID(p)]
			switch {
			case !ok:
				return g, corrupt("consumer %q owns an entry not pending in group %q", c.Name, g.Name)
			case g.Pending[k].Consumer != nil:
				return g, corrupt("pending entry owned twice in group %q", g.Name)
			}
			g.Pending[k].Consumer = c.Name
		}
		g.Consumers = append(g.Consumers, c)
	}
	for _, p := range g.Pending {
		if p.Consumer == nil {
			return g, corrupt("pending entry without a consumer in group %q", g.Name)
		}
	}
	return g, nil
}

// estimateEntriesRead is the entries-read counter Redis gives a group of a
// stream of Redis 5 or 6 (streamEstimateDistanceFromFirstEverEntry), in
// which nothing was deleted and every entry added is still there.
func (s *Stream) estimateEntriesRead(id StreamID) int64 {
	length := uint64(len(s.Entries))
	switch {
	case s.EntriesAdded == 0:
		return 0
	case length == 0 && id.compare(s.LastID) <= 0:
		return int64(s.EntriesAdded)
	}
	switch c := id.compare(s.LastID); {
	case c == 0:
		return int64(s.EntriesAdded)
	case c > 0:
		return -1
	}
	switch id.compare(s.FirstID) {
	case -1:
		return int64(s.EntriesAdded - length)
	case 0:
		return int64(s.EntriesAdded - length + 1)
	}
	return -1
}

// clone deep-copies s.
func (s *Stream) clone(cl func([]byte) []byte) *Stream {
	out := *s
	out.Entries, out.Groups = nil, nil
	if s.Entries != nil {
		out.Entries = make([]StreamEntry, len(s.Entries))
	}
	for i, e := range s.Entries {
		f := make([][]byte, len(e.Fields))
		for j, b := range e.Fields {
			f[j] = cl(b)
		}
		out.Entries[i] = StreamEntry{ID: e.ID, Fields: f}
	}
	if s.Groups != nil {
		out.Groups = make([]StreamGroup, len(s.Groups))
	}
	for i, g := range s.Groups {
		g.Name = cl(g.Name)
		g.Pending = append([]StreamPending(nil), g.Pending...)
		for j := range g.Pending {
			g.Pending[j].Consumer = cl(g.Pending[j].Consumer)
		}
		g.Consumers = append([]StreamConsumer(nil), g.Consumers...)
		for j := range g.Consumers {
			g.Consumers[j].Name = cl(g.Consumers[j].Name)
		}
		out.Groups[i] = g
	}
	return &out
}
