package server

import (
	"bytes"
	"math"

	"github.com/cairndb/cairn/internal/command"
	"github.com/cairndb/cairn/internal/notify"
	"github.com/cairndb/cairn/internal/rconv"
	"github.com/cairndb/cairn/internal/store"
)

const str = command.CatString

func stringCommands() []cmdEntry {
	one := keys{1, 1, 1}
	return []cmdEntry{
		withKeyFlags(def("get", 2, readonly|fast, one, str, "string", "1.0.0", "Returns the string value of a key.", cmdGet), ro|acc),
		withKeyNotes(withKeyFlags(def("set", -3, write|denyoom, one, str, "string", "1.0.0", "Sets the string value of a key, ignoring its type. The key is created if it doesn't exist.", cmdSet), rw|acc|upd|command.KeyVariableFlags), "RW and ACCESS due to the optional `GET` argument"),
		withKeyFlags(def("setnx", 3, write|denyoom|fast, one, str, "string", "1.0.0", "Set the string value of a key only when the key doesn't exist.", cmdSetNX), ow|ins),
		withKeyFlags(def("setex", 4, write|denyoom, one, str, "string", "2.0.0", "Sets the string value and expiration time of a key. Creates the key if it doesn't exist.", cmdSetEx), ow|upd),
		withKeyFlags(def("psetex", 4, write|denyoom, one, str, "string", "2.6.0", "Sets both string value and expiration time in milliseconds of a key. The key is created if it doesn't exist.", cmdPSetEx), ow|upd),
		withKeyFlags(def("getset", 3, write|denyoom|fast, one, str, "string", "1.0.0", "Returns the previous string value of a key after setting it to a new value.", cmdGetSet), rw|acc|upd),
		withKeyFlags(def("getdel", 2, write|fast, one, str, "string", "6.2.0", "Returns the string value of a key after deleting the key.", cmdGetDel), rw|acc|del),
		withKeyNotes(withKeyFlags(def("getex", -2, write|fast, one, str, "string", "6.2.0", "Returns the string value of a key after setting its expiration time.", cmdGetEx), rw|acc|upd), "RW and UPDATE because it changes the TTL"),
		withTips(withKeyFlags(def("mget", -2, readonly|fast, keys{1, -1, 1}, str, "string", "1.0.0", "Atomically returns the string values of one or more keys.", cmdMGet), ro|acc), "request_policy:multi_shard"),
		withTips(withKeyFlags(def("mset", -3, write|denyoom, keys{1, -1, 2}, str, "string", "1.0.1", "Atomically creates or modifies the string values of one or more keys.", cmdMSet), ow|upd), "request_policy:multi_shard", "response_policy:all_succeeded"),
		withTips(withKeyFlags(def("msetnx", -3, write|denyoom, keys{1, -1, 2}, str, "string", "1.0.1", "Atomically modifies the string values of one or more keys only when all keys don't exist.", cmdMSetNX), ow|ins), "request_policy:multi_shard", "response_policy:agg_min"),
		withKeyFlags(def("append", 3, write|denyoom|fast, one, str, "string", "2.0.0", "Appends a string to the value of a key. Creates the key if it doesn't exist.", cmdAppend), rw|ins),
		def("strlen", 2, readonly|fast, one, str, "string", "2.2.0", "Returns the length of a string value.", cmdStrlen),
		withKeyFlags(def("incr", 2, write|denyoom|fast, one, str, "string", "1.0.0", "Increments the integer value of a key by one. Uses 0 as initial value if the key doesn't exist.", cmdIncr), rw|acc|upd),
		withKeyFlags(def("decr", 2, write|denyoom|fast, one, str, "string", "1.0.0", "Decrements the integer value of a key by one. Uses 0 as initial value if the key doesn't exist.", cmdDecr), rw|acc|upd),
		withKeyFlags(def("incrby", 3, write|denyoom|fast, one, str, "string", "1.0.0", "Increments the integer value of a key by a number. Uses 0 as initial value if the key doesn't exist.", cmdIncrBy), rw|acc|upd),
		withKeyFlags(def("decrby", 3, write|denyoom|fast, one, str, "string", "1.0.0", "Decrements a number from the integer value of a key. Uses 0 as initial value if the key doesn't exist.", cmdDecrBy), rw|acc|upd),
		withKeyFlags(def("incrbyfloat", 3, write|denyoom|fast, one, str, "string", "2.6.0", "Increment the floating point value of a key by a number. Uses 0 as initial value if the key doesn't exist.", cmdIncrByFloat), rw|acc|upd),
		withKeyFlags(def("getrange", 4, readonly, one, str, "string", "2.4.0", "Returns a substring of the string stored at a key.", cmdGetRange), ro|acc),
		withKeyFlags(def("substr", 4, readonly, one, str, "string", "1.0.0", "Returns a substring from a string value.", cmdGetRange), ro|acc),
		withKeyFlags(def("setrange", 4, write|denyoom, one, str, "string", "2.2.0", "Overwrites a part of a string value with another by an offset. Creates the key if it doesn't exist.", cmdSetRange), rw|upd),
		withKeyFlags(def("lcs", -3, readonly, keys{1, 2, 1}, str, "string", "7.0.0", "Finds the longest common substring.", cmdLCS), ro|acc),
	}
}

func cmdGet(x *ctx) {
	v, ok, err := x.tx.GetString(x.db(), x.arg(1))
	x.missedIf(!ok && err == nil, x.arg(1))
	x.replyBulkOrNil(v, ok, err)
}

// expireUnit says how an expiry argument is given.
type expireUnit struct {
	ms       bool // milliseconds, not seconds
	absolute bool // a unix time, not a time from now
}

// parseDeadline turns an expiry argument into an absolute deadline in ms, as
// Redis's SET/GETEX/SETEX do: the number must be positive and the deadline
// must fit in 64 bits. It replies and returns false on error.
func (x *ctx) parseDeadline(arg []byte, u expireUnit, cmd string) (int64, bool) {
	n, ok := rconv.ParseInt(arg)
	if !ok {
		x.notInteger()
		return 0, false
	}
	if n <= 0 {
		x.errorReply("ERR invalid expire time in '" + cmd + "' command")
		return 0, false
	}
	d, ok := toDeadline(n, u, x.tx.NowMs)
	if !ok {
		x.errorReply("ERR invalid expire time in '" + cmd + "' command")
		return 0, false
	}
	return d, true
}

// toDeadline converts n in unit u to an absolute ms deadline, reporting
// overflow.
func toDeadline(n int64, u expireUnit, nowMs int64) (int64, bool) {
	if !u.ms {
		if n > math.MaxInt64/1000 || n < math.MinInt64/1000 {
			return 0, false
		}
		n *= 1000
	}
	if !u.absolute {
		if n > math.MaxInt64-nowMs {
			return 0, false
		}
		n += nowMs
	}
	return n, true
}

// stringOpts are the options shared by SET and GETEX.
type stringOpts struct {
	cond    store.SetCond
	get     bool
	keepTTL bool
	persist bool
	// expire is the last expiry argument given (nil for none), in unit.
	expire []byte
	unit   expireUnit
}

// parseStringOpts parses SET's (set) or GETEX's options as Redis's
// parseExtendedStringArgumentsOrReply does: an option may repeat (the last
// expiry wins, and only it is ever validated as a number), but NX/XX and
// the expiry forms (EX, PX, EXAT, PXAT, KEEPTTL, PERSIST) exclude one
// another. It reports false on a syntax error.
func parseStringOpts(args [][]byte, set bool) (stringOpts, bool) {
	var o stringOpts
	for i := 0; i < len(args); i++ {
		var u expireUnit
		switch opt := optName(args[i]); {
		case set && opt == "NX" && o.cond != store.SetXX:
			o.cond = store.SetNX
			continue
		case set && opt == "XX" && o.cond != store.SetNX:
			o.cond = store.SetXX
			continue
		case set && opt == "GET":
			o.get = true
			continue
		case set && opt == "KEEPTTL" && o.expire == nil:
			o.keepTTL = true
			continue
		case !set && opt == "PERSIST" && o.expire == nil:
			o.persist = true
			continue
		case opt == "EX":
		case opt == "PX":
			u.ms = true
		case opt == "EXAT":
			u.absolute = true
		case opt == "PXAT":
			u.ms, u.absolute = true, true
		default:
			return o, false
		}
		if o.keepTTL || o.persist || (o.expire != nil && o.unit != u) || i+1 >= len(args) {
			return o, false
		}
		i++
		o.expire, o.unit = args[i], u
	}
	return o, true
}

func cmdSet(x *ctx) {
	o, ok := parseStringOpts(x.args[3:], true)
	if !ok {
		x.syntaxError()
		return
	}
	a := store.SetArgs{Cond: o.cond, Get: o.get, KeepTTL: o.keepTTL}
	if o.expire != nil {
		if a.ExpireMs, ok = x.parseDeadline(o.expire, o.unit, "set"); !ok {
			return
		}
	}
	if a.Get {
		// SET ... GET reads the key as GET does, before it writes.
		x.keyMiss(x.arg(1))
	}
	res, err := x.tx.SetString(x.db(), x.arg(1), x.arg(2), a)
	if err == nil {
		x.notifySet(res, a.ExpireMs)
	}
	switch {
	case err != nil:
		x.storeError(err)
	case a.Get && res.OldFound:
		x.w.Bulk(res.Old)
	case a.Get, !res.Written:
		x.w.NullBulk()
	default:
		x.ok()
	}
}

func cmdSetNX(x *ctx) {
	res, err := x.tx.SetString(x.db(), x.arg(1), x.arg(2), store.SetArgs{Cond: store.SetNX})
	if err != nil {
		x.storeError(err)
		return
	}
	x.notifySet(res, 0)
	x.w.Int(boolInt(res.Written))
}

func cmdSetEx(x *ctx)  { setWithExpiry(x, expireUnit{}, "setex") }
func cmdPSetEx(x *ctx) { setWithExpiry(x, expireUnit{ms: true}, "psetex") }

func setWithExpiry(x *ctx, u expireUnit, cmd string) {
	d, ok := x.parseDeadline(x.arg(2), u, cmd)
	if !ok {
		return
	}
	res, err := x.tx.SetString(x.db(), x.arg(1), x.arg(3), store.SetArgs{ExpireMs: d})
	if err != nil {
		x.storeError(err)
		return
	}
	x.notifySet(res, d)
	x.ok()
}

func cmdGetSet(x *ctx) {
	x.keyMiss(x.arg(1))
	res, err := x.tx.SetString(x.db(), x.arg(1), x.arg(2), store.SetArgs{Get: true})
	if err == nil {
		x.notifySet(res, 0)
	}
	x.replyBulkOrNil(res.Old, res.OldFound, err)
}

func cmdGetDel(x *ctx) {
	v, ok, err := x.tx.GetDel(x.db(), x.arg(1))
	if err == nil {
		x.missedIf(!ok, x.arg(1))
		if ok {
			x.notify(notify.Generic, "del", x.arg(1))
		}
	}
	x.replyBulkOrNil(v, ok, err)
}

func cmdGetEx(x *ctx) {
	o, ok := parseStringOpts(x.args[2:], false)
	if !ok {
		x.syntaxError()
		return
	}
	// Redis looks the key up before it validates the expiry: a missing key
	// answers nil and a key of another type WRONGTYPE, whatever the expiry
	// says.
	v, found, err := x.tx.GetString(x.db(), x.arg(1))
	switch {
	case err != nil:
		x.storeError(err)
		return
	case !found:
		x.missed(x.arg(1))
		x.w.NullBulk()
		return
	}
	act := store.ExpireAction{Persist: o.persist}
	if o.expire != nil {
		if act.ExpireMs, ok = x.parseDeadline(o.expire, o.unit, "getex"); !ok {
			return
		}
		act.Set = true
	}
	if act.Set || act.Persist {
		// PERSIST is an event only when the key had a deadline.
		hadDeadline := false
		if act.Persist && x.tx.Notifies(notify.Generic) {
			d, err := x.tx.Deadline(x.db(), x.arg(1))
			if err != nil {
				x.storeError(err)
				return
			}
			hadDeadline = d > 0
		}
		if v, _, err = x.tx.GetEx(x.db(), x.arg(1), act); err != nil {
			x.storeError(err)
			return
		}
		switch {
		case act.Set && act.ExpireMs <= x.tx.NowMs:
			x.notify(notify.Generic, "del", x.arg(1))
		case act.Set:
			x.notify(notify.Generic, "expire", x.arg(1))
		case hadDeadline:
			x.notify(notify.Generic, "persist", x.arg(1))
		}
	}
	x.w.Bulk(v)
}

func cmdMGet(x *ctx) {
	x.w.Array(len(x.args) - 1)
	for _, k := range x.args[1:] {
		v, ok, err := x.tx.GetString(x.db(), k)
		x.missedIf(!ok && err == nil, k)
		switch {
		case err == store.ErrWrongType, err == nil && !ok:
			// MGET answers nil for keys that are not strings.
			x.w.NullBulk()
		case err != nil:
			x.srv.log.Error("mget read failed", "err", err)
			x.w.NullBulk()
		default:
			x.w.Bulk(v)
		}
	}
}

func cmdMSet(x *ctx) {
	if len(x.args)%2 == 0 {
		x.errorReply("ERR wrong number of arguments for 'mset' command")
		return
	}
	if _, err := x.tx.MSet(x.db(), x.args[1:], false); err != nil {
		x.storeError(err)
		return
	}
	x.ok()
}

func cmdMSetNX(x *ctx) {
	if len(x.args)%2 == 0 {
		x.errorReply("ERR wrong number of arguments for 'msetnx' command")
		return
	}
	x.replyBool(x.tx.MSet(x.db(), x.args[1:], true))
}

func cmdAppend(x *ctx) {
	n, err := x.tx.Append(x.db(), x.arg(1), x.arg(2), x.maxStringLen())
	if err == nil {
		x.notify(notify.String, "append", x.arg(1))
	}
	x.replyInt(n, err)
}

func cmdStrlen(x *ctx) {
	n, ok, err := x.tx.StrLen(x.db(), x.arg(1))
	if err != nil {
		x.storeError(err)
		return
	}
	x.missedIf(!ok, x.arg(1))
	x.w.Int(n)
}

func cmdIncr(x *ctx) { incrBy(x, 1) }
func cmdDecr(x *ctx) { incrBy(x, -1) }

func cmdIncrBy(x *ctx) {
	n, ok := rconv.ParseInt(x.arg(2))
	if !ok {
		x.notInteger()
		return
	}
	incrBy(x, n)
}

func cmdDecrBy(x *ctx) {
	n, ok := rconv.ParseInt(x.arg(2))
	if !ok {
		x.notInteger()
		return
	}
	if n == math.MinInt64 {
		x.errorReply("ERR decrement would overflow")
		return
	}
	incrBy(x, -n)
}

func incrBy(x *ctx, delta int64) {
	n, err := x.tx.IncrBy(x.db(), x.arg(1), delta)
	if err == nil {
		x.notify(notify.String, "incrby", x.arg(1))
	}
	x.replyInt(n, err)
}

func cmdIncrByFloat(x *ctx) {
	// The store checks the key's type before it reads the increment, as
	// Redis does.
	v, err := x.tx.IncrByFloat(x.db(), x.arg(1), x.arg(2))
	if err != nil {
		x.storeError(err)
		return
	}
	x.notify(notify.String, "incrbyfloat", x.arg(1))
	x.w.Bulk(v)
}

func cmdGetRange(x *ctx) {
	start, ok1 := rconv.ParseInt(x.arg(2))
	end, ok2 := rconv.ParseInt(x.arg(3))
	if !ok1 || !ok2 {
		x.notInteger()
		return
	}
	v, ok, err := x.tx.GetRange(x.db(), x.arg(1), start, end)
	if err != nil {
		x.storeError(err)
		return
	}
	x.missedIf(!ok, x.arg(1))
	x.w.Bulk(v)
}

func cmdSetRange(x *ctx) {
	off, ok := rconv.ParseInt(x.arg(2))
	if !ok {
		x.notInteger()
		return
	}
	if off < 0 {
		x.errorReply(string(store.ErrOffsetRange))
		return
	}
	n, err := x.tx.SetRange(x.db(), x.arg(1), off, x.arg(3), x.maxStringLen())
	if err == nil && len(x.arg(3)) > 0 {
		x.notify(notify.String, "setrange", x.arg(1))
	}
	x.replyInt(n, err)
}

func cmdLCS(x *ctx) {
	// Redis reads (and type-checks) both keys before it parses the options.
	a, b, ok := x.lcsInputs()
	if !ok {
		return
	}
	var wantLen, wantIdx, withLen bool
	var minLen int64
	for i := 3; i < len(x.args); i++ {
		switch optName(x.arg(i)) {
		case "LEN":
			wantLen = true
		case "IDX":
			wantIdx = true
		case "WITHMATCHLEN":
			withLen = true
		case "MINMATCHLEN":
			if i+1 >= len(x.args) {
				x.syntaxError()
				return
			}
			i++
			n, ok := rconv.ParseInt(x.arg(i))
			if !ok {
				x.notInteger()
				return
			}
			minLen = max(n, 0)
		default:
			x.syntaxError()
			return
		}
	}
	if wantLen && wantIdx {
		x.errorReply("ERR If you want both the length and indexes, please just use IDX.")
		return
	}
	if (uint64(len(a))+1)*(uint64(len(b))+1)*4 > uint64(x.srv.cfg.ProtoMaxBulkLen()) {
		x.errorReply("ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len")
		return
	}
	res := lcs(a, b, wantIdx, minLen)
	switch {
	case wantIdx:
		x.w.Map(2)
		x.w.BulkString("matches")
		x.w.Array(len(res.matches))
		for _, m := range res.matches {
			n := 2
			if withLen {
				n = 3
			}
			x.w.Array(n)
			x.w.Array(2)
			x.w.Int(m.aStart)
			x.w.Int(m.aEnd)
			x.w.Array(2)
			x.w.Int(m.bStart)
			x.w.Int(m.bEnd)
			if withLen {
				x.w.Int(m.aEnd - m.aStart + 1)
			}
		}
		x.w.BulkString("len")
		x.w.Int(int64(res.length))
	case wantLen:
		x.w.Int(int64(res.length))
	default:
		x.w.Bulk(res.common)
	}
}

// lcsInputs reads LCS's two string keys (a missing key is empty). Like
// Redis, it looks both up before it checks their types, so both count as
// keyspace hits.
func (x *ctx) lcsInputs() (a, b []byte, ok bool) {
	wrongType := false
	for i, dst := range []*[]byte{&a, &b} {
		v, found, err := x.tx.GetString(x.db(), x.arg(1+i))
		x.missedIf(!found && err == nil, x.arg(1+i))
		switch {
		case err == store.ErrWrongType:
			wrongType = true
		case err != nil:
			x.storeError(err)
			return nil, nil, false
		}
		*dst = bytes.Clone(v)
	}
	if wrongType {
		x.errorReply("ERR The specified keys must contain string values")
		return nil, nil, false
	}
	return a, b, true
}

type lcsMatch struct{ aStart, aEnd, bStart, bEnd int64 }

type lcsResult struct {
	length  uint32
	common  []byte
	matches []lcsMatch
}

// lcs computes the longest common subsequence of a and b by dynamic
// programming, then walks the table back from the end to recover the
// sequence and, with idx, its matching ranges (last first, as Redis reports
// them), keeping ranges at least minLen long.
func lcs(a, b []byte, idx bool, minLen int64) lcsResult {
	cols := len(b) + 1
	t := make([]uint32, (len(a)+1)*cols)
	at := func(i, j int) uint32 { return t[i*cols+j] }
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			if a[i-1] == b[j-1] {
				t[i*cols+j] = at(i-1, j-1) + 1
			} else {
				t[i*cols+j] = max(at(i-1, j), at(i, j-1))
			}
		}
	}
	res := lcsResult{length: at(len(a), len(b))}
	res.common = make([]byte, res.length)
	pos := int(res.length)
	inRange := false
	var cur lcsMatch
	emit := func() {
		if minLen == 0 || cur.aEnd-cur.aStart+1 >= minLen {
			res.matches = append(res.matches, cur)
		}
		inRange = false
	}
	for i, j := len(a), len(b); i > 0 && j > 0; {
		if a[i-1] == b[j-1] {
			res.common[pos-1] = a[i-1]
			pos--
			if !inRange {
				cur = lcsMatch{int64(i - 1), int64(i - 1), int64(j - 1), int64(j - 1)}
				inRange = true
			} else {
				cur.aStart, cur.bStart = int64(i-1), int64(j-1)
			}
			i--
			j--
			if idx && (i == 0 || j == 0) {
				emit()
			}
			continue
		}
		if at(i-1, j) > at(i, j-1) {
			i--
		} else {
			j--
		}
		if idx && inRange {
			emit()
		}
	}
	return res
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// notifySet records SET's events: "set" when it wrote, and "expire" when
// it was given a deadline. A deadline already past leaves the key absent
// here, where Redis stores it and reclaims it moments later: "expired"
// follows at once.
func (x *ctx) notifySet(res store.SetResult, deadline int64) {
	if !res.Written {
		return
	}
	x.notify(notify.String, "set", x.arg(1))
	if deadline == 0 {
		return
	}
	x.notify(notify.Generic, "expire", x.arg(1))
	if deadline <= x.tx.NowMs {
		x.notify(notify.Expired, "expired", x.arg(1))
	}
}
