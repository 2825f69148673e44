package engine

// A full disk is not a failure: it ends when space is freed, and the engine
// must come back by itself.
//
// What Pebble v2.1.7 does on a full disk, left alone:
//
//   - A flush whose table cannot be written is retried at once, forever
//     (DB.flush has a TODO for a back-off): a core spins and every attempt
//     logs a background error. Memtables pile up until commits stall.
//   - Open replays the WAL into memtables and waits for their flush: on a
//     full disk it never returns, so the server never listens.
//   - A WAL write that fails fails the engine for good (failure.go).
//
// What the engine does instead:
//
//   - A table write (flush or compaction output) failing with ENOSPC or
//     EDQUOT marks the disk full, and the creation of the next table waits
//     out a back-off that doubles from minSpaceBackoff to maxSpaceBackoff:
//     the retry loop costs nothing and logs once per attempt at most. A
//     table written and closed without error marks the disk usable again.
//   - While the disk is full, commits and WAL syncs are refused with
//     ErrNoSpace (which matches ErrFailed, so the server answers MISCONF)
//     before they enter Pebble; reads go on.
//   - A WAL write or sync failing for want of space is kept from Pebble as
//     any WAL error is, but does not fail the engine: the bytes the disk
//     refused are held by the WAL file, in order, and so is everything
//     Pebble writes to it after them (little: commits are refused
//     meanwhile; past maxHeld the engine fails). The file on disk stays a
//     prefix of the log Pebble wrote, as after a crash, so a crash while
//     the disk is full recovers every commit acknowledged before it filled.
//     The commit that met the full disk is refused (an error means
//     "unknown": it may still reach the log).
//   - A recovery goroutine probes, with the same back-off, for room to
//     write and sync probeSize bytes in the data directory; then it writes
//     and syncs the held bytes, and once no file holds any, and no table
//     write failed since, writes resume. No WAL file is ever abandoned, so
//     Pebble never meets a log torn in the middle.
//   - If the disk fills while Open waits for its flush, the database is
//     opened a second time read-only (replaying the same WAL into memory,
//     writing nothing) and the engine serves reads from it, refusing writes,
//     while the first Open goes on retrying with the back-off. When it
//     completes the engine switches to it; the read-only copy is closed with
//     the engine.

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// ErrNoSpace is returned, wrapped, by commits and WAL syncs while the disk
// is full. It matches ErrFailed (errors.Is), so that whatever refuses
// writes on a failed engine refuses them here; unlike ErrFailed it ends by
// itself once space is freed.
var ErrNoSpace error = noSpaceError{}

type noSpaceError struct{}

func (noSpaceError) Error() string {
	return "no space left on device: writes are refused until space is freed"
}

func (noSpaceError) Is(target error) bool { return target == ErrFailed }

// The back-off between attempts to write a table while the disk is full.
const (
	minSpaceBackoff = 100 * time.Millisecond
	maxSpaceBackoff = 5 * time.Second
)

// isNoSpace reports whether err is the file system saying it is full.
func isNoSpace(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

// spaceState is whether the disk is full, shared by the engine, its file
// system wrapper and its recovery goroutine.
type spaceState struct {
	// full is set while writes must be refused for want of space.
	full atomic.Bool

	mu sync.Mutex
	// delay and nextTry are the back-off of table writes.
	delay   time.Duration
	nextTry time.Time
	// held are the WAL files holding bytes the disk refused.
	held map[*walFile]struct{}
	// opening is set while the engine serves a read-only copy and waits for
	// its writable Open.
	opening bool

	// fullSig is signalled when the disk is found full; walSig when a WAL
	// file starts holding bytes.
	fullSig chan struct{}
	walSig  chan struct{}
}

func newSpaceState() *spaceState {
	return &spaceState{fullSig: make(chan struct{}, 1), walSig: make(chan struct{}, 1), held: make(map[*walFile]struct{})}
}

func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// setFull marks the disk full, logging the change.
func (h *health) setFull(cause error) {
	if !h.space.full.Swap(true) {
		h.log.Error("disk full: refusing writes, serving reads, retrying in the background until space is freed", "err", cause)
	}
	signal(h.space.fullSig)
}

// resumeLocked clears the full state unless something still needs it: a
// read-only copy being served, or WAL bytes held. space.mu is held.
func (h *health) resumeLocked() {
	s := h.space
	if s.opening || len(s.held) > 0 || !s.full.Load() {
		return
	}
	s.full.Store(false)
	h.log.Warn("disk space available again: writes resume")
}

// tableFailed records a failed table write; only a full disk is handled
// here, other errors are Pebble's to report.
func (h *health) tableFailed(err error) {
	if !isNoSpace(err) {
		return
	}
	s := h.space
	s.mu.Lock()
	s.delay = min(max(2*s.delay, minSpaceBackoff), maxSpaceBackoff)
	s.nextTry = time.Now().Add(s.delay)
	s.mu.Unlock()
	h.setFull(err)
}

// tableWritten records a table written and closed without error: there is
// space again.
func (h *health) tableWritten() {
	s := h.space
	s.mu.Lock()
	defer s.mu.Unlock()
	s.delay, s.nextTry = 0, time.Time{}
	h.resumeLocked()
}

// waitToWriteTable waits out the back-off before a table is created.
func (h *health) waitToWriteTable() {
	s := h.space
	s.mu.Lock()
	wait := time.Until(s.nextTry)
	s.mu.Unlock()
	if wait > 0 {
		time.Sleep(wait)
	}
}

// walHeld records a WAL file holding bytes the disk refused.
func (h *health) walHeld(f *walFile, cause error) {
	s := h.space
	s.mu.Lock()
	s.held[f] = struct{}{}
	s.mu.Unlock()
	h.setFull(cause)
	signal(s.walSig)
}

// walDrained records a WAL file whose held bytes are written and synced.
func (h *health) walDrained(f *walFile) {
	s := h.space
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.held, f)
	h.resumeLocked()
}

// drainHeld retries every WAL file's held bytes.
func (h *health) drainHeld() {
	h.space.mu.Lock()
	files := make([]*walFile, 0, len(h.space.held))
	for f := range h.space.held {
		files = append(files, f)
	}
	h.space.mu.Unlock()
	for _, f := range files {
		if f.drain() {
			h.walDrained(f)
		}
	}
}

// setOpening marks the engine as serving a read-only copy, or done with it.
func (h *health) setOpening(on bool) {
	s := h.space
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opening = on
	h.resumeLocked()
}

// noSpace returns ErrNoSpace while the disk is full.
func (h *health) noSpace() error {
	if h.space.full.Load() {
		return ErrNoSpace
	}
	return nil
}

// guardWrite is guard for a commit or a WAL sync: refused while the disk is
// full, and not acknowledged if the disk was found full meanwhile.
func (h *health) guardWrite(f func() error) error {
	if err := h.noSpace(); err != nil {
		return err
	}
	if err := h.guard(f); err != nil {
		return err
	}
	return h.noSpace()
}

// probeSize is how much free space the probe asks for before writes
// resume: enough that they do not resume only to meet the full disk again
// at once, small enough for a small disk. (A flush that still finds too
// little room fails and sets the state again.)
const probeSize = 4 << 20

// probeName is the space probe's file in the data directory; Pebble
// ignores files whose names it does not know.
const probeName = "CAIRN-SPACE-PROBE"

// probeSpace writes, syncs and removes probeSize bytes in the data
// directory, and reports whether the file system took them. Where the
// file system reports its free space, too little of it fails the probe
// without a write, so that probing never fills the disk for others.
func (p *Pebble) probeSpace() error {
	if du, err := p.fs.GetDiskUsage(p.dir); err == nil && du.AvailBytes < probeSize {
		return fmt.Errorf("probe: %d bytes free: %w", du.AvailBytes, syscall.ENOSPC)
	}
	name := p.fs.PathJoin(p.dir, probeName)
	f, err := p.fs.Create(name, vfs.WriteCategoryUnspecified)
	if err != nil {
		return err
	}
	defer func() { _ = p.fs.Remove(name) }()
	chunk := make([]byte, 1<<20)
	for written := 0; written < probeSize && err == nil; written += len(chunk) {
		_, err = f.Write(chunk)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// spaceFile watches the writes of a table being built.
type spaceFile struct {
	vfs.File
	h      *health
	failed bool
}

func (f *spaceFile) check(err error) error {
	if err != nil {
		f.failed = true
		f.h.tableFailed(err)
	}
	return err
}

func (f *spaceFile) Write(p []byte) (int, error) {
	n, err := f.File.Write(p)
	return n, f.check(err)
}

func (f *spaceFile) WriteAt(p []byte, off int64) (int, error) {
	n, err := f.File.WriteAt(p, off)
	return n, f.check(err)
}

func (f *spaceFile) Sync() error     { return f.check(f.File.Sync()) }
func (f *spaceFile) SyncData() error { return f.check(f.File.SyncData()) }

func (f *spaceFile) SyncTo(length int64) (bool, error) {
	full, err := f.File.SyncTo(length)
	return full, f.check(err)
}

func (f *spaceFile) Close() error {
	err := f.check(f.File.Close())
	if err == nil && !f.failed {
		f.h.tableWritten()
	}
	return err
}

// noLockFS opens a database without taking its lock: for the read-only
// copy served while the writable Open, which holds the lock, waits for
// space. The copy writes nothing.
type noLockFS struct{ vfs.FS }

func (fs noLockFS) Unwrap() vfs.FS { return fs.FS }

func (noLockFS) Lock(string) (io.Closer, error) { return nopCloser{}, nil }

type nopCloser struct{}

func (nopCloser) Close() error { return nil }
