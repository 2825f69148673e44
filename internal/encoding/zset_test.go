package encoding

import (
	"bytes"
	"errors"
	"math"
	"testing"
)

func TestZSetMetaLayout(t *testing.T) {
	for _, tc := range []struct {
		name string
		z    ZSetMeta
		want []byte
	}{
		{"unbounded is an empty tail", ZSetUnbounded, nil},
		{"bounds", ZSetMeta{Low: ScoreBits(-1), High: ScoreBits(2.5)}, []byte{
			0x40, 0x0f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // ^bits(-1)
			0xc0, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // bits(2.5) | 1<<63
		}},
		{"one score", ZSetMeta{Low: ScoreBits(0), High: ScoreBits(0)}, []byte{
			0x80, 0, 0, 0, 0, 0, 0, 0, 0x80, 0, 0, 0, 0, 0, 0, 0,
		}},
		{"open below only", ZSetMeta{Low: 0, High: ScoreBits(math.Inf(1))}, []byte{
			0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xf0, 0, 0, 0, 0, 0, 0,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := AppendZSetMeta([]byte("x"), tc.z)
			if !bytes.Equal(got[1:], tc.want) || got[0] != 'x' {
				t.Fatalf("AppendZSetMeta = %x, want x|%x", got, tc.want)
			}
			back, err := DecodeZSetMeta(got[1:])
			if err != nil || back != tc.z {
				t.Fatalf("DecodeZSetMeta(%x) = %+v, %v; want %+v", got[1:], back, err, tc.z)
			}
		})
	}
}

func TestZSetMetaRejectsCorruptTails(t *testing.T) {
	for _, b := range [][]byte{
		make([]byte, 8),
		make([]byte, 17),
		AppendUint64(AppendUint64(nil, 5), 4), // low above high
	} {
		if _, err := DecodeZSetMeta(b); !errors.Is(err, ErrCorrupt) {
			t.Errorf("DecodeZSetMeta(%x) = %v, want ErrCorrupt", b, err)
		}
	}
}

func TestZSetMetaContains(t *testing.T) {
	z := ZSetMeta{Low: ScoreBits(1), High: ScoreBits(3)}
	for _, tc := range []struct {
		score float64
		want  bool
	}{{0.5, false}, {1, true}, {2, true}, {3, true}, {math.Nextafter(3, 4), false}} {
		if got := z.Contains(ScoreBits(tc.score)); got != tc.want {
			t.Errorf("[1, 3] contains %g = %v", tc.score, got)
		}
	}
	if !ZSetUnbounded.Contains(ScoreBits(math.Inf(-1))) || !ZSetUnbounded.Contains(ScoreBits(math.Inf(1))) {
		t.Error("ZSetUnbounded excludes an infinity")
	}
}

func FuzzDecodeZSetMeta(f *testing.F) {
	f.Add([]byte{})
	f.Add(AppendZSetMeta(nil, ZSetMeta{Low: 1, High: 2}))
	f.Add(make([]byte, 9))
	f.Fuzz(func(t *testing.T, b []byte) {
		z, err := DecodeZSetMeta(b)
		if err != nil {
			return
		}
		if again := AppendZSetMeta(nil, z); !bytes.Equal(again, b) && !(len(b) == 16 && z == ZSetUnbounded) {
			t.Fatalf("re-encoding %x gave %x", b, again)
		}
	})
}

// TestMemberScoreNegZero pins the two forms of a score: the score index
// key folds -0 into +0 (so that they tie and order by member), the member
// record keeps it as NegZeroBits, which sorts between the negatives and +0
// and decodes back to -0.
func TestMemberScoreNegZero(t *testing.T) {
	negZero := math.Copysign(0, -1)
	for _, tc := range []struct {
		name        string
		f           float64
		index, memb []byte
	}{
		{"-0", negZero, []byte{0x80, 0, 0, 0, 0, 0, 0, 0}, []byte{0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}},
		{"+0", 0, []byte{0x80, 0, 0, 0, 0, 0, 0, 0}, []byte{0x80, 0, 0, 0, 0, 0, 0, 0}},
		{"-1", -1, []byte{0x40, 0x0f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, []byte{0x40, 0x0f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}},
		{"2.5", 2.5, []byte{0xc0, 0x04, 0, 0, 0, 0, 0, 0}, []byte{0xc0, 0x04, 0, 0, 0, 0, 0, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := AppendScore(nil, tc.f); !bytes.Equal(got, tc.index) {
				t.Errorf("AppendScore = %x, want %x", got, tc.index)
			}
			got := AppendMemberScore(nil, tc.f)
			if !bytes.Equal(got, tc.memb) {
				t.Errorf("AppendMemberScore = %x, want %x", got, tc.memb)
			}
			back, err := DecodeScore(got)
			if err != nil || back != tc.f || math.Signbit(back) != math.Signbit(tc.f) {
				t.Errorf("DecodeScore(%x) = %v, %v; want %v", got, back, err, tc.f)
			}
		})
	}
	if lo, hi := ScoreBits(-math.SmallestNonzeroFloat64), ScoreBits(0); !(lo < NegZeroBits && NegZeroBits < hi) {
		t.Fatalf("NegZeroBits %x not between the smallest negative %x and +0 %x", NegZeroBits, lo, hi)
	}
}

func TestScoreIndexValue(t *testing.T) {
	negZero := math.Copysign(0, -1)
	for _, f := range []float64{negZero, 0, 1.5, -1, math.Inf(-1)} {
		v := AppendScoreIndexValue(nil, f)
		if want := IsNegZero(f); (len(v) != 0) != want {
			t.Errorf("AppendScoreIndexValue(%v) = %x", f, v)
		}
		// The key holds ScoreBits' form, so -0 comes back from it as +0.
		got, err := ScoreFromIndex(ScoreFromBits(ScoreBits(f)), v)
		if err != nil || got != f || math.Signbit(got) != math.Signbit(f) {
			t.Errorf("ScoreFromIndex for %v = %v, %v", f, got, err)
		}
	}
	for _, tc := range []struct {
		score float64
		v     []byte
	}{{1.5, []byte{1}}, {0, []byte{2}}, {0, []byte{1, 1}}, {negZero, []byte{0}}} {
		if _, err := ScoreFromIndex(tc.score, tc.v); !errors.Is(err, ErrCorrupt) {
			t.Errorf("ScoreFromIndex(%v, %x) = %v, want ErrCorrupt", tc.score, tc.v, err)
		}
	}
}
