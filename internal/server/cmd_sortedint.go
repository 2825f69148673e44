package server

import (
	"strconv"

	"github.com/cairndb/cairn/internal/command"
	"github.com/cairndb/cairn/internal/notify"
	"github.com/cairndb/cairn/internal/store"
)

// Kvrocks's sortedint type: a set of unsigned 64-bit integers kept in
// ascending order, for paging through id lists. Redis has no such type;
// the commands follow Kvrocks's (src/commands/cmd_sortedint.cc), with
// stricter argument counts: where Kvrocks ignores a dangling option word
// Cairn answers a syntax error.
//
// Keyspace notifications: Kvrocks publishes none. Cairn publishes "siadd"
// and "sirem" in the set class ('s'), as SADD and SREM do, and "del" when
// SIREM removes the last member.

func sortedintCommands() []cmdEntry {
	one := keys{1, 1, 1}
	const g, since = "sortedint", "1.0.0"
	cat := command.CatSet
	return []cmdEntry{
		withKeyFlags(def("siadd", -3, write|denyoom|fast, one, cat, g, since, "Adds one or more unsigned 64-bit integers to a sortedint. Creates the key if it doesn't exist.", cmdSIAdd), rw|ins),
		withKeyFlags(def("sirem", -3, write|fast, one, cat, g, since, "Removes one or more integers from a sortedint. Deletes the key if the last one was removed.", cmdSIRem), rw|del),
		withKeyFlags(def("sicard", 2, readonly|fast, one, cat, g, since, "Returns the number of integers in a sortedint.", cmdSICard), ro),
		withKeyFlags(def("siexists", -3, readonly|fast, one, cat, g, since, "Determines whether each integer belongs to a sortedint.", cmdSIExists), ro),
		withKeyFlags(def("sirange", -4, readonly, one, cat, g, since, "Returns a page of the integers of a sortedint in ascending order, from an offset or after a cursor.", sortedintRange(false)), ro|acc),
		withKeyFlags(def("sirevrange", -4, readonly, one, cat, g, since, "Returns a page of the integers of a sortedint in descending order, from an offset or before a cursor.", sortedintRange(true)), ro|acc),
		withKeyFlags(def("sirangebyvalue", -4, readonly, one, cat, g, since, "Returns the integers of a sortedint within a range of values, ascending.", sortedintByValue(false)), ro|acc),
		withKeyFlags(def("sirevrangebyvalue", -4, readonly, one, cat, g, since, "Returns the integers of a sortedint within a range of values, descending.", sortedintByValue(true)), ro|acc),
	}
}

// sortedintIDs parses ids as unsigned 64-bit decimal integers; on a bad
// one it replies the error and reports false.
func sortedintIDs(x *ctx, args [][]byte) ([]uint64, bool) {
	ids := make([]uint64, len(args))
	for i, a := range args {
		id, ok := parseSortedintID(a)
		if !ok {
			x.notInteger()
			return nil, false
		}
		ids[i] = id
	}
	return ids, true
}

// parseSortedintID parses a plain decimal unsigned 64-bit integer (no sign,
// no spaces).
func parseSortedintID(b []byte) (uint64, bool) {
	if len(b) == 0 || b[0] < '0' || b[0] > '9' {
		return 0, false
	}
	n, err := strconv.ParseUint(string(b), 10, 64)
	return n, err == nil
}

func cmdSIAdd(x *ctx) {
	ids, ok := sortedintIDs(x, x.args[2:])
	if !ok {
		return
	}
	n, err := x.tx.SIAdd(x.db(), x.arg(1), ids)
	if err == nil && n > 0 {
		x.notify(notify.Set, "siadd", x.arg(1))
	}
	x.replyInt(n, err)
}

func cmdSIRem(x *ctx) {
	ids, ok := sortedintIDs(x, x.args[2:])
	if !ok {
		return
	}
	n, err := x.tx.SIRem(x.db(), x.arg(1), ids)
	if err == nil && n > 0 {
		x.notifyEmptying(notify.Set, "sirem", x.arg(1))
	}
	x.replyInt(n, err)
}

func cmdSICard(x *ctx) {
	n, err := x.tx.SICard(x.db(), x.arg(1))
	x.missedIf(err == nil && n == 0, x.arg(1))
	x.replyInt(n, err)
}

func cmdSIExists(x *ctx) {
	ids, ok := sortedintIDs(x, x.args[2:])
	if !ok {
		return
	}
	x.keyMiss(x.arg(1))
	in, err := x.tx.SIExists(x.db(), x.arg(1), ids)
	if err != nil {
		x.storeError(err)
		return
	}
	x.w.Array(len(in))
	for _, ok := range in {
		x.w.Int(boolInt(ok))
	}
}

// sortedintReply writes ids as an array of bulk strings, as Kvrocks does.
func sortedintReply(x *ctx, ids []uint64, err error) {
	if err != nil {
		x.storeError(err)
		return
	}
	x.w.Array(len(ids))
	var buf []byte
	for _, id := range ids {
		buf = strconv.AppendUint(buf[:0], id, 10)
		x.w.Bulk(buf)
	}
}

// sortedintRange is SIRANGE / SIREVRANGE key offset count [CURSOR id]:
// skip offset members, return up to count (0: no limit), starting past
// the cursor id when one other than 0 is given.
func sortedintRange(reverse bool) handler {
	return func(x *ctx) {
		if len(x.args) != 4 && len(x.args) != 6 {
			x.syntaxError()
			return
		}
		a := store.SIRangeArgs{Reverse: reverse}
		var ok1, ok2 bool
		a.Offset, ok1 = parseSortedintID(x.arg(2))
		a.Limit, ok2 = parseSortedintID(x.arg(3))
		if !ok1 || !ok2 {
			x.notInteger()
			return
		}
		if len(x.args) == 6 {
			if !optIs(x.arg(4), "CURSOR") {
				x.syntaxError()
				return
			}
			c, ok := parseSortedintID(x.arg(5))
			if !ok {
				x.notInteger()
				return
			}
			a.Cursor = c
		}
		x.keyMiss(x.arg(1))
		ids, err := x.tx.SIRange(x.db(), x.arg(1), a)
		sortedintReply(x, ids, err)
	}
}

// sortedintByValue is SIRANGEBYVALUE key min max [LIMIT offset count] and
// SIREVRANGEBYVALUE key max min [LIMIT offset count].
func sortedintByValue(reverse bool) handler {
	return func(x *ctx) {
		if len(x.args) != 4 && len(x.args) != 7 {
			x.syntaxError()
			return
		}
		minArg, maxArg := x.arg(2), x.arg(3)
		if reverse {
			minArg, maxArg = maxArg, minArg
		}
		r, msg := parseSortedintBounds(minArg, maxArg)
		if msg != "" {
			x.errorReply(msg)
			return
		}
		r.Reverse = reverse
		if len(x.args) == 7 {
			if !optIs(x.arg(4), "LIMIT") {
				x.syntaxError()
				return
			}
			off, err1 := strconv.ParseInt(string(x.arg(5)), 10, 32)
			cnt, err2 := strconv.ParseInt(string(x.arg(6)), 10, 32)
			if err1 != nil || err2 != nil {
				x.notInteger()
				return
			}
			r.Offset, r.Count = off, cnt
		} else {
			r.Offset, r.Count = -1, -1
		}
		x.keyMiss(x.arg(1))
		ids, err := x.tx.SIRangeByValue(x.db(), x.arg(1), r)
		sortedintReply(x, ids, err)
	}
}

// parseSortedintBounds parses a value range as Kvrocks does: -inf and +inf,
// or an id, exclusive after '('. It returns the error reply on failure.
func parseSortedintBounds(minArg, maxArg []byte) (store.SIValueRange, string) {
	var r store.SIValueRange
	if string(minArg) == "+inf" || string(maxArg) == "-inf" {
		return r, "ERR min > max"
	}
	if string(minArg) == "-inf" {
		r.Min = 0
	} else {
		if len(minArg) > 0 && minArg[0] == '(' {
			r.MinEx, minArg = true, minArg[1:]
		}
		v, ok := parseSortedintID(minArg)
		if !ok {
			return r, "ERR the min isn't integer"
		}
		r.Min = v
	}
	if string(maxArg) == "+inf" {
		r.Max = ^uint64(0)
	} else {
		if len(maxArg) > 0 && maxArg[0] == '(' {
			r.MaxEx, maxArg = true, maxArg[1:]
		}
		v, ok := parseSortedintID(maxArg)
		if !ok {
			return r, "ERR the max isn't integer"
		}
		r.Max = v
	}
	return r, ""
}
