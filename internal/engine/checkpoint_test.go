package engine

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
)

// TestCheckpointUnderWrites takes a checkpoint while a writer commits
// batches of two keys that must always appear together, then opens the
// checkpoint: it holds every batch committed before the call, each batch
// whole, and none committed after the call returned.
func TestCheckpointUnderWrites(t *testing.T) {
	dir := t.TempDir()
	p, err := OpenPebble(filepath.Join(dir, "data"), PebbleOptions{CacheSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	write := func(i int) error {
		b := p.NewBatch()
		defer b.Close()
		for _, k := range []string{"a", "b"} {
			if err := b.Set(fmt.Appendf(nil, "%s%08d", k, i), []byte("v")); err != nil {
				return err
			}
		}
		return b.Commit(false)
	}
	for i := range 1000 {
		if err := write(i); err != nil {
			t.Fatal(err)
		}
	}
	var next atomic.Int64
	next.Store(1000)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			i := int(next.Load())
			if err := write(i); err != nil {
				t.Error(err)
				return
			}
			next.Add(1)
		}
	}()
	ck := filepath.Join(dir, "backup", "one")
	before := int(next.Load())
	if err := p.Checkpoint(ck); err != nil {
		t.Fatal(err)
	}
	after := int(next.Load())
	close(stop)
	wg.Wait()
	if err := p.Checkpoint(ck); !errors.Is(err, os.ErrExist) {
		t.Errorf("a checkpoint into an existing directory: %v, want ErrExist", err)
	}

	c, err := OpenPebble(ck, PebbleOptions{CacheSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	count := func(prefix string) int {
		it, err := c.NewIter([]byte(prefix), []byte(prefix+"~"))
		if err != nil {
			t.Fatal(err)
		}
		defer it.Close()
		n := 0
		for ok := it.First(); ok; ok = it.Next() {
			if want := fmt.Sprintf("%s%08d", prefix, n); string(it.Key()) != want {
				t.Fatalf("key %d in the checkpoint is %q, want %q", n, it.Key(), want)
			}
			n++
		}
		return n
	}
	na, nb := count("a"), count("b")
	if na != nb {
		t.Fatalf("the checkpoint holds %d a-keys and %d b-keys: a batch was split", na, nb)
	}
	// The writer counts a batch just after committing it.
	if na < before || na > after+1 {
		t.Fatalf("the checkpoint holds %d batches; %d were committed before it began and %d when it ended", na, before, after)
	}
}
