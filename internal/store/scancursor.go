package store

import (
	"bytes"
	"encoding/binary"

	"github.com/cairndb/cairn/internal/engine"
)

// The collection scans (HSCAN, SSCAN, ZSCAN) share one stateless cursor: a
// position in the byte order of the collection's members. Every member
// starts with the common prefix P of the smallest and largest members, and
// a cursor names the next member M as
//
//	s << 56 | the 7 bytes of M after its first s bytes (zero-padded)
//
// where s = min(len(P), maxScanPrefix). The per-type comments on HScan,
// SScan and ZScan say how each resumes from it.

// maxScanPrefix is the longest common prefix a cursor can name: its length
// takes the cursor's top byte.
const maxScanPrefix = 255

// commonPrefixLen returns the length of the longest common prefix of a and b.
func commonPrefixLen(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// scanPos is the 7 bytes of m after its first cp bytes, zero-padded: the
// low 56 bits of the cursor that resumes at m.
func scanPos(m []byte, cp int) uint64 {
	var b [8]byte
	copy(b[1:], m[cp:])
	return binary.BigEndian.Uint64(b[:])
}

// scanCursor returns the cursor that resumes at member m, and the seek key
// (after the collection's key prefix) it stands for, appended to dst. cp is
// the length of the common prefix of the collection's members, at most
// maxScanPrefix.
func scanCursor(dst, m []byte, cp int) (uint64, []byte) {
	var b [8]byte
	b[0] = byte(cp)
	copy(b[1:], m[cp:])
	k := append(dst, m[:cp]...)
	k = append(k, bytes.TrimRight(b[1:], "\x00")...)
	return binary.BigEndian.Uint64(b[:]), k
}

// scanResume returns the seek key (after the collection's key prefix) that
// cursor stands for, given the collection's current smallest member first
// and the length cp of its members' common prefix: nil for cursor 0. It
// returns false when the cursor's prefix is longer than cp (the common
// prefix has shrunk since the cursor was made, so its first bytes are
// unknown).
func scanResume(first []byte, cp int, cursor uint64) ([]byte, bool) {
	if cursor == 0 {
		return nil, true
	}
	s := int(cursor >> 56)
	if s > cp {
		return nil, false
	}
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], cursor)
	return append(first[:s:s], bytes.TrimRight(b[1:], "\x00")...), true
}

// scanMembers walks it, an iterator over the sub-keys under prefix p of a
// collection (a hash's fields or a sorted set's members), from cursor on,
// calling emit at each sub-key it visits, and returns the cursor to continue
// with (0 when done). It visits count sub-keys, then goes on to the first
// one whose seek key is past the one it started from, so every call moves
// forward; sub-keys between a seek key and the member it names come again
// (duplicates are allowed). If the members' common prefix has become shorter
// than the cursor's, the walk restarts from the first member: duplicates,
// never a miss. empty is true when the collection has no sub-keys.
func scanMembers(it engine.Iterator, p []byte, cursor uint64, count int, emit func() error) (next uint64, empty bool, err error) {
	if !it.First() {
		return 0, true, it.Error()
	}
	first := bytes.Clone(it.Key()[len(p):])
	if !it.Last() {
		return 0, true, it.Error()
	}
	cp := min(commonPrefixLen(first, it.Key()[len(p):]), maxScanPrefix)
	start, ok := scanResume(first, cp, cursor)
	if !ok {
		start = first[:cp]
	}
	seek := append(bytes.Clone(p), start...)
	visited := 0
	var key []byte
	for ok := it.SeekGE(seek); ok; ok = it.Next() {
		if visited >= count {
			c, k := scanCursor(key[:0], it.Key()[len(p):], cp)
			if bytes.Compare(k, start) > 0 {
				return c, false, nil
			}
			key = k
		}
		visited++
		if err := emit(); err != nil {
			return 0, false, err
		}
	}
	return 0, false, it.Error()
}

// stableReader returns a reader whose reads all see one state: the Tx's
// own when it already is one (a batch under the keys' locks, or a
// snapshot), else a new snapshot that done releases.
func (tx *Tx) stableReader() (engine.Reader, func()) {
	if tx.b != nil || tx.snap != nil {
		return tx.r, func() {}
	}
	snap := tx.s.eng.NewSnapshot()
	return snap, func() { _ = snap.Close() }
}
