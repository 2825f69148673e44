package rconv

import (
	"strings"
	"testing"

	"github.com/cairndb/cairn/internal/redistest"
)

// ldSum parses a and b, adds them and prints the sum, or "overflow".
func ldSum(t *testing.T, a, b string) string {
	t.Helper()
	x, ok := ParseLongDoubleExact([]byte(a))
	if !ok {
		t.Fatalf("ParseLongDoubleExact(%q) rejected", a)
	}
	y, ok := ParseLongDoubleExact([]byte(b))
	if !ok {
		t.Fatalf("ParseLongDoubleExact(%q) rejected", b)
	}
	z, ok := x.Add(y)
	if !ok {
		return "overflow"
	}
	return string(z.AppendHuman(nil))
}

// The expected values are redis-server 7.0.15's HINCRBYFLOAT replies.
func TestLongDoubleAdd(t *testing.T) {
	tests := []struct{ a, b, want string }{
		{"1000", "0.1", "1000.09999999999999998"},
		{"3.3", "1.1", "4.4"},
		{"0", "3.3", "3.3"},
		{"0x1.8p3", "-0.3", "11.7"},
		{"0", "1e-4940", "0"},
		{"-0.00000000000000000001", "0", "0"},
		{"-0", "-0", "0"},
		{"0.000003814697265625", "0", "0.00000381469726562"}, // a tie, to even
		{"0.00000000000000001", "0.000000000000000004", "0.00000000000000001"},
		{"9223372036854775807", ".5", "9223372036854775807.5"},
		{"9223372036854775808", ".5", "9223372036854775808"}, // 2^63 + 0.5 needs 65 bits
		{"-9223372036854775808", "5.0e-1", "-9223372036854775807.5"},
		{"9223372036854775807", "1", "9223372036854775808"},
		{"1e308", "0", "99999999999999999996685879655845645660560099847415567207797047994921734868838061872100126921888539320446747225054013223152134749593960583597420814430196418767959100019603190778663109604507106667939153395788938914560543563061268364901618630217086589253444881623791300855757318142424510452728255046343928578048"},
		{"1.18973149535723176502e+4932", "1e4920", "overflow"},
		{"1.18973149535723176502e+4932", "1e4900", "118973149535723176502126385303..."}, // 4933 digits
		{"inf", "1", "overflow"},
		{"1", "-inf", "overflow"},
	}
	for _, tt := range tests {
		got := ldSum(t, tt.a, tt.b)
		if prefix, ok := strings.CutSuffix(tt.want, "..."); ok {
			if !strings.HasPrefix(got, prefix) || len(got) != 4933 {
				t.Errorf("%s + %s = %.40s... (%d digits); want %s (4933 digits)", tt.a, tt.b, got, len(got), tt.want)
			}
			continue
		}
		if got != tt.want {
			t.Errorf("%s + %s = %s; want %s", tt.a, tt.b, got, tt.want)
		}
	}
}

// TestLongDoubleAgainstRedis adds random numbers with HINCRBYFLOAT on a
// real redis-server and compares every accepted sum.
func TestLongDoubleAgainstRedis(t *testing.T) {
	c := redistest.Start(t)
	rng := newRand(t, 20)
	accepted := 0
	const total = 1500
	for range total {
		a, b := randomFloat(rng), randomFloat(rng)
		mustDo(t, c, "DEL", "h")
		if _, err := c.Do("HSET", "h", "f", a); err != nil {
			t.Fatalf("HSET: %v", err)
		}
		reply, err := c.Do("HINCRBYFLOAT", "h", "f", b)
		x, xok := ParseLongDoubleExact([]byte(a))
		y, yok := ParseLongDoubleExact([]byte(b))
		if err != nil {
			// Rejected: either argument, an infinite increment, or a sum
			// that is not finite.
			msg := err.Error()
			var sumOK bool
			if xok && yok && !y.IsInf() {
				_, sumOK = x.Add(y)
			}
			if xok && yok && !y.IsInf() && sumOK {
				t.Errorf("HINCRBYFLOAT %q + %q: %v; ours accepts", a, b, msg)
			}
			continue
		}
		accepted++
		if !xok || !yok {
			t.Errorf("HINCRBYFLOAT %q + %q = %q; ours rejects (%v, %v)", a, b, reply, xok, yok)
			continue
		}
		z, ok := x.Add(y)
		if got := string(z.AppendHuman(nil)); !ok || got != string(reply.([]byte)) {
			t.Errorf("HINCRBYFLOAT %q + %q = %q; ours %q (%v)", a, b, reply, got, ok)
		}
	}
	checkMix(t, accepted, total)
}
