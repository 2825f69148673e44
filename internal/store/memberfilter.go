package store

import (
	"bytes"
	"hash/maphash"
	"math/bits"
	"sync"
	"sync/atomic"

	"github.com/cairndb/cairn/internal/encoding"
)

// A member filter is a Bloom filter of every member ever written under one
// version of a hash, set or sorted set. Adding a member to such a
// collection first has to learn whether the member is already there (HSET
// and SADD count new ones; ZADD needs the old score), and in Pebble that is
// a point read through the memtables and every level, costly even when it
// finds nothing. A filter answers "never written" for most new members
// without touching the engine.
//
// A filter can only say "never written" truthfully if it saw every write,
// so filters exist only for versions this process created (create): a fresh
// version has nothing on disk, and versions are never reused (the version
// lease outlives restarts and FLUSHALL). From then on, every write of a
// member under the version goes through Tx.set, which adds it. Nothing is
// ever removed from a filter: a deleted member is a false positive, which
// costs the read a filter spares and is otherwise harmless. A collection
// written before the restart, or whose filter was dropped, has none, and
// its writes read the engine as before.
//
// A filter grows in layers, each four times the size of the one before
// (a scalable Bloom filter): a member is added to the newest layer and
// looked for in all. Each layer is an array of 64-bit blocks; a member
// sets filterProbes bits in the one block its hash picks, so a lookup
// costs one cache line per layer. A filter whose layers are all full, or
// that the memory budget cannot hold, is dropped: from then on it answers
// "maybe" for everything, and its version reads the engine.

const (
	// filterBitsPerMember sizes a layer for its capacity: under 0.5% false
	// positives per full layer with filterProbes bits in a 64-bit block
	// (3% with all seven layers full; TestMemberFilterNoFalseNegatives).
	filterBitsPerMember = 16
	filterProbes        = 6
	// A filter's first layer holds filterFirstLayer members; each next
	// one four times as many, up to filterMaxLayers layers (about 700,000
	// members, 1.4 MB).
	filterFirstLayer = 128
	filterMaxLayers  = 7
	// filterOverhead is what a filter costs beyond its blocks, for the
	// budget: the struct, its map entry and its place in the queue.
	filterOverhead = 160
)

// memberFilters holds the filters of the versions that have one, within a
// memory budget: when a new layer does not fit, the oldest filters are
// dropped first (those of collections deleted long ago among them).
type memberFilters struct {
	seed maphash.Seed
	// byVersion is read by every write to a hash, set or sorted set, on
	// every core: lookups take no lock. Filters enter and leave it under
	// mu.
	byVersion sync.Map // uint64 → *memberFilter

	mu sync.Mutex
	// queue holds the filters in creation order from head on; dropped
	// ones stay until they reach the head.
	queue        []*memberFilter
	head         int
	held         int // filters in byVersion
	bytes, limit int64
}

// newMemberFilters returns a registry within limit bytes; nil (no
// filters) when limit is too small to hold one.
func newMemberFilters(limit int64) *memberFilters {
	if limit < filterLayerBytes(0)+filterOverhead {
		return nil
	}
	return &memberFilters{seed: maphash.MakeSeed(), limit: limit}
}

// memberFilter is one version's filter. Only the holder of the lock of
// the key that owns the version reads or adds to it; dropped is also set
// by others (eviction), hence atomic.
type memberFilter struct {
	reg     *memberFilters
	version uint64
	layers  [][]uint64
	// added counts the members added to the newest layer.
	added   int
	bytes   int64
	dropped atomic.Bool
}

// filterLayerCap is how many members layer i holds.
func filterLayerCap(i int) int { return filterFirstLayer << (2 * i) }

// filterLayerBytes is the memory of layer i.
func filterLayerBytes(i int) int64 {
	return int64(filterLayerCap(i)*filterBitsPerMember/64) * 8
}

// hash is a member's hash, from which every layer's block and bits follow.
func (r *memberFilters) hash(member []byte) uint64 { return maphash.Bytes(r.seed, member) }

// create gives a new version a filter; nil when the budget cannot make
// room for it.
func (r *memberFilters) create(version uint64) *memberFilter {
	if r == nil {
		return nil
	}
	f := &memberFilter{reg: r, version: version}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.reserve(f, filterLayerBytes(0)+filterOverhead) {
		return nil
	}
	f.layers = [][]uint64{make([]uint64, filterLayerBytes(0)/8)}
	r.byVersion.Store(version, f)
	r.held++
	r.queue = append(r.queue, f)
	return f
}

// lookup returns version's filter, nil if it has none.
func (r *memberFilters) lookup(version uint64) *memberFilter {
	if r == nil {
		return nil
	}
	f, _ := r.byVersion.Load(version)
	mf, _ := f.(*memberFilter)
	return mf
}

// reserve accounts n more bytes to f, dropping the oldest other filters
// while they do not fit. It fails, dropping nothing more, when f itself is
// the oldest left. r.mu is held.
func (r *memberFilters) reserve(f *memberFilter, n int64) bool {
	for r.bytes+n > r.limit {
		if r.head == len(r.queue) {
			return false
		}
		old := r.queue[r.head]
		if old == f {
			return false
		}
		r.queue[r.head] = nil
		r.head++
		r.forget(old)
	}
	if r.head > 1024 && r.head*2 > len(r.queue) {
		r.queue = append(r.queue[:0], r.queue[r.head:]...)
		r.head = 0
	}
	r.bytes += n
	f.bytes += n
	return true
}

// forget drops f and returns its memory to the budget. r.mu is held.
func (r *memberFilters) forget(f *memberFilter) {
	if f.dropped.Swap(true) {
		return
	}
	if r.byVersion.CompareAndDelete(f.version, f) {
		r.held--
	}
	r.bytes -= f.bytes
	f.bytes = 0
}

// dropOwn is forget for the filter's holder (the key's lock is held), which
// also lets its layers go: the filter stays in the queue until the oldest-
// first eviction reaches it, and its memory, already returned to the
// budget, must not stay taken meanwhile. Eviction by anyone else cannot
// clear them, since the holder may be reading them; it takes the filter
// off the queue instead. r.mu is held.
func (r *memberFilters) dropOwn(f *memberFilter) {
	r.forget(f)
	f.layers = nil
}

// MemberFilterUsage reports how many member filters the store holds and
// their memory.
func (s *Store) MemberFilterUsage() (filters int, bytes int64) { return s.filters.usage() }

// usage reports the filters held and their memory.
func (r *memberFilters) usage() (filters int, bytes int64) {
	if r == nil {
		return 0, 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.held, r.bytes
}

// block returns the block a hash picks in a layer of n blocks, and the
// bits it sets there.
func filterBlock(h uint64, n int) (int, uint64) {
	i, _ := bits.Mul64(h, uint64(n))
	x := h * 0x9e3779b97f4a7c15
	var mask uint64
	for range filterProbes {
		mask |= 1 << (x >> 58)
		x <<= 6
	}
	return int(i), mask
}

// mayHold reports whether a member with hash h may have been written:
// false means certainly not.
func (f *memberFilter) mayHold(h uint64) bool {
	if f.dropped.Load() {
		return true
	}
	for _, l := range f.layers {
		i, mask := filterBlock(h, len(l))
		if l[i]&mask == mask {
			return true
		}
	}
	return false
}

// add records a member with hash h, growing a layer when the newest is
// full; a filter that cannot grow is dropped.
func (f *memberFilter) add(h uint64) {
	if f.dropped.Load() {
		return
	}
	n := len(f.layers)
	if f.added == filterLayerCap(n-1) {
		if !f.grow() {
			return
		}
		n++
	}
	l := f.layers[n-1]
	i, mask := filterBlock(h, len(l))
	l[i] |= mask
	f.added++
}

// grow adds a layer, or drops the filter when it has all its layers or
// the budget has no room.
func (f *memberFilter) grow() bool {
	r := f.reg
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(f.layers)
	if n == filterMaxLayers || f.dropped.Load() || !r.reserve(f, filterLayerBytes(n)) {
		r.dropOwn(f)
		return false
	}
	f.layers = append(f.layers, make([]uint64, filterLayerBytes(n)/8))
	f.added = 0
	return true
}

// filtered reports whether collections of type t get member filters: the
// types whose writes look members up before writing them.
func filtered(t encoding.Type) bool {
	return t == encoding.TypeHash || t == encoding.TypeSet || t == encoding.TypeZSet || t == encoding.TypeSortedint
}

// memberFilter returns the filter of c's current version, nil if it has
// none. The answer is kept in c until its version changes.
func (tx *Tx) memberFilter(c *collection) *memberFilter {
	if c.filterVersion != c.Meta.Version {
		c.filterVersion = c.Meta.Version
		c.filter = nil
		if c.Meta.Version != 0 && filtered(c.Meta.Type) {
			c.filter = tx.s.filters.lookup(c.Meta.Version)
		}
	}
	return c.filter
}

// mayHold reports whether member may be in c; false means it certainly is
// not, and reading it from the engine can be skipped. c's key is locked.
func (tx *Tx) mayHold(c *collection, member []byte) bool {
	f := tx.memberFilter(c)
	if (f == nil || f.mayHold(tx.s.filters.hash(member))) && !tx.knownAbsent(c, member) {
		return true
	}
	tx.s.stats.FilteredReads.Add(1)
	return false
}

// filterCreate gives c, just given a fresh version, a filter if its type
// has them.
func (tx *Tx) filterCreate(c *collection) {
	c.filterVersion, c.filter = c.Meta.Version, nil
	if filtered(c.Meta.Type) {
		c.filter = tx.s.filters.create(c.Meta.Version)
	}
}

// filterAdd records the write of record k of c in c's filter, when k is a
// member's record and c has one.
func (tx *Tx) filterAdd(c *collection, k []byte) {
	f := tx.memberFilter(c)
	if f == nil || len(k) == 0 || encoding.Family(k[0]) != encoding.FamilySub {
		return
	}
	p := c.Prefix(encoding.FamilySub)
	if !bytes.HasPrefix(k, p) {
		// Not a member of this version: the filter can no longer vouch
		// for what it has seen.
		f.reg.mu.Lock()
		f.reg.dropOwn(f)
		f.reg.mu.Unlock()
		return
	}
	f.add(tx.s.filters.hash(k[len(p):]))
}

// hasMember reports whether member, whose record is k, is in c, reading
// the engine only when c's filter cannot rule it out.
func (tx *Tx) hasMember(c *collection, k, member []byte) (bool, error) {
	if !tx.mayHold(c, member) {
		return false, nil
	}
	_, found, err := tx.get(k)
	return found, err
}
