package engine

import (
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// PebbleOptions configures OpenPebble.
type PebbleOptions struct {
	// CacheSize is the block cache in bytes (Pebble's default of 8 MB is far
	// too small for a server).
	CacheSize int64
	// FS replaces the file system, for tests (vfs.NewMem, errorfs).
	FS vfs.FS
	// Logger receives Pebble's own log lines (informational ones at debug
	// level) and the report of an engine failure; nil means slog.Default().
	Logger *slog.Logger
}

// Pebble is the embedded engine. See failure.go for what happens when the
// disk fails under it, and diskfull.go for a full disk.
type Pebble struct {
	// cur is the database served: the writable one, or while the disk was
	// full at open, a read-only copy (ro) until the writable Open is done.
	cur    atomic.Pointer[pebble.DB]
	ro     *pebble.DB
	h      *health
	closed atomic.Bool
	// jobs counts the compactions running now.
	jobs *atomic.Int64
	// iters counts the iterators open now: Close waits for them, since
	// Pebble refuses to close under one ("leaked iterators").
	iters *atomic.Int64
	// stop ends the background goroutines at Close; opened is closed once
	// the writable Open has returned.
	stop   chan struct{}
	opened chan struct{}
	// fs and dir are where the database lives, for the space probe.
	fs  vfs.FS
	dir string
}

// db returns the database served now.
func (p *Pebble) db() *pebble.DB { return p.cur.Load() }

// closeWait bounds how long Close waits for Pebble after a failure, which
// can leave Pebble's commit mutex held for good.
const closeWait = 2 * time.Second

// memTableSize is the size of one memtable. Larger ones flush less often
// but make every point lookup in them slower (a deeper skiplist over more
// memory); 32 MB keeps lookups cheap and flushes infrequent.
const memTableSize = 32 << 20

// OpenPebble opens (creating if needed) a Pebble store in dir.
func OpenPebble(dir string, o PebbleOptions) (*Pebble, error) {
	if o.CacheSize <= 0 {
		o.CacheSize = 64 << 20
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	h := &health{log: o.Logger, space: newSpaceState()}
	jobs := new(atomic.Int64)
	// Pebble reserves the memory of its memtables inside the block cache:
	// a cache no bigger than the memtables caches nothing at all. The cache
	// is sized so that CacheSize bytes stay for blocks with the usual two
	// memtables (one filling, one flushing) reserved beside them.
	cache := pebble.NewCache(o.CacheSize + 2*memTableSize)
	defer cache.Unref()
	opts := &pebble.Options{
		Cache:                       cache,
		FS:                          o.FS,
		EventListener:               eventListener(h, jobs),
		MemTableSize:                memTableSize,
		MemTableStopWritesThreshold: 4,
		L0CompactionThreshold:       4,
		L0StopWritesThreshold:       24,
		LBaseMaxBytes:               256 << 20,
		CompactionConcurrencyRange:  func() (int, int) { return 1, 2 },
		Logger:                      pebbleLogger{h},
	}
	for i := range opts.Levels {
		l := &opts.Levels[i]
		// A point read that misses the cache loads, checksums and searches
		// a whole block. With 1 KiB values and data 4× the cache, 8 KiB
		// blocks cut a read's p50 from 10 to 7 µs and its p99 from ~40 to
		// ~16 µs against 32 KiB, while a 100-record scan costs 18 µs instead
		// of 16 (bench/RESULTS.md, History).
		l.BlockSize = 8 << 10
		l.FilterPolicy = bloom.FilterPolicy(10)
		l.FilterType = pebble.TableFilter
	}
	opts.ApplyCompressionSettings(func() pebble.DBCompressionSettings { return pebble.DBCompressionBalanced })
	// EnsureDefaults wraps the real file system with Pebble's disk health
	// checks; the WAL watch goes on top of whatever file system is used.
	opts.EnsureDefaults()
	opts.FS = watchFS{FS: opts.FS, h: h}
	p := &Pebble{h: h, jobs: jobs, iters: new(atomic.Int64), stop: make(chan struct{}), opened: make(chan struct{}), fs: opts.FS, dir: dir}
	type result struct {
		db  *pebble.DB
		err error
	}
	opening := make(chan result, 1)
	go func() {
		var db *pebble.DB
		err := h.guard(func() error {
			var err error
			db, err = pebble.Open(dir, opts)
			return err
		})
		opening <- result{db, err}
	}()
	select {
	case r := <-opening:
		close(p.opened)
		if r.err != nil {
			return nil, fmt.Errorf("open pebble in %s: %w", dir, r.err)
		}
		p.cur.Store(r.db)
	case <-h.space.fullSig:
		// Open waits for a flush the full disk refuses (see diskfull.go):
		// serve a read-only copy meanwhile.
		h.setOpening(true)
		roOpts := opts.Clone()
		roOpts.ReadOnly = true
		roOpts.FS = noLockFS{opts.FS}
		ro, err := pebble.Open(dir, roOpts)
		if err != nil {
			// The writable Open goes on; it holds the directory until the
			// process ends.
			return nil, fmt.Errorf("open pebble read-only in %s while the disk is full: %w", dir, err)
		}
		p.ro = ro
		p.cur.Store(ro)
		h.log.Warn("storage engine opened read-only: the disk is full; writes are refused until space is freed")
		go func() {
			r := <-opening
			defer close(p.opened)
			if r.err != nil {
				h.fail(fmt.Errorf("open pebble in %s: %w", dir, r.err))
				return
			}
			p.cur.Store(r.db)
			h.setOpening(false)
		}()
	}
	go p.recoverSpace()
	return p, nil
}

// recoverSpace brings the engine back from a full disk (see diskfull.go):
// each time the disk is found full it probes, with a back-off, until a
// probe file can be written; then it writes the WAL bytes held meanwhile
// and, when none are left, lets writes resume (a table write that still
// fails sets the state again).
func (p *Pebble) recoverSpace() {
	h := p.h
	select {
	case <-p.opened:
	case <-p.stop:
		return
	}
	for {
		select {
		case <-h.space.walSig:
		case <-h.space.fullSig:
		case <-p.stop:
			return
		}
		delay := minSpaceBackoff
		for h.space.full.Load() && !h.failed() {
			if err := p.probeSpace(); err == nil {
				h.drainHeld()
				h.tableWritten()
				if !h.space.full.Load() {
					break
				}
			}
			select {
			case <-time.After(delay):
				delay = min(2*delay, maxSpaceBackoff)
			case <-p.stop:
				return
			}
		}
	}
}

// Get implements Reader.
func (p *Pebble) Get(key, dst []byte) ([]byte, error) {
	if p.closed.Load() {
		return nil, ErrClosed
	}
	return get(p.db(), key, dst)
}

func get(r pebble.Reader, key, dst []byte) ([]byte, error) {
	v, closer, err := r.Get(key)
	if err != nil {
		if errors.Is(err, pebble.ErrNotFound) {
			return nil, ErrNotFound
		}
		return nil, fmt.Errorf("engine get: %w", err)
	}
	dst = append(dst[:0], v...)
	if err := closer.Close(); err != nil {
		return nil, fmt.Errorf("engine get: %w", err)
	}
	return dst, nil
}

// NewIter implements Reader.
func (p *Pebble) NewIter(lower, upper []byte) (Iterator, error) {
	if p.closed.Load() {
		return nil, ErrClosed
	}
	return newIter(p.db(), p.iters, lower, upper)
}

// newIter opens an iterator on r and counts it in open until it is closed.
func newIter(r pebble.Reader, open *atomic.Int64, lower, upper []byte) (Iterator, error) {
	it, err := r.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return nil, fmt.Errorf("engine iterator: %w", err)
	}
	open.Add(1)
	return pebbleIter{it, open}, nil
}

type pebbleIter struct {
	*pebble.Iterator
	open *atomic.Int64
}

// Close implements Iterator.
func (i pebbleIter) Close() error {
	// Counted closed only once Pebble has let go of it: Close may be
	// waiting for the count to reach zero.
	err := i.Iterator.Close()
	i.open.Add(-1)
	return err
}

func (i pebbleIter) Key() []byte   { return i.Iterator.Key() }
func (i pebbleIter) Value() []byte { return i.Iterator.Value() }

// NewBatch implements Engine. The batch is indexed so that a command reads
// its own writes.
func (p *Pebble) NewBatch() Batch {
	b := batchPool.Get().(*pebbleBatch)
	b.b, b.p = p.db().NewIndexedBatch(), p
	return b
}

var batchPool = sync.Pool{New: func() any { return new(pebbleBatch) }}

// Get reads through the batch; while the batch holds no writes it reads the
// store directly, which spares Pebble building batch iterators.
func (b *pebbleBatch) Get(key, dst []byte) ([]byte, error) {
	if b.b.Empty() {
		return get(b.p.db(), key, dst)
	}
	return get(b.b, key, dst)
}

// NewSnapshot implements Engine.
func (p *Pebble) NewSnapshot() Snapshot {
	if p.h.failed() {
		return frozenView{p.db(), p.iters}
	}
	return pebbleSnapshot{p.db().NewSnapshot(), p.iters}
}

// SyncWAL implements Engine.
func (p *Pebble) SyncWAL() error {
	if p.closed.Load() {
		return ErrClosed
	}
	if err := p.h.guardWrite(p.syncLog); err != nil {
		return fmt.Errorf("engine sync: %w", err)
	}
	return nil
}

// BackgroundJobs reports how many compactions are running: work that
// competes with commands for the processors for seconds at a time. Flushes
// are not counted: they are short and, under a write load, frequent, and
// adding processors for them cost unpipelined SETs more than it gave.
func (p *Pebble) BackgroundJobs() int { return int(p.jobs.Load()) }

// WALSyncs counts the syncs of the write-ahead log since open: one per
// group of appendfsync-always commits, one a second under everysec. Each
// holds a thread in the kernel until the disk answers.
func (p *Pebble) WALSyncs() uint64 { return p.h.walSyncs.Load() }

// Failed returns nil while the engine is healthy, else ErrFailed wrapped
// with the cause: the engine refuses writes until the process restarts;
// or ErrNoSpace while the disk is full.
func (p *Pebble) Failed() error {
	if err := p.h.err(); err != nil {
		return err
	}
	return p.h.noSpace()
}

// Close implements Engine: it flushes nothing extra (the WAL is the record)
// and closes the store cleanly. After a failure it reports the failure, and
// gives up on Pebble if Pebble does not close within closeWait.
func (p *Pebble) Close() error {
	if p.closed.Swap(true) {
		return ErrClosed
	}
	close(p.stop)
	if p.ro != nil {
		defer p.ro.Close()
	}
	select {
	case <-p.opened:
	default:
		// The writable Open still waits for space: it cannot be closed.
		return fmt.Errorf("engine close: %w", ErrNoSpace)
	}
	if n := p.waitIters(iterWait); n > 0 {
		// Pebble's Close under an open iterator fails ("leaked
		// iterators"), or, if the iterator moves meanwhile, panics
		// ("element has outstanding references"). The store is left open
		// instead, with its log synced: the next start recovers it from
		// the WAL, as after a crash that lost nothing.
		p.h.log.Error("storage engine left open at exit: iterators still open", "iterators", n, "waited", iterWait)
		err := ErrLeakedIterators
		if !p.h.failed() && !p.h.space.full.Load() {
			err = errors.Join(err, guarded(p.h, p.syncLog))
		}
		return wrap("close", err)
	}
	if !p.h.failed() && !p.h.space.full.Load() {
		err := guarded(p.h, p.db().Close)
		if err == nil {
			err = p.h.err()
		}
		return wrap("close", err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if !p.h.walBroken.Load() && !p.h.space.full.Load() {
			// The log itself is sound: keep what was committed but not
			// synced yet (appendfsync everysec).
			_ = guarded(p.h, p.syncLog)
		}
		_ = guarded(p.h, p.db().Close)
	}()
	select {
	case <-done:
		return wrap("close", p.Failed())
	case <-time.After(closeWait):
		return fmt.Errorf("engine close: gave up waiting for pebble: %w", p.Failed())
	}
}

// ErrLeakedIterators is returned by Close when iterators were still open
// after iterWait: every write was synced, but the store was not closed.
var ErrLeakedIterators = errors.New("iterators still open; the log was synced and the store left for the next start to recover")

// iterWait bounds how long Close waits for iterators still open: reads
// that began before the close and are finishing (a metrics scrape, the end
// of a command whose connection was just closed).
const iterWait = 5 * time.Second

// waitIters waits until no iterator is open, or at most d; it returns how
// many are still open.
func (p *Pebble) waitIters(d time.Duration) int64 {
	deadline := time.Now().Add(d)
	for {
		n := p.iters.Load()
		if n <= 0 || time.Now().After(deadline) {
			return n
		}
		time.Sleep(time.Millisecond)
	}
}

// OpenIterators reports how many iterators (views included) are open now.
func (p *Pebble) OpenIterators() int64 { return p.iters.Load() }

// Stats implements Engine. A failed engine reports only that: Pebble's
// metrics need a lock a failure may have left held.
func (p *Pebble) Stats() []Stat {
	if p.h.failed() {
		return []Stat{{"engine", "pebble"}, {"engine_failed", "1"}}
	}
	full := "0"
	if p.h.space.full.Load() {
		full = "1"
	}
	m := p.db().Metrics()
	d := m.DiskSpaceUsage()
	return []Stat{
		{"engine", "pebble"},
		{"engine_failed", "0"},
		{"engine_disk_full", full},
		{"engine_disk_usage_bytes", strconv.FormatUint(d, 10)},
		{"engine_memtable_bytes", strconv.FormatUint(m.MemTable.Size, 10)},
		{"engine_block_cache_bytes", strconv.FormatInt(m.BlockCache.Size, 10)},
		{"engine_block_cache_hits", strconv.FormatInt(m.BlockCache.Hits, 10)},
		{"engine_block_cache_misses", strconv.FormatInt(m.BlockCache.Misses, 10)},
		{"engine_compactions", strconv.FormatInt(m.Compact.Count, 10)},
		{"engine_wal_bytes", strconv.FormatUint(m.WAL.Size, 10)},
		{"engine_read_amplification", strconv.Itoa(m.ReadAmp())},
	}
}

type pebbleBatch struct {
	b *pebble.Batch
	p *Pebble
}

func (b *pebbleBatch) NewIter(lo, hi []byte) (Iterator, error) {
	return newIter(b.b, b.p.iters, lo, hi)
}
func (b *pebbleBatch) Set(k, v []byte) error { return wrap("set", b.b.Set(k, v, nil)) }
func (b *pebbleBatch) Delete(k []byte) error { return wrap("delete", b.b.Delete(k, nil)) }
func (b *pebbleBatch) DeleteRange(s, e []byte) error {
	return wrap("delete range", b.b.DeleteRange(s, e, nil))
}
func (b *pebbleBatch) Empty() bool { return b.b.Empty() }
func (b *pebbleBatch) Len() int    { return len(b.b.Repr()) }

// Mark implements Batch: a batch's writes are an append-only log (Pebble's
// batch representation), so a point in it is its length and record count.
func (b *pebbleBatch) Mark() Mark {
	if b.b.Empty() {
		return Mark{}
	}
	return Mark{size: len(b.b.Repr()), count: b.b.Count()}
}

// RollbackTo implements Batch. Pebble cannot truncate an indexed batch, so
// the records before the mark are replayed into a new one: a rare path (a
// command failing after it wrote), priced accordingly.
func (b *pebbleBatch) RollbackTo(m Mark) error {
	repr := b.b.Repr()
	if b.b.Empty() || len(repr) == m.size {
		return nil
	}
	if m.size > len(repr) || m.count > b.b.Count() {
		return fmt.Errorf("engine rollback: mark beyond the batch (%d of %d bytes)", m.size, len(repr))
	}
	fresh := b.p.db().NewIndexedBatch()
	if m.count > 0 {
		prefix := slices.Clone(repr[:m.size])
		// The header's last four bytes are the record count.
		binary.LittleEndian.PutUint32(prefix[8:12], m.count)
		kept := b.p.db().NewBatch()
		err := kept.SetRepr(prefix)
		if err == nil {
			err = fresh.Apply(kept, nil)
		}
		_ = kept.Close()
		if err != nil {
			_ = fresh.Close()
			return fmt.Errorf("engine rollback: %w", err)
		}
	}
	_ = b.b.Close()
	b.b = fresh
	return nil
}
func (b *pebbleBatch) Close() error {
	err := b.b.Close()
	*b = pebbleBatch{}
	batchPool.Put(b)
	return wrap("close batch", err)
}

// Commit implements Batch. Every commit asks Pebble for a synced write,
// because Pebble's only way to have its log written out is a sync request:
// with NoSync a record waits in the log writer's memory until a 32 KiB
// block fills, so a process crash lost the last milliseconds of
// acknowledged writes. The WAL file's sync is real only while a caller
// needs durability (see walFile.sync), so an unsynced commit costs a
// write(2) by Pebble's flush goroutine, shared by the commits that arrive
// meanwhile, and no fsync.
func (b *pebbleBatch) Commit(sync bool) error {
	if b.p.closed.Load() {
		return ErrClosed
	}
	if sync {
		b.p.h.syncWanted.Add(1)
		defer b.p.h.syncWanted.Add(-1)
	}
	return wrap("commit", b.p.h.guardWrite(func() error { return b.b.Commit(pebble.Sync) }))
}

// CommitBuffered implements Batch.
func (b *pebbleBatch) CommitBuffered() error {
	if b.p.closed.Load() {
		return ErrClosed
	}
	return wrap("commit", b.p.h.guardWrite(func() error { return b.b.Commit(pebble.NoSync) }))
}

// syncLog writes every committed record to the WAL file and syncs it.
func (p *Pebble) syncLog() error {
	p.h.syncWanted.Add(1)
	defer p.h.syncWanted.Add(-1)
	return p.db().LogData(nil, pebble.Sync)
}

type pebbleSnapshot struct {
	s     *pebble.Snapshot
	iters *atomic.Int64
}

func (s pebbleSnapshot) Get(key, dst []byte) ([]byte, error) { return get(s.s, key, dst) }
func (s pebbleSnapshot) NewIter(lo, hi []byte) (Iterator, error) {
	return newIter(s.s, s.iters, lo, hi)
}
func (s pebbleSnapshot) Close() error { return wrap("close snapshot", s.s.Close()) }

// Fix implements Snapshot: a Pebble snapshot was fixed when taken.
func (s pebbleSnapshot) Fix() (bool, error) { return false, nil }

func wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("engine %s: %w", op, err)
}
