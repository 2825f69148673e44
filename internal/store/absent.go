package store

import (
	"bytes"

	"github.com/cairndb/cairn/internal/encoding"
)

// Known-absent members: the last few member records deleted under each
// lock stripe, which the writers of that stripe may trust to be absent
// without reading the engine.
//
// Why: a member deleted and added again, over and over (HSET h f v; HDEL h
// f), stacks a version of its record in Pebble's memtable for every write,
// and a point read whose newest version is a deletion steps over every
// older one (Pebble's Iterator.nextUserKey) until a flush or compaction
// drops them: the add's read that tells whether the member is new costs
// O(writes since the last flush), 400 µs a command after 60,000 rounds
// (issue 27, item 20). A member filter cannot help: it never forgets a
// member written once.
//
// Rules, which make an entry a fact about the committed state:
//   - Only holders of a stripe's lock read or change its entries, so an
//     entry cannot change under a writer that relies on it.
//   - A deletion (Tx.del of a member record) becomes an entry only when its
//     commit succeeds (Tx.noteAbsent, Tx.publishAbsent); a command rolled
//     back or a Tx closed without committing leaves none.
//   - Every write of a member record goes through Tx.set (as member filters
//     already require), which drops the record's entry at once, before the
//     commit, and any pending one: forgetting is always safe.
//   - Nothing else makes a deleted record present again: versions are never
//     reused, so a collection created later under the same key has other
//     record keys.
type absentSet struct {
	keys [absentPerStripe][]byte
	next int
}

// absentPerStripe bounds the entries of a stripe: hot churn is on a few
// members of a few keys at a time.
const absentPerStripe = 4

// absentPending bounds the deletions one Tx remembers for its commit: a
// command that deletes many members is not churn on one.
const absentPending = 16

// pendingAbsent is a deletion a Tx will publish at commit: the record key
// is Tx.absentBuf[start:end].
type pendingAbsent struct {
	stripe     uint16
	start, end int
}

// holds reports whether the record prefix+member is known absent.
func (a *absentSet) holds(prefix, member []byte) bool {
	for _, k := range a.keys {
		if len(k) == len(prefix)+len(member) && bytes.HasPrefix(k, prefix) && bytes.Equal(k[len(prefix):], member) {
			return true
		}
	}
	return false
}

// add records k as absent, replacing the oldest entry when full.
func (a *absentSet) add(k []byte) {
	for _, e := range a.keys {
		if bytes.Equal(e, k) {
			return
		}
	}
	a.keys[a.next] = append(a.keys[a.next][:0], k...)
	a.next = (a.next + 1) % absentPerStripe
}

// drop forgets k.
func (a *absentSet) drop(k []byte) {
	for i, e := range a.keys {
		if bytes.Equal(e, k) {
			a.keys[i] = e[:0]
		}
	}
}

// knownAbsent reports whether member's record in c is known absent: this
// Tx deleted it, or a committed deletion did and nothing wrote it since.
// c's key is locked.
func (tx *Tx) knownAbsent(c *collection, member []byte) bool {
	p := c.Prefix(encoding.FamilySub)
	for _, a := range tx.absentAdds {
		k := tx.absentBuf[a.start:a.end]
		if len(k) == len(p)+len(member) && bytes.HasPrefix(k, p) && bytes.Equal(k[len(p):], member) {
			return true
		}
	}
	return tx.s.absent[stripeOf(c.key)].holds(p, member)
}

// noteAbsent remembers that the Tx deleted the member record k of c, to
// publish at commit.
func (tx *Tx) noteAbsent(c *collection, k []byte) {
	if len(tx.absentAdds) >= absentPending || !filtered(c.Meta.Type) || !bytes.HasPrefix(k, c.Prefix(encoding.FamilySub)) {
		return
	}
	a := pendingAbsent{stripe: stripeOf(c.key), start: len(tx.absentBuf)}
	tx.absentBuf = append(tx.absentBuf, k...)
	a.end = len(tx.absentBuf)
	tx.absentAdds = append(tx.absentAdds, a)
}

// forgetAbsent drops what is known of record k of c, which is being
// written.
func (tx *Tx) forgetAbsent(c *collection, k []byte) {
	for i := range tx.absentAdds {
		if a := &tx.absentAdds[i]; bytes.Equal(tx.absentBuf[a.start:a.end], k) {
			// Emptied, not removed: RollbackCommand cuts the list at a
			// command's mark.
			a.end = a.start
		}
	}
	tx.s.absent[stripeOf(c.key)].drop(k)
}

// publishAbsent makes a successful commit's deletions known; the stripe
// locks are still held.
func (tx *Tx) publishAbsent() {
	for _, a := range tx.absentAdds {
		if a.end > a.start {
			tx.s.absent[a.stripe].add(tx.absentBuf[a.start:a.end])
		}
	}
	tx.absentAdds = tx.absentAdds[:0]
	tx.absentBuf = tx.absentBuf[:0]
}
