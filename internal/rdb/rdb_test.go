package rdb

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestCRC64(t *testing.T) {
	if got := CRC64(0, []byte("123456789")); got != 0xe9c6d914c4b8d9ca {
		t.Fatalf("CRC64(123456789) = %#x", got)
	}
	// Chaining equals one pass.
	if a, b := CRC64(CRC64(0, []byte("1234")), []byte("56789")), CRC64(0, []byte("123456789")); a != b {
		t.Fatalf("chained %#x != whole %#x", a, b)
	}
}

func TestLengthRoundTrip(t *testing.T) {
	seed := rand.Uint64()
	rng := rand.New(rand.NewPCG(seed, 0))
	cases := []uint64{0, 1, 63, 64, 16383, 16384, 1<<32 - 1, 1 << 32, 1<<64 - 1}
	for range 1000 {
		cases = append(cases, rng.Uint64()>>rng.IntN(64))
	}
	for _, n := range cases {
		r := NewReader(AppendLength(nil, n))
		got, err := r.Length()
		if err != nil || got != n || r.Len() != 0 {
			t.Fatalf("seed %d: length %d read back as %d, %v (%d left)", seed, n, got, err, r.Len())
		}
	}
}

// Payloads of DUMP from a real Redis 7.0.15: a string value's type byte,
// then the value in each of RDB's string encodings, then the trailer.
func TestStringEncodingsFromRedis(t *testing.T) {
	tests := []struct {
		name, payload, want string
	}{
		{"int8", "\x00\xc0\x0c\n\x00<*\xf8Q\\\x04\xbc\xd5", "12"},
		{"int16", "\x00\xc1H\xf4\n\x00n\xc0\xb4#\x14\xcdi\xf7", "-3000"},
		{"int32", "\x00\xc2\x87\xd6\x12\x00\n\x00\xe9>\x1e6+;|^", "1234567"},
		{"lzf", "\x00\xc3\x12AJ\x03abca\xe0\xe3\x02\x02xyz\xe0L\x02\x01yz\n\x00\x95Da\xa7\xdb\xb9\n\xe7",
			strings.Repeat("abcabcabcabc", 20) + strings.Repeat("xyz", 30)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, err := CheckTrailer([]byte(tt.payload))
			if err != nil {
				t.Fatal(err)
			}
			r := NewReader(body[1:])
			got, err := r.String()
			if err != nil || string(got) != tt.want || r.Len() != 0 {
				t.Fatalf("String() = %q, %v (%d left), want %q", got, err, r.Len(), tt.want)
			}
		})
	}
}

// functionsFromRedis is FUNCTION DUMP of two libraries from Redis 7.0.15.
const functionsFromRedis = "f5405023216c7561206e616d653d6c6962320a72656469732e72656769737465725f66756e6374696f6e28276632272c2066756e6374696f6e286b6579732c2061726773292072657475726e203220656e6429f5405123216c7561206e616d653d6d796c69620a72656469732e72656769737465725f66756e6374696f6e28276631272c2066756e6374696f6e286b6579732c2061726773292072657475726e203120656e64290a007aa9314d74955c30"

func TestFunctions(t *testing.T) {
	payload, _ := hex.DecodeString(functionsFromRedis)
	codes, err := ReadFunctions(payload)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"#!lua name=lib2\nredis.register_function('f2', function(keys, args) return 2 end)",
		"#!lua name=mylib\nredis.register_function('f1', function(keys, args) return 1 end)",
	}
	if len(codes) != 2 || string(codes[0]) != want[0] || string(codes[1]) != want[1] {
		t.Fatalf("ReadFunctions = %q", codes)
	}
	// Our own payload reads back, and differs from Redis's only in the
	// version it states.
	ours := AppendFunctions(nil, codes)
	if !bytes.Equal(ours[:len(ours)-10], payload[:len(payload)-10]) {
		t.Fatalf("AppendFunctions body differs from Redis's")
	}
	back, err := ReadFunctions(ours)
	if err != nil || len(back) != 2 {
		t.Fatalf("round trip: %q, %v", back, err)
	}

	bad := []struct {
		name    string
		payload []byte
		want    error
	}{
		{"short", []byte{1, 2, 3}, ErrBadTrailer},
		{"checksum", append(append([]byte(nil), payload[:len(payload)-1]...), payload[len(payload)-1]^1), ErrBadTrailer},
		{"newer version", AppendTrailer([]byte{})[:0], ErrBadTrailer},
		{"not a function", AppendTrailer([]byte{0, 1, 'x'}), ErrNotFunction},
		{"pre-GA", AppendTrailer([]byte{OpFunctionPreGA, 1, 'x'}), ErrPreGA},
		{"truncated code", AppendTrailer([]byte{OpFunction2, 5, 'x'}), ErrCorrupt},
	}
	newer := append([]byte{OpFunction2, 1, 'x'}, Version+1, 0)
	newer = append(newer, make([]byte, 8)...)
	bad[2].payload = newer
	for _, tt := range bad {
		if _, err := ReadFunctions(tt.payload); !errors.Is(err, tt.want) {
			t.Errorf("%s: err = %v, want %v", tt.name, err, tt.want)
		}
	}
}

func TestLZFRejectsLies(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
	}{
		{"huge claimed length", []byte{0xc3, 0x01, 0x80, 0x7f, 0xff, 0xff, 0xff, 0x00}},
		{"back reference before start", []byte{0xc3, 0x02, 0x05, 0x20, 0x05}},
		{"literal past end", []byte{0xc3, 0x02, 0x03, 0x05, 'a'}},
	}
	for _, tt := range tests {
		if _, err := NewReader(tt.in).String(); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: err = %v, want ErrCorrupt", tt.name, err)
		}
	}
}

func FuzzReadFunctions(f *testing.F) {
	payload, _ := hex.DecodeString(functionsFromRedis)
	f.Add(payload)
	f.Add(AppendFunctions(nil, [][]byte{[]byte("x")}))
	f.Fuzz(func(t *testing.T, b []byte) {
		codes, err := ReadFunctions(b)
		if err != nil {
			return
		}
		// What decodes re-encodes to a payload that decodes the same.
		again, err := ReadFunctions(AppendFunctions(nil, codes))
		if err != nil || len(again) != len(codes) {
			t.Fatalf("re-encoded %q: %q, %v", codes, again, err)
		}
	})
}

func FuzzString(f *testing.F) {
	f.Add([]byte("\xc3\x12AJ\x03abca\xe0\xe3\x02\x02xyz\xe0L\x02\x01yz"))
	f.Add([]byte("\xc0\x0c"))
	f.Add([]byte("\x05hello"))
	f.Add([]byte("\x81\x00\x00\x00\x00\x00\x00\x00\x03abc"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := NewReader(b).String()
		if err != nil {
			return
		}
		got, err := NewReader(AppendString(nil, s)).String()
		if err != nil || !bytes.Equal(got, s) {
			t.Fatalf("round trip of %q: %q, %v", s, got, err)
		}
	})
}
