package engine

import (
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
