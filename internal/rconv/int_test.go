package rconv

import (
	"bytes"
	"math"
	"strconv"
	"testing"
)

func TestParseInt(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true},
		{"1", 1, true},
		{"-1", -1, true},
		{"99", 99, true},
		{"-99", -99, true},
		{"1234567890", 1234567890, true},
		{"9223372036854775807", math.MaxInt64, true},
		{"-9223372036854775808", math.MinInt64, true},
		{"9223372036854775808", 0, false},
		{"-9223372036854775809", 0, false},
		{"18446744073709551615", 0, false},
		{"18446744073709551616", 0, false},
		{"99999999999999999999", 0, false}, // 20 digits, overflows uint64
		{"-99999999999999999999", 0, false},
		{"", 0, false},
		{"-", 0, false},
		{"+1", 0, false},
		{"+0", 0, false},
		{"-0", 0, false},
		{"00", 0, false},
		{"01", 0, false},
		{"-01", 0, false},
		{" 1", 0, false},
		{"1 ", 0, false},
		{"1\x00", 0, false},
		{"\x001", 0, false},
		{"1a", 0, false},
		{"0x10", 0, false},
		{"1e3", 0, false},
		{"1.0", 0, false},
		{"--1", 0, false},
		{"1-", 0, false},
		{"١", 0, false}, // non-ASCII digits
		{"000000000000000000001", 0, false},
	}
	for _, tt := range tests {
		got, ok := ParseInt([]byte(tt.in))
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseInt(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestParseIntDoesNotAllocate(t *testing.T) {
	b := []byte("-9223372036854775808")
	if n := testing.AllocsPerRun(100, func() { ParseInt(b) }); n != 0 {
		t.Errorf("ParseInt allocates %v times", n)
	}
}

func FuzzParseInt(f *testing.F) {
	for _, s := range []string{"0", "-0", "1", "-1", "+1", "01", " 1", "1 ", "", "-",
		"9223372036854775807", "9223372036854775808", "-9223372036854775808",
		"-9223372036854775809", "18446744073709551616", "1e3", "0x1"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, ok := ParseInt(b)
		// Redis's integers are exactly the canonical decimal spellings of
		// int64 values: parsing must agree with strconv and round-trip.
		want, err := strconv.ParseInt(string(b), 10, 64)
		canonical := err == nil && strconv.FormatInt(want, 10) == string(b)
		if ok != canonical {
			t.Fatalf("ParseInt(%q) ok = %v, but canonical int64 = %v", b, ok, canonical)
		}
		if ok && v != want {
			t.Fatalf("ParseInt(%q) = %d, strconv says %d", b, v, want)
		}
		if ok && !bytes.Equal(AppendInt(nil, v), b) {
			t.Fatalf("AppendInt(ParseInt(%q)) = %q", b, AppendInt(nil, v))
		}
	})
}

func TestParseCursor(t *testing.T) {
	tests := []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"0", 0, true},
		{"17", 17, true},
		{"007", 7, true},
		{"+5", 5, true},
		{"-0", 0, true},
		{"-1", math.MaxUint64, true},
		{"-18446744073709551615", 1, true},
		{"18446744073709551615", math.MaxUint64, true},
		{"000000000000000000000000018446744073709551615", math.MaxUint64, true},
		{"", 0, true},            // strtoul parses nothing and stops at the end
		{"\x00", 0, true},        // the C string is empty
		{"\x00junk", 0, true},    // ...whatever follows the NUL
		{"12\x00junk", 12, true}, //
		{"18446744073709551616", 0, false},
		{"-18446744073709551616", 0, false},
		{"99999999999999999999999", 0, false},
		{" 1", 0, false},
		{"\t1", 0, false},
		{"1 ", 0, false},
		{"+", 0, false},
		{"-", 0, false},
		{"+-1", 0, false},
		{"--1", 0, false},
		{"+ 1", 0, false},
		{"0x1", 0, false},
		{"1e3", 0, false},
		{"abc", 0, false},
		{"1.0", 0, false},
	}
	for _, tt := range tests {
		got, ok := ParseCursor([]byte(tt.in))
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseCursor(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func FuzzParseCursor(f *testing.F) {
	for _, s := range []string{"", "0", "-1", "+5", "007", " 1", "1 ", "+", "-",
		"18446744073709551615", "18446744073709551616", "-18446744073709551616", "1\x00x", "\x00"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, ok := ParseCursor(b)
		// Model: cut at NUL, then an optional sign and digits, read by
		// strconv as an unsigned number.
		if i := bytes.IndexByte(b, 0); i >= 0 {
			b = b[:i]
		}
		if len(b) == 0 {
			if !ok || v != 0 {
				t.Fatalf("ParseCursor(empty) = %d, %v", v, ok)
			}
			return
		}
		neg := b[0] == '-'
		digits := b
		if b[0] == '+' || b[0] == '-' {
			digits = b[1:]
		}
		u, err := strconv.ParseUint(string(digits), 10, 64)
		wantOK := err == nil
		if ok != wantOK {
			t.Fatalf("ParseCursor(%q) ok = %v, model says %v", b, ok, wantOK)
		}
		if neg {
			u = -u
		}
		if ok && v != u {
			t.Fatalf("ParseCursor(%q) = %d, model says %d", b, v, u)
		}
	})
}

func TestAppendInt(t *testing.T) {
	tests := []struct {
		in   int64
		want string
	}{
		{0, "0"},
		{-1, "-1"},
		{42, "42"},
		{math.MaxInt64, "9223372036854775807"},
		{math.MinInt64, "-9223372036854775808"},
	}
	for _, tt := range tests {
		if got := string(AppendInt([]byte("x"), tt.in)); got != "x"+tt.want {
			t.Errorf("AppendInt(%d) = %q, want %q", tt.in, got, "x"+tt.want)
		}
	}
}
