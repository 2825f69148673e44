package encoding

import (
	"encoding/binary"
	"fmt"
)

// FragShift is log2 of the fragment size new fragmented strings get: 1 KiB
// as in Kvrocks's bitmaps. A SETBIT at a random offset of a large bitmap
// rewrites one fragment, so the size is the write amplification of every
// bit command; a whole-string read costs one record per fragment. Measured
// on this machine (docs/encoding.md): 1 KiB keeps random SETBIT at the
// speed of a small SET while GET of a 1 MiB string still streams.
const FragShift = 10

// FragmentThreshold is the length above which a string is held in
// fragments rather than inline in its metadata record. Below it a string
// is one point read (GET) and one record write; above it SETBIT,
// SETRANGE and APPEND write only the fragments they touch. 16 KiB keeps
// every dense HyperLogLog (12 KiB) and ordinary values inline.
const FragmentThreshold = 16 << 10

// AppendFragmentKey appends the sub-key of fragment i of a fragmented
// string under prefix (AppendSubKeyPrefix of FamilySub and its version):
// the index big-endian, so fragments sort in the order of their bytes.
func AppendFragmentKey(dst, prefix []byte, i uint64) []byte {
	dst = append(dst, prefix...)
	return binary.BigEndian.AppendUint64(dst, i)
}

// DecodeFragmentIndex returns the fragment index of a sub-key whose prefix
// (of len prefixLen) is already known.
func DecodeFragmentIndex(k []byte, prefixLen int) (uint64, error) {
	if len(k) != prefixLen+8 {
		return 0, fmt.Errorf("%w: fragment key of %d bytes after a %d-byte prefix", ErrCorrupt, len(k), prefixLen)
	}
	return binary.BigEndian.Uint64(k[prefixLen:]), nil
}
