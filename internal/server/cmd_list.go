package server

import (
	"math"
	"strings"
	"time"

	"github.com/cairndb/cairn/internal/command"
	"github.com/cairndb/cairn/internal/notify"
	"github.com/cairndb/cairn/internal/rconv"
	"github.com/cairndb/cairn/internal/store"
)

const listCat = command.CatList

func listCommands() []cmdEntry {
	one := keys{1, 1, 1}
	blocking := command.Blocking
	// movePair is the two key specs of LMOVE and friends: the source is
	// read and deleted from, the destination inserted into.
	movePair := func(e cmdEntry) cmdEntry {
		e.spec.KeySpecs = []command.KeySpec{
			{Flags: rw | acc | del, Begin: command.IndexSearch(1), Find: command.RangeKeys(0, 1, 0)},
			{Flags: rw | ins, Begin: command.IndexSearch(2), Find: command.RangeKeys(0, 1, 0)},
		}
		return e
	}
	// numKeys gives LMPOP and BLMPOP their keys: numkeys at argument at,
	// the keys after it.
	numKeys := func(e cmdEntry, at int) cmdEntry {
		e.spec.Flags |= command.MovableKeys
		e.spec.KeySpecs = []command.KeySpec{{Flags: rw | acc | del, Begin: command.IndexSearch(at), Find: command.KeyNumKeys(0, 1, 1)}}
		e.spec.KeysFunc = command.NumKeysFunc(0, at, at+1, 1) // Redis's lmpopGetKeys, blmpopGetKeys
		return e
	}
	e := []cmdEntry{
		withKeyFlags(def("lpush", -3, write|denyoom|fast, one, listCat, "list", "1.0.0", "Prepends one or more elements to a list. Creates the key if it doesn't exist.", cmdLPush), rw|ins),
		withKeyFlags(def("rpush", -3, write|denyoom|fast, one, listCat, "list", "1.0.0", "Appends one or more elements to a list. Creates the key if it doesn't exist.", cmdRPush), rw|ins),
		withKeyFlags(def("lpushx", -3, write|denyoom|fast, one, listCat, "list", "2.2.0", "Prepends one or more elements to a list only when the list exists.", cmdLPushX), rw|ins),
		withKeyFlags(def("rpushx", -3, write|denyoom|fast, one, listCat, "list", "2.2.0", "Appends an element to a list only when the list exists.", cmdRPushX), rw|ins),
		withKeyFlags(def("lpop", -2, write|fast, one, listCat, "list", "1.0.0", "Returns the first elements in a list after removing it. Deletes the list if the last element was popped.", cmdLPop), rw|acc|del),
		withKeyFlags(def("rpop", -2, write|fast, one, listCat, "list", "1.0.0", "Returns and removes the last elements of the list. Deletes the list if the last element was popped.", cmdRPop), rw|acc|del),
		withKeyFlags(def("llen", 2, readonly|fast, one, listCat, "list", "1.0.0", "Returns the length of a list.", cmdLLen), ro),
		withKeyFlags(def("lindex", 3, readonly, one, listCat, "list", "1.0.0", "Returns an element from a list by its index.", cmdLIndex), ro|acc),
		withKeyFlags(def("lrange", 4, readonly, one, listCat, "list", "1.0.0", "Returns a range of elements from a list.", cmdLRange), ro|acc),
		withKeyFlags(def("lset", 4, write|denyoom, one, listCat, "list", "1.0.0", "Sets the value of an element in a list by its index.", cmdLSet), rw|upd),
		withKeyFlags(def("linsert", 5, write|denyoom, one, listCat, "list", "2.2.0", "Inserts an element before or after another element in a list.", cmdLInsert), rw|ins),
		withKeyFlags(def("lrem", 4, write, one, listCat, "list", "1.0.0", "Removes elements from a list. Deletes the list if the last element was removed.", cmdLRem), rw|del),
		withKeyFlags(def("ltrim", 4, write, one, listCat, "list", "1.0.0", "Removes elements from both ends a list. Deletes the list if all elements were trimmed.", cmdLTrim), rw|del),
		withKeyFlags(def("lpos", -3, readonly, one, listCat, "list", "6.0.6", "Returns the index of matching elements in a list.", cmdLPos), ro|acc),
		movePair(def("lmove", 5, write|denyoom, keys{1, 2, 1}, listCat, "list", "6.2.0", "Returns an element after popping it from one list and pushing it to another. Deletes the list if the last element was moved.", cmdLMove)),
		movePair(def("rpoplpush", 3, write|denyoom, keys{1, 2, 1}, listCat, "list", "1.2.0", "Returns the last element of a list after removing and pushing it to another list. Deletes the list if the last element was popped.", cmdRPopLPush)),
		numKeys(def("lmpop", -4, write, noKeys, listCat, "list", "7.0.0", "Returns multiple elements from a list after removing them. Deletes the list if the last element was popped.", cmdLMPop), 1),
		withKeyFlags(def("blpop", -3, write|noscript|blocking, keys{1, -2, 1}, listCat, "list", "2.0.0", "Removes and returns the first element in a list. Blocks until an element is available otherwise. Deletes the list if the last element was popped.", cmdBLPop), rw|acc|del),
		withKeyFlags(def("brpop", -3, write|noscript|blocking, keys{1, -2, 1}, listCat, "list", "2.0.0", "Removes and returns the last element in a list. Blocks until an element is available otherwise. Deletes the list if the last element was popped.", cmdBRPop), rw|acc|del),
		movePair(def("blmove", 6, write|denyoom|noscript|blocking, keys{1, 2, 1}, listCat, "list", "6.2.0", "Pops an element from a list, pushes it to another list and returns it. Blocks until an element is available otherwise. Deletes the list if the last element was moved.", cmdBLMove)),
		movePair(def("brpoplpush", 4, write|denyoom|noscript|blocking, keys{1, 2, 1}, listCat, "list", "2.2.0", "Pops an element from a list, pushes it to another list and returns it. Block until an element is available otherwise. Deletes the list if the last element was popped.", cmdBRPopLPush)),
		numKeys(def("blmpop", -5, write|blocking, noKeys, listCat, "list", "7.0.0", "Pops the first element from one of multiple lists. Blocks until an element is available otherwise. Deletes the list if the last element was popped.", cmdBLMPop), 2),
	}
	for i := range e {
		s := e[i].spec
		switch s.Name {
		case "lpush", "rpush":
			s.History = []command.HistoryEntry{{Since: "2.4.0", Changes: "Accepts multiple `element` arguments."}}
		case "lpushx", "rpushx":
			s.History = []command.HistoryEntry{{Since: "4.0.0", Changes: "Accepts multiple `element` arguments."}}
		case "lpop", "rpop":
			s.History = []command.HistoryEntry{{Since: "6.2.0", Changes: "Added the `count` argument."}}
		case "blpop", "brpop":
			s.History = []command.HistoryEntry{{Since: "6.0.0", Changes: "`timeout` is interpreted as a double instead of an integer."}}
		case "rpoplpush":
			s.DocFlags = command.DocDeprecated
			s.DeprecatedSince = "6.2.0"
			s.ReplacedBy = "`LMOVE` with the `RIGHT` and `LEFT` arguments"
		case "brpoplpush":
			s.History = []command.HistoryEntry{{Since: "6.0.0", Changes: "`timeout` is interpreted as a double instead of an integer."}}
			s.DocFlags = command.DocDeprecated
			s.DeprecatedSince = "6.2.0"
			s.ReplacedBy = "`BLMOVE` with the `RIGHT` and `LEFT` arguments"
		}
	}
	return e
}

// listEnd parses LEFT or RIGHT, replying a syntax error otherwise.
func (x *ctx) listEnd(arg []byte) (store.ListEnd, bool) {
	switch {
	case optIs(arg, "LEFT"):
		return store.ListLeft, true
	case optIs(arg, "RIGHT"):
		return store.ListRight, true
	}
	x.syntaxError()
	return 0, false
}

// blockTimeout parses a blocking command's timeout as Redis 7.0 does: a
// long double number of seconds, rounded up to whole milliseconds; 0 waits
// forever. A number of milliseconds beyond int64 (including inf) is
// "negative" in 7.0, whose conversion of it yields LLONG_MIN; 7.2 calls it
// "timeout is out of range". A wait too long for a time.Duration is
// forever for any practical purpose.
func (x *ctx) blockTimeout(arg []byte) (time.Duration, bool) {
	f, ok := rconv.ParseLongDouble(arg)
	if !ok {
		x.errorReply("ERR timeout is not a float or out of range")
		return 0, false
	}
	ms := math.Ceil(f * 1000)
	if ms < 0 || ms >= math.MaxInt64 {
		x.errorReply("ERR timeout is negative")
		return 0, false
	}
	if ms >= float64(math.MaxInt64/int64(time.Millisecond)) {
		return 0, true
	}
	return time.Duration(ms) * time.Millisecond, true
}

func cmdLPush(x *ctx)  { listPush(x, store.ListLeft, false) }
func cmdRPush(x *ctx)  { listPush(x, store.ListRight, false) }
func cmdLPushX(x *ctx) { listPush(x, store.ListLeft, true) }
func cmdRPushX(x *ctx) { listPush(x, store.ListRight, true) }

func listPush(x *ctx, end store.ListEnd, existing bool) {
	n, err := x.tx.ListPush(x.db(), x.arg(1), end, x.args[2:], existing)
	if err == nil && n > 0 {
		x.notify(notify.List, pushEvent(end), x.arg(1))
	}
	x.replyInt(n, err)
}

// pushEvent and popEvent name the list events of each end.
func pushEvent(end store.ListEnd) string {
	if end == store.ListLeft {
		return "lpush"
	}
	return "rpush"
}

func popEvent(end store.ListEnd) string {
	if end == store.ListLeft {
		return "lpop"
	}
	return "rpop"
}

func cmdLPop(x *ctx) { listPop(x, store.ListLeft) }
func cmdRPop(x *ctx) { listPop(x, store.ListRight) }

func listPop(x *ctx, end store.ListEnd) {
	if len(x.args) > 3 {
		x.errorReply("ERR wrong number of arguments for '" + strings.ToLower(x.argStr(0)) + "' command")
		return
	}
	withCount := len(x.args) == 3
	count := int64(1)
	if withCount {
		n, ok := rconv.ParseInt(x.arg(2))
		if !ok || n < 0 {
			x.errorReply("ERR value is out of range, must be positive")
			return
		}
		count = n
	}
	items, found, err := x.tx.ListPop(x.db(), x.arg(1), end, count)
	if err == nil && len(items) > 0 {
		x.notifyEmptying(notify.List, popEvent(end), x.arg(1))
	}
	switch {
	case err != nil:
		x.storeError(err)
	case !found && withCount:
		x.w.NullArray()
	case !found:
		x.w.NullBulk()
	case withCount:
		bulks(x, items)
	default:
		x.w.Bulk(items[0])
	}
}

// bulks replies an array of bulk strings.
func bulks(x *ctx, items [][]byte) {
	x.w.Array(len(items))
	for _, v := range items {
		x.w.Bulk(v)
	}
}

func cmdLLen(x *ctx) {
	n, err := x.tx.LLen(x.db(), x.arg(1))
	// A list is never empty: a length of 0 is a missing key.
	x.missedIf(err == nil && n == 0, x.arg(1))
	x.replyInt(n, err)
}

func cmdLIndex(x *ctx) {
	// Redis looks the key up before it reads the index.
	x.keyMiss(x.arg(1))
	i, ok := rconv.ParseInt(x.arg(2))
	if !ok {
		// Redis looks the key up before it parses the index.
		listBadIndex(x, false)
		return
	}
	x.replyBulkOrNil(x.tx.LIndex(x.db(), x.arg(1), i))
}

// listBadIndex replies to LINDEX or LSET (set) with an index that is not
// an integer as Redis does, which looks the key up first: an absent key is
// nil (LINDEX) or "no such key" (LSET), another type WRONGTYPE.
func listBadIndex(x *ctx, set bool) {
	n, err := x.tx.LLen(x.db(), x.arg(1))
	switch {
	case err != nil:
		x.storeError(err)
	case n > 0:
		x.notInteger()
	case set:
		x.storeError(store.ErrNoSuchKey)
	default:
		x.w.NullBulk()
	}
}

// twoInts parses arguments i and i+1 as integers, replying on error.
func (x *ctx) twoInts(i int) (a, b int64, ok bool) {
	a, ok1 := rconv.ParseInt(x.arg(i))
	b, ok2 := rconv.ParseInt(x.arg(i + 1))
	if !ok1 || !ok2 {
		x.notInteger()
		return 0, 0, false
	}
	return a, b, true
}

func cmdLRange(x *ctx) {
	start, stop, ok := x.twoInts(2)
	if !ok {
		return
	}
	x.keyMiss(x.arg(1))
	err := x.tx.LRangeEach(x.db(), x.arg(1), start, stop,
		func(n int) { x.w.Array(n) },
		func(item []byte) { x.w.Bulk(item) })
	if err != nil {
		x.storeError(err)
	}
}

func cmdLSet(x *ctx) {
	i, ok := rconv.ParseInt(x.arg(2))
	if !ok {
		listBadIndex(x, true)
		return
	}
	if err := x.tx.LSet(x.db(), x.arg(1), i, x.arg(3)); err != nil {
		x.storeError(err)
		return
	}
	x.notify(notify.List, "lset", x.arg(1))
	x.ok()
}

func cmdLInsert(x *ctx) {
	var after bool
	switch w := x.arg(2); {
	case optIs(w, "AFTER"):
		after = true
	case optIs(w, "BEFORE"):
	default:
		x.syntaxError()
		return
	}
	n, err := x.tx.LInsert(x.db(), x.arg(1), after, x.arg(3), x.arg(4))
	if err == nil && n > 0 {
		x.notify(notify.List, "linsert", x.arg(1))
	}
	x.replyInt(n, err)
}

func cmdLRem(x *ctx) {
	count, ok := rconv.ParseInt(x.arg(2))
	if !ok {
		x.notInteger()
		return
	}
	n, err := x.tx.LRem(x.db(), x.arg(1), count, x.arg(3))
	if err == nil && n > 0 {
		x.notifyEmptying(notify.List, "lrem", x.arg(1))
	}
	x.replyInt(n, err)
}

func cmdLTrim(x *ctx) {
	start, stop, ok := x.twoInts(2)
	if !ok {
		return
	}
	// LTRIM reports "ltrim" whenever the list exists, trimmed or not.
	existed := false
	if x.tx.Notifies(notify.List | notify.Generic) {
		ok, err := x.tx.Exists(x.db(), x.arg(1))
		if err != nil {
			x.storeError(err)
			return
		}
		existed = ok
	}
	if err := x.tx.LTrim(x.db(), x.arg(1), start, stop); err != nil {
		x.storeError(err)
		return
	}
	if existed {
		x.notifyEmptying(notify.List, "ltrim", x.arg(1))
	}
	x.ok()
}

func cmdLPos(x *ctx) {
	a := store.LPosArgs{Rank: 1}
	withCount := false
	for i := 3; i < len(x.args); i++ {
		opt := x.arg(i)
		if i+1 >= len(x.args) {
			x.syntaxError()
			return
		}
		i++
		n, ok := rconv.ParseInt(x.arg(i))
		switch {
		case optIs(opt, "RANK"):
			switch {
			case !ok:
				x.notInteger()
				return
			case n == 0:
				x.errorReply("ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list")
				return
			case n == math.MinInt64:
				// Redis 7.0 negates the rank in place, which leaves
				// LLONG_MIN negative, so every match from the tail
				// qualifies: rank -1. (7.2 rejects it as out of range.)
				n = -1
			}
			a.Rank = n
		case optIs(opt, "COUNT"):
			if !ok || n < 0 {
				x.errorReply("ERR COUNT can't be negative")
				return
			}
			a.Count, withCount = n, true
		case optIs(opt, "MAXLEN"):
			if !ok || n < 0 {
				x.errorReply("ERR MAXLEN can't be negative")
				return
			}
			a.MaxLen = n
		default:
			x.syntaxError()
			return
		}
	}
	if !withCount {
		a.Count = 1
	}
	x.keyMiss(x.arg(1))
	pos, err := x.tx.LPos(x.db(), x.arg(1), x.arg(2), a)
	switch {
	case err != nil:
		x.storeError(err)
	case withCount:
		x.w.Array(len(pos))
		for _, p := range pos {
			x.w.Int(p)
		}
	case len(pos) == 0:
		x.w.NullBulk()
	default:
		x.w.Int(pos[0])
	}
}

func cmdLMove(x *ctx) {
	from, ok := x.listEnd(x.arg(3))
	if !ok {
		return
	}
	to, ok := x.listEnd(x.arg(4))
	if !ok {
		return
	}
	listMove(x, from, to, nil)
}

func cmdRPopLPush(x *ctx) { listMove(x, store.ListRight, store.ListLeft, nil) }

// listMove runs LMOVE; with a timeout argument (BLMOVE), it blocks on the
// source when that is absent.
func listMove(x *ctx, from, to store.ListEnd, timeoutArg []byte) {
	var timeout time.Duration
	if timeoutArg != nil {
		var ok bool
		if timeout, ok = x.blockTimeout(timeoutArg); !ok {
			return
		}
	}
	v, found, err := x.tx.LMove(x.db(), x.arg(1), x.arg(2), from, to)
	if x.woken && err == store.ErrWrongType {
		// Once blocked, a source that became another type leaves the
		// client waiting (Redis serves it only from a list); a
		// destination of another type is an error, as in Redis.
		if _, serr := x.tx.LLen(x.db(), x.arg(1)); serr == store.ErrWrongType {
			found, err = false, nil
		}
	}
	if err == nil && found {
		// Redis pushes before it pops: the destination's event first.
		x.notify(notify.List, pushEvent(to), x.arg(2))
		x.notifyEmptying(notify.List, popEvent(from), x.arg(1))
	}
	switch {
	case err != nil:
		x.storeError(err)
	case found:
		x.w.Bulk(v)
	case timeoutArg != nil && !x.inGroup():
		// A wait that times out replies a null array, not the null bulk
		// string of an empty source: Redis times out every blocked list
		// client alike (replyToBlockedClientTimedOut).
		x.block(x.args[1:2], timeout, func(x *ctx) { x.w.NullArray() })
	default:
		// An empty source, or a blocking move that may not block (in a
		// MULTI or a script): Redis answers both with a null bulk.
		x.w.NullBulk()
	}
}

func cmdBLMove(x *ctx) {
	from, ok := x.listEnd(x.arg(3))
	if !ok {
		return
	}
	to, ok := x.listEnd(x.arg(4))
	if !ok {
		return
	}
	listMove(x, from, to, x.arg(5))
}

func cmdBRPopLPush(x *ctx) { listMove(x, store.ListRight, store.ListLeft, x.arg(3)) }

func cmdLMPop(x *ctx)  { listMPop(x, 1, false) }
func cmdBLMPop(x *ctx) { listMPop(x, 2, true) }

// listMPop runs LMPOP (numkeys at argument 1) and BLMPOP (timeout at 1,
// numkeys at 2), checking the arguments in Redis's order: numkeys, the
// direction, COUNT, then the timeout.
func listMPop(x *ctx, at int, blocking bool) {
	n, ok := rconv.ParseInt(x.arg(at))
	if !ok || n < 1 {
		x.errorReply("ERR numkeys should be greater than 0")
		return
	}
	if n >= int64(len(x.args)-at-1) {
		x.syntaxError()
		return
	}
	keys := x.args[at+1 : at+1+int(n)]
	i := at + 1 + int(n)
	end, ok := x.listEnd(x.arg(i))
	if !ok {
		return
	}
	count := int64(-1)
	for i++; i < len(x.args); i++ {
		if count != -1 || !optIs(x.arg(i), "COUNT") || i+1 >= len(x.args) {
			x.syntaxError()
			return
		}
		i++
		if count, ok = rconv.ParseInt(x.arg(i)); !ok || count < 1 {
			x.errorReply("ERR count should be greater than 0")
			return
		}
	}
	count = max(count, 1)
	var timeout time.Duration
	if blocking {
		if timeout, ok = x.blockTimeout(x.arg(1)); !ok {
			return
		}
	}
	key, items, err := x.tx.ListMPop(x.db(), keys, end, count, x.woken)
	if err == nil && key != nil {
		x.notifyEmptying(notify.List, popEvent(end), key)
	}
	switch {
	case err != nil:
		x.storeError(err)
	case key != nil:
		x.w.Array(2)
		x.w.Bulk(key)
		bulks(x, items)
	case blocking:
		x.block(keys, timeout, func(x *ctx) { x.w.NullArray() })
	default:
		x.w.NullArray()
	}
}

func cmdBLPop(x *ctx) { blockingPop(x, store.ListLeft) }
func cmdBRPop(x *ctx) { blockingPop(x, store.ListRight) }

// blockingPop runs BLPOP and BRPOP: pop one item from the first of the keys
// that holds a list, or block on all of them.
func blockingPop(x *ctx, end store.ListEnd) {
	last := len(x.args) - 1
	timeout, ok := x.blockTimeout(x.arg(last))
	if !ok {
		return
	}
	keys := x.args[1:last]
	key, items, err := x.tx.ListMPop(x.db(), keys, end, 1, x.woken)
	if err == nil && key != nil {
		x.notifyEmptying(notify.List, popEvent(end), key)
	}
	switch {
	case err != nil:
		x.storeError(err)
	case key == nil:
		x.block(keys, timeout, func(x *ctx) { x.w.NullArray() })
	default:
		x.w.Array(2)
		x.w.Bulk(key)
		x.w.Bulk(items[0])
	}
}
