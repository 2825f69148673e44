package engine

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"
)

// fullDisk fails every write and preallocation with ENOSPC while on, as a
// file system with no blocks left does, and counts the table writes it
// refused.
type fullDisk struct {
	on          atomic.Bool
	tableWrites atomic.Int64
}

func (d *fullDisk) MaybeError(op errorfs.Op) error {
	if !d.on.Load() {
		return nil
	}
	switch op.Kind {
	case errorfs.OpFileWrite, errorfs.OpFileWriteAt, errorfs.OpFilePreallocate:
		if strings.HasSuffix(op.Path, ".sst") && (op.Kind == errorfs.OpFileWrite || op.Kind == errorfs.OpFileWriteAt) {
			d.tableWrites.Add(1)
		}
		return &os.PathError{Op: "write", Path: op.Path, Err: syscall.ENOSPC}
	}
	return nil
}

func (d *fullDisk) String() string { return "full disk" }

func openOn(t *testing.T, fs vfs.FS, logs *logBuffer) *Pebble {
	t.Helper()
	p, err := OpenPebble("", PebbleOptions{FS: fs, CacheSize: 1 << 20, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// waitFor polls cond for up to 10 seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestStartOnFullDisk: a database whose WAL must be flushed at open, on a
// disk with no space: open returns, reads are served, writes are refused
// with ErrNoSpace (which is ErrFailed to the server: MISCONF), the flush is
// retried with a back-off instead of in a loop, and once space is freed
// writes resume without a restart. It used to block in Open forever with
// the flush retried thousands of times a second.
func TestStartOnFullDisk(t *testing.T) {
	disk := &fullDisk{}
	fs := errorfs.Wrap(vfs.NewMem(), disk)
	logs := &logBuffer{}
	p := openOn(t, fs, logs)
	for i := range 1000 {
		if err := put(p, fmt.Sprint("k", i), "v", false); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.SyncWAL(); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}

	disk.on.Store(true)
	opened := make(chan *Pebble, 1)
	go func() {
		p, err := OpenPebble("", PebbleOptions{FS: fs, CacheSize: 1 << 20, Logger: slog.New(slog.NewTextHandler(logs, nil))})
		if err != nil {
			t.Error(err)
		}
		opened <- p
	}()
	select {
	case p = <-opened:
	case <-time.After(10 * time.Second):
		t.Fatalf("OpenPebble on a full disk did not return; %d table writes refused", disk.tableWrites.Load())
	}
	if p == nil {
		t.FailNow()
	}
	defer p.Close()
	if v, err := p.Get([]byte("k999"), nil); err != nil || string(v) != "v" {
		t.Fatalf("Get on a full disk = %q, %v", v, err)
	}
	err := put(p, "new", "v", false)
	if !errors.Is(err, ErrNoSpace) || !errors.Is(err, ErrFailed) {
		t.Fatalf("write on a full disk = %v, want ErrNoSpace", err)
	}
	if err := p.SyncWAL(); !errors.Is(err, ErrNoSpace) {
		t.Fatalf("SyncWAL on a full disk = %v, want ErrNoSpace", err)
	}
	if !hasStat(p.Stats(), "engine_disk_full", "1") {
		t.Fatalf("stats %v do not say the disk is full", p.Stats())
	}
	// With the back-off the flush is retried a few times a second at most.
	before := disk.tableWrites.Load()
	time.Sleep(time.Second)
	if n := disk.tableWrites.Load() - before; n > 20 {
		t.Fatalf("%d table writes refused in a second: the flush is retried without a back-off", n)
	}

	disk.on.Store(false)
	waitFor(t, "writes resume", func() bool { return put(p, "new", "v", false) == nil })
	if v, err := p.Get([]byte("new"), nil); err != nil || string(v) != "v" {
		t.Fatalf("Get after space was freed = %q, %v", v, err)
	}
	if !hasStat(p.Stats(), "engine_disk_full", "0") {
		t.Fatalf("stats %v still say the disk is full", p.Stats())
	}
	if err := p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	// Everything is there after a restart.
	q := openOn(t, fs, logs)
	defer q.Close()
	for _, k := range []string{"k0", "k999", "new"} {
		if v, err := q.Get([]byte(k), nil); err != nil || string(v) != "v" {
			t.Fatalf("after reopening, Get(%s) = %q, %v", k, v, err)
		}
	}
}

// TestDiskFillsWhileRunning: when the disk fills under a running engine,
// the commit that meets it is refused and so are later ones, reads go on,
// and once space is freed writes resume without a restart (they used to be
// refused until restart). Acknowledged writes survive a reopen.
func TestDiskFillsWhileRunning(t *testing.T) {
	for _, sync := range []bool{true, false} {
		t.Run(fmt.Sprintf("sync=%v", sync), func(t *testing.T) {
			disk := &fullDisk{}
			fs := errorfs.Wrap(vfs.NewMem(), disk)
			logs := &logBuffer{}
			p := openOn(t, fs, logs)
			acked := map[string]bool{}
			for i := range 100 {
				k := fmt.Sprint("a", i)
				if err := put(p, k, "v", sync); err != nil {
					t.Fatal(err)
				}
				acked[k] = true
			}
			if err := p.SyncWAL(); err != nil {
				t.Fatal(err)
			}
			disk.on.Store(true)
			var refused error
			for i := range 10_000 {
				// Unsynced commits reach the file system in blocks: write
				// until one meets the full disk.
				k := fmt.Sprint("b", i)
				err := put(p, k, strings.Repeat("x", 1000), sync)
				if err == nil && !sync {
					err = p.SyncWAL()
				}
				if err != nil {
					refused = err
					break
				}
				acked[k] = true
			}
			if !errors.Is(refused, ErrNoSpace) {
				t.Fatalf("writes on a full disk: %v, want ErrNoSpace", refused)
			}
			if err := put(p, "c", "v", sync); !errors.Is(err, ErrNoSpace) {
				t.Fatalf("next write = %v, want ErrNoSpace", err)
			}
			if v, err := p.Get([]byte("a0"), nil); err != nil || string(v) != "v" {
				t.Fatalf("Get on a full disk = %q, %v", v, err)
			}
			if p.Failed() == nil || p.h.failed() {
				t.Fatalf("Failed() = %v, failed for good: %v", p.Failed(), p.h.failed())
			}
			disk.on.Store(false)
			waitFor(t, "writes resume", func() bool { return put(p, "c", "v", true) == nil })
			acked["c"] = true
			if err := p.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			q := openOn(t, fs, logs)
			defer q.Close()
			for k := range acked {
				if _, err := q.Get([]byte(k), nil); err != nil {
					t.Fatalf("acknowledged %s lost after reopening: %v", k, err)
				}
			}
			if !strings.Contains(logs.String(), "disk space available again") {
				t.Errorf("no log of the recovery:\n%s", logs)
			}
		})
	}
}

// TestCrashWhileDiskFull: a crash while the disk is full, and another just
// after it recovered, lose no acknowledged write and leave a database that
// opens: the WAL on disk is always a prefix of the log Pebble wrote.
func TestCrashWhileDiskFull(t *testing.T) {
	mem := vfs.NewCrashableMem()
	disk := &fullDisk{}
	logs := &logBuffer{}
	p := openOn(t, errorfs.Wrap(mem, disk), logs)
	defer p.Close()
	var acked []string
	for i := range 200 {
		k := fmt.Sprint("a", i)
		if err := put(p, k, strings.Repeat("x", 500), true); err != nil {
			t.Fatal(err)
		}
		acked = append(acked, k)
	}
	disk.on.Store(true)
	for i := range 200 {
		k := fmt.Sprint("b", i)
		if err := put(p, k, strings.Repeat("x", 500), true); err != nil {
			break
		}
		acked = append(acked, k)
	}
	if p.Failed() == nil {
		t.Fatal("the disk never filled")
	}
	check := func(when string, fs vfs.FS, keys []string) {
		t.Helper()
		q, err := OpenPebble("", PebbleOptions{FS: fs, CacheSize: 1 << 20, Logger: slog.New(slog.NewTextHandler(logs, nil))})
		if err != nil {
			t.Fatalf("%s: the database does not open: %v", when, err)
		}
		defer q.Close()
		for _, k := range keys {
			if _, err := q.Get([]byte(k), nil); err != nil {
				t.Fatalf("%s: acknowledged %s lost: %v", when, k, err)
			}
		}
	}
	check("crash while full", mem.CrashClone(vfs.CrashCloneCfg{}), acked)

	disk.on.Store(false)
	waitFor(t, "writes resume", func() bool { return put(p, "c", "v", true) == nil })
	check("crash after recovery", mem.CrashClone(vfs.CrashCloneCfg{}), append(acked, "c"))
}
