package engine

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

func openMem(t *testing.T) *Pebble {
	t.Helper()
	p, err := OpenPebble("", PebbleOptions{FS: vfs.NewMem(), CacheSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

func TestBatchReadsItsOwnWritesAndCommitsAtomically(t *testing.T) {
	p := openMem(t)
	b := p.NewBatch()
	if err := b.Set([]byte("a"), []byte("1")); err != nil {
		t.Fatal(err)
	}
	if v, err := b.Get([]byte("a"), nil); err != nil || string(v) != "1" {
		t.Fatalf("batch Get = %q, %v", v, err)
	}
	if _, err := p.Get([]byte("a"), nil); !errors.Is(err, ErrNotFound) {
		t.Fatalf("uncommitted write visible: %v", err)
	}
	if err := b.Commit(true); err != nil {
		t.Fatal(err)
	}
	_ = b.Close()
	if v, err := p.Get([]byte("a"), nil); err != nil || string(v) != "1" {
		t.Fatalf("Get after commit = %q, %v", v, err)
	}
}

func TestDeleteRangeAndIterBounds(t *testing.T) {
	p := openMem(t)
	b := p.NewBatch()
	for _, k := range []string{"a", "b1", "b2", "b3", "c"} {
		_ = b.Set([]byte(k), []byte(k))
	}
	if err := b.DeleteRange([]byte("b2"), []byte("c")); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(false); err != nil {
		t.Fatal(err)
	}
	_ = b.Close()
	it, err := p.NewIter([]byte("a"), []byte("c"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for ok := it.First(); ok; ok = it.Next() {
		got = append(got, string(it.Key()))
	}
	_ = it.Close()
	if want := []string{"a", "b1"}; len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("iterated %v, want %v", got, want)
	}
}

func TestSnapshotIsFrozen(t *testing.T) {
	p := openMem(t)
	set := func(k, v string) {
		b := p.NewBatch()
		_ = b.Set([]byte(k), []byte(v))
		if err := b.Commit(false); err != nil {
			t.Fatal(err)
		}
		_ = b.Close()
	}
	set("k", "old")
	s := p.NewSnapshot()
	defer s.Close()
	set("k", "new")
	if v, _ := s.Get([]byte("k"), nil); !bytes.Equal(v, []byte("old")) {
		t.Fatalf("snapshot saw %q", v)
	}
	if err := p.SyncWAL(); err != nil {
		t.Fatal(err)
	}
	if len(p.Stats()) == 0 {
		t.Fatal("no stats")
	}
}

// Pebble reserves its memtables' memory inside the block cache; a cache
// sized without room for them caches nothing, and every point read goes to
// disk. This checks that reads of flushed data are served from the cache.
func TestBlockCacheServesRepeatedReads(t *testing.T) {
	p, err := OpenPebble("", PebbleOptions{FS: vfs.NewMem(), CacheSize: 4 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	b := p.NewBatch()
	for i := range 20000 {
		_ = b.Set(fmt.Appendf(nil, "key%06d", i), bytes.Repeat([]byte{'v'}, 64))
	}
	if err := b.Commit(false); err != nil {
		t.Fatal(err)
	}
	_ = b.Close()
	if err := p.db().Flush(); err != nil {
		t.Fatal(err)
	}
	for range 100 {
		if _, err := p.Get([]byte("key012345"), nil); err != nil {
			t.Fatal(err)
		}
	}
	m := p.db().Metrics()
	if m.BlockCache.Size == 0 || m.BlockCache.Hits < 90 {
		t.Fatalf("block cache holds %d bytes, %d hits of 100 repeated reads", m.BlockCache.Size, m.BlockCache.Hits)
	}
}

func TestBatchRollbackToMark(t *testing.T) {
	p := openMem(t)
	b := p.NewBatch()
	defer b.Close()
	if err := b.RollbackTo(b.Mark()); err != nil {
		t.Fatalf("rollback of an empty batch: %v", err)
	}
	start := b.Mark()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(b.Set([]byte("a"), []byte("1")))
	m := b.Mark()
	must(b.Set([]byte("b"), []byte("2")))
	must(b.Delete([]byte("a")))
	must(b.DeleteRange([]byte("a"), []byte("z")))
	must(b.RollbackTo(m))
	if v, err := b.Get([]byte("a"), nil); err != nil || string(v) != "1" {
		t.Fatalf("write before the mark after rollback: %q, %v", v, err)
	}
	if _, err := b.Get([]byte("b"), nil); !errors.Is(err, ErrNotFound) {
		t.Fatalf("write after the mark survived the rollback: %v", err)
	}
	// The batch keeps working: more writes, a second mark, then commit.
	must(b.Set([]byte("c"), []byte("3")))
	if b.Mark() == m {
		t.Fatal("mark did not move with a write")
	}
	must(b.Commit(false))
	for k, want := range map[string]string{"a": "1", "b": "", "c": "3"} {
		v, err := p.Get([]byte(k), nil)
		if want == "" {
			if !errors.Is(err, ErrNotFound) {
				t.Errorf("%s = %q, %v; want absent", k, v, err)
			}
		} else if err != nil || string(v) != want {
			t.Errorf("%s = %q, %v; want %q", k, v, err, want)
		}
	}

	b2 := p.NewBatch()
	defer b2.Close()
	must(b2.Set([]byte("d"), []byte("4")))
	must(b2.RollbackTo(start))
	if !b2.Empty() {
		t.Fatal("rollback to the start left writes")
	}
}
