package hll

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"strconv"
	"testing"
)

func TestNew(t *testing.T) {
	b := New()
	want := []byte("HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x7f\xff")
	if !bytes.Equal(b, want) || !IsHLL(b) {
		t.Fatalf("New() = %q", b)
	}
	if n, err := Count(b); err != nil || n != 0 {
		t.Fatalf("Count(New()) = %d, %v", n, err)
	}
	if got := Describe(b); got != "Z:16384" {
		t.Fatalf("Describe = %q", got)
	}
}

func TestIsHLL(t *testing.T) {
	dense := make([]byte, DenseSize)
	copy(dense, "HYLL")
	for _, tc := range []struct {
		b  []byte
		ok bool
	}{
		{New(), true},
		{dense, true},
		{dense[:DenseSize-1], false},
		{append(bytes.Clone(dense), 0), false},
		{[]byte("HYLL"), false},
		{[]byte("HYLX\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"), false},
		{[]byte("HYLL\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"), false},
		// A sparse HLL's opcodes are checked only when read.
		{[]byte("HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"), true},
	} {
		if got := IsHLL(tc.b); got != tc.ok {
			t.Errorf("IsHLL(%q) = %v", tc.b, got)
		}
	}
}

func TestDenseRegisters(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	regs := make([]byte, DenseSize-HeaderSize)
	var want [Registers]uint8
	for range 5 {
		for i := range want {
			want[i] = uint8(r.UintN(64))
			denseSet(regs, i, want[i])
		}
		for i := range want {
			if got := denseGet(regs, i); got != want[i] {
				t.Fatalf("register %d = %d, want %d", i, got, want[i])
			}
		}
	}
}

// TestSparseMatchesDense adds the same elements to a sparse and a dense
// HLL: the registers and the estimates agree, and the sparse one never
// outgrows the limit.
func TestSparseMatchesDense(t *testing.T) {
	for _, limit := range []int64{0, 40, 3000, 20000} {
		s, err := ToDense(New())
		if err != nil {
			t.Fatal(err)
		}
		d := s
		s = New()
		var ele [8]byte
		for j := uint64(0); j < 30000; j++ {
			binary.LittleEndian.PutUint64(ele[:], j*7919)
			var c1, c2 bool
			d, c1, _ = Add(d, ele[:], limit)
			if s, c2, err = Add(s, ele[:], limit); err != nil {
				t.Fatalf("limit %d: add %d: %v", limit, j, err)
			}
			if c1 != c2 {
				t.Fatalf("limit %d: add %d: changed %v in dense, %v in sparse", limit, j, c1, c2)
			}
			if s[4] == Sparse && int64(len(s)) > max(limit, int64(len(New()))) {
				t.Fatalf("limit %d: sparse HLL of %d bytes", limit, len(s))
			}
			if j%997 == 0 || j < 50 {
				var rs, rd [Registers]uint8
				if Merge(&rs, s) != nil || Merge(&rd, d) != nil {
					t.Fatalf("limit %d: merge failed at %d", limit, j)
				}
				if rs != rd {
					t.Fatalf("limit %d: registers differ after %d adds", limit, j)
				}
				cs, _ := Count(s)
				cd, _ := Count(d)
				if cs != cd || cs != CountRegisters(&rs) {
					t.Fatalf("limit %d: counts %d (sparse) %d (dense) %d (registers)", limit, cs, cd, CountRegisters(&rs))
				}
			}
		}
		if s[4] != Dense && limit <= 3000 {
			t.Errorf("limit %d: still sparse after 30000 elements", limit)
		}
		if n, _ := Count(d); n < 28000 || n > 32000 {
			t.Errorf("limit %d: estimate %d for 30000 elements", limit, n)
		}
	}
}

func TestCache(t *testing.T) {
	b := New()
	SetCache(b, 123456789)
	if n, ok := Cached(b); !ok || n != 123456789 {
		t.Fatalf("Cached = %d, %v", n, ok)
	}
	Invalidate(b)
	if n, ok := Cached(b); ok || n != 123456789|1<<63 {
		t.Fatalf("after Invalidate: %d, %v", n, ok)
	}
}

func TestCorrupt(t *testing.T) {
	hdr := "HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80"
	for _, ops := range []string{
		"",                 // no registers
		"\x7f",             // XZERO cut short: reads as 16129 registers
		"\x7f\xfe",         // 16383 registers
		"\x7f\xff\x80",     // 16385
		"\x7f\xff\x00",     // 16385, a ZERO at the end
		"\x80\x7f\xff",     // VAL then XZERO past the end
		"\x7f\xfe\x83",     // VAL running past the end
		"\x40\x00\x7f\xff", // 1 + 16384
	} {
		b := []byte(hdr + ops)
		if _, err := Count(b); !errors.Is(err, ErrCorrupt) {
			t.Errorf("Count(%q) = %v", ops, err)
		}
		var regs [Registers]uint8
		if err := Merge(&regs, b); !errors.Is(err, ErrCorrupt) {
			t.Errorf("Merge(%q) = %v", ops, err)
		}
		if _, err := ToDense(b); !errors.Is(err, ErrCorrupt) {
			t.Errorf("ToDense(%q) = %v", ops, err)
		}
	}
	// An HLL whose opcodes end before the register is corrupt for PFADD.
	b := []byte(hdr + "\x7f\x00")
	if _, _, err := Set(b, 16200, 1, 3000); !errors.Is(err, ErrCorrupt) {
		t.Errorf("Set past the opcodes: %v", err)
	}
}

func TestSelfTest(t *testing.T) {
	if testing.Short() {
		t.Skip("ten million additions")
	}
	r := rand.New(rand.NewPCG(3, 4))
	if err := SelfTest(3000, r.Uint64); err != nil {
		t.Fatal(err)
	}
}

// FuzzHLL feeds arbitrary bytes, as an HLL's payload, to every reader
// and writer: none may panic, and the readers agree with one another.
func FuzzHLL(f *testing.F) {
	f.Add(byte(Sparse), []byte("\x7f\xff"), []byte("a"))
	f.Add(byte(Sparse), []byte("\x7f\xfe\x80"), []byte("b"))
	f.Add(byte(Sparse), []byte("\x40\x10\x84\x00\x7b\xea"), []byte("xyz"))
	f.Add(byte(Sparse), []byte("\x7f"), []byte(""))
	f.Add(byte(Sparse), []byte("\x7f\xff\x80"), []byte("1"))
	f.Add(byte(Dense), bytes.Repeat([]byte{0xff}, DenseSize-HeaderSize), []byte("q"))
	f.Add(byte(2), []byte("\x7f\xff"), []byte("c"))
	f.Fuzz(func(t *testing.T, enc byte, payload, ele []byte) {
		b := append([]byte("HYLL\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80"), payload...)
		b[4] = enc
		if !IsHLL(b) {
			return
		}
		_ = Describe(b)
		var regs [Registers]uint8
		mergeErr := Merge(&regs, b)
		n, countErr := Count(b)
		if mergeErr == nil {
			if countErr != nil || n != CountRegisters(&regs) {
				t.Fatalf("merge ok but count %d, %v (registers say %d)", n, countErr, CountRegisters(&regs))
			}
			d, err := ToDense(bytes.Clone(b))
			if err != nil {
				t.Fatalf("ToDense: %v", err)
			}
			if nd, _ := Count(d); nd != n {
				t.Fatalf("dense count %d, sparse %d", nd, n)
			}
		}
		c := bytes.Clone(b)
		for i := range 4 {
			next, _, err := Add(c, append(ele, strconv.Itoa(i)...), 60)
			if err != nil {
				break
			}
			if !IsHLL(next) {
				t.Fatalf("Add made an invalid HLL %q", next)
			}
			c = next
		}
		for _, idx := range []int{0, Registers - 1, int(uint(len(payload)) % Registers)} {
			_, _, _ = Set(bytes.Clone(b), idx, 33, 3000)
			_, _, _ = Set(bytes.Clone(b), idx, 5, 3000)
		}
	})
}

// TestDenseGroups checks Merge's and Count's four-registers-at-a-time
// reading of a dense HLL against denseGet, register by register, on
// random registers of every value.
func TestDenseGroups(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	d, err := ToDense(New())
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < Registers; i++ {
		denseSet(d[HeaderSize:], i, uint8(r.IntN(regMax+1)))
	}
	var got [Registers]uint8
	if err := Merge(&got, d); err != nil {
		t.Fatal(err)
	}
	var histo [64]int
	for i := 0; i < Registers; i++ {
		v := denseGet(d[HeaderSize:], i)
		if got[i] != v {
			t.Fatalf("Merge: register %d = %d, want %d", i, got[i], v)
		}
		histo[v]++
	}
	card, err := Count(d)
	if err != nil {
		t.Fatal(err)
	}
	if want := estimate(&histo); card != want {
		t.Fatalf("Count = %d, want %d", card, want)
	}
}

// TestRaises checks that Raises says false exactly for the elements a
// dense HLL already counts, and true for a sparse HLL.
func TestRaises(t *testing.T) {
	if !Raises(New(), []byte("a")) {
		t.Fatal("Raises on a sparse HLL = false")
	}
	d, err := ToDense(New())
	if err != nil {
		t.Fatal(err)
	}
	for i := range 1000 {
		ele := []byte(strconv.Itoa(i))
		want := Raises(d, ele)
		nd, changed, err := Add(d, ele, 3000)
		if err != nil {
			t.Fatal(err)
		}
		d = nd
		if changed != want {
			t.Fatalf("element %d: Raises = %v, Add changed = %v", i, want, changed)
		}
		if Raises(d, ele) {
			t.Fatalf("element %d: Raises after its Add", i)
		}
	}
}
