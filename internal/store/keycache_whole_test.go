package store

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/engine"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// These tests hunt for a key-cache miss answered "absent" in a database the
// cache holds whole while the engine has the key's metadata record.

// openWholeStore opens a store of three databases on fs (on eng, when
// given, wrapping the Pebble engine) and returns it with its closer, which
// runs the invariant check first.
func openWholeStore(t *testing.T, fs vfs.FS, cacheBytes int64, wrap func(engine.Engine) engine.Engine) (*Store, func()) {
	t.Helper()
	peb, err := engine.OpenPebble("", engine.PebbleOptions{FS: fs, CacheSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	var eng engine.Engine = peb
	if wrap != nil {
		eng = wrap(peb)
	}
	s, err := Open(eng, Options{Databases: 3, ReapInterval: time.Hour, KeyCacheSize: cacheBytes})
	if err != nil {
		t.Fatal(err)
	}
	return s, func() {
		t.Helper()
		if err := Check(s); err != nil {
			t.Errorf("invariants: %v", err)
		}
		_ = s.Close()
		_ = peb.Close()
	}
}

// TestKeyCacheHoldsEmptyDatabases follows the complete flag of a database
// through its life: held whole when empty at open and after a flush, lost
// when an entry of it is evicted or too big to keep; every key stays
// readable throughout, and the closer's Check verifies each held database
// against the engine.
func TestKeyCacheHoldsEmptyDatabases(t *testing.T) {
	fs := vfs.NewMem()
	held := func(s *Store) [3]bool {
		return [3]bool{s.keys.holdsAll(0), s.keys.holdsAll(1), s.keys.holdsAll(2)}
	}
	// 1 KiB a shard: entries up to 256 bytes, and evictions soon.
	const small = cacheShards * 1024

	s, closeStore := openWholeStore(t, fs, small, nil)
	if got := held(s); got != [3]bool{true, true, true} {
		t.Fatalf("fresh store: held %v", got)
	}
	for i := range 50 {
		set(t, s, 0, fmt.Sprint("k", i), "v", SetArgs{})
	}
	set(t, s, 2, "big", strings.Repeat("x", 2000), SetArgs{})
	if got := held(s); got != [3]bool{true, true, false} {
		t.Fatalf("after small writes to 0 and a big one to 2: held %v", got)
	}
	if got, _ := get(t, s, 2, "big"); len(got) != 2000 {
		t.Fatalf("big value read back as %d bytes", len(got))
	}
	closeStore()

	// Reopened: 0 and 2 have keys, 1 is empty.
	s, closeStore = openWholeStore(t, fs, small, nil)
	defer closeStore()
	if got := held(s); got != [3]bool{false, true, false} {
		t.Fatalf("reopened: held %v", got)
	}
	if v, _ := get(t, s, 0, "k7"); v != "v" {
		t.Fatalf("k7 = %q after reopening", v)
	}
	if _, ok := get(t, s, 1, "k7"); ok {
		t.Fatal("k7 found in database 1")
	}
	writeAll(t, s, func(tx *Tx) error { return tx.FlushDB(0) })
	if got := held(s); got != [3]bool{true, false, false} {
		// clear() forgets what it knew of 1: only the flushed database
		// is known to be whole.
		t.Fatalf("after FLUSHDB 0: held %v", got)
	}
	// Enough keys in one database to evict from a 1 KiB shard.
	for i := range 20_000 {
		set(t, s, 0, fmt.Sprint("e", i), "v", SetArgs{})
	}
	if held(s)[0] {
		t.Fatal("database 0 still held whole after evictions")
	}
	for _, i := range []int{0, 7, 19_999} {
		if v, _ := get(t, s, 0, fmt.Sprint("e", i)); v != "v" {
			t.Fatalf("e%d = %q after evictions", i, v)
		}
	}
}

// SWAPDB moves no data: the flags belong to physical databases and must
// follow them to their new logical numbers; MOVE, COPY and RENAME between
// a held and an unheld database keep every key readable.
func TestKeyCacheWholeSwapMoveCopyRename(t *testing.T) {
	fs := vfs.NewMem()
	s, closeStore := openWholeStore(t, fs, testKeyCache, nil)
	set(t, s, 0, "x", "vx", SetArgs{})
	set(t, s, 0, "z", "vz", SetArgs{})
	closeStore()

	// Reopened: physical 0 holds x and z (not held whole), 1 and 2 are
	// empty (held whole).
	s, closeStore = openWholeStore(t, fs, testKeyCache, nil)
	defer closeStore()
	if s.keys.holdsAll(0) || !s.keys.holdsAll(1) || !s.keys.holdsAll(2) {
		t.Fatalf("reopened: held %v %v %v", s.keys.holdsAll(0), s.keys.holdsAll(1), s.keys.holdsAll(2))
	}
	writeAll(t, s, func(tx *Tx) error { return tx.SwapDB(0, 1) })

	// Logical 1 is now physical 0, with the keys.
	for _, c := range []struct {
		db       int
		key, val string
		ok       bool
	}{{1, "x", "vx", true}, {1, "z", "vz", true}, {0, "x", "", false}} {
		if v, ok := get(t, s, c.db, c.key); v != c.val || ok != c.ok {
			t.Fatalf("after SWAPDB: db %d %q = %q, %v; want %q, %v", c.db, c.key, v, ok, c.val, c.ok)
		}
	}
	keyOps := []struct {
		name string
		keys []string
		op   func(tx *Tx) (bool, error)
	}{
		{"MOVE x 1->0", []string{"x"}, func(tx *Tx) (bool, error) { return tx.Move(1, []byte("x"), 0) }},
		{"COPY x 0->2 y", []string{"x", "y"}, func(tx *Tx) (bool, error) { return tx.Copy(0, []byte("x"), 2, []byte("y"), false) }},
		{"RENAME z w in 1", []string{"z", "w"}, func(tx *Tx) (bool, error) { return tx.Rename(1, []byte("z"), []byte("w"), false) }},
		{"MOVE w 1->2", []string{"w"}, func(tx *Tx) (bool, error) { return tx.Move(1, []byte("w"), 2) }},
	}
	for _, o := range keyOps {
		if ok := writeTx(t, s, o.keys, o.op); !ok {
			t.Fatalf("%s did nothing", o.name)
		}
	}
	// Every store of the records above was cached: Check verifies the
	// databases still held whole against the engine; reads must agree.
	for _, c := range []struct {
		db       int
		key, val string
		ok       bool
	}{
		{0, "x", "vx", true}, {1, "x", "", false},
		{2, "y", "vx", true}, {2, "w", "vz", true},
		{1, "z", "", false}, {1, "w", "", false},
	} {
		if v, ok := get(t, s, c.db, c.key); v != c.val || ok != c.ok {
			t.Fatalf("db %d %q = %q, %v; want %q, %v", c.db, c.key, v, ok, c.val, c.ok)
		}
	}
	if err := checkKeyCache(s); err != nil {
		t.Fatal(err)
	}
}

// A command rolled back in a shared (pipelined) transaction must leave no
// trace in the cache: its key stays absent, the others' writes are kept.
func TestKeyCacheWholeRollbackCommand(t *testing.T) {
	s, closeStore := openWholeStore(t, vfs.NewMem(), testKeyCache, nil)
	defer closeStore()
	tx := s.Begin(byteSlices("a"))
	tx.StartCommand()
	if _, err := tx.SetString(0, []byte("a"), []byte("va"), SetArgs{}); err != nil {
		t.Fatal(err)
	}
	if !tx.TryLock(byteSlices("b")) {
		t.Fatal("b locked elsewhere")
	}
	m := tx.StartCommand()
	if _, err := tx.SetString(0, []byte("b"), []byte("vb"), SetArgs{}); err != nil {
		t.Fatal(err)
	}
	if err := tx.RollbackCommand(m); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	tx.Close()
	if v, ok := get(t, s, 0, "a"); v != "va" || !ok {
		t.Fatalf("a = %q, %v", v, ok)
	}
	if v, ok := get(t, s, 0, "b"); ok {
		t.Fatalf("rolled back b = %q", v)
	}
	if !s.keys.holdsAll(0) {
		t.Fatal("database 0 no longer held whole after a clean commit")
	}
}

// appliedFailEngine's batches apply their writes and then report failure,
// as a commit whose WAL sync failed: the engine holds what the cache was
// told may not be there.
type appliedFailEngine struct {
	engine.Engine
	fail atomic.Bool
}

func (e *appliedFailEngine) NewBatch() engine.Batch {
	return &appliedFailBatch{e.Engine.NewBatch(), e}
}

type appliedFailBatch struct {
	engine.Batch
	e *appliedFailEngine
}

func (b *appliedFailBatch) Commit(sync bool) error {
	if err := b.Batch.Commit(sync); err != nil {
		return err
	}
	if b.e.fail.Load() {
		return errors.New("injected: applied, reported failed")
	}
	return nil
}

func (b *appliedFailBatch) CommitBuffered() error {
	if err := b.Batch.CommitBuffered(); err != nil {
		return err
	}
	if b.e.fail.Load() {
		return errors.New("injected: applied, reported failed")
	}
	return nil
}

// After a failed commit that the engine applied, a held database must stop
// answering misses: the record is in the engine, not in the cache.
func TestKeyCacheWholeFailedCommit(t *testing.T) {
	var fe *appliedFailEngine
	s, closeStore := openWholeStore(t, vfs.NewMem(), testKeyCache, func(e engine.Engine) engine.Engine {
		fe = &appliedFailEngine{Engine: e}
		return fe
	})
	defer closeStore()
	fe.fail.Store(true)
	tx := s.Begin(byteSlices("k"))
	if _, err := tx.SetString(0, []byte("k"), []byte("v"), SetArgs{}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err == nil {
		t.Fatal("injected failure not reported")
	}
	tx.Close()
	fe.fail.Store(false)
	if s.keys.holdsAll(0) {
		t.Fatal("database 0 still held whole after a failed commit")
	}
	if v, ok := get(t, s, 0, "k"); v != "v" || !ok {
		t.Fatalf("k = %q, %v; the engine holds it", v, ok)
	}
	// Keep the counts right for the closing check: the failed commit
	// left them stale (the reaper would reload them).
	s.reloadCounts()
}

// Writers fill a held database through a tiny cache, so entries are
// evicted (and the flag lost) while readers race them; every key read
// after its write was acknowledged must be found.
func TestKeyCacheWholeConcurrentEvictions(t *testing.T) {
	s, closeStore := openWholeStore(t, vfs.NewMem(), cacheShards*384, nil)
	defer closeStore()
	const writers, perWriter = 3, 1500
	var acked [writers]atomic.Int64 // keys 0..acked-1 of each writer are acknowledged
	var stop atomic.Bool
	var wg sync.WaitGroup
	errs := make(chan error, writers+1)
	for w := range writers {
		wg.Go(func() {
			for i := range perWriter {
				k := []byte(fmt.Sprint("w", w, "-", i))
				tx := s.Begin([][]byte{k})
				_, err := tx.SetString(0, k, []byte("v"), SetArgs{})
				if err == nil {
					err = tx.Commit()
				}
				tx.Close()
				if err != nil {
					errs <- err
					return
				}
				acked[w].Store(int64(i + 1))
				rtx := s.Read(false)
				_, ok, err := rtx.GetString(0, k)
				rtx.Close()
				if err != nil || !ok {
					errs <- fmt.Errorf("own write %s read back absent (err %v)", k, err)
					return
				}
			}
		})
	}
	wg.Go(func() {
		for n := 0; !stop.Load(); n++ {
			w := n % writers
			a := acked[w].Load()
			if a == 0 {
				continue
			}
			k := []byte(fmt.Sprint("w", w, "-", int64(n)%a))
			rtx := s.Read(false)
			_, ok, err := rtx.GetString(0, k)
			rtx.Close()
			if err != nil || !ok {
				errs <- fmt.Errorf("acknowledged %s read absent (err %v)", k, err)
				return
			}
		}
	})
	go func() {
		// Stop the reader once the writers are done.
		for w := range writers {
			for acked[w].Load() < perWriter && len(errs) == 0 {
				time.Sleep(time.Millisecond)
			}
		}
		stop.Store(true)
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if s.keys.holdsAll(0) {
		t.Fatal("database 0 held whole after evictions")
	}
}

// A FLUSHDB rolled back in a shared transaction leaves no mark: the
// database was never emptied, so the key cache must not take it for one it
// holds whole. (No command shares a Tx with a flush today; MULTI will.)
func TestKeyCacheWholeRolledBackFlush(t *testing.T) {
	s, _ := openTestStore(t)
	tx := s.BeginAll()
	if _, err := tx.SetString(1, []byte("k"), []byte("v"), SetArgs{}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	tx.Close()
	s.keys.clear() // k is no longer cached; database 1 is not held whole

	tx = s.BeginAll()
	m := tx.StartCommand()
	if err := tx.FlushDB(1); err != nil {
		t.Fatal(err)
	}
	if err := tx.RollbackCommand(m); err != nil {
		t.Fatal(err)
	}
	// A later command writes, so that the Tx commits a batch.
	tx.StartCommand()
	if _, err := tx.SetString(2, []byte("other"), []byte("v"), SetArgs{}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	tx.Close()
	if s.keys.holdsAll(1) {
		t.Fatal("database 1 held whole after a rolled-back FLUSHDB")
	}
	v := readTx(t, s, func(tx *Tx) ([]byte, error) {
		v, _, err := tx.GetString(1, []byte("k"))
		return v, err
	})
	if string(v) != "v" {
		t.Fatalf("k = %q after a rolled-back FLUSHDB, want v", v)
	}
}
