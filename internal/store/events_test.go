package store

import (
	"strings"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/encoding"
	"github.com/cairndb/cairn/internal/notify"
)

// eventsOf lists the events tx recorded, as "event key".
func eventsOf(tx *Tx) string {
	var out []string
	tx.EachEvent(func(_ notify.Class, name string, _ int, key []byte) {
		out = append(out, name+" "+string(key))
	})
	return strings.Join(out, ",")
}

// TestEventsOfExpiredKeys checks the events of keys past their deadline
// that a command meets before the reaper does: replacing one reports it
// expired and the key new; deleting one reports it expired only (the
// reaper will not see it any more).
func TestEventsOfExpiredKeys(t *testing.T) {
	s, clock := openTestStore(t)
	s.SetNotify(notify.Keyspace | notify.All | notify.New)
	put := func(key string, expire int64) {
		t.Helper()
		writeTx(t, s, []string{key}, func(tx *Tx) (struct{}, error) {
			return struct{}{}, tx.putMeta(0, []byte(key), &encoding.Meta{Type: encoding.TypeString, ExpireMs: expire, Value: []byte("v")})
		})
	}
	put("a", clock.now().UnixMilli()+10)
	put("b", clock.now().UnixMilli()+10)
	clock.advance(time.Second)

	tests := []struct {
		key  string
		fn   func(tx *Tx) error
		want string
	}{
		{"a", func(tx *Tx) error {
			_, err := tx.Delete(0, []byte("a"))
			return err
		}, "expired a"},
		{"b", func(tx *Tx) error {
			_, err := tx.SetString(0, []byte("b"), []byte("w"), SetArgs{})
			return err
		}, "expired b,new b"},
		{"a", func(tx *Tx) error {
			_, err := tx.Delete(0, []byte("a"))
			return err
		}, ""},
	}
	for _, tc := range tests {
		tx := s.Begin([][]byte{[]byte(tc.key)})
		if err := tc.fn(tx); err != nil {
			tx.Close()
			t.Fatal(err)
		}
		got := eventsOf(tx)
		if err := tx.Commit(); err != nil {
			tx.Close()
			t.Fatal(err)
		}
		tx.Close()
		if got != tc.want {
			t.Errorf("%s: events %q, want %q", tc.key, got, tc.want)
		}
	}
}
