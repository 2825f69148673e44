package engine

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// crashed opens what a crash would leave of the store in fs: with osCrash,
// only what was synced to disk; without, everything written to the file
// system (a process crash: the operating system keeps what it was given).
func crashed(t *testing.T, fs *vfs.MemFS, osCrash bool) *Pebble {
	t.Helper()
	cfg := vfs.CrashCloneCfg{UnsyncedDataPercent: 100, RNG: rand.New(rand.NewPCG(1, 2))}
	if osCrash {
		cfg = vfs.CrashCloneCfg{}
	}
	p, err := OpenPebble("db", PebbleOptions{FS: fs.CrashClone(cfg), CacheSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

func commitKey(t *testing.T, p *Pebble, key string, sync bool) {
	t.Helper()
	b := p.NewBatch()
	defer b.Close()
	if err := b.Set([]byte(key), []byte("v")); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(sync); err != nil {
		t.Fatal(err)
	}
}

func hasKey(t *testing.T, p *Pebble, key string) bool {
	t.Helper()
	_, err := p.Get([]byte(key), nil)
	if err != nil && !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
	return err == nil
}

// An unsynced commit is written to the WAL file before Commit returns, so
// a process crash keeps it (appendfsync everysec and no acknowledge
// nothing a kill -9 can take back); only its fsync waits, for a synced
// commit or SyncWAL.
func TestUnsyncedCommitIsWrittenBeforeItReturns(t *testing.T) {
	fs := vfs.NewCrashableMem()
	p, err := OpenPebble("db", PebbleOptions{FS: fs, CacheSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()

	commitKey(t, p, "synced", true)
	syncs := p.WALSyncs()
	commitKey(t, p, "written", false)
	if n := p.WALSyncs(); n != syncs {
		t.Errorf("an unsynced commit synced the WAL (%d syncs, was %d)", n, syncs)
	}
	if got := crashed(t, fs, false); !hasKey(t, got, "synced") || !hasKey(t, got, "written") {
		t.Fatal("an acknowledged unsynced commit is lost by a process crash")
	}
	if got := crashed(t, fs, true); !hasKey(t, got, "synced") || hasKey(t, got, "written") {
		t.Fatal("after an OS crash: want the synced commit only (the unsynced one was fsynced?)")
	}

	if err := p.SyncWAL(); err != nil {
		t.Fatal(err)
	}
	if n := p.WALSyncs(); n == syncs {
		t.Error("SyncWAL after an unsynced commit did not sync the WAL")
	}
	if got := crashed(t, fs, true); !hasKey(t, got, "written") {
		t.Fatal("SyncWAL did not make the unsynced commit durable")
	}
}
