// Package store is Cairn's data model: Redis types on top of the ordered
// engine, with the keyspace rules every type shares — type checks, expiry,
// collection versions, per-key locks and exact key counts.
//
// A command's work is one Tx. A writing Tx holds the striped locks of its
// keys (taken in a fixed order, so transactions never deadlock), reads its
// own writes through an indexed batch and commits once, atomically: what a
// replica would replay. A reading Tx takes no locks. The store never sees the
// wire protocol; handlers turn arguments into typed calls and results into
// replies.
//
// Invariants (checked by Check):
//   - a db's key count equals the number of metadata records in it;
//   - every metadata record with a deadline has exactly one expiry index entry;
//   - a collection's size field equals its number of sub-keys.
package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairndb/cairn/internal/encoding"
	"github.com/cairndb/cairn/internal/engine"
)

// SyncMode is appendfsync: when a committed write is made durable.
type SyncMode int32

// Sync modes.
const (
	// SyncEverySec commits without waiting for the disk and syncs the WAL
	// once a second: an OS crash loses at most about a second of writes.
	// Under every mode a commit is written to the OS before it returns, so
	// a process crash loses nothing committed.
	SyncEverySec SyncMode = iota
	// SyncAlways syncs before a write is acknowledged; concurrent writers
	// share one fsync (group commit).
	SyncAlways
	// SyncNo leaves flushing to the engine and the operating system.
	SyncNo
)

// ParseSyncMode parses an appendfsync value.
func ParseSyncMode(s string) (SyncMode, error) {
	switch s {
	case "always":
		return SyncAlways, nil
	case "everysec":
		return SyncEverySec, nil
	case "no":
		return SyncNo, nil
	}
	return 0, fmt.Errorf("appendfsync must be always, everysec or no, not %q", s)
}

// stripeCount is the number of key lock stripes and key-count shards per db.
// Part of the file format only loosely: counts are summed over whatever
// shards exist, so changing it keeps DBSIZE exact.
const stripeCount = 1024

// MaxDatabases is the largest number of databases (db numbers are u16).
const MaxDatabases = 1 << 16

// Options configures Open.
type Options struct {
	Databases int
	Sync      SyncMode
	// Now is the clock, for tests; nil means time.Now.
	Now    func() time.Time
	Logger *slog.Logger
	// ReapInterval is how often the expiry reaper runs (hz); 0 means 100ms.
	ReapInterval time.Duration
	// KeyCacheSize is the memory, in bytes, for recently used metadata
	// records (see keyCache); 0 means no cache.
	KeyCacheSize int64
	// MemberFilterSize is the memory, in bytes, for the member filters of
	// hashes, sets and sorted sets created since the store opened (see
	// memberFilters); 0 means none.
	MemberFilterSize int64
}

// Store is an open data model over an engine.
type Store struct {
	eng       engine.Engine
	databases int
	now       func() time.Time
	log       *slog.Logger

	stripes [stripeCount]sync.Mutex
	// dbMap maps logical db numbers to physical ones (SWAPDB). Replaced
	// whole, under every stripe lock.
	dbMap  atomic.Pointer[[]uint16]
	counts []atomic.Pointer[shardCounts]

	versions versionLease
	limits   atomic.Pointer[EncodingLimits]
	// keys caches metadata records; nil when disabled.
	keys *keyCache
	// filters spare new members' lookups; nil when disabled.
	filters *memberFilters
	// absent holds the member records last deleted under each lock stripe
	// (see absentSet); only holders of the stripe's lock use it.
	absent [stripeCount]absentSet
	// setModels and setPops keep what SPOP and SRANDMEMBER learnt about
	// big sets between commands (see set.go).
	setModels setModelCache
	setPops   setPopCache
	sync      atomic.Int32
	// writes counts commits since the last WAL sync (everysec).
	writes atomic.Int64
	// deferredCommits counts commits that left their sync to the caller
	// (appendfsync always); syncedCommits is how many of them the last
	// WAL sync covered. deferringCommits counts those still inside the
	// engine's Commit, whose writes readers may already see (see
	// Unsynced).
	deferredCommits, syncedCommits, deferringCommits atomic.Int64

	stats  Stats
	access accessClock
	// notify is the notify.Class of events recorded (SetNotify);
	// eventSink publishes those of background work (SetEventSink).
	notify    atomic.Uint32
	eventSink atomic.Pointer[func(tx *Tx)]

	stop    chan struct{}
	done    sync.WaitGroup
	closeMu sync.Mutex
	closed  bool
	reapGap atomic.Int64
	// activeExpireOff pauses the reaper (SetActiveExpire); cycleObserver
	// hears how long each of its cycles took.
	activeExpireOff atomic.Bool
	cycleObserver   atomic.Pointer[func(time.Duration)]
	// countsStale is set after a failed commit: the in-memory key counts
	// may disagree with what the engine holds until they are re-read.
	countsStale atomic.Bool
}

type shardCounts [stripeCount]atomic.Int64

// Stats are the store's running figures for INFO.
type Stats struct {
	ExpiredKeys  atomic.Int64
	ExpiredStale atomic.Int64
	// ExpireCycleTime is the time the expiry reaper's cycles took, in
	// nanoseconds (INFO's expire_cycle_cpu_milliseconds, which Redis also
	// measures as elapsed time).
	ExpireCycleTime atomic.Int64
	// ExpireTimeCapReached counts the reaper's rounds that stopped at
	// their time budget with expired keys left (Redis's
	// expired_time_cap_reached_count).
	ExpireTimeCapReached atomic.Int64
	KeyspaceHits         atomic.Int64
	KeyspaceMisses       atomic.Int64
	Commits              atomic.Int64
	CommitErrors         atomic.Int64
	// Changes counts the keys modified by commits (each modification
	// once, a reclaimed expired key too): Redis's dirty counter, for
	// INFO's rdb_changes_since_last_save.
	Changes       atomic.Int64
	LastSyncError atomic.Pointer[string]
	// LastDurable is the unix time of the last WAL sync (LASTSAVE).
	LastDurable atomic.Int64
	// FilteredReads counts member lookups a member filter answered.
	FilteredReads atomic.Int64
}

// Open loads the store's bookkeeping and starts its background work (expiry
// reaper, WAL syncer). Close stops them; it does not close the engine.
func Open(eng engine.Engine, o Options) (*Store, error) {
	if o.Databases <= 0 {
		o.Databases = 16
	}
	if o.Databases > MaxDatabases {
		return nil, fmt.Errorf("store: %d databases, at most %d", o.Databases, MaxDatabases)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.ReapInterval <= 0 {
		o.ReapInterval = 100 * time.Millisecond
	}
	s := &Store{
		eng:       eng,
		databases: o.Databases,
		now:       o.Now,
		log:       o.Logger,
		counts:    make([]atomic.Pointer[shardCounts], MaxDatabases),
		stop:      make(chan struct{}),
		keys:      newKeyCache(o.KeyCacheSize, o.Databases),
		filters:   newMemberFilters(o.MemberFilterSize),
	}
	s.sync.Store(int32(o.Sync))
	s.SetEncodingLimits(DefaultEncodingLimits())
	s.access.startMs = o.Now().UnixMilli()
	s.stats.LastDurable.Store(o.Now().Unix())
	s.reapGap.Store(int64(o.ReapInterval))
	s.versions.eng = eng
	if err := s.loadDBMap(); err != nil {
		return nil, err
	}
	if err := s.loadCounts(); err != nil {
		return nil, err
	}
	if err := s.holdEmptyDatabases(); err != nil {
		return nil, err
	}
	if err := s.versions.load(); err != nil {
		return nil, err
	}
	s.done.Add(2)
	go s.reapLoop()
	go s.syncLoop()
	return s, nil
}

// holdEmptyDatabases tells the key cache which physical databases have no
// metadata records at all, so that it answers their misses itself (see
// keyCache). One iterator skips from each database that has keys to the
// next: a seek per non-empty database.
func (s *Store) holdEmptyDatabases() error {
	if s.keys == nil {
		return nil
	}
	lo := []byte{byte(encoding.FamilyMeta)}
	it, err := s.eng.NewIter(lo, encoding.FamilyEnd(encoding.FamilyMeta))
	if err != nil {
		return fmt.Errorf("store: find empty databases: %w", err)
	}
	next := 0 // the first database not yet known to have keys
	for ok := it.First(); ok && next < s.databases; {
		mk, err := encoding.DecodeMetaKey(it.Key())
		if err != nil {
			_ = it.Close()
			return fmt.Errorf("store: find empty databases: %w", err)
		}
		for ; next < int(mk.DB) && next < s.databases; next++ {
			s.keys.holdAll(uint16(next))
		}
		next = int(mk.DB) + 1
		if next >= s.databases {
			break
		}
		ok = it.SeekGE(encoding.AppendDBPrefix(nil, encoding.FamilyMeta, uint16(next)))
	}
	if err := errors.Join(it.Error(), it.Close()); err != nil {
		return fmt.Errorf("store: find empty databases: %w", err)
	}
	for ; next < s.databases; next++ {
		s.keys.holdAll(uint16(next))
	}
	return nil
}

// Close stops background work and syncs the WAL. The engine stays open.
func (s *Store) Close() error {
	s.closeMu.Lock()
	defer s.closeMu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	close(s.stop)
	s.done.Wait()
	return s.eng.SyncWAL()
}

// Engine returns the engine, for INFO.
func (s *Store) Engine() engine.Engine { return s.eng }

// Stats returns the store's running figures.
func (s *Store) Stats() *Stats { return &s.stats }

// Databases returns the number of logical databases.
func (s *Store) Databases() int { return s.databases }

// SetSyncMode changes appendfsync at runtime.
func (s *Store) SetSyncMode(m SyncMode) { s.sync.Store(int32(m)) }

// SetReapInterval changes how often expired keys are reclaimed (hz).
func (s *Store) SetReapInterval(d time.Duration) {
	if d > 0 {
		s.reapGap.Store(int64(d))
	}
}

func (s *Store) nowMs() int64 { return s.now().UnixMilli() }

func (s *Store) loadDBMap() error {
	m := make([]uint16, s.databases)
	for i := range m {
		m[i] = uint16(i)
	}
	it, err := s.eng.NewIter(encoding.DBMapPrefix(), encoding.PrefixEnd(encoding.DBMapPrefix()))
	if err != nil {
		return fmt.Errorf("load db map: %w", err)
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		logical, err := encoding.DecodeDBMapKey(it.Key())
		if err != nil {
			return fmt.Errorf("load db map: %w", err)
		}
		phys, err := encoding.Uint16(it.Value())
		if err != nil {
			return fmt.Errorf("load db map: %w", err)
		}
		if int(logical) >= s.databases || int(phys) >= s.databases {
			return fmt.Errorf("load db map: db %d maps to %d, but only %d databases are configured", logical, phys, s.databases)
		}
		m[logical] = phys
	}
	if err := it.Error(); err != nil {
		return fmt.Errorf("load db map: %w", err)
	}
	seen := make([]bool, s.databases)
	for _, p := range m {
		if seen[p] {
			return fmt.Errorf("load db map: physical db %d named twice", p)
		}
		seen[p] = true
	}
	s.dbMap.Store(&m)
	return nil
}

// Reload makes every committed write durable, drops the key cache and
// re-reads the key counts from the engine, so that what is served next is
// read from what the engine holds: Cairn's DEBUG RELOAD, for a store
// whose data is always on disk. tx must hold every lock (BeginAll).
func (tx *Tx) Reload() error {
	s := tx.s
	if !tx.lockAll {
		return errors.New("store: Reload needs every lock")
	}
	if err := s.SyncWAL(); err != nil {
		return fmt.Errorf("store: reload: %w", err)
	}
	if s.keys != nil {
		s.keys.clear()
	}
	for i := range s.counts {
		if c := s.counts[i].Load(); c != nil {
			for j := range c {
				c[j].Store(0)
			}
		}
	}
	if err := s.loadCounts(); err != nil {
		return fmt.Errorf("store: reload key counts: %w", err)
	}
	return s.holdEmptyDatabases()
}

// reloadCounts re-reads every key count from the engine under every lock,
// after a failed commit left the in-memory counts in doubt.
func (s *Store) reloadCounts() {
	tx := s.BeginAll()
	defer tx.Close()
	for i := range s.counts {
		if c := s.counts[i].Load(); c != nil {
			for j := range c {
				c[j].Store(0)
			}
		}
	}
	if err := s.loadCounts(); err != nil {
		s.log.Error("reload key counts", "err", err)
	}
}

func (s *Store) loadCounts() error {
	it, err := s.eng.NewIter(encoding.CounterPrefix(), encoding.PrefixEnd(encoding.CounterPrefix()))
	if err != nil {
		return fmt.Errorf("load key counts: %w", err)
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		db, stripe, err := encoding.DecodeCounterKey(it.Key())
		if err != nil {
			return fmt.Errorf("load key counts: %w", err)
		}
		n, err := encoding.Uint64(it.Value())
		if err != nil {
			return fmt.Errorf("load key counts: %w", err)
		}
		if stripe >= stripeCount {
			return fmt.Errorf("load key counts: stripe %d out of range", stripe)
		}
		s.shard(db)[stripe].Store(int64(n))
	}
	return it.Error()
}

// shard returns the key-count shards of a physical db, creating them.
func (s *Store) shard(pdb uint16) *shardCounts {
	p := &s.counts[pdb]
	if c := p.Load(); c != nil {
		return c
	}
	p.CompareAndSwap(nil, new(shardCounts))
	return p.Load()
}

// phys resolves a logical db number.
func (s *Store) phys(db int) uint16 { return (*s.dbMap.Load())[db] }

// ValidDB reports whether db names a database.
func (s *Store) ValidDB(db int) bool { return db >= 0 && db < s.databases }

// DBSize returns the exact number of keys in db (expired keys not yet
// reclaimed included, as in Redis). O(stripes), independent of key count.
func (s *Store) DBSize(db int) int64 {
	c := s.counts[s.phys(db)].Load()
	if c == nil {
		return 0
	}
	var n int64
	for i := range c {
		n += c[i].Load()
	}
	return n
}

// KeysWithExpiry counts keys with a deadline in db, for INFO keyspace. It
// scans the expiry index, so it is O(keys with a deadline).
func (s *Store) KeysWithExpiry(db int) (int64, error) {
	pdb := s.phys(db)
	lo := []byte{byte(encoding.FamilyExpire)}
	it, err := s.eng.NewIter(lo, encoding.FamilyEnd(encoding.FamilyExpire))
	if err != nil {
		return 0, err
	}
	defer it.Close()
	var n int64
	for ok := it.First(); ok; ok = it.Next() {
		k := it.Key()
		if len(k) >= 11 && uint16(k[9])<<8|uint16(k[10]) == pdb {
			n++
		}
	}
	return n, it.Error()
}

// ExpiryStats is one database's keys with a deadline, for INFO keyspace.
type ExpiryStats struct {
	// Keys counts the keys with a deadline, those past it and not yet
	// reclaimed included (as DBSize counts them, and Redis's expires).
	Keys int64
	// AvgTTL is the mean time left, in milliseconds, of those whose
	// deadline is still ahead: Redis's avg_ttl, which Redis estimates from
	// samples and Cairn computes exactly. 0 when there are none.
	AvgTTL int64
}

// Expiries returns every logical database's ExpiryStats, indexed by
// database, in one pass over the expiry index as of nowMs.
func (s *Store) Expiries(nowMs int64) ([]ExpiryStats, error) {
	logical := make(map[uint16]int, s.databases)
	for db := range s.databases {
		logical[s.phys(db)] = db
	}
	out := make([]ExpiryStats, s.databases)
	sums := make([]float64, s.databases)
	live := make([]int64, s.databases)
	lo := []byte{byte(encoding.FamilyExpire)}
	it, err := s.eng.NewIter(lo, encoding.FamilyEnd(encoding.FamilyExpire))
	if err != nil {
		return nil, fmt.Errorf("expiry stats: %w", err)
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		k := it.Key()
		if len(k) < 11 {
			continue
		}
		db, ok := logical[uint16(k[9])<<8|uint16(k[10])]
		if !ok {
			continue
		}
		out[db].Keys++
		if at := int64(binary.BigEndian.Uint64(k[1:9])); at > nowMs {
			sums[db] += float64(at - nowMs)
			live[db]++
		}
	}
	if err := it.Error(); err != nil {
		return nil, fmt.Errorf("expiry stats: %w", err)
	}
	for db := range out {
		if live[db] > 0 {
			out[db].AvgTTL = int64(sums[db] / float64(live[db]))
		}
	}
	return out, nil
}

// SyncWAL makes every committed write durable (see Tx.DeferSync).
func (s *Store) SyncWAL() error {
	covered := s.deferredCommits.Load()
	// Even a failed sync settles the commits it covered for readers: the
	// writers that made them get the error, and a failed engine must not
	// stop every reply (reads keep working, see engine/failure.go).
	defer func() {
		for {
			was := s.syncedCommits.Load()
			if was >= covered || s.syncedCommits.CompareAndSwap(was, covered) {
				return
			}
		}
	}()
	if err := s.eng.SyncWAL(); err != nil {
		msg := err.Error()
		s.stats.LastSyncError.Store(&msg)
		s.log.Error("wal sync failed", "err", err)
		return err
	}
	s.stats.LastDurable.Store(s.now().Unix())
	return nil
}

// Unsynced reports whether some write committed under appendfsync always
// is not yet durable. Such a write may already be visible to readers, so
// their replies wait for a sync too: as in Redis, where every reply of an
// event-loop pass waits for its fsync, no client learns of a write a crash
// could still take back.
//
// A deferred commit is counted in deferringCommits before the engine makes
// it visible and moves to deferredCommits before it leaves that count, so
// a reader that saw its writes finds one or the other; and a sync started
// after the read covers them, because the engine logs a batch before it
// makes it visible.
func (s *Store) Unsynced() bool {
	return s.deferringCommits.Load() > 0 || s.deferredCommits.Load() > s.syncedCommits.Load()
}

func (s *Store) syncLoop() {
	defer s.done.Done()
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
		if SyncMode(s.sync.Load()) != SyncEverySec || s.writes.Swap(0) == 0 {
			continue
		}
		if err := s.SyncWAL(); err == nil {
			s.stats.LastSyncError.Store(nil)
		}
	}
}

// versionLease hands out collection versions: unique for the life of the
// data, without a clock. Blocks of versions are leased by persisting the
// block's end first; a restart skips the rest of the block.
type versionLease struct {
	eng  engine.Engine
	mu   sync.Mutex
	next uint64
	end  uint64
}

const versionBlock = 1 << 20

func (v *versionLease) load() error {
	b, err := v.eng.Get(encoding.VersionLeaseKey(), nil)
	switch {
	case errors.Is(err, engine.ErrNotFound):
		v.next, v.end = 1, 1
	case err != nil:
		return fmt.Errorf("load version lease: %w", err)
	default:
		n, err := encoding.Uint64(b)
		if err != nil {
			return fmt.Errorf("load version lease: %w", err)
		}
		v.next, v.end = n, n
	}
	return nil
}

func (v *versionLease) nextVersion() (uint64, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.next == v.end {
		end := v.end + versionBlock
		b := v.eng.NewBatch()
		defer b.Close()
		if err := b.Set(encoding.VersionLeaseKey(), encoding.AppendUint64(nil, end)); err != nil {
			return 0, err
		}
		if err := b.Commit(true); err != nil {
			return 0, fmt.Errorf("lease versions: %w", err)
		}
		v.end = end
	}
	v.next++
	return v.next - 1, nil
}
