package store

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/cairndb/cairn/internal/encoding"
	"github.com/cairndb/cairn/internal/engine"
	"github.com/cairndb/cairn/internal/notify"
)

// Tx is one command's (or one MULTI/EXEC's) view of the store. Create it
// with Begin, BeginAll or Read; release it with Close.
type Tx struct {
	s *Store
	// r reads: the batch for a writer, the engine or a snapshot for a
	// reader.
	r    engine.Reader
	b    engine.Batch
	snap engine.Snapshot
	// snapUnread is set while snap is a view nothing has read yet, whose
	// state is not fixed: its first metadata read may come from the key
	// cache (see cachedForView).
	snapUnread bool

	// NowMs is the command's clock, fixed for its whole run (as Redis
	// caches mstime per command) so a key cannot expire halfway through.
	NowMs int64

	lockAll bool
	// noSync commits without waiting for the disk even under
	// appendfsync always (background work that is safe to redo).
	noSync bool
	// deferSync (set by DeferSync) makes an appendfsync-always commit skip
	// its own fsync and set SyncPending instead.
	deferSync bool
	// noTouch (SetTouch) keeps lookups from counting as uses of a key.
	noTouch bool
	// SyncPending reports that Commit wrote under appendfsync always
	// without syncing: the caller must call Store.SyncWAL before it
	// acknowledges the write.
	SyncPending bool

	stripes []uint16
	locked  [stripeCount / 64]uint64

	deltas []countDelta
	// commands counts StartCommand calls.
	commands int
	// cmdDeltas is where the running command's entries in deltas begin:
	// addCount merges only within one command, so that RollbackCommand can
	// cut the command's off.
	cmdDeltas int
	// pendingDBMap is the logical→physical db map SWAPDB installs at commit.
	pendingDBMap []uint16
	// touched lists the keys this Tx modified (for WATCH, notifications
	// and blocked clients), their bytes copied into touchBuf: a Tx shared
	// by pipelined commands outlives each command's arguments.
	touched  []touchedKey
	touchBuf []byte
	// events are the keyspace events the writes cause (see Notify).
	events   []event
	eventBuf []byte

	// cache holds the last metadata record read or written, so a command's
	// read-then-write of one key costs one engine read.
	cache metaCache
	// metaWrites are the metadata records written so far (their bytes in
	// metaBuf), which the store's key cache learns once the batch commits.
	metaWrites []metaWrite
	metaBuf    []byte
	// absentAdds are the member records this Tx deleted, which become
	// known absent once it commits (see absentSet); their bytes are in
	// absentBuf.
	absentAdds []pendingAbsent
	absentBuf  []byte
	// held lists the key cache's shards a commit holds from before the
	// engine applies it until the cache has its records (holdMetaWrites);
	// holding marks them in a bitmap.
	held    []uint16
	holding [stripeCount / 64]uint64
	// metaIndex counts the entries of metaWrites[:metaIndexed] by key, so
	// that wroteMeta stays O(1) in a command over many keys. It is built
	// only once metaWrites outgrows metaScanLimit: a command over a few
	// keys scans and allocates nothing.
	metaIndex   map[string]int32
	metaIndexed int
	// deltaIndex maps a shard (pdb<<16 | stripe) to its entry in
	// deltas[deltaFrom:], built once the running command's deltas outgrow
	// metaScanLimit (addCount).
	deltaIndex map[uint32]int32
	deltaFrom  int
	// flushed is set once the Tx range-deleted metadata records (FLUSHDB,
	// FLUSHALL): it reads past the key cache, and the commit empties it.
	flushed bool
	// flushedDBs lists the physical databases the flush emptied.
	flushedDBs []uint16
	// wholeDBs lists the logical databases in which any key may have
	// changed without a touch of its own (FLUSHDB, FLUSHALL, SWAPDB), for
	// the commit hook (see ChangedDBs). Unlike flushedDBs it outlives
	// Commit, which runs before the hook.
	wholeDBs []int

	keyBuf  []byte
	keyBuf2 []byte
	valBuf  []byte
}

// touchedKey is a key a transaction modified: db, and the end of its bytes
// in touchBuf (they start where the previous key's end).
type touchedKey struct {
	db  int
	end int
}

// EachTouched calls fn with every key the Tx modified, in order (a key
// modified twice comes twice). key is valid until the Tx is closed.
func (tx *Tx) EachTouched(fn func(db int, key []byte)) {
	start := 0
	for _, t := range tx.touched {
		fn(t.db, tx.touchBuf[start:t.end])
		start = t.end
	}
}

// ChangedDBs lists the logical databases a committed Tx changed as a whole
// (FLUSHDB, FLUSHALL, SWAPDB): every key in them may have gone, appeared or
// changed type without being listed by EachTouched. A database may come
// more than once. The slice is valid until the Tx is closed.
func (tx *Tx) ChangedDBs() []int { return tx.wholeDBs }

// CommandMark is where one command began in a Tx that several commands
// share (a client's pipelined writes, committed together).
type CommandMark struct {
	batch                                engine.Mark
	deltas, touched, metaWrites, metaBuf int
	touchBuf                             int
	events, eventBuf                     int
	// A flush the command made is undone too: the key cache must not take
	// a database it never emptied for one held whole.
	flushed    bool
	flushedDBs int
	wholeDBs   int
	absentAdds int
	absentBuf  int
}

// StartCommand begins the next command in tx: it sets the command's clock
// and returns the point RollbackCommand returns to.
func (tx *Tx) StartCommand() CommandMark {
	if tx.commands > 0 {
		// The first command keeps the clock Begin read.
		tx.NowMs = tx.s.nowMs()
	}
	tx.commands++
	tx.cmdDeltas = len(tx.deltas)
	tx.deltaIndex, tx.deltaFrom = nil, 0
	return CommandMark{
		batch:      tx.b.Mark(),
		deltas:     len(tx.deltas),
		touched:    len(tx.touched),
		touchBuf:   len(tx.touchBuf),
		events:     len(tx.events),
		eventBuf:   len(tx.eventBuf),
		metaWrites: len(tx.metaWrites),
		metaBuf:    len(tx.metaBuf),
		flushed:    tx.flushed,
		flushedDBs: len(tx.flushedDBs),
		wholeDBs:   len(tx.wholeDBs),
		absentAdds: len(tx.absentAdds),
		absentBuf:  len(tx.absentBuf),
	}
}

// RollbackCommand discards everything the command begun at m wrote, so that
// a command that fails halfway leaves the Tx as it found it. An error leaves
// the Tx unusable: close it without committing.
func (tx *Tx) RollbackCommand(m CommandMark) error {
	if err := tx.b.RollbackTo(m.batch); err != nil {
		return err
	}
	tx.deltas = tx.deltas[:m.deltas]
	tx.cmdDeltas = m.deltas
	tx.touched = tx.touched[:m.touched]
	tx.touchBuf = tx.touchBuf[:m.touchBuf]
	tx.events = tx.events[:m.events]
	tx.eventBuf = tx.eventBuf[:m.eventBuf]
	tx.unindexMetaWrites(m.metaWrites)
	tx.metaWrites = tx.metaWrites[:m.metaWrites]
	tx.metaBuf = tx.metaBuf[:m.metaBuf]
	tx.deltaIndex, tx.deltaFrom = nil, 0
	tx.flushed = m.flushed
	tx.flushedDBs = tx.flushedDBs[:m.flushedDBs]
	tx.wholeDBs = tx.wholeDBs[:m.wholeDBs]
	tx.absentAdds = tx.absentAdds[:m.absentAdds]
	tx.absentBuf = tx.absentBuf[:m.absentBuf]
	tx.cache.valid = false
	return nil
}

// TryLock adds the stripes of keys to a writing Tx's locks without waiting,
// so the next pipelined command can join it. It reports false when another
// transaction holds one of them: the caller then commits and closes tx
// before waiting for the locks, so that no one ever waits while holding
// locks and transactions cannot deadlock. Stripes taken before a refusal
// stay with tx until it closes.
func (tx *Tx) TryLock(keys [][]byte) bool {
	if tx.lockAll {
		return true
	}
	for _, k := range keys {
		st := stripeOf(k)
		if tx.locked[st/64]&(1<<(st%64)) != 0 {
			continue
		}
		if !tx.s.stripes[st].TryLock() {
			return false
		}
		tx.locked[st/64] |= 1 << (st % 64)
		tx.stripes = append(tx.stripes, st)
	}
	return true
}

// DBSize is Store.DBSize as this Tx would leave it: the key counts its
// uncommitted writes change are counted.
func (tx *Tx) DBSize(db int) int64 {
	n := tx.s.DBSize(db)
	pdb := tx.s.phys(db)
	for _, d := range tx.deltas {
		if d.pdb == pdb {
			n += d.delta
		}
	}
	return n
}

// Size is the size in bytes of what a commit would write.
func (tx *Tx) Size() int {
	if tx.b == nil {
		return 0
	}
	return tx.b.Len()
}

type countDelta struct {
	pdb    uint16
	stripe uint16
	delta  int64
}

// metaWrite locates one written metadata record in Tx.metaBuf.
type metaWrite struct {
	stripe         uint16
	found          bool
	keyEnd, rawEnd int // metaBuf[start:keyEnd] is the key, [keyEnd:rawEnd] the record
	start          int
}

type metaCache struct {
	valid bool
	key   []byte // metadata key
	found bool
	raw   []byte
}

var txPool = sync.Pool{New: func() any { return new(Tx) }}

// Begin starts a writing transaction that locks the stripes of keys. Keys
// may repeat; locks are taken in stripe order.
func (s *Store) Begin(keys [][]byte) *Tx {
	tx := s.newTx()
	for _, k := range keys {
		st := stripeOf(k)
		if tx.locked[st/64]&(1<<(st%64)) == 0 {
			tx.locked[st/64] |= 1 << (st % 64)
			tx.stripes = append(tx.stripes, st)
		}
	}
	slices.Sort(tx.stripes)
	for _, st := range tx.stripes {
		s.stripes[st].Lock()
	}
	tx.b = s.eng.NewBatch()
	tx.r = tx.b
	tx.NowMs = s.nowMs()
	return tx
}

// BeginAll starts a writing transaction that excludes every other writer
// (FLUSHDB, FLUSHALL, SWAPDB).
func (s *Store) BeginAll() *Tx {
	tx := s.newTx()
	tx.lockAll = true
	for i := range s.stripes {
		s.stripes[i].Lock()
	}
	tx.b = s.eng.NewBatch()
	tx.r = tx.b
	tx.NowMs = s.nowMs()
	return tx
}

// Read starts a reading transaction over the latest committed state. With
// consistent, all its reads see one snapshot (multi-key reads such as MGET).
func (s *Store) Read(consistent bool) *Tx {
	tx := s.newTx()
	if consistent {
		tx.pinView()
	} else {
		tx.r = s.eng
	}
	tx.NowMs = s.nowMs()
	return tx
}

func (s *Store) newTx() *Tx {
	tx := txPool.Get().(*Tx)
	tx.s = s
	return tx
}

// DeferSync lets the caller batch the fsyncs of appendfsync always: the
// server defers each command's sync to the moment it is about to send
// replies, so a pipeline of writes — and concurrent clients doing the same —
// share one fsync, as Redis syncs its AOF once per event-loop pass. No reply
// may be sent for a write before that sync succeeds.
func (tx *Tx) DeferSync() { tx.deferSync = true }

// SetTouch says whether the keys this Tx looks up count as used (OBJECT
// IDLETIME), which they do by default. Redis's TTL, TYPE, EXISTS and OBJECT
// look keys up without touching them.
func (tx *Tx) SetTouch(on bool) { tx.noTouch = !on }

// Writable reports whether the Tx may write.
func (tx *Tx) Writable() bool { return tx.b != nil }

// Commit applies the transaction's writes atomically, honouring appendfsync.
// A read-only or empty Tx commits nothing.
func (tx *Tx) Commit() error {
	if tx.b == nil {
		return nil
	}
	tx.mergeDeltas()
	for _, d := range tx.deltas {
		n := tx.s.shard(d.pdb)[d.stripe].Load() + d.delta
		if err := tx.b.Set(encoding.CounterKey(d.pdb, d.stripe), encoding.AppendUint64(tx.valBuf[:0], uint64(n))); err != nil {
			return err
		}
	}
	if tx.b.Empty() {
		return nil
	}
	mode := SyncMode(tx.s.sync.Load())
	syncNow := mode == SyncAlways && !tx.noSync && !tx.deferSync
	deferring := mode == SyncAlways && tx.deferSync
	if deferring {
		tx.s.deferringCommits.Add(1)
	}
	tx.holdMetaWrites()
	var err error
	if deferring {
		// The caller syncs before any reply goes out: no need to wait
		// for the log write as well.
		err = tx.b.CommitBuffered()
	} else {
		err = tx.b.Commit(syncNow)
	}
	if deferring {
		if err == nil {
			tx.SyncPending = true
			tx.s.deferredCommits.Add(1)
		}
		tx.s.deferringCommits.Add(-1)
	}
	if err != nil {
		tx.absentAdds = tx.absentAdds[:0]
		tx.publishMetaWrites(false)
		tx.s.stats.CommitErrors.Add(1)
		// The engine may have applied part of what it refused; the
		// background loop re-reads the key counts from it.
		tx.s.countsStale.Store(true)
		return fmt.Errorf("commit: %w", err)
	}
	tx.s.stats.Commits.Add(1)
	tx.s.stats.Changes.Add(int64(len(tx.touched)))
	tx.publishMetaWrites(true)
	tx.publishAbsent()
	switch {
	case mode == SyncEverySec:
		tx.s.writes.Add(1)
	case syncNow:
		tx.s.stats.LastDurable.Store(tx.NowMs / 1000)
	}
	// The stripe locks are still held: nobody else can have moved these
	// shards since they were read above.
	for _, d := range tx.deltas {
		tx.s.shard(d.pdb)[d.stripe].Add(d.delta)
	}
	tx.deltas = tx.deltas[:0]
	tx.deltaIndex, tx.deltaFrom = nil, 0
	if tx.pendingDBMap != nil {
		m := tx.pendingDBMap
		tx.s.dbMap.Store(&m)
		tx.pendingDBMap = nil
	}
	return nil
}

// Close discards anything not committed, releases the locks and recycles
// the Tx. The Tx must not be used afterwards.
func (tx *Tx) Close() {
	if tx.b != nil {
		_ = tx.b.Close()
	}
	if tx.snap != nil {
		_ = tx.snap.Close()
	}
	if tx.lockAll {
		for i := range tx.s.stripes {
			tx.s.stripes[i].Unlock()
		}
	}
	for _, st := range tx.stripes {
		tx.s.stripes[st].Unlock()
	}
	*tx = Tx{
		stripes:    tx.stripes[:0],
		deltas:     tx.deltas[:0],
		touched:    tx.touched[:0],
		touchBuf:   tx.touchBuf[:0],
		events:     tx.events[:0],
		eventBuf:   tx.eventBuf[:0],
		keyBuf:     tx.keyBuf[:0],
		keyBuf2:    tx.keyBuf2[:0],
		valBuf:     tx.valBuf[:0],
		cache:      metaCache{key: tx.cache.key[:0], raw: tx.cache.raw[:0]},
		metaWrites: tx.metaWrites[:0],
		metaBuf:    tx.metaBuf[:0],
		held:       tx.held[:0],
		absentAdds: tx.absentAdds[:0],
		absentBuf:  tx.absentBuf[:0],
	}
	txPool.Put(tx)
}

func stripeOf(key []byte) uint16 { return uint16(encoding.KeyHash(key) % stripeCount) }

// errNotLocked reports a programming error: a command wrote a key it did not
// declare (its command spec's key positions are wrong).
var errNotLocked = errors.New("store: write to a key the command did not lock")

func (tx *Tx) checkWrite(key []byte) error {
	if tx.b == nil {
		return errors.New("store: write in a read-only transaction")
	}
	if tx.lockAll {
		return nil
	}
	st := stripeOf(key)
	if tx.locked[st/64]&(1<<(st%64)) == 0 {
		return fmt.Errorf("%w: %q", errNotLocked, key)
	}
	return nil
}

// rawMeta reads the metadata record of (pdb, key), expired or not: from the
// Tx's own last read or write, else the store's key cache, else the engine.
func (tx *Tx) rawMeta(pdb uint16, key []byte) (mk []byte, raw []byte, found bool, err error) {
	tx.keyBuf = encoding.AppendMetaKey(tx.keyBuf[:0], pdb, key)
	mk = tx.keyBuf
	if tx.cache.valid && string(tx.cache.key) == string(mk) {
		return mk, tx.cache.raw, tx.cache.found, nil
	}
	// The key cache holds the latest committed state: right for a writer
	// (unless this Tx wrote the record itself) and for an unpinned reader,
	// wrong for a snapshot, unless it is a view whose state is fixed now
	// and shown to match (cachedForView).
	kc := tx.s.keys
	unread := tx.snapUnread
	tx.snapUnread = false
	useCache := kc != nil && (tx.snap == nil || unread) && !tx.flushed && !tx.wroteMeta(mk)
	var stripe uint16
	var gen uint64
	if useCache {
		stripe = stripeOf(key)
		var ok bool
		tx.cache.raw, found, ok, gen = kc.lookup(stripe, mk, tx.cache.raw[:0])
		if ok && unread {
			ok = tx.cachedForView(tx.snap, stripe, gen)
		}
		if ok {
			tx.cache.valid, tx.cache.found = true, found
			tx.cache.key = append(tx.cache.key[:0], mk...)
			return mk, tx.cache.raw, found, nil
		}
		if !unread && kc.absent(pdb, gen) {
			tx.cache.set(mk, nil, false)
			return mk, nil, false, nil
		}
	}
	v, err := tx.r.Get(mk, tx.cache.raw[:0])
	switch {
	case errors.Is(err, engine.ErrNotFound):
		tx.cache.set(mk, nil, false)
		if useCache {
			kc.fill(stripe, gen, mk, nil, false)
		}
		return mk, nil, false, nil
	case err != nil:
		tx.cache.valid = false
		return mk, nil, false, err
	}
	tx.cache.set(mk, v, true)
	if useCache {
		kc.fill(stripe, gen, mk, v, true)
	}
	return mk, tx.cache.raw, true, nil
}

// metaScanLimit is how many entries wroteMeta and addCount scan before
// they index them: a linear scan per key would make a command over n keys
// cost O(n²) (issue 18: MSET of 40k keys took 2.5 s).
const metaScanLimit = 16

// wroteMeta reports whether this Tx has written the metadata record mk.
func (tx *Tx) wroteMeta(mk []byte) bool {
	if len(tx.metaWrites) <= metaScanLimit && tx.metaIndex == nil {
		for _, w := range tx.metaWrites {
			if string(tx.metaBuf[w.start:w.keyEnd]) == string(mk) {
				return true
			}
		}
		return false
	}
	if tx.metaIndex == nil {
		tx.metaIndex = make(map[string]int32, 2*len(tx.metaWrites))
	}
	for _, w := range tx.metaWrites[tx.metaIndexed:] {
		tx.metaIndex[string(tx.metaBuf[w.start:w.keyEnd])]++
	}
	tx.metaIndexed = len(tx.metaWrites)
	return tx.metaIndex[string(mk)] > 0
}

// unindexMetaWrites takes metaWrites[n:], about to be cut off, out of
// metaIndex.
func (tx *Tx) unindexMetaWrites(n int) {
	if tx.metaIndex == nil || n >= tx.metaIndexed {
		return
	}
	for _, w := range tx.metaWrites[n:tx.metaIndexed] {
		k := string(tx.metaBuf[w.start:w.keyEnd])
		if c := tx.metaIndex[k]; c > 1 {
			tx.metaIndex[k] = c - 1
		} else {
			delete(tx.metaIndex, k)
		}
	}
	tx.metaIndexed = n
}

// setMeta and deleteMeta write a metadata record into the batch and note it
// for the key cache.
func (tx *Tx) setMeta(mk, key, raw []byte) error {
	if err := tx.b.Set(mk, raw); err != nil {
		return err
	}
	tx.cache.set(mk, raw, true)
	tx.noteMetaWrite(mk, key, raw, true)
	return nil
}

func (tx *Tx) deleteMeta(mk, key []byte) error {
	if err := tx.b.Delete(mk); err != nil {
		return err
	}
	tx.cache.set(mk, nil, false)
	tx.noteMetaWrite(mk, key, nil, false)
	return nil
}

func (tx *Tx) noteMetaWrite(mk, key, raw []byte, found bool) {
	if tx.s.keys == nil {
		return
	}
	w := metaWrite{stripe: stripeOf(key), found: found, start: len(tx.metaBuf)}
	tx.metaBuf = append(tx.metaBuf, mk...)
	w.keyEnd = len(tx.metaBuf)
	tx.metaBuf = append(tx.metaBuf, raw...)
	w.rawEnd = len(tx.metaBuf)
	tx.metaWrites = append(tx.metaWrites, w)
}

// holdMetaWrites holds the key cache's shards of the metadata records the
// commit about to be made wrote (all of them after a flush), so that no
// reader sees one of them in the cache unchanged while the engine already
// has the commit, nor one written twice with its first value (see
// keyCache). publishMetaWrites releases them.
func (tx *Tx) holdMetaWrites() {
	kc := tx.s.keys
	if kc == nil {
		return
	}
	if tx.flushed {
		for st := range uint16(stripeCount) {
			tx.held = append(tx.held, st)
		}
	} else {
		for _, w := range tx.metaWrites {
			if bit := uint64(1) << (w.stripe % 64); tx.holding[w.stripe/64]&bit == 0 {
				tx.holding[w.stripe/64] |= bit
				tx.held = append(tx.held, w.stripe)
			}
		}
	}
	for _, st := range tx.held {
		kc.hold(st)
	}
}

// publishMetaWrites tells the key cache what a commit did: the records it
// wrote after a success, that they are unknown after a failure (the engine
// may have applied part of the batch). The stripe locks are still held.
func (tx *Tx) publishMetaWrites(committed bool) {
	kc := tx.s.keys
	if kc == nil {
		return
	}
	if tx.flushed {
		kc.clear()
		if committed {
			// What the flush emptied holds no record the cache lacks.
			for _, pdb := range tx.flushedDBs {
				kc.holdAll(pdb)
			}
		}
	}
	// A key written twice is put twice, but no reader sees the first: its
	// shard is held until the last (release below).
	for _, w := range tx.metaWrites {
		mk := tx.metaBuf[w.start:w.keyEnd]
		if committed {
			kc.put(w.stripe, mk, tx.metaBuf[w.keyEnd:w.rawEnd], w.found)
		} else {
			kc.drop(w.stripe, mk)
		}
	}
	for _, st := range tx.held {
		kc.release(st)
		tx.holding[st/64] = 0
	}
	tx.held = tx.held[:0]
	tx.metaWrites = tx.metaWrites[:0]
	tx.metaBuf = tx.metaBuf[:0]
	tx.metaIndex, tx.metaIndexed = nil, 0
	tx.flushed = false
	tx.flushedDBs = tx.flushedDBs[:0]
}

// pinView makes the Tx, a reader, read one state of the store: a view,
// fixed at its first read.
func (tx *Tx) pinView() {
	tx.snap = tx.s.eng.NewView()
	tx.r = tx.snap
	tx.snapUnread = true
	tx.cache.valid = false
}

// cachedForView fixes view, which nothing may have read yet, and reports
// whether the key cache's record of a key of stripe, looked up at shard
// generation gen just before, is the record in the view's state. Readers
// of collections pin a view so that the metadata and the items they read
// agree, and the metadata record is then the first read: from the cache,
// it costs no engine read.
//
// A writer holds the stripe's lock from before its commit until after it
// has installed its records in the cache, which moves the generation. If
// the lock is free once the view is fixed and the generation has not moved
// since the lookup, no write to a key of the stripe committed between the
// lookup and the view: the cached record is the view's. Otherwise the
// caller reads the view.
func (tx *Tx) cachedForView(view engine.Snapshot, stripe uint16, gen uint64) bool {
	if fixed, err := view.Fix(); !fixed || err != nil {
		// A view fixed before the lookup may be older than the cache; an
		// error is the view's own reads' to report.
		return false
	}
	mu := &tx.s.stripes[stripe]
	if !mu.TryLock() {
		return false
	}
	mu.Unlock()
	return tx.s.keys.generation(stripe) == gen
}

func (c *metaCache) set(key, raw []byte, found bool) {
	c.valid = true
	c.key = append(c.key[:0], key...)
	c.found = found
	if found {
		c.raw = append(c.raw[:0], raw...)
	} else {
		c.raw = c.raw[:0]
	}
}

// meta returns the live metadata of key in logical db; an expired key is
// absent. Value aliases a buffer reused by the next read.
func (tx *Tx) meta(db int, key []byte) (encoding.Meta, bool, error) {
	mk, raw, found, err := tx.rawMeta(tx.s.phys(db), key)
	if err != nil || !found {
		return encoding.Meta{}, false, err
	}
	if !tx.noTouch {
		tx.s.access.touchMetaKey(mk, tx.NowMs, lfuAccess)
	}
	m, err := encoding.DecodeMeta(raw)
	if err != nil {
		return encoding.Meta{}, false, fmt.Errorf("key %q: %w", key, err)
	}
	if m.Expired(tx.NowMs) {
		return encoding.Meta{}, false, nil
	}
	return m, true, nil
}

// typedMeta returns the live metadata of key, or ErrWrongType when it holds
// another type.
func (tx *Tx) typedMeta(db int, key []byte, t encoding.Type) (encoding.Meta, bool, error) {
	m, ok, err := tx.meta(db, key)
	if err != nil || !ok {
		return m, false, err
	}
	if m.Type != t {
		return m, false, ErrWrongType
	}
	return m, true, nil
}

// putMeta writes key's metadata record, replacing whatever the key held
// (live or expired): the old deadlines leave their indexes, an old
// collection's sub-keys are reclaimed unless m continues its version, and
// the key count grows when the key is new.
func (tx *Tx) putMeta(db int, key []byte, m *encoding.Meta) error {
	if err := tx.checkWrite(key); err != nil {
		return err
	}
	pdb := tx.s.phys(db)
	mk, raw, found, err := tx.rawMeta(pdb, key)
	if err != nil {
		return err
	}
	// A write is a use of the key (OBJECT IDLETIME), read first or not,
	// as Redis's new object or lookupKeyWrite; a key created is new
	// even for a client that asked not to touch keys.
	// For LFU a new key starts its counter; an existing one counted at
	// the command's lookup, as Redis's lookupKeyWrite.
	if !found {
		tx.s.access.touchMetaKey(mk, tx.NowMs, lfuCreated)
	} else if !tx.noTouch {
		tx.s.access.touchMetaKey(mk, tx.NowMs, lfuNone)
	}
	var old *encoding.Meta
	if found {
		o, err := encoding.DecodeMeta(raw)
		if err != nil {
			return fmt.Errorf("key %q: %w", key, err)
		}
		old = &o
		if old.HasSubKeys() && !(m.Type == old.Type && m.Version == old.Version && m.HasSubKeys()) {
			if err := tx.dropSubKeys(pdb, key, old); err != nil {
				return err
			}
		}
		if old.Expired(tx.NowMs) {
			// Replacing an expired key expires it first, as Redis's
			// lookupKeyWrite does; the count of keys is unchanged.
			tx.s.stats.ExpiredKeys.Add(1)
			tx.Notify(notify.Expired, "expired", db, key)
			tx.Notify(notify.New, "new", db, key)
		}
	} else {
		tx.addCount(pdb, key, 1)
		tx.Notify(notify.New, "new", db, key)
	}
	if err := tx.updateDeadlineIndexes(mk, old, m); err != nil {
		return err
	}
	tx.valBuf = encoding.AppendMeta(tx.valBuf[:0], m)
	if err := tx.setMeta(mk, key, tx.valBuf); err != nil {
		return err
	}
	tx.touch(db, key)
	return nil
}

// updateDeadlineIndexes keeps the expiry index (key deadlines) and the
// field-expiry index (a hash's earliest field deadline) in step with a
// metadata record going from old to m; either may be nil (created, deleted).
func (tx *Tx) updateDeadlineIndexes(mk []byte, old, m *encoding.Meta) error {
	// Plain fields, not a table of accessor funcs: calls through func
	// values would make old and m escape, two allocations per write.
	var oldKey, newKey, oldField, newField int64
	if old != nil {
		oldKey, oldField = old.ExpireMs, encoding.FieldDeadline(old)
	}
	if m != nil {
		newKey, newField = m.ExpireMs, encoding.FieldDeadline(m)
	}
	if err := tx.moveDeadline(mk, oldKey, newKey, encoding.AppendExpireKey); err != nil {
		return err
	}
	return tx.moveDeadline(mk, oldField, newField, encoding.AppendFieldExpireKey)
}

// moveDeadline moves mk's entry in one deadline index from deadline before
// to after (0: no entry); indexKey builds the index's keys.
func (tx *Tx) moveDeadline(mk []byte, before, after int64, indexKey func(dst []byte, ms int64, mk []byte) []byte) error {
	if before == after {
		return nil
	}
	if before != 0 {
		tx.keyBuf2 = indexKey(tx.keyBuf2[:0], before, mk)
		if err := tx.b.Delete(tx.keyBuf2); err != nil {
			return err
		}
	}
	if after != 0 {
		tx.keyBuf2 = indexKey(tx.keyBuf2[:0], after, mk)
		if err := tx.b.Set(tx.keyBuf2, nil); err != nil {
			return err
		}
	}
	return nil
}

func expireOf(raw []byte) int64 {
	m, err := encoding.DecodeMeta(raw)
	if err != nil {
		return 0
	}
	return m.ExpireMs
}

// deleteKey removes key and everything it owns. It reports whether a live
// key was deleted (an expired one is reclaimed but reported absent).
func (tx *Tx) deleteKey(db int, key []byte) (bool, error) {
	if err := tx.checkWrite(key); err != nil {
		return false, err
	}
	return tx.deletePhys(tx.s.phys(db), key, db)
}

func (tx *Tx) deletePhys(pdb uint16, key []byte, db int) (bool, error) {
	mk, raw, found, err := tx.rawMeta(pdb, key)
	if err != nil || !found {
		return false, err
	}
	old, err := encoding.DecodeMeta(raw)
	if err != nil {
		return false, fmt.Errorf("key %q: %w", key, err)
	}
	if err := tx.updateDeadlineIndexes(mk, &old, nil); err != nil {
		return false, err
	}
	if old.HasSubKeys() {
		if err := tx.dropSubKeys(pdb, key, &old); err != nil {
			return false, err
		}
	}
	if err := tx.deleteMeta(mk, key); err != nil {
		return false, err
	}
	tx.addCount(pdb, key, -1)
	live := !old.Expired(tx.NowMs)
	if live && db >= 0 {
		tx.touch(db, key)
	}
	if !live && db >= 0 {
		// A command reclaims an expired key (DEL of one, say): Redis
		// expires it on the lookup, and the reaper will not see it now.
		tx.Notify(notify.Expired, "expired", db, key)
	}
	return live, nil
}

// pointDeleteLimit is the largest collection whose records are deleted one
// by one rather than with range tombstones. Pebble re-fragments the range
// tombstones in its memtable for every read, so a queue that empties and
// refills a small list thousands of times would otherwise slow every read
// of every key until the next flush; a few point deletes cost nothing.
const pointDeleteLimit = 64

// dropSubKeys reclaims every record of one version of a collection: small
// collections by point deletes, large ones with one range tombstone per
// family they use — O(1) writes whatever their size.
func (tx *Tx) dropSubKeys(pdb uint16, key []byte, old *encoding.Meta) error {
	families := []encoding.Family{encoding.FamilySub}
	switch {
	case old.Type == encoding.TypeZSet:
		families = append(families, encoding.FamilyScore)
	case encoding.FieldDeadline(old) != 0:
		families = append(families, encoding.FamilyFieldTTL)
	}
	records := old.Size
	if old.Fragmented() {
		// At most one record per fragment.
		records = (old.Size + 1<<old.FragShift - 1) >> old.FragShift
	}
	for _, f := range families {
		start := encoding.AppendSubKeyPrefix(nil, f, pdb, key, old.Version)
		end := encoding.PrefixEnd(start)
		if records > pointDeleteLimit || streamUnbounded(old) {
			if err := tx.b.DeleteRange(start, end); err != nil {
				return err
			}
			continue
		}
		it, err := tx.r.NewIter(start, end)
		if err != nil {
			return err
		}
		var doomed [][]byte
		for ok := it.First(); ok; ok = it.Next() {
			doomed = append(doomed, append([]byte(nil), it.Key()...))
		}
		if err := it.Close(); err != nil {
			return err
		}
		for _, k := range doomed {
			if err := tx.b.Delete(k); err != nil {
				return err
			}
		}
	}
	return nil
}

func (tx *Tx) addCount(pdb uint16, key []byte, delta int64) {
	st := stripeOf(key)
	cur := tx.deltas[tx.cmdDeltas:]
	if tx.deltaIndex == nil && len(cur) <= metaScanLimit {
		for i := range cur {
			if d := &cur[i]; d.pdb == pdb && d.stripe == st {
				d.delta += delta
				return
			}
		}
		tx.deltas = append(tx.deltas, countDelta{pdb: pdb, stripe: st, delta: delta})
		return
	}
	if tx.deltaIndex == nil || tx.deltaFrom != tx.cmdDeltas {
		// (Re)index the running command's entries, distinct by shard.
		tx.deltaIndex = make(map[uint32]int32, 2*len(cur))
		tx.deltaFrom = tx.cmdDeltas
		for i, d := range cur {
			tx.deltaIndex[uint32(d.pdb)<<16|uint32(d.stripe)] = int32(tx.cmdDeltas + i)
		}
	}
	shard := uint32(pdb)<<16 | uint32(st)
	if i, ok := tx.deltaIndex[shard]; ok {
		tx.deltas[i].delta += delta
		return
	}
	tx.deltaIndex[shard] = int32(len(tx.deltas))
	tx.deltas = append(tx.deltas, countDelta{pdb: pdb, stripe: st, delta: delta})
}

// mergeDeltas sums the deltas of the same shard left by different commands
// of a shared Tx, so each shard's counter is written once.
func (tx *Tx) mergeDeltas() {
	if tx.cmdDeltas == 0 {
		return
	}
	slices.SortFunc(tx.deltas, func(a, b countDelta) int {
		if a.pdb != b.pdb {
			return int(a.pdb) - int(b.pdb)
		}
		return int(a.stripe) - int(b.stripe)
	})
	tx.deltaIndex, tx.deltaFrom = nil, 0
	out := tx.deltas[:0]
	for _, d := range tx.deltas {
		if n := len(out); n > 0 && out[n-1].pdb == d.pdb && out[n-1].stripe == d.stripe {
			out[n-1].delta += d.delta
			continue
		}
		out = append(out, d)
	}
	tx.deltas = out
	tx.cmdDeltas = 0
}

func (tx *Tx) touch(db int, key []byte) {
	tx.touchBuf = append(tx.touchBuf, key...)
	tx.touched = append(tx.touched, touchedKey{db: db, end: len(tx.touchBuf)})
}

// Version returns a new collection version.
func (tx *Tx) newVersion() (uint64, error) { return tx.s.versions.nextVersion() }
