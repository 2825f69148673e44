package store

import (
	"reflect"
	"testing"

	"github.com/cairndb/cairn/internal/encoding"
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
