package server

import (
	"bytes"
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/cairndb/cairn/internal/command"
	"github.com/cairndb/cairn/internal/notify"
	"github.com/cairndb/cairn/internal/rconv"
	"github.com/cairndb/cairn/internal/store"
)

const zsetCat = command.CatSortedSet

func zsetCommands() []cmdEntry {
	one := keys{1, 1, 1}
	const blocking = command.Blocking
	e := []cmdEntry{
		withKeyFlags(def("zadd", -4, write|denyoom|fast, one, zsetCat, "sorted-set", "1.2.0", "Adds one or more members to a sorted set, or updates their scores. Creates the key if it doesn't exist.", cmdZAdd), rw|upd),
		withKeyFlags(def("zincrby", 4, write|denyoom|fast, one, zsetCat, "sorted-set", "1.2.0", "Increments the score of a member in a sorted set.", cmdZIncrBy), rw|acc|upd),
		withKeyFlags(def("zrem", -3, write|fast, one, zsetCat, "sorted-set", "1.2.0", "Removes one or more members from a sorted set. Deletes the sorted set if all members were removed.", cmdZRem), rw|del),
		withKeyFlags(def("zcard", 2, readonly|fast, one, zsetCat, "sorted-set", "1.2.0", "Returns the number of members in a sorted set.", cmdZCard), ro),
		withKeyFlags(def("zscore", 3, readonly|fast, one, zsetCat, "sorted-set", "1.2.0", "Returns the score of a member in a sorted set.", cmdZScore), ro|acc),
		withKeyFlags(def("zmscore", -3, readonly|fast, one, zsetCat, "sorted-set", "6.2.0", "Returns the score of one or more members in a sorted set.", cmdZMScore), ro|acc),
		withKeyFlags(def("zcount", 4, readonly|fast, one, zsetCat, "sorted-set", "2.0.0", "Returns the count of members in a sorted set that have scores within a range.", cmdZCount), ro|acc),
		withKeyFlags(def("zlexcount", 4, readonly|fast, one, zsetCat, "sorted-set", "2.8.9", "Returns the number of members in a sorted set within a lexicographical range.", cmdZLexCount), ro|acc),
		withKeyFlags(def("zrank", -3, readonly|fast, one, zsetCat, "sorted-set", "2.0.0", "Returns the index of a member in a sorted set ordered by ascending scores.", cmdZRank), ro|acc),
		withKeyFlags(def("zrevrank", -3, readonly|fast, one, zsetCat, "sorted-set", "2.2.0", "Returns the index of a member in a sorted set ordered by descending scores.", cmdZRevRank), ro|acc),
		withKeyFlags(def("zrange", -4, readonly, one, zsetCat, "sorted-set", "1.2.0", "Returns members in a sorted set within a range of indexes.", cmdZRange), ro|acc),
		zrangeStoreEntry(def("zrangestore", -5, write|denyoom, keys{1, 2, 1}, zsetCat, "sorted-set", "6.2.0", "Stores a range of members from sorted set in a key.", cmdZRangeStore)),
		withKeyFlags(def("zrangebyscore", -4, readonly, one, zsetCat, "sorted-set", "1.0.5", "Returns members in a sorted set within a range of scores.", cmdZRangeByScore), ro|acc),
		withKeyFlags(def("zrevrangebyscore", -4, readonly, one, zsetCat, "sorted-set", "2.2.0", "Returns members in a sorted set within a range of scores in reverse order.", cmdZRevRangeByScore), ro|acc),
		withKeyFlags(def("zrangebylex", -4, readonly, one, zsetCat, "sorted-set", "2.8.9", "Returns members in a sorted set within a lexicographical range.", cmdZRangeByLex), ro|acc),
		withKeyFlags(def("zrevrangebylex", -4, readonly, one, zsetCat, "sorted-set", "2.8.9", "Returns members in a sorted set within a lexicographical range in reverse order.", cmdZRevRangeByLex), ro|acc),
		withKeyFlags(def("zrevrange", -4, readonly, one, zsetCat, "sorted-set", "1.2.0", "Returns members in a sorted set within a range of indexes in reverse order.", cmdZRevRange), ro|acc),
		withKeyFlags(def("zremrangebyrank", 4, write, one, zsetCat, "sorted-set", "2.0.0", "Removes members in a sorted set within a range of indexes. Deletes the sorted set if all members were removed.", cmdZRemRangeByRank), rw|del),
		withKeyFlags(def("zremrangebyscore", 4, write, one, zsetCat, "sorted-set", "1.2.0", "Removes members in a sorted set within a range of scores. Deletes the sorted set if all members were removed.", cmdZRemRangeByScore), rw|del),
		withKeyFlags(def("zremrangebylex", 4, write, one, zsetCat, "sorted-set", "2.8.9", "Removes members in a sorted set within a lexicographical range. Deletes the sorted set if all members were removed.", cmdZRemRangeByLex), rw|del),
		withKeyFlags(def("zpopmin", -2, write|fast, one, zsetCat, "sorted-set", "5.0.0", "Returns the lowest-scoring members from a sorted set after removing them. Deletes the sorted set if the last member was popped.", cmdZPopMin), rw|acc|del),
		withKeyFlags(def("zpopmax", -2, write|fast, one, zsetCat, "sorted-set", "5.0.0", "Returns the highest-scoring members from a sorted set after removing them. Deletes the sorted set if the last member was popped.", cmdZPopMax), rw|acc|del),
		zsetNumKeysEntry(def("zmpop", -4, write, noKeys, zsetCat, "sorted-set", "7.0.0", "Returns the highest- or lowest-scoring members from one or more sorted sets after removing them. Deletes the sorted set if the last member was popped.", cmdZMPop), false, rw|acc|del),
		withKeyFlags(def("bzpopmin", -3, write|noscript|fast|blocking, keys{1, -2, 1}, zsetCat, "sorted-set", "5.0.0", "Removes and returns the member with the lowest score from one or more sorted sets. Blocks until a member is available otherwise. Deletes the sorted set if the last element was popped.", cmdBZPopMin), rw|acc|del),
		withKeyFlags(def("bzpopmax", -3, write|noscript|fast|blocking, keys{1, -2, 1}, zsetCat, "sorted-set", "5.0.0", "Removes and returns the member with the highest score from one or more sorted sets. Blocks until a member available otherwise.  Deletes the sorted set if the last element was popped.", cmdBZPopMax), rw|acc|del),
		zsetNumKeysAt(def("bzmpop", -5, write|blocking, noKeys, zsetCat, "sorted-set", "7.0.0", "Removes and returns a member by score from one or more sorted sets. Blocks until a member is available otherwise. Deletes the sorted set if the last element was popped.", cmdBZMPop), 2, false, rw|acc|del),
		withTips(withKeyFlags(def("zrandmember", -2, readonly, one, zsetCat, "sorted-set", "6.2.0", "Returns one or more random members from a sorted set.", cmdZRandMember), ro|acc), tipOutput),
		zsetNumKeysEntry(def("zunion", -3, readonly, noKeys, zsetCat, "sorted-set", "6.2.0", "Returns the union of multiple sorted sets.", cmdZUnion), false, ro|acc),
		zsetNumKeysEntry(def("zunionstore", -4, write|denyoom, one, zsetCat, "sorted-set", "2.0.0", "Stores the union of multiple sorted sets in a key.", cmdZUnionStore), true, ro|acc),
		zsetNumKeysEntry(def("zinter", -3, readonly, noKeys, zsetCat, "sorted-set", "6.2.0", "Returns the intersect of multiple sorted sets.", cmdZInter), false, ro|acc),
		zsetNumKeysEntry(def("zinterstore", -4, write|denyoom, one, zsetCat, "sorted-set", "2.0.0", "Stores the intersect of multiple sorted sets in a key.", cmdZInterStore), true, ro|acc),
		zsetNumKeysEntry(def("zintercard", -3, readonly, noKeys, zsetCat, "sorted-set", "7.0.0", "Returns the number of members of the intersect of multiple sorted sets.", cmdZInterCard), false, ro|acc),
		zsetNumKeysEntry(def("zdiff", -3, readonly, noKeys, zsetCat, "sorted-set", "6.2.0", "Returns the difference between multiple sorted sets.", cmdZDiff), false, ro|acc),
		zsetNumKeysEntry(def("zdiffstore", -4, write|denyoom, one, zsetCat, "sorted-set", "6.2.0", "Stores the difference of multiple sorted sets in a key.", cmdZDiffStore), true, ro|acc),
		withTips(withKeyFlags(def("zscan", -3, readonly, one, zsetCat, "sorted-set", "2.8.0", "Iterates over members and scores of a sorted set.", cmdZScan), ro|acc), tipOutput),
	}
	for i := range e {
		s := e[i].spec
		switch s.Name {
		case "zadd":
			s.History = []command.HistoryEntry{
				{Since: "2.4.0", Changes: "Accepts multiple elements."},
				{Since: "3.0.2", Changes: "Added the `XX`, `NX`, `CH` and `INCR` options."},
				{Since: "6.2.0", Changes: "Added the `GT` and `LT` options."},
			}
		case "bzpopmin", "bzpopmax":
			s.History = []command.HistoryEntry{{Since: "6.0.0", Changes: "`timeout` is interpreted as a double instead of an integer."}}
		case "zrank", "zrevrank":
			s.History = []command.HistoryEntry{{Since: "7.2.0", Changes: "Added the optional `WITHSCORE` argument."}}
		case "zrange":
			s.History = []command.HistoryEntry{{Since: "6.2.0", Changes: "Added the `REV`, `BYSCORE`, `BYLEX` and `LIMIT` options."}}
		case "zrangebyscore", "zrevrangebyscore", "zrangebylex", "zrevrangebylex", "zrevrange":
			s.DocFlags = command.DocDeprecated
			s.DeprecatedSince = "6.2.0"
			s.ReplacedBy = map[string]string{
				"zrangebyscore":    "`ZRANGE` with the `BYSCORE` argument",
				"zrevrangebyscore": "`ZRANGE` with the `BYSCORE` and `REV` arguments",
				"zrangebylex":      "`ZRANGE` with the `BYLEX` argument",
				"zrevrangebylex":   "`ZRANGE` with the `BYLEX` and `REV` arguments",
				"zrevrange":        "`ZRANGE` with the `REV` argument",
			}[s.Name]
		}
	}
	return e
}

// zrangeStoreEntry gives ZRANGESTORE Redis's two key specs: the destination
// (overwritten) and the source (read).
func zrangeStoreEntry(e cmdEntry) cmdEntry {
	e.spec.KeySpecs = []command.KeySpec{
		{Flags: command.KeyOW | command.KeyUpdate, Begin: command.IndexSearch(1), Find: command.RangeKeys(0, 1, 0)},
		{Flags: command.KeyRO | command.KeyAccess, Begin: command.IndexSearch(2), Find: command.RangeKeys(0, 1, 0)},
	}
	return e
}

// zsetNumKeysEntry gives a command whose keys follow a numkeys argument
// (ZUNION, ZMPOP, ...) its key specs and key finder: with dst, a
// destination key at 1 and numkeys at 2 (ZUNIONSTORE), else numkeys at 1.
// f is the flags of the numkeys keys.
func zsetNumKeysEntry(e cmdEntry, dst bool, f command.KeyFlag) cmdEntry {
	if dst {
		return zsetNumKeysAt(e, 2, true, f)
	}
	return zsetNumKeysAt(e, 1, false, f)
}

// zsetNumKeysAt is zsetNumKeysEntry with numkeys at index pos (BZMPOP:
// 2, after its timeout).
func zsetNumKeysAt(e cmdEntry, pos int, dst bool, f command.KeyFlag) cmdEntry {
	s := e.spec
	s.Flags |= command.MovableKeys
	s.KeySpecs = nil
	if dst {
		s.KeySpecs = append(s.KeySpecs, command.KeySpec{Flags: command.KeyOW | command.KeyUpdate, Begin: command.IndexSearch(1), Find: command.RangeKeys(0, 1, 0)})
	}
	s.KeySpecs = append(s.KeySpecs, command.KeySpec{Flags: f, Begin: command.IndexSearch(pos), Find: command.KeyNumKeys(0, 1, 1)})
	// Redis's getkeys_proc for these commands (genericGetKeys), used when
	// the key specs reject the count: the destination goes last.
	store := 0
	if dst {
		store = 1
	}
	s.KeysFunc = command.NumKeysFunc(store, pos, pos+1, 1)
	return e
}

// --- Parsing ------------------------------------------------------------------

const errZRangeFloat = "ERR min or max is not a float"

const errZLexRange = "ERR min or max not valid string range item"

// parseScoreBound parses one end of a score range as Redis's zslParseRange
// does: an optional '(' for an exclusive end, then a number as C's strtod
// reads it (see strtod).
func parseScoreBound(b []byte) (store.ScoreBound, bool) {
	var sb store.ScoreBound
	if len(b) > 0 && b[0] == '(' {
		sb.Exclusive = true
		b = b[1:]
	}
	f, ok := strtod(b)
	sb.Score = f
	return sb, ok
}

// strtod reads b as zslParseRange reads a range end with C's strtod and
// then accepts it: the text up to the first NUL byte must be a whole
// number in strtod's syntax, leading whitespace allowed; empty text is 0
// (strtod reads nothing and stops at the terminator); a value out of range
// saturates to ±inf or ±0 (strtod's ERANGE results, which Redis does not
// check); NaN is refused. Score arguments of ZADD are stricter
// (rconv.ParseFloat).
func strtod(b []byte) (float64, bool) {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	if len(b) == 0 {
		return 0, true
	}
	s := bytes.TrimLeft(b, " \t\n\v\f\r")
	if len(s) == 0 {
		return 0, false
	}
	if f, ok := rconv.ParseFloat(s); ok {
		return f, true
	}
	// ParseFloat refuses what over- or underflows; strtod saturates.
	t := s
	if t[0] == '+' || t[0] == '-' {
		t = t[1:]
	}
	text := string(s)
	switch {
	case isHexFloat(t):
		if bytes.IndexAny(t, "pP") < 0 {
			text += "p0"
		}
	case !isDecimalFloat(t):
		return 0, false
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

// isDecimalFloat reports whether b is digits[.digits][e[+-]digits] with at
// least one mantissa digit, as strtod reads a decimal number.
func isDecimalFloat(b []byte) bool {
	i, digits := 0, 0
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		digits++
	}
	if i < len(b) && b[i] == '.' {
		for i++; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
			digits++
		}
	}
	if digits == 0 {
		return false
	}
	return exponentOnly(b[i:], "eE")
}

// isHexFloat reports whether b is 0x hexdigits[.hexdigits][p[+-]digits]
// with at least one mantissa digit.
func isHexFloat(b []byte) bool {
	if len(b) < 2 || b[0] != '0' || (b[1] != 'x' && b[1] != 'X') {
		return false
	}
	isHex := func(c byte) bool {
		return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
	}
	i, digits := 2, 0
	for ; i < len(b) && isHex(b[i]); i++ {
		digits++
	}
	if i < len(b) && b[i] == '.' {
		for i++; i < len(b) && isHex(b[i]); i++ {
			digits++
		}
	}
	if digits == 0 {
		return false
	}
	return exponentOnly(b[i:], "pP")
}

// exponentOnly reports whether b is empty or an exponent: a marker from
// markers, an optional sign and at least one digit.
func exponentOnly(b []byte, markers string) bool {
	if len(b) == 0 {
		return true
	}
	if bytes.IndexByte([]byte(markers), b[0]) < 0 {
		return false
	}
	b = b[1:]
	if len(b) > 0 && (b[0] == '+' || b[0] == '-') {
		b = b[1:]
	}
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// parseLexBound parses one end of a lex range as Redis's
// zslParseLexRangeItem does: "[a" inclusive, "(a" exclusive, "-" and "+".
// Like Redis, which reads a C string, a NUL right after '-' or '+' ends it.
func parseLexBound(b []byte) (store.LexBound, bool) {
	if len(b) == 0 {
		return store.LexBound{}, false
	}
	switch b[0] {
	case '+', '-':
		if len(b) > 1 && b[1] != 0 {
			return store.LexBound{}, false
		}
		k := store.LexMaxInf
		if b[0] == '-' {
			k = store.LexMinInf
		}
		return store.LexBound{Kind: k, Exclusive: true}, true
	case '(':
		return store.LexBound{Value: b[1:], Exclusive: true}, true
	case '[':
		return store.LexBound{Value: b[1:]}, true
	}
	return store.LexBound{}, false
}

// --- Replies -------------------------------------------------------------------

// replyZMembers writes members, each with its score when withScores: a
// [member, score] pair in RESP3, a flat member, score, ... array in RESP2.
func replyZMembers(x *ctx, ms []store.ZMember, withScores bool) {
	switch {
	case !withScores:
		x.w.Array(len(ms))
	case x.w.Protocol() == 3:
		x.w.Array(len(ms))
	default:
		x.w.Array(2 * len(ms))
	}
	for _, m := range ms {
		if withScores && x.w.Protocol() == 3 {
			x.w.Array(2)
		}
		x.w.Bulk(m.Member)
		if withScores {
			x.w.Double(m.Score)
		}
	}
}

// replyZPop writes popped members as ZPOPMIN and ZPOPMAX do: with nested
// (a COUNT was given, in RESP3) as [member, score] pairs, else as one flat
// array. BZPOPMIN/BZPOPMAX put their key in front themselves.
func replyZPop(x *ctx, ms []store.ZMember, nested bool) {
	if nested {
		replyZMembers(x, ms, true)
		return
	}
	x.w.Array(2 * len(ms))
	for _, m := range ms {
		x.w.Bulk(m.Member)
		x.w.Double(m.Score)
	}
}

// replyZMPop writes ZMPOP's and BZMPOP's reply: the key, then the popped
// [member, score] pairs, in both protocols.
func replyZMPop(x *ctx, key []byte, ms []store.ZMember) {
	x.w.Array(2)
	x.w.Bulk(key)
	x.w.Array(len(ms))
	for _, m := range ms {
		x.w.Array(2)
		x.w.Bulk(m.Member)
		x.w.Double(m.Score)
	}
}

// --- ZADD and friends ----------------------------------------------------------

func cmdZAdd(x *ctx) {
	var a store.ZAddArgs
	ch := false
	i := 2
flags:
	for ; i < len(x.args); i++ {
		switch {
		case optIs(x.arg(i), "NX"):
			a.NX = true
		case optIs(x.arg(i), "XX"):
			a.XX = true
		case optIs(x.arg(i), "CH"):
			ch = true
		case optIs(x.arg(i), "INCR"):
			a.Incr = true
		case optIs(x.arg(i), "GT"):
			a.GT = true
		case optIs(x.arg(i), "LT"):
			a.LT = true
		default:
			break flags
		}
	}
	elements := len(x.args) - i
	switch {
	case elements == 0 || elements%2 == 1:
		x.syntaxError()
		return
	case a.NX && a.XX:
		x.errorReply("ERR XX and NX options at the same time are not compatible")
		return
	case (a.GT && a.NX) || (a.LT && a.NX) || (a.GT && a.LT):
		x.errorReply("ERR GT, LT, and/or NX options at the same time are not compatible")
		return
	case a.Incr && elements > 2:
		x.errorReply("ERR INCR option supports a single increment-element pair")
		return
	}
	pairs := make([]store.ZMember, elements/2)
	for j := range pairs {
		s, ok := rconv.ParseFloat(x.arg(i + 2*j))
		if !ok {
			x.errorReply(string(store.ErrNotFloat))
			return
		}
		pairs[j] = store.ZMember{Score: s, Member: x.arg(i + 2*j + 1)}
	}
	res, err := x.tx.ZAdd(x.db(), x.arg(1), a, pairs)
	if err == nil {
		x.notifyZAdd(res, a.Incr)
	}
	switch {
	case err != nil:
		x.storeError(err)
	case a.Incr && res.Done:
		x.w.Double(res.Score)
	case a.Incr:
		x.w.NullBulk()
	case ch:
		x.w.Int(res.Added + res.Updated)
	default:
		x.w.Int(res.Added)
	}
}

func cmdZIncrBy(x *ctx) {
	incr, ok := rconv.ParseFloat(x.arg(2))
	if !ok {
		x.errorReply(string(store.ErrNotFloat))
		return
	}
	res, err := x.tx.ZAdd(x.db(), x.arg(1), store.ZAddArgs{Incr: true}, []store.ZMember{{Member: x.arg(3), Score: incr}})
	if err != nil {
		x.storeError(err)
		return
	}
	x.notifyZAdd(res, true)
	x.w.Double(res.Score)
}

func cmdZRem(x *ctx) {
	n, err := x.tx.ZRem(x.db(), x.arg(1), x.args[2:])
	if err == nil && n > 0 {
		x.notifyEmptying(notify.ZSet, "zrem", x.arg(1))
	}
	x.replyInt(n, err)
}

func cmdZCard(x *ctx) {
	n, err := x.tx.ZCard(x.db(), x.arg(1))
	x.missedIf(err == nil && n == 0, x.arg(1))
	x.replyInt(n, err)
}

func cmdZScore(x *ctx) {
	x.keyMiss(x.arg(1))
	s, ok, err := x.tx.ZScore(x.db(), x.arg(1), x.arg(2))
	switch {
	case err != nil:
		x.storeError(err)
	case !ok:
		x.w.NullBulk()
	default:
		x.w.Double(s)
	}
}

func cmdZMScore(x *ctx) {
	x.keyMiss(x.arg(1))
	scores, found, err := x.tx.ZMScore(x.db(), x.arg(1), x.args[2:])
	if err != nil {
		x.storeError(err)
		return
	}
	x.w.Array(len(scores))
	for i, s := range scores {
		if found[i] {
			x.w.Double(s)
		} else {
			x.w.NullBulk()
		}
	}
}

func cmdZCount(x *ctx) {
	min, ok1 := parseScoreBound(x.arg(2))
	max, ok2 := parseScoreBound(x.arg(3))
	if !ok1 || !ok2 {
		x.errorReply(errZRangeFloat)
		return
	}
	x.keyMiss(x.arg(1))
	x.replyInt(x.tx.ZCount(x.db(), x.arg(1), min, max))
}

func cmdZLexCount(x *ctx) {
	min, ok1 := parseLexBound(x.arg(2))
	max, ok2 := parseLexBound(x.arg(3))
	if !ok1 || !ok2 {
		x.errorReply(errZLexRange)
		return
	}
	x.keyMiss(x.arg(1))
	x.replyInt(x.tx.ZLexCount(x.db(), x.arg(1), min, max))
}

func cmdZRank(x *ctx)    { zrank(x, false) }
func cmdZRevRank(x *ctx) { zrank(x, true) }

// zrank is ZRANK and ZREVRANK, with Redis 7.2's WITHSCORE.
func zrank(x *ctx, rev bool) {
	withScore := false
	switch {
	case len(x.args) > 4:
		x.errorReply("ERR wrong number of arguments for '" + strings.ToLower(x.argStr(0)) + "' command")
		return
	case len(x.args) == 4:
		if !optIs(x.arg(3), "WITHSCORE") {
			x.syntaxError()
			return
		}
		withScore = true
	}
	x.keyMiss(x.arg(1))
	rank, score, ok, err := x.tx.ZRank(x.db(), x.arg(1), x.arg(2), rev)
	switch {
	case err != nil:
		x.storeError(err)
	case !ok && withScore:
		x.w.NullArray()
	case !ok:
		x.w.NullBulk()
	case withScore:
		x.w.Array(2)
		x.w.Int(rank)
		x.w.Double(score)
	default:
		x.w.Int(rank)
	}
}

// --- ZRANGE and its relatives --------------------------------------------------

// zrangeKind and zrangeDir are what a command of the ZRANGE family fixes
// before its options are read; auto leaves the choice to BYSCORE, BYLEX and
// REV (ZRANGE and ZRANGESTORE).
type zrangeKind uint8

const (
	zrangeAuto zrangeKind = iota
	zrangeRank
	zrangeScore
	zrangeLex
)

type zrangeDir uint8

const (
	zdirAuto zrangeDir = iota
	zdirForward
	zdirReverse
)

func cmdZRange(x *ctx)             { zrangeGeneric(x, 1, false, zrangeAuto, zdirAuto) }
func cmdZRangeStore(x *ctx)        { zrangeGeneric(x, 2, true, zrangeAuto, zdirAuto) }
func cmdZRevRange(x *ctx)          { zrangeGeneric(x, 1, false, zrangeRank, zdirReverse) }
func cmdZRangeByScore(x *ctx)      { zrangeGeneric(x, 1, false, zrangeScore, zdirForward) }
func cmdZRevRangeByScore(x *ctx)   { zrangeGeneric(x, 1, false, zrangeScore, zdirReverse) }
func cmdZRangeByLex(x *ctx)        { zrangeGeneric(x, 1, false, zrangeLex, zdirForward) }
func cmdZRevRangeByLex(x *ctx)     { zrangeGeneric(x, 1, false, zrangeLex, zdirReverse) }
func cmdZRemRangeByRank(x *ctx)    { zremRange(x, store.ZByRank) }
func cmdZRemRangeByScore(x *ctx)   { zremRange(x, store.ZByScore) }
func cmdZRemRangeByLex(x *ctx)     { zremRange(x, store.ZByLex) }
func zlimitError(x *ctx, s string) { x.errorReply("ERR syntax error, " + s) }

// zrangeGeneric is Redis's zrangeGenericCommand: the source key is at
// argStart, its two range ends follow, then the options; with dst the
// result goes to the key at 1 (ZRANGESTORE).
func zrangeGeneric(x *ctx, argStart int, dst bool, kind zrangeKind, dir zrangeDir) {
	minIdx, maxIdx := argStart+1, argStart+2
	withScores := false
	r := store.ZRange{Count: -1}
	for j := argStart + 3; j < len(x.args); j++ {
		left := len(x.args) - j - 1
		switch {
		case !dst && optIs(x.arg(j), "WITHSCORES"):
			withScores = true
		case left >= 2 && optIs(x.arg(j), "LIMIT"):
			off, ok1 := rconv.ParseInt(x.arg(j + 1))
			if !ok1 {
				x.notInteger()
				return
			}
			cnt, ok2 := rconv.ParseInt(x.arg(j + 2))
			if !ok2 {
				x.notInteger()
				return
			}
			r.Offset, r.Count = off, cnt
			j += 2
		case dir == zdirAuto && optIs(x.arg(j), "REV"):
			dir = zdirReverse
		case kind == zrangeAuto && optIs(x.arg(j), "BYLEX"):
			kind = zrangeLex
		case kind == zrangeAuto && optIs(x.arg(j), "BYSCORE"):
			kind = zrangeScore
		default:
			x.syntaxError()
			return
		}
	}
	if dir == zdirAuto {
		dir = zdirForward
	}
	if kind == zrangeAuto {
		kind = zrangeRank
	}
	switch {
	case r.Count != -1 && kind == zrangeRank:
		zlimitError(x, "LIMIT is only supported in combination with either BYSCORE or BYLEX")
		return
	case withScores && kind == zrangeLex:
		zlimitError(x, "WITHSCORES not supported in combination with BYLEX")
		return
	}
	r.Rev = dir == zdirReverse
	if r.Rev && kind != zrangeRank {
		// The range is given as max, min.
		minIdx, maxIdx = maxIdx, minIdx
	}
	if !zparseRange(x, kind, x.arg(minIdx), x.arg(maxIdx), &r) {
		return
	}
	x.keyMiss(x.arg(argStart))
	if dst {
		existed := x.destinationExists()
		n, err := x.tx.ZRangeStore(x.db(), x.arg(1), x.arg(argStart), r)
		if err != nil {
			x.storeError(err)
			return
		}
		x.notifyStore(notify.ZSet, "zrangestore", n, existed)
		x.w.Int(n)
		return
	}
	ms, err := x.tx.ZRange(x.db(), x.arg(argStart), r)
	if err != nil {
		x.storeError(err)
		return
	}
	replyZMembers(x, ms, withScores)
}

// zparseRange parses a range's two ends into r, replying on error.
func zparseRange(x *ctx, kind zrangeKind, lo, hi []byte, r *store.ZRange) bool {
	switch kind {
	case zrangeRank:
		r.By = store.ZByRank
		var ok1, ok2 bool
		r.Start, ok1 = rconv.ParseInt(lo)
		r.Stop, ok2 = rconv.ParseInt(hi)
		if !ok1 || !ok2 {
			x.notInteger()
			return false
		}
	case zrangeScore:
		r.By = store.ZByScore
		var ok1, ok2 bool
		r.Min, ok1 = parseScoreBound(lo)
		r.Max, ok2 = parseScoreBound(hi)
		if !ok1 || !ok2 {
			x.errorReply(errZRangeFloat)
			return false
		}
	case zrangeLex:
		r.By = store.ZByLex
		var ok1, ok2 bool
		r.LexMin, ok1 = parseLexBound(lo)
		r.LexMax, ok2 = parseLexBound(hi)
		if !ok1 || !ok2 {
			x.errorReply(errZLexRange)
			return false
		}
	}
	return true
}

// zremRange is ZREMRANGEBYRANK, ZREMRANGEBYSCORE and ZREMRANGEBYLEX.
func zremRange(x *ctx, by store.ZRangeBy) {
	r := store.ZRange{Count: -1}
	kind := zrangeRank
	switch by {
	case store.ZByScore:
		kind = zrangeScore
	case store.ZByLex:
		kind = zrangeLex
	}
	if !zparseRange(x, kind, x.arg(2), x.arg(3), &r) {
		return
	}
	n, err := x.tx.ZRemRange(x.db(), x.arg(1), r)
	if err == nil && n > 0 {
		event := "zremrangebyrank"
		switch by {
		case store.ZByScore:
			event = "zremrangebyscore"
		case store.ZByLex:
			event = "zremrangebylex"
		}
		x.notifyEmptying(notify.ZSet, event, x.arg(1))
	}
	x.replyInt(n, err)
}

// --- Pops --------------------------------------------------------------------------

func cmdZPopMin(x *ctx) { zpop(x, false) }
func cmdZPopMax(x *ctx) { zpop(x, true) }

func zpop(x *ctx, highest bool) {
	if len(x.args) > 3 {
		x.syntaxError()
		return
	}
	count := int64(1)
	if len(x.args) == 3 {
		n, ok := rconv.ParseInt(x.arg(2))
		if !ok || n < 0 {
			x.errorReply("ERR value is out of range, must be positive")
			return
		}
		count = n
	}
	ms, err := x.tx.ZPop(x.db(), x.arg(1), highest, count)
	if err != nil {
		x.storeError(err)
		return
	}
	x.notifyZPop(x.arg(1), highest, len(ms))
	replyZPop(x, ms, len(x.args) == 3 && x.w.Protocol() == 3)
}

// zmpopArgs parses ZMPOP's (and BZMPOP's) arguments from numkeys at index
// at: the keys, MIN or MAX, and the COUNT. It replies and returns false on
// error.
func zmpopArgs(x *ctx, at int) (keys [][]byte, highest bool, count int64, ok bool) {
	n, ok := rconv.ParseInt(x.arg(at))
	if !ok || n < 1 {
		x.errorReply("ERR numkeys should be greater than 0")
		return nil, false, 0, false
	}
	where := int64(at) + n + 1
	if n >= int64(len(x.args)) || where >= int64(len(x.args)) {
		x.syntaxError()
		return nil, false, 0, false
	}
	switch {
	case optIs(x.arg(int(where)), "MIN"):
	case optIs(x.arg(int(where)), "MAX"):
		highest = true
	default:
		x.syntaxError()
		return nil, false, 0, false
	}
	count = -1
	for j := int(where) + 1; j < len(x.args); j++ {
		if count == -1 && optIs(x.arg(j), "COUNT") && j+1 < len(x.args) {
			j++
			c, ok := rconv.ParseInt(x.arg(j))
			if !ok || c < 1 {
				x.errorReply("ERR count should be greater than 0")
				return nil, false, 0, false
			}
			count = c
			continue
		}
		x.syntaxError()
		return nil, false, 0, false
	}
	return x.args[at+1 : where], highest, max(count, 1), true
}

func cmdZMPop(x *ctx) {
	keys, highest, count, ok := zmpopArgs(x, 1)
	if !ok {
		return
	}
	i, ms, err := x.tx.ZMPop(x.db(), keys, highest, count, false)
	if err == nil && i >= 0 {
		x.notifyZPop(keys[i], highest, len(ms))
	}
	switch {
	case err != nil:
		x.storeError(err)
	case i < 0:
		x.w.NullArray()
	default:
		replyZMPop(x, keys[i], ms)
	}
}

// --- Blocking pops -----------------------------------------------------------------
//
// A blocking pop serves from the first of its keys holding a sorted set,
// or blocks on all of them (blocking.go) and runs again when one changes.
// Once woken it is served only from a sorted set: a key that has become
// another type meanwhile is passed over, where the first run replies
// WRONGTYPE, as in Redis. A wait that times out replies a null array.

func cmdBZPopMin(x *ctx) { bzpop(x, false) }
func cmdBZPopMax(x *ctx) { bzpop(x, true) }

// bzpop runs BZPOPMIN and BZPOPMAX: the reply is [key, member, score].
func bzpop(x *ctx, highest bool) {
	last := len(x.args) - 1
	timeout, ok := x.blockTimeout(x.arg(last))
	if !ok {
		return
	}
	keys := x.args[1:last]
	i, ms, err := x.tx.ZMPop(x.db(), keys, highest, 1, x.woken)
	if err == nil && i >= 0 {
		x.notifyZPop(keys[i], highest, len(ms))
	}
	switch {
	case err != nil:
		x.storeError(err)
	case i < 0:
		x.block(keys, timeout, func(x *ctx) { x.w.NullArray() })
	default:
		x.w.Array(3)
		x.w.Bulk(keys[i])
		x.w.Bulk(ms[0].Member)
		x.w.Double(ms[0].Score)
	}
}

// cmdBZMPop runs BZMPOP timeout numkeys key... MIN|MAX [COUNT n], checking
// its arguments in Redis's order: numkeys, MIN|MAX, COUNT, then the
// timeout. The reply is ZMPOP's.
func cmdBZMPop(x *ctx) {
	keys, highest, count, ok := zmpopArgs(x, 2)
	if !ok {
		return
	}
	timeout, ok := x.blockTimeout(x.arg(1))
	if !ok {
		return
	}
	i, ms, err := x.tx.ZMPop(x.db(), keys, highest, count, x.woken)
	if err == nil && i >= 0 {
		x.notifyZPop(keys[i], highest, len(ms))
	}
	switch {
	case err != nil:
		x.storeError(err)
	case i < 0:
		x.block(keys, timeout, func(x *ctx) { x.w.NullArray() })
	default:
		replyZMPop(x, keys[i], ms)
	}
}

// --- ZRANDMEMBER ---------------------------------------------------------------------

// zrandChunk bounds the draws of ZRANDMEMBER with a negative count made in
// one pass over the set, and so their memory.
const zrandChunk = 1 << 16

func cmdZRandMember(x *ctx) {
	if len(x.args) == 2 {
		x.keyMiss(x.arg(1))
		m, ok, err := x.tx.ZRandMember(x.db(), x.arg(1))
		x.replyBulkOrNil(m.Member, ok, err)
		return
	}
	count, ok := rconv.ParseInt(x.arg(2))
	switch {
	case !ok:
		x.notInteger()
		return
	case count == math.MinInt64:
		x.errorReply("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807")
		return
	}
	withScores := false
	switch {
	case len(x.args) > 4 || (len(x.args) == 4 && !optIs(x.arg(3), "WITHSCORES")):
		x.syntaxError()
		return
	case len(x.args) == 4:
		withScores = true
		if count < -math.MaxInt64/2 || count > math.MaxInt64/2 {
			x.errorReply("ERR value is out of range")
			return
		}
	}
	x.keyMiss(x.arg(1))
	if count >= 0 {
		ms, err := x.tx.ZRandMembers(x.db(), x.arg(1), count)
		if err != nil {
			x.storeError(err)
			return
		}
		replyZMembers(x, ms, withScores)
		return
	}
	// Draws with repeats, written as they are made, a chunk at a time.
	s, err := x.tx.NewZRandSampler(x.db(), x.arg(1))
	switch {
	case err != nil:
		x.storeError(err)
		return
	case s == nil:
		x.w.Array(0)
		return
	}
	defer s.Close()
	total := -count
	switch {
	case withScores && x.w.Protocol() == 2:
		x.w.Array(int(2 * total))
	default:
		x.w.Array(int(total))
	}
	for left := total; left > 0; {
		if x.clientGone() {
			return
		}
		n := min(left, zrandChunk)
		ms, err := s.Draw(int(n))
		if err != nil {
			// The reply has begun: the connection cannot be kept in step.
			x.internalError(err)
			return
		}
		for _, m := range ms {
			if withScores && x.w.Protocol() == 3 {
				x.w.Array(2)
			}
			x.w.Bulk(m.Member)
			if withScores {
				x.w.Double(m.Score)
			}
		}
		left -= n
	}
}

// --- Set operations ------------------------------------------------------------------

func cmdZUnion(x *ctx)      { zsetOp(x, store.ZUnion, false, false) }
func cmdZUnionStore(x *ctx) { zsetOp(x, store.ZUnion, true, false) }
func cmdZInter(x *ctx)      { zsetOp(x, store.ZInter, false, false) }
func cmdZInterStore(x *ctx) { zsetOp(x, store.ZInter, true, false) }
func cmdZInterCard(x *ctx)  { zsetOp(x, store.ZInter, false, true) }
func cmdZDiff(x *ctx)       { zsetOp(x, store.ZDiff, false, false) }
func cmdZDiffStore(x *ctx)  { zsetOp(x, store.ZDiff, true, false) }

// zsetOp is Redis's zunionInterDiffGenericCommand: numkeys (at 2 with a
// destination, else at 1), the keys, then WEIGHTS and AGGREGATE (union and
// intersection), WITHSCORES (without a destination), LIMIT (ZINTERCARD).
// Every key is type-checked before the options are read, so WRONGTYPE wins
// over a bad option.
func zsetOp(x *ctx, op store.ZSetOp, dst, card bool) {
	at := 1
	if dst {
		at = 2
	}
	n, ok := rconv.ParseInt(x.arg(at))
	switch {
	case !ok:
		x.notInteger()
		return
	case n < 1:
		x.errorReply("ERR at least 1 input key is needed for '" + strings.ToLower(x.argStr(0)) + "' command")
		return
	case n > int64(len(x.args)-at-1):
		x.syntaxError()
		return
	}
	keys := x.args[at+1 : at+1+int(n)]
	// Redis looks the sources up before it reads the options.
	x.keyMiss(keys...)
	var weights []float64
	agg := store.ZSum
	withScores := false
	limit := int64(0)
	optErr := func() string {
		for j := at + 1 + int(n); j < len(x.args); j++ {
			left := len(x.args) - j
			switch {
			case op != store.ZDiff && !card && left >= len(keys)+1 && optIs(x.arg(j), "WEIGHTS"):
				weights = make([]float64, len(keys))
				for i := range keys {
					j++
					w, ok := rconv.ParseFloat(x.arg(j))
					if !ok {
						return "ERR weight value is not a float"
					}
					weights[i] = w
				}
			case op != store.ZDiff && !card && left >= 2 && optIs(x.arg(j), "AGGREGATE"):
				j++
				switch {
				case optIs(x.arg(j), "SUM"):
					agg = store.ZSum
				case optIs(x.arg(j), "MIN"):
					agg = store.ZMin
				case optIs(x.arg(j), "MAX"):
					agg = store.ZMax
				default:
					return "ERR syntax error"
				}
			case !dst && !card && optIs(x.arg(j), "WITHSCORES"):
				withScores = true
			case card && left >= 2 && optIs(x.arg(j), "LIMIT"):
				j++
				l, ok := rconv.ParseInt(x.arg(j))
				if !ok || l < 0 {
					return "ERR LIMIT can't be negative"
				}
				limit = l
			default:
				return "ERR syntax error"
			}
		}
		return ""
	}()
	if optErr != "" {
		if err := x.tx.ZSetOpCheck(x.db(), keys); err != nil {
			x.storeError(err)
			return
		}
		x.errorReply(optErr)
		return
	}
	switch {
	case card:
		c, err := x.tx.ZInterCard(x.db(), keys, limit)
		if err != nil {
			x.storeError(err)
			return
		}
		x.w.Int(c)
	case dst:
		existed := x.destinationExists()
		c, err := x.tx.ZSetOperateStore(x.db(), x.arg(1), op, keys, weights, agg)
		if err != nil {
			x.storeError(err)
			return
		}
		event := "zunionstore"
		switch op {
		case store.ZInter:
			event = "zinterstore"
		case store.ZDiff:
			event = "zdiffstore"
		}
		x.notifyStore(notify.ZSet, event, c, existed)
		x.w.Int(c)
	default:
		ms, err := x.tx.ZSetOperate(x.db(), op, keys, weights, agg)
		if err != nil {
			x.storeError(err)
			return
		}
		replyZMembers(x, ms, withScores)
	}
}

// --- ZSCAN -----------------------------------------------------------------------------

func cmdZScan(x *ctx) {
	cursor, o, ok := collectionScanStart(x, zsetKeyExists, false)
	if !ok {
		return
	}
	next, ms, err := x.tx.ZScan(x.db(), x.arg(1), cursor, store.ZScanArgs{Count: o.count, Pattern: o.pattern})
	if err != nil {
		x.storeError(err)
		return
	}
	replyScanHeader(x, next, 2*len(ms))
	var buf [32]byte
	for _, m := range ms {
		x.w.Bulk(m.Member)
		// Scores are bulk strings here in RESP3 too, as Redis sends them.
		x.w.Bulk(rconv.AppendFloat(buf[:0], m.Score))
	}
}

// zsetKeyExists reports whether key holds a non-empty sorted set, replying
// WRONGTYPE, and returning ok false, when it holds another type.
func zsetKeyExists(x *ctx) (found, ok bool) {
	n, err := x.tx.ZCard(x.db(), x.arg(1))
	if err != nil {
		x.storeError(err)
		return false, false
	}
	return n != 0, true
}

// notifyZAdd records ZADD's event: "zadd", or "zincr" for ZINCRBY and ZADD
// INCR, when a member was added or its score changed.
func (x *ctx) notifyZAdd(res store.ZAddResult, incr bool) {
	if res.Added+res.Updated == 0 {
		return
	}
	if incr {
		x.notify(notify.ZSet, "zincr", x.arg(1))
	} else {
		x.notify(notify.ZSet, "zadd", x.arg(1))
	}
}

// notifyZPop records a pop of n members from key ("zpopmin" or "zpopmax"),
// then "del" if it took the last.
func (x *ctx) notifyZPop(key []byte, highest bool, n int) {
	if n == 0 {
		return
	}
	if highest {
		x.notifyEmptying(notify.ZSet, "zpopmax", key)
	} else {
		x.notifyEmptying(notify.ZSet, "zpopmin", key)
	}
}
