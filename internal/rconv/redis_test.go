package rconv

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/redistest"
)

// The tests in this file compare the parsers with a real redis-server. They
// are skipped when none is installed.
//
// Debian's redis-server is 7.0, which prints scores with "%.17g" rather than
// 7.2's fpconv (see AppendFloat), so ZSCORE text is compared only where the
// two agree; parsing is the same in both.

func TestParseIntAgainstRedis(t *testing.T) {
	c := redistest.Start(t)
	rng := newRand(t, 10)
	inputs := []string{"0", "-0", "+1", "01", " 1", "1 ", "", "-", "9223372036854775807",
		"9223372036854775808", "-9223372036854775808", "-9223372036854775809", "1\x00", "1e3"}
	for range 1500 {
		inputs = append(inputs, randomInt(rng))
	}
	accepted := 0
	for _, in := range inputs {
		mustDo(t, c, "SET", "k", "0")
		reply, err := c.Do("INCRBY", "k", in)
		got, ok := ParseInt([]byte(in))
		switch {
		case err == nil:
			accepted++
			if !ok || reply.(int64) != got {
				t.Errorf("INCRBY 0 by %q = %v; ParseInt = %d, %v", in, reply, got, ok)
			}
		case strings.Contains(err.Error(), "not an integer or out of range"):
			if ok {
				t.Errorf("Redis rejects integer %q; ParseInt = %d, true", in, got)
			}
		default:
			t.Fatalf("INCRBY k %q: %v", in, err)
		}
	}
	checkMix(t, accepted, len(inputs))
}

func TestParseCursorAgainstRedis(t *testing.T) {
	c := redistest.Start(t)
	for i := range 200 {
		mustDo(t, c, "SET", fmt.Sprintf("key:%d", i), "v")
	}
	time.Sleep(200 * time.Millisecond) // let incremental rehashing finish
	rng := newRand(t, 11)
	inputs := []string{"", "0", "-1", "+5", "007", "-0", " 1", "1 ", "+", "-", "0x1",
		"18446744073709551615", "18446744073709551616", "-18446744073709551615",
		"-18446744073709551616", "1\x00junk", "\x00", "\x001"}
	for range 1500 {
		inputs = append(inputs, randomInt(rng))
	}
	accepted := 0
	for _, in := range inputs {
		reply, err := c.Do("SCAN", in, "COUNT", "3")
		got, ok := ParseCursor([]byte(in))
		if err != nil {
			if !strings.Contains(err.Error(), "invalid cursor") {
				t.Fatalf("SCAN %q: %v", in, err)
			}
			if ok {
				t.Errorf("Redis rejects cursor %q; ParseCursor = %d, true", in, got)
			}
			continue
		}
		accepted++
		if !ok {
			t.Errorf("Redis accepts cursor %q; ParseCursor rejects it", in)
			continue
		}
		// The reply depends on the cursor's value, so the same value spelled
		// canonically must give the same reply.
		canonical, err := c.Do("SCAN", strconv.FormatUint(got, 10), "COUNT", "3")
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(reply) != fmt.Sprint(canonical) {
			t.Errorf("SCAN %q = %q but SCAN %d (ParseCursor's value) = %q", in, reply, got, canonical)
		}
	}
	checkMix(t, accepted, len(inputs))
}

func TestParseFloatAgainstRedis(t *testing.T) {
	c := redistest.Start(t)
	rng := newRand(t, 12)
	inputs := append([]string{}, fuzzFloatSeeds...)
	inputs = append(inputs, "4e-324", "2.4703282292062328e-324", "2.4703282292062327e-324",
		"1.7976931348623158e308", "1.7976931348623159e308", "0x1p-1075", "0x1.8p-1075",
		"0x1.fffffffffffff8p1023", "0X1P3", "0x1e", "INFINITY", "-inf", "+Inf", "\x0b1")
	for range 2500 {
		inputs = append(inputs, randomFloat(rng))
	}
	accepted := 0
	for _, in := range inputs {
		switch strings.ToLower(in) {
		case "nx", "xx", "gt", "lt", "ch", "incr":
			continue // ZADD would read it as an option
		}
		_, err := c.Do("ZADD", "z", in, "m")
		got, ok := ParseFloat([]byte(in))
		if err != nil {
			if !strings.Contains(err.Error(), "not a valid float") {
				t.Fatalf("ZADD z %q m: %v", in, err)
			}
			if ok {
				t.Errorf("Redis rejects float %q; ParseFloat = %v, true", in, got)
			}
			continue
		}
		accepted++
		if !ok {
			t.Errorf("Redis accepts float %q; ParseFloat rejects it", in)
			continue
		}
		score := mustDo(t, c, "ZSCORE", "z", "m").([]byte)
		// 7.0's "%.17g" round-trips, so it pins down the stored double.
		want, err := strconv.ParseFloat(string(score), 64)
		if err != nil || want != got {
			t.Errorf("ZADD %q: ZSCORE = %q; ParseFloat = %v", in, score, got)
		}
		if math.Trunc(got) == got && math.Abs(got) < 1e17 && got != 0 || math.IsInf(got, 0) {
			if ours := AppendFloat(nil, got); !bytes.Equal(ours, score) {
				t.Errorf("ZSCORE of %q = %q; AppendFloat = %q", in, score, ours)
			}
		}
	}
	checkMix(t, accepted, len(inputs))
}

func TestParseLongDoubleAgainstRedis(t *testing.T) {
	c := redistest.Start(t)
	rng := newRand(t, 13)
	inputs := append([]string{}, fuzzFloatSeeds...)
	inputs = append(inputs, "0x1p-16446", "0x1.0000001p-16446", "0x1.fffffffffffffffep16383",
		"0x1.ffffffffffffffffp16383", "1.18973149535723176505e4932", "1.18973149535723176506e4932",
		"1.8225997659412373012e-4951", "1.8225997659412373013e-4951", "1e-4950", "1e-4952",
		strings.Repeat("0", maxLongDoubleChars-2)+"1", strings.Repeat("0", maxLongDoubleChars-1)+"1")
	for range 2500 {
		inputs = append(inputs, randomFloat(rng))
	}
	accepted := 0
	for _, in := range inputs {
		mustDo(t, c, "DEL", "k")
		reply, err := c.Do("INCRBYFLOAT", "k", in)
		got, ok := ParseLongDouble([]byte(in))
		switch {
		case err == nil:
			accepted++
			if !ok {
				t.Errorf("Redis accepts long double %q (= %.30q); ParseLongDouble rejects it", in, reply)
			}
		case strings.Contains(err.Error(), "would produce NaN or Infinity"):
			accepted++
			if !ok || !math.IsInf(got, 0) {
				t.Errorf("Redis accepts %q as an infinity; ParseLongDouble = %v, %v", in, got, ok)
			}
		case strings.Contains(err.Error(), "not a valid float"):
			if ok {
				t.Errorf("Redis rejects long double %q; ParseLongDouble = %v, true", in, got)
			}
		default:
			t.Fatalf("INCRBYFLOAT k %.40q: %v", in, err)
		}
	}
	checkMix(t, accepted, len(inputs))
}

// checkMix guards against a comparison that passes because every input was
// accepted, or every input rejected.
func checkMix(t *testing.T, accepted, total int) {
	t.Helper()
	if accepted < total/10 || accepted > total*9/10 {
		t.Errorf("%d of %d inputs accepted; the generator no longer exercises both outcomes", accepted, total)
	}
}

func newRand(t *testing.T, stream uint64) *rand.Rand {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	return rand.New(rand.NewPCG(uint64(seed), stream))
}

// randomInt draws integer-like strings, valid about half the time.
func randomInt(rng *rand.Rand) string {
	var b []byte
	if rng.IntN(4) == 0 {
		b = append(b, "+-"[rng.IntN(2)])
	}
	n := rng.IntN(22)
	for range n {
		b = append(b, byte('0'+rng.IntN(10)))
	}
	if rng.IntN(8) == 0 && len(b) > 0 {
		b[rng.IntN(len(b))] = " x\x00.+-e\t"[rng.IntN(8)]
	}
	return string(b)
}

// randomFloat draws strings close to strtod's syntax: decimal or hex
// mantissas, exponents from tiny to huge, infinities, and corruptions.
func randomFloat(rng *rand.Rand) string {
	var b strings.Builder
	if rng.IntN(3) == 0 {
		b.WriteByte("+-"[rng.IntN(2)])
	}
	switch rng.IntN(10) {
	case 0:
		b.WriteString([]string{"inf", "INF", "Infinity", "nan", "infin", "in"}[rng.IntN(6)])
	case 1, 2:
		b.WriteString([]string{"0x", "0X"}[rng.IntN(2)])
		writeDigits(rng, &b, "0123456789abcdefABCDEF")
		if rng.IntN(2) == 0 {
			b.WriteString([]string{"p", "P"}[rng.IntN(2)])
			writeExponent(rng, &b, 17000)
		}
	default:
		writeDigits(rng, &b, "0123456789")
		if rng.IntN(2) == 0 {
			b.WriteString([]string{"e", "E"}[rng.IntN(2)])
			writeExponent(rng, &b, 5000)
		}
	}
	s := []byte(b.String())
	if rng.IntN(10) == 0 && len(s) > 0 {
		s[rng.IntN(len(s))] = " .e+-x\x00p_"[rng.IntN(9)]
	}
	return string(s)
}

func writeDigits(rng *rand.Rand, b *strings.Builder, alphabet string) {
	for range rng.IntN(12) {
		b.WriteByte(alphabet[rng.IntN(len(alphabet))])
	}
	if rng.IntN(2) == 0 {
		b.WriteByte('.')
		for range rng.IntN(12) {
			b.WriteByte(alphabet[rng.IntN(len(alphabet))])
		}
	}
}

func writeExponent(rng *rand.Rand, b *strings.Builder, limit int) {
	switch rng.IntN(4) {
	case 0:
		b.WriteByte('-')
	case 1:
		b.WriteByte('+')
	}
	if rng.IntN(5) == 0 {
		return // exponent without digits
	}
	b.WriteString(strconv.Itoa(rng.IntN(limit)))
}

func mustDo(t *testing.T, c *redistest.Conn, args ...any) any {
	t.Helper()
	v, err := c.Do(args...)
	if err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	return v
}
