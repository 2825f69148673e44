package rdb

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"sort"
	"strconv"
)

// DumpVersion is the RDB version DUMP writes: Redis 7.0's, so that any
// Redis 7 restores the payload. The value types DUMP uses all exist in it,
// except hashes with field deadlines, which only Redis 7.4's format holds:
// their payloads carry FieldTTLVersion.
const DumpVersion = 10

// FieldTTLVersion is Redis 7.4's RDB version, the first with hash field
// deadlines, and the newest a DUMP payload may have.
const FieldTTLVersion = 12

// MaxFieldDeadline is the largest hash field deadline (ms) the format
// holds (Redis's EB_EXPIRE_TIME_MAX).
const MaxFieldDeadline = 1<<48 - 1

// Value types (src/rdb.h). Part of the format: never renumber.
const (
	TypeString              = 0
	TypeList                = 1
	TypeSet                 = 2
	TypeZSet                = 3
	TypeHash                = 4
	TypeZSet2               = 5
	TypeHashZipmap          = 9
	TypeListZiplist         = 10
	TypeSetIntset           = 11
	TypeZSetZiplist         = 12
	TypeHashZiplist         = 13
	TypeListQuicklist       = 14
	TypeHashListpack        = 16
	TypeZSetListpack        = 17
	TypeListQuicklist2      = 18
	TypeSetListpack         = 20
	TypeHashMetadataPreGA   = 22
	TypeHashListpackExPreGA = 23
	TypeHashMetadata        = 24
	TypeHashListpackEx      = 25
	quicklistNodePlain      = 1
	quicklistNodePacked     = 2
)

// Kind is the Redis data type of a decoded value.
type Kind uint8

// Kinds of values.
const (
	KindString Kind = iota
	KindList
	KindSet
	KindZSet
	KindHash
	KindStream
)

// ScoredMember is a sorted set's member and score.
type ScoredMember struct {
	Member []byte
	Score  float64
}

// Object is a key's value, decoded from or to be encoded into a DUMP
// payload. Only the field of its Kind is used.
type Object struct {
	Kind Kind
	// String is a string's value.
	String []byte
	// Items are a list's elements in order or a set's members.
	Items [][]byte
	// Pairs alternate a hash's fields and values.
	Pairs [][]byte
	// FieldDeadlines, when not nil, holds each hash field's absolute
	// deadline in ms (0 for none), in the order of Pairs.
	FieldDeadlines []int64
	// ZSet is a sorted set's members.
	ZSet []ScoredMember
	// Stream is a stream's entries, counters and consumer groups.
	Stream *Stream
}

// Canonicalize puts what has no order in o (a set's members, a sorted
// set's members, a hash's fields with their values and deadlines) in byte
// order, so that two Objects holding the same value compare equal.
func (o *Object) Canonicalize() {
	less := func(a, b []byte) bool { return bytes.Compare(a, b) < 0 }
	switch o.Kind {
	case KindSet:
		sort.Slice(o.Items, func(i, j int) bool { return less(o.Items[i], o.Items[j]) })
	case KindZSet:
		sort.Slice(o.ZSet, func(i, j int) bool { return less(o.ZSet[i].Member, o.ZSet[j].Member) })
	case KindHash:
		type field struct {
			f, v     []byte
			deadline int64
		}
		fs := make([]field, 0, len(o.Pairs)/2)
		for i := 0; i+1 < len(o.Pairs); i += 2 {
			f := field{f: o.Pairs[i], v: o.Pairs[i+1]}
			if o.FieldDeadlines != nil {
				f.deadline = o.FieldDeadlines[i/2]
			}
			fs = append(fs, f)
		}
		sort.Slice(fs, func(i, j int) bool { return less(fs[i].f, fs[j].f) })
		o.Pairs = o.Pairs[:0]
		for i, f := range fs {
			o.Pairs = append(o.Pairs, f.f, f.v)
			if o.FieldDeadlines != nil {
				o.FieldDeadlines[i] = f.deadline
			}
		}
	case KindStream:
		// Entries are in id order already; groups, consumers and pending
		// entries are in Redis's (radix tree) order.
		gs := o.Stream.Groups
		sort.Slice(gs, func(i, j int) bool { return less(gs[i].Name, gs[j].Name) })
		for k := range gs {
			cs, ps := gs[k].Consumers, gs[k].Pending
			sort.Slice(cs, func(i, j int) bool { return less(cs[i].Name, cs[j].Name) })
			sort.Slice(ps, func(i, j int) bool { return ps[i].ID.compare(ps[j].ID) < 0 })
		}
	}
}

// Clone returns a deep copy of o, which shares no memory with it (the
// values DecodeValue and ReadFile return alias their input).
func (o Object) Clone() Object {
	c, _ := o.cloneSized()
	return c
}

// Size estimates the memory o's strings and slices take, in bytes.
func (o Object) Size() int {
	_, n := o.cloneSized()
	return n
}

func (o Object) cloneSized() (Object, int) {
	size := 0
	cl := func(b []byte) []byte {
		size += len(b) + 24
		if b == nil {
			return nil
		}
		return append(make([]byte, 0, len(b)), b...)
	}
	all := func(in [][]byte) [][]byte {
		if in == nil {
			return nil
		}
		out := make([][]byte, len(in))
		for i, b := range in {
			out[i] = cl(b)
		}
		return out
	}
	out := Object{Kind: o.Kind, String: cl(o.String), Items: all(o.Items), Pairs: all(o.Pairs)}
	if o.FieldDeadlines != nil {
		out.FieldDeadlines = append([]int64(nil), o.FieldDeadlines...)
		size += 8 * len(o.FieldDeadlines)
	}
	if o.ZSet != nil {
		out.ZSet = make([]ScoredMember, len(o.ZSet))
		for i, m := range o.ZSet {
			out.ZSet[i] = ScoredMember{Member: cl(m.Member), Score: m.Score}
		}
		size += 8 * len(o.ZSet)
	}
	if o.Stream != nil {
		out.Stream = o.Stream.clone(cl)
		size += 40 * len(o.Stream.Entries)
	}
	return out, size
}

// ErrUnsupportedType reports a value type this package does not decode
// (modules).
var ErrUnsupportedType = errors.New("rdb: unsupported value type")

// AppendValue appends o's DUMP payload: its type byte, its value, and the
// trailer of DumpVersion. It uses only encodings Redis 7.0 reads.
func AppendValue(dst []byte, o Object) []byte {
	switch o.Kind {
	case KindString:
		dst = append(dst, TypeString)
		dst = AppendString(dst, o.String)
	case KindList:
		dst = append(dst, TypeListQuicklist2)
		dst = appendQuicklist(dst, o.Items)
	case KindSet:
		dst = append(dst, TypeSet)
		dst = appendStrings(dst, o.Items)
	case KindHash:
		if minDeadline, ok := o.minFieldDeadline(); ok {
			dst = appendHashMetadata(dst, o, minDeadline)
			return appendTrailer(dst, FieldTTLVersion)
		}
		dst = append(dst, TypeHash)
		dst = AppendLength(dst, uint64(len(o.Pairs)/2))
		for _, p := range o.Pairs[:len(o.Pairs)/2*2] {
			dst = AppendString(dst, p)
		}
	case KindZSet:
		dst = append(dst, TypeZSet2)
		dst = AppendLength(dst, uint64(len(o.ZSet)))
		// Redis writes a skiplist from its tail; either order loads.
		for _, m := range o.ZSet {
			dst = AppendString(dst, m.Member)
			dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(m.Score))
		}
	case KindStream:
		// Redis 7.0's type: no consumer active times.
		dst = append(dst, TypeStreamListpacks2)
		dst = appendStream(dst, o.Stream, TypeStreamListpacks2)
	}
	return appendTrailer(dst, DumpVersion)
}

func appendTrailer(dst []byte, version uint16) []byte {
	dst = binary.LittleEndian.AppendUint16(dst, version)
	return binary.LittleEndian.AppendUint64(dst, CRC64(0, dst))
}

// minFieldDeadline is the earliest field deadline of a hash, if any.
func (o *Object) minFieldDeadline() (int64, bool) {
	var m int64
	for _, d := range o.FieldDeadlines {
		if d > 0 && (m == 0 || d < m) {
			m = d
		}
	}
	return m, m > 0
}

// appendHashMetadata writes a hash with field deadlines as Redis 7.4
// does (RDB_TYPE_HASH_METADATA): the earliest deadline (8 bytes LE), the
// field count, then per field its deadline relative to the earliest plus
// one (0 for none), the field and the value.
func appendHashMetadata(dst []byte, o Object, minDeadline int64) []byte {
	dst = append(dst, TypeHashMetadata)
	dst = binary.LittleEndian.AppendUint64(dst, uint64(minDeadline))
	n := len(o.Pairs) / 2
	dst = AppendLength(dst, uint64(n))
	for i := range n {
		var rel uint64
		if i < len(o.FieldDeadlines) && o.FieldDeadlines[i] > 0 {
			rel = uint64(o.FieldDeadlines[i]-minDeadline) + 1
		}
		dst = AppendLength(dst, rel)
		dst = AppendString(dst, o.Pairs[2*i])
		dst = AppendString(dst, o.Pairs[2*i+1])
	}
	return dst
}

func appendStrings(dst []byte, items [][]byte) []byte {
	dst = AppendLength(dst, uint64(len(items)))
	for _, it := range items {
		dst = AppendString(dst, it)
	}
	return dst
}

// Quicklist nodes DUMP writes: listpacks of at most this many entries and
// about this many bytes, like Redis's default list-max-listpack-size (-2,
// 8 KB); an element larger than the limit gets a plain node of its own.
const (
	nodeMaxEntries = 128
	nodeMaxBytes   = 8 << 10
)

func appendQuicklist(dst []byte, items [][]byte) []byte {
	type node struct {
		plain bool
		items [][]byte
	}
	var nodes []node
	size := 0
	for _, it := range items {
		if len(it) >= nodeMaxBytes {
			nodes = append(nodes, node{plain: true, items: [][]byte{it}})
			size = nodeMaxBytes
			continue
		}
		last := len(nodes) - 1
		if last < 0 || nodes[last].plain || len(nodes[last].items) >= nodeMaxEntries || size+len(it) > nodeMaxBytes {
			nodes = append(nodes, node{})
			last++
			size = 0
		}
		nodes[last].items = append(nodes[last].items, it)
		size += len(it) + 11
	}
	dst = AppendLength(dst, uint64(len(nodes)))
	var lp []byte
	for _, n := range nodes {
		if n.plain {
			dst = AppendLength(dst, quicklistNodePlain)
			dst = AppendString(dst, n.items[0])
			continue
		}
		dst = AppendLength(dst, quicklistNodePacked)
		lp = AppendListpack(lp[:0], n.items)
		dst = AppendString(dst, lp)
	}
	return dst
}

// DecodeValue checks a DUMP payload's trailer and decodes its value, in
// any encoding Redis 7.x writes or older versions wrote for the core types.
// An error is ErrBadTrailer (version or checksum), ErrUnsupportedType, or
// wraps ErrCorrupt.
func DecodeValue(payload []byte) (Object, error) {
	body, err := checkTrailer(payload, FieldTTLVersion)
	if err != nil {
		return Object{}, err
	}
	r := NewReader(body)
	t, err := r.Byte()
	if err != nil {
		return Object{}, err
	}
	o, err := r.value(t)
	if err != nil {
		return Object{}, err
	}
	// Bytes after the value are ignored, as Redis's RESTORE does.
	if err := o.check(); err != nil {
		return Object{}, err
	}
	return o, nil
}

// count reads a collection's length, refusing one the remaining bytes
// cannot hold (each element takes at least min bytes).
func (r *Reader) count(min int) (int, error) {
	n, err := r.Length()
	if err != nil {
		return 0, err
	}
	if n > uint64(r.Len()/min) {
		return 0, corrupt("%d elements claimed in %d bytes", n, r.Len())
	}
	return int(n), nil
}

func (r *Reader) strings(n int) ([][]byte, error) {
	out := make([][]byte, 0, n)
	for range n {
		s, err := r.String()
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

func (r *Reader) value(t byte) (Object, error) {
	switch t {
	case TypeString:
		s, err := r.String()
		return Object{Kind: KindString, String: s}, err
	case TypeList, TypeSet:
		n, err := r.count(1)
		if err != nil {
			return Object{}, err
		}
		items, err := r.strings(n)
		kind := KindList
		if t == TypeSet {
			kind = KindSet
		}
		return Object{Kind: kind, Items: items}, err
	case TypeHash:
		n, err := r.count(2)
		if err != nil {
			return Object{}, err
		}
		pairs, err := r.strings(2 * n)
		return Object{Kind: KindHash, Pairs: pairs}, err
	case TypeZSet, TypeZSet2:
		return r.zset(t == TypeZSet2)
	case TypeListQuicklist, TypeListQuicklist2:
		return r.quicklist(t == TypeListQuicklist2)
	case TypeSetIntset, TypeSetListpack, TypeListZiplist, TypeHashZiplist, TypeHashListpack, TypeZSetZiplist, TypeZSetListpack:
		blob, err := r.String()
		if err != nil {
			return Object{}, err
		}
		var entries [][]byte
		switch t {
		case TypeSetIntset:
			entries, err = DecodeIntset(blob)
		case TypeSetListpack, TypeHashListpack, TypeZSetListpack:
			entries, err = DecodeListpack(blob)
		default:
			entries, err = DecodeZiplist(blob)
		}
		if err != nil {
			return Object{}, err
		}
		switch t {
		case TypeSetIntset, TypeSetListpack:
			return Object{Kind: KindSet, Items: entries}, nil
		case TypeListZiplist:
			return Object{Kind: KindList, Items: entries}, nil
		case TypeHashZiplist, TypeHashListpack:
			if len(entries)%2 != 0 {
				return Object{}, corrupt("hash with an odd number of entries")
			}
			return Object{Kind: KindHash, Pairs: entries}, nil
		}
		return zsetFromEntries(entries)
	case TypeHashMetadata, TypeHashMetadataPreGA:
		return r.hashMetadata(t == TypeHashMetadata)
	case TypeHashListpackEx, TypeHashListpackExPreGA:
		if t == TypeHashListpackEx {
			// The earliest deadline, which the entries repeat.
			if _, err := r.take(8); err != nil {
				return Object{}, err
			}
		}
		blob, err := r.String()
		if err != nil {
			return Object{}, err
		}
		entries, err := DecodeListpack(blob)
		if err != nil {
			return Object{}, err
		}
		return hashFromTriples(entries)
	case TypeStreamListpacks, TypeStreamListpacks2, TypeStreamListpacks3:
		return r.stream(t)
	case TypeHashZipmap:
		blob, err := r.String()
		if err != nil {
			return Object{}, err
		}
		pairs, err := DecodeZipmap(blob)
		if err != nil {
			return Object{}, err
		}
		return Object{Kind: KindHash, Pairs: pairs}, nil
	}
	return Object{}, ErrUnsupportedType
}

func (r *Reader) zset(binaryScores bool) (Object, error) {
	n, err := r.count(2)
	if err != nil {
		return Object{}, err
	}
	out := make([]ScoredMember, 0, n)
	for range n {
		m, err := r.String()
		if err != nil {
			return Object{}, err
		}
		var score float64
		if binaryScores {
			p, err := r.take(8)
			if err != nil {
				return Object{}, err
			}
			score = math.Float64frombits(binary.LittleEndian.Uint64(p))
		} else {
			score, err = r.textDouble()
			if err != nil {
				return Object{}, err
			}
		}
		if math.IsNaN(score) {
			return Object{}, corrupt("NaN score")
		}
		out = append(out, ScoredMember{Member: m, Score: score})
	}
	return Object{Kind: KindZSet, ZSet: out}, nil
}

// textDouble reads RDB's old double: a length byte (253 NaN, 254 +inf,
// 255 -inf) and that many bytes of decimal text.
func (r *Reader) textDouble() (float64, error) {
	n, err := r.Byte()
	if err != nil {
		return 0, err
	}
	switch n {
	case 253:
		return math.NaN(), nil
	case 254:
		return math.Inf(1), nil
	case 255:
		return math.Inf(-1), nil
	}
	p, err := r.take(uint64(n))
	if err != nil {
		return 0, err
	}
	f, err := strconv.ParseFloat(string(p), 64)
	if err != nil {
		return 0, corrupt("score %q", p)
	}
	return f, nil
}

func zsetFromEntries(entries [][]byte) (Object, error) {
	if len(entries)%2 != 0 {
		return Object{}, corrupt("sorted set with an odd number of entries")
	}
	out := make([]ScoredMember, 0, len(entries)/2)
	for i := 0; i < len(entries); i += 2 {
		f, err := strconv.ParseFloat(string(entries[i+1]), 64)
		if err != nil || math.IsNaN(f) {
			return Object{}, corrupt("score %q", entries[i+1])
		}
		out = append(out, ScoredMember{Member: entries[i], Score: f})
	}
	return Object{Kind: KindZSet, ZSet: out}, nil
}

func (r *Reader) quicklist(v2 bool) (Object, error) {
	n, err := r.count(2)
	if err != nil {
		return Object{}, err
	}
	var items [][]byte
	for range n {
		container := uint64(quicklistNodePacked)
		if v2 {
			if container, err = r.Length(); err != nil {
				return Object{}, err
			}
		}
		blob, err := r.String()
		if err != nil {
			return Object{}, err
		}
		var entries [][]byte
		switch {
		case container == quicklistNodePlain:
			entries = [][]byte{blob}
		case container != quicklistNodePacked:
			return Object{}, corrupt("quicklist node container %d", container)
		case v2:
			entries, err = DecodeListpack(blob)
		default:
			entries, err = DecodeZiplist(blob)
		}
		if err != nil {
			return Object{}, err
		}
		// Redis skips empty nodes.
		items = append(items, entries...)
	}
	return Object{Kind: KindList, Items: items}, nil
}

// check refuses what Redis refuses on load: empty collections and
// duplicate set members, hash fields or sorted set members.
func (o *Object) check() error {
	var keys [][]byte
	switch o.Kind {
	case KindString, KindStream:
		// A stream may be empty; its decoder checks the rest.
		return nil
	case KindList:
		if len(o.Items) == 0 {
			return corrupt("empty list")
		}
		return nil
	case KindSet:
		keys = o.Items
	case KindHash:
		for i := 0; i < len(o.Pairs); i += 2 {
			keys = append(keys, o.Pairs[i])
		}
	case KindZSet:
		for _, m := range o.ZSet {
			keys = append(keys, m.Member)
		}
	}
	if len(keys) == 0 {
		return corrupt("empty collection")
	}
	seen := make(map[string]struct{}, len(keys))
	for _, k := range keys {
		if _, dup := seen[string(k)]; dup {
			return corrupt("duplicate member %q", k)
		}
		seen[string(k)] = struct{}{}
	}
	return nil
}

// hashMetadata reads Redis 7.4's hash with field deadlines; the release
// candidates' form (pre-GA) has no earliest deadline and absolute ones.
func (r *Reader) hashMetadata(relative bool) (Object, error) {
	var minDeadline uint64
	if relative {
		p, err := r.take(8)
		if err != nil {
			return Object{}, err
		}
		minDeadline = binary.LittleEndian.Uint64(p)
		if minDeadline > MaxFieldDeadline+1 {
			return Object{}, corrupt("hash earliest field deadline %d", minDeadline)
		}
	}
	n, err := r.count(3)
	if err != nil {
		return Object{}, err
	}
	o := Object{Kind: KindHash, Pairs: make([][]byte, 0, 2*n), FieldDeadlines: make([]int64, 0, n)}
	for range n {
		ttl, err := r.Length()
		if err != nil {
			return Object{}, err
		}
		if ttl > MaxFieldDeadline+1 {
			return Object{}, corrupt("hash field deadline %d", ttl)
		}
		deadline := ttl
		if relative && ttl != 0 {
			deadline = ttl + minDeadline - 1 // both bounded: no overflow
		}
		if deadline > MaxFieldDeadline {
			return Object{}, corrupt("hash field deadline %d", deadline)
		}
		pair, err := r.strings(2)
		if err != nil {
			return Object{}, err
		}
		o.Pairs = append(o.Pairs, pair...)
		o.FieldDeadlines = append(o.FieldDeadlines, int64(deadline))
	}
	o.dropNoDeadlines()
	return o, nil
}

// hashFromTriples reads a listpack of field, value, deadline (an integer,
// 0 for none), as Redis 7.4 keeps a small hash with field deadlines.
func hashFromTriples(entries [][]byte) (Object, error) {
	if len(entries)%3 != 0 {
		return Object{}, corrupt("hash listpack of %d entries, not triples", len(entries))
	}
	o := Object{Kind: KindHash, Pairs: make([][]byte, 0, len(entries)/3*2), FieldDeadlines: make([]int64, 0, len(entries)/3)}
	for i := 0; i < len(entries); i += 3 {
		d, err := strconv.ParseInt(string(entries[i+2]), 10, 64)
		if err != nil || d < 0 || d > MaxFieldDeadline {
			return Object{}, corrupt("hash field deadline %q", entries[i+2])
		}
		o.Pairs = append(o.Pairs, entries[i], entries[i+1])
		o.FieldDeadlines = append(o.FieldDeadlines, d)
	}
	o.dropNoDeadlines()
	return o, nil
}

// dropNoDeadlines clears FieldDeadlines when no field has one.
func (o *Object) dropNoDeadlines() {
	if _, ok := o.minFieldDeadline(); !ok {
		o.FieldDeadlines = nil
	}
}
