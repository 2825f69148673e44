package server

import (
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/cairndb/cairn/internal/command"
	"github.com/cairndb/cairn/internal/hll"
	"github.com/cairndb/cairn/internal/notify"
)

// The HyperLogLog commands. An HLL is a Redis string holding Redis's own
// representation (package hll), read and rewritten whole through the
// store's string API, so GET, SET, TYPE and the rest see the same bytes as
// in Redis.

const (
	errNotHLL     = "WRONGTYPE Key is not a valid HyperLogLog string value."
	errCorruptHLL = "INVALIDOBJ Corrupted HLL object detected"
)

func hllCommands() []cmdEntry {
	const cat = command.CatHyperLogLog
	pfcount := withKeyNotes(withKeyFlags(def("pfcount", -2, readonly|command.MayReplicate, keys{1, -1, 1}, cat, "hyperloglog", "2.8.9", "Returns the approximated cardinality of the set(s) observed by the HyperLogLog key(s).", cmdPFCount), rw|acc),
		"RW because it may change the internal representation of the key, and propagate to replicas")
	// PFCOUNT of one key writes the recomputed cardinality back into the
	// key's header, as Redis does, though Redis flags it read-only.
	pfcount.rewrites = true
	pfdebug := withKeyFlags(def("pfdebug", 3, write|denyoom|admin, keys{2, 2, 1}, cat, "hyperloglog", "2.8.9", "Internal commands for debugging HyperLogLog values.", cmdPFDebug), rw|acc)
	pfdebug.spec.DocFlags = command.DocSysCmd
	pfselftest := def("pfselftest", 1, admin, noKeys, cat, "hyperloglog", "2.8.9", "An internal command for testing HyperLogLog values.", cmdPFSelfTest)
	pfselftest.spec.DocFlags = command.DocSysCmd
	pfmerge := withTwoKeySpecs(def("pfmerge", -2, write|denyoom, keys{1, -1, 1}, cat, "hyperloglog", "2.8.9", "Merges one or more HyperLogLog values into a single key.", cmdPFMerge), rw|acc|ins, ro|acc, true)
	// With no source Redis's key specs find no key at all (the second
	// one fails), yet the command writes its destination: lock it.
	pfmerge.spec.KeysFunc = func(args [][]byte) []int {
		idx := make([]int, 0, len(args)-1)
		for i := 1; i < len(args); i++ {
			idx = append(idx, i)
		}
		return idx
	}
	return []cmdEntry{
		withKeyFlags(def("pfadd", -2, write|denyoom|fast, keys{1, 1, 1}, cat, "hyperloglog", "2.8.9", "Adds elements to a HyperLogLog key. Creates the key if it doesn't exist.", cmdPFAdd), rw|ins),
		pfcount,
		pfmerge,
		pfdebug,
		pfselftest,
	}
}

// loadHLL reads key as an HLL. counted says whether the lookup is a read
// (Redis's lookupKeyRead: keyspace hits and misses, "keymiss"). It
// replies and returns ok false when the key is not a string or the string
// is not an HLL.
func (x *ctx) loadHLL(key []byte, counted bool) (b []byte, found, ok bool) {
	return x.readHLL(key, counted, x.tx.LookupString)
}

// peekHLL is loadHLL for a reader that does not change b: b is valid only
// until the next store call.
func (x *ctx) peekHLL(key []byte, counted bool) (b []byte, found, ok bool) {
	return x.readHLL(key, counted, x.tx.PeekString)
}

func (x *ctx) readHLL(key []byte, counted bool, lookup func(int, []byte, bool) ([]byte, bool, error)) (b []byte, found, ok bool) {
	b, found, err := lookup(x.db(), key, counted)
	if err != nil {
		x.storeError(err)
		return nil, false, false
	}
	if !found {
		if counted {
			x.missed(key)
		}
		return nil, false, true
	}
	if !hll.IsHLL(b) {
		x.errorReply(errNotHLL)
		return nil, false, false
	}
	return b, true, true
}

// saveHLL writes b back to key, keeping its deadline.
func (x *ctx) saveHLL(key, b []byte) bool {
	if err := x.tx.RewriteString(x.db(), key, b); err != nil {
		x.storeError(err)
		return false
	}
	return true
}

func (x *ctx) sparseMax() int64 { return x.srv.cfg.HLLSparseMaxBytes() }

func cmdPFAdd(x *ctx) {
	key := x.arg(1)
	// Elements that raise no register of a dense HLL change nothing:
	// the value is looked at in place, not copied, and not written.
	b, found, ok := x.peekHLL(key, false)
	if !ok {
		return
	}
	if found && !slices.ContainsFunc(x.args[2:], func(ele []byte) bool { return hll.Raises(b, ele) }) {
		x.w.Int(0)
		return
	}
	if b, found, ok = x.loadHLL(key, false); !ok {
		return
	}
	updated := !found
	if !found {
		b = hll.New()
	}
	for _, ele := range x.args[2:] {
		next, changed, err := hll.Add(b, ele, x.sparseMax())
		if err != nil {
			// Redis changes the HLL in place: what the elements before
			// the corruption changed stays, without an event.
			if updated {
				if !x.saveHLL(key, b) {
					return
				}
				x.keepWrites = true
			}
			x.errorReply(errCorruptHLL)
			return
		}
		b = next
		updated = updated || changed
	}
	if updated {
		hll.Invalidate(b)
		if !x.saveHLL(key, b) {
			return
		}
		x.notify(notify.String, "pfadd", key)
	}
	x.w.Int(boolInt(updated))
}

func cmdPFCount(x *ctx) {
	if len(x.args) > 2 {
		var regs [hll.Registers]uint8
		for _, key := range x.args[1:] {
			// Merge only reads b, before the next lookup.
			b, found, ok := x.peekHLL(key, true)
			if !ok {
				return
			}
			if found && hll.Merge(&regs, b) != nil {
				x.errorReply(errCorruptHLL)
				return
			}
		}
		x.w.Int(int64(hll.CountRegisters(&regs)))
		return
	}
	key := x.arg(1)
	// A valid cached cardinality is read without copying the value.
	b, found, ok := x.peekHLL(key, true)
	if !ok {
		return
	}
	if !found {
		x.w.Int(0)
		return
	}
	card, valid := hll.Cached(b)
	if !valid {
		var err error
		if card, err = hll.Count(b); err != nil {
			x.errorReply(errCorruptHLL)
			return
		}
		b = append([]byte(nil), b...)
		hll.SetCache(b, card)
		// A read-only script cannot write: Redis would update its
		// cache, Cairn recomputes it next time.
		if x.tx.Writable() && !x.saveHLL(key, b) {
			return
		}
	}
	x.w.Int(int64(card))
}

func cmdPFMerge(x *ctx) {
	var regs [hll.Registers]uint8
	var dest []byte
	dense := false
	for i, key := range x.args[1:] {
		b, found, ok := x.loadHLL(key, true)
		if !ok {
			return
		}
		if !found {
			continue
		}
		if i == 0 {
			dest = b
		}
		dense = dense || b[4] == hll.Dense
		if err := hll.Merge(&regs, b); err != nil {
			x.errorReply(errCorruptHLL)
			return
		}
	}
	if dest == nil {
		dest = hll.New()
	}
	if dense {
		var err error
		if dest, err = hll.ToDense(dest); err != nil {
			x.errorReply(errCorruptHLL)
			return
		}
	}
	for i, v := range regs {
		if v == 0 {
			continue
		}
		// Every input was checked whole, so the destination's opcodes
		// cover its registers and setting one cannot fail.
		if nb, _, err := hll.Set(dest, i, v, x.sparseMax()); err == nil {
			dest = nb
		}
	}
	hll.Invalidate(dest)
	if !x.saveHLL(x.arg(1), dest) {
		return
	}
	// Redis reports a merge as a "pfadd", a mass add.
	x.notify(notify.String, "pfadd", x.arg(1))
	x.ok()
}

func cmdPFDebug(x *ctx) {
	sub, key := x.argStr(1), x.arg(2)
	b, found, ok := x.loadHLL(key, false)
	if !ok {
		return
	}
	if !found {
		x.errorReply("ERR The specified key does not exist")
		return
	}
	switch strings.ToLower(sub) {
	case "getreg":
		if b[4] == hll.Sparse {
			d, err := hll.ToDense(b)
			if err != nil {
				x.errorReply(errCorruptHLL)
				return
			}
			if b = d; !x.saveHLL(key, b) {
				return
			}
		}
		x.w.Array(hll.Registers)
		for i := 0; i < hll.Registers; i++ {
			x.w.Int(int64(hll.Register(b, i)))
		}
	case "decode":
		if b[4] != hll.Sparse {
			x.errorReply("ERR HLL encoding is not sparse")
			return
		}
		x.w.Bulk([]byte(hll.Describe(b)))
	case "encoding":
		x.w.SimpleString([...]string{"dense", "sparse"}[b[4]])
	case "todense":
		if b[4] != hll.Sparse {
			x.w.Int(0)
			return
		}
		d, err := hll.ToDense(b)
		if err != nil {
			x.errorReply(errCorruptHLL)
			return
		}
		if x.saveHLL(key, d) {
			x.w.Int(1)
		}
	default:
		x.errorReply("ERR Unknown PFDEBUG subcommand '" + sub + "'")
	}
}

func cmdPFSelfTest(x *ctx) {
	if err := hll.SelfTest(x.sparseMax(), rand.Uint64); err != nil {
		x.errorReply(err.Error())
		return
	}
	x.ok()
}
