package store

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/cairndb/cairn/internal/bitops"
	"github.com/cairndb/cairn/internal/encoding"
)

// BenchmarkSetBitRandom sets random bits of bitmaps of several sizes (up
// to 12.5 MB: offsets below 10^8), one command per Tx as a server runs
// them: inline, the whole value is rewritten; in fragments, one fragment
// is read and written.
func BenchmarkSetBitRandom(b *testing.B) {
	for _, bits := range []int64{8 << 10, 128 << 10, 512 << 10, 100_000_000} {
		b.Run(strconv.FormatInt(bits/8, 10)+"B", func(b *testing.B) { benchSetBit(b, bits) })
	}
}

func benchSetBit(b *testing.B, bits int64) {
	s := openBenchStore(b, 64<<20, nil)
	key := []byte("bits")
	r := rand.New(rand.NewPCG(1, 2))
	b.ResetTimer()
	for range b.N {
		bit := r.Int64N(bits)
		tx := s.Begin([][]byte{key})
		sv, err := tx.OpenString(0, key, false)
		if err != nil {
			b.Fatal(err)
		}
		sv.Grow(bit/8 + 1)
		var c [1]byte
		if err := sv.ReadAt(c[:], bit/8); err != nil {
			b.Fatal(err)
		}
		c[0] |= 0x80 >> (bit % 8)
		if err := sv.WriteAt(c[:], bit/8); err != nil {
			b.Fatal(err)
		}
		if err := sv.Save(encoding.ReprRaw); err != nil {
			b.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
		tx.Close()
	}
}

// BenchmarkStringSize: SET then GET of one value, by size — where
// fragments start to cost more than an inline record.
func BenchmarkStringSize(b *testing.B) {
	for _, n := range []int{4 << 10, 16 << 10, 64 << 10, 1 << 20} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			s := openBenchStore(b, 64<<20, nil)
			v := make([]byte, n)
			for i := range v {
				v[i] = byte(i*7 + 1)
			}
			key := []byte("v")
			b.SetBytes(int64(n))
			b.ResetTimer()
			for range b.N {
				tx := s.Begin([][]byte{key})
				if _, err := tx.SetString(0, key, v, SetArgs{}); err != nil {
					b.Fatal(err)
				}
				if err := tx.Commit(); err != nil {
					b.Fatal(err)
				}
				tx.Close()
				rtx := s.Read(false)
				if got, _, err := rtx.GetString(0, key); err != nil || len(got) != n {
					b.Fatal(err)
				}
				rtx.Close()
			}
		})
	}
}

// BenchmarkSparseScan counts and searches a bitmap whose highest bit is
// 4·10^9 with 1000 bits set (a 500 MB string): only its ~1000 fragments
// are read.
func BenchmarkSparseScan(b *testing.B) {
	s := openBenchStore(b, 64<<20, nil)
	key := []byte("sparse")
	r := rand.New(rand.NewPCG(3, 4))
	tx := s.Begin([][]byte{key})
	for i := range 1001 {
		bit := uint64(4_000_000_000)
		if i > 0 {
			bit = r.Uint64N(4_000_000_000)
		}
		if _, _, err := tx.SetBit(0, key, bit, true); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	tx.Close()
	b.Run("BITCOUNT", func(b *testing.B) {
		for range b.N {
			rtx := s.Read(false)
			sv, err := rtx.OpenString(0, key, false)
			if err != nil {
				b.Fatal(err)
			}
			if n, err := bitops.Count(sv, 0, sv.Len()*8-1); err != nil || n < 900 {
				b.Fatal(n, err)
			}
			rtx.Close()
		}
	})
	b.Run("BITPOS", func(b *testing.B) {
		for range b.N {
			rtx := s.Read(false)
			sv, err := rtx.OpenString(0, key, false)
			if err != nil {
				b.Fatal(err)
			}
			start := r.Int64N(500_000_000) * 8
			if n, err := bitops.Pos(sv, true, start, sv.Len()*8-1); err != nil || n < 0 {
				b.Fatal(n, err)
			}
			rtx.Close()
		}
	})
}

// BenchmarkGetBitRandom reads random bits of a 12.5 MB bitmap with 100,000
// bits set, one read-only Tx per command as a server runs them.
func BenchmarkGetBitRandom(b *testing.B) {
	s := openBenchStore(b, 64<<20, nil)
	key := []byte("bits")
	r := rand.New(rand.NewPCG(5, 6))
	tx := s.Begin([][]byte{key})
	for range 100_000 {
		if _, _, err := tx.SetBit(0, key, r.Uint64N(100_000_000), true); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	tx.Close()
	b.ResetTimer()
	for range b.N {
		rtx := s.Read(false)
		if _, _, err := rtx.GetBit(0, key, r.Uint64N(100_000_000)); err != nil {
			b.Fatal(err)
		}
		rtx.Close()
	}
}
