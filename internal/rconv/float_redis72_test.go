package rconv

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"
)

// The expectations are what Redis 7.2's d2string prints: they were produced
// by compiling its fpconv_dtoa and d2string and comparing them with
// AppendFloat on three million random doubles, without a difference.
func TestAppendFloatRedis72Table(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{0, "0"},
		{math.Copysign(0, -1), "-0"},
		{math.Inf(1), "inf"},
		{math.Inf(-1), "-inf"},
		{math.NaN(), "nan"},
		{math.Float64frombits(0x7FF8000000000001), "nan"},
		{math.Float64frombits(0xFFF8000000000000), "nan"},

		// Integral values within ±2^62 print as integers, exactly.
		{1, "1"},
		{100, "100"},
		{-2.5, "-2.5"},
		{1e15, "1000000000000000"},
		{1e16, "10000000000000000"},
		{123456789012345678, "123456789012345680"},
		{9007199254740993, "9007199254740992"},
		{1 << 62, "4611686018427387904"},
		{-(1 << 62), "-4611686018427387904"},
		// Beyond 2^62 Grisu2 takes over.
		{1<<62 + 1024, "4611686018427389000"},
		{-(1<<62 + 1024), "-4611686018427389000"},
		{5e18, "5e+18"},
		{1e21, "1e+21"},
		{1.1e21, "1.1e+21"},
		{1e22, "1e+22"},
		{1.2345678901234568e22, "12345678901234568000000"},
		{1.2345678901234567e23, "123456789012345670000000"},
		{1e23, "99999999999999990000000"},
		{1e100, "1e+100"},
		{math.MaxFloat64, "1.7976931348623157e+308"},

		{0.1, "0.1"},
		{0.3, "0.3"},
		{2.0 / 3, "0.6666666666666666"},
		{1.5, "1.5"},
		{3.14, "3.14"},
		{123456.7, "123456.7"},
		{12345678.9, "12345678.9"},
		{4500000000000000.5, "4500000000000000.5"},
		{1e-5, "0.00001"},
		{1e-6, "0.000001"},
		{0.0012345678, "0.0012345678"},
		{1e-7, "1e-7"},
		{1.5e-7, "1.5e-7"},
		{1.2345e-5, "1.2345e-5"},
		{-1e-100, "-1e-100"},
		{1.5e-300, "1.5e-300"},
		{2.2250738585072014e-308, "2.2250738585072014e-308"},
		{5e-324, "5e-324"},

		// Grisu2 is not always shortest; Redis prints these digits.
		{7.008006070479047, "7.0080060704790466"},
		{258.6609816331584, "258.66098163315843"},
		{9.96416727795526e-10, "9.964167277955261e-10"},
	}
	for _, tt := range tests {
		if got := string(AppendFloat(nil, tt.in)); got != tt.want {
			t.Errorf("AppendFloat(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := string(AppendFloat([]byte("x="), 0.5)); got != "x=0.5" {
		t.Errorf("AppendFloat appended to %q, want %q", got, "x=0.5")
	}
}

func TestAppendFloatRoundTripsRandom(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, seed))
	for range 200_000 {
		f := math.Float64frombits(r.Uint64())
		if math.IsNaN(f) || math.IsInf(f, 0) {
			continue
		}
		checkFloatRoundTrip(t, f)
		checkFloatRoundTrip(t, r.Float64()*math.Pow(10, float64(r.IntN(40)-20)))
	}
}

func checkFloatRoundTrip(t *testing.T, f float64) {
	t.Helper()
	s := string(AppendFloat(nil, f))
	got, err := strconv.ParseFloat(s, 64)
	if err != nil || math.Float64bits(got) != math.Float64bits(f) {
		t.Fatalf("AppendFloat(%v) = %q, which reads back as %v, %v", f, s, got, err)
	}
	if len(s) > 25 {
		t.Fatalf("AppendFloat(%v) = %q is longer than Writer.Double's buffer allows", f, s)
	}
}

func FuzzAppendFloatRoundTrip(f *testing.F) {
	for _, v := range []float64{0, 1, -1, 0.1, 1e21, 1e-7, 5e-324, math.MaxFloat64, 1 << 62, 7.008006070479047} {
		f.Add(math.Float64bits(v))
	}
	f.Fuzz(func(t *testing.T, bits uint64) {
		v := math.Float64frombits(bits)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return
		}
		checkFloatRoundTrip(t, v)
	})
}

func BenchmarkAppendFloat(b *testing.B) {
	var buf [32]byte
	for _, tc := range []struct {
		name string
		f    float64
	}{
		{"integral", 12345},
		{"fraction", 3.14159},
		{"long", 2.0 / 3},
		{"exponent", 1.5e-300},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				AppendFloat(buf[:0], tc.f)
			}
		})
	}
}
