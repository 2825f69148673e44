package engine

import (
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
)

func TestMetricsFollowWrites(t *testing.T) {
	p, err := OpenPebble("", PebbleOptions{FS: vfs.NewMem(), CacheSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	before := p.Metrics()
	if before.Failed || before.DiskFull {
		t.Fatalf("fresh engine: failed=%v disk full=%v", before.Failed, before.DiskFull)
	}
	if len(before.Levels) != 7 {
		t.Fatalf("levels = %d, want 7", len(before.Levels))
	}
	for i := range 10 {
		b := p.NewBatch()
		if err := b.Set([]byte{byte(i)}, make([]byte, 1000)); err != nil {
			t.Fatal(err)
		}
		if err := b.Commit(true); err != nil {
			t.Fatal(err)
		}
	}
	after := p.Metrics()
	if after.WALSyncs <= before.WALSyncs {
		t.Errorf("WAL syncs %d -> %d after synced commits", before.WALSyncs, after.WALSyncs)
	}
	if after.WALBytes <= before.WALBytes {
		t.Errorf("WAL bytes %d -> %d after 10 KB of writes", before.WALBytes, after.WALBytes)
	}
	if after.MemTableBytes == 0 {
		t.Error("memtable bytes 0 after writes")
	}
}

func TestStallCounter(t *testing.T) {
	var s stallCounter
	if n, d := s.read(); n != 0 || d != 0 {
		t.Fatalf("fresh: %d stalls, %v", n, d)
	}
	s.begin()
	time.Sleep(2 * time.Millisecond)
	n, during := s.read()
	if n != 1 || during < 2*time.Millisecond {
		t.Errorf("during a stall: %d stalls, %v", n, during)
	}
	s.end()
	n, d := s.read()
	if n != 1 || d < during {
		t.Errorf("after a stall: %d stalls, %v (was %v during it)", n, d, during)
	}
	time.Sleep(time.Millisecond)
	if _, d2 := s.read(); d2 != d {
		t.Errorf("the time grew with no stall under way: %v -> %v", d, d2)
	}
	s.end() // an end without a begin changes nothing
	if n2, d2 := s.read(); n2 != 1 || d2 != d {
		t.Errorf("a stray end changed the figures: %d, %v", n2, d2)
	}
}
