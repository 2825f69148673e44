package store

import (
	"bytes"
	"hash/maphash"
	"math/rand/v2"
	"sync"
	"sync/atomic"
)

// keyCache keeps recently used metadata records in memory, write-through.
// Every command starts by reading its key's metadata record (a string's
// value is inline in it), and in Pebble that read walks the memtable's
// skiplist and, for a key not there, the sstables' filters and blocks: most
// of a SET's cost. The cache answers it from memory instead.
//
// Coherence rests on two rules:
//   - Writers change an entry only after their batch has committed, while
//     they still hold the key's stripe lock, so a writer that holds the lock
//     and finds an entry finds the committed state.
//   - Readers hold no lock. A reader that missed fills the entry only if no
//     writer has changed the shard since before the reader read the engine
//     (the shard's generation is unchanged); otherwise it might put back a
//     value older than one a writer has just installed.
//   - A commit holds the shards of the keys it wrote (hold) from before the
//     engine applies its batch until the cache has all of its records
//     (release): meanwhile a shard's generation is odd, its lookups miss
//     and vouch for no absence, and no fill is taken, so its keys are read
//     from the engine, which applies a batch all at once. An atomic group
//     (MULTI/EXEC, a script, a multi-key command) thus becomes visible
//     whole on every read path: never a key written twice in it with its
//     value between the two writes, nor one of its keys new in the cache
//     while another still shows its old value (issue 27).
//
// Absent keys are cached too (found false), so creating a new key costs no
// engine read either. And a database the cache holds whole answers every
// miss itself: complete[pdb] is set while every metadata record of physical
// database pdb is in the cache, which is so for an empty database (at open,
// after FLUSHDB or FLUSHALL) until an entry of it is evicted or forgotten.
// Loading keys into an empty database then reads nothing from the engine.
// The flag is cleared before an entry goes, under its shard's lock, so a
// reader that misses after the entry went (it takes the same lock) sees the
// flag cleared. Entries larger than maxEntry are not kept. Each shard
// has a fixed byte budget and drops entries from a random slot on when
// over it, which costs O(1) and behaves close to LRU for skewed
// workloads.
type keyCache struct {
	shards      []cacheShard
	shardBudget int
	maxEntry    int
	complete    []atomic.Bool // by physical database
	seed        maphash.Seed
}

// cacheShard maps the hash of a metadata key to its entry, in an
// open-addressing table of its own: a lookup touches the shard, one slot
// and the entry's buffer, where Go's map adds its header and directory. A
// table keyed by the hash rather than the key itself costs a write no
// allocation and compares the key where the record is; two keys of one
// shard with the same hash take turns in the slot.
type cacheShard struct {
	mu sync.Mutex
	// gen counts writes to the shard, twice each: it is odd while a commit
	// holds the shard (see keyCache).
	gen   uint64
	bytes int
	t     entryTable
	// spare is the buffer of the entry evicted last, for the next new
	// entry: a cache that misses all the time (data larger than it)
	// would otherwise allocate a buffer per miss and keep the GC busy.
	spare []byte
}

// entryTable is a hash table with linear probing and backward-shift
// deletion (no tombstones). Hash 0 marks an empty slot: keyHash never
// returns it.
type entryTable struct {
	slots []cacheSlot // a power of two long, or empty
	n     int
}

type cacheSlot struct {
	h uint64
	e cacheEntry
}

// find returns the index of hash h's slot, or -1.
func (t *entryTable) find(h uint64) int {
	if len(t.slots) == 0 {
		return -1
	}
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		switch t.slots[i].h {
		case h:
			return int(i)
		case 0:
			return -1
		}
	}
}

// put stores e under h, replacing the entry there.
func (t *entryTable) put(h uint64, e cacheEntry) {
	if i := t.find(h); i >= 0 {
		t.slots[i].e = e
		return
	}
	if (t.n+1)*4 > len(t.slots)*3 {
		t.grow()
	}
	mask := uint64(len(t.slots) - 1)
	i := h & mask
	for t.slots[i].h != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = cacheSlot{h: h, e: e}
	t.n++
}

func (t *entryTable) grow() {
	old := t.slots
	t.slots = make([]cacheSlot, max(16, 2*len(old)))
	t.n = 0
	for _, s := range old {
		if s.h != 0 {
			t.put(s.h, s.e)
		}
	}
}

// deleteAt empties slot i and moves back the entries after it that would
// no longer be found.
func (t *entryTable) deleteAt(i int) {
	mask := len(t.slots) - 1
	for j := i; ; {
		j = (j + 1) & mask
		h := t.slots[j].h
		if h == 0 {
			break
		}
		// The entry at j stays if its home slot k lies cyclically in
		// (i, j]: a search for it never passes i.
		k := int(h) & mask
		if i <= j && i < k && k <= j || i > j && (i < k || k <= j) {
			continue
		}
		t.slots[i] = t.slots[j]
		i = j
	}
	t.slots[i] = cacheSlot{}
	t.n--
}

// clear empties the table, keeping its slots.
func (t *entryTable) clear() {
	clear(t.slots)
	t.n = 0
}

// keyHash is mk's hash in the cache; never 0, which marks an empty slot.
func (c *keyCache) keyHash(mk []byte) uint64 {
	return max(maphash.Bytes(c.seed, mk), 1)
}

// cacheEntry holds a metadata key and its record (or found false: the key
// is absent) in one buffer.
type cacheEntry struct {
	buf   []byte
	klen  uint32
	found bool
}

func (e *cacheEntry) key() []byte { return e.buf[:e.klen] }
func (e *cacheEntry) raw() []byte { return e.buf[e.klen:] }

// cost approximates what an entry takes: its buffer and entryOverhead.
func (e *cacheEntry) cost() int { return cap(e.buf) + entryOverhead }

// cacheShards is the number of shards; a key's shard is its lock stripe, so
// writers to one shard already hold the same stripe lock.
const cacheShards = stripeCount

// entryOverhead approximates what an entry costs beyond its buffer: the map
// slot and the allocation's rounding.
const entryOverhead = 64

// newKeyCache returns a cache of about budget bytes for a store of
// databases physical databases, none of them complete yet, or nil (no
// cache) for a budget of zero.
func newKeyCache(budget int64, databases int) *keyCache {
	if budget <= 0 {
		return nil
	}
	c := &keyCache{
		shards:      make([]cacheShard, cacheShards),
		shardBudget: int(budget / cacheShards),
		complete:    make([]atomic.Bool, databases),
		seed:        maphash.MakeSeed(),
	}
	// One entry may take at most a quarter of its shard, and never more
	// than 4 KiB: large values would evict many small ones for one hit.
	c.maxEntry = min(c.shardBudget/4, 4096)
	return c
}

// lookup appends the cached record of mk to dst. ok reports a hit; gen is
// the shard's generation, for a later fill after a miss (and for absent).
// A shard a commit holds misses.
func (c *keyCache) lookup(stripe uint16, mk, dst []byte) (raw []byte, found, ok bool, gen uint64) {
	h := c.keyHash(mk)
	sh := &c.shards[stripe]
	sh.mu.Lock()
	if sh.gen%2 != 0 {
		gen = sh.gen
		sh.mu.Unlock()
		return dst, false, false, gen
	}
	if i := sh.t.find(h); i >= 0 {
		e := &sh.t.slots[i].e
		if ok = bytes.Equal(e.key(), mk); ok {
			dst = append(dst[:0], e.raw()...)
			found = e.found
		}
	}
	gen = sh.gen
	sh.mu.Unlock()
	return dst, found, ok, gen
}

// generation returns the generation of stripe's shard (see fill).
func (c *keyCache) generation(stripe uint16) uint64 {
	sh := &c.shards[stripe]
	sh.mu.Lock()
	gen := sh.gen
	sh.mu.Unlock()
	return gen
}

// entry returns mk's entry, for checks.
func (c *keyCache) entry(sh *cacheShard, mk []byte) (cacheEntry, bool) {
	i := sh.t.find(c.keyHash(mk))
	if i < 0 {
		return cacheEntry{}, false
	}
	e := sh.t.slots[i].e
	return e, bytes.Equal(e.key(), mk)
}

// holdsAll reports whether the cache holds every metadata record of physical
// database pdb.
func (c *keyCache) holdsAll(pdb uint16) bool {
	return int(pdb) < len(c.complete) && c.complete[pdb].Load()
}

// absent reports whether a lookup that missed at generation gen proves its
// key of physical database pdb absent: the database is held whole, and no
// commit held the key's shard (one may be creating the key). Ask after the
// lookup that missed.
func (c *keyCache) absent(pdb uint16, gen uint64) bool {
	return gen%2 == 0 && c.holdsAll(pdb)
}

// holdAll marks physical database pdb as held whole. The caller knows it
// has no metadata records the cache lacks (it is empty) and holds every
// lock, so that no writer adds one meanwhile.
func (c *keyCache) holdAll(pdb uint16) {
	if int(pdb) < len(c.complete) {
		c.complete[pdb].Store(true)
	}
}

// losing clears the complete flag of the database of mk, whose entry is
// about to go (or not to be kept).
func losing[K ~string | ~[]byte](c *keyCache, mk K) {
	if len(mk) < 3 {
		// Not a metadata key (tests): no database can be trusted.
		for i := range c.complete {
			c.complete[i].Store(false)
		}
		return
	}
	// The physical database follows the family byte (AppendMetaKey).
	if pdb := uint16(mk[1])<<8 | uint16(mk[2]); int(pdb) < len(c.complete) {
		c.complete[pdb].Store(false)
	}
}

// fill caches what a reader read from the engine, unless a writer changed
// the shard after gen was taken, or held it then.
func (c *keyCache) fill(stripe uint16, gen uint64, mk, raw []byte, found bool) {
	sh := &c.shards[stripe]
	sh.mu.Lock()
	if sh.gen == gen && gen%2 == 0 {
		c.putLocked(sh, mk, raw, found)
	}
	sh.mu.Unlock()
}

// hold marks stripe's shard as written by a commit in flight, before the
// engine applies it: lookups miss, fills are refused (and so are those of
// lookups made before), until release. The caller holds the stripe lock,
// so no other commit holds the shard.
func (c *keyCache) hold(stripe uint16) {
	sh := &c.shards[stripe]
	sh.mu.Lock()
	sh.gen++
	sh.mu.Unlock()
}

// release ends hold: the shard has every record of the commit.
func (c *keyCache) release(stripe uint16) {
	sh := &c.shards[stripe]
	sh.mu.Lock()
	sh.gen++
	sh.mu.Unlock()
}

// put installs a committed record (found false: the key was deleted) in a
// held shard.
func (c *keyCache) put(stripe uint16, mk, raw []byte, found bool) {
	sh := &c.shards[stripe]
	sh.mu.Lock()
	c.putLocked(sh, mk, raw, found)
	sh.mu.Unlock()
}

// store installs a committed record (found false: the key was deleted):
// hold, put and release in one. The caller holds the key's stripe lock.
func (c *keyCache) store(stripe uint16, mk, raw []byte, found bool) {
	sh := &c.shards[stripe]
	sh.mu.Lock()
	sh.gen += 2
	c.putLocked(sh, mk, raw, found)
	sh.mu.Unlock()
}

// drop removes mk's entry from a held shard, after a commit that may or
// may not have applied.
func (c *keyCache) drop(stripe uint16, mk []byte) {
	sh := &c.shards[stripe]
	sh.mu.Lock()
	c.dropLocked(sh, mk)
	sh.mu.Unlock()
}

// forget is drop in a shard not held: hold, drop and release in one.
func (c *keyCache) forget(stripe uint16, mk []byte) {
	sh := &c.shards[stripe]
	sh.mu.Lock()
	sh.gen += 2
	c.dropLocked(sh, mk)
	sh.mu.Unlock()
}

func (c *keyCache) dropLocked(sh *cacheShard, mk []byte) {
	// The commit may have applied: the engine may hold a record the cache
	// does not.
	losing(c, mk)
	if i := sh.t.find(c.keyHash(mk)); i >= 0 && bytes.Equal(sh.t.slots[i].e.key(), mk) {
		sh.bytes -= sh.t.slots[i].e.cost()
		sh.t.deleteAt(i)
	}
}

// clear drops every entry (FLUSHDB, FLUSHALL); no database is held whole
// after it until holdAll says so. A generation moves by two, keeping a
// held shard held.
func (c *keyCache) clear() {
	for i := range c.complete {
		c.complete[i].Store(false)
	}
	for i := range c.shards {
		sh := &c.shards[i]
		sh.mu.Lock()
		sh.gen += 2
		sh.t.clear()
		sh.bytes = 0
		sh.mu.Unlock()
	}
}

func (c *keyCache) putLocked(sh *cacheShard, mk, raw []byte, found bool) {
	h := c.keyHash(mk)
	var e cacheEntry
	i := sh.t.find(h)
	if i >= 0 {
		e = sh.t.slots[i].e
		sh.bytes -= e.cost()
		if e.found && !bytes.Equal(e.key(), mk) {
			// Another key with the same hash: its entry goes.
			losing(c, e.key())
		}
	}
	if len(mk)+len(raw) > c.maxEntry {
		if found {
			losing(c, mk)
		}
		if i >= 0 {
			sh.t.deleteAt(i)
		}
		return
	}
	// Readers copy under the shard lock, so an entry's buffer may be reused.
	if e.buf == nil && cap(sh.spare) >= len(mk)+len(raw) {
		e.buf, sh.spare = sh.spare, nil
	}
	e.buf = append(append(e.buf[:0], mk...), raw...)
	e.klen, e.found = uint32(len(mk)), found
	if i >= 0 {
		sh.t.slots[i].e = e
	} else {
		sh.t.put(h, e)
	}
	sh.bytes += e.cost()
	if sh.bytes <= c.shardBudget {
		return
	}
	// Over budget: drop entries from a random slot on, never the one just
	// stored, which costs O(1) and behaves close to LRU for skewed loads.
	mask := len(sh.t.slots) - 1
	for j := rand.IntN(len(sh.t.slots)); sh.bytes > c.shardBudget && sh.t.n > 1; {
		s := &sh.t.slots[j]
		if s.h == 0 || s.h == h {
			j = (j + 1) & mask
			continue
		}
		if s.e.found {
			// An absent key's entry can go: the key is still absent.
			losing(c, s.e.key())
		}
		sh.bytes -= s.e.cost()
		sh.spare = s.e.buf
		// The slot may take an entry from further on: look at it again.
		sh.t.deleteAt(j)
	}
}
