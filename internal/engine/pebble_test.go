package engine

import (
	"bytes"
	"errors"
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
