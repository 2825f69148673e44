package encoding

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
)

// StreamID is a stream entry id: milliseconds and a sequence number, both
// unsigned 64-bit, ordered by (Ms, Seq).
type StreamID struct{ Ms, Seq uint64 }

// MaxStreamID is the largest id, "+" in a range.
var MaxStreamID = StreamID{math.MaxUint64, math.MaxUint64}

// Compare returns -1, 0 or +1 as id is before, equal to or after o.
func (id StreamID) Compare(o StreamID) int {
	switch {
	case id.Ms < o.Ms:
		return -1
	case id.Ms > o.Ms:
		return 1
	case id.Seq < o.Seq:
		return -1
	case id.Seq > o.Seq:
		return 1
	}
	return 0
}

// IsZero reports whether id is 0-0.
func (id StreamID) IsZero() bool { return id.Ms == 0 && id.Seq == 0 }

// Next returns the id right after id; ok is false for MaxStreamID.
func (id StreamID) Next() (StreamID, bool) {
	switch {
	case id.Seq != math.MaxUint64:
		return StreamID{id.Ms, id.Seq + 1}, true
	case id.Ms != math.MaxUint64:
		return StreamID{id.Ms + 1, 0}, true
	}
	return id, false
}

// Prev returns the id right before id; ok is false for 0-0.
func (id StreamID) Prev() (StreamID, bool) {
	switch {
	case id.Seq != 0:
		return StreamID{id.Ms, id.Seq - 1}, true
	case id.Ms != 0:
		return StreamID{id.Ms - 1, math.MaxUint64}, true
	}
	return id, false
}

// AppendText appends the id as Redis writes it, "ms-seq".
func (id StreamID) AppendText(dst []byte) []byte {
	dst = strconv.AppendUint(dst, id.Ms, 10)
	dst = append(dst, '-')
	return strconv.AppendUint(dst, id.Seq, 10)
}

// String is the id as Redis writes it.
func (id StreamID) String() string { return string(id.AppendText(nil)) }

// AppendStreamID appends the 16-byte order-preserving form of id.
func AppendStreamID(dst []byte, id StreamID) []byte {
	dst = binary.BigEndian.AppendUint64(dst, id.Ms)
	return binary.BigEndian.AppendUint64(dst, id.Seq)
}

// DecodeStreamID decodes AppendStreamID's form from the start of b.
func DecodeStreamID(b []byte) (StreamID, error) {
	if len(b) < 16 {
		return StreamID{}, fmt.Errorf("%w: stream id of %d bytes", ErrCorrupt, len(b))
	}
	return StreamID{binary.BigEndian.Uint64(b), binary.BigEndian.Uint64(b[8:])}, nil
}

// StreamMeta is a stream's type-specific metadata (the tail of its
// metadata record, 88 bytes; 64 in the first layout, without next-index,
// and 72 in the second, without the last two fields):
//
//	last-id 16 B | first-id 16 B | max-deleted-id 16 B | entries-added u64 | groups u64 | next-index u64 |
//	first-index+1 u64 | node-start-max u64
//
// LastID is the last id generated (XADD, XSETID); FirstID the id of the
// current first entry (0-0 when empty); MaxDeletedID the largest id XDEL
// removed; EntriesAdded the count of every entry ever added; Groups the
// number of consumer groups; NextIndex the insertion index the next entry
// gets (see AppendStreamEntryIndexed). Meta.Size is the number of entries.
//
// NextIndex is not EntriesAdded: XSETID ENTRIESADDED may lower that
// counter, and insertion indexes must only grow.
//
// FirstIndex is the first entry's insertion index when FirstIndexKnown
// (stored plus one, 0 for unknown: no entry, an entry without an index,
// or a tail of an older layout); NodeStartMax the largest index of a
// node-start record, 0 for none. With both an approximate trim that
// removes nothing reads nothing (the store's nodeTrim).
type StreamMeta struct {
	LastID, FirstID, MaxDeletedID StreamID
	EntriesAdded                  uint64
	Groups                        uint64
	NextIndex                     uint64
	FirstIndex                    uint64
	FirstIndexKnown               bool
	NodeStartMax                  uint64
}

// streamMetaLen is the length of a stream tail; the length is its layout
// version (streamMetaLenV0 before insertion indexes, streamMetaLenV1
// before the first index and the node-start max). Part of the file
// format.
const (
	streamMetaLen   = 88
	streamMetaLenV1 = 72
	streamMetaLenV0 = 64
)

// AppendStreamMeta appends the stream tail of a metadata record.
func AppendStreamMeta(dst []byte, s StreamMeta) []byte {
	dst = AppendStreamID(dst, s.LastID)
	dst = AppendStreamID(dst, s.FirstID)
	dst = AppendStreamID(dst, s.MaxDeletedID)
	dst = binary.BigEndian.AppendUint64(dst, s.EntriesAdded)
	dst = binary.BigEndian.AppendUint64(dst, s.Groups)
	dst = binary.BigEndian.AppendUint64(dst, s.NextIndex)
	first := uint64(0)
	if s.FirstIndexKnown {
		first = s.FirstIndex + 1
	}
	dst = binary.BigEndian.AppendUint64(dst, first)
	return binary.BigEndian.AppendUint64(dst, s.NodeStartMax)
}

// DecodeStreamMeta decodes Meta.Value of a stream.
func DecodeStreamMeta(b []byte) (StreamMeta, error) {
	if len(b) != streamMetaLen && len(b) != streamMetaLenV1 && len(b) != streamMetaLenV0 {
		return StreamMeta{}, fmt.Errorf("%w: stream metadata tail of %d bytes", ErrCorrupt, len(b))
	}
	var s StreamMeta
	s.LastID, _ = DecodeStreamID(b)
	s.FirstID, _ = DecodeStreamID(b[16:])
	s.MaxDeletedID, _ = DecodeStreamID(b[32:])
	s.EntriesAdded = binary.BigEndian.Uint64(b[48:])
	s.Groups = binary.BigEndian.Uint64(b[56:])
	if len(b) >= streamMetaLenV1 {
		s.NextIndex = binary.BigEndian.Uint64(b[64:])
	}
	if len(b) == streamMetaLen {
		if f := binary.BigEndian.Uint64(b[72:]); f > 0 {
			s.FirstIndex, s.FirstIndexKnown = f-1, true
		}
		s.NodeStartMax = binary.BigEndian.Uint64(b[80:])
	}
	return s, nil
}

// The record kinds of a stream's sub-keys (family 0x02), the byte right
// after the version prefix. Part of the file format.
const (
	// StreamEntryTag: prefix | 0x00 | id 16 B → field/value pairs.
	StreamEntryTag byte = 0x00
	// StreamGroupTag: prefix | 0x01 | group → StreamGroup.
	StreamGroupTag byte = 0x01
	// StreamConsumerTag: prefix | 0x02 | len(group) u32 | group | consumer
	// → StreamConsumer.
	StreamConsumerTag byte = 0x02
	// StreamPELTag: prefix | 0x03 | len(group) u32 | group | id 16 B →
	// StreamPending (the group's pending entries list).
	StreamPELTag byte = 0x03
	// StreamConsumerPELTag: prefix | 0x04 | len(group) u32 | group |
	// len(consumer) u32 | consumer | id 16 B → (empty): the same pending
	// entries by consumer.
	StreamConsumerPELTag byte = 0x04
	// StreamDeletedTag: prefix | 0x05 | id 16 B → (empty): an entry XDEL
	// removed, so that a trim can count the entries before its cut from
	// their insertion indexes (Tx.trimStream).
	StreamDeletedTag byte = 0x05
	// StreamNodeStartTag: prefix | 0x06 | index u64 → (empty): Redis
	// would start a new radix-tree node at this insertion index, off the
	// run of whole nodes before it, because XDEL emptied the node that
	// was last (Tx.nodeStart).
	StreamNodeStartTag byte = 0x06
)

// AppendStreamNodeStartKey appends the sub-key recording that a node
// starts at insertion index i.
func AppendStreamNodeStartKey(dst, prefix []byte, i uint64) []byte {
	dst = append(dst, prefix...)
	dst = append(dst, StreamNodeStartTag)
	return binary.BigEndian.AppendUint64(dst, i)
}

// DecodeStreamNodeStartKey returns the index of a node-start sub-key
// under a prefix of length p.
func DecodeStreamNodeStartKey(k []byte, p int) (uint64, error) {
	if len(k) != p+9 || k[p] != StreamNodeStartTag {
		return 0, fmt.Errorf("%w: stream node-start key of %d bytes", ErrCorrupt, len(k))
	}
	return binary.BigEndian.Uint64(k[p+1:]), nil
}

// AppendStreamDeletedKey appends the sub-key recording that XDEL removed
// entry id.
func AppendStreamDeletedKey(dst, prefix []byte, id StreamID) []byte {
	dst = append(dst, prefix...)
	dst = append(dst, StreamDeletedTag)
	return AppendStreamID(dst, id)
}

// AppendStreamEntryKey appends the sub-key of entry id under prefix.
func AppendStreamEntryKey(dst, prefix []byte, id StreamID) []byte {
	dst = append(dst, prefix...)
	dst = append(dst, StreamEntryTag)
	return AppendStreamID(dst, id)
}

// DecodeStreamEntryKey returns the id of an entry sub-key under a prefix
// of length p.
func DecodeStreamEntryKey(k []byte, p int) (StreamID, error) {
	if len(k) != p+17 || k[p] != StreamEntryTag {
		return StreamID{}, fmt.Errorf("%w: stream entry key of %d bytes", ErrCorrupt, len(k))
	}
	return DecodeStreamID(k[p+1:])
}

// AppendStreamEntry appends an entry's value: the pair count u32, then
// every field and value as len u32 | bytes.
func AppendStreamEntry(dst []byte, fields [][]byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(fields)/2))
	for _, f := range fields {
		dst = binary.BigEndian.AppendUint32(dst, uint32(len(f)))
		dst = append(dst, f...)
	}
	return dst
}

// streamIndexed is the u32 that starts an entry value with an insertion
// index. A value without one starts with its pair count, which can never
// be this: that many pairs would take at least 32 GiB.
const streamIndexed = ^uint32(0)

// AppendStreamEntryIndexed appends an entry's value with its insertion
// index: 0xffffffff u32 | index u64, then the value AppendStreamEntry
// writes. Indexes grow with the ids, one per entry added, so the number
// of entries added between two is the difference of their indexes.
func AppendStreamEntryIndexed(dst []byte, index uint64, fields [][]byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, streamIndexed)
	dst = binary.BigEndian.AppendUint64(dst, index)
	return AppendStreamEntry(dst, fields)
}

// StreamEntryIndex returns the insertion index of an entry value; ok is
// false for a value written without one.
func StreamEntryIndex(b []byte) (index uint64, ok bool) {
	if len(b) < 12 || binary.BigEndian.Uint32(b) != streamIndexed {
		return 0, false
	}
	return binary.BigEndian.Uint64(b[4:]), true
}

// DecodeStreamEntry splits an entry's value, with or without an insertion
// index, into fields and values, alternating; they alias b.
func DecodeStreamEntry(b []byte) ([][]byte, error) {
	if len(b) >= 4 && binary.BigEndian.Uint32(b) == streamIndexed {
		if len(b) < 12 {
			return nil, fmt.Errorf("%w: indexed stream entry of %d bytes", ErrCorrupt, len(b))
		}
		b = b[12:]
	}
	if len(b) < 4 {
		return nil, fmt.Errorf("%w: stream entry of %d bytes", ErrCorrupt, len(b))
	}
	n := uint64(binary.BigEndian.Uint32(b)) * 2
	if n > uint64(len(b)) {
		return nil, fmt.Errorf("%w: stream entry of %d bytes claims %d strings", ErrCorrupt, len(b), n)
	}
	out := make([][]byte, 0, n)
	b = b[4:]
	for range n {
		if len(b) < 4 {
			return nil, fmt.Errorf("%w: stream entry cut short", ErrCorrupt)
		}
		l := binary.BigEndian.Uint32(b)
		if uint64(l) > uint64(len(b)-4) {
			return nil, fmt.Errorf("%w: stream entry string of %d bytes cut short", ErrCorrupt, l)
		}
		out = append(out, b[4:4+l:4+l])
		b = b[4+l:]
	}
	if len(b) != 0 {
		return nil, fmt.Errorf("%w: stream entry with %d trailing bytes", ErrCorrupt, len(b))
	}
	return out, nil
}

// --- Consumer groups -----------------------------------------------------

// StreamGroup is a consumer group's record (56 bytes):
//
//	last-delivered-id 16 B | entries-read i64 | pending u64 | consumers u64 | pel-max-id 16 B
//
// EntriesRead is -1 when unknown (Redis's SCG_INVALID_ENTRIES_READ).
// PELMax is an upper bound of every id ever put in the group's pending
// list, so that delivering a newer entry needs no lookup of its pending
// record. Records of 40 bytes, written before the field existed, decode
// with PELMax at its largest value, which keeps every lookup.
type StreamGroup struct {
	LastID      StreamID
	EntriesRead int64
	Pending     uint64
	Consumers   uint64
	PELMax      StreamID
}

// AppendStreamGroup appends a group record.
func AppendStreamGroup(dst []byte, g StreamGroup) []byte {
	dst = AppendStreamID(dst, g.LastID)
	dst = binary.BigEndian.AppendUint64(dst, uint64(g.EntriesRead))
	dst = binary.BigEndian.AppendUint64(dst, g.Pending)
	dst = binary.BigEndian.AppendUint64(dst, g.Consumers)
	return AppendStreamID(dst, g.PELMax)
}

// DecodeStreamGroup decodes a group record.
func DecodeStreamGroup(b []byte) (StreamGroup, error) {
	if len(b) != 40 && len(b) != 56 {
		return StreamGroup{}, fmt.Errorf("%w: stream group of %d bytes", ErrCorrupt, len(b))
	}
	id, _ := DecodeStreamID(b)
	g := StreamGroup{
		LastID:      id,
		EntriesRead: int64(binary.BigEndian.Uint64(b[16:])),
		Pending:     binary.BigEndian.Uint64(b[24:]),
		Consumers:   binary.BigEndian.Uint64(b[32:]),
		PELMax:      MaxStreamID,
	}
	if len(b) == 56 {
		g.PELMax, _ = DecodeStreamID(b[40:])
	}
	return g, nil
}

// StreamConsumer is a consumer's record (24 bytes):
//
//	seen-ms i64 | active-ms i64 | pending u64
//
// ActiveMs is -1 until the consumer is first delivered an entry.
type StreamConsumer struct {
	SeenMs, ActiveMs int64
	Pending          uint64
}

// AppendStreamConsumer appends a consumer record.
func AppendStreamConsumer(dst []byte, c StreamConsumer) []byte {
	dst = binary.BigEndian.AppendUint64(dst, uint64(c.SeenMs))
	dst = binary.BigEndian.AppendUint64(dst, uint64(c.ActiveMs))
	return binary.BigEndian.AppendUint64(dst, c.Pending)
}

// DecodeStreamConsumer decodes a consumer record.
func DecodeStreamConsumer(b []byte) (StreamConsumer, error) {
	if len(b) != 24 {
		return StreamConsumer{}, fmt.Errorf("%w: stream consumer of %d bytes", ErrCorrupt, len(b))
	}
	return StreamConsumer{
		SeenMs:   int64(binary.BigEndian.Uint64(b)),
		ActiveMs: int64(binary.BigEndian.Uint64(b[8:])),
		Pending:  binary.BigEndian.Uint64(b[16:]),
	}, nil
}

// StreamPending is a pending entry's record in its group's list:
//
//	delivery-ms i64 | delivery-count u64 | consumer
type StreamPending struct {
	DeliveryMs int64
	Count      uint64
	Consumer   []byte
}

// AppendStreamPending appends a pending entry record.
func AppendStreamPending(dst []byte, p StreamPending) []byte {
	dst = binary.BigEndian.AppendUint64(dst, uint64(p.DeliveryMs))
	dst = binary.BigEndian.AppendUint64(dst, p.Count)
	return append(dst, p.Consumer...)
}

// DecodeStreamPending decodes a pending entry record; Consumer aliases b.
func DecodeStreamPending(b []byte) (StreamPending, error) {
	if len(b) < 16 {
		return StreamPending{}, fmt.Errorf("%w: stream pending entry of %d bytes", ErrCorrupt, len(b))
	}
	return StreamPending{
		DeliveryMs: int64(binary.BigEndian.Uint64(b)),
		Count:      binary.BigEndian.Uint64(b[8:]),
		Consumer:   b[16:],
	}, nil
}

// AppendStreamGroupKey appends the key of group's record.
func AppendStreamGroupKey(dst, prefix, group []byte) []byte {
	dst = append(dst, prefix...)
	dst = append(dst, StreamGroupTag)
	return append(dst, group...)
}

// appendGroupScoped appends prefix | tag | len(group) | group.
func appendGroupScoped(dst, prefix []byte, tag byte, group []byte) []byte {
	dst = append(dst, prefix...)
	dst = append(dst, tag)
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(group)))
	return append(dst, group...)
}

// AppendStreamConsumersPrefix appends the prefix of group's consumer
// records; a consumer's key is it followed by the consumer's name.
func AppendStreamConsumersPrefix(dst, prefix, group []byte) []byte {
	return appendGroupScoped(dst, prefix, StreamConsumerTag, group)
}

// AppendStreamPELPrefix appends the prefix of group's pending entries; an
// entry's key is it followed by the entry's id.
func AppendStreamPELPrefix(dst, prefix, group []byte) []byte {
	return appendGroupScoped(dst, prefix, StreamPELTag, group)
}

// AppendStreamConsumerPELPrefix appends the prefix of one consumer's
// pending entries; an entry's key is it followed by the entry's id.
func AppendStreamConsumerPELPrefix(dst, prefix, group, consumer []byte) []byte {
	dst = appendGroupScoped(dst, prefix, StreamConsumerPELTag, group)
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(consumer)))
	return append(dst, consumer...)
}

// StreamGroupScopes returns the prefixes under which every
// record of group but its own lies: its consumers, its pending entries and
// its consumers' pending entries.
func StreamGroupScopes(prefix, group []byte) [3][]byte {
	return [3][]byte{
		AppendStreamConsumersPrefix(nil, prefix, group),
		AppendStreamPELPrefix(nil, prefix, group),
		appendGroupScoped(nil, prefix, StreamConsumerPELTag, group),
	}
}
