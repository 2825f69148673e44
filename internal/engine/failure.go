package engine

// How Pebble v2.1.7 fails, and what the engine makes of it.
//
// Pebble treats an error on its commit path as the end of the store, and
// several of its reactions cannot be survived by the process:
//
//   - A failed WAL write or fsync under a synced commit makes DB.Apply call
//     Logger.Fatalf("pebble: fatal commit error: ..."); the default Fatalf
//     calls os.Exit(1). A Fatalf that returns makes Apply return nil: the
//     write would be acknowledged although it never reached the log. Either
//     way the batch is already in the memtable, visible to readers.
//   - The LogWriter keeps its first error for good. Unsynced commits go on
//     succeeding into the memtable only, until a full 32 KiB block surfaces
//     the error inside commitWrite as a panic raised with the commit
//     pipeline's mutex held: every later commit, and DB.Close, block forever.
//   - At a memtable rotation, an error closing the old WAL, creating or
//     recycling the new one, or syncing the WAL directory makes rotateWAL
//     panic while DB.mu is released; its caller's deferred Unlock then aborts
//     the process ("fatal error: sync: unlock of unlocked mutex"), which no
//     recover can stop.
//   - A failed MANIFEST write in a flush or compaction calls Fatalf from a
//     background goroutine with DB.mu held; Pebble's authors consider going on
//     from there unsafe (the edit may or may not be on disk).
//   - Corruption found while reading calls Fatalf through the default
//     DataCorruption event handler.
//
// So the engine keeps WAL errors away from Pebble altogether, and has one
// state, failed, for everything it cannot recover from:
//
//   - The file system wrapper (watchFS) sees every write, sync, close and
//     creation of a WAL file and of the WAL directory handle. The first error
//     fails the engine and is not passed on; from then on the WAL is a black
//     hole: Pebble believes its log is healthy and never reaches the paths
//     above, while nothing more reaches the disk, so the log on disk ends
//     where the failure struck, exactly as after a crash, and recovery
//     replays every write that was synced before it.
//   - A commit, or WAL sync, is acknowledged only if Pebble succeeded and the
//     engine had not failed when it returned. A synced commit returns only
//     after its own write and fsync were attempted, so one that met the
//     failure is never acknowledged. An error reply means "unknown": the
//     batch may be visible until restart (Pebble applies before it syncs) and
//     may even have been durable, if the failure struck someone else.
//   - Once failed, every commit and WAL sync is refused with ErrFailed without
//     entering Pebble. Reads keep working: Get and iterators take none of the
//     locks a failure can leave held, and a snapshot becomes a plain view of
//     the database, which no longer changes.
//   - Fatalf never exits the process. On a goroutine inside one of the
//     engine's own calls into Pebble (guarded: commit, sync, open, close) it
//     panics and the call recovers the panic into an error, as it does for a
//     panic carrying an error. On Pebble's background goroutines it parks the
//     goroutine for good: it neither exits nor lets Pebble carry on from a
//     state its authors call unrecoverable.
//   - Corruption found while reading fails that read (Pebble returns the
//     error) and fails the engine.
//
// What remains out of reach: calls already inside Pebble when a non-WAL
// failure parks a background goroutine holding DB.mu may block for good, and
// Close gives up on Pebble after closeWait. A restart recovers from the WAL.

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// ErrFailed is returned, wrapped with its cause, by every commit and WAL sync
// once the engine has met an error it cannot recover from (a WAL write or
// fsync failure, a corrupt file). Reads keep working; writes need a restart.
var ErrFailed = errors.New("engine failed; writes are refused until restart")

// health is an engine's failed state, shared by the engine, its Pebble
// logger and its file system wrapper.
type health struct {
	cause atomic.Pointer[error]
	// walBroken turns the WAL into a black hole: set when the failure is the
	// WAL's own, so nothing after it reaches the log.
	walBroken atomic.Bool
	// walSyncs counts the WAL syncs made (see Pebble.WALSyncs).
	walSyncs atomic.Uint64
	// syncWanted counts the callers inside a commit or log sync that must
	// be durable when it returns; while it is zero a WAL file's sync only
	// notes that one is owed (see walFile.sync).
	syncWanted atomic.Int64
	// stalls counts Pebble's write stalls (metrics.go).
	stalls stallCounter
	log    *slog.Logger
	// space is whether the disk is full (diskfull.go).
	space *spaceState
}

// fail records cause as the reason the engine failed, the first time only,
// and logs it.
func (h *health) fail(cause error) {
	if h.cause.CompareAndSwap(nil, &cause) {
		h.log.Error("storage engine failed: refusing writes until restart; reads continue", "err", cause)
	}
}

// failWAL fails the engine because the WAL failed.
func (h *health) failWAL(cause error) {
	h.walBroken.Store(true)
	h.fail(cause)
}

// err returns nil while healthy, else ErrFailed with its cause.
func (h *health) err() error {
	if p := h.cause.Load(); p != nil {
		return fmt.Errorf("%w (%v)", ErrFailed, *p)
	}
	return nil
}

func (h *health) failed() bool { return h.cause.Load() != nil }

// fatal is the panic value Fatalf raises on a guarded goroutine.
type fatal struct{ err error }

// guard runs f, a call into Pebble that writes, and reports success only if
// the engine is still healthy afterwards. A failed engine does not run f.
func (h *health) guard(f func() error) error {
	if err := h.err(); err != nil {
		return err
	}
	if err := guarded(h, f); err != nil {
		return err
	}
	return h.err()
}

// guarded runs f, turning the panics Pebble raises on fatal errors into a
// failed engine and an error. Fatalf looks for this function's frame on its
// caller's stack (guardedName).
func guarded(h *health, f func() error) (err error) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		switch v := r.(type) {
		case fatal:
			h.fail(v.err)
		case error:
			if errors.Is(v, pebble.ErrClosed) {
				// A commit racing Close: not a failure of the store.
				err = ErrClosed
				return
			}
			// Pebble panics with the error of a failed log write.
			h.fail(v)
		default:
			// A programming error (e.g. a batch committed twice), not an
			// I/O failure: not ours to hide.
			panic(r)
		}
		err = h.err()
	}()
	return f()
}

var guardedName = runtime.FuncForPC(reflect.ValueOf(guarded).Pointer()).Name()

// onGuardedStack reports whether the calling goroutine is inside guarded.
func onGuardedStack() bool {
	return callerMatches(func(fn string) bool {
		return fn == guardedName || strings.HasPrefix(fn, guardedName+".")
	})
}

func callerMatches(match func(fn string) bool) bool {
	pcs := make([]uintptr, 512)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(3, pcs)])
	for {
		f, more := frames.Next()
		if match(f.Function) {
			return true
		}
		if !more {
			return false
		}
	}
}

// pebbleLogger carries Pebble's log lines to slog and replaces its Fatalf,
// which would exit the process.
type pebbleLogger struct{ h *health }

func (l pebbleLogger) Infof(f string, a ...any) {
	l.h.log.Debug("pebble: " + strings.TrimSpace(fmt.Sprintf(f, a...)))
}

func (l pebbleLogger) Errorf(f string, a ...any) {
	l.h.log.Error("pebble: " + strings.TrimSpace(fmt.Sprintf(f, a...)))
}

func (l pebbleLogger) Fatalf(f string, a ...any) {
	err := fmt.Errorf(f, a...)
	l.h.fail(err)
	if onGuardedStack() {
		panic(fatal{err})
	}
	l.h.log.Error("pebble: background work stopped after a fatal error; restart the server", "err", err)
	// Neither exit nor return: see the top of this file.
	select {}
}

// walCategory is the write category Pebble creates WAL files with.
const walCategory vfs.DiskWriteCategory = "pebble-wal"

// walPackage prefixes the functions of Pebble's WAL manager, whose handle on
// the WAL directory is its own (it syncs it after creating each WAL).
const walPackage = "github.com/cockroachdb/pebble/v2/wal."

// watchFS keeps WAL errors from Pebble (see the top of this file), and
// gives the tables Pebble builds a larger write buffer (see tableFile).
type watchFS struct {
	vfs.FS
	h *health
}

func (fs watchFS) Unwrap() vfs.FS { return fs.FS }

func (fs watchFS) Create(name string, cat vfs.DiskWriteCategory) (vfs.File, error) {
	if tableCategories[cat] {
		fs.h.waitToWriteTable()
	}
	f, err := fs.FS.Create(name, cat)
	return fs.watch(name, cat, f, err)
}

func (fs watchFS) ReuseForWrite(oldname, newname string, cat vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := fs.FS.ReuseForWrite(oldname, newname, cat)
	return fs.watch(newname, cat, f, err)
}

func (fs watchFS) watch(name string, cat vfs.DiskWriteCategory, f vfs.File, err error) (vfs.File, error) {
	if cat != walCategory {
		if tableCategories[cat] {
			if err != nil {
				fs.h.tableFailed(err)
				return f, err
			}
			return newTableFile(&spaceFile{File: f, h: fs.h}), nil
		}
		return f, err
	}
	if err != nil {
		fs.h.failWAL(fmt.Errorf("create WAL %s: %w", name, err))
		return deadFile{name: name}, nil
	}
	return &walFile{File: f, name: name, h: fs.h, holds: true}, nil
}

func (fs watchFS) OpenDir(name string) (vfs.File, error) {
	f, err := fs.FS.OpenDir(name)
	if err != nil || !callerMatches(func(fn string) bool { return strings.HasPrefix(fn, walPackage) }) {
		return f, err
	}
	return &walFile{File: f, name: "directory " + strconv.Quote(name), h: fs.h}, nil
}

// maxHeld bounds the WAL bytes held for a full disk (see diskfull.go):
// commits are refused meanwhile, so only those already on their way are
// held; past this the engine fails instead.
const maxHeld = 64 << 20

// walFile is a WAL file, or the WAL manager's directory handle. Pebble
// writes a WAL from one goroutine at a time; mu orders those calls with
// the engine's retries of held bytes.
type walFile struct {
	vfs.File
	name string
	h    *health
	// holds is set for a WAL file: bytes the disk refuses for want of space
	// are held, in order, and written when space is freed, so that the file
	// on disk is always a prefix of the log Pebble wrote (diskfull.go).
	holds bool

	mu sync.Mutex
	// held are the bytes written to the file that the disk has not taken
	// yet; unsynced is set when a sync was skipped or failed since they
	// were held.
	held     []byte
	unsynced bool
	// written is set when bytes reached the file since its last sync: a
	// sync is owed, by the next one a durable caller asks for, or at
	// Close.
	written bool
}

// swallow hides err from Pebble and fails the engine with it.
func (f *walFile) swallow(op string, err error) {
	if err != nil {
		f.h.failWAL(fmt.Errorf("%s WAL %s: %w", op, f.name, err))
	}
}

// hold keeps p, the part of a write the disk refused for want of space.
// It reports false when the error is not a full disk or too much is held:
// the caller fails the engine.
func (f *walFile) hold(p []byte, err error) bool {
	if !f.holds || !isNoSpace(err) || len(f.held)+len(p) > maxHeld {
		return false
	}
	first := len(f.held) == 0 && !f.unsynced
	f.held = append(f.held, p...)
	f.unsynced = true
	if first {
		f.h.walHeld(f, fmt.Errorf("write WAL %s: %w", f.name, err))
	}
	return true
}

// drainLocked writes the held bytes and syncs, and reports whether the
// file is whole and durable again. mu is held.
func (f *walFile) drainLocked() bool {
	for len(f.held) > 0 {
		n, err := f.File.Write(f.held)
		f.held = f.held[n:]
		if err != nil {
			if !isNoSpace(err) {
				f.swallow("write", err)
			}
			return false
		}
	}
	if f.unsynced {
		if err := f.File.Sync(); err != nil {
			if !isNoSpace(err) {
				f.swallow("sync", err)
			}
			return false
		}
		f.h.walSyncs.Add(1)
		f.unsynced = false
	}
	f.held = nil
	return true
}

// drain retries the held bytes for the engine's recovery, and reports
// whether none are left.
func (f *walFile) drain() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.h.walBroken.Load() {
		return true
	}
	return f.drainLocked()
}

// pending reports whether bytes are held.
func (f *walFile) pending() bool { return len(f.held) > 0 || f.unsynced }

func (f *walFile) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.h.walBroken.Load() {
		return len(p), nil
	}
	if f.pending() {
		// Behind held bytes: held too, in order.
		if !f.hold(p, syscall.ENOSPC) {
			f.swallow("write", fmt.Errorf("more than %d bytes held for a full disk", maxHeld))
		}
		return len(p), nil
	}
	n, err := f.File.Write(p)
	f.written = true
	if err != nil && !f.hold(p[n:], err) {
		f.swallow("write", err)
	}
	return len(p), nil
}

func (f *walFile) WriteAt(p []byte, off int64) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.h.walBroken.Load() {
		_, err := f.File.WriteAt(p, off)
		f.written = true
		f.swallow("write", err)
	}
	return len(p), nil
}

// Preallocate only reserves space ahead of writes; its failure on a full
// disk is for the writes to report.
func (f *walFile) Preallocate(off, length int64) error {
	if !f.h.walBroken.Load() {
		_ = f.File.Preallocate(off, length)
	}
	return nil
}

// sync runs a sync of the file unless its held bytes make it pointless; a
// sync refused for want of space leaves the file to be synced when space
// is freed.
//
// Pebble calls it for every commit (see pebbleBatch.Commit) after writing
// the commit's records to the file. Only while a caller needs them durable
// (health.syncWanted: appendfsync always, SyncWAL) does it reach the disk;
// otherwise the records are in the operating system's hands, which is what
// a process crash needs, and the sync is owed until one is wanted or the
// file closes. A sync that returns while syncWanted is zero may still have
// skipped bytes that an earlier caller did not need durable: every later
// wanted sync, and Close, covers them.
func (f *walFile) sync(do func() error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.h.walBroken.Load() {
		return
	}
	if f.pending() {
		f.drainLocked()
		if f.pending() {
			return
		}
		f.written = false
		f.h.walDrained(f)
		return
	}
	if f.holds && (!f.written || f.h.syncWanted.Load() == 0) {
		return
	}
	f.syncLocked(do)
}

// syncLocked syncs the file; mu is held.
func (f *walFile) syncLocked(do func() error) {
	f.written = false
	err := do()
	f.h.walSyncs.Add(1)
	if err != nil && f.holds && isNoSpace(err) {
		f.unsynced = true
		f.h.walHeld(f, fmt.Errorf("sync WAL %s: %w", f.name, err))
		return
	}
	f.swallow("sync", err)
}

func (f *walFile) Sync() error     { f.sync(f.File.Sync); return nil }
func (f *walFile) SyncData() error { f.sync(f.File.SyncData); return nil }

func (f *walFile) SyncTo(length int64) (bool, error) {
	f.sync(func() error {
		_, err := f.File.SyncTo(length)
		return err
	})
	return true, nil
}

// Close writes what is held if it can. Bytes the disk still refuses are
// dropped: the file ends where the disk filled, as after a crash, and
// Pebble closes a WAL only at rotation (which needs commits, refused
// meanwhile) or at Close.
func (f *walFile) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.pending() && !f.h.walBroken.Load() {
		if !f.drainLocked() {
			f.h.log.Warn("WAL closed while the disk is full: its tail is lost, as after a crash", "file", f.name, "bytes", len(f.held))
			f.held, f.unsynced = nil, false
		}
		f.h.walDrained(f)
	} else if f.written && !f.h.walBroken.Load() {
		// The sync owed by unsynced commits (see sync): without it, after
		// a rotation an OS crash could keep the next WAL, which SyncWAL
		// syncs, but lose this one's tail, leaving a hole in the log.
		f.syncLocked(f.File.Sync)
	}
	f.swallow("close", f.File.Close())
	return nil
}

// deadFile stands for a WAL file that could not be created: it accepts
// everything and keeps nothing.
type deadFile struct{ name string }

func (deadFile) Close() error                           { return nil }
func (deadFile) Read([]byte) (int, error)               { return 0, os.ErrInvalid }
func (deadFile) ReadAt([]byte, int64) (int, error)      { return 0, os.ErrInvalid }
func (deadFile) Write(p []byte) (int, error)            { return len(p), nil }
func (deadFile) WriteAt(p []byte, _ int64) (int, error) { return len(p), nil }
func (deadFile) Preallocate(int64, int64) error         { return nil }
func (d deadFile) Stat() (vfs.FileInfo, error)          { return deadInfo{d.name}, nil }
func (deadFile) Sync() error                            { return nil }
func (deadFile) SyncTo(int64) (bool, error)             { return true, nil }
func (deadFile) SyncData() error                        { return nil }
func (deadFile) Prefetch(int64, int64) error            { return nil }
func (deadFile) Fd() uintptr                            { return vfs.InvalidFd }

type deadInfo struct{ name string }

func (i deadInfo) Name() string         { return i.name }
func (deadInfo) Size() int64            { return 0 }
func (deadInfo) Mode() fs.FileMode      { return 0o644 }
func (deadInfo) ModTime() time.Time     { return time.Time{} }
func (deadInfo) IsDir() bool            { return false }
func (deadInfo) Sys() any               { return nil }
func (deadInfo) DeviceID() vfs.DeviceID { return vfs.DeviceID{} }

// eventListener replaces Pebble's reaction to corruption (Fatalf) with a
// failed engine; the read that met it gets an error from Pebble.
func eventListener(h *health, jobs *atomic.Int64) *pebble.EventListener {
	return &pebble.EventListener{
		DataCorruption: func(info pebble.DataCorruptionInfo) {
			h.fail(fmt.Errorf("data corruption in %s: %v", info.Path, info.Details))
		},
		// Pebble reports the end of every compaction it began, failed ones
		// included.
		CompactionBegin: func(pebble.CompactionInfo) { jobs.Add(1) },
		CompactionEnd:   func(pebble.CompactionInfo) { jobs.Add(-1) },
		WriteStallBegin: func(pebble.WriteStallBeginInfo) { h.stalls.begin() },
		WriteStallEnd:   func() { h.stalls.end() },
	}
}

// frozenView reads a failed engine's database directly: with commits
// refused its state no longer changes, so it is as good as a snapshot, and it
// needs no lock a failure may have left held.
type frozenView struct {
	db    *pebble.DB
	iters *atomic.Int64
}

func (v frozenView) Get(key, dst []byte) ([]byte, error)     { return get(v.db, key, dst) }
func (v frozenView) NewIter(lo, hi []byte) (Iterator, error) { return newIter(v.db, v.iters, lo, hi) }
func (v frozenView) Close() error                            { return nil }

// Fix implements Snapshot. A failed engine's state changes no more, but
// writes applied before the failure may not have reached the key cache:
// the view does not claim to be fixed now.
func (v frozenView) Fix() (bool, error) { return false, nil }
