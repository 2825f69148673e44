package encoding

import (
	"bytes"
	"math"
	"reflect"
	"testing"
)

func TestStreamIDOrderAndText(t *testing.T) {
	ids := []StreamID{{0, 0}, {0, 1}, {0, math.MaxUint64}, {1, 0}, {255, 7}, {256, 0}, {math.MaxUint64, 0}, MaxStreamID}
	for i := 1; i < len(ids); i++ {
		a, b := AppendStreamID(nil, ids[i-1]), AppendStreamID(nil, ids[i])
		if bytes.Compare(a, b) >= 0 || ids[i-1].Compare(ids[i]) >= 0 {
			t.Fatalf("%s does not sort before %s", ids[i-1], ids[i])
		}
		if n, ok := ids[i-1].Next(); !ok || n.Compare(ids[i]) > 0 {
			t.Fatalf("Next(%s) = %s", ids[i-1], n)
		}
		if p, ok := ids[i].Prev(); !ok || p.Compare(ids[i-1]) < 0 {
			t.Fatalf("Prev(%s) = %s", ids[i], p)
		}
		got, err := DecodeStreamID(b)
		if err != nil || got != ids[i] {
			t.Fatalf("DecodeStreamID(%x) = %v, %v", b, got, err)
		}
	}
	if _, ok := MaxStreamID.Next(); ok {
		t.Fatal("MaxStreamID has a next id")
	}
	if _, ok := (StreamID{}).Prev(); ok {
		t.Fatal("0-0 has a previous id")
	}
	if s := (StreamID{12, 3}).String(); s != "12-3" {
		t.Fatalf("String = %q", s)
	}
}

func TestStreamMetaRoundTrip(t *testing.T) {
	m := StreamMeta{LastID: StreamID{5, 6}, FirstID: StreamID{1, 2}, MaxDeletedID: StreamID{3, 4}, EntriesAdded: 9, Groups: 2, NextIndex: 11,
		FirstIndex: 0, FirstIndexKnown: true, NodeStartMax: 7}
	b := AppendStreamMeta(nil, m)
	got, err := DecodeStreamMeta(b)
	if err != nil || got != m {
		t.Fatalf("round trip: %+v, %v", got, err)
	}
	unknown := m
	unknown.FirstIndex, unknown.FirstIndexKnown = 0, false
	if got, err := DecodeStreamMeta(AppendStreamMeta(nil, unknown)); err != nil || got != unknown {
		t.Fatalf("round trip of an unknown first index: %+v, %v", got, err)
	}
	// The second layout, 72 bytes, has no first index or node-start max.
	v1 := m
	v1.FirstIndex, v1.FirstIndexKnown, v1.NodeStartMax = 0, false, 0
	if got, err := DecodeStreamMeta(b[:72]); err != nil || got != v1 {
		t.Fatalf("72-byte tail: %+v, %v", got, err)
	}
	// The first layout, 64 bytes, has no next index either.
	old := v1
	old.NextIndex = 0
	if got, err := DecodeStreamMeta(b[:64]); err != nil || got != old {
		t.Fatalf("64-byte tail: %+v, %v", got, err)
	}
	for _, n := range []int{63, 65, 71, 73, 80, 87} {
		if _, err := DecodeStreamMeta(b[:n]); err == nil {
			t.Fatalf("a tail of %d bytes decodes", n)
		}
	}
}

func TestStreamEntryIndexed(t *testing.T) {
	fields := [][]byte{[]byte("f"), []byte("value")}
	b := AppendStreamEntryIndexed(nil, 1<<40+3, fields)
	if i, ok := StreamEntryIndex(b); !ok || i != 1<<40+3 {
		t.Fatalf("index %d %t", i, ok)
	}
	got, err := DecodeStreamEntry(b)
	if err != nil || !reflect.DeepEqual(got, fields) {
		t.Fatalf("decode: %q %v", got, err)
	}
	if _, ok := StreamEntryIndex(AppendStreamEntry(nil, fields)); ok {
		t.Fatal("a value without an index has one")
	}
	if _, err := DecodeStreamEntry(b[:8]); err == nil {
		t.Fatal("a cut indexed value decodes")
	}
}

func TestStreamEntryRoundTrip(t *testing.T) {
	for _, fields := range [][][]byte{
		{[]byte("a"), []byte("1")},
		{[]byte(""), []byte(""), []byte("\x00\xff"), bytes.Repeat([]byte("v"), 5000)},
	} {
		got, err := DecodeStreamEntry(AppendStreamEntry(nil, fields))
		if err != nil || !reflect.DeepEqual(got, fields) {
			t.Fatalf("round trip of %q: %q, %v", fields, got, err)
		}
	}
	p := []byte("prefix")
	k := AppendStreamEntryKey(nil, p, StreamID{7, 8})
	if id, err := DecodeStreamEntryKey(k, len(p)); err != nil || id != (StreamID{7, 8}) {
		t.Fatalf("entry key: %v, %v", id, err)
	}
}

func FuzzDecodeStreamEntry(f *testing.F) {
	f.Add(AppendStreamEntry(nil, [][]byte{[]byte("f"), []byte("v")}))
	f.Add([]byte{0, 0, 0, 1, 0, 0, 0, 9})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	f.Add(AppendStreamEntryIndexed(nil, 7, [][]byte{[]byte("f"), []byte("v")}))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		fields, err := DecodeStreamEntry(b)
		if err != nil {
			return
		}
		want := AppendStreamEntry(nil, fields)
		if i, ok := StreamEntryIndex(b); ok {
			want = AppendStreamEntryIndexed(nil, i, fields)
		}
		if !bytes.Equal(want, b) {
			t.Fatalf("%x decodes to %q, which encodes otherwise", b, fields)
		}
	})
}

func TestStreamGroupRecord(t *testing.T) {
	g := StreamGroup{LastID: StreamID{7, 1}, EntriesRead: -1, Pending: 3, Consumers: 2, PELMax: StreamID{9, 4}}
	b := AppendStreamGroup(nil, g)
	if len(b) != 56 {
		t.Fatalf("record of %d bytes, want 56", len(b))
	}
	got, err := DecodeStreamGroup(b)
	if err != nil || got != g {
		t.Fatalf("round trip: %+v, %v; want %+v", got, err, g)
	}
	// A record written before pel-max-id existed reads with the largest
	// id there, so that every delivery still looks up its pending record.
	old, err := DecodeStreamGroup(b[:40])
	want := g
	want.PELMax = MaxStreamID
	if err != nil || old != want {
		t.Fatalf("40-byte record: %+v, %v; want %+v", old, err, want)
	}
	for _, n := range []int{0, 39, 41, 55, 57} {
		if _, err := DecodeStreamGroup(make([]byte, n)); err == nil {
			t.Errorf("a %d-byte group record decoded", n)
		}
	}
}

// TestStreamNodeStartKey: node-start keys round-trip, sort by index, and
// sort after every entry and XDEL record of the same prefix.
func TestStreamNodeStartKey(t *testing.T) {
	p := []byte("prefix")
	var prev []byte
	for _, i := range []uint64{0, 1, 255, 256, 1 << 40, ^uint64(0)} {
		k := AppendStreamNodeStartKey(nil, p, i)
		got, err := DecodeStreamNodeStartKey(k, len(p))
		if err != nil || got != i {
			t.Errorf("%d: decoded %d, %v", i, got, err)
		}
		if prev != nil && bytes.Compare(prev, k) >= 0 {
			t.Errorf("%d: key %x not after %x", i, k, prev)
		}
		if bytes.Compare(AppendStreamDeletedKey(nil, p, MaxStreamID), k) >= 0 {
			t.Errorf("%d: key %x not after the XDEL records", i, k)
		}
		prev = k
	}
	if _, err := DecodeStreamNodeStartKey(AppendStreamDeletedKey(nil, p, StreamID{}), len(p)); err == nil {
		t.Error("an XDEL record decodes as a node start")
	}
}
