package store

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/cairndb/cairn/internal/bitops"
	"github.com/cairndb/cairn/internal/encoding"
)

func TestSetBitAtLastOffsetWritesOneFragment(t *testing.T) {
	s, _ := openTestStore(t)
	type res struct{ old, changed bool }
	r := writeTx(t, s, []string{"b"}, func(tx *Tx) (res, error) {
		old, ch, err := tx.SetBit(0, []byte("b"), 4294967295, true)
		return res{old, ch}, err
	})
	if r.old || !r.changed {
		t.Fatalf("SETBIT on a new key = %+v", r)
	}
	f := fragments(t, s, "b")
	if len(f) != 1 {
		t.Fatalf("SETBIT 4294967295 stored %d fragments", len(f))
	}
	if last := f[(1<<29-1)/fragSize]; len(last) != fragSize || last[fragSize-1] != 1 {
		t.Fatal("the fragment does not end with the bit")
	}
	// Setting it again changes nothing; clearing it empties the fragment,
	// which goes, while the length stays.
	r = writeTx(t, s, []string{"b"}, func(tx *Tx) (res, error) {
		old, ch, err := tx.SetBit(0, []byte("b"), 4294967295, true)
		return res{old, ch}, err
	})
	if !r.old || r.changed {
		t.Fatalf("SETBIT again = %+v", r)
	}
	writeTx(t, s, []string{"b"}, func(tx *Tx) (bool, error) {
		_, _, err := tx.SetBit(0, []byte("b"), 4294967295, false)
		return true, err
	})
	if len(fragments(t, s, "b")) != 0 {
		t.Fatal("an all-zero fragment stayed")
	}
	n := readTx(t, s, func(tx *Tx) (int64, error) { n, _, err := tx.StrLen(0, []byte("b")); return n, err })
	if n != 1<<29 {
		t.Fatalf("STRLEN = %d", n)
	}
	// Counting over 512 MB reads no fragment.
	cnt := readTx(t, s, func(tx *Tx) (int64, error) {
		sv, err := tx.OpenString(0, []byte("b"), false)
		if err != nil {
			return 0, err
		}
		return bitops.Count(sv, 0, sv.Len()*8-1)
	})
	if cnt != 0 {
		t.Fatalf("BITCOUNT = %d", cnt)
	}
}

// randomBitmap sets n random bits below limit in key on both the store
// and the returned model.
func randomBitmap(t *testing.T, s *Store, r *rand.Rand, key string, n int, limit int64) []byte {
	var model []byte
	for range n {
		bit := r.Int64N(limit)
		writeTx(t, s, []string{key}, func(tx *Tx) (bool, error) {
			_, _, err := tx.SetBit(0, []byte(key), uint64(bit), true)
			return true, err
		})
		if need := bit/8 + 1; int64(len(model)) < need {
			model = append(model, make([]byte, need-int64(len(model)))...)
		}
		model[bit/8] |= 0x80 >> (bit % 8)
	}
	return model
}

// TestBitOpOverFragments runs every BITOP operation over sparse and small
// bitmaps (inline and fragmented sources, results of either form) and
// compares the result with bitops.Apply over whole values.
func TestBitOpOverFragments(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 5))
	s, _ := openTestStore(t)
	models := map[string][]byte{
		"a": randomBitmap(t, s, r, "a", 40, 3_000_000),
		"b": randomBitmap(t, s, r, "b", 40, 400_000),
		"c": randomBitmap(t, s, r, "c", 10, 2000),
		"d": nil, // absent
	}
	names := []string{"a", "b", "c", "d"}
	for op := bitops.And; op <= bitops.One; op++ {
		for range 6 {
			k := 1 + r.IntN(3)
			if op == bitops.Not {
				k = 1
			}
			srcs := make([][]byte, k)
			vals := make([][]byte, k)
			maxLen := 0
			for i := range srcs {
				n := names[r.IntN(len(names))]
				srcs[i], vals[i] = []byte(n), models[n]
				maxLen = max(maxLen, len(models[n]))
			}
			want := make([]byte, maxLen)
			if maxLen > 0 {
				bitops.Apply(op, want, vals)
			}
			n := writeTx(t, s, []string{"dest"}, func(tx *Tx) (int64, error) {
				n, _, err := tx.BitOp(0, op, []byte("dest"), srcs)
				return n, err
			})
			if n != int64(maxLen) {
				t.Fatalf("op %d: length %d, want %d", op, n, maxLen)
			}
			if got := getString(t, s, "dest"); !bytes.Equal(got, want) && !(len(want) == 0 && got == nil) {
				t.Fatalf("op %d over %q: result differs (%d bytes, want %d)", op, srcs, len(got), len(want))
			}
			if maxLen > encoding.FragmentThreshold && op != bitops.Not {
				// A sparse result stores only its non-zero fragments.
				if f := fragments(t, s, "dest"); len(f) > 120 {
					t.Fatalf("op %d: a sparse result stored %d fragments", op, len(f))
				}
			}
		}
	}
}

// TestBitFieldAcrossFragments writes fields straddling fragment edges and
// reads them back with GET and the whole value.
func TestBitFieldAcrossFragments(t *testing.T) {
	s, _ := openTestStore(t)
	base := uint64(encoding.FragmentThreshold+3*fragSize) * 8
	offs := []uint64{base - 3, base - 40, base + 8*fragSize - 1, 12}
	ops := make([]bitops.FieldOp, 0, 2*len(offs))
	for i, o := range offs {
		ops = append(ops, bitops.FieldOp{Kind: bitops.FieldSet, Signed: true, Bits: 64, Offset: o, Value: -1 - int64(i)})
	}
	for _, o := range offs {
		ops = append(ops, bitops.FieldOp{Kind: bitops.FieldGet, Signed: true, Bits: 64, Offset: o})
	}
	type out struct {
		res     []bitops.FieldResult
		changed bool
	}
	got := writeTx(t, s, []string{"f"}, func(tx *Tx) (out, error) {
		res, ch, err := tx.BitField(0, []byte("f"), ops, true)
		return out{res, ch}, err
	})
	if !got.changed {
		t.Fatal("BITFIELD SET on a new key reports no change")
	}
	model := make([]byte, (base+8*fragSize-1+63)/8+1)
	for i, o := range offs {
		bitops.SetUnsigned(model, o, 64, uint64(-1-int64(i)))
	}
	for i, o := range offs {
		if want := bitops.GetSigned(model, o, 64); got.res[len(offs)+i].Value != want {
			t.Fatalf("GET i64 %d = %d, want %d", o, got.res[len(offs)+i].Value, want)
		}
	}
	if v := getString(t, s, "f"); !bytes.Equal(v, model) {
		t.Fatal("the value differs from the model")
	}
	ro := readTx(t, s, func(tx *Tx) ([]bitops.FieldResult, error) {
		res, _, err := tx.BitField(0, []byte("f"), ops[len(offs):], false)
		return res, err
	})
	for i := range offs {
		if ro[i] != got.res[len(offs)+i] {
			t.Fatalf("read-only GET %d = %+v", i, ro[i])
		}
	}
}
