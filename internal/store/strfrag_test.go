package store

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/encoding"
	"github.com/cairndb/cairn/internal/engine"
)

const maxBulk = 512 << 20

// fragSize is the fragment size of new fragmented strings.
const fragSize = 1 << encoding.FragShift

// fragments lists the fragment records of key's current version in db 0.
func fragments(t *testing.T, s *Store, key string) map[uint64][]byte {
	t.Helper()
	return readTx(t, s, func(tx *Tx) (map[uint64][]byte, error) {
		m, ok, err := tx.meta(0, []byte(key))
		if err != nil || !ok || !m.Fragmented() {
			return nil, err
		}
		p := encoding.AppendSubKeyPrefix(nil, encoding.FamilySub, tx.s.phys(0), []byte(key), m.Version)
		it, err := tx.r.NewIter(p, encoding.PrefixEnd(p))
		if err != nil {
			return nil, err
		}
		defer it.Close()
		out := map[uint64][]byte{}
		for ok := it.First(); ok; ok = it.Next() {
			i, err := encoding.DecodeFragmentIndex(it.Key(), len(p))
			if err != nil {
				return nil, err
			}
			out[i] = bytes.Clone(it.Value())
		}
		return out, it.Error()
	})
}

func getString(t *testing.T, s *Store, key string) []byte {
	t.Helper()
	return readTx(t, s, func(tx *Tx) ([]byte, error) {
		v, _, err := tx.GetString(0, []byte(key))
		return bytes.Clone(v), err
	})
}

func TestSetRangeAtHugeOffsetWritesOneFragment(t *testing.T) {
	s, _ := openTestStore(t)
	off := int64(4294967295 >> 3)
	n := writeTx(t, s, []string{"b"}, func(tx *Tx) (int64, error) {
		return tx.SetRange(0, []byte("b"), off, []byte{1}, maxBulk)
	})
	if n != off+1 {
		t.Fatalf("SETRANGE returned %d, want %d", n, off+1)
	}
	f := fragments(t, s, "b")
	if len(f) != 1 || len(f[uint64(off/fragSize)]) != fragSize {
		t.Fatalf("fragments after SETRANGE at %d: %d records", off, len(f))
	}
	got := readTx(t, s, func(tx *Tx) ([]byte, error) {
		v, _, err := tx.GetRange(0, []byte("b"), off-2, -1)
		return v, err
	})
	if !bytes.Equal(got, []byte{0, 0, 1}) {
		t.Fatalf("GETRANGE tail = %x", got)
	}
	if l, _, _ := readTx(t, s, func(tx *Tx) (int64, error) { n, _, err := tx.StrLen(0, []byte("b")); return n, err }), 0, 0; l != off+1 {
		t.Fatalf("STRLEN = %d", l)
	}
	// DEL is a range tombstone, whatever the length.
	writeTx(t, s, []string{"b"}, func(tx *Tx) (bool, error) { return tx.Delete(0, []byte("b")) })
	if got := getString(t, s, "b"); got != nil {
		t.Fatalf("GET after DEL = %d bytes", len(got))
	}
}

// strOp is one random operation of the model test.
type strOp struct {
	kind string
	off  int64
	val  []byte
}

// TestFragmentedStringMatchesModel drives random SET, SETRANGE, APPEND,
// GETRANGE and bit writes around fragment boundaries and the inline
// threshold, and compares every read with a byte-slice model.
func TestFragmentedStringMatchesModel(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 1))
	s, _ := openTestStore(t)
	key := []byte("k")
	var model []byte
	exists := false // whether the key exists (COPY back needs it)
	// Offsets near fragment edges and the threshold.
	edge := func() int64 {
		bases := []int64{0, fragSize, 3 * fragSize, encoding.FragmentThreshold, 40 * fragSize, 1 << 20}
		return max(0, bases[r.IntN(len(bases))]+int64(r.IntN(9))-4)
	}
	randVal := func() []byte {
		n := []int{1, 3, fragSize - 1, fragSize + 1, 2*fragSize + 5, 50}[r.IntN(6)]
		v := make([]byte, n)
		for i := range v {
			if r.IntN(3) > 0 {
				v[i] = byte(r.UintN(256))
			}
		}
		return v
	}
	for step := range 300 {
		switch op := r.IntN(7); op {
		case 0: // SET
			v := randVal()
			if r.IntN(4) == 0 {
				v = append(make([]byte, encoding.FragmentThreshold), v...)
			}
			writeTx(t, s, []string{"k"}, func(tx *Tx) (SetResult, error) {
				return tx.SetString(0, key, v, SetArgs{})
			})
			model, exists = bytes.Clone(v), true
		case 1: // SETRANGE
			off, v := edge(), randVal()
			n := writeTx(t, s, []string{"k"}, func(tx *Tx) (int64, error) {
				return tx.SetRange(0, key, off, v, maxBulk)
			})
			if need := off + int64(len(v)); int64(len(model)) < need {
				model = append(model, make([]byte, need-int64(len(model)))...)
			}
			copy(model[off:], v)
			exists = true
			if n != int64(len(model)) {
				t.Fatalf("step %d: SETRANGE length %d, model %d", step, n, len(model))
			}
		case 2: // APPEND
			v := randVal()
			n := writeTx(t, s, []string{"k"}, func(tx *Tx) (int64, error) {
				return tx.Append(0, key, v, maxBulk)
			})
			model, exists = append(model, v...), true
			if n != int64(len(model)) {
				t.Fatalf("step %d: APPEND length %d, model %d", step, n, len(model))
			}
		case 3: // a bit write through StringValue, as SETBIT does
			bit := edge()*8 + int64(r.IntN(8))
			writeTx(t, s, []string{"k"}, func(tx *Tx) (bool, error) {
				sv, err := tx.OpenString(0, key, false)
				if err != nil {
					return false, err
				}
				sv.Grow(bit/8 + 1)
				var b [1]byte
				if err := sv.ReadAt(b[:], bit/8); err != nil {
					return false, err
				}
				b[0] ^= 0x80 >> (bit % 8)
				if err := sv.WriteAt(b[:], bit/8); err != nil {
					return false, err
				}
				return true, sv.Save(encoding.ReprRaw)
			})
			if need := bit/8 + 1; int64(len(model)) < need {
				model = append(model, make([]byte, need-int64(len(model)))...)
			}
			model[bit/8] ^= 0x80 >> (bit % 8)
			exists = true
		case 4: // GETRANGE
			a, b := edge(), edge()
			got := readTx(t, s, func(tx *Tx) ([]byte, error) {
				v, _, err := tx.GetRange(0, key, a, b)
				return v, err
			})
			var want []byte
			if hi := min(b, int64(len(model))-1); a <= hi {
				want = model[a : hi+1]
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("step %d: GETRANGE %d %d = %d bytes, model %d bytes", step, a, b, len(got), len(want))
			}
		case 5: // COPY and RENAME there and back
			writeTx(t, s, []string{"k", "c"}, func(tx *Tx) (bool, error) { return tx.Copy(0, key, 0, []byte("c"), true) })
			if exists {
				writeTx(t, s, []string{"k", "c"}, func(tx *Tx) (bool, error) { return tx.Rename(0, []byte("c"), key, false) })
			}
		case 6: // Chunks see only stored bytes, in order
			readTx(t, s, func(tx *Tx) (bool, error) {
				sv, err := tx.OpenString(0, key, false)
				if err != nil {
					return false, err
				}
				last := int64(-1)
				rebuilt := make([]byte, sv.Len())
				err = sv.Chunks(0, sv.Len()-1, func(off int64, b []byte) bool {
					if off <= last {
						t.Fatalf("step %d: chunk at %d after one ending at %d", step, off, last)
					}
					copy(rebuilt[off:], b)
					last = off + int64(len(b)) - 1
					return true
				})
				if !bytes.Equal(rebuilt, model) {
					t.Fatalf("step %d: chunks rebuild %d bytes unlike the model's %d", step, len(rebuilt), len(model))
				}
				return true, err
			})
		}
		if got := getString(t, s, "k"); !bytes.Equal(got, model) {
			t.Fatalf("step %d: GET gives %d bytes, model %d", step, len(got), len(model))
		}
		if err := Check(s); err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
	}
}

// TestLongInlineStringStillReads: a string longer than the threshold
// written inline (as before fragments existed) reads, and moves to
// fragments on its first in-place change.
func TestLongInlineStringStillReads(t *testing.T) {
	s, _ := openTestStore(t)
	v := bytes.Repeat([]byte("ab"), encoding.FragmentThreshold)
	writeTx(t, s, []string{"old"}, func(tx *Tx) (bool, error) {
		return true, tx.putMeta(0, []byte("old"), &encoding.Meta{Type: encoding.TypeString, Value: v, Repr: encoding.ReprRaw})
	})
	if got := getString(t, s, "old"); !bytes.Equal(got, v) {
		t.Fatal("an inline string above the threshold does not read back")
	}
	writeTx(t, s, []string{"old"}, func(tx *Tx) (int64, error) { return tx.SetRange(0, []byte("old"), 1, []byte("X"), maxBulk) })
	v[1] = 'X'
	if got := getString(t, s, "old"); !bytes.Equal(got, v) {
		t.Fatal("SETRANGE on a long inline string lost bytes")
	}
	if len(fragments(t, s, "old")) != len(v)/fragSize {
		t.Fatalf("after a change the string has %d fragments, want %d", len(fragments(t, s, "old")), len(v)/fragSize)
	}
}

// TestFragmentedStringKeyspace: expiry, GETEX, GETDEL, DUMP's reader,
// MEMORY USAGE and OBJECT ENCODING over a fragmented string.
func TestFragmentedStringKeyspace(t *testing.T) {
	s, clock := openTestStore(t)
	v := make([]byte, 3*encoding.FragmentThreshold)
	v[5], v[len(v)-1] = 7, 9
	writeTx(t, s, []string{"f"}, func(tx *Tx) (SetResult, error) {
		return tx.SetString(0, []byte("f"), v, SetArgs{ExpireMs: clock.now().UnixMilli() + 10_000})
	})
	if n := len(fragments(t, s, "f")); n != 2 {
		t.Fatalf("a value with two non-zero fragments stored %d", n)
	}
	got := writeTx(t, s, []string{"f"}, func(tx *Tx) ([]byte, error) {
		b, _, err := tx.GetEx(0, []byte("f"), ExpireAction{Persist: true})
		return b, err
	})
	if !bytes.Equal(got, v) {
		t.Fatal("GETEX value differs")
	}
	val := readTx(t, s, func(tx *Tx) (Value, error) { v, _, _, err := tx.ReadValue(0, []byte("f")); return v, err })
	if !bytes.Equal(val.String, v) {
		t.Fatal("ReadValue (DUMP) differs")
	}
	enc := readTx(t, s, func(tx *Tx) (string, error) { e, _, err := tx.Encoding(0, []byte("f")); return e, err })
	if enc != "raw" {
		t.Fatalf("OBJECT ENCODING = %q", enc)
	}
	size := readTx(t, s, func(tx *Tx) (int64, error) { n, _, err := tx.MemoryUsage(0, []byte("f"), 0); return n, err })
	if size < 2 || size > int64(len(v)) {
		t.Fatalf("MEMORY USAGE = %d for %d stored bytes", size, 2)
	}
	// Moving to another db and back keeps the bytes.
	writeTx(t, s, []string{"f"}, func(tx *Tx) (bool, error) { return tx.Move(0, []byte("f"), 1) })
	writeTx(t, s, []string{"f"}, func(tx *Tx) (bool, error) { return tx.Move(1, []byte("f"), 0) })
	got = writeTx(t, s, []string{"f"}, func(tx *Tx) ([]byte, error) { b, _, err := tx.GetDel(0, []byte("f")); return b, err })
	if !bytes.Equal(got, v) {
		t.Fatal("GETDEL after MOVE differs")
	}
	if exists := readTx(t, s, func(tx *Tx) (bool, error) { return tx.Exists(0, []byte("f")) }); exists {
		t.Fatal("GETDEL left the key")
	}
	// A small SET over a fragmented string drops its fragments.
	writeTx(t, s, []string{"f"}, func(tx *Tx) (SetResult, error) { return tx.SetString(0, []byte("f"), v, SetArgs{}) })
	writeTx(t, s, []string{"f"}, func(tx *Tx) (SetResult, error) { return tx.SetString(0, []byte("f"), []byte("x"), SetArgs{}) })
	if got := getString(t, s, "f"); string(got) != "x" {
		t.Fatalf("GET after SET = %q", got)
	}
}

// TestExpiredFragmentedStringIsReclaimed: the reaper deletes an expired
// fragmented string with its fragments, and a new string under the name
// sees none of them.
func TestExpiredFragmentedStringIsReclaimed(t *testing.T) {
	s, clock := openTestStore(t)
	v := bytes.Repeat([]byte{0xaa}, 100*fragSize)
	writeTx(t, s, []string{"e"}, func(tx *Tx) (SetResult, error) {
		return tx.SetString(0, []byte("e"), v, SetArgs{ExpireMs: clock.now().UnixMilli() + 1000})
	})
	version := readTx(t, s, func(tx *Tx) (uint64, error) { m, _, err := tx.meta(0, []byte("e")); return m.Version, err })
	clock.advance(2 * time.Second)
	if n, err := s.ReapExpired(time.Minute); err != nil || n != 1 {
		t.Fatalf("ReapExpired = %d, %v", n, err)
	}
	left := readTx(t, s, func(tx *Tx) (int, error) {
		p := encoding.AppendSubKeyPrefix(nil, encoding.FamilySub, tx.s.phys(0), []byte("e"), version)
		it, err := tx.r.NewIter(p, encoding.PrefixEnd(p))
		if err != nil {
			return 0, err
		}
		defer it.Close()
		n := 0
		for ok := it.First(); ok; ok = it.Next() {
			n++
		}
		return n, it.Error()
	})
	if left != 0 {
		t.Fatalf("%d fragments left after the key expired", left)
	}
	writeTx(t, s, []string{"e"}, func(tx *Tx) (int64, error) { return tx.SetRange(0, []byte("e"), 50*fragSize, []byte{1}, maxBulk) })
	if got := getString(t, s, "e"); len(got) != 50*fragSize+1 || !isZero(got[:50*fragSize]) {
		t.Fatal("a new string under the name sees the old fragments")
	}
}

// FuzzStringWrites reads ops from the input (SETRANGE at offsets around
// fragment edges and the threshold, APPEND, a bit flip) and checks every
// result against a byte-slice model and the store's invariants.
func FuzzStringWrites(f *testing.F) {
	f.Add([]byte{0, 200, 3, 1, 2, 9, 2, 40, 1})
	f.Add([]byte{2, 255, 255, 0, 1, 17, 1, 0, 0})
	f.Add([]byte{1, 5, 1, 1, 5, 1, 0, 0, 0})
	f.Fuzz(func(t *testing.T, ops []byte) {
		s, _ := openTestStore(t)
		key := []byte("k")
		var model []byte
		grow := func(n int64) {
			if int64(len(model)) < n {
				model = append(model, make([]byte, n-int64(len(model)))...)
			}
		}
		for i := 0; i+3 <= len(ops) && i < 60; i += 3 {
			// Offsets up to ~40 fragments, landing near edges often.
			off := int64(ops[i+1])*fragSize/8 + int64(ops[i+2])%16 - 8
			off = max(off, 0)
			switch ops[i] % 3 {
			case 0:
				v := bytes.Repeat([]byte{ops[i+2] | 1}, 1+int(ops[i+1])%(2*fragSize))
				writeTx(t, s, []string{"k"}, func(tx *Tx) (int64, error) { return tx.SetRange(0, key, off, v, maxBulk) })
				grow(off + int64(len(v)))
				copy(model[off:], v)
			case 1:
				v := []byte{ops[i+1], ops[i+2]}
				writeTx(t, s, []string{"k"}, func(tx *Tx) (int64, error) { return tx.Append(0, key, v, maxBulk) })
				model = append(model, v...)
			default:
				bit := uint64(off)*8 + uint64(ops[i+2]%8)
				writeTx(t, s, []string{"k"}, func(tx *Tx) (bool, error) {
					old, _, err := tx.SetBit(0, key, bit, true)
					return old, err
				})
				grow(int64(bit/8) + 1)
				model[bit/8] |= 0x80 >> (bit % 8)
			}
		}
		if got := getString(t, s, "k"); !bytes.Equal(got, model) {
			t.Fatalf("value of %d bytes differs from the model's %d", len(got), len(model))
		}
		if err := Check(s); err != nil {
			t.Fatal(err)
		}
	})
}

// TestFragmentedReadsAreNotTorn: a reader without locks never sees a
// fragmented string half rewritten: the metadata and the fragments it
// reads come from one state of the store.
func TestFragmentedReadsAreNotTorn(t *testing.T) {
	s, _ := openTestStore(t)
	key := []byte("t")
	size := 40 * fragSize
	fill := func(b byte) []byte { return bytes.Repeat([]byte{b}, size) }
	writeTx(t, s, []string{"t"}, func(tx *Tx) (int64, error) { return tx.SetRange(0, key, 0, fill(1), maxBulk) })
	done := make(chan error, 1)
	go func() {
		for i := range 200 {
			v := fill(byte(1 + i%2))
			if err := commit(s, [][]byte{key}, func(tx *Tx) error {
				// In place, or as a new version replacing the old one.
				var err error
				if i%3 == 0 {
					_, err = tx.SetString(0, key, v, SetArgs{})
				} else {
					_, err = tx.SetRange(0, key, 0, v, maxBulk)
				}
				return err
			}); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	for reading := true; reading; {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			reading = false
		default:
		}
		tx := s.Read(false)
		v, _, err := tx.GetString(0, key)
		if err == nil && (len(v) != size || v[0] == 0 || bytes.Count(v, v[:1]) != size) {
			err = fmt.Errorf("GET read a torn value: %d bytes, %d of them %d", len(v), bytes.Count(v, v[:1]), v[0])
		}
		tx.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
}

// writeCounter counts the records its batches write.
type writeCounter struct {
	engine.Engine
	sets, bytes, deletes, ranges atomic.Int64
}

func (e *writeCounter) NewBatch() engine.Batch { return &writeCountingBatch{e.Engine.NewBatch(), e} }

func (e *writeCounter) reset() {
	e.sets.Store(0)
	e.bytes.Store(0)
	e.deletes.Store(0)
	e.ranges.Store(0)
}

type writeCountingBatch struct {
	engine.Batch
	e *writeCounter
}

func (b *writeCountingBatch) Set(k, v []byte) error {
	b.e.sets.Add(1)
	b.e.bytes.Add(int64(len(k) + len(v)))
	return b.Batch.Set(k, v)
}

func (b *writeCountingBatch) Delete(k []byte) error {
	b.e.deletes.Add(1)
	return b.Batch.Delete(k)
}

func (b *writeCountingBatch) DeleteRange(lo, hi []byte) error {
	b.e.ranges.Add(1)
	return b.Batch.DeleteRange(lo, hi)
}

// TestFragmentedWritesCostTheirRange counts what SETRANGE, APPEND, SETBIT
// and DEL write to a 4 MB string: the fragments of their range and the
// metadata, never the whole string.
func TestFragmentedWritesCostTheirRange(t *testing.T) {
	var wc *writeCounter
	s := openCheckedStoreOver(t, Options{Databases: 1, ReapInterval: time.Hour, KeyCacheSize: testKeyCache}, func(eng engine.Engine) engine.Engine {
		wc = &writeCounter{Engine: eng}
		return wc
	})
	key := []byte("big")
	writeTx(t, s, []string{"big"}, func(tx *Tx) (SetResult, error) {
		return tx.SetString(0, key, bytes.Repeat([]byte("0123456789abcdef"), 4<<20/16), SetArgs{})
	})
	for _, c := range []struct {
		name              string
		op                func(tx *Tx) error
		maxSets, maxBytes int64
		deletes, ranges   int64
	}{
		{"APPEND 10 bytes", func(tx *Tx) error { _, err := tx.Append(0, key, []byte("0123456789"), maxBulk); return err }, 3, 3 * 1200, 0, 0},
		{"SETRANGE 3000 bytes", func(tx *Tx) error {
			_, err := tx.SetRange(0, key, 1<<20+100, bytes.Repeat([]byte{7}, 3000), maxBulk)
			return err
		}, 4, 4 * 1200, 0, 0},
		{"SETBIT in the middle", func(tx *Tx) error { _, _, err := tx.SetBit(0, key, 8<<20, false); return err }, 1, 1200, 0, 0},
		{"SETBIT far beyond", func(tx *Tx) error { _, _, err := tx.SetBit(0, key, 4294967295, true); return err }, 2, 1200, 0, 0},
		{"DEL", func(tx *Tx) error { _, err := tx.Delete(0, key); return err }, 0, 0, 1, 1},
	} {
		wc.reset()
		writeTx(t, s, []string{"big"}, func(tx *Tx) (bool, error) { return true, c.op(tx) })
		// Key-count shards and index records aside, which are tiny.
		if n, b := wc.sets.Load(), wc.bytes.Load(); n > c.maxSets+1 || b > c.maxBytes+200 {
			t.Errorf("%s: %d records, %d bytes written", c.name, n, b)
		}
		if d, r := wc.deletes.Load(), wc.ranges.Load(); d != c.deletes || r != c.ranges {
			t.Errorf("%s: %d deletes and %d range deletes, want %d and %d", c.name, d, r, c.deletes, c.ranges)
		}
	}
}
