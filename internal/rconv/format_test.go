package rconv

import (
	"flag"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestAppendFloat(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{math.NaN(), "nan"},
		{inf, "inf"},
		{negInf, "-inf"},
		{0, "0"},
		{negZ, "-0"},

		// Integers within ±2^62 take the ll2string path.
		{1, "1"},
		{-17, "-17"},
		{1e15, "1000000000000000"},
		{1e17, "100000000000000000"}, // 7.0 printed 1e+17
		{1e18, "1000000000000000000"},
		{4503599627370496, "4503599627370496"},
		{9007199254740992, "9007199254740992"},
		{1 << 62, "4611686018427387904"},
		{-(1 << 62), "-4611686018427387904"},
		{1e16 + 2, "10000000000000002"},

		// Past 2^62, Grisu2 digits: plain while the zeros are few...
		{1<<62 + 1<<10, "4611686018427389000"},
		{-(1<<62 + 1<<10), "-4611686018427389000"},
		{1 << 63, "9223372036854776000"},
		{1.2345678901234567e19, "12345678901234567000"},
		// ...then scientific, exponent signed and without padding.
		{1e19, "1e+19"},
		{1e20, "1e+20"},
		{1e21, "1e+21"},
		{1e22, "1e+22"},
		{1e100, "1e+100"},
		{math.MaxFloat64, "1.7976931348623157e+308"},

		// Fractions: plain down to 1e-6...
		{0.1, "0.1"},
		{-0.1, "-0.1"},
		{1.5, "1.5"},
		{100.5, "100.5"},
		{0.3, "0.3"},
		{math.Float64frombits(0x3fd3333333333334), "0.30000000000000004"},
		{1.0 / 3, "0.3333333333333333"},
		{2.0 / 3, "0.6666666666666666"},
		{math.Pi, "3.141592653589793"},
		{math.E, "2.718281828459045"},
		{123.456, "123.456"},
		{0.001, "0.001"},
		{1e-5, "0.00001"},
		{1.1e-5, "0.000011"},
		{1e-6, "0.000001"},
		{12345678.9, "12345678.9"},
		{123456789012.5, "123456789012.5"},
		{1000000000000000.5, "1000000000000000.5"},
		// ...scientific below, or when 7+ decimals sit after many digits.
		{1.5e-6, "1.5e-6"},
		{1e-7, "1e-7"},
		{1.5e-7, "1.5e-7"},
		{1.234e-5, "1.234e-5"},
		{0.000123456789, "1.23456789e-4"},
		{1234567.8901234567, "1.2345678901234567e+6"},
		{123456.7890123, "1.234567890123e+5"},
		{12345.678901234567, "1.2345678901234567e+4"},
		{1e-300, "1e-300"},
		{2.2250738585072014e-308, "2.2250738585072014e-308"},
		{5e-324, "5e-324"},

		// Grisu2 is not always shortest; Redis prints what it produces.
		{1e23, "99999999999999990000000"},
		{math.Float64frombits(0x42e1dbe186a86024), "157088633668353.13"},
		{math.Float64frombits(0x43175ef85b53726d), "1644586310360219.3"},
		{math.Float64frombits(0x7468779984a6e2ce), "5.6057071696732555e+252"},
		{math.Float64frombits(0x3b7c070a7d356cec), "3.7094092419790882e-22"},
	}
	for _, tt := range tests {
		if got := string(AppendFloat([]byte("x"), tt.in)); got != "x"+tt.want {
			t.Errorf("AppendFloat(%v) = %q, want %q", tt.in, got[1:], tt.want)
		}
	}
}

// TestAppendFloatRoundTrips checks over random doubles of every magnitude
// that the text parses back to the same double, and that it is the shortest
// text in all but the rare cases where Grisu2 is known to give more digits.
func TestAppendFloatRoundTrips(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 7))
	const n = 200000
	longer := 0
	for range n {
		f := math.Float64frombits(rng.Uint64())
		if math.IsNaN(f) {
			continue
		}
		out := AppendFloat(nil, f)
		back, err := strconv.ParseFloat(string(out), 64)
		if err != nil && !math.IsInf(f, 0) {
			t.Fatalf("AppendFloat(%b) = %q does not parse: %v", f, out, err)
		}
		if math.Float64bits(back) != math.Float64bits(f) {
			t.Fatalf("AppendFloat(%v) = %q parses back as %v", f, out, back)
		}
		if sig := significantDigits(out); sig > significantDigits([]byte(strconv.FormatFloat(f, 'e', -1, 64))) {
			longer++
		}
	}
	// Grisu2 misses the shortest form for roughly 0.1% of doubles.
	if longer > n/200 {
		t.Errorf("%d of %d outputs are longer than the shortest form", longer, n)
	}
}

func significantDigits(b []byte) int {
	s := string(b)
	if i := strings.IndexAny(s, "e"); i >= 0 {
		s = s[:i]
	}
	s = strings.Trim(strings.ReplaceAll(strings.TrimLeft(s, "-"), ".", ""), "0")
	return len(s)
}

func FuzzAppendFloat(f *testing.F) {
	for _, v := range []float64{0, negZ, 1, -1, 0.1, 1e23, 1e-7, 5e-324, math.MaxFloat64, 1 << 62, 1<<62 + 1024, inf, math.NaN()} {
		f.Add(math.Float64bits(v))
	}
	f.Fuzz(func(t *testing.T, bits uint64) {
		v := math.Float64frombits(bits)
		out := AppendFloat(nil, v)
		if math.IsNaN(v) {
			if string(out) != "nan" {
				t.Fatalf("AppendFloat(NaN) = %q", out)
			}
			return
		}
		back, ok := ParseFloat(out)
		if math.IsInf(v, 0) || v == 0 {
			ok = ok && back == v
		}
		if !ok || math.Float64bits(back) != bits {
			t.Fatalf("AppendFloat(%v) = %q parses back as %v, %v", v, out, back, ok)
		}
	})
}

func TestAppendFloatDoesNotAllocate(t *testing.T) {
	buf := make([]byte, 0, 512)
	for _, v := range []float64{0.1, 1e23, 42, math.MaxFloat64, -1e-300} {
		if n := testing.AllocsPerRun(100, func() { AppendFloat(buf[:0], v) }); n != 0 {
			t.Errorf("AppendFloat(%v) allocates %v times", v, n)
		}
	}
}

var update = flag.Bool("update", false, "rewrite powers.go from exact arithmetic")

// TestCachedPowers recomputes every cached power of ten with math/big and
// compares it with the table; with -update it rewrites the table instead.
func TestCachedPowers(t *testing.T) {
	var want [cachedPowerCount]diyFP
	for i := range want {
		want[i] = exactPow10(cachedPowerFirst + cachedPowerStep*i)
	}
	if *update {
		var b strings.Builder
		b.WriteString("// Code generated by TestCachedPowers -update; DO NOT EDIT.\n\n")
		b.WriteString("package rconv\n\n")
		b.WriteString("// cachedPowers[i] is 10^(cachedPowerFirst + cachedPowerStep*i) as f * 2^e,\n")
		b.WriteString("// f normalized to [2^63, 2^64) and rounded to nearest.\n")
		b.WriteString("var cachedPowers = [cachedPowerCount]diyFP{\n")
		for _, p := range want {
			fmt.Fprintf(&b, "\t{0x%016x, %d},\n", p.f, p.e)
		}
		b.WriteString("}\n")
		if err := os.WriteFile("powers.go", []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	for i, p := range want {
		if cachedPowers[i] != p {
			t.Errorf("cachedPowers[%d] (10^%d) = %#x*2^%d, want %#x*2^%d",
				i, cachedPowerFirst+cachedPowerStep*i, cachedPowers[i].f, cachedPowers[i].e, p.f, p.e)
		}
	}
}

// exactPow10 returns 10^k as f * 2^e with f in [2^63, 2^64), rounded to
// nearest (ties up; no power of ten is a tie).
func exactPow10(k int) diyFP {
	x := new(big.Rat)
	ten := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(max(k, -k))), nil)
	if k >= 0 {
		x.SetInt(ten)
	} else {
		x.SetFrac(big.NewInt(1), ten)
	}
	lo := new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), 63))
	hi := new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), 64))
	two := big.NewRat(2, 1)
	e := 0
	for x.Cmp(hi) >= 0 {
		x.Quo(x, two)
		e++
	}
	for x.Cmp(lo) < 0 {
		x.Mul(x, two)
		e--
	}
	f := new(big.Int).Quo(x.Num(), x.Denom())
	if new(big.Rat).Sub(x, new(big.Rat).SetInt(f)).Cmp(big.NewRat(1, 2)) >= 0 {
		f.Add(f, big.NewInt(1))
	}
	return diyFP{f.Uint64(), e}
}
