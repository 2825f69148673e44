package store

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/encoding"
	"github.com/cairndb/cairn/internal/engine"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// testClock is a settable clock for expiry tests.
type testClock struct{ ms atomic.Int64 }

func (c *testClock) now() time.Time          { return time.UnixMilli(c.ms.Load()) }
func (c *testClock) advance(d time.Duration) { c.ms.Add(d.Milliseconds()) }

func openTestStore(t *testing.T) (*Store, *testClock) {
	t.Helper()
	clock := &testClock{}
	clock.ms.Store(1_700_000_000_000)
	s := openCheckedStore(t, Options{Databases: 4, Now: clock.now, ReapInterval: time.Hour, KeyCacheSize: testKeyCache, MemberFilterSize: testMemberFilters})
	return s, clock
}

// openCheckedStore opens a store with options o on an in-memory Pebble and
// checks its invariants (Check) when the test ends.
func openCheckedStore(t *testing.T, o Options) *Store {
	return openCheckedStoreOver(t, o, nil)
}

// openCheckedStoreOver is openCheckedStore with the engine seen through
// wrap (a test double counting what the store does), when not nil.
func openCheckedStoreOver(t *testing.T, o Options, wrap func(engine.Engine) engine.Engine) *Store {
	t.Helper()
	eng, err := engine.OpenPebble("", engine.PebbleOptions{FS: vfs.NewMem(), CacheSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	var over engine.Engine = eng
	if wrap != nil {
		over = wrap(eng)
	}
	s, err := Open(over, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := Check(s); err != nil {
			t.Errorf("invariants: %v", err)
		}
		_ = s.Close()
		_ = eng.Close()
	})
	return s
}

// write runs fn in a writing Tx over keys and commits it.
func write(t *testing.T, s *Store, keys []string, fn func(tx *Tx) error) {
	t.Helper()
	ks := make([][]byte, len(keys))
	for i, k := range keys {
		ks[i] = []byte(k)
	}
	tx := s.Begin(ks)
	defer tx.Close()
	if err := fn(tx); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// writeAll runs fn in a Tx holding every lock (FLUSHDB, SWAPDB) and
// commits it.
func writeAll(t *testing.T, s *Store, fn func(tx *Tx) error) {
	t.Helper()
	tx := s.BeginAll()
	defer tx.Close()
	if err := fn(tx); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

func get(t *testing.T, s *Store, db int, key string) (string, bool) {
	t.Helper()
	tx := s.Read(false)
	defer tx.Close()
	v, ok, err := tx.GetString(db, []byte(key))
	if err != nil {
		t.Fatal(err)
	}
	return string(v), ok
}

func set(t *testing.T, s *Store, db int, key, val string, a SetArgs) {
	t.Helper()
	write(t, s, []string{key}, func(tx *Tx) error {
		_, err := tx.SetString(db, []byte(key), []byte(val), a)
		return err
	})
}

func TestSetGetDeleteCounts(t *testing.T) {
	s, _ := openTestStore(t)
	set(t, s, 0, "a", "1", SetArgs{})
	set(t, s, 0, "a", "2", SetArgs{})
	set(t, s, 0, "b", "3", SetArgs{})
	set(t, s, 1, "a", "x", SetArgs{})
	if v, ok := get(t, s, 0, "a"); !ok || v != "2" {
		t.Fatalf("GET a = %q %v", v, ok)
	}
	if n := s.DBSize(0); n != 2 {
		t.Fatalf("DBSIZE 0 = %d", n)
	}
	if n := s.DBSize(1); n != 1 {
		t.Fatalf("DBSIZE 1 = %d", n)
	}
	write(t, s, []string{"a", "zz"}, func(tx *Tx) error {
		for _, k := range []string{"a", "zz"} {
			if _, err := tx.Delete(0, []byte(k)); err != nil {
				return err
			}
		}
		return nil
	})
	if _, ok := get(t, s, 0, "a"); ok {
		t.Fatal("deleted key still readable")
	}
	if n := s.DBSize(0); n != 1 {
		t.Fatalf("DBSIZE after DEL = %d", n)
	}
}

func TestWriteToUndeclaredKeyFails(t *testing.T) {
	s, _ := openTestStore(t)
	tx := s.Begin([][]byte{[]byte("declared")})
	defer tx.Close()
	var other string
	for i := 0; ; i++ {
		other = fmt.Sprintf("k%d", i)
		if stripeOf([]byte(other)) != stripeOf([]byte("declared")) {
			break
		}
	}
	_, err := tx.SetString(0, []byte(other), []byte("v"), SetArgs{})
	if !errors.Is(err, errNotLocked) {
		t.Fatalf("write to an unlocked key: %v", err)
	}
}

func TestExpiryIsInvisibleThenReaped(t *testing.T) {
	s, clock := openTestStore(t)
	set(t, s, 0, "k", "v", SetArgs{ExpireMs: clock.ms.Load() + 1000})
	set(t, s, 0, "keep", "v", SetArgs{})
	if _, ok := get(t, s, 0, "k"); !ok {
		t.Fatal("key gone before its deadline")
	}
	clock.advance(1000 * time.Millisecond)
	if _, ok := get(t, s, 0, "k"); !ok {
		t.Fatal("key gone during the millisecond of its deadline (Redis keeps it, PTTL 0)")
	}
	if n, err := s.ReapExpired(time.Second); err != nil || n != 0 {
		t.Fatalf("ReapExpired at the deadline = %d, %v", n, err)
	}
	clock.advance(time.Millisecond)
	if _, ok := get(t, s, 0, "k"); ok {
		t.Fatal("expired key still readable")
	}
	if n := s.DBSize(0); n != 2 {
		t.Fatalf("DBSIZE before reaping = %d, want 2 (as Redis counts unreclaimed keys)", n)
	}
	n, err := s.ReapExpired(time.Second)
	if err != nil || n != 1 {
		t.Fatalf("ReapExpired = %d, %v", n, err)
	}
	if n := s.DBSize(0); n != 1 {
		t.Fatalf("DBSIZE after reaping = %d", n)
	}
}

func TestReaperSkipsChangedDeadline(t *testing.T) {
	s, clock := openTestStore(t)
	set(t, s, 0, "k", "v", SetArgs{ExpireMs: clock.ms.Load() + 10})
	write(t, s, []string{"k"}, func(tx *Tx) error {
		_, err := tx.Expire(0, []byte("k"), clock.ms.Load()+100000, ExpireAlways)
		return err
	})
	clock.advance(time.Second)
	if n, err := s.ReapExpired(time.Second); err != nil || n != 0 {
		t.Fatalf("ReapExpired = %d, %v", n, err)
	}
	if _, ok := get(t, s, 0, "k"); !ok {
		t.Fatal("key with an extended deadline was reaped")
	}
}

func TestOverwritingExpiredKeyKeepsCount(t *testing.T) {
	s, clock := openTestStore(t)
	set(t, s, 0, "k", "v", SetArgs{ExpireMs: clock.ms.Load() + 10})
	clock.advance(time.Second)
	set(t, s, 0, "k", "new", SetArgs{Cond: SetNX})
	if v, ok := get(t, s, 0, "k"); !ok || v != "new" {
		t.Fatalf("SET NX over an expired key: %q %v", v, ok)
	}
	if n := s.DBSize(0); n != 1 {
		t.Fatalf("DBSIZE = %d", n)
	}
}

func TestIncrByOverflowAndType(t *testing.T) {
	s, _ := openTestStore(t)
	set(t, s, 0, "n", "9223372036854775806", SetArgs{})
	tx := s.Begin([][]byte{[]byte("n")})
	if v, err := tx.IncrBy(0, []byte("n"), 1); err != nil || v != 9223372036854775807 {
		t.Fatalf("IncrBy = %d, %v", v, err)
	}
	if _, err := tx.IncrBy(0, []byte("n"), 1); err != ErrOverflow {
		t.Fatalf("overflow: %v", err)
	}
	tx.Close()
	set(t, s, 0, "s", "abc", SetArgs{})
	tx = s.Begin([][]byte{[]byte("s")})
	if _, err := tx.IncrBy(0, []byte("s"), 1); err != ErrNotInteger {
		t.Fatalf("not an integer: %v", err)
	}
	tx.Close()
}

func TestFlushAndSwapDB(t *testing.T) {
	s, _ := openTestStore(t)
	set(t, s, 0, "a", "0", SetArgs{})
	set(t, s, 1, "b", "1", SetArgs{})
	writeAll(t, s, func(tx *Tx) error { return tx.SwapDB(0, 1) })
	if v, ok := get(t, s, 0, "b"); !ok || v != "1" {
		t.Fatalf("after SWAPDB db0 b = %q %v", v, ok)
	}
	if s.DBSize(0) != 1 || s.DBSize(1) != 1 {
		t.Fatal("sizes wrong after swap")
	}
	writeAll(t, s, func(tx *Tx) error { return tx.FlushDB(0) })
	if s.DBSize(0) != 0 || s.DBSize(1) != 1 {
		t.Fatalf("sizes after FLUSHDB: %d %d", s.DBSize(0), s.DBSize(1))
	}
	if v, ok := get(t, s, 1, "a"); !ok || v != "0" {
		t.Fatalf("db1 a = %q %v", v, ok)
	}
}

// TestChangedDBs: a flush or a swap reports the logical databases it
// changed as a whole, after the commit too (the commit hook runs then), and
// a rolled-back command takes its report back.
func TestChangedDBs(t *testing.T) {
	s, _ := openTestStore(t)
	tx := s.BeginAll()
	defer tx.Close()
	tx.StartCommand()
	if err := tx.SwapDB(1, 2); err != nil {
		t.Fatal(err)
	}
	mark := tx.StartCommand()
	if err := tx.FlushAll(); err != nil {
		t.Fatal(err)
	}
	if got := tx.ChangedDBs(); !slices.Equal(got, []int{1, 2, 0, 1, 2, 3}) {
		t.Fatalf("ChangedDBs after SWAPDB and FLUSHALL = %v", got)
	}
	if err := tx.RollbackCommand(mark); err != nil {
		t.Fatal(err)
	}
	tx.StartCommand()
	if err := tx.FlushDB(3); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := tx.ChangedDBs(); !slices.Equal(got, []int{1, 2, 3}) {
		t.Fatalf("ChangedDBs after the commit = %v", got)
	}
}

func TestScanReturnsEveryKeyOnce(t *testing.T) {
	s, _ := openTestStore(t)
	want := map[string]bool{}
	for i := range 500 {
		k := fmt.Sprintf("key:%d", i)
		want[k] = true
		set(t, s, 0, k, "v", SetArgs{})
	}
	seen := map[string]int{}
	var cursor uint64
	for calls := 0; ; calls++ {
		if calls > 1000 {
			t.Fatal("scan does not terminate")
		}
		tx := s.Read(false)
		next, keys, err := tx.Scan(0, cursor, ScanArgs{Count: 7})
		tx.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			seen[string(k)]++
		}
		if next == 0 {
			break
		}
		if next <= cursor {
			t.Fatalf("cursor went from %d to %d", cursor, next)
		}
		cursor = next
	}
	for k := range want {
		if seen[k] != 1 {
			t.Fatalf("key %q seen %d times", k, seen[k])
		}
	}
}

func TestRenameCopyMoveKeepDeadline(t *testing.T) {
	s, clock := openTestStore(t)
	deadline := clock.ms.Load() + 5000
	set(t, s, 0, "src", "v", SetArgs{ExpireMs: deadline})
	write(t, s, []string{"src", "dst"}, func(tx *Tx) error {
		if _, err := tx.Copy(0, []byte("src"), 2, []byte("dst"), false); err != nil {
			return err
		}
		_, err := tx.Rename(0, []byte("src"), []byte("dst"), false)
		return err
	})
	for _, db := range []int{0, 2} {
		tx := s.Read(false)
		d, err := tx.Deadline(db, []byte("dst"))
		tx.Close()
		if err != nil || d != deadline {
			t.Fatalf("db %d deadline = %d, %v", db, d, err)
		}
	}
	if _, ok := get(t, s, 0, "src"); ok {
		t.Fatal("renamed source still exists")
	}
	write(t, s, []string{"dst"}, func(tx *Tx) error {
		moved, err := tx.Move(0, []byte("dst"), 2)
		if moved {
			return errors.New("MOVE onto an existing key succeeded")
		}
		return err
	})
}

func TestConcurrentIncrIsExact(t *testing.T) {
	s, _ := openTestStore(t)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				tx := s.Begin([][]byte{[]byte("ctr")})
				if _, err := tx.IncrBy(0, []byte("ctr"), 1); err != nil {
					t.Error(err)
				}
				if err := tx.Commit(); err != nil {
					t.Error(err)
				}
				tx.Close()
			}
		}()
	}
	wg.Wait()
	if v, _ := get(t, s, 0, "ctr"); v != "1600" {
		t.Fatalf("counter = %s", v)
	}
}

func TestCountsSurviveReopen(t *testing.T) {
	fs := vfs.NewMem()
	open := func() (*Store, engine.Engine) {
		eng, err := engine.OpenPebble("", engine.PebbleOptions{FS: fs})
		if err != nil {
			t.Fatal(err)
		}
		s, err := Open(eng, Options{Databases: 2, ReapInterval: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		return s, eng
	}
	s, eng := open()
	for i := range 50 {
		set(t, s, 1, fmt.Sprint(i), "v", SetArgs{})
	}
	tx := s.BeginAll()
	_ = tx.SwapDB(0, 1)
	_ = tx.Commit()
	tx.Close()
	_ = s.Close()
	_ = eng.Close()
	s, eng = open()
	defer eng.Close()
	defer s.Close()
	if n := s.DBSize(0); n != 50 {
		t.Fatalf("DBSIZE after reopen = %d", n)
	}
	if err := Check(s); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal([]byte("v"), []byte(mustGet(t, s, 0, "7"))) {
		t.Fatal("value lost")
	}
}

func mustGet(t *testing.T, s *Store, db int, k string) string {
	v, ok := get(t, s, db, k)
	if !ok {
		t.Fatalf("%q missing", k)
	}
	return v
}

var _ = encoding.TypeString

// Deleting a small collection writes point deletes, not range tombstones
// (which Pebble re-fragments on every read while they sit in the memtable);
// a large one is still one range tombstone per family it uses.
func TestDeleteSmallCollectionsWithPointDeletes(t *testing.T) {
	for _, c := range []struct {
		fields     int
		wantRanges int64
	}{{3, 0}, {pointDeleteLimit, 0}, {pointDeleteLimit + 1, 1}} {
		eng, err := engine.OpenPebble("", engine.PebbleOptions{FS: vfs.NewMem()})
		if err != nil {
			t.Fatal(err)
		}
		ce := &countingEngine{Engine: eng}
		s, err := Open(ce, Options{Databases: 1, ReapInterval: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		var pairs [][]byte
		for i := range c.fields {
			pairs = append(pairs, fmt.Appendf(nil, "f%d", i), []byte("v"))
		}
		write(t, s, []string{"h"}, func(tx *Tx) error { _, err := tx.HSet(0, []byte("h"), pairs); return err })
		ce.ranges.Store(0)
		write(t, s, []string{"h"}, func(tx *Tx) error { _, err := tx.Delete(0, []byte("h")); return err })
		if got := ce.ranges.Load(); got != c.wantRanges {
			t.Errorf("DEL of a %d-field hash wrote %d range tombstones, want %d", c.fields, got, c.wantRanges)
		}
		if err := Check(s); err != nil {
			t.Fatal(err)
		}
		_ = s.Close()
		_ = eng.Close()
	}
}
