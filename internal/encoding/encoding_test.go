package encoding

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

func seededRand(t *testing.T) *rand.Rand {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	return rand.New(rand.NewPCG(seed, seed>>1))
}

func randBytes(r *rand.Rand, max int) []byte {
	b := make([]byte, r.IntN(max+1))
	for i := range b {
		// A small alphabet makes shared prefixes (the hard case) common.
		b[i] = byte(r.IntN(4)) * 0x55
	}
	return b
}

func TestSlotMatchesRedisCluster(t *testing.T) {
	// Values from the Redis Cluster specification and CLUSTER KEYSLOT.
	cases := []struct {
		key  string
		slot uint16
	}{
		{"", 0},
		{"123456789", 0x31C3 & (SlotCount - 1)},
		{"foo", 12182},
		{"bar", 5061},
		{"{user1000}.following", Slot([]byte("user1000"))},
		{"{user1000}.followers", Slot([]byte("user1000"))},
		{"foo{}{bar}", Slot([]byte("foo{}{bar}"))},
		{"foo{{bar}}zap", Slot([]byte("{bar"))},
		{"foo{bar}{zap}", Slot([]byte("bar"))},
	}
	for _, c := range cases {
		if got := Slot([]byte(c.key)); got != c.slot {
			t.Errorf("Slot(%q) = %d, want %d", c.key, got, c.slot)
		}
	}
}

func TestMetaKeyRoundTrip(t *testing.T) {
	r := seededRand(t)
	for range 2000 {
		db := uint16(r.IntN(1 << 16))
		key := randBytes(r, 40)
		mk := AppendMetaKey(nil, db, key)
		d, err := DecodeMetaKey(mk)
		if err != nil {
			t.Fatal(err)
		}
		if d.DB != db || !bytes.Equal(d.Key, key) || d.Slot != Slot(key) || d.Hash != KeyHash(key) {
			t.Fatalf("round trip of (%d, %q) gave %+v", db, key, d)
		}
		ek := AppendExpireKey(nil, 12345, mk)
		ms, back, err := DecodeExpireKey(nil, ek)
		if err != nil || ms != 12345 || !bytes.Equal(back, mk) {
			t.Fatalf("expiry key round trip: %d %q %v", ms, back, err)
		}
	}
}

func TestMetaKeyOrderIsScanPosition(t *testing.T) {
	r := seededRand(t)
	for range 2000 {
		a, b := randBytes(r, 12), randBytes(r, 12)
		ka, kb := AppendMetaKey(nil, 3, a), AppendMetaKey(nil, 3, b)
		pa := uint64(Slot(a))<<32 | uint64(KeyHash(a))
		pb := uint64(Slot(b))<<32 | uint64(KeyHash(b))
		if pa < pb && bytes.Compare(ka, kb) >= 0 {
			t.Fatalf("position %x < %x but key %x >= %x", pa, pb, ka, kb)
		}
		pos := AppendScanPosition(nil, 3, Slot(b), KeyHash(b))
		if bytes.Compare(pos, kb) > 0 {
			t.Fatalf("scan position %x sorts after its key %x", pos, kb)
		}
	}
}

func TestSubKeyPrefixesNeverCollide(t *testing.T) {
	// Length-prefixing: no key's prefix range contains another key's
	// sub-keys, whatever bytes the keys hold.
	r := seededRand(t)
	for range 5000 {
		a, b := randBytes(r, 6), randBytes(r, 6)
		if bytes.Equal(a, b) {
			continue
		}
		va, vb := r.Uint64N(3), r.Uint64N(3)
		pa := AppendSubKeyPrefix(nil, FamilySub, 0, a, va)
		sub := append(AppendSubKeyPrefix(nil, FamilySub, 0, b, vb), randBytes(r, 8)...)
		if bytes.HasPrefix(sub, pa) {
			t.Fatalf("sub-key of %q v%d falls inside the range of %q v%d", b, vb, a, va)
		}
	}
}

func TestMetaRoundTrip(t *testing.T) {
	cases := []Meta{
		{Type: TypeString, Value: []byte("hello")},
		{Type: TypeString, ExpireMs: 1700000000000, Value: []byte{}},
		{Type: TypeString, Value: []byte("1234"), Repr: ReprRaw},
		{Type: TypeString, ExpireMs: 9, Value: []byte{}, Repr: ReprPlain},
		{Type: TypeHash, ExpireMs: 5, Version: 42, Size: 10},
		{Type: TypeList, Version: 1, Size: 3, Value: []byte{1, 2, 3}},
		{Type: TypeZSet, Version: 1<<63 + 1, Size: 1 << 40},
	}
	for _, m := range cases {
		b := AppendMeta(nil, &m)
		got, err := DecodeMeta(b)
		if err != nil {
			t.Fatalf("%+v: %v", m, err)
		}
		if got.Type != m.Type || got.ExpireMs != m.ExpireMs || got.Version != m.Version || got.Size != m.Size || !bytes.Equal(got.Value, m.Value) || got.Repr != m.Repr {
			t.Fatalf("round trip %+v gave %+v", m, got)
		}
	}
	if s := AppendStringMeta(nil, 7, []byte("v")); !bytes.Equal(s, AppendMeta(nil, &Meta{Type: TypeString, ExpireMs: 7, Value: []byte("v")})) {
		t.Fatal("AppendStringMeta differs from AppendMeta")
	}
}

func TestDecodeMetaRejectsCorruption(t *testing.T) {
	for _, b := range [][]byte{
		nil,
		{byte(TypeString)},
		{byte(TypeHash), 0, 0, 0, 0, 0, 0, 0, 0},
		{0x0f, 0, 0, 0, 0, 0, 0, 0, 0},
		{0x10 | byte(TypeString), 0, 0, 0, 0, 0, 0, 0, 0},
		// A representation byte that is ReprAuto (never written with the
		// byte) or unknown, and one on a collection.
		{0x10 | byte(TypeString), 0, 0, 0, 0, 0, 0, 0, 0, byte(ReprAuto), 'x'},
		{0x10 | byte(TypeString), 0, 0, 0, 0, 0, 0, 0, 0, 3},
		{0x10 | byte(TypeHash), 0, 0, 0, 0, 0, 0, 0, 0, byte(ReprRaw), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
		{0x20 | byte(TypeString), 0, 0, 0, 0, 0, 0, 0, 0, byte(ReprRaw)},
	} {
		if _, err := DecodeMeta(b); err == nil {
			t.Errorf("DecodeMeta(%x) accepted corrupt input", b)
		}
	}
}

func TestPrefixEnd(t *testing.T) {
	cases := []struct{ in, want []byte }{
		{[]byte{1, 2}, []byte{1, 3}},
		{[]byte{1, 0xff}, []byte{2}},
		{[]byte{0xff, 0xff}, nil},
	}
	for _, c := range cases {
		if got := PrefixEnd(c.in); !bytes.Equal(got, c.want) {
			t.Errorf("PrefixEnd(%x) = %x, want %x", c.in, got, c.want)
		}
	}
}

func TestExpireKeysSortByDeadline(t *testing.T) {
	r := seededRand(t)
	for range 1000 {
		a, b := r.Int64N(1<<50), r.Int64N(1<<50)
		ka := AppendExpireKey(nil, a, AppendMetaKey(nil, 0, randBytes(r, 8)))
		kb := AppendExpireKey(nil, b, AppendMetaKey(nil, 0, randBytes(r, 8)))
		if a < b && bytes.Compare(ka, kb) >= 0 {
			t.Fatalf("deadline %d < %d but keys out of order", a, b)
		}
		if bytes.Compare(ka, ExpireUpTo(nil, a)) >= 0 {
			t.Fatalf("entry with deadline %d not below ExpireUpTo(%d)", a, a)
		}
	}
}

func FuzzDecodeMeta(f *testing.F) {
	f.Add(AppendMeta(nil, &Meta{Type: TypeString, Value: []byte("x")}))
	f.Add(AppendMeta(nil, &Meta{Type: TypeString, Value: []byte("12"), Repr: ReprRaw}))
	f.Add(AppendMeta(nil, &Meta{Type: TypeHash, Version: 1, Size: 2}))
	f.Add(AppendMeta(nil, &Meta{Type: TypeString, Version: 1, Size: 1 << 20, FragShift: FragShift}))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := DecodeMeta(b)
		if err != nil {
			return
		}
		if again := AppendMeta(nil, &m); !bytes.Equal(again, b) {
			t.Fatalf("re-encoding %x gave %x", b, again)
		}
	})
}

func FuzzDecodeKeys(f *testing.F) {
	f.Add(AppendMetaKey(nil, 1, []byte("k")))
	f.Add(AppendExpireKey(nil, 9, AppendMetaKey(nil, 1, []byte("k"))))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = DecodeMetaKey(b)
		_, _, _ = DecodeExpireKey(nil, b)
		_, _, _ = DecodeCounterKey(b)
		_, _ = DecodeDBMapKey(b)
	})
}

func TestScoreOrder(t *testing.T) {
	r := seededRand(t)
	special := []float64{math.Inf(-1), -math.MaxFloat64, -1, -math.SmallestNonzeroFloat64, 0, math.SmallestNonzeroFloat64, 1, math.MaxFloat64, math.Inf(1)}
	for i := 1; i < len(special); i++ {
		if ScoreBits(special[i-1]) >= ScoreBits(special[i]) {
			t.Fatalf("ScoreBits(%v) >= ScoreBits(%v)", special[i-1], special[i])
		}
	}
	if ScoreBits(math.Copysign(0, -1)) != ScoreBits(0) {
		t.Fatal("-0 and +0 encode differently")
	}
	for range 10000 {
		a := math.Float64frombits(r.Uint64())
		b := math.Float64frombits(r.Uint64())
		if math.IsNaN(a) || math.IsNaN(b) {
			continue
		}
		if got := ScoreFromBits(ScoreBits(a)); got != a {
			t.Fatalf("round trip %v gave %v", a, got)
		}
		ka, kb := AppendScore(nil, a), AppendScore(nil, b)
		if (a < b) != (bytes.Compare(ka, kb) < 0) {
			t.Fatalf("order of %v and %v not preserved", a, b)
		}
	}
}

func TestCollectionRecordsRoundTrip(t *testing.T) {
	l := ListMeta{Head: ListStart - 3, Tail: ListStart + 9}
	if got, err := DecodeListMeta(AppendListMeta(nil, l)); err != nil || got != l {
		t.Fatalf("list meta %+v: %+v %v", l, got, err)
	}
	for _, h := range []HashMeta{{}, {MinFieldExpireMs: 1234}} {
		if got, err := DecodeHashMeta(AppendHashMeta(nil, h)); err != nil || got != h {
			t.Fatalf("hash meta %+v: %+v %v", h, got, err)
		}
	}
	for _, exp := range []int64{0, 99} {
		ms, v, err := DecodeFieldValue(AppendFieldValue(nil, exp, []byte("val")))
		if err != nil || ms != exp || string(v) != "val" {
			t.Fatalf("field value: %d %q %v", ms, v, err)
		}
	}
	mk := AppendMetaKey(nil, 2, []byte("h"))
	ms, back, err := DecodeFieldExpireKey(nil, AppendFieldExpireKey(nil, 77, mk))
	if err != nil || ms != 77 || !bytes.Equal(back, mk) {
		t.Fatalf("field expire key: %d %x %v", ms, back, err)
	}
	p := AppendSubKeyPrefix(nil, FamilySub, 0, []byte("l"), 1)
	a, b := AppendListIndex(nil, p, ListStart-1), AppendListIndex(nil, p, ListStart)
	if bytes.Compare(a, b) >= 0 {
		t.Fatal("list indices out of order")
	}
}

func TestFragmentedStringMetaRoundTrip(t *testing.T) {
	for _, m := range []Meta{
		{Type: TypeString, Version: 7, Size: 1 << 29, FragShift: FragShift},
		{Type: TypeString, ExpireMs: 99, Version: 1 << 62, Size: FragmentThreshold + 1, FragShift: MaxFragShift},
	} {
		b := AppendMeta(nil, &m)
		got, err := DecodeMeta(b)
		if err != nil {
			t.Fatalf("%+v: %v", m, err)
		}
		if !got.Fragmented() || !got.HasSubKeys() || got.Type != TypeString || got.ExpireMs != m.ExpireMs ||
			got.Version != m.Version || got.Size != m.Size || got.FragShift != m.FragShift || len(got.Value) != 0 {
			t.Fatalf("round trip %+v gave %+v", m, got)
		}
	}
	inline := Meta{Type: TypeString, Value: []byte("x")}
	if inline.Fragmented() || inline.HasSubKeys() {
		t.Fatal("an inline string reports sub-keys")
	}
	// A shift out of range, a missing or extra byte: corrupt.
	good := AppendMeta(nil, &Meta{Type: TypeString, Version: 1, Size: 1, FragShift: FragShift})
	for _, b := range [][]byte{good[:len(good)-1], append(append([]byte(nil), good...), 0),
		append(append([]byte(nil), good[:len(good)-1]...), MinFragShift-1),
		append(append([]byte(nil), good[:len(good)-1]...), MaxFragShift+1)} {
		if _, err := DecodeMeta(b); err == nil {
			t.Errorf("DecodeMeta(%x) accepted a corrupt fragmented string", b)
		}
	}
}

func TestFragmentKeysSortByIndex(t *testing.T) {
	r := seededRand(t)
	p := AppendSubKeyPrefix(nil, FamilySub, 0, []byte("bits"), 3)
	for range 1000 {
		a, b := r.Uint64(), r.Uint64()
		ka, kb := AppendFragmentKey(nil, p, a), AppendFragmentKey(nil, p, b)
		if (a < b) != (bytes.Compare(ka, kb) < 0) {
			t.Fatalf("fragments %d and %d out of order", a, b)
		}
		if got, err := DecodeFragmentIndex(ka, len(p)); err != nil || got != a {
			t.Fatalf("DecodeFragmentIndex = %d, %v; want %d", got, err, a)
		}
	}
	if _, err := DecodeFragmentIndex(p, len(p)); err == nil {
		t.Fatal("a fragment key without its index decoded")
	}
}
