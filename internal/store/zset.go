package store

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/cairndb/cairn/internal/encoding"
	"github.com/cairndb/cairn/internal/engine"
	"github.com/cairndb/cairn/internal/glob"
)

// Sorted sets keep two records per member (docs/encoding.md), always
// written in the same batch: member → score in FamilySub, for ZSCORE and
// updates, and score|member → nothing in FamilyScore, whose byte order is
// the set's order (score, then member bytes). A -0 score, kept only where
// Redis keeps it (keepNegZero), is +0 in the score index key, which marks
// it in the entry's value instead: every reader of the index that returns
// scores takes them from key and value together (zscored).
//
// What that layout costs. Whatever is addressed by member or score is a
// seek: ZSCORE, ZADD and ZREM are point reads, ZRANGEBYSCORE and ZRANGE
// BYSCORE/BYLEX seek to their first entry and then read only what they
// return (plus a LIMIT offset). Nothing indexes ranks, so a rank is found by
// counting entries: ZRANK, ZRANGE by rank, ZREMRANGEBYRANK, ZCOUNT and
// ZLEXCOUNT are O(distance) where Redis's skiplist is O(log N). Each counts
// from the nearer end of the index (racing from both ends when which one is
// nearer is not known beforehand), so the work is O(min(r, N-r)) for rank r
// and O(min(M, N-M)) to count M entries: ZRANGE 0 10, ZREVRANGE 0 10 and
// ZCOUNT key -inf +inf are quick on any size; a rank in the middle of a big
// set is the expensive case. ZRANDMEMBER walks to its random ranks the same
// way.
//
// Removing a long run of the score index (ZREMRANGEBY*, ZPOPMIN/ZPOPMAX/
// ZMPOP with a count) writes one range tombstone over it instead of a point
// tombstone per entry (zdropRun).
//
// Churn at one end. A set that keeps gaining members at one end and losing
// them at the other (ZADD + ZREMRANGEBYRANK 0 0, ZADD + ZPOPMIN: a sliding
// window, a queue) leaves the removed entries as tombstones in front of the
// live ones until compactions drop them; a read that starts at the end of
// the index would step over all of them, and get slower the longer the
// churn goes on. So the metadata keeps bounds on the live scores
// (encoding.ZSetMeta, docs/encoding.md): writes widen them as scores go
// out, removals of a member at a bound tighten it to the score now at that
// end (looked up in the same batch, past only what this command removed),
// and every reader of the score index iterates within
// [prefix|low, prefix|high+1) only, never reaching the dead entries
// outside. Reads take the bounds and iterate in one state (a snapshot or
// the writer's batch), so a bound can never hide a member the iterator
// would see. BenchmarkZSetHeadChurn shows ZRANGE 0 10 staying flat. The
// bounds are per score: a set whose members all share one score (a lex
// index) gains nothing from them.

// ErrScoreNaN is ZADD INCR's and ZINCRBY's error for a sum that is not a
// number (inf + -inf).
const ErrScoreNaN Error = "ERR resulting score is not a number (NaN)"

// ZMember is one member of a sorted set and its score.
type ZMember struct {
	Member []byte
	Score  float64
}

// ZAddArgs are ZADD's conditions; Incr makes the (single) score an
// increment.
type ZAddArgs struct {
	NX, XX, GT, LT, Incr bool
}

// ZAddResult reports what ZAdd did.
type ZAddResult struct {
	Added, Updated int64
	// Score is the member's score after ZADD INCR; Done is false when a
	// condition (NX, XX, GT, LT) left the member alone, which Redis
	// answers with nil.
	Score float64
	Done  bool
}

// ScoreBound is one end of a score range ("1.5", "(1.5", "-inf").
type ScoreBound struct {
	Score     float64
	Exclusive bool
}

// LexBound is one end of a lexicographical range: "[a", "(a", "-" or "+".
type LexBound struct {
	Kind      LexKind
	Value     []byte
	Exclusive bool
}

// LexKind says whether a LexBound is a member or one of the infinities.
type LexKind uint8

// Lex bound kinds.
const (
	LexValue  LexKind = iota
	LexMinInf         // "-": below every member
	LexMaxInf         // "+": above every member
)

// ZRangeBy says how a ZRange selects members.
type ZRangeBy uint8

// Kinds of range.
const (
	ZByRank ZRangeBy = iota
	ZByScore
	ZByLex
)

// ZRange is a range of a sorted set as ZRANGE and its relatives give it.
// With Rev, ranks count from the highest score and the members come highest
// first; Min and Max keep their meaning (the caller swaps ZREVRANGEBYSCORE's
// max-first arguments).
type ZRange struct {
	By  ZRangeBy
	Rev bool
	// Start and Stop are ranks (ZByRank), negative counting from the end.
	Start, Stop int64
	// Min and Max bound scores (ZByScore).
	Min, Max ScoreBound
	// LexMin and LexMax bound members (ZByLex).
	LexMin, LexMax LexBound
	// Offset and Count are LIMIT (ZByScore and ZByLex): a negative Offset
	// selects nothing and a negative Count means no limit, as in Redis.
	// Set Count to -1 when there is no LIMIT.
	Offset, Count int64
}

// ZAggregate is how ZUNION and ZINTER combine a member's scores.
type ZAggregate uint8

// Aggregates.
const (
	ZSum ZAggregate = iota
	ZMin
	ZMax
)

// ZSetOp is a set operation over sorted sets (and plain sets, whose
// members count with score 1).
type ZSetOp uint8

// Set operations.
const (
	ZUnion ZSetOp = iota
	ZInter
	ZDiff
)

// ZScanArgs are ZSCAN's options.
type ZScanArgs struct {
	Count int
	// Pattern filters members (nil: all).
	Pattern []byte
}

// --- Writing ------------------------------------------------------------------

// zwriter is one write command's view of a sorted set: the collection,
// its score bounds and reusable key buffers.
type zwriter struct {
	tx *Tx
	c  *collection
	// bounds are written back to the metadata by save. lowStale and
	// highStale say that a member at that bound left: save then looks up
	// the score now at that end (tighten), so the bound stays close and
	// readers do not walk what this command removed.
	bounds              encoding.ZSetMeta
	lowStale, highStale bool
	// lowGone and highGone are the entries this command deleted at each
	// stale bound, for tighten.
	lowGone, highGone zgone
	// skiplist, when a command knows it for all its writes (zstore, from
	// its whole result), says whether Redis would hold the set as a
	// skiplist, where a -0 score keeps its sign; left zunknown,
	// keepNegZero judges each write. longMember caches whether the set has
	// a member longer than the listpack limit (zunknown until looked up).
	skiplist, longMember ztristate
	kb, sb, gb           []byte
	vb                   [8]byte
	ib                   [1]byte
	// kmem and smem are kb's and sb's first memory.
	kmem, smem [64]byte
}

// ztristate is a yes/no answer that may not be known yet.
type ztristate int8

const (
	zunknown ztristate = iota
	zno
	zyes
)

// openZSet opens key as a sorted set for writing (ErrWrongType for another
// type).
func (tx *Tx) openZSet(db int, key []byte) (*zwriter, error) {
	c, err := tx.openCollection(db, key, encoding.TypeZSet)
	if err != nil {
		return nil, err
	}
	z := &zwriter{tx: tx, c: c, bounds: encoding.ZSetUnbounded}
	z.kb, z.sb = z.kmem[:0], z.smem[:0]
	if c.Exists {
		if z.bounds, err = encoding.DecodeZSetMeta(c.Meta.Value); err != nil {
			return nil, fmt.Errorf("zset %q: %w", key, err)
		}
	}
	return z, nil
}

// widen makes the bounds cover score bits u, just written. The first
// member of a set (size 0: a fresh version, whose index is empty) sets
// both; a bound moved onto a live entry is exact again.
func (z *zwriter) widen(u uint64) {
	if z.c.Meta.Size == 0 {
		z.bounds = encoding.ZSetMeta{Low: u, High: u}
		z.lowStale, z.highStale = false, false
		z.lowGone.reset()
		z.highGone.reset()
		return
	}
	if u <= z.bounds.Low {
		z.bounds.Low, z.lowStale = u, false
		z.lowGone.reset()
	}
	if u >= z.bounds.High {
		z.bounds.High, z.highStale = u, false
		z.highGone.reset()
	}
}

// left notes that the entry k of a member with score bits u was deleted
// (k nil: not known).
func (z *zwriter) left(u uint64, k []byte) {
	if u == z.bounds.Low {
		z.lowStale = true
		z.lowGone.note(k)
	}
	if u == z.bounds.High {
		z.highStale = true
		z.highGone.note(k)
	}
}

// zgone is what a command deleted at one bound of a sorted set's index:
// one entry, key, when n is 1. tighten then steps around that entry
// instead of over it: when a member at the end is removed and added again
// and again, its entry stacks a deleted version in Pebble's memtable per
// round, and an iterator reaching it from either side walks them all
// (issue 27, item 20: ZADD z 1 m; ZREM z m).
type zgone struct {
	key []byte
	n   int
}

func (g *zgone) reset() { g.n = 0 }

func (g *zgone) note(k []byte) {
	g.n++
	if k == nil {
		g.n = 2
		return
	}
	g.key = append(g.key[:0], k...)
}

// rewritten notes that entry k was written again: it is no gap to step
// around.
func (g *zgone) rewritten(k []byte) {
	if g.n > 0 && bytes.Equal(g.key, k) {
		g.n = 2
	}
}

// only returns the one entry deleted, or nil.
func (g *zgone) only() []byte {
	if g.n == 1 {
		return g.key
	}
	return nil
}

// zboundKeys returns the score index keys [lo, hi) that the bounds b
// confine the set with score index prefix p to.
func zboundKeys(p []byte, b encoding.ZSetMeta) (lo, hi []byte) {
	buf := make([]byte, 0, 2*(len(p)+8))
	lo = binary.BigEndian.AppendUint64(append(buf, p...), b.Low)
	if b.High == math.MaxUint64 {
		return lo, encoding.PrefixEnd(p)
	}
	return lo, binary.BigEndian.AppendUint64(append(lo[len(lo):], p...), b.High+1)
}

// tighten moves a stale bound to the score now at its end of the index,
// read through the batch: it steps over the entries this command deleted
// there (the bound was on the set's extreme score before), no further.
func (z *zwriter) tighten() error {
	if !z.lowStale && !z.highStale {
		return nil
	}
	p := z.c.Prefix(encoding.FamilyScore)
	lo, hi := zboundKeys(p, z.bounds)
	it, err := z.tx.r.NewIter(lo, hi)
	if err != nil {
		return err
	}
	end := func(ok bool, u *uint64) error {
		if !ok {
			if err := it.Error(); err != nil {
				return err
			}
			return fmt.Errorf("%w: zset %q of %d members has no score index entry within its bounds", encoding.ErrCorrupt, z.c.key, z.c.Meta.Size)
		}
		b, err := zbits(it.Key(), len(p))
		*u = b
		return err
	}
	// With one entry deleted at a bound, d: an entry between d and the
	// bound's end of the range is at the bound, else the new bound is the
	// nearest entry on d's other side. Either seek lands beside d, not on
	// its versions.
	if z.lowStale {
		var ok bool
		if d := z.lowGone.only(); d != nil {
			if ok = it.SeekLT(d); !ok && it.Error() == nil {
				ok = it.SeekGE(append(d, 0))
			}
		} else {
			ok = it.First()
		}
		if err := end(ok, &z.bounds.Low); err != nil {
			it.Close()
			return err
		}
	}
	if z.highStale {
		var ok bool
		if d := z.highGone.only(); d != nil {
			if ok = it.SeekGE(append(d, 0)); !ok && it.Error() == nil {
				ok = it.SeekLT(d)
			}
		} else {
			ok = it.Last()
		}
		if err := end(ok, &z.bounds.High); err != nil {
			it.Close()
			return err
		}
	}
	z.lowStale, z.highStale = false, false
	z.lowGone.reset()
	z.highGone.reset()
	return it.Close()
}

// save writes the set's metadata with its bounds (tightened), or deletes
// the key when no member is left.
func (z *zwriter) save() error {
	if z.c.Meta.Size > 0 {
		if err := z.tighten(); err != nil {
			return err
		}
		z.c.Meta.Value = encoding.AppendZSetMeta(z.c.Meta.Value[:0], z.bounds)
	}
	return z.tx.save(z.c)
}

func (z *zwriter) subKey(member []byte) []byte {
	z.kb = append(append(z.kb[:0], z.c.Prefix(encoding.FamilySub)...), member...)
	return z.kb
}

func (z *zwriter) scoreKey(score float64, member []byte) []byte {
	z.sb = encoding.AppendScoreKey(z.sb[:0], z.c.Prefix(encoding.FamilyScore), score, member)
	return z.sb
}

// score reads a member's score through the batch (this command's own
// writes included).
func (z *zwriter) score(member []byte) (float64, bool, error) {
	if !z.c.Exists && z.c.Meta.Version == 0 || !z.tx.mayHold(z.c, member) {
		return 0, false, nil
	}
	v, err := z.tx.r.Get(z.subKey(member), z.gb[:0])
	switch {
	case errors.Is(err, engine.ErrNotFound):
		return 0, false, nil
	case err != nil:
		return 0, false, err
	}
	z.gb = v
	s, err := encoding.DecodeScore(v)
	if err != nil {
		return 0, false, fmt.Errorf("zset %q member %q: %w", z.c.key, member, err)
	}
	return s, true, nil
}

// put writes both records of a member new to the set.
func (z *zwriter) put(member []byte, score float64) error {
	if over(len(member), z.tx.limits().ZSetValue) {
		z.longMember = zyes
	}
	score, err := z.storedScore(member, score, true)
	if err != nil {
		return err
	}
	z.widen(encoding.ScoreBits(score))
	if err := z.writeScore(member, score); err != nil {
		return err
	}
	z.c.Meta.Size++
	return nil
}

// move changes the score of a member from old to score.
func (z *zwriter) move(member []byte, old, score float64) error {
	score, err := z.storedScore(member, score, false)
	if err != nil {
		return err
	}
	if err := z.tx.del(z.c, z.scoreKey(old, member)); err != nil {
		return err
	}
	z.left(encoding.ScoreBits(old), z.sb)
	z.widen(encoding.ScoreBits(score))
	return z.writeScore(member, score)
}

// storedScore is the score a write of member stores: score itself, except
// that a -0 becomes 0 where Redis would not keep its sign (keepNegZero).
func (z *zwriter) storedScore(member []byte, score float64, adding bool) (float64, error) {
	if !encoding.IsNegZero(score) {
		return score, nil
	}
	keep, err := z.keepNegZero(member, adding)
	if err != nil || keep {
		return score, err
	}
	return 0, nil
}

// writeScore writes a member's record and its score index entry.
func (z *zwriter) writeScore(member []byte, score float64) error {
	if err := z.tx.set(z.c, z.subKey(member), encoding.AppendMemberScore(z.vb[:0], score)); err != nil {
		return err
	}
	k := z.scoreKey(score, member)
	z.lowGone.rewritten(k)
	z.highGone.rewritten(k)
	return z.tx.set(z.c, k, encoding.AppendScoreIndexValue(z.ib[:0], score))
}

// keepNegZero reports whether a -0 score written now for member keeps its
// sign. Redis keeps it only in a set it holds as a skiplist: its listpack
// stores a score that is a whole number as an integer, and -0 passes that
// test as 0. A set is a listpack until it exceeds zset-max-listpack-entries
// members or gains a member longer than zset-max-listpack-value bytes (the
// member being added counts: Redis converts before inserting it); Cairn
// judges by the current contents, as ZSetEncoding does, where Redis would
// remember a set that has shrunk back.
// adding says member is new to the set.
func (z *zwriter) keepNegZero(member []byte, adding bool) (bool, error) {
	lim := z.tx.limits()
	switch {
	case z.skiplist != zunknown:
		return z.skiplist == zyes, nil
	case over(len(member), lim.ZSetValue):
		return true, nil
	}
	size := z.c.Meta.Size
	if adding {
		size++
	}
	if over(size, lim.ZSetEntries) {
		return true, nil
	}
	if z.longMember == zunknown {
		// At most zset-max-listpack-entries members to look at, and only
		// when a -0 is written.
		z.longMember = zno
		it, err := z.tx.iter(z.c, encoding.FamilySub, nil, nil)
		if err != nil {
			return false, err
		}
		plen := len(z.c.Prefix(encoding.FamilySub))
		for ok := it.First(); ok; ok = it.Next() {
			if over(len(it.Key())-plen, lim.ZSetValue) {
				z.longMember = zyes
				break
			}
		}
		if err := errors.Join(it.Error(), it.Close()); err != nil {
			return false, err
		}
	}
	return z.longMember == zyes, nil
}

// remove deletes both records of a member.
func (z *zwriter) remove(member []byte, score float64) error {
	if err := z.tx.del(z.c, z.subKey(member)); err != nil {
		return err
	}
	if err := z.tx.del(z.c, z.scoreKey(score, member)); err != nil {
		return err
	}
	z.left(encoding.ScoreBits(score), z.sb)
	z.c.Meta.Size--
	return nil
}

// ZAdd adds members or updates their scores under ZADD's conditions. A
// member repeated in pairs is added, then updated, as in Redis. The caller
// has checked the option combinations (NX with XX, GT or LT; INCR with more
// than one pair).
func (tx *Tx) ZAdd(db int, key []byte, a ZAddArgs, pairs []ZMember) (ZAddResult, error) {
	var res ZAddResult
	z, err := tx.openZSet(db, key)
	if err != nil {
		return res, err
	}
	if !z.c.Exists {
		if a.XX {
			return res, nil
		}
		if err := tx.create(z.c); err != nil {
			return res, err
		}
	}
	for _, p := range pairs {
		cur, found, err := z.score(p.Member)
		if err != nil {
			return res, err
		}
		score := p.Score
		if !found {
			if a.XX {
				continue
			}
			if err := z.put(p.Member, score); err != nil {
				return res, err
			}
			res.Added++
			res.Score, res.Done = score, true
			continue
		}
		if a.NX {
			continue
		}
		if a.Incr {
			score += cur
			if math.IsNaN(score) {
				return res, ErrScoreNaN
			}
		}
		if (a.LT && score >= cur) || (a.GT && score <= cur) {
			continue
		}
		res.Score, res.Done = score, true
		if score == cur {
			continue
		}
		if err := z.move(p.Member, cur, score); err != nil {
			return res, err
		}
		res.Updated++
	}
	if res.Added+res.Updated == 0 {
		return res, nil
	}
	return res, z.save()
}

// ZRem removes members and returns how many there were.
func (tx *Tx) ZRem(db int, key []byte, members [][]byte) (int64, error) {
	z, err := tx.openZSet(db, key)
	if err != nil || !z.c.Exists {
		return 0, err
	}
	var n int64
	for _, m := range members {
		s, found, err := z.score(m)
		if err != nil {
			return 0, err
		}
		if !found {
			continue
		}
		if err := z.remove(m, s); err != nil {
			return 0, err
		}
		n++
	}
	if n == 0 {
		return 0, nil
	}
	return n, z.save()
}

// zrunRangeDelete is the length from which zdropRun deletes a run of the
// score index with one range tombstone instead of a point tombstone per
// entry. Short runs get point tombstones: each range tombstone in a
// memtable makes every new iterator over it re-fragment all of them, so
// one per ZPOPMIN would make a churned set's reads and writes O(n) in the
// number of tombstones (BenchmarkZSetHeadChurn shows the collapse).
const zrunRangeDelete = 64

// zdropRun removes a run of consecutive score index entries gathered by a
// runCollector. Taking every member deletes the key instead (save: one
// range tombstone per family, whatever the size).
//
// A long run's score index part is one range tombstone rather than a point
// tombstone per entry: one record instead of thousands for a big
// ZREMRANGEBYSCORE, and once a flush has put the tombstone and the entries
// it covers in different levels, readers jump over the run with one seek
// and compaction drops the covered entries at once. The member index needs
// point deletes either way (its entries are spread by member bytes).
func (tx *Tx) zdropRun(z *zwriter, run *runCollector) error {
	if uint64(len(run.members)) >= z.c.Meta.Size {
		z.c.Meta.Size = 0
		return nil
	}
	for _, m := range run.members {
		if err := tx.del(z.c, z.subKey(m)); err != nil {
			return err
		}
	}
	z.c.Meta.Size -= uint64(len(run.members))
	for _, sc := range run.scores {
		z.left(encoding.ScoreBits(sc), nil)
	}
	if len(run.members) < zrunRangeDelete {
		for i, m := range run.members {
			if err := tx.del(z.c, z.scoreKey(run.scores[i], m)); err != nil {
				return err
			}
		}
		return nil
	}
	if err := tx.checkWrite(z.c.key); err != nil {
		return err
	}
	first, last := run.first, run.last
	if bytes.Compare(first, last) > 0 {
		first, last = last, first
	}
	return tx.b.DeleteRange(first, append(bytes.Clone(last), 0))
}

// runCollector gathers a run of score index entries for zdropRun and,
// optionally, the members for the reply.
type runCollector struct {
	// first and last are the keys of the run's ends, in walking order.
	first, last []byte
	members     [][]byte
	scores      []float64
	out         *zarena
}

func (r *runCollector) add(k, val []byte, plen int) error {
	score, member, err := zscored(k, val, plen)
	if err != nil {
		return err
	}
	if r.first == nil {
		r.first = bytes.Clone(k)
	}
	r.last = append(r.last[:0], k...)
	r.members = append(r.members, bytes.Clone(member))
	r.scores = append(r.scores, score)
	if r.out != nil {
		r.out.add(member, score)
	}
	return nil
}

// ZPop removes and returns up to count members with the lowest scores
// (with highest, the highest), in pop order. An absent key yields
// nothing; a count below 1 only checks the key's type. It is the core of
// ZPOPMIN, ZPOPMAX, ZMPOP and their blocking variants.
func (tx *Tx) ZPop(db int, key []byte, highest bool, count int64) ([]ZMember, error) {
	z, err := tx.openZSet(db, key)
	if err != nil || !z.c.Exists || count < 1 {
		return nil, err
	}
	p := z.c.Prefix(encoding.FamilyScore)
	if count == 1 {
		return tx.zpopOne(z, p, highest)
	}
	it, err := tx.r.NewIter(zboundKeys(p, z.bounds))
	if err != nil {
		return nil, err
	}
	var out zarena
	run := runCollector{out: &out}
	step := it.Next
	ok := it.First()
	if highest {
		step, ok = it.Prev, it.Last()
	}
	for n := int64(0); ok && n < count; ok, n = step(), n+1 {
		if err := run.add(it.Key(), it.Value(), len(p)); err != nil {
			it.Close()
			return nil, err
		}
	}
	// The iterator now rests on the member left at this end, if any: the
	// new bound, exact, with no second lookup.
	var next uint64
	if ok {
		if next, err = zbits(it.Key(), len(p)); err != nil {
			it.Close()
			return nil, err
		}
	}
	if err := errors.Join(it.Error(), it.Close()); err != nil {
		return nil, err
	}
	if len(run.members) == 0 {
		return nil, nil
	}
	if err := tx.zdropRun(z, &run); err != nil {
		return nil, err
	}
	if ok {
		z.setBound(highest, next)
	}
	return out.done(), z.save()
}

// zpopOne is ZPop of one member (ZPOPMIN and ZPOPMAX without a count,
// BZPOPMIN, BZPOPMAX): the general path without its run bookkeeping, one
// allocation for the reply. The set exists.
func (tx *Tx) zpopOne(z *zwriter, p []byte, highest bool) ([]ZMember, error) {
	r := tx.r
	if tx.b != nil && tx.b.Empty() {
		// The key is locked and this Tx has written nothing: the engine
		// holds what the batch would show, and its iterators skip the
		// batch's level.
		r = tx.s.eng
	}
	it, err := r.NewIter(zboundKeys(p, z.bounds))
	if err != nil {
		return nil, err
	}
	ok := it.First()
	if highest {
		ok = it.Last()
	}
	if !ok {
		err := errors.Join(it.Error(), it.Close())
		if err == nil {
			err = fmt.Errorf("%w: zset %q of %d members has no score index entry within its bounds", encoding.ErrCorrupt, z.c.key, z.c.Meta.Size)
		}
		return nil, err
	}
	score, member, err := zscored(it.Key(), it.Value(), len(p))
	if err != nil {
		it.Close()
		return nil, err
	}
	out := []ZMember{{Member: bytes.Clone(member), Score: score}}
	if out[0].Member == nil {
		out[0].Member = []byte{}
	}
	// The member left at this end, if any, is the new bound.
	if highest {
		ok = it.Prev()
	} else {
		ok = it.Next()
	}
	var next uint64
	if ok {
		next, err = zbits(it.Key(), len(p))
	}
	if err := errors.Join(err, it.Error(), it.Close()); err != nil {
		return nil, err
	}
	if z.c.Meta.Size <= 1 {
		// The last member: save deletes the key and its records.
		z.c.Meta.Size = 0
		return out, z.save()
	}
	if err := z.remove(out[0].Member, score); err != nil {
		return nil, err
	}
	if ok {
		z.setBound(highest, next)
	}
	return out, z.save()
}

// ZMPop pops from the first of keys that holds a sorted set, as ZMPOP,
// BZMPOP, BZPOPMIN and BZPOPMAX do: absent keys are skipped, and a key of
// another type before the first sorted set is ErrWrongType — unless
// skipOthers, which skips it too (a blocked client that was woken is
// served only from a sorted set, as in Redis). It returns the index in
// keys of the key popped from, or -1 when none holds a sorted set.
func (tx *Tx) ZMPop(db int, keys [][]byte, highest bool, count int64, skipOthers bool) (int, []ZMember, error) {
	for i, k := range keys {
		_, ok, err := tx.typedMeta(db, k, encoding.TypeZSet)
		if skipOthers && err == ErrWrongType {
			continue
		}
		if err != nil {
			return -1, nil, err
		}
		if !ok {
			continue
		}
		ms, err := tx.ZPop(db, k, highest, count)
		return i, ms, err
	}
	return -1, nil, nil
}

// ZRemRange removes the members of a range (ZREMRANGEBYRANK, BYSCORE,
// BYLEX; r.Rev, Offset and Count are ignored) and returns how many.
func (tx *Tx) ZRemRange(db int, key []byte, r ZRange) (int64, error) {
	z, err := tx.openZSet(db, key)
	if err != nil || !z.c.Exists {
		return 0, err
	}
	v := &zview{tx: tx, r: tx.r, m: z.c.Meta, bounds: z.bounds, score: z.c.Prefix(encoding.FamilyScore), sub: z.c.Prefix(encoding.FamilySub)}
	r.Rev, r.Offset, r.Count = false, 0, -1
	if r.By == ZByRank {
		start, stop, ok := clampRanks(r.Start, r.Stop, int64(v.m.Size))
		if !ok {
			return 0, nil
		}
		if start == 0 && stop == int64(v.m.Size)-1 {
			// Everything: no need to read what is deleted.
			n := int64(v.m.Size)
			z.c.Meta.Size = 0
			return n, z.save()
		}
	}
	run := runCollector{}
	if err := v.walk(r, func(k, val []byte) error { return run.add(k, val, len(v.score)) }); err != nil {
		return 0, err
	}
	if len(run.members) == 0 {
		return 0, nil
	}
	if err := tx.zdropRun(z, &run); err != nil {
		return 0, err
	}
	return int64(len(run.members)), z.save()
}

// zstoreBuild says how Redis builds a stored result, which decides where a
// -0 score keeps its sign (see keepNegZero).
type zstoreBuild uint8

const (
	// zstoreWhole: as a skiplist, converted to a listpack at the end if
	// it fits one (ZUNIONSTORE and friends: zsetConvertToListpackIfNeeded),
	// so the whole result decides.
	zstoreWhole zstoreBuild = iota
	// zstoreGrown: as a listpack, grown member by member in the result's
	// order and converted to a skiplist by the insertion that overflows it
	// (ZRANGESTORE BYSCORE or BYLEX, whose length is not known up front):
	// a -0 keeps its sign only if a member before it (or itself) was
	// longer than the listpack limit or it came after the 128th.
	zstoreGrown
	// zstoreSized: as zstoreGrown, but a skiplist from the start when the
	// length, known up front, exceeds the listpack limit (ZRANGESTORE by
	// rank: zrangeResultBeginStore).
	zstoreSized
)

// zstore replaces whatever dst holds with a sorted set of ms (distinct
// members, in the order Redis adds them), or deletes dst when ms is empty,
// as ZRANGESTORE, ZUNIONSTORE and friends do. The deadline of dst goes
// with it.
func (tx *Tx) zstore(db int, dst []byte, ms []ZMember, build zstoreBuild) (int64, error) {
	if len(ms) == 0 {
		_, err := tx.deleteKey(db, dst)
		return 0, err
	}
	c := &collection{db: db, pdb: tx.s.phys(db), key: dst, Meta: encoding.Meta{Type: encoding.TypeZSet}}
	if err := tx.create(c); err != nil {
		return 0, err
	}
	z := &zwriter{tx: tx, c: c, skiplist: zno}
	lim := tx.limits()
	long := func(m ZMember) bool { return over(len(m.Member), lim.ZSetValue) }
	switch build {
	case zstoreWhole:
		if over(len(ms), lim.ZSetEntries) || slices.ContainsFunc(ms, long) {
			z.skiplist = zyes
		}
	case zstoreSized:
		if over(len(ms), lim.ZSetEntries) {
			z.skiplist = zyes
		}
	}
	for i, m := range ms {
		if build != zstoreWhole && (over(i+1, lim.ZSetEntries) || long(m)) {
			z.skiplist = zyes
		}
		if err := z.put(m.Member, m.Score); err != nil {
			return 0, err
		}
	}
	c.Meta.Value = encoding.AppendZSetMeta(nil, z.bounds)
	return int64(len(ms)), tx.putMeta(db, dst, &c.Meta)
}

// ZRangeStore stores the range r of src in dst (replacing it; deleting it
// when the range is empty) and returns the number of members stored.
func (tx *Tx) ZRangeStore(db int, dst, src []byte, r ZRange) (int64, error) {
	ms, err := tx.zrange(db, src, r, false)
	if err != nil {
		return 0, err
	}
	build := zstoreGrown
	if r.By == ZByRank {
		build = zstoreSized
	}
	return tx.zstore(db, dst, ms, build)
}

// --- Reading ------------------------------------------------------------------

// zview is a sorted set as one read sees it.
type zview struct {
	tx  *Tx
	r   engine.Reader
	m   encoding.Meta
	pdb uint16
	key []byte
	// bounds confine the score index (see the top of this file); lo and hi
	// are their keys, built on first use.
	bounds encoding.ZSetMeta
	lo, hi []byte
	// sub and score are the families' prefixes, built on first use.
	sub, score []byte
	// snap is the view's own snapshot, released by close.
	snap engine.Snapshot
}

func (v *zview) subPrefix() []byte {
	if v.sub == nil {
		v.sub = encoding.AppendSubKeyPrefix(nil, encoding.FamilySub, v.pdb, v.key, v.m.Version)
	}
	return v.sub
}

func (v *zview) scorePrefix() []byte {
	if v.score == nil {
		v.score = encoding.AppendSubKeyPrefix(nil, encoding.FamilyScore, v.pdb, v.key, v.m.Version)
	}
	return v.score
}

func (v *zview) close() {
	if v.snap != nil {
		_ = v.snap.Close()
		v.snap = nil
	}
}

// zread opens key as a sorted set for reading. With stable, the metadata
// and every iterator of the view see one state (the view takes a snapshot
// unless the Tx already reads one: a writer's batch under the key's lock,
// or a snapshot): every reader of the score index asks for it, since the
// bounds it iterates within and the size it counts ranks with must be
// those of the state it iterates. A bound read before a concurrent ZADD
// below it would hide the new member from an iterator opened after. Point
// reads (ZSCORE, ZCARD) and reads of the member index alone need no
// snapshot. counted makes the lookup count as a keyspace hit or miss, as
// Redis's lookupKeyRead does. The view is nil when the key is absent;
// close it when done.
func (tx *Tx) zread(db int, key []byte, stable, counted bool) (*zview, error) {
	v := &zview{tx: tx, r: tx.r}
	var m encoding.Meta
	var ok bool
	var err error
	if stable && tx.b == nil && tx.snap == nil {
		v.snap = tx.s.eng.NewView()
		v.r = v.snap
		m, ok, err = tx.zmetaFromView(v.snap, db, key)
	} else {
		m, ok, err = tx.typedMeta(db, key, encoding.TypeZSet)
	}
	if counted && err == nil {
		if ok {
			tx.s.stats.KeyspaceHits.Add(1)
		} else {
			tx.s.stats.KeyspaceMisses.Add(1)
		}
	}
	if err != nil || !ok {
		v.close()
		return nil, err
	}
	if v.bounds, err = encoding.DecodeZSetMeta(m.Value); err != nil {
		v.close()
		return nil, fmt.Errorf("zset %q: %w", key, err)
	}
	m.Value = nil
	v.m, v.pdb, v.key = m, tx.s.phys(db), key
	return v, nil
}

// zmetaFromView reads a live sorted set's metadata for a reader about to
// read through view, which nothing has read yet, bypassing the Tx's
// metadata cache (which may hold an older state than the view): see
// zmetaThrough.
func (tx *Tx) zmetaFromView(view engine.Snapshot, db int, key []byte) (encoding.Meta, bool, error) {
	return zsetMeta(tx.zmetaThrough(view, view, db, key))
}

// zsetMeta passes on what zmetaFromAny read, refusing a key of another
// type.
func zsetMeta(m encoding.Meta, ok bool, err error) (encoding.Meta, bool, error) {
	if err == nil && ok && m.Type != encoding.TypeZSet {
		return m, false, ErrWrongType
	}
	return m, ok, err
}

// zentry splits a score index key (family prefix of length plen) into its
// score and member; member aliases k.
func zentry(k []byte, plen int) (float64, []byte, error) {
	if len(k) < plen+8 {
		return 0, nil, fmt.Errorf("%w: score index key of %d bytes", encoding.ErrCorrupt, len(k))
	}
	return encoding.ScoreFromBits(binary.BigEndian.Uint64(k[plen:])), k[plen+8:], nil
}

// zscored is zentry for a score index entry with its value: the score is
// -0 where the value marks it so.
func zscored(k, val []byte, plen int) (float64, []byte, error) {
	score, member, err := zentry(k, plen)
	if err != nil {
		return 0, nil, err
	}
	if len(val) != 0 {
		if score, err = encoding.ScoreFromIndex(score, val); err != nil {
			return 0, nil, fmt.Errorf("zset member %q: %w", member, err)
		}
	}
	return score, member, nil
}

// zbits reads the score bits of a score index key (family prefix of
// length plen).
func zbits(k []byte, plen int) (uint64, error) {
	if len(k) < plen+8 {
		return 0, fmt.Errorf("%w: score index key of %d bytes", encoding.ErrCorrupt, len(k))
	}
	return binary.BigEndian.Uint64(k[plen:]), nil
}

// scoreIter opens an iterator over [lo, hi) of the score index (nil: that
// end of the index), confined to the set's bounds, so that no walk from an
// end of the index reaches the dead entries beyond a bound.
func (v *zview) scoreIter(lo, hi []byte) (engine.Iterator, error) {
	if v.lo == nil {
		v.lo, v.hi = zboundKeys(v.scorePrefix(), v.bounds)
	}
	if lo == nil || bytes.Compare(lo, v.lo) < 0 {
		lo = v.lo
	}
	if hi == nil || bytes.Compare(hi, v.hi) > 0 {
		hi = v.hi
	}
	if bytes.Compare(lo, hi) > 0 {
		hi = lo
	}
	return v.r.NewIter(lo, hi)
}

// zarena copies members into one buffer, so a reply of n members costs a
// few allocations instead of n.
type zarena struct {
	buf    []byte
	ends   []int
	scores []float64
}

func (a *zarena) add(member []byte, score float64) {
	a.buf = append(a.buf, member...)
	a.ends = append(a.ends, len(a.buf))
	a.scores = append(a.scores, score)
}

func (a *zarena) len() int { return len(a.ends) }

func (a *zarena) done() []ZMember {
	out := make([]ZMember, len(a.ends))
	start := 0
	for i, end := range a.ends {
		out[i] = ZMember{Member: a.buf[start:end:end], Score: a.scores[i]}
		start = end
	}
	return out
}

// clampRanks applies Redis's rank rules to [start, stop] over n members:
// negative ranks count from the end, the range is clipped to the set, and
// ok is false when nothing is left.
func clampRanks(start, stop, n int64) (int64, int64, bool) {
	if start < 0 {
		start += n
	}
	if stop < 0 {
		stop += n
	}
	start = max(start, 0)
	if start > stop || start >= n {
		return 0, 0, false
	}
	return start, min(stop, n-1), true
}

// scoreBounds turns a score range into score index key bounds [lo, hi);
// ok is false when the range is empty whatever the set holds.
func scoreBounds(prefix []byte, min, max ScoreBound) (lo, hi []byte, ok bool) {
	if min.Score > max.Score || (min.Score == max.Score && (min.Exclusive || max.Exclusive)) {
		return nil, nil, false
	}
	// ScoreBits orders scores as numbers and gives -0 and +0 one code, so
	// the code after a score's is the first of the scores above it.
	l, h := encoding.ScoreBits(min.Score), encoding.ScoreBits(max.Score)
	if min.Exclusive {
		l++
	}
	if !max.Exclusive {
		h++
	}
	if l >= h {
		return nil, nil, false
	}
	lo = binary.BigEndian.AppendUint64(bytes.Clone(prefix), l)
	hi = binary.BigEndian.AppendUint64(bytes.Clone(prefix), h)
	return lo, hi, true
}

// lexEmpty reports a lex range that is empty whatever the set holds, as
// Redis's zslIsInLexRange tests it.
func lexEmpty(min, max LexBound) bool {
	c := lexCompareBounds(min, max)
	return c > 0 || (c == 0 && (min.Exclusive || max.Exclusive || min.Kind != LexValue))
}

func lexCompareBounds(a, b LexBound) int {
	if a.Kind != LexValue || b.Kind != LexValue {
		return cmp.Compare(lexRank(a.Kind), lexRank(b.Kind))
	}
	return bytes.Compare(a.Value, b.Value)
}

func lexRank(k LexKind) int {
	switch k {
	case LexMinInf:
		return -1
	case LexMaxInf:
		return 1
	}
	return 0
}

// lexGteMin and lexLteMax test a member against one end of a lex range.
func lexGteMin(m []byte, min LexBound) bool {
	switch min.Kind {
	case LexMinInf:
		return true
	case LexMaxInf:
		return false
	}
	c := bytes.Compare(m, min.Value)
	return c > 0 || (c == 0 && !min.Exclusive)
}

func lexLteMax(m []byte, max LexBound) bool {
	switch max.Kind {
	case LexMinInf:
		return false
	case LexMaxInf:
		return true
	}
	c := bytes.Compare(m, max.Value)
	return c < 0 || (c == 0 && !max.Exclusive)
}

// ends returns the first and last score index keys (copies), ok false when
// the index is empty.
func (v *zview) ends() (first, last []byte, ok bool, err error) {
	it, err := v.scoreIter(nil, nil)
	if err != nil {
		return nil, nil, false, err
	}
	if it.First() {
		first = bytes.Clone(it.Key())
		if it.Last() {
			last = bytes.Clone(it.Key())
		}
	}
	if err := errors.Join(it.Error(), it.Close()); err != nil {
		return nil, nil, false, err
	}
	return first, last, first != nil && last != nil, nil
}

// lexSpan resolves a lex range to score index key bounds [lo, hi) for a
// walk in the given direction; ok is false when nothing is in range.
//
// Redis defines lex ranges for sets whose members all have one score; then
// the range is a run of that score's entries, found with one seek. For a
// set with mixed scores (mixed true) Redis leaves the result unspecified;
// this follows what Redis does for a small (listpack) set, which is also
// what a linear scan gives: the first member in range walking in the
// range's direction starts the run, and the run ends at the first member
// past its far end. That fallback reads up to the whole set.
func (v *zview) lexSpan(min, max LexBound, rev bool) (lo, hi []byte, ok, mixed bool, err error) {
	if lexEmpty(min, max) {
		return nil, nil, false, false, nil
	}
	first, last, ok, err := v.ends()
	if err != nil || !ok {
		return nil, nil, false, false, err
	}
	plen := len(v.scorePrefix())
	_, fm, err := zentry(first, plen)
	if err != nil {
		return nil, nil, false, false, err
	}
	_, lm, err := zentry(last, plen)
	if err != nil {
		return nil, nil, false, false, err
	}
	// zzlIsInLexRange: the first member must not be above max, the last
	// not below min.
	if !lexGteMin(lm, min) || !lexLteMax(fm, max) {
		return nil, nil, false, false, nil
	}
	if bytes.Equal(first[plen:plen+8], last[plen:plen+8]) {
		sp := first[:plen+8]
		switch min.Kind {
		case LexMinInf:
			lo = bytes.Clone(sp)
		default:
			lo = append(bytes.Clone(sp), min.Value...)
			if min.Exclusive {
				lo = append(lo, 0)
			}
		}
		switch max.Kind {
		case LexMaxInf:
			hi = encoding.PrefixEnd(sp)
		default:
			hi = append(bytes.Clone(sp), max.Value...)
			if !max.Exclusive {
				hi = append(hi, 0)
			}
		}
		return lo, hi, bytes.Compare(lo, hi) < 0, false, nil
	}
	it, err := v.scoreIter(nil, nil)
	if err != nil {
		return nil, nil, false, true, err
	}
	defer it.Close()
	gte := func(m []byte) bool { return lexGteMin(m, min) }
	lte := func(m []byte) bool { return lexLteMax(m, max) }
	start, inRange := gte, lte
	step, ok := it.Next, it.First()
	if rev {
		start, inRange = lte, gte
		step, ok = it.Prev, it.Last()
	}
	var a, b []byte
	for ; ok; ok = step() {
		_, m, err := zentry(it.Key(), plen)
		if err != nil {
			return nil, nil, false, true, err
		}
		if a == nil {
			if !start(m) {
				continue
			}
			if !inRange(m) {
				break
			}
			a = bytes.Clone(it.Key())
		} else if !inRange(m) {
			break
		}
		b = append(b[:0], it.Key()...)
	}
	if err := it.Error(); err != nil || a == nil {
		return nil, nil, false, true, err
	}
	if rev {
		a, b = b, a
	}
	return a, append(bytes.Clone(b), 0), true, true, nil
}

// walkLexOffset is walk for a lex range with an offset over a set with
// mixed scores (see lexSpan), as Redis walks its listpack: from the first
// member in range, it skips the offset's members whether in range or not,
// then takes members up to the count while they are not past the range's
// far end. In a set of mixed scores a member past the offset may be in
// range again although one skipped was not. lo and hi are lexSpan's span,
// whose first member (the last, reversed) is where the walk starts.
func (v *zview) walkLexOffset(r ZRange, lo, hi []byte, fn func(k, val []byte) error) error {
	var it engine.Iterator
	var err error
	if r.Rev {
		it, err = v.scoreIter(nil, hi)
	} else {
		it, err = v.scoreIter(lo, nil)
	}
	if err != nil {
		return err
	}
	step, ok := it.Next, it.First()
	inRange := func(m []byte) bool { return lexLteMax(m, r.LexMax) }
	if r.Rev {
		step, ok = it.Prev, it.Last()
		inRange = func(m []byte) bool { return lexGteMin(m, r.LexMin) }
	}
	for skip := r.Offset; ok && skip > 0; skip-- {
		ok = step()
	}
	plen := len(v.scorePrefix())
	for n := r.Count; ok && n != 0; ok, n = step(), n-1 {
		_, m, err := zentry(it.Key(), plen)
		if err != nil {
			it.Close()
			return err
		}
		if !inRange(m) {
			break
		}
		if err := fn(it.Key(), it.Value()); err != nil {
			it.Close()
			return err
		}
	}
	return errors.Join(it.Error(), it.Close())
}

// walk calls fn with each score index entry (key and value) of range r, in
// the range's order, after r.Offset and up to r.Count (ZByScore and
// ZByLex). They are valid only during the call.
func (v *zview) walk(r ZRange, fn func(k, val []byte) error) error {
	var lo, hi []byte
	switch r.By {
	case ZByRank:
		return v.walkRanks(r.Start, r.Stop, r.Rev, fn)
	case ZByScore:
		var ok bool
		if lo, hi, ok = scoreBounds(v.scorePrefix(), r.Min, r.Max); !ok {
			return nil
		}
	case ZByLex:
		var ok, mixed bool
		var err error
		if lo, hi, ok, mixed, err = v.lexSpan(r.LexMin, r.LexMax, r.Rev); err != nil || !ok {
			return err
		}
		if mixed && r.Offset > 0 && r.Count != 0 {
			return v.walkLexOffset(r, lo, hi, fn)
		}
	}
	if r.Offset < 0 || r.Count == 0 {
		return nil
	}
	it, err := v.scoreIter(lo, hi)
	if err != nil {
		return err
	}
	step, ok := it.Next, it.First()
	if r.Rev {
		step, ok = it.Prev, it.Last()
	}
	for skip := r.Offset; ok && skip > 0; skip-- {
		ok = step()
	}
	for n := r.Count; ok && n != 0; ok, n = step(), n-1 {
		if err := fn(it.Key(), it.Value()); err != nil {
			it.Close()
			return err
		}
	}
	return errors.Join(it.Error(), it.Close())
}

// walkRanks calls fn with the score index entries of ranks [start, stop]
// (Redis's rules; rev counts from the highest score), in that order. It
// starts from whichever end of the index is nearer: O(min(start, N-stop))
// plus what it returns. The view must be stable (the size is trusted).
func (v *zview) walkRanks(start, stop int64, rev bool, fn func(k, val []byte) error) error {
	n := int64(v.m.Size)
	start, stop, ok := clampRanks(start, stop, n)
	if !ok {
		return nil
	}
	// Forward ranks [a, b].
	a, b := start, stop
	if rev {
		a, b = n-1-stop, n-1-start
	}
	it, err := v.scoreIter(nil, nil)
	if err != nil {
		return err
	}
	fromHead := a <= n-1-b
	step, ok, skip := it.Next, it.First(), a
	if !fromHead {
		step, ok, skip = it.Prev, it.Last(), n-1-b
	}
	for ; ok && skip > 0; skip-- {
		ok = step()
	}
	if fromHead == !rev {
		// Walking in the order wanted: stream.
		for i := b - a; ok && i >= 0; ok, i = step(), i-1 {
			if err := fn(it.Key(), it.Value()); err != nil {
				it.Close()
				return err
			}
		}
		return errors.Join(it.Error(), it.Close())
	}
	// Walking against the order wanted: collect, then replay backwards.
	type span struct{ k, v int } // ends of an entry's key and value in buf
	var buf []byte
	var spans []span
	for i := b - a; ok && i >= 0; ok, i = step(), i-1 {
		buf = append(buf, it.Key()...)
		k := len(buf)
		buf = append(buf, it.Value()...)
		spans = append(spans, span{k, len(buf)})
	}
	if err := errors.Join(it.Error(), it.Close()); err != nil {
		return err
	}
	for i := len(spans) - 1; i >= 0; i-- {
		s := 0
		if i > 0 {
			s = spans[i-1].v
		}
		e := spans[i]
		if err := fn(buf[s:e.k:e.k], buf[e.k:e.v]); err != nil {
			return err
		}
	}
	return nil
}

// zrange reads range r of key: the ZRANGE family's core.
func (tx *Tx) zrange(db int, key []byte, r ZRange, counted bool) ([]ZMember, error) {
	v, err := tx.zread(db, key, true, counted)
	if err != nil || v == nil {
		return nil, err
	}
	defer v.close()
	var out zarena
	err = v.walk(r, func(k, val []byte) error {
		s, m, err := zscored(k, val, len(v.scorePrefix()))
		if err == nil {
			out.add(m, s)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return out.done(), nil
}

// ZRange returns the members of range r, in its order.
func (tx *Tx) ZRange(db int, key []byte, r ZRange) ([]ZMember, error) {
	return tx.zrange(db, key, r, true)
}

// ZCard returns the number of members (0 for an absent key).
func (tx *Tx) ZCard(db int, key []byte) (int64, error) {
	v, err := tx.zread(db, key, false, true)
	if err != nil || v == nil {
		return 0, err
	}
	return int64(v.m.Size), nil
}

// zscoreIn reads a member's score in a view.
func (v *zview) zscoreIn(member []byte) (float64, bool, error) {
	tx := v.tx
	tx.keyBuf2 = append(append(tx.keyBuf2[:0], v.subPrefix()...), member...)
	b, err := v.r.Get(tx.keyBuf2, tx.valBuf[:0])
	switch {
	case errors.Is(err, engine.ErrNotFound):
		return 0, false, nil
	case err != nil:
		return 0, false, err
	}
	tx.valBuf = b
	s, err := encoding.DecodeScore(b)
	if err != nil {
		return 0, false, fmt.Errorf("zset member %q: %w", member, err)
	}
	return s, true, nil
}

// ZScore returns a member's score.
func (tx *Tx) ZScore(db int, key, member []byte) (float64, bool, error) {
	v, err := tx.zread(db, key, false, true)
	if err != nil || v == nil {
		return 0, false, err
	}
	return v.zscoreIn(member)
}

// ZMScore returns the scores of members; found[i] is false for a member
// (or key) that does not exist.
func (tx *Tx) ZMScore(db int, key []byte, members [][]byte) (scores []float64, found []bool, err error) {
	scores, found = make([]float64, len(members)), make([]bool, len(members))
	v, err := tx.zread(db, key, false, true)
	if err != nil || v == nil {
		return scores, found, err
	}
	for i, m := range members {
		if scores[i], found[i], err = v.zscoreIn(m); err != nil {
			return nil, nil, err
		}
	}
	return scores, found, nil
}

// ZRank returns a member's rank (counted from the highest score with rev)
// and its score. O(min(rank, N-rank)): see the top of this file.
func (tx *Tx) ZRank(db int, key, member []byte, rev bool) (rank int64, score float64, found bool, err error) {
	v, err := tx.zread(db, key, true, true)
	if err != nil || v == nil {
		return 0, 0, false, err
	}
	defer v.close()
	score, found, err = v.zscoreIn(member)
	if err != nil || !found {
		return 0, 0, false, err
	}
	target := encoding.AppendScoreKey(nil, v.scorePrefix(), score, member)
	// The number of entries before target (from the head) or after it
	// (from the tail), counting from both ends at once and stopping at
	// whichever reaches it first.
	fw, err := v.scoreIter(nil, nil)
	if err != nil {
		return 0, 0, false, err
	}
	defer fw.Close()
	bw, err := v.scoreIter(nil, nil)
	if err != nil {
		return 0, 0, false, err
	}
	defer bw.Close()
	n := int64(v.m.Size)
	fok, bok := fw.First(), bw.Last()
	for i := int64(0); fok || bok; i++ {
		if fok {
			if bytes.Equal(fw.Key(), target) {
				rank = i
				break
			}
			fok = fw.Next()
		}
		if bok {
			if bytes.Equal(bw.Key(), target) {
				rank = n - 1 - i
				break
			}
			bok = bw.Prev()
		}
	}
	if err := errors.Join(fw.Error(), bw.Error()); err != nil {
		return 0, 0, false, err
	}
	if !fok && !bok {
		return 0, 0, false, fmt.Errorf("zset %q: member %q has no score index entry", key, member)
	}
	if rev {
		rank = n - 1 - rank
	}
	return rank, score, true, nil
}

// ZCount returns the number of members with scores in [min, max].
func (tx *Tx) ZCount(db int, key []byte, min, max ScoreBound) (int64, error) {
	v, err := tx.zread(db, key, true, true)
	if err != nil || v == nil {
		return 0, err
	}
	defer v.close()
	lo, hi, ok := scoreBounds(v.scorePrefix(), min, max)
	if !ok {
		return 0, nil
	}
	return v.countSpan(lo, hi)
}

// ZLexCount returns the number of members in a lex range.
func (tx *Tx) ZLexCount(db int, key []byte, min, max LexBound) (int64, error) {
	v, err := tx.zread(db, key, true, true)
	if err != nil || v == nil {
		return 0, err
	}
	defer v.close()
	lo, hi, ok, _, err := v.lexSpan(min, max, false)
	if err != nil || !ok {
		return 0, err
	}
	return v.countSpan(lo, hi)
}

// countSpan counts the entries in [lo, hi) of the score index: it counts
// the entries inside and those outside at the same pace and stops when
// either runs out, so the cost is O(min(inside, outside)). The view must
// be stable.
func (v *zview) countSpan(lo, hi []byte) (int64, error) {
	in, err := v.scoreIter(lo, hi)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	out, err := v.scoreIter(nil, nil)
	if err != nil {
		return 0, err
	}
	defer out.Close()
	// out walks the whole index, jumping over [lo, hi).
	outStep := func(ok bool) bool {
		if ok && bytes.Compare(out.Key(), lo) >= 0 && bytes.Compare(out.Key(), hi) < 0 {
			return out.SeekGE(hi)
		}
		return ok
	}
	var nin, nout int64
	iok, ook := in.First(), outStep(out.First())
	for iok && ook {
		nin++
		iok = in.Next()
		nout++
		ook = outStep(out.Next())
	}
	if err := errors.Join(in.Error(), out.Error()); err != nil {
		return 0, err
	}
	if !iok {
		return nin, nil
	}
	return int64(v.m.Size) - nout, nil
}

// --- Random members -------------------------------------------------------------

// ZRandMember returns one random member.
//
// With no index by rank, reaching a random rank means walking to it from
// the nearer end of the score index: O(N) on average where Redis is O(1).
// Probing random score or member positions instead would be O(log N) but
// unfair: members sit unevenly in both byte spaces, and the member after a
// wide gap would come up far more often than the others.
func (tx *Tx) ZRandMember(db int, key []byte) (ZMember, bool, error) {
	v, err := tx.zread(db, key, true, true)
	if err != nil || v == nil {
		return ZMember{}, false, err
	}
	defer v.close()
	ms, err := v.atRanks([]uint64{rand.Uint64N(v.m.Size)})
	if err != nil {
		return ZMember{}, false, err
	}
	return ms[0], true, nil
}

// ZRandMembers returns min(count, N) distinct random members, as
// ZRANDMEMBER with a positive count does: the whole set from the highest
// score down when count >= N (Redis's iteration order), else a random
// choice, in rank order for a set small enough to be a listpack in Redis
// (as Redis picks from one), in random order for a bigger one. Draws with
// repeats (a negative count) go through NewZRandSampler.
func (tx *Tx) ZRandMembers(db int, key []byte, count int64) ([]ZMember, error) {
	v, err := tx.zread(db, key, true, true)
	if err != nil || v == nil || count <= 0 {
		if v != nil {
			v.close()
		}
		return nil, err
	}
	defer v.close()
	n := v.m.Size
	if uint64(count) >= n {
		var out zarena
		err := v.walkRanks(0, -1, true, func(k, val []byte) error {
			s, m, err := zscored(k, val, len(v.scorePrefix()))
			if err == nil {
				out.add(m, s)
			}
			return err
		})
		return out.done(), err
	}
	var ranks []uint64
	if uint64(count)*3 > n {
		// Selection sampling (Knuth's algorithm S): each rank is taken
		// with the probability that leaves exactly count of them.
		need := uint64(count)
		for i := uint64(0); i < n && need > 0; i++ {
			if rand.Uint64N(n-i) < need {
				ranks = append(ranks, i)
				need--
			}
		}
	} else {
		// Floyd's algorithm: count distinct ranks in O(count).
		chosen := make(map[uint64]struct{}, count)
		for j := n - uint64(count); j < n; j++ {
			r := rand.Uint64N(j + 1)
			if _, dup := chosen[r]; dup {
				r = j
			}
			chosen[r] = struct{}{}
			ranks = append(ranks, r)
		}
		slices.Sort(ranks)
	}
	ms, err := v.atRanks(ranks)
	if err == nil && over(n, tx.limits().ZSetEntries) {
		rand.Shuffle(len(ms), func(i, j int) { ms[i], ms[j] = ms[j], ms[i] })
	}
	return ms, err
}

// ZRandSampler draws random members of one sorted set with repeats
// (ZRANDMEMBER with a negative count), all from one state of the set.
// Close it when done.
type ZRandSampler struct{ v *zview }

// NewZRandSampler returns a sampler over key, or nil when the key is
// absent.
func (tx *Tx) NewZRandSampler(db int, key []byte) (*ZRandSampler, error) {
	v, err := tx.zread(db, key, true, true)
	if err != nil || v == nil {
		return nil, err
	}
	return &ZRandSampler{v: v}, nil
}

// Draw returns n members drawn independently and uniformly, in random
// order, in one pass over the set. Drawing ranks, sorting them, reading
// them in one walk and shuffling the result gives the same distribution
// as drawing one member at a time.
func (s *ZRandSampler) Draw(n int) ([]ZMember, error) {
	ranks := make([]uint64, n)
	for i := range ranks {
		ranks[i] = rand.Uint64N(s.v.m.Size)
	}
	slices.Sort(ranks)
	ms, err := s.v.atRanks(ranks)
	if err != nil {
		return nil, err
	}
	rand.Shuffle(len(ms), func(i, j int) { ms[i], ms[j] = ms[j], ms[i] })
	return ms, nil
}

// Close releases the sampler's view.
func (s *ZRandSampler) Close() { s.v.close() }

// atRanks returns the members at the given ranks (sorted, repeats allowed),
// in that order. Ranks in the lower half are reached from the head, the
// others from the tail, so each end is walked only as far as its farthest
// rank.
func (v *zview) atRanks(ranks []uint64) ([]ZMember, error) {
	n := v.m.Size
	split, _ := slices.BinarySearch(ranks, n/2)
	var out zarena
	it, err := v.scoreIter(nil, nil)
	if err != nil {
		return nil, err
	}
	defer it.Close()
	add := func() error {
		s, m, err := zscored(it.Key(), it.Value(), len(v.scorePrefix()))
		if err == nil {
			out.add(m, s)
		}
		return err
	}
	var rank uint64
	i := 0
	for ok := it.First(); ok && i < split; ok, rank = it.Next(), rank+1 {
		for ; i < split && ranks[i] == rank; i++ {
			if err := add(); err != nil {
				return nil, err
			}
		}
	}
	if i < split {
		return nil, fmt.Errorf("zset: rank %d of %d not found", ranks[i], n)
	}
	// The upper half, from the tail: collected backwards, then reversed.
	var tail zarena
	j := len(ranks) - 1
	rank = n - 1
	for ok := it.Last(); ok && j >= split; ok, rank = it.Prev(), rank-1 {
		for ; j >= split && ranks[j] == rank; j-- {
			s, m, err := zscored(it.Key(), it.Value(), len(v.scorePrefix()))
			if err != nil {
				return nil, err
			}
			tail.add(m, s)
		}
	}
	if err := it.Error(); err != nil {
		return nil, err
	}
	if j >= split {
		return nil, fmt.Errorf("zset: rank %d of %d not found", ranks[j], n)
	}
	ms := out.done()
	tm := tail.done()
	slices.Reverse(tm)
	return append(ms, tm...), nil
}

// --- Set operations ----------------------------------------------------------

// zinput is one input of a set operation: a sorted set, a set (every
// member scoring 1) or nothing (an absent key).
type zinput struct {
	key    []byte
	typ    encoding.Type
	size   uint64
	sub    []byte
	score  []byte
	weight float64
}

// zinputs reads the inputs' metadata through r, failing with ErrWrongType
// on a key that is neither a sorted set nor a set, as Redis checks every
// input before anything else.
func (tx *Tx) zinputs(r engine.Reader, db int, keys [][]byte) ([]zinput, error) {
	ins := make([]zinput, len(keys))
	pdb := tx.s.phys(db)
	for i, k := range keys {
		in := &ins[i]
		in.key, in.weight = k, 1
		var m encoding.Meta
		var ok bool
		var err error
		if r == tx.r {
			m, ok, err = tx.meta(db, k)
		} else {
			m, ok, err = tx.zmetaFromAny(r, db, k)
		}
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if m.Type != encoding.TypeZSet && m.Type != encoding.TypeSet {
			return nil, ErrWrongType
		}
		in.typ, in.size = m.Type, m.Size
		in.sub = encoding.AppendSubKeyPrefix(nil, encoding.FamilySub, pdb, k, m.Version)
		if m.Type == encoding.TypeZSet {
			in.score = encoding.AppendSubKeyPrefix(nil, encoding.FamilyScore, pdb, k, m.Version)
		}
	}
	return ins, nil
}

// zmetaFromAny reads a live key's metadata of any type through r, bypassing
// the Tx's metadata cache, and counts as an access to the key (OBJECT
// IDLETIME), as a read through the cache does. Value aliases a Tx buffer
// that the next read of a member's score (zscoreIn) reuses.
func (tx *Tx) zmetaFromAny(r engine.Reader, db int, key []byte) (encoding.Meta, bool, error) {
	return tx.zmetaThrough(r, nil, db, key)
}

// zmetaThrough is zmetaFromAny; unread, when not nil, is r itself, a view
// nothing has read yet, and the key cache answers when it holds the view's
// record (cachedForView).
func (tx *Tx) zmetaThrough(r engine.Reader, unread engine.Snapshot, db int, key []byte) (encoding.Meta, bool, error) {
	tx.keyBuf = encoding.AppendMetaKey(tx.keyBuf[:0], tx.s.phys(db), key)
	mk := tx.keyBuf
	tx.s.access.touchMetaKey(mk, tx.NowMs, lfuAccess)
	var raw []byte
	var err error
	cached := false
	if unread != nil && tx.s.keys != nil {
		stripe := stripeOf(key)
		var found bool
		var gen uint64
		raw, found, cached, gen = tx.s.keys.lookup(stripe, mk, tx.valBuf[:0])
		if cached = cached && tx.cachedForView(unread, stripe, gen); cached && !found {
			err = engine.ErrNotFound
		}
	}
	if !cached {
		raw, err = r.Get(mk, tx.valBuf[:0])
	}
	if err == nil {
		tx.valBuf = raw
	}
	switch {
	case errors.Is(err, engine.ErrNotFound):
		return encoding.Meta{}, false, nil
	case err != nil:
		return encoding.Meta{}, false, err
	}
	m, err := encoding.DecodeMeta(raw)
	if err != nil {
		return m, false, fmt.Errorf("key %q: %w", key, err)
	}
	return m, !m.Expired(tx.NowMs), nil
}

// each calls fn with every member of the input and its score.
func (in *zinput) each(r engine.Reader, fn func(member []byte, score float64) error) error {
	if in.size == 0 {
		return nil
	}
	it, err := r.NewIter(in.sub, encoding.PrefixEnd(in.sub))
	if err != nil {
		return err
	}
	for ok := it.First(); ok; ok = it.Next() {
		score := 1.0
		if in.typ == encoding.TypeZSet {
			if score, err = encoding.DecodeScore(it.Value()); err != nil {
				it.Close()
				return fmt.Errorf("zset %q: %w", in.key, err)
			}
		}
		if err := fn(it.Key()[len(in.sub):], score); err != nil {
			it.Close()
			return err
		}
	}
	return errors.Join(it.Error(), it.Close())
}

// find looks a member up in the input.
func (in *zinput) find(r engine.Reader, member, buf []byte) (float64, bool, error) {
	if in.size == 0 {
		return 0, false, nil
	}
	v, err := r.Get(append(append(buf[:0], in.sub...), member...), nil)
	switch {
	case errors.Is(err, engine.ErrNotFound):
		return 0, false, nil
	case err != nil:
		return 0, false, err
	case in.typ == encoding.TypeSet:
		return 1, true, nil
	}
	s, err := encoding.DecodeScore(v)
	if err != nil {
		return 0, false, fmt.Errorf("zset %q: %w", in.key, err)
	}
	return s, true, nil
}

// aggregate folds val into *acc as Redis's zunionInterAggregate does: a sum
// that is not a number (inf + -inf, or a val that is NaN) counts as 0; MIN
// and MAX pass a NaN val over, as their comparisons fail.
func aggregate(acc *float64, val float64, agg ZAggregate) {
	switch agg {
	case ZSum:
		*acc += val
		if math.IsNaN(*acc) {
			*acc = 0
		}
	case ZMin:
		if val < *acc {
			*acc = val
		}
	case ZMax:
		if val > *acc {
			*acc = val
		}
	}
}

// weighted is weight × score, with Redis's rule that a product that is not
// a number (0 × inf) counts as 0.
func weighted(w, s float64) float64 {
	v := w * s
	if math.IsNaN(v) {
		return 0
	}
	return v
}

// ZSetOpCheck reports ErrWrongType when one of keys is neither a sorted set
// nor a set: the first thing ZUNION, ZINTER and friends check, before even
// their options.
func (tx *Tx) ZSetOpCheck(db int, keys [][]byte) error {
	_, err := tx.zinputs(tx.r, db, keys)
	return err
}

// ZSetOperate computes ZUNION, ZINTER or ZDIFF over keys (sorted sets or
// sets) with per-input weights (nil: all 1; not for ZDiff), sorted by score
// then member.
func (tx *Tx) ZSetOperate(db int, op ZSetOp, keys [][]byte, weights []float64, agg ZAggregate) ([]ZMember, error) {
	r, done := tx.stableReader()
	defer done()
	ins, err := tx.zinputs(r, db, keys)
	if err != nil {
		return nil, err
	}
	for i := range ins {
		if weights != nil {
			ins[i].weight = weights[i]
		}
	}
	var out []ZMember
	switch op {
	case ZUnion:
		out, err = zunion(r, ins, agg)
	case ZInter:
		out, err = zinter(r, ins, agg, 0, nil)
	case ZDiff:
		out, err = zdiff(r, ins)
	}
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b ZMember) int {
		switch {
		case a.Score < b.Score:
			return -1
		case a.Score > b.Score:
			return 1
		}
		return bytes.Compare(a.Member, b.Member)
	})
	return out, nil
}

// ZSetOperateStore is ZSetOperate storing the result in dst (ZUNIONSTORE,
// ZINTERSTORE, ZDIFFSTORE): dst is replaced, or deleted when the result is
// empty. It returns the result's size.
func (tx *Tx) ZSetOperateStore(db int, dst []byte, op ZSetOp, keys [][]byte, weights []float64, agg ZAggregate) (int64, error) {
	ms, err := tx.ZSetOperate(db, op, keys, weights, agg)
	if err != nil {
		return 0, err
	}
	return tx.zstore(db, dst, ms, zstoreWhole)
}

// ZInterCard returns the size of the intersection of keys, counting no
// further than limit (0: no limit).
func (tx *Tx) ZInterCard(db int, keys [][]byte, limit int64) (int64, error) {
	r, done := tx.stableReader()
	defer done()
	ins, err := tx.zinputs(r, db, keys)
	if err != nil {
		return 0, err
	}
	var n int64
	_, err = zinter(r, ins, ZSum, limit, &n)
	return n, err
}

// byCardinality orders inputs smallest first, as Redis does before a union
// or an intersection (which fixes the order in which scores are summed).
func byCardinality(ins []zinput) {
	slices.SortStableFunc(ins, func(a, b zinput) int {
		switch {
		case a.size < b.size:
			return -1
		case a.size > b.size:
			return 1
		}
		return 0
	})
}

func zunion(r engine.Reader, ins []zinput, agg ZAggregate) ([]ZMember, error) {
	byCardinality(ins)
	acc := map[string]float64{}
	for i := range ins {
		in := &ins[i]
		err := in.each(r, func(m []byte, s float64) error {
			v := weighted(in.weight, s)
			if cur, ok := acc[string(m)]; ok {
				aggregate(&cur, v, agg)
				acc[string(m)] = cur
			} else {
				acc[string(m)] = v
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	out := make([]ZMember, 0, len(acc))
	for m, s := range acc {
		out = append(out, ZMember{Member: []byte(m), Score: s})
	}
	return out, nil
}

// zinter intersects the inputs; with count it only counts (up to limit,
// 0 for all).
func zinter(r engine.Reader, ins []zinput, agg ZAggregate, limit int64, count *int64) ([]ZMember, error) {
	byCardinality(ins)
	if len(ins) == 0 || ins[0].size == 0 {
		return nil, nil
	}
	var out zarena
	var buf []byte
	errStop := errors.New("limit reached")
	first := &ins[0]
	err := first.each(r, func(m []byte, s float64) error {
		score := weighted(first.weight, s)
		for j := 1; j < len(ins); j++ {
			in := &ins[j]
			var v float64
			if bytes.Equal(in.key, first.key) {
				v = s
			} else {
				var ok bool
				var err error
				if v, ok, err = in.find(r, m, buf); err != nil || !ok {
					return err
				}
			}
			// Only the first input's product has Redis's NaN rule: a later
			// one that is not a number (0 × inf) is folded in as it is, so a
			// sum becomes 0 and MIN or MAX pass it over.
			aggregate(&score, in.weight*v, agg)
		}
		if count != nil {
			*count++
			if limit > 0 && *count >= limit {
				return errStop
			}
			return nil
		}
		out.add(m, score)
		return nil
	})
	if err != nil && err != errStop {
		return nil, err
	}
	return out.done(), nil
}

func zdiff(r engine.Reader, ins []zinput) ([]ZMember, error) {
	if len(ins) == 0 || ins[0].size == 0 {
		return nil, nil
	}
	var out zarena
	var buf []byte
	first := &ins[0]
	err := first.each(r, func(m []byte, s float64) error {
		for j := 1; j < len(ins); j++ {
			_, ok, err := ins[j].find(r, m, buf)
			if err != nil || ok {
				return err
			}
		}
		out.add(m, s)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out.done(), nil
}

// --- ZSCAN ------------------------------------------------------------------------

// ZScan returns members of a sorted set and their scores from cursor on,
// and the cursor to continue with (0 when done). A set small enough for
// Redis's listpack encoding comes back whole in one call, as Redis does.
//
// The cursor is a position in member order that needs no server state:
// members are stored in byte order, and every member starts with the common
// prefix P of the smallest and largest. A cursor names the next member M as
//
//	s << 56 | the 7 bytes of M after its first s bytes (zero-padded)
//
// where s = min(len(P), 255). Resuming seeks to M[:s] (the first s bytes of
// the current smallest member, which every member shares) followed by those
// 7 bytes without their trailing zeros: a prefix of M, so at or before M,
// and nothing after the previous call's last member is skipped (members
// between the seek key and M come again: SCAN allows duplicates). A call
// stops only at a member whose seek key is past the one it started from,
// so every call moves forward. If the members' common prefix has since
// become shorter than s, the scan restarts from the first member:
// duplicates, never a miss. Every member present for the whole scan is
// returned at least once, across restarts of the server.
func (tx *Tx) ZScan(db int, key []byte, cursor uint64, a ZScanArgs) (uint64, []ZMember, error) {
	v, err := tx.zread(db, key, false, false)
	if err != nil || v == nil {
		return 0, nil, err
	}
	it, err := v.r.NewIter(v.subPrefix(), encoding.PrefixEnd(v.subPrefix()))
	if err != nil {
		return 0, nil, err
	}
	defer it.Close()
	p := v.subPrefix()
	var out zarena
	emit := func() error {
		m := it.Key()[len(p):]
		if a.Pattern != nil && !glob.Match(a.Pattern, m, false) {
			return nil
		}
		s, err := encoding.DecodeScore(it.Value())
		if err != nil {
			return fmt.Errorf("zset %q: %w", key, err)
		}
		out.add(m, s)
		return nil
	}
	// Redis returns a listpack-encoded sorted set whole in one call.
	if lim := tx.limits(); !over(v.m.Size, lim.ZSetEntries) {
		small := true
		for ok := it.First(); ok; ok = it.Next() {
			if over(len(it.Key())-len(p), lim.ZSetValue) {
				small = false
				break
			}
		}
		if small {
			for ok := it.First(); ok; ok = it.Next() {
				if err := emit(); err != nil {
					return 0, nil, err
				}
			}
			return 0, out.done(), it.Error()
		}
	}
	next, empty, err := scanMembers(it, p, cursor, max(a.Count, 1), emit)
	if err != nil || empty {
		return 0, nil, err
	}
	return next, out.done(), nil
}

// --- OBJECT ENCODING -----------------------------------------------------------

// ZSetEncoding is OBJECT ENCODING for a sorted set: "listpack" while it has
// at most zset-max-listpack-entries members of at most
// zset-max-listpack-value bytes each, else "skiplist". It reads at most
// zset-max-listpack-entries members. Redis never
// converts a sorted set back to a listpack; Cairn reports what the current
// contents would be encoded as.
func (tx *Tx) ZSetEncoding(db int, key []byte) (string, bool, error) {
	v, err := tx.zread(db, key, false, false)
	if err != nil || v == nil {
		return "", false, err
	}
	lim := tx.limits()
	if over(v.m.Size, lim.ZSetEntries) {
		return "skiplist", true, nil
	}
	it, err := v.r.NewIter(v.subPrefix(), encoding.PrefixEnd(v.subPrefix()))
	if err != nil {
		return "", false, err
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		if over(len(it.Key())-len(v.subPrefix()), lim.ZSetValue) {
			return "skiplist", true, it.Error()
		}
	}
	return "listpack", true, it.Error()
}

// setBound records next as the zset's highest (or lowest) live score once a
// pop has removed the members beyond it.
func (z *zwriter) setBound(highest bool, next uint64) {
	if highest {
		z.bounds.High, z.highStale = next, false
		z.highGone.reset()
	} else {
		z.bounds.Low, z.lowStale = next, false
		z.lowGone.reset()
	}
}

// --- Reading score ranges for geo searches -----------------------------------

// errWalkStop ends ZWalkScores early; it never leaves this file.
var errWalkStop = errors.New("zset: walk stopped")

// ZWalkScores calls fn with the members of each score range of ranges
// (By must be ZByScore; Offset, Count and Rev are honoured), in order,
// reading only those ranges of the score index, all in one view of the
// set. member aliases the index and is valid only during the call. fn
// returns false to stop the walk. found is false when key is absent.
// The lookup is not counted as a keyspace hit or miss (GEOSEARCH and
// friends count theirs when they first look the key up).
func (tx *Tx) ZWalkScores(db int, key []byte, ranges []ZRange, fn func(member []byte, score float64) bool) (found bool, err error) {
	v, err := tx.zread(db, key, true, false)
	if err != nil || v == nil {
		return false, err
	}
	defer v.close()
	plen := len(v.scorePrefix())
	for _, r := range ranges {
		if r.By != ZByScore {
			return true, fmt.Errorf("zset %q: ZWalkScores needs score ranges", key)
		}
		err = v.walk(r, func(k, val []byte) error {
			s, m, err := zscored(k, val, plen)
			if err != nil {
				return err
			}
			if !fn(m, s) {
				return errWalkStop
			}
			return nil
		})
		if errors.Is(err, errWalkStop) {
			return true, nil
		}
		if err != nil {
			return true, err
		}
	}
	return true, nil
}

// ZScoreUncounted is ZScore without counting a keyspace hit or miss, for
// a command that looked the key up already (GEOSEARCH ... FROMMEMBER).
func (tx *Tx) ZScoreUncounted(db int, key, member []byte) (float64, bool, error) {
	v, err := tx.zread(db, key, false, false)
	if err != nil || v == nil {
		return 0, false, err
	}
	return v.zscoreIn(member)
}

// ZStore replaces whatever dst holds with a sorted set of ms (distinct
// members), or deletes dst when ms is empty, as GEORADIUS STORE and
// GEOSEARCHSTORE do, and returns the number of members stored. The
// encoding follows the whole result, as Redis's zsetTypeCreate sizes it.
func (tx *Tx) ZStore(db int, dst []byte, ms []ZMember) (int64, error) {
	return tx.zstore(db, dst, ms, zstoreWhole)
}
