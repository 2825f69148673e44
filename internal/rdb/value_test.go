package rdb

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// redisDumps reads testdata/redis70-dumps.txt: DUMP payloads taken from a
// real redis-server 7.0.15 (one line each: name, OBJECT ENCODING, hex), made
// by SET/RPUSH/SADD/ZADD/HSET of the values the tests below expect.
func redisDumps(tb testing.TB) map[string][]byte {
	tb.Helper()
	f, err := os.Open("testdata/redis70-dumps.txt")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	out := map[string][]byte{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		fields := strings.Fields(line)
		p, err := hex.DecodeString(fields[2])
		if err != nil {
			tb.Fatalf("%s: %v", fields[0], err)
		}
		out[fields[0]] = p
	}
	return out
}

func strs(ss ...string) [][]byte {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = []byte(s)
	}
	return out
}

func seq(prefix string, n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = []byte(prefix + strconv.Itoa(i))
	}
	return out
}

// sortedItems sorts a set's members or a hash's pairs so that they
// compare whatever order the encoding used.
func normalize(o Object) Object {
	sortBytes := func(b [][]byte) {
		for i := 1; i < len(b); i++ {
			for j := i; j > 0 && bytes.Compare(b[j-1], b[j]) > 0; j-- {
				b[j-1], b[j] = b[j], b[j-1]
			}
		}
	}
	switch o.Kind {
	case KindSet:
		sortBytes(o.Items)
	case KindHash:
		var joined [][]byte
		for i := 0; i < len(o.Pairs); i += 2 {
			joined = append(joined, append(append(append([]byte{}, o.Pairs[i]...), 0), o.Pairs[i+1]...))
		}
		sortBytes(joined)
		o.Pairs = nil
		for _, j := range joined {
			k, v, _ := bytes.Cut(j, []byte{0})
			o.Pairs = append(o.Pairs, k, v)
		}
	case KindZSet:
		z := o.ZSet
		for i := 1; i < len(z); i++ {
			for j := i; j > 0 && bytes.Compare(z[j-1].Member, z[j].Member) > 0; j-- {
				z[j-1], z[j] = z[j], z[j-1]
			}
		}
	}
	return o
}

func TestDecodeRedisDumps(t *testing.T) {
	dumps := redisDumps(t)
	pairs := func(n int, f, v string) [][]byte {
		var out [][]byte
		for i := range n {
			out = append(out, []byte(f+strconv.Itoa(i)), []byte(v+strconv.Itoa(i)))
		}
		return out
	}
	var bigZ []ScoredMember
	for i := range 300 {
		bigZ = append(bigZ, ScoredMember{[]byte("m" + strconv.Itoa(i)), float64(i) * 0.5})
	}
	tests := map[string]Object{
		"str-raw":      {Kind: KindString, String: []byte("hello world")},
		"str-int":      {Kind: KindString, String: []byte("12345")},
		"str-neg":      {Kind: KindString, String: []byte("-70000")},
		"str-lzf":      {Kind: KindString, String: []byte(strings.Repeat("abcdefgh", 40))},
		"list-small":   {Kind: KindList, Items: strs("a", "1", "-5", "300", "-300", "70000", "5000000000", "-5000000000", strings.Repeat("x", 70), strings.Repeat("y", 5000))},
		"list-big":     {Kind: KindList, Items: seq("e", 1000)},
		"list-bigel":   {Kind: KindList, Items: strs("a", strings.Repeat("z", 20000), "b")},
		"set-intset":   {Kind: KindSet, Items: strs("1", "-2", "300", "70000", "-5000000000")},
		"set-listpack": {Kind: KindSet, Items: strs("a", "b", "12", "c")},
		"set-big":      {Kind: KindSet, Items: seq("m", 600)},
		"zset-small": {Kind: KindZSet, ZSet: []ScoredMember{{[]byte("a"), 1}, {[]byte("b"), -2.5},
			{[]byte("c"), math.Inf(1)}, {[]byte("d"), math.Inf(-1)}, {[]byte("e"), 3e100}, {[]byte("f"), 7}}},
		"zset-big":     {Kind: KindZSet, ZSet: bigZ},
		"hash-small":   {Kind: KindHash, Pairs: strs("f1", "v1", "f2", "123", "f3", "-4")},
		"hash-big":     {Kind: KindHash, Pairs: pairs(600, "f", "v")},
		"hash-longval": {Kind: KindHash, Pairs: strs("f", strings.Repeat("x", 100))},
	}
	for name, want := range tests {
		t.Run(name, func(t *testing.T) {
			p, ok := dumps[name]
			if !ok {
				t.Fatalf("no dump %q in testdata", name)
			}
			got, err := DecodeValue(p)
			if err != nil {
				t.Fatal(err)
			}
			if g, w := normalize(got), normalize(want); !reflect.DeepEqual(g, w) {
				t.Fatalf("decoded %+v\nwant %+v", g, w)
			}
			// What DUMP writes decodes to the same value.
			again, err := DecodeValue(AppendValue(nil, got))
			if err != nil {
				t.Fatal(err)
			}
			if g, w := normalize(again), normalize(want); !reflect.DeepEqual(g, w) {
				t.Fatalf("re-encoded %+v\nwant %+v", g, w)
			}
		})
	}
}

func TestListpackRoundTrip(t *testing.T) {
	seed := rand.Uint64()
	rng := rand.New(rand.NewPCG(seed, 0))
	for range 200 {
		n := rng.IntN(50)
		var entries [][]byte
		for range n {
			l := []int{0, 1, 63, 64, 127, 200, 4095, 4096, 20000}[rng.IntN(9)]
			e := make([]byte, l)
			for i := range e {
				e[i] = byte(rng.IntN(256))
			}
			entries = append(entries, e)
		}
		got, err := DecodeListpack(AppendListpack(nil, entries))
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if len(got) != len(entries) {
			t.Fatalf("seed %d: %d entries, want %d", seed, len(got), len(entries))
		}
		for i := range got {
			if !bytes.Equal(got[i], entries[i]) {
				t.Fatalf("seed %d: entry %d differs", seed, i)
			}
		}
	}
}

func TestDecodeBadPayloads(t *testing.T) {
	dumps := redisDumps(t)
	withTrailer := func(body string) []byte {
		b := binaryTrailer([]byte(body))
		return b
	}
	flipped := bytes.Clone(dumps["list-small"])
	flipped[5] ^= 1
	newer := bytes.Clone(dumps["str-raw"])
	newer[len(newer)-10] = FieldTTLVersion + 1
	newer = binaryTrailerVersion(newer[:len(newer)-10], FieldTTLVersion+1)
	tests := []struct {
		name    string
		payload []byte
		want    error
	}{
		{"empty", nil, ErrBadTrailer},
		{"bad crc", flipped, ErrBadTrailer},
		{"newer version", newer, ErrBadTrailer},
		{"no type", withTrailer(""), ErrCorrupt},
		{"module type", withTrailer("\x07"), ErrUnsupportedType},
		{"huge set count", withTrailer("\x02\x81\xff\xff\xff\xff\xff\xff\xff\xff"), ErrCorrupt},
		{"huge string", withTrailer("\x00\x80\xff\xff\xff\xff"), ErrCorrupt},
		{"empty set", withTrailer("\x02\x00"), ErrCorrupt},
		{"duplicate set member", withTrailer("\x02\x02\x01a\x01a"), ErrCorrupt},
		{"duplicate hash field", withTrailer("\x04\x02\x01a\x01x\x01a\x01y"), ErrCorrupt},
		{"nan score", withTrailer("\x03\x01\x01a\xfd"), ErrCorrupt},
		{"bad intset width", withTrailer("\x0b\x08\x03\x00\x00\x00\x00\x00\x00\x00"), ErrCorrupt},
		{"bad listpack", withTrailer("\x10\x07\x07\x00\x00\x00\x02\x00\xff"), ErrCorrupt},
		{"bad quicklist container", withTrailer("\x12\x01\x05\x01a"), ErrCorrupt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := DecodeValue(tt.payload); !errors.Is(err, tt.want) {
				t.Fatalf("DecodeValue = %v, want %v", err, tt.want)
			}
		})
	}
}

// binaryTrailer appends a valid version-10 trailer to body.
func binaryTrailer(body []byte) []byte { return binaryTrailerVersion(body, DumpVersion) }

func binaryTrailerVersion(body []byte, version byte) []byte {
	b := append(bytes.Clone(body), version, 0)
	var crc [8]byte
	c := CRC64(0, b)
	for i := range crc {
		crc[i] = byte(c >> (8 * i))
	}
	return append(b, crc[:]...)
}

func FuzzDecodeValue(f *testing.F) {
	for _, p := range redisDumps(f) {
		f.Add(p)
		// The body with a fresh trailer too, so that mutations of the
		// body are not all stopped by the checksum.
		f.Add(p[:len(p)-10])
	}
	// Redis 7.4's hash with field deadlines, as DUMP writes it.
	ttlHash := AppendValue(nil, Object{Kind: KindHash, Pairs: strs("a", "1", "b", "2"), FieldDeadlines: []int64{1_800_000_000_000, 0}})
	f.Add(ttlHash)
	f.Add(ttlHash[:len(ttlHash)-10])
	f.Fuzz(func(t *testing.T, p []byte) {
		if len(p) > 0 && p[0] < 32 && len(p) < 20000 {
			// Treat short inputs as bodies to reach the decoders.
			p = binaryTrailer(p)
		}
		o, err := DecodeValue(p)
		if err != nil {
			return
		}
		if o.Kind == KindStream {
			// DUMP's stream type has no active times: Redis 7.2's do
			// not survive it.
			for g := range o.Stream.Groups {
				for c := range o.Stream.Groups[g].Consumers {
					o.Stream.Groups[g].Consumers[c].ActiveMs = o.Stream.Groups[g].Consumers[c].SeenMs
				}
			}
		}
		again, err := DecodeValue(AppendValue(nil, o))
		if err != nil {
			t.Fatalf("re-encoding of a decoded value does not decode: %v", err)
		}
		if !reflect.DeepEqual(normalize(again), normalize(o)) {
			t.Fatalf("round trip changed %+v into %+v", o, again)
		}
	})
}

// redisBlobs returns the listpacks and intsets inside the real Redis
// payloads of testdata, as seeds for the container decoders' fuzzers.
func redisBlobs(tb testing.TB) (listpacks, intsets [][]byte) {
	for _, p := range redisDumps(tb) {
		r := NewReader(p[:len(p)-10])
		t, _ := r.Byte()
		switch t {
		case TypeSetIntset, TypeSetListpack, TypeHashListpack, TypeZSetListpack:
			blob, err := r.String()
			if err != nil {
				tb.Fatal(err)
			}
			if t == TypeSetIntset {
				intsets = append(intsets, blob)
			} else {
				listpacks = append(listpacks, blob)
			}
		case TypeListQuicklist2:
			n, _ := r.Length()
			for range n {
				container, _ := r.Length()
				blob, err := r.String()
				if err != nil {
					tb.Fatal(err)
				}
				if container == quicklistNodePacked {
					listpacks = append(listpacks, blob)
				}
			}
		}
	}
	if len(listpacks) == 0 || len(intsets) == 0 {
		tb.Fatalf("testdata holds %d listpacks and %d intsets", len(listpacks), len(intsets))
	}
	return listpacks, intsets
}

func FuzzDecodeListpack(f *testing.F) {
	lps, _ := redisBlobs(f)
	for _, lp := range lps {
		f.Add(lp)
	}
	f.Add(AppendListpack(nil, strs("a", "", strings.Repeat("b", 300))))
	f.Add([]byte{0x0c, 0, 0, 0, 1, 0, 0xc1, 0x23, 2, 0xff, 0, 0})
	f.Fuzz(func(t *testing.T, p []byte) {
		entries, err := DecodeListpack(p)
		if err != nil {
			return
		}
		again, err := DecodeListpack(AppendListpack(nil, entries))
		if err != nil || len(again) != len(entries) {
			t.Fatalf("re-encoded listpack: %d entries, %v; want %d", len(again), err, len(entries))
		}
		for i := range again {
			if !bytes.Equal(again[i], entries[i]) {
				t.Fatalf("entry %d: %q became %q", i, entries[i], again[i])
			}
		}
	})
}

// ziplistSample holds "a", 5 and -1 as Redis 6 wrote them.
var ziplistSample = []byte{0x13, 0, 0, 0, 0x0f, 0, 0, 0, 3, 0, 0, 0x01, 'a', 3, 0xf6, 2, 0xfe, 0xff, 0xff}

func TestDecodeZiplist(t *testing.T) {
	got, err := DecodeZiplist(ziplistSample)
	if err != nil || !reflect.DeepEqual(got, strs("a", "5", "-1")) {
		t.Fatalf("DecodeZiplist = %q, %v", got, err)
	}
	// As an old list value (RDB_TYPE_LIST_ZIPLIST) too.
	o, err := DecodeValue(binaryTrailer(append([]byte{TypeListZiplist, byte(len(ziplistSample))}, ziplistSample...)))
	if err != nil || !reflect.DeepEqual(o.Items, strs("a", "5", "-1")) {
		t.Fatalf("DecodeValue = %+v, %v", o, err)
	}
}

func FuzzDecodeZiplist(f *testing.F) {
	f.Add(ziplistSample)
	f.Fuzz(func(t *testing.T, p []byte) {
		_, _ = DecodeZiplist(p)
	})
}

func FuzzDecodeIntset(f *testing.F) {
	_, iss := redisBlobs(f)
	for _, is := range iss {
		f.Add(is)
	}
	f.Add([]byte{2, 0, 0, 0, 2, 0, 0, 0, 1, 0, 2, 0})
	f.Fuzz(func(t *testing.T, p []byte) {
		_, _ = DecodeIntset(p)
	})
}

// zipmapSample maps "foo" to "bar" (1 free byte) and "k" to "" as Redis
// 2.4 wrote it.
var zipmapSample = []byte{2, 3, 'f', 'o', 'o', 3, 1, 'b', 'a', 'r', 0, 1, 'k', 0, 0, 0xff}

func TestDecodeZipmap(t *testing.T) {
	got, err := DecodeZipmap(zipmapSample)
	if err != nil || !reflect.DeepEqual(got, strs("foo", "bar", "k", "")) {
		t.Fatalf("DecodeZipmap = %q, %v", got, err)
	}
	o, err := DecodeValue(binaryTrailer(append([]byte{TypeHashZipmap, byte(len(zipmapSample))}, zipmapSample...)))
	if err != nil || o.Kind != KindHash || !reflect.DeepEqual(o.Pairs, strs("foo", "bar", "k", "")) {
		t.Fatalf("DecodeValue = %+v, %v", o, err)
	}
	for _, bad := range [][]byte{{}, {1, 0xff}, {0, 3, 'a', 0xff}, {1, 1, 'a', 254, 0xff}} {
		if _, err := DecodeZipmap(bad); !errors.Is(err, ErrCorrupt) {
			t.Errorf("DecodeZipmap(%q) = %v, want ErrCorrupt", bad, err)
		}
	}
}

func FuzzDecodeZipmap(f *testing.F) {
	f.Add(zipmapSample)
	f.Fuzz(func(t *testing.T, p []byte) {
		_, _ = DecodeZipmap(p)
	})
}

// TestDecodeOlderAndNewerEncodings builds the encodings the installed
// Redis 7.0 does not write — Redis 7.2's set listpack, the plain list and
// text-score sorted set of old RDB files, and Redis 6's ziplist forms —
// and decodes them.
func TestDecodeOlderAndNewerEncodings(t *testing.T) {
	blob := func(t byte, b []byte) []byte { return AppendString([]byte{t}, b) }
	zl := ziplistSample                                                                // "a", "5", "-1"
	zlPairs := []byte{0x10, 0, 0, 0, 0x0d, 0, 0, 0, 2, 0, 0, 0x01, 'f', 3, 0xf3, 0xff} // "f", "2"
	tests := []struct {
		name string
		body []byte
		want Object
	}{
		{"set listpack", blob(TypeSetListpack, AppendListpack(nil, strs("x", "y"))), Object{Kind: KindSet, Items: strs("x", "y")}},
		{"plain list", append(append([]byte{TypeList}, 2), AppendString(AppendString(nil, []byte("p")), []byte("q"))...), Object{Kind: KindList, Items: strs("p", "q")}},
		{"zset text scores", []byte{TypeZSet, 2, 1, 'a', 3, '1', '.', '5', 1, 'b', 254}, Object{Kind: KindZSet, ZSet: []ScoredMember{{[]byte("a"), 1.5}, {[]byte("b"), math.Inf(1)}}}},
		{"list ziplist", blob(TypeListZiplist, zl), Object{Kind: KindList, Items: strs("a", "5", "-1")}},
		{"quicklist of ziplists", append([]byte{TypeListQuicklist, 2}, append(AppendString(nil, zl), AppendString(nil, zl)...)...), Object{Kind: KindList, Items: strs("a", "5", "-1", "a", "5", "-1")}},
		{"hash ziplist", blob(TypeHashZiplist, zlPairs), Object{Kind: KindHash, Pairs: strs("f", "2")}},
		{"zset ziplist", blob(TypeZSetZiplist, zlPairs), Object{Kind: KindZSet, ZSet: []ScoredMember{{[]byte("f"), 2}}}},
		{"quicklist2 plain node", append([]byte{TypeListQuicklist2, 1, quicklistNodePlain}, AppendString(nil, []byte("big"))...), Object{Kind: KindList, Items: strs("big")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeValue(binaryTrailer(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("decoded %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestHashFieldDeadlines decodes Redis 7.4's two forms of a hash with
// field deadlines (built here: the installed Redis predates them) and
// round-trips what DUMP writes for one.
func TestHashFieldDeadlines(t *testing.T) {
	const min = 1_800_000_000_000
	meta := []byte{TypeHashMetadata}
	meta = binary.LittleEndian.AppendUint64(meta, min)
	meta = AppendLength(meta, 3)
	for _, f := range []struct {
		rel        uint64
		field, val string
	}{{1, "a", "1"}, {0, "b", "2"}, {5001, "c", "3"}} {
		meta = AppendLength(meta, f.rel)
		meta = AppendString(AppendString(meta, []byte(f.field)), []byte(f.val))
	}
	lpex := binary.LittleEndian.AppendUint64([]byte{TypeHashListpackEx}, min)
	lpex = AppendString(lpex, AppendListpack(nil, strs("a", "1", strconv.Itoa(min), "b", "2", "0", "c", "3", strconv.Itoa(min+5000))))
	want := Object{Kind: KindHash, Pairs: strs("a", "1", "b", "2", "c", "3"), FieldDeadlines: []int64{min, 0, min + 5000}}
	for name, body := range map[string][]byte{"metadata": meta, "listpack-ex": lpex} {
		got, err := DecodeValue(binaryTrailerVersion(body, FieldTTLVersion))
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: DecodeValue = %+v, %v; want %+v", name, got, err, want)
		}
	}
	p := AppendValue(nil, want)
	if v := binary.LittleEndian.Uint16(p[len(p)-10:]); v != FieldTTLVersion {
		t.Fatalf("DUMP of a hash with field deadlines has version %d", v)
	}
	if got, err := DecodeValue(p); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("round trip = %+v, %v", got, err)
	}
	// Without deadlines the payload is Redis 7.0's plain hash.
	plain := AppendValue(nil, Object{Kind: KindHash, Pairs: want.Pairs, FieldDeadlines: []int64{0, 0, 0}})
	if plain[0] != TypeHash || binary.LittleEndian.Uint16(plain[len(plain)-10:]) != DumpVersion {
		t.Fatalf("hash without deadlines dumped as type %d", plain[0])
	}
	huge := binary.LittleEndian.AppendUint64([]byte{TypeHashMetadata}, min)
	huge = append(AppendLength(AppendLength(huge, 1), 1<<60), 1, 'a', 1, 'b')
	if _, err := DecodeValue(binaryTrailerVersion(huge, FieldTTLVersion)); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("deadline out of range: %v", err)
	}
}

// TestCanonicalize: the same value in two orders compares equal, a hash's
// deadlines staying with their fields.
func TestCanonicalize(t *testing.T) {
	a := Object{Kind: KindHash, Pairs: [][]byte{[]byte("b"), []byte("2"), []byte("a"), []byte("1")}, FieldDeadlines: []int64{20, 10}}
	a.Canonicalize()
	if string(a.Pairs[0]) != "a" || string(a.Pairs[1]) != "1" || a.FieldDeadlines[0] != 10 || a.FieldDeadlines[1] != 20 {
		t.Fatalf("hash = %q, deadlines %v", a.Pairs, a.FieldDeadlines)
	}
	s := Object{Kind: KindSet, Items: [][]byte{[]byte("z"), []byte("a")}}
	s.Canonicalize()
	if string(s.Items[0]) != "a" {
		t.Fatalf("set = %q", s.Items)
	}
	z := Object{Kind: KindZSet, ZSet: []ScoredMember{{Member: []byte("y"), Score: 1}, {Member: []byte("x"), Score: 2}}}
	z.Canonicalize()
	if string(z.ZSet[0].Member) != "x" || z.ZSet[0].Score != 2 {
		t.Fatalf("zset = %v", z.ZSet)
	}
}
