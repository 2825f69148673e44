package server

import (
	"math"

	"github.com/cairndb/cairn/internal/command"
	"github.com/cairndb/cairn/internal/notify"
	"github.com/cairndb/cairn/internal/rconv"
	"github.com/cairndb/cairn/internal/store"
)

const setCat = command.CatSet

func setCommands() []cmdEntry {
	one := keys{1, 1, 1}
	all := keys{1, -1, 1}
	e := []cmdEntry{
		withKeyFlags(def("sadd", -3, write|denyoom|fast, one, setCat, "set", "1.0.0", "Adds one or more members to a set. Creates the key if it doesn't exist.", cmdSAdd), rw|ins),
		withKeyFlags(def("srem", -3, write|fast, one, setCat, "set", "1.0.0", "Removes one or more members from a set. Deletes the set if the last member was removed.", cmdSRem), rw|del),
		withKeyFlags(def("sismember", 3, readonly|fast, one, setCat, "set", "1.0.0", "Determines whether a member belongs to a set.", cmdSIsMember), ro),
		withKeyFlags(def("smismember", -3, readonly|fast, one, setCat, "set", "6.2.0", "Determines whether multiple members belong to a set.", cmdSMIsMember), ro|acc),
		withTips(withKeyFlags(def("smembers", 2, readonly, one, setCat, "set", "1.0.0", "Returns all members of a set.", cmdSMembers), ro|acc), tipOutputOrder),
		withKeyFlags(def("scard", 2, readonly|fast, one, setCat, "set", "1.0.0", "Returns the number of members in a set.", cmdSCard), ro),
		withTips(withKeyFlags(def("spop", -2, write|fast, one, setCat, "set", "1.0.0", "Returns one or more random members from a set after removing them. Deletes the set if the last member was popped.", cmdSPop), rw|acc|del), tipOutput),
		withTips(withKeyFlags(def("srandmember", -2, readonly, one, setCat, "set", "1.0.0", "Get one or multiple random members from a set", cmdSRandMember), ro|acc), tipOutput),
		withTwoKeySpecs(def("smove", 4, write|fast, keys{1, 2, 1}, setCat, "set", "1.0.0", "Moves a member from one set to another.", cmdSMove), rw|acc|del, rw|ins, false),
		withTips(withKeyFlags(def("sinter", -2, readonly, all, setCat, "set", "1.0.0", "Returns the intersect of multiple sets.", cmdSInter), ro|acc), tipOutputOrder),
		setNumKeysEntry(def("sintercard", -3, readonly, noKeys, setCat, "set", "7.0.0", "Returns the number of members of the intersect of multiple sets.", cmdSInterCard), ro|acc),
		withTwoKeySpecs(def("sinterstore", -3, write|denyoom, all, setCat, "set", "1.0.0", "Stores the intersect of multiple sets in a key.", setStoreCmd((*store.Tx).SInterStore, "sinterstore")), rw|upd, ro|acc, true),
		withTips(withKeyFlags(def("sunion", -2, readonly, all, setCat, "set", "1.0.0", "Returns the union of multiple sets.", cmdSUnion), ro|acc), tipOutputOrder),
		withTwoKeySpecs(def("sunionstore", -3, write|denyoom, all, setCat, "set", "1.0.0", "Stores the union of multiple sets in a key.", setStoreCmd((*store.Tx).SUnionStore, "sunionstore")), ow|upd, ro|acc, true),
		withTips(withKeyFlags(def("sdiff", -2, readonly, all, setCat, "set", "1.0.0", "Returns the difference of multiple sets.", cmdSDiff), ro|acc), tipOutputOrder),
		withTwoKeySpecs(def("sdiffstore", -3, write|denyoom, all, setCat, "set", "1.0.0", "Stores the difference of multiple sets in a key.", setStoreCmd((*store.Tx).SDiffStore, "sdiffstore")), ow|upd, ro|acc, true),
		withTips(withKeyFlags(def("sscan", -3, readonly, one, setCat, "set", "2.8.0", "Iterates over members of a set.", cmdSScan), ro|acc), tipOutput),
	}
	for i := range e {
		s := e[i].spec
		switch s.Name {
		case "sadd", "srem":
			s.History = []command.HistoryEntry{{Since: "2.4.0", Changes: "Accepts multiple `member` arguments."}}
		case "spop":
			s.History = []command.HistoryEntry{{Since: "3.2.0", Changes: "Added the `count` argument."}}
		case "srandmember":
			s.History = []command.HistoryEntry{{Since: "2.6.0", Changes: "Added the optional `count` argument."}}
		}
	}
	return e
}

// setNumKeysEntry gives SINTERCARD its keys: numkeys at 1, then the keys.
func setNumKeysEntry(e cmdEntry, f command.KeyFlag) cmdEntry {
	s := e.spec
	s.Flags |= command.MovableKeys
	s.KeySpecs = []command.KeySpec{{Flags: f, Begin: command.IndexSearch(1), Find: command.KeyNumKeys(0, 1, 1)}}
	s.KeysFunc = command.NumKeysFunc(0, 1, 2, 1) // Redis's sintercardGetKeys
	return e
}

func cmdSAdd(x *ctx) {
	n, err := x.tx.SAdd(x.db(), x.arg(1), x.args[2:])
	if err == nil && n > 0 {
		x.notify(notify.Set, "sadd", x.arg(1))
	}
	x.replyInt(n, err)
}

func cmdSRem(x *ctx) {
	n, err := x.tx.SRem(x.db(), x.arg(1), x.args[2:])
	if err == nil && n > 0 {
		x.notifyEmptying(notify.Set, "srem", x.arg(1))
	}
	x.replyInt(n, err)
}

func cmdSIsMember(x *ctx) {
	x.keyMiss(x.arg(1))
	x.replyBool(x.tx.SIsMember(x.db(), x.arg(1), x.arg(2)))
}

func cmdSMIsMember(x *ctx) {
	x.keyMiss(x.arg(1))
	in, err := x.tx.SMIsMember(x.db(), x.arg(1), x.args[2:])
	if err != nil {
		x.storeError(err)
		return
	}
	x.w.Array(len(in))
	for _, ok := range in {
		x.w.Int(boolInt(ok))
	}
}

func cmdSCard(x *ctx) {
	n, err := x.tx.SCard(x.db(), x.arg(1))
	x.missedIf(err == nil && n == 0, x.arg(1))
	x.replyInt(n, err)
}

func cmdSMembers(x *ctx) {
	x.keyMiss(x.arg(1))
	err := x.tx.SMembers(x.db(), x.arg(1),
		func(n int64) { x.w.Set(int(n)) },
		func(m []byte) { x.w.Bulk(m) })
	if err != nil {
		x.storeError(err)
	}
}

// setMembersReply writes members as a RESP3 set (an array in RESP2).
func setMembersReply(x *ctx, ms [][]byte, err error) {
	if err != nil {
		x.storeError(err)
		return
	}
	x.w.Set(len(ms))
	for _, m := range ms {
		x.w.Bulk(m)
	}
}

func cmdSPop(x *ctx) {
	switch len(x.args) {
	case 2:
		m, ok, err := x.tx.SPop(x.db(), x.arg(1))
		if err == nil && ok {
			x.notifyEmptying(notify.Set, "spop", x.arg(1))
		}
		x.replyBulkOrNil(m, ok, err)
		return
	case 3:
	default:
		x.syntaxError()
		return
	}
	// Redis checks the count before the key, with one message for a
	// negative count and for no number at all.
	count, ok := rconv.ParseInt(x.arg(2))
	if !ok || count < 0 {
		x.errorReply("ERR value is out of range, must be positive")
		return
	}
	ms, err := x.tx.SPopCount(x.db(), x.arg(1), count)
	if err == nil && len(ms) > 0 {
		x.notifyEmptying(notify.Set, "spop", x.arg(1))
	}
	setMembersReply(x, ms, err)
}

func cmdSRandMember(x *ctx) {
	switch len(x.args) {
	case 2:
		x.keyMiss(x.arg(1))
		x.replyBulkOrNil(x.tx.SRandMember(x.db(), x.arg(1)))
		return
	case 3:
	default:
		x.syntaxError()
		return
	}
	count, ok := rconv.ParseInt(x.arg(2))
	if !ok {
		x.notInteger()
		return
	}
	if count == math.MinInt64 {
		x.errorReply("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807")
		return
	}
	x.keyMiss(x.arg(1))
	distinct := count >= 0
	n := uint64(count)
	if !distinct {
		n = uint64(-count)
	}
	// A negative count asks for that many draws with repeats: the reply
	// streams out as it is written, as Redis's does, and stops if the
	// client goes away.
	err := x.tx.SRandMembers(x.db(), x.arg(1), n, distinct,
		func(k uint64) { x.w.Array(int(k)) },
		func(m []byte) bool {
			x.w.Bulk(m)
			return !x.clientGone()
		})
	if err != nil {
		x.storeError(err)
	}
}

func cmdSMove(x *ctx) {
	x.replyBool(x.tx.SMove(x.db(), x.arg(1), x.arg(2), x.arg(3)))
}

func cmdSInter(x *ctx) {
	x.keyMiss(x.args[1:]...)
	ms, err := x.tx.SInter(x.db(), x.args[1:])
	setMembersReply(x, ms, err)
}

func cmdSUnion(x *ctx) {
	x.keyMiss(x.args[1:]...)
	ms, err := x.tx.SUnion(x.db(), x.args[1:])
	setMembersReply(x, ms, err)
}

func cmdSDiff(x *ctx) {
	x.keyMiss(x.args[1:]...)
	ms, err := x.tx.SDiff(x.db(), x.args[1:])
	setMembersReply(x, ms, err)
}

func cmdSInterCard(x *ctx) {
	n, ok := rconv.ParseInt(x.arg(1))
	if !ok || n < 1 {
		x.errorReply("ERR numkeys should be greater than 0")
		return
	}
	if n > int64(len(x.args)-2) {
		x.errorReply("ERR Number of keys can't be greater than number of args")
		return
	}
	keys := x.args[2 : 2+n]
	var limit int64
	for i := 2 + int(n); i < len(x.args); i++ {
		if i+1 < len(x.args) && optIs(x.arg(i), "LIMIT") {
			i++
			l, ok := rconv.ParseInt(x.arg(i))
			if !ok || l < 0 {
				x.errorReply("ERR LIMIT can't be negative")
				return
			}
			limit = l
			continue
		}
		x.syntaxError()
		return
	}
	x.keyMiss(keys...)
	x.replyInt(x.tx.SInterCard(x.db(), keys, limit))
}

// setStoreCmd is SINTERSTORE, SUNIONSTORE or SDIFFSTORE: destination, then
// the source keys.
func setStoreCmd(op func(tx *store.Tx, db int, dst []byte, keys [][]byte) (int64, error), event string) handler {
	return func(x *ctx) {
		x.keyMiss(x.args[2:]...)
		existed := x.destinationExists()
		n, err := op(x.tx, x.db(), x.arg(1), x.args[2:])
		if err != nil {
			x.storeError(err)
			return
		}
		x.notifyStore(notify.Set, event, n, existed)
		x.w.Int(n)
	}
}

func cmdSScan(x *ctx) {
	cursor, o, ok := collectionScanStart(x, setKeyExists, false)
	if !ok {
		return
	}
	next, ms, err := x.tx.SScan(x.db(), x.arg(1), cursor, store.SScanArgs{Count: o.count, Pattern: o.pattern})
	if err != nil {
		x.storeError(err)
		return
	}
	replyScanHeader(x, next, len(ms))
	for _, m := range ms {
		x.w.Bulk(m)
	}
}

// setKeyExists reports whether key holds a non-empty set, replying
// WRONGTYPE, and returning ok false, when it holds another type.
func setKeyExists(x *ctx) (found, ok bool) {
	n, err := x.tx.SCard(x.db(), x.arg(1))
	if err != nil {
		x.storeError(err)
		return false, false
	}
	return n != 0, true
}
