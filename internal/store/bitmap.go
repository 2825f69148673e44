package store

import (
	"slices"

	"github.com/cairndb/cairn/internal/bitops"
	"github.com/cairndb/cairn/internal/encoding"
)

// The bit commands work on strings through StringValue: a bit write reads
// and writes the one fragment holding it, and counts, searches and BITOP
// read only the fragments that exist. The bit logic is package bitops.

// unshare marks an inline value Redis would now hold as a raw buffer: a
// bit command unshares the string it writes (dbUnshareStringValue) even
// when no bit changes, so OBJECT ENCODING says "raw" after it.
func (sv *StringValue) unshare() {
	if sv.exists && !sv.fragmented() && StringEncoding(sv.inline, sv.m.Repr) != "raw" {
		sv.changed = true
	}
}

// SetBit sets (on) or clears bit offset of string key, zero-growing it,
// and returns the bit's previous value and whether the key changed (grew
// or the bit flipped: Redis notifies only then).
func (tx *Tx) SetBit(db int, key []byte, offset uint64, on bool) (old, changed bool, err error) {
	sv, err := tx.OpenString(db, key, false)
	if err != nil {
		return false, false, err
	}
	i := int64(offset >> 3)
	grew := !sv.Exists() || sv.Len() < i+1
	sv.Grow(i + 1)
	var b [1]byte
	if err := sv.ReadAt(b[:], i); err != nil {
		return false, false, err
	}
	mask := byte(0x80) >> (offset & 7)
	old = b[0]&mask != 0
	if grew || old != on {
		b[0] &^= mask
		if on {
			b[0] |= mask
		}
		if err := sv.WriteAt(b[:], i); err != nil {
			return false, false, err
		}
		changed = true
	}
	sv.unshare()
	return old, changed, sv.Save(encoding.ReprRaw)
}

// GetBit returns bit offset of string key (0 past its end or for an absent
// key), counting the lookup as a read.
func (tx *Tx) GetBit(db int, key []byte, offset uint64) (bit, found bool, err error) {
	sv, err := tx.OpenString(db, key, true)
	if err != nil || !sv.Exists() {
		return false, false, err
	}
	var b [1]byte
	if err := sv.ReadAt(b[:], int64(offset>>3)); err != nil {
		return false, true, err
	}
	return b[0]&(0x80>>(offset&7)) != 0, true, nil
}

// BitOp computes op over the string keys srcs (absent keys are empty) and
// stores the result in dest, replacing whatever it held and its deadline;
// an empty result deletes dest. It returns the result's length and, when
// it is empty, whether dest existed. Only blocks where some source holds
// bytes are computed (for every operation but NOT, zeros give zeros), so
// BITOP over sparse bitmaps costs their stored bytes.
func (tx *Tx) BitOp(db int, op bitops.Op, dest []byte, srcs [][]byte) (length int64, deleted bool, err error) {
	const blockShift = encoding.FragShift
	const block = int64(1) << blockShift
	data := make([]map[int64][]byte, len(srcs))
	set := map[int64]bool{}
	for i, k := range srcs {
		sv, err := tx.OpenString(db, k, true)
		if err != nil {
			return 0, false, err
		}
		length = max(length, sv.Len())
		m := map[int64][]byte{}
		err = sv.Chunks(0, sv.Len()-1, func(off int64, b []byte) bool {
			for len(b) > 0 {
				blk := off >> blockShift
				in := off - blk<<blockShift
				n := min(int64(len(b)), block-in)
				buf := m[blk]
				if buf == nil {
					buf = make([]byte, block)
					m[blk] = buf
					set[blk] = true
				}
				copy(buf[in:], b[:n])
				b, off = b[n:], off+n
			}
			return true
		})
		if err != nil {
			return 0, false, err
		}
		data[i] = m
	}
	if length == 0 {
		existed, err := tx.deleteKey(db, dest)
		return 0, existed, err
	}
	nblocks := (length + block - 1) >> blockShift
	var blocks []int64
	if op.ZeroPreserving() {
		for b := range set {
			blocks = append(blocks, b)
		}
		slices.Sort(blocks)
	} else {
		blocks = make([]int64, nblocks)
		for b := range blocks {
			blocks[b] = int64(b)
		}
	}
	in := make([][]byte, len(srcs))
	compute := func(blk int64, out []byte) {
		for i := range data {
			in[i] = data[i][blk]
		}
		bitops.Apply(op, out, in)
	}
	size := func(blk int64) int64 { return min(block, length-blk<<blockShift) }
	// Redis stores the result as a raw buffer (OBJECT ENCODING "raw").
	m := encoding.Meta{Type: encoding.TypeString, Repr: encoding.ReprRaw}
	if length <= encoding.FragmentThreshold {
		out := make([]byte, length)
		for _, blk := range blocks {
			compute(blk, out[blk<<blockShift:blk<<blockShift+size(blk)])
		}
		return length, false, tx.putString(db, dest, &m, out)
	}
	if err := tx.checkWrite(dest); err != nil {
		return 0, false, err
	}
	v, err := tx.newVersion()
	if err != nil {
		return 0, false, err
	}
	p := encoding.AppendSubKeyPrefix(nil, encoding.FamilySub, tx.s.phys(db), dest, v)
	out := make([]byte, block)
	for _, blk := range blocks {
		o := out[:size(blk)]
		compute(blk, o)
		if f := trimZeros(o); len(f) > 0 {
			if err := tx.b.Set(encoding.AppendFragmentKey(nil, p, uint64(blk)), f); err != nil {
				return 0, false, err
			}
		}
	}
	m = encoding.Meta{Type: encoding.TypeString, Version: v, Size: uint64(length), FragShift: blockShift}
	return length, false, tx.putMeta(db, dest, &m)
}

// BitField runs BITFIELD's operations on string key in order and returns
// their replies, and whether the key changed (Redis then notifies
// "setbit"). With write false every operation is a GET and the lookup is
// a read; with write true the key is created and zero-grown to hold the
// farthest field written, even when every write fails on overflow, as in
// Redis.
func (tx *Tx) BitField(db int, key []byte, ops []bitops.FieldOp, write bool) ([]bitops.FieldResult, bool, error) {
	sv, err := tx.OpenString(db, key, !write)
	if err != nil {
		return nil, false, err
	}
	grew := false
	if write {
		var highest uint64
		for _, op := range ops {
			if op.Kind != bitops.FieldGet {
				highest = max(highest, op.Offset+uint64(op.Bits)-1)
			}
		}
		n := int64(highest>>3) + 1
		grew = !sv.Exists() || sv.Len() < n
		sv.Grow(n)
	}
	res := make([]bitops.FieldResult, len(ops))
	changes := 0
	var buf [9]byte
	for i, op := range ops {
		first := int64(op.Offset >> 3)
		base := uint64(first) << 3
		if err := sv.ReadAt(buf[:], first); err != nil {
			return nil, false, err
		}
		if op.Kind == bitops.FieldGet {
			res[i] = bitops.FieldResult{Value: op.Get(buf[:], base)}
			continue
		}
		r, changed := op.Exec(buf[:], base)
		res[i] = r
		if r.Nil || !(grew || changed) {
			continue
		}
		changes++
		span := int64((op.Offset+uint64(op.Bits)-1)>>3) - first + 1
		if err := sv.WriteAt(buf[:span], first); err != nil {
			return nil, false, err
		}
	}
	if !write {
		return res, false, nil
	}
	sv.unshare()
	return res, changes > 0, sv.Save(encoding.ReprRaw)
}
