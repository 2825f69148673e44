package store

import (
	"bytes"
	"container/heap"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/cairndb/cairn/internal/encoding"
	"github.com/cairndb/cairn/internal/engine"
	"github.com/cairndb/cairn/internal/glob"
	"github.com/cairndb/cairn/internal/notify"
	"github.com/cairndb/cairn/internal/rconv"
)

// Sets keep one sub-key per member with an empty value (docs/encoding.md):
//
//	0x02 | db | slot | len(key) | key | version | member → (empty)
//
// so members are in byte order, SISMEMBER is one point read, SCARD is the
// metadata's size, and everything else is a range or a seek inside the
// set's prefix.

// setReadAll is the size up to which SRANDMEMBER (and SPOP with a count)
// read the whole set and draw from it exactly; bigger sets are sampled (see
// setSampler). SPOP without a count draws from a batch (see setPopNext).
const setReadAll = 512

// setReadAllDraws is the size up to which SRANDMEMBER with a negative count
// of at least an eighth of the set reads it whole into memory rather than
// sampling each draw.
const setReadAllDraws = 1 << 20

func (tx *Tx) openSet(db int, key []byte) (*collection, error) {
	return tx.openCollection(db, key, encoding.TypeSet)
}

// setPin makes a read-only Tx read from one snapshot from here on. A reply
// whose length comes from the metadata (SMEMBERS, SRANDMEMBER) must match
// the members read after it, even if a writer commits in between; a writing
// Tx already has that from its locks.
func (tx *Tx) setPin() {
	if tx.b != nil || tx.snap != nil {
		return
	}
	tx.pinView()
}

// setKeyBuf builds sub-keys of c in a buffer reused across members.
type setKeyBuf struct {
	prefix []byte
	buf    []byte
}

func newSetKeyBuf(c *collection) setKeyBuf { return setKeyBuf{prefix: c.Prefix(encoding.FamilySub)} }

func (b *setKeyBuf) key(member []byte) []byte {
	b.buf = append(append(b.buf[:0], b.prefix...), member...)
	return b.buf
}

// setArena copies members into shared blocks, so that a result of many
// small members costs a few allocations instead of one per member.
type setArena struct {
	buf []byte
	out [][]byte
}

func (a *setArena) add(m []byte) {
	if cap(a.buf)-len(a.buf) < len(m) {
		a.buf = make([]byte, 0, max(32<<10, len(m)))
	}
	n := len(a.buf)
	a.buf = append(a.buf, m...)
	a.out = append(a.out, a.buf[n:len(a.buf):len(a.buf)])
}

// --- Members --------------------------------------------------------------

// SAdd adds members to a set, creating it, and returns how many were new.
func (tx *Tx) SAdd(db int, key []byte, members [][]byte) (int64, error) {
	c, err := tx.openSet(db, key)
	if err != nil {
		return 0, err
	}
	fresh := !c.Exists
	if err := tx.create(c); err != nil {
		return 0, err
	}
	kb := newSetKeyBuf(c)
	var ends setEnds
	if !fresh {
		ends = tx.watchSetEnds(c)
		defer ends.done()
	}
	var added int64
	var seen map[string]struct{}
	if fresh && len(members) > 1 {
		seen = make(map[string]struct{}, len(members))
	}
	for _, m := range members {
		k := kb.key(m)
		if fresh {
			// A new version has nothing on disk: only repeats among the
			// arguments need catching, without reading.
			if seen != nil {
				if _, dup := seen[string(m)]; dup {
					continue
				}
				seen[string(m)] = struct{}{}
			}
		} else if found, err := tx.hasMember(c, k, m); err != nil {
			return 0, err
		} else if found {
			continue
		}
		if err := tx.set(c, k, nil); err != nil {
			return 0, err
		}
		ends.touched(m)
		added++
	}
	if added == 0 {
		return 0, nil
	}
	if !fresh {
		tx.s.setPops.drop(kb.prefix)
	}
	c.Meta.Size += uint64(added)
	return added, tx.save(c)
}

// SRem removes members from a set and returns how many were there. A set
// left empty is deleted.
func (tx *Tx) SRem(db int, key []byte, members [][]byte) (int64, error) {
	c, err := tx.openSet(db, key)
	if err != nil || !c.Exists {
		return 0, err
	}
	kb := newSetKeyBuf(c)
	ends := tx.watchSetEnds(c)
	defer ends.done()
	var removed int64
	for _, m := range members {
		k := kb.key(m)
		// The batch reads its own deletes, so a repeated argument is
		// found only once.
		found, err := tx.hasMember(c, k, m)
		if err != nil {
			return 0, err
		}
		if !found {
			continue
		}
		if err := tx.del(c, k); err != nil {
			return 0, err
		}
		ends.touched(m)
		removed++
	}
	if removed == 0 {
		return 0, nil
	}
	tx.s.setPops.drop(kb.prefix)
	c.Meta.Size -= uint64(removed)
	return removed, tx.save(c)
}

// SIsMember reports whether member is in the set.
func (tx *Tx) SIsMember(db int, key, member []byte) (bool, error) {
	c, err := tx.openSet(db, key)
	if err != nil || !c.Exists {
		return false, err
	}
	_, found, err := tx.get(c.SubKey(member))
	return found, err
}

// SMIsMember reports, for each member, whether it is in the set.
func (tx *Tx) SMIsMember(db int, key []byte, members [][]byte) ([]bool, error) {
	out := make([]bool, len(members))
	c, err := tx.openSet(db, key)
	if err != nil || !c.Exists {
		return out, err
	}
	kb := newSetKeyBuf(c)
	for i, m := range members {
		if _, out[i], err = tx.get(kb.key(m)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// SCard returns the number of members of a set (0 when absent).
func (tx *Tx) SCard(db int, key []byte) (int64, error) {
	c, err := tx.openSet(db, key)
	if err != nil || !c.Exists {
		return 0, err
	}
	return int64(c.Meta.Size), nil
}

// SMembers calls size with the number of members of a set (0 when absent),
// then each with every member in byte order. Members stream from one
// snapshot, never all in memory; each's argument is valid only during the
// call.
func (tx *Tx) SMembers(db int, key []byte, size func(n int64), each func(member []byte)) error {
	tx.setPin()
	c, err := tx.openSet(db, key)
	if err != nil {
		return err
	}
	if !c.Exists {
		size(0)
		return nil
	}
	size(int64(c.Meta.Size))
	n, err := tx.setEach(c, func(m []byte) bool { each(m); return true })
	if err == nil && n != c.Meta.Size {
		err = fmt.Errorf("set %q: size %d, %d members: %w", key, c.Meta.Size, n, encoding.ErrCorrupt)
	}
	return err
}

// setEach calls fn with every member of c in byte order until it returns
// false, and returns how many members it visited.
func (tx *Tx) setEach(c *collection, fn func(m []byte) bool) (uint64, error) {
	it, err := tx.iter(c, encoding.FamilySub, nil, nil)
	if err != nil {
		return 0, err
	}
	p := len(c.Prefix(encoding.FamilySub))
	var n uint64
	for ok := it.First(); ok; ok = it.Next() {
		n++
		if !fn(it.Key()[p:]) {
			break
		}
	}
	if err := it.Error(); err != nil {
		_ = it.Close()
		return n, err
	}
	return n, it.Close()
}

// setAll returns every member of c, in byte order.
func (tx *Tx) setAll(c *collection) ([][]byte, error) {
	a := setArena{out: make([][]byte, 0, c.Meta.Size)}
	_, err := tx.setEach(c, func(m []byte) bool { a.add(m); return true })
	return a.out, err
}

// SMove moves member from the set src to the set dst and reports whether
// it was in src. As in Redis, an absent src answers false before dst's
// type is checked, and src == dst only checks membership.
func (tx *Tx) SMove(db int, src, dst, member []byte) (bool, error) {
	s, err := tx.openSet(db, src)
	if err != nil || !s.Exists {
		return false, err
	}
	d, err := tx.openSet(db, dst)
	if err != nil {
		return false, err
	}
	sk := s.SubKey(member)
	found, err := tx.hasMember(s, sk, member)
	if err != nil || !found || bytes.Equal(src, dst) {
		return found, err
	}
	if err := tx.del(s, sk); err != nil {
		return false, err
	}
	srcEnds := tx.watchSetEnds(s)
	srcEnds.touched(member)
	srcEnds.done()
	tx.s.setPops.drop(s.Prefix(encoding.FamilySub))
	s.Meta.Size--
	if err := tx.save(s); err != nil {
		return false, err
	}
	// Redis reports the source's events before it creates the
	// destination ("new" comes from putMeta).
	tx.Notify(notify.Set, "srem", db, src)
	if s.Meta.Size == 0 {
		tx.Notify(notify.Generic, "del", db, src)
	}
	if err := tx.create(d); err != nil {
		return false, err
	}
	dk := d.SubKey(member)
	found, err = tx.hasMember(d, dk, member)
	if err != nil {
		return false, err
	}
	if found {
		// A member already in dst leaves dst untouched: Redis 7 signals
		// it (WATCH, tracking) and sends "sadd" only when it added to it.
		return true, nil
	}
	if d.Exists {
		dstEnds := tx.watchSetEnds(d)
		dstEnds.touched(member)
		dstEnds.done()
		tx.s.setPops.drop(d.Prefix(encoding.FamilySub))
	}
	if err := tx.set(d, dk, nil); err != nil {
		return false, err
	}
	d.Meta.Size++
	if err := tx.save(d); err != nil {
		return false, err
	}
	tx.Notify(notify.Set, "sadd", db, dst)
	return true, nil
}

// --- Intersection, union, difference -------------------------------------

type setOp uint8

const (
	setOpInter setOp = iota
	setOpUnion
	setOpDiff
)

// setSources opens every key as a set. Like Redis 7 it checks the type of
// every key, even after an absent one has already decided the result; an
// absent key is a nil entry.
func (tx *Tx) setSources(db int, keys [][]byte) ([]*collection, error) {
	out := make([]*collection, len(keys))
	for i, k := range keys {
		c, err := tx.openSet(db, k)
		if err != nil {
			return nil, err
		}
		if c.Exists {
			out[i] = c
		}
	}
	return out, nil
}

// setDistinct drops repeated keys (the same set twice), keeping order, in
// O(n) time: a set of seen keys, not a scan of those kept (issue 18: SUNION
// of 60k keys took 15 s).
func setDistinct(srcs []*collection) []*collection {
	out := srcs[:0:0]
	seen := make(map[string]struct{}, len(srcs))
	for _, c := range srcs {
		if c != nil {
			if _, dup := seen[string(c.key)]; dup {
				continue
			}
			seen[string(c.key)] = struct{}{}
		}
		out = append(out, c)
	}
	return out
}

// setCombine calls emit with each member of op over srcs (nil: an empty
// set) until it returns false. Intersection walks the smallest set and
// probes the others with point reads; difference walks the first and
// probes the others; union merges the sets in byte order. emit's argument
// is valid only during the call. The sets are read through iterators opened
// before any emit, so emit may write (a *STORE destination that is also a
// source is written under a new version, which the reads never see).
func (tx *Tx) setCombine(op setOp, srcs []*collection, emit func(m []byte) (bool, error)) error {
	switch op {
	case setOpInter:
		if slices.Contains(srcs, nil) {
			return nil
		}
		srcs = setDistinct(srcs)
		slices.SortStableFunc(srcs, func(a, b *collection) int {
			return cmpUint64(a.Meta.Size, b.Meta.Size)
		})
		return tx.setProbe(srcs[0], srcs[1:], true, emit)
	case setOpDiff:
		first := srcs[0]
		if first == nil {
			return nil
		}
		var others []*collection
		for _, c := range setDistinct(srcs[1:]) {
			if c == nil {
				continue
			}
			if bytes.Equal(c.key, first.key) {
				return nil // a set minus itself
			}
			others = append(others, c)
		}
		return tx.setProbe(first, others, false, emit)
	default:
		var live []*collection
		for _, c := range setDistinct(srcs) {
			if c != nil {
				live = append(live, c)
			}
		}
		return tx.setMerge(live, emit)
	}
}

func cmpUint64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// setProbe walks base and emits each member found in all others (inAll)
// or in none of them (!inAll).
func (tx *Tx) setProbe(base *collection, others []*collection, inAll bool, emit func(m []byte) (bool, error)) error {
	kbs := make([]setKeyBuf, len(others))
	for i, o := range others {
		kbs[i] = newSetKeyBuf(o)
	}
	it, err := tx.iter(base, encoding.FamilySub, nil, nil)
	if err != nil {
		return err
	}
	defer it.Close()
	p := len(base.Prefix(encoding.FamilySub))
	for ok := it.First(); ok; ok = it.Next() {
		m := it.Key()[p:]
		keep := true
		for i := range others {
			_, found, err := tx.get(kbs[i].key(m))
			if err != nil {
				return err
			}
			if found != inAll {
				keep = false
				break
			}
		}
		if !keep {
			continue
		}
		more, err := emit(m)
		if err != nil || !more {
			return err
		}
	}
	return it.Error()
}

// setCursor is one set's iterator in a union's merge.
type setCursor struct {
	it engine.Iterator
	p  int
}

func (c *setCursor) member() []byte { return c.it.Key()[c.p:] }

// setHeap orders the union's cursors by their current member.
type setHeap []*setCursor

func (h setHeap) Len() int           { return len(h) }
func (h setHeap) Less(i, j int) bool { return bytes.Compare(h[i].member(), h[j].member()) < 0 }
func (h setHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *setHeap) Push(x any)        { *h = append(*h, x.(*setCursor)) }
func (h *setHeap) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	return c
}

// mergeFanIn is the most sets setMerge merges through open iterators; a
// union of more reads the sets one at a time and sorts what it gathered,
// rather than hold an engine iterator per set (100k of them cost more
// than the members they read).
const mergeFanIn = 64

// setMerge emits the union of srcs in byte order, each member once, with
// no memory beyond one iterator per set (up to mergeFanIn sets).
func (tx *Tx) setMerge(srcs []*collection, emit func(m []byte) (bool, error)) error {
	if len(srcs) > mergeFanIn {
		return tx.setGatherUnion(srcs, emit)
	}
	h := make(setHeap, 0, len(srcs))
	defer func() {
		for _, c := range h {
			_ = c.it.Close()
		}
	}()
	for _, c := range srcs {
		it, err := tx.iter(c, encoding.FamilySub, nil, nil)
		if err != nil {
			return err
		}
		cur := &setCursor{it: it, p: len(c.Prefix(encoding.FamilySub))}
		if !it.First() {
			err := it.Error()
			_ = it.Close()
			if err != nil {
				return err
			}
			continue
		}
		h = append(h, cur)
	}
	heap.Init(&h)
	var last []byte
	for len(h) > 0 {
		top := h[0]
		m := top.member()
		if last == nil || !bytes.Equal(m, last) {
			last = append(last[:0], m...)
			if last == nil {
				last = []byte{}
			}
			more, err := emit(m)
			if err != nil || !more {
				return err
			}
		}
		if top.it.Next() {
			heap.Fix(&h, 0)
			continue
		}
		if err := top.it.Error(); err != nil {
			return err
		}
		_ = top.it.Close()
		heap.Pop(&h)
	}
	return nil
}

// setGatherUnion is setMerge for many sets: it reads every set whole, one
// after the other, then sorts and emits the distinct members. Every read
// is done before the first emit, so emit may write.
func (tx *Tx) setGatherUnion(srcs []*collection, emit func(m []byte) (bool, error)) error {
	var a setArena
	for _, c := range srcs {
		it, err := tx.iter(c, encoding.FamilySub, nil, nil)
		if err != nil {
			return err
		}
		p := len(c.Prefix(encoding.FamilySub))
		for ok := it.First(); ok; ok = it.Next() {
			a.add(it.Key()[p:])
		}
		if err := errors.Join(it.Error(), it.Close()); err != nil {
			return err
		}
	}
	slices.SortFunc(a.out, bytes.Compare)
	for i, m := range a.out {
		if i > 0 && bytes.Equal(m, a.out[i-1]) {
			continue
		}
		more, err := emit(m)
		if err != nil || !more {
			return err
		}
	}
	return nil
}

// setCollect runs op over keys and returns the resulting members.
func (tx *Tx) setCollect(db int, op setOp, keys [][]byte) ([][]byte, error) {
	srcs, err := tx.setSources(db, keys)
	if err != nil {
		return nil, err
	}
	var a setArena
	err = tx.setCombine(op, srcs, func(m []byte) (bool, error) { a.add(m); return true, nil })
	return a.out, err
}

// SInter returns the members common to every set (none if any is absent).
func (tx *Tx) SInter(db int, keys [][]byte) ([][]byte, error) {
	return tx.setCollect(db, setOpInter, keys)
}

// SUnion returns the members of any of the sets, in byte order.
func (tx *Tx) SUnion(db int, keys [][]byte) ([][]byte, error) {
	return tx.setCollect(db, setOpUnion, keys)
}

// SDiff returns the members of the first set that are in none of the
// others, in byte order.
func (tx *Tx) SDiff(db int, keys [][]byte) ([][]byte, error) {
	return tx.setCollect(db, setOpDiff, keys)
}

// SInterCard returns the size of the intersection of the sets, counting no
// further than limit when limit > 0.
func (tx *Tx) SInterCard(db int, keys [][]byte, limit int64) (int64, error) {
	// SINTERCARD's keys follow numkeys, so its spec has no legacy key range
	// and dispatch gives it a plain reader: pin one view for all the sets.
	tx.setPin()
	srcs, err := tx.setSources(db, keys)
	if err != nil {
		return 0, err
	}
	var n int64
	err = tx.setCombine(setOpInter, srcs, func([]byte) (bool, error) {
		n++
		return limit <= 0 || n < limit, nil
	})
	return n, err
}

// SInterStore, SUnionStore and SDiffStore store the result of SINTER,
// SUNION or SDIFF over keys in dst, replacing whatever dst held (of any
// type, its deadline included), and return its size. An empty result
// deletes dst. dst may be one of the keys: the result is written under a
// new version while the sources are read under theirs.
func (tx *Tx) SInterStore(db int, dst []byte, keys [][]byte) (int64, error) {
	return tx.setStore(db, dst, setOpInter, keys)
}

// SUnionStore: see SInterStore.
func (tx *Tx) SUnionStore(db int, dst []byte, keys [][]byte) (int64, error) {
	return tx.setStore(db, dst, setOpUnion, keys)
}

// SDiffStore: see SInterStore.
func (tx *Tx) SDiffStore(db int, dst []byte, keys [][]byte) (int64, error) {
	return tx.setStore(db, dst, setOpDiff, keys)
}

func (tx *Tx) setStore(db int, dst []byte, op setOp, keys [][]byte) (int64, error) {
	srcs, err := tx.setSources(db, keys)
	if err != nil {
		return 0, err
	}
	if err := tx.checkWrite(dst); err != nil {
		return 0, err
	}
	d := &collection{db: db, pdb: tx.s.phys(db), key: dst, Meta: encoding.Meta{Type: encoding.TypeSet}}
	if err := tx.create(d); err != nil {
		return 0, err
	}
	kb := newSetKeyBuf(d)
	err = tx.setCombine(op, srcs, func(m []byte) (bool, error) {
		d.Meta.Size++
		return true, tx.set(d, kb.key(m), nil)
	})
	if err != nil {
		return 0, err
	}
	if d.Meta.Size == 0 {
		_, err := tx.deleteKey(db, dst)
		return 0, err
	}
	return int64(d.Meta.Size), tx.putMeta(db, dst, &d.Meta)
}

// --- SPOP and SRANDMEMBER --------------------------------------------------

// SPop removes and returns a random member of a set; found is false when
// the set is absent.
func (tx *Tx) SPop(db int, key []byte) ([]byte, bool, error) {
	c, err := tx.openSet(db, key)
	if err != nil || !c.Exists {
		return nil, false, err
	}
	var m []byte
	switch {
	case c.Meta.Size <= setPopScanMax:
		if m, err = tx.setPopNext(c); err != nil {
			return nil, false, err
		}
	default:
		s, err := tx.newSetSampler(c)
		if err != nil {
			return nil, false, err
		}
		m, err = s.draw()
		s.close()
		if err != nil {
			return nil, false, err
		}
	}
	if err := tx.del(c, c.SubKey(m)); err != nil {
		return nil, false, err
	}
	ends := tx.watchSetEnds(c)
	ends.touched(m)
	ends.done()
	c.Meta.Size--
	return m, true, tx.save(c)
}

// SPOP on a set of up to setPopScanMax members draws exactly, not with
// the sampler: one scan of the set picks a batch of k members uniformly
// without replacement (selection sampling, Knuth's Algorithm S) in random
// order, and the next SPOPs take them in turn. Taking the members of a
// uniform random subset in random order is drawing uniformly without
// replacement, so this stays exact as long as nothing else changes the
// set's members: every other write that adds or removes one (SADD, SREM,
// SMOVE, SPOP with a count) drops the batch, so a member in a batch is
// always in the set. The scan costs about n/k steps per pop instead of the
// sampler's seeks, which step over the tombstones earlier pops left: from
// 100,800 members down to none, 3.5 µs a pop against 12.2 µs with the
// sampler above 65,536 (BenchmarkSPopDrain/big-to-empty). The one SPOP in k
// that scans holds the key for it (about 5ms at 65,536 members, 10 at the
// limit). A batch is only used under the key's
// lock, by SPOP: no reader sees it. If a commit fails after SPOP took a
// member, that member stays in the set but out of the batch until the
// next scan.
const (
	setPopScanMax  = 1 << 17
	setPopBatchMax = 1 << 16
	// setPopBatchBytes bounds a batch's memory (estimated from the
	// smallest member's length), and setPopsKept the number kept: 16 MB at
	// most. With more sets than that popped in turn, batches are evicted
	// before they are used up and SPOP scans more often.
	setPopBatchBytes = 1 << 20
	setPopsKept      = 16
)

// setPopBatch is a set's next members for SPOP.
type setPopBatch struct {
	members [][]byte
	next    int
}

// setPopCache keeps a store's SPOP batches of up to setPopsKept sets
// (Store.setPops). One map rather than shards: a shard's few places would
// thrash among a handful of sets.
type setPopCache struct {
	mu sync.Mutex
	m  map[string]*setPopBatch
}

// take removes and returns the batch of the set with sub-key prefix
// prefix, or nil.
func (c *setPopCache) take(prefix []byte) *setPopBatch {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[string(prefix)]
	if !ok {
		return nil
	}
	delete(c.m, string(prefix))
	return e
}

// put keeps a batch, evicting another at random if the cache is full.
func (c *setPopCache) put(prefix []byte, b *setPopBatch) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[string]*setPopBatch, setPopsKept)
	}
	if _, ok := c.m[string(prefix)]; !ok && len(c.m) >= setPopsKept {
		for k := range c.m {
			delete(c.m, k)
			break
		}
	}
	c.m[string(prefix)] = b
}

// drop forgets the batch of a set whose members changed.
func (c *setPopCache) drop(prefix []byte) {
	_ = c.take(prefix)
}

// setPopNext chooses the member SPOP removes from c, a set of at most
// setPopScanMax members, from its batch. A small set's batch is all of it
// in random order: walking to a random rank on every pop instead would step
// over the tombstones of every member popped before, which stay in the
// memtable until it is flushed, so draining a set would cost quadratic time.
func (tx *Tx) setPopNext(c *collection) ([]byte, error) {
	prefix := c.Prefix(encoding.FamilySub)
	b := tx.s.setPops.take(prefix)
	if b == nil {
		var err error
		if b, err = tx.setPopSample(c); err != nil {
			return nil, err
		}
	}
	m := b.members[b.next]
	b.next++
	if b.next < len(b.members) {
		tx.s.setPops.put(prefix, b)
	}
	return m, nil
}

// setPopSample scans c for a new batch: k members drawn uniformly without
// replacement, in random order.
func (tx *Tx) setPopSample(c *collection) (*setPopBatch, error) {
	it, err := tx.iter(c, encoding.FamilySub, nil, nil)
	if err != nil {
		return nil, err
	}
	defer it.Close()
	p := len(c.Prefix(encoding.FamilySub))
	n := c.Meta.Size
	ok := it.First()
	if !ok {
		if err := it.Error(); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("set %q: size %d but no members: %w", c.key, n, encoding.ErrCorrupt)
	}
	k := max(1, min(n, setPopBatchMax, uint64(setPopBatchBytes/(len(it.Key())-p+16))))
	a := setArena{out: make([][]byte, 0, k)}
	for seen := uint64(0); ok && uint64(len(a.out)) < k; ok, seen = it.Next(), seen+1 {
		if seen == n {
			return nil, fmt.Errorf("set %q: more members than its size %d: %w", c.key, n, encoding.ErrCorrupt)
		}
		// Select with probability (members still wanted) / (members
		// not yet seen): every k-subset is equally likely.
		if rand.Uint64N(n-seen) < k-uint64(len(a.out)) {
			a.add(it.Key()[p:])
		}
	}
	if err := it.Error(); err != nil {
		return nil, err
	}
	if uint64(len(a.out)) < k {
		return nil, fmt.Errorf("set %q: fewer members than its size %d: %w", c.key, n, encoding.ErrCorrupt)
	}
	rand.Shuffle(len(a.out), func(i, j int) { a.out[i], a.out[j] = a.out[j], a.out[i] })
	return &setPopBatch{members: a.out}, nil
}

// SPopCount removes and returns up to count random distinct members of a
// set (all of them, and the key, when count is at least its size). The
// work per popped member is bounded: a big set gives up its members one
// sample at a time, and a set read whole is one at most 1.2 times the
// count.
func (tx *Tx) SPopCount(db int, key []byte, count int64) ([][]byte, error) {
	c, err := tx.openSet(db, key)
	if err != nil || !c.Exists || count <= 0 {
		return nil, err
	}
	n := c.Meta.Size
	k := uint64(count)
	// The members this pops leave SPOP's batch, if any, unreliable.
	tx.s.setPops.drop(c.Prefix(encoding.FamilySub))
	if k >= n {
		all, err := tx.setAll(c)
		if err != nil {
			return nil, err
		}
		_, err = tx.deleteKey(db, key)
		return all, err
	}
	remaining := n - k
	if n <= setReadAll || remaining*5 <= k {
		// Redis's SPOP_MOVE_STRATEGY_MUL: when few members stay, reading
		// them all is cheaper than sampling, and exact.
		all, err := tx.setAll(c)
		if err != nil {
			return nil, err
		}
		setShuffleFront(all, int(k))
		popped, kept := all[:k], all[k:]
		if remaining < k {
			// Rewrite the few members that stay under a new version and
			// drop the old one with one range tombstone, rather than
			// writing a tombstone per popped member.
			v, err := tx.newVersion()
			if err != nil {
				return nil, err
			}
			c.Meta.Version = v
			c.forgetPrefixes()
			kb := newSetKeyBuf(c)
			for _, m := range kept {
				if err := tx.set(c, kb.key(m), nil); err != nil {
					return nil, err
				}
			}
		} else {
			kb := newSetKeyBuf(c)
			ends := tx.watchSetEnds(c)
			for _, m := range popped {
				if err := tx.del(c, kb.key(m)); err != nil {
					return nil, err
				}
				ends.touched(m)
			}
			ends.done()
		}
		c.Meta.Size = remaining
		return popped, tx.save(c)
	}
	s, err := tx.newSetSampler(c)
	if err != nil {
		return nil, err
	}
	defer s.close()
	s.exclude = make(map[string]struct{}, k)
	kb := newSetKeyBuf(c)
	ends := tx.watchSetEnds(c)
	defer ends.done()
	out := make([][]byte, 0, k)
	for range k {
		m, err := s.draw()
		if err != nil {
			return nil, err
		}
		// The sampler's iterator predates these deletes; exclude keeps
		// it from drawing a member twice.
		s.exclude[string(m)] = struct{}{}
		if err := tx.del(c, kb.key(m)); err != nil {
			return nil, err
		}
		ends.touched(m)
		out = append(out, m)
	}
	c.Meta.Size = remaining
	return out, tx.save(c)
}

// SRandMember returns a random member of a set; found is false when the
// set is absent.
func (tx *Tx) SRandMember(db int, key []byte) ([]byte, bool, error) {
	c, err := tx.openSet(db, key)
	if err != nil || !c.Exists {
		return nil, false, err
	}
	if c.Meta.Size <= setReadAll {
		m, err := tx.setAtRank(c, rand.Uint64N(c.Meta.Size))
		return m, err == nil, err
	}
	s, err := tx.newSetSampler(c)
	if err != nil {
		return nil, false, err
	}
	defer s.close()
	m, err := s.draw()
	return m, err == nil, err
}

// SRandMembers draws count members of a set: distinct ones (at most the
// set's size) when distinct, else count independent draws. It calls size
// with the number of members that follow (0 when the set is absent), then
// each with every member drawn, stopping early if each returns false (the
// client went away; a count of -LONG_MAX never ends otherwise). Draws are
// exact for sets read whole and sampled otherwise (see setSampler).
func (tx *Tx) SRandMembers(db int, key []byte, count uint64, distinct bool, size func(n uint64), each func(member []byte) bool) error {
	tx.setPin()
	c, err := tx.openSet(db, key)
	if err != nil {
		return err
	}
	if !c.Exists || count == 0 {
		size(0)
		return nil
	}
	n := c.Meta.Size
	if distinct && count >= n {
		size(n)
		stopped := false
		got, err := tx.setEach(c, func(m []byte) bool {
			stopped = !each(m)
			return !stopped
		})
		if err == nil && !stopped && got != n {
			err = fmt.Errorf("set %q: size %d, %d members: %w", key, n, got, encoding.ErrCorrupt)
		}
		return err
	}
	// Reading the set whole costs at most a few reads per member drawn
	// (Redis's SRANDMEMBER_SUB_STRATEGY_MUL is 3 for distinct draws), and
	// the draws are then exact.
	if n <= setReadAll || (distinct && count*3 > n) || (!distinct && count >= n/8 && n <= setReadAllDraws) {
		all, err := tx.setAll(c)
		if err != nil {
			return err
		}
		if uint64(len(all)) != n {
			return fmt.Errorf("set %q: size %d, %d members: %w", key, n, len(all), encoding.ErrCorrupt)
		}
		size(count)
		if distinct {
			setShuffleFront(all, int(count))
			for _, m := range all[:count] {
				if !each(m) {
					return nil
				}
			}
			return nil
		}
		for range count {
			if !each(all[rand.IntN(len(all))]) {
				return nil
			}
		}
		return nil
	}
	s, err := tx.newSetSampler(c)
	if err != nil {
		return err
	}
	defer s.close()
	if distinct {
		s.exclude = make(map[string]struct{}, count)
	}
	size(count)
	for range count {
		m, err := s.draw()
		if err != nil {
			return err
		}
		if distinct {
			s.exclude[string(m)] = struct{}{}
		}
		if !each(m) {
			return nil
		}
	}
	return nil
}

// setShuffleFront moves k members chosen uniformly at random to the front
// of all, in random order (a partial Fisher-Yates shuffle).
func setShuffleFront(all [][]byte, k int) {
	for i := range min(k, len(all)) {
		j := i + rand.IntN(len(all)-i)
		all[i], all[j] = all[j], all[i]
	}
}

// setAtRank returns a copy of the member at rank r (0-based, byte order)
// of a set, walking to it: for sets of at most setReadAll members.
func (tx *Tx) setAtRank(c *collection, r uint64) ([]byte, error) {
	var m []byte
	var i uint64
	_, err := tx.setEach(c, func(b []byte) bool {
		if i == r {
			m = bytes.Clone(b)
			if m == nil {
				m = []byte{}
			}
			return false
		}
		i++
		return true
	})
	if err == nil && m == nil {
		err = fmt.Errorf("set %q: no member at rank %d of %d: %w", c.key, r, c.Meta.Size, encoding.ErrCorrupt)
	}
	return m, err
}

// --- Sampling a big set ---------------------------------------------------
//
// The layout has no index by rank, so a random member of a big set cannot
// be found by counting without reading the set. setSampler draws with a
// bounded number of reads instead: it maps members to numbers in a way
// that keeps their order, picks a random number, seeks to the first member
// at or after it, and corrects for the unevenness that leaves.
//
// The numbers. Every member starts with P, the common prefix of the
// smallest and largest members. The bytes after P are read as the digits
// of a mixed-radix number with one digit per byte position. The model of
// the digits comes from a sample: the 17 members at each end, every
// distinct first byte after P (found by skipping from one to the next), and
// 8 windows of 17 members at random numbers over a first model. A position
// takes the byte values seen anywhere that lie within the range seen at
// that position (widened to the ends of its kind, digits or letters, when
// the position varies), plus "the member ends here" when some member does.
// So decimal ids use 11 values per position rather than 256, a fixed
// separator costs nothing, and the tens of seconds of a timestamp take
// six. A byte the model lacks maps to the top of its lower neighbour's
// subtree, which keeps the map monotonic. As many positions as fit 127
// bits are used.
//
// The draw. A seek lands on member i with probability g(i)/R, its gap (its
// number minus its predecessor's) over the whole range. An attempt lands,
// then moves j < W = 16 members on, j uniform, so member m is proposed with
// probability B(m)/(W·R), where B(m) is the sum of the W gaps ending at m;
// and accepts m with probability min(1, c/B(m)). Every member whose B is at
// least c is then drawn with the same probability: sums over W gaps vary
// far less than single gaps, and capping at c removes the pull of big gaps
// (after a far-away member, before a cluster). c is three quarters of the
// smallest window sum in the sample, so few members fall below it (the
// figures below are the same with a half or nine tenths, which takes more
// or fewer attempts). After 24 rejected attempts the draw picks one of
// them with weight 1/B (sampling-importance-resampling). Cost: learning the
// model, about 25 seeks and 170 steps (about 100µs on a 1,000,000-member
// set on disk), which later samplers of the set mostly skip (see
// setModelCache); per attempt two seeks, one for the landing and one for
// the members before it, and W steps; about 1.3 attempts per draw for
// evenly spread members.
//
// How uniform it is, measured by TestSetSamplerFairness over 1,000 members
// and 100,000 draws: Pearson's chi-square per degree of freedom of the
// draw counts, which is 1 for a fair draw (sd 0.045), is 0.9-1.1 for random
// hex strings, random bytes, decimal ids with or without a prefix,
// zero-padded ids, one cluster with one far-away member, four clusters
// whose members share 40 bytes, and timestamps. For ids of 1 to 5 digits
// followed by a fixed suffix (".../users/123/profile"), where the regions
// that hold the 5-digit ids are ten times denser than the rest, it is
// about 4 (the least drawn member comes up half as often as average), and
// about 20 for one sampler in three (a tenth as often). Members
// equal on every modelled position (the model ran out of bits, or missed a
// byte value) share one number, and are reached only through the windows
// of the members before them. Sets of up to 512 members are always read
// whole and drawn exactly, and SPOP draws sets of up to 65,536 exactly too,
// from batches (see setPopNext): the sampler serves SRANDMEMBER and bigger
// sets.

const (
	setWindow       = 16
	setDrawAttempts = 24
	// setAcceptScale is c, the window sum below which a draw is always
	// accepted, as a fraction of the smallest window sum sampled.
	setAcceptScale = 0.75
	setModelProbe  = 8
	// setFirstByteSeeks bounds the seeks that list the values of the
	// first byte after the common prefix.
	setFirstByteSeeks = 16
	// setLandingSteps bounds the walk from a seek to the first member
	// whose number reaches the target (ties and truncated targets).
	setLandingSteps = 64
	// setExcludedRetries bounds the draws that hit excluded members before
	// a draw walks to the next member not excluded.
	setExcludedRetries = 64
)

// setPos is a member's number: a 128-bit unsigned integer.
type setPos struct{ hi, lo uint64 }

func (a setPos) cmp(b setPos) int {
	if a.hi != b.hi {
		return cmpUint64(a.hi, b.hi)
	}
	return cmpUint64(a.lo, b.lo)
}

func (a setPos) sub(b setPos) setPos {
	lo, borrow := bits.Sub64(a.lo, b.lo, 0)
	hi, _ := bits.Sub64(a.hi, b.hi, borrow)
	return setPos{hi, lo}
}

func (a setPos) add(b setPos) setPos {
	lo, carry := bits.Add64(a.lo, b.lo, 0)
	hi, _ := bits.Add64(a.hi, b.hi, carry)
	return setPos{hi, lo}
}

// mulAdd returns a*r + d.
func (a setPos) mulAdd(r, d uint64) setPos {
	h1, lo := bits.Mul64(a.lo, r)
	hi := h1 + a.hi*r
	lo, carry := bits.Add64(lo, d, 0)
	return setPos{hi + carry, lo}
}

// mulCheck returns a*r, and false if it overflows 128 bits.
func (a setPos) mulCheck(r uint64) (setPos, bool) {
	h1, lo := bits.Mul64(a.lo, r)
	h2, l2 := bits.Mul64(a.hi, r)
	hi, carry := bits.Add64(h1, l2, 0)
	return setPos{hi, lo}, h2 == 0 && carry == 0
}

// divMod returns a/r and a%r.
func (a setPos) divMod(r uint64) (setPos, uint64) {
	qh, rh := a.hi/r, a.hi%r
	ql, rem := bits.Div64(rh, a.lo, r)
	return setPos{qh, ql}, rem
}

func (a setPos) float() float64 { return float64(a.hi)*0x1p64 + float64(a.lo) }

// setRandBelow returns a uniform random number in [0, n), n > 0.
func setRandBelow(n setPos) setPos {
	if n.hi == 0 {
		return setPos{0, rand.Uint64N(n.lo)}
	}
	for {
		// Rejection keeps it exact; each try succeeds with p > 1/2.
		var hi uint64
		if n.hi == math.MaxUint64 {
			hi = rand.Uint64()
		} else {
			hi = rand.Uint64N(n.hi + 1)
		}
		r := setPos{hi, rand.Uint64()}
		if r.cmp(n) < 0 {
			return r
		}
	}
}

// setSampler draws random members of one big set through one iterator,
// so all its draws see one state of the set.
type setSampler struct {
	// setModel is what the sampler knows of the members' numbers: learnt
	// by init, or reused from an earlier sampler of the set (setModels).
	*setModel
	it engine.Iterator
	// back walks from a landing towards the smaller members, so that
	// neither iterator ever changes direction (which costs Pebble a seek
	// of every level); opened by the first draw, over the same state.
	back    engine.Iterator
	newBack func() (engine.Iterator, error)
	bkey    []byte
	n       uint64 // the set's size
	// exclude holds members already drawn (distinct draws).
	exclude map[string]struct{}
	key     []byte
	digits  []uint64
	// cands and cbuf hold a draw's rejected attempts.
	cands []setCand
	cbuf  []byte
}

// setModel maps a set's members to numbers (see setSampler). Once learnt
// it is never changed, so samplers on several goroutines can share it.
type setModel struct {
	plen   int    // length of the sub-key prefix
	lcp    []byte // sub-key prefix + the members' common prefix
	levels []setLevel
	// seen marks the byte values of the model; below[b] counts those
	// under b, and byRank lists them.
	seen   [256]bool
	below  [256]uint16
	byRank [256]byte
	lo, hi setPos
	// scale is the window sum below which a draw is always accepted.
	scale float64
	// first and last are the smallest and largest members the model was
	// learnt with, size the set's size then.
	first, last []byte
	size        uint64
}

// Learning a model costs about 25 seeks and 170 steps, several times a
// draw, so models outlive their samplers: SPOP and SRANDMEMBER on a big set
// reuse the model of the set's version (its sub-key prefix) that an earlier
// command learnt. Any model gives valid draws, and one learnt from an older
// state of the set only draws less evenly, so reuse is bounded rather than
// exact: a model is learnt again after setModelUses samplers, or once the
// set's size has halved or doubled, and writes forget it when they add or
// remove a member at or beyond the ends it was learnt with (the ends fix
// the range of its numbers; a member added past them would be drawn
// rarely). A reader racing a writer may put back a model the writer just
// made stale; the bounds above limit how long it serves.
const (
	setModelUses   = 1024
	setModelShards = 64
	// setModelsPerShard bounds the memory: a model takes about 2 KB.
	setModelsPerShard = 4
)

// setModelCache holds a store's set models by sub-key prefix (Store.setModels).
type setModelCache struct {
	shards [setModelShards]setModelShard
}

type setModelShard struct {
	mu sync.Mutex
	m  map[string]*setModelEntry
}

type setModelEntry struct {
	model *setModel
	uses  int
}

func (c *setModelCache) shard(prefix []byte) *setModelShard {
	return &c.shards[encoding.KeyHash(prefix)%setModelShards]
}

// get returns the model of the set with sub-key prefix prefix and n
// members, counting a use, or nil when there is none fit to reuse.
func (c *setModelCache) get(prefix []byte, n uint64) *setModel {
	sh := c.shard(prefix)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	e := sh.m[string(prefix)]
	if e == nil || e.uses >= setModelUses || n > 2*e.model.size || 2*n < e.model.size {
		return nil
	}
	e.uses++
	return e.model
}

// peek returns the model of a set without counting a use.
func (c *setModelCache) peek(prefix []byte) *setModel {
	sh := c.shard(prefix)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if e := sh.m[string(prefix)]; e != nil {
		return e.model
	}
	return nil
}

func (c *setModelCache) put(prefix []byte, m *setModel) {
	sh := c.shard(prefix)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.m == nil {
		sh.m = make(map[string]*setModelEntry, setModelsPerShard)
	}
	if _, ok := sh.m[string(prefix)]; !ok && len(sh.m) >= setModelsPerShard {
		for k := range sh.m {
			// Go's map order is random enough to pick a victim.
			delete(sh.m, k)
			break
		}
	}
	sh.m[string(prefix)] = &setModelEntry{model: m}
}

// forget drops the model m of a set, if it is still the one kept.
func (c *setModelCache) forget(prefix []byte, m *setModel) {
	sh := c.shard(prefix)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if e := sh.m[string(prefix)]; e != nil && e.model == m {
		delete(sh.m, string(prefix))
	}
}

// setEnds watches a write to an existing set for members added or removed
// at or beyond the ends of its kept model, and forgets the model if one
// is. Create it before the write's first change, call touched with every
// member added or removed, then done.
type setEnds struct {
	tx     *Tx
	prefix []byte
	m      *setModel
	stale  bool
}

func (tx *Tx) watchSetEnds(c *collection) setEnds {
	p := c.Prefix(encoding.FamilySub)
	return setEnds{tx: tx, prefix: p, m: tx.s.setModels.peek(p)}
}

func (w *setEnds) touched(member []byte) {
	if w.m != nil && !w.stale && (bytes.Compare(member, w.m.first) <= 0 || bytes.Compare(member, w.m.last) >= 0) {
		w.stale = true
	}
}

func (w *setEnds) done() {
	if w.stale {
		w.tx.s.setModels.forget(w.prefix, w.m)
	}
}

func (tx *Tx) newSetSampler(c *collection) (*setSampler, error) {
	it, err := tx.iter(c, encoding.FamilySub, nil, nil)
	if err != nil {
		return nil, err
	}
	prefix := c.Prefix(encoding.FamilySub)
	s := &setSampler{it: it, n: c.Meta.Size}
	s.newBack = func() (engine.Iterator, error) { return tx.iter(c, encoding.FamilySub, nil, nil) }
	if s.setModel = tx.s.setModels.get(prefix, c.Meta.Size); s.setModel != nil {
		return s, nil
	}
	s.setModel = &setModel{plen: len(prefix), size: c.Meta.Size}
	if err := s.init(c.key); err != nil {
		s.close()
		return nil, err
	}
	tx.s.setModels.put(prefix, s.setModel)
	return s, nil
}

func (s *setSampler) close() {
	if s.it != nil {
		_ = s.it.Close()
		s.it = nil
	}
	if s.back != nil {
		_ = s.back.Close()
		s.back = nil
	}
}

func (s *setSampler) init(key []byte) error {
	it := s.it
	if !it.First() {
		return s.broken(key)
	}
	first := bytes.Clone(it.Key())
	if !it.Last() {
		return s.broken(key)
	}
	last := bytes.Clone(it.Key())
	cp := s.plen + commonPrefixLen(first[s.plen:], last[s.plen:])
	s.lcp = first[:cp]
	s.first, s.last = first[s.plen:], last[s.plen:]

	// Learn the model in two rounds: from the windows at both ends and
	// every distinct first byte after P, then from windows at random
	// numbers over that first model, which land among the members wherever
	// they cluster.
	obs := new(setObs)
	obs.observe(first[cp:])
	obs.observe(last[cp:])
	var windows [][][]byte
	for _, forward := range []bool{true, false} {
		if forward {
			it.First()
		} else {
			it.Last()
		}
		win := make([][]byte, 0, setWindow+1)
		for range setWindow + 1 {
			k := bytes.Clone(it.Key())
			obs.observe(k[cp:])
			win = append(win, k)
			if err := s.step(forward); err != nil {
				return err
			}
		}
		if !forward {
			slices.Reverse(win)
		}
		windows = append(windows, win)
	}
	// Clusters show at the first byte: find its values by skipping from
	// one to the next (a few seeks for the usual members).
	s.key = append(s.key[:0], s.lcp...)
	for range setFirstByteSeeks {
		if !it.SeekGE(s.key) {
			break
		}
		k := it.Key()
		obs.observe(k[cp:])
		if len(k) == cp {
			s.key = append(s.key[:cp], 0)
			continue
		}
		if k[cp] == 0xff {
			break
		}
		s.key = append(s.key[:cp], k[cp]+1)
	}
	if err := it.Error(); err != nil {
		return err
	}
	s.learn(obs, first, last)

	span := s.hi.sub(s.lo).add(setPos{0, 1})
	for range setModelProbe {
		if err := s.land(s.lo.add(setRandBelow(span))); err != nil {
			return err
		}
		win := make([][]byte, 0, setWindow+1)
		for range setWindow + 1 {
			k := bytes.Clone(it.Key())
			obs.observe(k[cp:])
			win = append(win, k)
			if err := s.step(true); err != nil {
				return err
			}
		}
		windows = append(windows, win)
	}
	s.learn(obs, first, last)

	// The acceptance scale: a fraction of the smallest window sum seen, at
	// both ends and after the random landings. Landings favour sparse
	// regions, so the ends (often where members are densest, as with
	// numbers of growing length) and the minimum keep dense regions from
	// being under-drawn. The set's average gap would not do: one far-away
	// member makes it many times a typical gap.
	s.scale = math.MaxFloat64
	for _, win := range windows {
		prev := s.pos(win[0])
		var sum float64
		for _, k := range win[1:] {
			p := s.pos(k)
			sum += s.gap(prev, p)
			prev = p
		}
		if sum > 0 {
			s.scale = min(s.scale, setAcceptScale*sum)
		}
	}
	return nil
}

// gap is the gap of the member numbered p after the one numbered prev, in
// the cyclic order: the smallest member (after the largest) has gap 1.
func (s *setSampler) gap(prev, p setPos) float64 {
	if p.cmp(prev) >= 0 {
		return p.sub(prev).float()
	}
	return 1
}

// setMaxDepth bounds how many bytes after the common prefix the sampler
// models.
const setMaxDepth = 256

// setObs is what the sampler saw of the members: every byte value, and per
// byte position the smallest and largest value and whether a member ends
// there.
type setObs struct {
	seen   [256]bool
	has    [setMaxDepth]bool
	ends   [setMaxDepth + 1]bool
	lo, hi [setMaxDepth]byte
}

// observe records m, a member without the common prefix.
func (o *setObs) observe(m []byte) {
	for d, b := range m[:min(len(m), setMaxDepth)] {
		o.seen[b] = true
		if !o.has[d] || b < o.lo[d] {
			o.lo[d] = b
		}
		if !o.has[d] || b > o.hi[d] {
			o.hi[d] = b
		}
		o.has[d] = true
	}
	o.ends[min(len(m), setMaxDepth)] = true
}

// setClass is the kind of a byte: digit, lower case, upper case, other
// ASCII, or not ASCII.
func setClass(b byte) int {
	switch {
	case '0' <= b && b <= '9':
		return 0
	case 'a' <= b && b <= 'z':
		return 1
	case 'A' <= b && b <= 'Z':
		return 2
	case b < 0x80:
		return 3
	}
	return 4
}

// classLo returns the smallest value seen of b's kind (at most b).
func (o *setObs) classLo(b byte) byte {
	for c := 0; c < int(b); c++ {
		if o.seen[c] && setClass(byte(c)) == setClass(b) {
			return byte(c)
		}
	}
	return b
}

// classHi returns the largest value seen of b's kind (at least b).
func (o *setObs) classHi(b byte) byte {
	for c := 255; c > int(b); c-- {
		if o.seen[c] && setClass(byte(c)) == setClass(b) {
			return byte(c)
		}
	}
	return b
}

// setLevel models one byte position after the common prefix: digit 0 is
// "the member ends here" when some member does, then come the values seen
// (setSampler.seen) from lo to hi, in order.
type setLevel struct {
	end    bool
	lo, hi byte
	radix  uint64
}

// learn sets up the numbers from what was observed. A position takes the
// byte values seen anywhere that fall within the range seen there, so that
// fixed-format members (a timestamp's "0-5" for tens of seconds, a constant
// separator) waste no room, while a value the sample missed at one position
// but saw at another still has its own digit.
func (s *setSampler) learn(o *setObs, first, last []byte) {
	var n uint16
	for b := range 256 {
		s.below[b] = n
		if o.seen[b] {
			s.byRank[n] = byte(b)
			n++
		}
	}
	s.seen = o.seen
	s.levels = s.levels[:0]
	p := setPos{0, 1}
	for d := 0; d < setMaxDepth && (o.has[d] || o.ends[d]); d++ {
		lv := setLevel{end: o.ends[d]}
		if o.has[d] {
			lv.lo, lv.hi = o.lo[d], o.hi[d]
			if lv.lo != lv.hi {
				// A position that varies probably takes its kind of
				// byte's every value: widen its range to all values seen
				// of the kinds at its ends.
				lv.lo, lv.hi = o.classLo(lv.lo), o.classHi(lv.hi)
			}
			lv.radix = uint64(s.below[lv.hi] - s.below[lv.lo] + 1)
		}
		if lv.end {
			lv.radix++
		}
		// Keep every number below 2^127.
		next, ok := p.mulCheck(lv.radix)
		if !ok || next.hi >= 1<<63 {
			break
		}
		p = next
		s.levels = append(s.levels, lv)
	}
	s.lo, s.hi = s.pos(first), s.pos(last)
}

func (s *setSampler) broken(key []byte) error {
	if err := s.it.Error(); err != nil {
		return err
	}
	return fmt.Errorf("set %q: size %d but no members: %w", key, s.n, encoding.ErrCorrupt)
}

// pos maps a sub-key of the set to its number.
func (s *setSampler) pos(k []byte) setPos {
	const (
		exact = iota
		floor // the rest of the digits at 0
		ceil  // the rest of the digits at their maximum
	)
	var p setPos
	mode := exact
	var m []byte
	switch {
	case bytes.HasPrefix(k, s.lcp):
		m = k[len(s.lcp):]
	case bytes.Compare(k, s.lcp) < 0:
		// A member without the common prefix, which a model learnt
		// before it was added may meet: below or above every number.
		mode = floor
	default:
		mode = ceil
	}
	for d := range s.levels {
		lv := &s.levels[d]
		var dig uint64
		switch {
		case mode == floor:
		case mode == ceil:
			dig = lv.radix - 1
		case d >= len(m):
			// Ends here: digit 0 is the end, or else the bottom of the
			// smallest value's subtree.
			mode = floor
		case lv.radix == 1 && lv.end || m[d] < lv.lo:
			if lv.end {
				// Below every value but after the member that ends here.
				mode = ceil
			} else {
				mode = floor
			}
		case m[d] > lv.hi:
			dig, mode = lv.radix-1, ceil
		default:
			dig = uint64(s.below[m[d]] - s.below[lv.lo])
			if !s.seen[m[d]] {
				// Between two values: the top of the lower one's subtree.
				dig, mode = dig-1, ceil
			}
			if lv.end {
				dig++
			}
		}
		if lv.radix > 1 {
			p = p.mulAdd(lv.radix, dig)
		}
	}
	return p
}

// seekKey returns the sub-key a number stands for: the bytes of its digits,
// up to the first that says the member ends.
func (s *setSampler) seekKey(x setPos) []byte {
	if len(s.digits) != len(s.levels) {
		s.digits = make([]uint64, len(s.levels))
	}
	for d := len(s.levels) - 1; d >= 0; d-- {
		if r := s.levels[d].radix; r > 1 {
			x, s.digits[d] = x.divMod(r)
		} else {
			s.digits[d] = 0
		}
	}
	s.key = append(s.key[:0], s.lcp...)
	for d, dig := range s.digits {
		lv := &s.levels[d]
		if lv.end {
			if dig == 0 {
				break
			}
			dig--
		}
		s.key = append(s.key, s.byRank[uint64(s.below[lv.lo])+dig])
	}
	return s.key
}

// member returns the member under the iterator.
func (s *setSampler) member() []byte { return s.it.Key()[s.plen:] }

// draw returns a random member not in s.exclude (a copy).
func (s *setSampler) draw() ([]byte, error) {
	span := s.hi.sub(s.lo).add(setPos{0, 1})
	s.cands = s.cands[:0]
	s.cbuf = s.cbuf[:0]
	for excluded := 0; len(s.cands) < setDrawAttempts; {
		if err := s.land(s.lo.add(setRandBelow(span))); err != nil {
			return nil, err
		}
		// The chosen member is j members after the landing; the window is
		// the setWindow gaps that end at it: setWindow-j of them up to the
		// landing, walked down by back, and j after it.
		j := rand.IntN(setWindow)
		at := s.pos(s.it.Key())
		sum, err := s.sumBack(at, setWindow-j)
		if err != nil {
			return nil, err
		}
		prev := at
		for range j {
			if err := s.step(true); err != nil {
				return nil, err
			}
			p := s.pos(s.it.Key())
			sum += s.gap(prev, p)
			prev = p
		}
		m := s.member()
		if _, skip := s.exclude[string(m)]; skip {
			if excluded++; excluded >= setExcludedRetries {
				return s.walkToIncluded()
			}
			continue
		}
		if rand.Float64()*sum < s.scale {
			return setCopy(m), nil
		}
		from := len(s.cbuf)
		s.cbuf = append(s.cbuf, m...)
		s.cands = append(s.cands, setCand{from, len(s.cbuf), sum})
	}
	// No attempt was accepted (members whose windows vary widely): pick
	// one of the attempts with weight 1/sum, which undoes the landing's
	// bias as far as these attempts can (sampling-importance-resampling).
	var total float64
	zeros := 0
	for _, c := range s.cands {
		if c.sum == 0 {
			zeros++
		} else {
			total += 1 / c.sum
		}
	}
	pick := s.cands[len(s.cands)-1]
	if zeros > 0 {
		z := rand.IntN(zeros)
		for _, c := range s.cands {
			if c.sum == 0 {
				if z == 0 {
					pick = c
					break
				}
				z--
			}
		}
	} else {
		r := rand.Float64() * total
		for _, c := range s.cands {
			if r -= 1 / c.sum; r < 0 {
				pick = c
				break
			}
		}
	}
	return setCopy(s.cbuf[pick.from:pick.to]), nil
}

// sumBack returns the sum of the n gaps that end at the member under the
// iterator (numbered at), walking back from it in the cyclic order.
func (s *setSampler) sumBack(at setPos, n int) (float64, error) {
	if s.back == nil {
		it, err := s.newBack()
		if err != nil {
			return 0, err
		}
		s.back = it
	}
	s.bkey = append(s.bkey[:0], s.it.Key()...)
	ok := s.back.SeekLT(s.bkey)
	var sum float64
	for i := range n {
		if i > 0 {
			ok = s.back.Prev()
		}
		if !ok {
			if err := s.back.Error(); err != nil {
				return 0, err
			}
			if !s.back.Last() {
				return 0, s.landingError()
			}
		}
		p := s.pos(s.back.Key())
		sum += s.gap(p, at)
		at = p
	}
	return sum, nil
}

// setCand is a rejected attempt of a draw: its member in setSampler.cbuf
// and its window sum.
type setCand struct {
	from, to int
	sum      float64
}

// setCopy returns a copy of m that is not nil even when empty.
func setCopy(m []byte) []byte {
	c := make([]byte, len(m))
	copy(c, m)
	return c
}

// step moves the iterator one member forward or back, wrapping around.
func (s *setSampler) step(forward bool) error {
	ok := false
	if forward {
		ok = s.it.Next()
	} else {
		ok = s.it.Prev()
	}
	if ok {
		return nil
	}
	if err := s.it.Error(); err != nil {
		return err
	}
	if forward {
		ok = s.it.First()
	} else {
		ok = s.it.Last()
	}
	if !ok {
		return s.landingError()
	}
	return nil
}

// land positions the iterator on the first member whose number is at
// least x, wrapping to the smallest.
func (s *setSampler) land(x setPos) error {
	ok := s.it.SeekGE(s.seekKey(x))
	// The key of x stops at its first 0 digit, so members from there up
	// to x can come first.
	for steps := 0; ok && steps < setLandingSteps && s.pos(s.it.Key()).cmp(x) < 0; steps++ {
		ok = s.it.Next()
	}
	if ok {
		return nil
	}
	if err := s.it.Error(); err != nil {
		return err
	}
	if !s.it.First() {
		return s.landingError()
	}
	return nil
}

func (s *setSampler) landingError() error {
	if err := s.it.Error(); err != nil {
		return err
	}
	return fmt.Errorf("set sampler: no member to land on: %w", encoding.ErrCorrupt)
}

// walkToIncluded returns the first member not excluded from the
// iterator's position on, wrapping once.
func (s *setSampler) walkToIncluded() ([]byte, error) {
	ok := s.it.Valid()
	for wrapped := false; ; ok = s.it.Next() {
		if !ok {
			if err := s.it.Error(); err != nil || wrapped {
				if err == nil {
					err = fmt.Errorf("set sampler: every member excluded: %w", encoding.ErrCorrupt)
				}
				return nil, err
			}
			wrapped = true
			if ok = s.it.First(); !ok {
				continue
			}
		}
		if _, skip := s.exclude[string(s.member())]; !skip {
			m := bytes.Clone(s.member())
			if m == nil {
				m = []byte{}
			}
			return m, nil
		}
	}
}

// --- SSCAN -------------------------------------------------------------------

// SScanArgs are SSCAN's options.
type SScanArgs struct {
	Count int
	// Pattern filters members (nil: all).
	Pattern []byte
}

// SScan returns the members of a set from cursor on, and the cursor to
// continue with (0 when done).
//
// A set Redis would encode as an intset or a listpack comes back whole in
// one call with cursor 0, as in Redis. Otherwise the cursor is a position
// in the members' byte order that needs no server state. Every member
// starts with P, the common prefix of the smallest and largest members. A
// cursor names the next member M to visit as
//
//	s << 56 | the 7 bytes of M after its first s bytes (zero-padded)
//
// where s = min(len(P), 255). Resuming seeks to P[:s] followed by those 7
// bytes without their trailing zeros: a prefix of M, so at or before M, and
// nothing after the previous call's last member is skipped (members
// between the seek key and M come again: duplicates are allowed). A call
// stops only between members whose 7 bytes differ, so the members it
// visited are all below the seek key it hands out: a scan of an unchanged
// set visits each member once and always moves forward. Members sharing
// their first s+7 bytes come in one call, however many. If P has become
// shorter than s since the cursor was made (a member was added outside the
// set's former range), P[:s] is unknown and the scan restarts from the
// smallest member: duplicates, never a miss. Every member present for the
// whole scan is returned at least once, across restarts of the server.
//
// MATCH with a literal prefix only visits members with that prefix.
func (tx *Tx) SScan(db int, key []byte, cursor uint64, a SScanArgs) (uint64, [][]byte, error) {
	c, err := tx.openSet(db, key)
	if err != nil || !c.Exists {
		return 0, nil, err
	}
	var out setArena
	keep := func(m []byte) {
		if a.Pattern == nil || glob.Match(a.Pattern, m, false) {
			out.add(m)
		}
	}
	// Redis returns an intset or listpack-encoded set whole in one call.
	lim := tx.limits()
	if !over(c.Meta.Size, lim.setCompactMax()) {
		all, err := tx.setAll(c)
		if err != nil {
			return 0, nil, err
		}
		if setEncodingOf(all, lim) != "hashtable" {
			for _, m := range all {
				keep(m)
			}
			return 0, out.out, nil
		}
	}
	it, err := tx.iter(c, encoding.FamilySub, nil, nil)
	if err != nil {
		return 0, nil, err
	}
	defer it.Close()
	prefix := c.Prefix(encoding.FamilySub)
	p := len(prefix)
	if !it.First() {
		return 0, nil, it.Error()
	}
	first := bytes.Clone(it.Key()[p:])
	if !it.Last() {
		return 0, nil, it.Error()
	}
	cp := min(commonPrefixLen(first, it.Key()[p:]), maxScanPrefix)

	seek := bytes.Clone(prefix)
	if start, ok := scanResume(first, cp, cursor); ok {
		seek = append(seek, start...)
	}
	var end []byte
	if a.Pattern != nil {
		if lp := glob.LiteralPrefix(a.Pattern); len(lp) > 0 {
			lo := append(bytes.Clone(prefix), lp...)
			if bytes.Compare(lo, seek) > 0 {
				seek = lo
			}
			end = encoding.PrefixEnd(lo)
		}
	}
	visited := 0
	var last uint64
	for ok := it.SeekGE(seek); ok; ok = it.Next() {
		k := it.Key()
		if end != nil && bytes.Compare(k, end) >= 0 {
			break
		}
		m := k[p:]
		pos := scanPos(m, cp)
		// pos > last >= 0 here, so the cursor is never 0.
		if visited >= a.Count && pos != last {
			return uint64(cp)<<56 | pos, out.out, nil
		}
		visited++
		last = pos
		keep(m)
	}
	return 0, out.out, it.Error()
}

// setEncodingOf is how Redis 7.2 encodes a set of these members: an intset
// while they are all integers and at most set-max-intset-entries, else a
// listpack while at most set-max-listpack-entries of at most
// set-max-listpack-value bytes, else a hashtable. Integers that outgrow an
// intset go to a hashtable, as Redis's maybeConvertIntset converts them,
// unless set-max-intset-entries is 0: then no set starts as an intset, and
// Redis creates a listpack instead.
func setEncodingOf(all [][]byte, lim *EncodingLimits) string {
	ints, longest := true, 0
	for _, m := range all {
		if ints {
			_, ints = rconv.ParseInt(m)
		}
		longest = max(longest, len(m))
	}
	switch {
	case ints && !over(len(all), lim.SetIntsetEntries):
		return "intset"
	case ints && lim.SetIntsetEntries > 0:
		return "hashtable"
	case !over(len(all), lim.SetEntries) && !over(longest, lim.SetValue):
		return "listpack"
	}
	return "hashtable"
}

// --- OBJECT ENCODING -----------------------------------------------------------

// SetEncoding is OBJECT ENCODING for a set key, by Redis 7.2's rules (see
// setEncodingOf; Redis 7.0, which has no set listpack, says "hashtable"
// where 7.2 says "listpack"). It reads at most as many members as the
// larger of set-max-intset-entries and set-max-listpack-entries. Redis never
// converts a set back to a smaller encoding; Cairn reports what the
// current members would be encoded as.
func (tx *Tx) SetEncoding(db int, key []byte) (string, bool, error) {
	c, err := tx.openSet(db, key)
	if err != nil || !c.Exists {
		return "", false, err
	}
	lim := tx.limits()
	if over(c.Meta.Size, lim.setCompactMax()) {
		return "hashtable", true, nil
	}
	all, err := tx.setAll(c)
	if err != nil {
		return "", false, err
	}
	return setEncodingOf(all, lim), true, nil
}
