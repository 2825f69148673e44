package engine

import (
	"errors"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// TestCloseWaitsForOpenIterators: every kind of reader's iterator is
// counted while open, and Close waits for the last one to be closed
// instead of failing with Pebble's "leaked iterators" (a read finishing
// while the server shuts down).
func TestCloseWaitsForOpenIterators(t *testing.T) {
	open := map[string]func(p *Pebble) (Iterator, func()){
		"engine": func(p *Pebble) (Iterator, func()) {
			it, err := p.NewIter(nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			return it, func() {}
		},
		"batch": func(p *Pebble) (Iterator, func()) {
			b := p.NewBatch()
			it, err := b.NewIter(nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			return it, func() { _ = b.Close() }
		},
		"snapshot": func(p *Pebble) (Iterator, func()) {
			s := p.NewSnapshot()
			it, err := s.NewIter(nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			return it, func() { _ = s.Close() }
		},
		"view": func(p *Pebble) (Iterator, func()) {
			v := p.NewView()
			if _, err := v.Get([]byte("k"), nil); err != nil && err != ErrNotFound {
				t.Fatal(err)
			}
			it, err := v.NewIter(nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			return it, func() { _ = v.Close() }
		},
	}
	for name, mk := range open {
		t.Run(name, func(t *testing.T) {
			p, err := OpenPebble("", PebbleOptions{FS: vfs.NewMem(), CacheSize: 1 << 20})
			if err != nil {
				t.Fatal(err)
			}
			it, release := mk(p)
			if n := p.OpenIterators(); n < 1 {
				t.Fatalf("open iterators = %d with one open", n)
			}
			it.First()
			go func() {
				time.Sleep(50 * time.Millisecond)
				_ = it.Close()
				release()
			}()
			if err := p.Close(); err != nil {
				t.Fatalf("Close with an iterator closed meanwhile: %v", err)
			}
			if n := p.OpenIterators(); n != 0 {
				t.Fatalf("open iterators after close = %d", n)
			}
		})
	}
}

// TestCloseWithALeakedIterator: an iterator never closed (a bug in a
// command) must not make Close panic, even if it is used while Close
// runs; Close reports it and leaves every committed write to the next
// open.
func TestCloseWithALeakedIterator(t *testing.T) {
	if testing.Short() {
		t.Skip("waits iterWait")
	}
	fs := vfs.NewMem()
	p, err := OpenPebble("db", PebbleOptions{FS: fs, CacheSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	b := p.NewBatch()
	_ = b.Set([]byte("k"), []byte("v"))
	if err := b.Commit(false); err != nil {
		t.Fatal(err)
	}
	_ = b.Close()
	// A table under the iterator: Pebble's file cache holds a reference.
	if err := p.db().Flush(); err != nil {
		t.Fatal(err)
	}
	b = p.NewBatch()
	_ = b.Set([]byte("after-flush"), []byte("v"))
	if err := b.Commit(false); err != nil {
		t.Fatal(err)
	}
	_ = b.Close()
	it, err := p.NewIter(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			for ok := it.First(); ok; ok = it.Next() {
			}
		}
	}()
	err = p.Close()
	close(stop)
	<-done
	if !errors.Is(err, ErrLeakedIterators) {
		t.Fatalf("Close with a leaked iterator: %v, want ErrLeakedIterators", err)
	}
	// What the next start finds: everything committed (a copy, since the
	// leaked store still holds its lock).
	q := crashedCopy(t, fs)
	for _, k := range []string{"k", "after-flush"} {
		if _, err := q.Get([]byte(k), nil); err != nil {
			t.Errorf("%s after reopening: %v", k, err)
		}
	}
}

// crashedCopy opens a copy of the store in fs's "db" as it is on the file
// system now.
func crashedCopy(t *testing.T, fs vfs.FS) *Pebble {
	t.Helper()
	dst := vfs.NewMem()
	if _, err := vfs.Clone(fs, dst, "db", "db"); err != nil {
		t.Fatal(err)
	}
	q, err := OpenPebble("db", PebbleOptions{FS: dst, CacheSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = q.Close() })
	return q
}
