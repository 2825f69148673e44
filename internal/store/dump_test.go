package store

import (
	"reflect"
	"testing"

	"github.com/cairndb/cairn/internal/encoding"
	"github.com/cairndb/cairn/internal/rdb"
)

// TestValueRoundTrip writes every type with WriteValue over a key of
// another type and reads it back with ReadValue, deadline included; the
// store's invariants are checked when the test ends.
func TestValueRoundTrip(t *testing.T) {
	s, clock := openTestStore(t)
	now := clock.ms.Load()
	values := []Value{
		{Type: encoding.TypeString, String: []byte("v")},
		{Type: encoding.TypeList, Items: byteSlices("b", "a", "b")},
		{Type: encoding.TypeSet, Items: byteSlices("a", "b", "c")},
		{Type: encoding.TypeZSet, ZSet: []ZMember{{Member: []byte("x"), Score: -1}, {Member: []byte("y"), Score: 2.5}}},
		{Type: encoding.TypeHash, Hash: []HashEntry{{Field: []byte("f"), Value: []byte("1")}, {Field: []byte("g"), Value: []byte("2")}}},
		{Type: encoding.TypeHash, Hash: []HashEntry{{Field: []byte("f"), Value: []byte("1")}, {Field: []byte("g"), Value: []byte("2")}}, FieldDeadlines: []int64{0, now + 5000}},
		{Type: encoding.TypeStream, Stream: &rdb.Stream{
			Entries: []rdb.StreamEntry{{ID: rdb.StreamID{Ms: 1, Seq: 1}, Fields: byteSlices("a", "1")}, {ID: rdb.StreamID{Ms: 5, Seq: 0}, Fields: byteSlices("a", "2", "b", "")}},
			LastID:  rdb.StreamID{Ms: 9, Seq: 9}, FirstID: rdb.StreamID{Ms: 1, Seq: 1}, MaxDeletedID: rdb.StreamID{Ms: 3, Seq: 0}, EntriesAdded: 4,
			Groups: []rdb.StreamGroup{
				{Name: []byte("g1"), LastID: rdb.StreamID{Ms: 5, Seq: 0}, EntriesRead: -1,
					Pending: []rdb.StreamPending{
						{ID: rdb.StreamID{Ms: 1, Seq: 1}, DeliveryMs: now - 5, Count: 3, Consumer: []byte("bob")},
						{ID: rdb.StreamID{Ms: 3, Seq: 0}, DeliveryMs: now - 2, Count: 1, Consumer: []byte("alice")},
						{ID: rdb.StreamID{Ms: 5, Seq: 0}, DeliveryMs: now - 1, Count: 1, Consumer: []byte("bob")},
					},
					Consumers: []rdb.StreamConsumer{{Name: []byte("alice"), SeenMs: now - 2, ActiveMs: now - 2}, {Name: []byte("bob"), SeenMs: now, ActiveMs: -1}, {Name: []byte("carol"), SeenMs: now, ActiveMs: now}}},
				{Name: []byte("g2"), LastID: rdb.StreamID{Ms: 0, Seq: 0}, EntriesRead: 0},
			},
		}},
		{Type: encoding.TypeStream, Stream: &rdb.Stream{LastID: rdb.StreamID{Ms: 7, Seq: 7}, EntriesAdded: 3,
			Groups: []rdb.StreamGroup{{Name: []byte("g"), EntriesRead: 3}}}},
	}
	key := []byte("k")
	for i, v := range values {
		deadline := int64(0)
		if i%2 == 1 {
			deadline = now + 60_000
		}
		written := writeTx(t, s, []string{"k"}, func(tx *Tx) (bool, error) { return tx.WriteValue(0, key, v, deadline) })
		if !written {
			t.Fatalf("%d: WriteValue did not write", i)
		}
		type read struct {
			v        Value
			deadline int64
			ok       bool
		}
		got := readTx(t, s, func(tx *Tx) (read, error) {
			v, d, ok, err := tx.ReadValue(0, key)
			return read{v, d, ok}, err
		})
		if !got.ok || got.deadline != deadline || !reflect.DeepEqual(got.v, v) {
			t.Fatalf("%d: read back %+v (deadline %d, found %v), want %+v (deadline %d)", i, got.v, got.deadline, got.ok, v, deadline)
		}
	}
	if found := readTx(t, s, func(tx *Tx) (bool, error) {
		_, _, ok, err := tx.ReadValue(0, []byte("absent"))
		return ok, err
	}); found {
		t.Fatal("ReadValue found an absent key")
	}
}

// TestWriteValueRefusesInconsistentStreams: a stream value whose records
// would not keep the store's counts exact is refused, not written.
func TestWriteValueRefusesInconsistentStreams(t *testing.T) {
	s, _ := openTestStore(t)
	id := rdb.StreamID{Ms: 1}
	entry := []rdb.StreamEntry{{ID: id, Fields: byteSlices("a", "1")}}
	for name, st := range map[string]*rdb.Stream{
		"entries out of order": {Entries: []rdb.StreamEntry{entry[0], entry[0]}, LastID: id, EntriesAdded: 2},
		"owner no consumer":    {Entries: entry, LastID: id, EntriesAdded: 1, Groups: []rdb.StreamGroup{{Name: []byte("g"), Pending: []rdb.StreamPending{{ID: id, Consumer: []byte("x")}}}}},
		"pending twice": {Entries: entry, LastID: id, EntriesAdded: 1, Groups: []rdb.StreamGroup{{Name: []byte("g"),
			Pending: []rdb.StreamPending{{ID: id, Consumer: []byte("c")}, {ID: id, Consumer: []byte("c")}}, Consumers: []rdb.StreamConsumer{{Name: []byte("c")}}}}},
		"group twice":    {Groups: []rdb.StreamGroup{{Name: []byte("g")}, {Name: []byte("g")}}},
		"consumer twice": {Groups: []rdb.StreamGroup{{Name: []byte("g"), Consumers: []rdb.StreamConsumer{{Name: []byte("c")}, {Name: []byte("c")}}}}},
	} {
		err := commit(s, [][]byte{[]byte("k")}, func(tx *Tx) error {
			_, err := tx.WriteValue(0, []byte("k"), Value{Type: encoding.TypeStream, Stream: st}, 0)
			return err
		})
		if err == nil {
			t.Errorf("%s: written", name)
		}
	}
}
