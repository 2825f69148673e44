package store

import (
	"bytes"
	"errors"
	"slices"

	"github.com/cairndb/cairn/internal/encoding"
	"github.com/cairndb/cairn/internal/engine"
)

// A string longer than encoding.FragmentThreshold lives in fixed-size
// fragments under a version, as Kvrocks keeps bitmaps: fragment i holds
// bytes [i<<shift, (i+1)<<shift), a missing fragment (or the missing tail
// of a short one) reads as zero bytes, and the metadata record holds the
// length. So SETBIT at offset 2^32-1 writes one fragment, GETRANGE and
// SETRANGE cost the fragments of their range, APPEND those of the appended
// bytes, and DEL or an overwrite is one range tombstone. Fragments are
// stored without their trailing zero bytes, and a fragment that becomes
// all zeros is deleted, so a sparse bitmap costs what it holds.

// StringValue is a string key opened for ranged reads and in-place writes
// (the bit commands, SETRANGE, APPEND). Reads see the writes made through
// it; nothing reaches the batch before Save. Not safe for concurrent use.
type StringValue struct {
	tx  *Tx
	db  int
	key []byte
	m   encoding.Meta
	// exists is false for an absent (or expired) key.
	exists bool
	// length is the string's length, with growth not yet saved.
	length int64
	// inline holds the whole value of a string kept in its metadata
	// record (owned); frag is nil then.
	inline []byte
	// frag holds fragments of a fragmented string read or written so
	// far, by index; dirty ones are full-size buffers.
	frag  map[uint64][]byte
	dirty map[uint64]bool
	// shift is log2 of the fragment size (0 while inline).
	shift uint8
	// convert says the string moves from inline to fragments at Save:
	// it needs a new version.
	convert bool
	changed bool
	// pfx is the fragments' sub-key prefix for version pfxVersion, and
	// kbuf a fragment key, both reused from read to read.
	pfx        []byte
	pfxVersion uint64
	kbuf       []byte
}

// OpenString opens key as a string: an absent key is an empty string
// (Exists false), a key of another type ErrWrongType. counted says whether
// the lookup counts as a keyspace hit or miss (Redis's lookupKeyRead), not
// (lookupKeyWrite).
func (tx *Tx) OpenString(db int, key []byte, counted bool) (*StringValue, error) {
	m, ok, err := tx.fragmentMeta(db, key)
	if err != nil {
		return nil, err
	}
	if counted {
		if ok {
			tx.s.stats.KeyspaceHits.Add(1)
		} else {
			tx.s.stats.KeyspaceMisses.Add(1)
		}
	}
	if ok && m.Type != encoding.TypeString {
		return nil, ErrWrongType
	}
	sv := &StringValue{tx: tx, db: db, key: key, exists: ok}
	if !ok {
		sv.m = encoding.Meta{Type: encoding.TypeString}
		return sv, nil
	}
	sv.m = m
	if m.Fragmented() {
		sv.m.Value = nil
		sv.length = int64(m.Size)
		sv.shift = m.FragShift
		sv.frag = make(map[uint64][]byte)
		return sv, nil
	}
	sv.inline = bytes.Clone(m.Value)
	sv.m.Value = nil
	sv.length = int64(len(sv.inline))
	return sv, nil
}

// Exists reports whether the key existed when opened.
func (sv *StringValue) Exists() bool { return sv.exists }

// Len is the string's length in bytes.
func (sv *StringValue) Len() int64 { return sv.length }

// fragmented reports whether the value is (or becomes) fragmented.
func (sv *StringValue) fragmented() bool { return sv.frag != nil }

func (sv *StringValue) fragSize() int64 { return 1 << sv.shift }

// prefix is the sub-key prefix of the fragments of version v.
func (sv *StringValue) prefix(v uint64) []byte {
	if sv.pfx == nil || sv.pfxVersion != v {
		sv.pfx = encoding.AppendSubKeyPrefix(sv.pfx[:0], encoding.FamilySub, sv.tx.s.phys(sv.db), sv.key, v)
		sv.pfxVersion = v
	}
	return sv.pfx
}

// fragment returns fragment i as stored (possibly short or nil), from the
// cache or the engine.
func (sv *StringValue) fragment(i uint64) ([]byte, error) {
	if f, ok := sv.frag[i]; ok {
		return f, nil
	}
	if !sv.inEngine() {
		return nil, nil
	}
	sv.kbuf = encoding.AppendFragmentKey(sv.kbuf[:0], sv.prefix(sv.m.Version), i)
	// Read into a buffer with room for the whole fragment, which a write
	// then fills in place.
	f, err := sv.tx.r.Get(sv.kbuf, make([]byte, 0, sv.fragSize()))
	if errors.Is(err, engine.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	sv.frag[i] = f
	return f, nil
}

// scanLimit is the number of fragments from which a ranged read iterates
// over the engine rather than reading fragment by fragment.
const scanLimit = 8

// Chunks calls fn with the stored bytes of [from, to] (byte offsets,
// inclusive, within the string), in order: each chunk starts at off, and
// bytes between chunks are zeros. Missing fragments are skipped, so the
// cost is that of the bytes stored. fn returning false stops the walk.
func (sv *StringValue) Chunks(from, to int64, fn func(off int64, b []byte) bool) error {
	to = min(to, sv.length-1)
	if from > to || from < 0 {
		return nil
	}
	if !sv.fragmented() {
		fn(from, sv.inline[from:to+1])
		return nil
	}
	fs := sv.fragSize()
	first, last := uint64(from>>sv.shift), uint64(to>>sv.shift)
	emit := func(i uint64, f []byte) bool {
		base := int64(i) << sv.shift
		lo, hi := max(from-base, 0), min(to-base+1, int64(len(f)), fs)
		if lo >= hi {
			return true
		}
		return fn(base+lo, f[lo:hi])
	}
	if !sv.inEngine() {
		// A new version not saved yet: the cache is the whole value.
		idx := make([]uint64, 0, len(sv.frag))
		for i := range sv.frag {
			if i >= first && i <= last {
				idx = append(idx, i)
			}
		}
		slices.Sort(idx)
		for _, i := range idx {
			if !emit(i, sv.frag[i]) {
				return nil
			}
		}
		return nil
	}
	if last-first >= scanLimit {
		return sv.scanMerged(first, last, emit)
	}
	for i := first; i <= last; i++ {
		f, err := sv.fragment(i)
		if err != nil {
			return err
		}
		if len(f) > 0 && !emit(i, f) {
			return nil
		}
	}
	return nil
}

// inEngine reports whether the fragments of sv's version are in the
// engine (the cache then holds only those read or changed).
func (sv *StringValue) inEngine() bool { return sv.exists && sv.m.Fragmented() && !sv.convert }

// scan iterates the stored fragments first..last of the engine.
func (sv *StringValue) scan(first, last uint64, fn func(i uint64, f []byte) bool) error {
	p := sv.prefix(sv.m.Version)
	lo := encoding.AppendFragmentKey(nil, p, first)
	var hi []byte
	if last == ^uint64(0) {
		hi = encoding.PrefixEnd(p)
	} else {
		hi = encoding.AppendFragmentKey(nil, p, last+1)
	}
	it, err := sv.tx.r.NewIter(lo, hi)
	if err != nil {
		return err
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		i, err := encoding.DecodeFragmentIndex(it.Key(), len(p))
		if err != nil {
			return err
		}
		if !fn(i, it.Value()) {
			return nil
		}
	}
	return it.Error()
}

// scanMerged is scan with the cached (possibly changed) fragments in place
// of the engine's.
func (sv *StringValue) scanMerged(first, last uint64, fn func(i uint64, f []byte) bool) error {
	var idx []uint64
	for i := range sv.frag {
		if i >= first && i <= last {
			idx = append(idx, i)
		}
	}
	slices.Sort(idx)
	stopped := false
	err := sv.scan(first, last, func(i uint64, f []byte) bool {
		for len(idx) > 0 && idx[0] < i {
			if !fn(idx[0], sv.frag[idx[0]]) {
				stopped = true
				return false
			}
			idx = idx[1:]
		}
		if len(idx) > 0 && idx[0] == i {
			idx = idx[1:]
			f = sv.frag[i]
		}
		if !fn(i, f) {
			stopped = true
			return false
		}
		return true
	})
	if err != nil || stopped {
		return err
	}
	for _, i := range idx {
		if !fn(i, sv.frag[i]) {
			break
		}
	}
	return nil
}

// ReadAt fills p with the bytes at off; bytes past the end read as zeros.
func (sv *StringValue) ReadAt(p []byte, off int64) error {
	clear(p)
	if len(p) == 0 {
		return nil
	}
	return sv.Chunks(off, off+int64(len(p))-1, func(at int64, b []byte) bool {
		copy(p[at-off:], b)
		return true
	})
}

// Bytes returns the whole value (a fresh buffer).
func (sv *StringValue) Bytes() ([]byte, error) {
	b := make([]byte, sv.length)
	return b, sv.ReadAt(b, 0)
}

// Grow zero-extends the string to n bytes (no-op when it is longer). The
// caller checks n against proto-max-bulk-len.
func (sv *StringValue) Grow(n int64) {
	if n <= sv.length {
		return
	}
	sv.changed = true
	if !sv.fragmented() && n > encoding.FragmentThreshold {
		sv.toFragments()
	}
	if !sv.fragmented() {
		sv.inline = append(sv.inline, make([]byte, n-sv.length)...)
	}
	sv.length = n
}

// toFragments moves an inline value into dirty fragments of a version to
// be created at Save.
func (sv *StringValue) toFragments() {
	sv.shift = encoding.FragShift
	sv.frag = make(map[uint64][]byte)
	sv.dirty = make(map[uint64]bool)
	sv.convert = true
	fs := sv.fragSize()
	for off := int64(0); off < int64(len(sv.inline)); off += fs {
		chunk := sv.inline[off:min(off+fs, int64(len(sv.inline)))]
		if isZero(chunk) {
			continue
		}
		f := make([]byte, fs)
		copy(f, chunk)
		i := uint64(off >> sv.shift)
		sv.frag[i], sv.dirty[i] = f, true
	}
	sv.inline = nil
}

// WriteAt overwrites len(p) bytes at off, which must lie within Len (Grow
// first).
func (sv *StringValue) WriteAt(p []byte, off int64) error {
	if len(p) == 0 {
		return nil
	}
	sv.changed = true
	if !sv.fragmented() {
		if int64(len(sv.inline)) > encoding.FragmentThreshold {
			// An inline string longer than the threshold (written
			// before strings were fragmented) moves on its first change.
			sv.toFragments()
		} else {
			copy(sv.inline[off:], p)
			return nil
		}
	}
	if sv.dirty == nil {
		sv.dirty = make(map[uint64]bool)
	}
	fs := sv.fragSize()
	for len(p) > 0 {
		i := uint64(off >> sv.shift)
		in := off - int64(i)<<sv.shift
		n := min(int64(len(p)), fs-in)
		if n == fs && !sv.dirty[i] && !isZero(p[:n]) {
			// The write covers the whole fragment: its old bytes do not
			// matter, so they are not read.
			sv.frag[i], sv.dirty[i] = bytes.Clone(p[:n]), true
			p, off = p[n:], off+n
			continue
		}
		f, err := sv.fragment(i)
		if err != nil {
			return err
		}
		if !sv.dirty[i] {
			if f == nil && isZero(p[:n]) {
				// Zeros over a missing fragment change nothing.
				p, off = p[n:], off+n
				continue
			}
			if int64(cap(f)) >= fs {
				n := len(f)
				f = f[:fs]
				clear(f[n:])
			} else {
				full := make([]byte, fs)
				copy(full, f)
				f = full
			}
			sv.frag[i], sv.dirty[i] = f, true
		}
		copy(f[in:], p[:n])
		p, off = p[n:], off+n
	}
	return nil
}

// Save writes the changes, if any, keeping the key's deadline; an inline
// value is stored with representation repr (OBJECT ENCODING). A string
// that grew past the threshold moves to fragments under a new version.
func (sv *StringValue) Save(repr encoding.StringRepr) error {
	if !sv.changed {
		return nil
	}
	tx := sv.tx
	if !sv.fragmented() {
		m := encoding.Meta{Type: encoding.TypeString, ExpireMs: sv.m.ExpireMs, Value: sv.inline, Repr: repr}
		if err := tx.putMeta(sv.db, sv.key, &m); err != nil {
			return err
		}
	} else {
		if err := tx.checkWrite(sv.key); err != nil {
			return err
		}
		if !sv.inEngine() {
			v, err := tx.newVersion()
			if err != nil {
				return err
			}
			sv.m.Version, sv.convert = v, false
		}
		p := sv.prefix(sv.m.Version)
		for i := range sv.dirty {
			f := trimZeros(sv.frag[i])
			// The batch copies the key and the value.
			sv.kbuf = encoding.AppendFragmentKey(sv.kbuf[:0], p, i)
			var err error
			if len(f) == 0 {
				err = tx.b.Delete(sv.kbuf)
			} else {
				err = tx.b.Set(sv.kbuf, f)
			}
			if err != nil {
				return err
			}
			sv.frag[i] = f
		}
		sv.dirty = nil
		old := sv.m
		sv.m.Size, sv.m.FragShift, sv.m.Repr, sv.m.Value = uint64(sv.length), sv.shift, encoding.ReprAuto, nil
		if sv.exists && old.Fragmented() && old.Size == sv.m.Size && old.Version == sv.m.Version {
			// Only fragments changed: the metadata stays, the key is
			// still modified.
			tx.touch(sv.db, sv.key)
		} else if err := tx.putMeta(sv.db, sv.key, &sv.m); err != nil {
			return err
		}
	}
	sv.exists, sv.changed = true, false
	return nil
}

// putString writes a whole string value, inline or (above the threshold)
// in fragments under a new version, replacing whatever the key held.
// All-zero fragments are not written.
func (tx *Tx) putString(db int, key []byte, m *encoding.Meta, value []byte) error {
	if len(value) <= encoding.FragmentThreshold {
		m.Value, m.FragShift, m.Version, m.Size = value, 0, 0, 0
		return tx.putMeta(db, key, m)
	}
	if err := tx.checkWrite(key); err != nil {
		return err
	}
	v, err := tx.newVersion()
	if err != nil {
		return err
	}
	p := encoding.AppendSubKeyPrefix(nil, encoding.FamilySub, tx.s.phys(db), key, v)
	fs := 1 << encoding.FragShift
	k := make([]byte, 0, len(p)+8)
	for off := 0; off < len(value); off += fs {
		f := trimZeros(value[off:min(off+fs, len(value))])
		if len(f) == 0 {
			continue
		}
		k = encoding.AppendFragmentKey(k[:0], p, uint64(off>>encoding.FragShift))
		if err := tx.b.Set(k, f); err != nil {
			return err
		}
	}
	*m = encoding.Meta{Type: encoding.TypeString, ExpireMs: m.ExpireMs, Version: v, Size: uint64(len(value)), FragShift: encoding.FragShift}
	return tx.putMeta(db, key, m)
}

// fragmentMeta is meta for a reader that may go on to read a string's
// fragments: a read-only Tx that finds a fragmented string pins one state
// of the store and reads the metadata again from it, so that the length
// and the fragments it reads agree even if a writer commits meanwhile. An
// inline string (one record) costs no pinning. A writing Tx holds the
// key's lock already.
func (tx *Tx) fragmentMeta(db int, key []byte) (encoding.Meta, bool, error) {
	m, ok, err := tx.meta(db, key)
	if err != nil || !ok || !m.Fragmented() || tx.b != nil || tx.snap != nil {
		return m, ok, err
	}
	tx.pinView()
	return tx.meta(db, key)
}

// stringBytes returns a string's whole value: the inline value (aliasing
// m), or the fragments read into a fresh buffer.
func (tx *Tx) stringBytes(db int, key []byte, m *encoding.Meta) ([]byte, error) {
	if !m.Fragmented() {
		return m.Value, nil
	}
	sv := &StringValue{tx: tx, db: db, key: key, m: *m, exists: true, length: int64(m.Size), shift: m.FragShift, frag: map[uint64][]byte{}}
	return sv.Bytes()
}

func isZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// trimZeros drops trailing zero bytes.
func trimZeros(b []byte) []byte {
	n := len(b)
	for n > 0 && b[n-1] == 0 {
		n--
	}
	return b[:n]
}
