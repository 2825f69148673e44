package server

import (
	"math"
	"slices"
	"strings"

	"github.com/cairndb/cairn/internal/command"
	"github.com/cairndb/cairn/internal/encoding"
	"github.com/cairndb/cairn/internal/notify"
	"github.com/cairndb/cairn/internal/rconv"
	"github.com/cairndb/cairn/internal/store"
)

const hashCat = command.CatHash

func hashCommands() []cmdEntry {
	one := keys{1, 1, 1}
	e := []cmdEntry{
		withKeyFlags(def("hset", -4, write|denyoom|fast, one, hashCat, "hash", "2.0.0", "Creates or modifies the value of a field in a hash.", cmdHSet), rw|upd),
		withKeyFlags(def("hsetnx", 4, write|denyoom|fast, one, hashCat, "hash", "2.0.0", "Sets the value of a field in a hash only when the field doesn't exist.", cmdHSetNX), rw|ins),
		withKeyFlags(def("hget", 3, readonly|fast, one, hashCat, "hash", "2.0.0", "Returns the value of a field in a hash.", cmdHGet), ro|acc),
		withKeyFlags(def("hmset", -4, write|denyoom|fast, one, hashCat, "hash", "2.0.0", "Sets the values of multiple fields.", cmdHMSet), rw|upd),
		withKeyFlags(def("hmget", -3, readonly|fast, one, hashCat, "hash", "2.0.0", "Returns the values of all fields in a hash.", cmdHMGet), ro|acc),
		withKeyFlags(def("hdel", -3, write|fast, one, hashCat, "hash", "2.0.0", "Deletes one or more fields and their values from a hash. Deletes the hash if no fields remain.", cmdHDel), rw|del),
		withKeyFlags(def("hlen", 2, readonly|fast, one, hashCat, "hash", "2.0.0", "Returns the number of fields in a hash.", cmdHLen), ro),
		withKeyFlags(def("hstrlen", 3, readonly|fast, one, hashCat, "hash", "3.2.0", "Returns the length of the value of a field.", cmdHStrLen), ro),
		withKeyFlags(def("hexists", 3, readonly|fast, one, hashCat, "hash", "2.0.0", "Determines whether a field exists in a hash.", cmdHExists), ro),
		withTips(withKeyFlags(def("hgetall", 2, readonly, one, hashCat, "hash", "2.0.0", "Returns all fields and values in a hash.", cmdHGetAll), ro|acc), tipOutputOrder),
		withTips(withKeyFlags(def("hkeys", 2, readonly, one, hashCat, "hash", "2.0.0", "Returns all fields in a hash.", cmdHKeys), ro|acc), tipOutputOrder),
		withTips(withKeyFlags(def("hvals", 2, readonly, one, hashCat, "hash", "2.0.0", "Returns all values in a hash.", cmdHVals), ro|acc), tipOutputOrder),
		withKeyFlags(def("hincrby", 4, write|denyoom|fast, one, hashCat, "hash", "2.0.0", "Increments the integer value of a field in a hash by a number. Uses 0 as initial value if the field doesn't exist.", cmdHIncrBy), rw|acc|upd),
		withKeyFlags(def("hincrbyfloat", 4, write|denyoom|fast, one, hashCat, "hash", "2.6.0", "Increments the floating point value of a field by a number. Uses 0 as initial value if the field doesn't exist.", cmdHIncrByFloat), rw|acc|upd),
		withTips(withKeyFlags(def("hrandfield", -2, readonly, one, hashCat, "hash", "6.2.0", "Returns one or more random fields from a hash.", cmdHRandField), ro|acc), tipOutput),
		withTips(withKeyFlags(def("hscan", -3, readonly, one, hashCat, "hash", "2.8.0", "Iterates over fields and values of a hash.", cmdHScan), ro|acc), tipOutput),
		withKeyFlags(def("hexpire", -6, write|denyoom|fast, one, hashCat, "hash", "7.4.0", "Set expiry for hash field using relative time to expire (seconds)", hexpireCmd(expireUnit{}, "hexpire")), rw|upd),
		withKeyFlags(def("hpexpire", -6, write|denyoom|fast, one, hashCat, "hash", "7.4.0", "Set expiry for hash field using relative time to expire (milliseconds)", hexpireCmd(expireUnit{ms: true}, "hpexpire")), rw|upd),
		withKeyFlags(def("hexpireat", -6, write|denyoom|fast, one, hashCat, "hash", "7.4.0", "Set expiry for hash field using an absolute Unix timestamp (seconds)", hexpireCmd(expireUnit{absolute: true}, "hexpireat")), rw|upd),
		withKeyFlags(def("hpexpireat", -6, write|denyoom|fast, one, hashCat, "hash", "7.4.0", "Set expiry for hash field using an absolute Unix timestamp (milliseconds)", hexpireCmd(expireUnit{ms: true, absolute: true}, "hpexpireat")), rw|upd),
		withKeyFlags(def("httl", -5, readonly|fast, one, hashCat, "hash", "7.4.0", "Returns the TTL in seconds of a hash field.", httlCmd(expireUnit{})), ro|acc),
		withKeyFlags(def("hpttl", -5, readonly|fast, one, hashCat, "hash", "7.4.0", "Returns the TTL in milliseconds of a hash field.", httlCmd(expireUnit{ms: true})), ro|acc),
		withKeyFlags(def("hexpiretime", -5, readonly|fast, one, hashCat, "hash", "7.4.0", "Returns the expiration time of a hash field as a Unix timestamp, in seconds.", httlCmd(expireUnit{absolute: true})), ro|acc),
		withKeyFlags(def("hpexpiretime", -5, readonly|fast, one, hashCat, "hash", "7.4.0", "Returns the expiration time of a hash field as a Unix timestamp, in msec.", httlCmd(expireUnit{ms: true, absolute: true})), ro|acc),
		withKeyFlags(def("hpersist", -5, write|fast, one, hashCat, "hash", "7.4.0", "Removes the expiration time for each specified field", cmdHPersist), rw|upd),
		withKeyFlags(def("hgetdel", -5, write|fast, one, hashCat, "hash", "8.0.0", "Returns the value of a field and deletes it from the hash.", cmdHGetDel), rw|acc|del),
		withKeyFlags(def("hgetex", -5, write|fast, one, hashCat, "hash", "8.0.0", "Get the value of one or more fields of a given hash key, and optionally set their expiration.", cmdHGetEx), rw|acc|upd),
		withKeyFlags(def("hsetex", -6, write|denyoom|fast, one, hashCat, "hash", "8.0.0", "Set the value of one or more fields of a given hash key, and optionally set their expiration.", cmdHSetEx), rw|upd),
	}
	for i := range e {
		switch e[i].spec.Name {
		case "hset":
			e[i].spec.History = []command.HistoryEntry{{Since: "4.0.0", Changes: "Accepts multiple `field` and `value` arguments."}}
		case "hmset":
			e[i].spec.DocFlags = command.DocDeprecated
			e[i].spec.DeprecatedSince = "4.0.0"
			e[i].spec.ReplacedBy = "`HSET` with multiple field-value pairs"
		case "hgetex":
			e[i].spec.KeySpecs[0].Notes = "RW and UPDATE because it changes the TTL"
		}
	}
	return e
}

func cmdHSet(x *ctx)  { hashSet(x, false) }
func cmdHMSet(x *ctx) { hashSet(x, true) }

func hashSet(x *ctx, legacy bool) {
	if len(x.args)%2 == 1 {
		hashArityError(x)
		return
	}
	n, err := x.tx.HSet(x.db(), x.arg(1), x.args[2:])
	if err == nil {
		// "hset" even when every field was already there.
		x.notify(notify.Hash, "hset", x.arg(1))
	}
	switch {
	case err != nil:
		x.storeError(err)
	case legacy:
		x.ok()
	default:
		x.w.Int(n)
	}
}

func cmdHSetNX(x *ctx) {
	ok, err := x.tx.HSetNX(x.db(), x.arg(1), x.arg(2), x.arg(3))
	if ok && err == nil {
		x.notify(notify.Hash, "hset", x.arg(1))
	}
	x.replyBool(ok, err)
}

func cmdHGet(x *ctx) {
	x.keyMiss(x.arg(1))
	x.replyBulkOrNil(x.tx.HGet(x.db(), x.arg(1), x.arg(2)))
}

func cmdHMGet(x *ctx) {
	x.keyMiss(x.arg(1))
	vs, err := x.tx.HMGet(x.db(), x.arg(1), x.args[2:])
	if err != nil {
		x.storeError(err)
		return
	}
	hashValues(x, vs)
}

// hashValues replies an array of values, null for the absent (nil) ones.
func hashValues(x *ctx, vs [][]byte) {
	x.w.Array(len(vs))
	for _, v := range vs {
		if v == nil {
			x.w.NullBulk()
		} else {
			x.w.Bulk(v)
		}
	}
}

func cmdHDel(x *ctx) {
	n, err := x.tx.HDel(x.db(), x.arg(1), x.args[2:])
	if err == nil && n > 0 {
		x.notifyEmptying(notify.Hash, "hdel", x.arg(1))
	}
	x.replyInt(n, err)
}

func cmdHLen(x *ctx) {
	x.keyMiss(x.arg(1))
	x.replyInt(x.tx.HLen(x.db(), x.arg(1)))
}

func cmdHStrLen(x *ctx) {
	x.keyMiss(x.arg(1))
	x.replyInt(x.tx.HStrLen(x.db(), x.arg(1), x.arg(2)))
}

func cmdHExists(x *ctx) {
	x.keyMiss(x.arg(1))
	x.replyBool(x.tx.HExists(x.db(), x.arg(1), x.arg(2)))
}

func cmdHGetAll(x *ctx) {
	x.keyMiss(x.arg(1))
	es, err := x.tx.HGetAll(x.db(), x.arg(1))
	if err != nil {
		x.storeError(err)
		return
	}
	x.w.Map(len(es))
	for _, e := range es {
		x.w.Bulk(e.Field)
		x.w.Bulk(e.Value)
	}
}

func cmdHKeys(x *ctx) { hashColumn(x, true) }
func cmdHVals(x *ctx) { hashColumn(x, false) }

func hashColumn(x *ctx, fields bool) {
	x.keyMiss(x.arg(1))
	es, err := x.tx.HGetAll(x.db(), x.arg(1))
	if err != nil {
		x.storeError(err)
		return
	}
	x.w.Array(len(es))
	for _, e := range es {
		if fields {
			x.w.Bulk(e.Field)
		} else {
			x.w.Bulk(e.Value)
		}
	}
}

func cmdHIncrBy(x *ctx) {
	delta, ok := rconv.ParseInt(x.arg(3))
	if !ok {
		x.notInteger()
		return
	}
	n, err := x.tx.HIncrBy(x.db(), x.arg(1), x.arg(2), delta)
	if err == nil {
		x.notify(notify.Hash, "hincrby", x.arg(1))
	}
	x.replyInt(n, err)
}

func cmdHIncrByFloat(x *ctx) {
	delta, ok := rconv.ParseLongDoubleExact(x.arg(3))
	if !ok {
		x.errorReply(string(store.ErrNotFloat))
		return
	}
	// strtold never returns NaN for an accepted argument, and infinity only
	// for one spelled "inf": "1e400" is a finite long double.
	if delta.IsInf() {
		x.errorReply("ERR value is NaN or Infinity")
		return
	}
	v, err := x.tx.HIncrByFloat(x.db(), x.arg(1), x.arg(2), delta)
	if err != nil {
		x.storeError(err)
		return
	}
	x.notify(notify.Hash, "hincrbyfloat", x.arg(1))
	x.w.Bulk(v)
}

func cmdHRandField(x *ctx) {
	if len(x.args) == 2 {
		x.keyMiss(x.arg(1))
		e, ok, err := x.tx.HRandField(x.db(), x.arg(1))
		x.replyBulkOrNil(e.Field, ok, err)
		return
	}
	// Redis parses the count (a long, LONG_MIN excluded) before it looks at
	// the key.
	count, ok := rconv.ParseInt(x.arg(2))
	if !ok {
		x.notInteger()
		return
	}
	if count == math.MinInt64 {
		x.errorReply("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807")
		return
	}
	withValues := false
	if len(x.args) > 4 || (len(x.args) == 4 && !optIs(x.arg(3), "WITHVALUES")) {
		x.syntaxError()
		return
	}
	if len(x.args) == 4 {
		withValues = true
		if count < -math.MaxInt64/2 || count > math.MaxInt64/2 {
			x.errorReply("ERR value is out of range")
			return
		}
	}
	x.keyMiss(x.arg(1))
	if count >= 0 {
		es, err := x.tx.HRandFields(x.db(), x.arg(1), count)
		if err != nil {
			x.storeError(err)
			return
		}
		hashRandReply(x, len(es), withValues)
		for _, e := range es {
			hashRandEntry(x, e, withValues)
		}
		return
	}
	n := -count
	s, err := x.tx.NewHashSampler(x.db(), x.arg(1), n)
	if err != nil || s == nil {
		if err != nil {
			x.storeError(err)
		} else {
			x.w.Array(0)
		}
		return
	}
	defer s.Close()
	// A negative count asks for -count draws with repeats. The reply
	// streams out as it is written (Redis builds it whole in memory, so a
	// huge count costs it memory; here it costs time only).
	hashRandReply(x, int(n), withValues)
	for i := range n {
		if i%streamCheckEvery == streamCheckEvery-1 && x.clientGone() {
			return
		}
		e, err := s.Next()
		if err != nil {
			// The header is out: end the connection rather than send a
			// reply of the wrong length.
			x.srv.log.Error("hrandfield sampling failed", "err", err)
			x.cl.quit = true
			return
		}
		hashRandEntry(x, e, withValues)
	}
}

// hashRandReply starts HRANDFIELD's reply of n fields: with values, a flat
// array in RESP2 and an array of pairs in RESP3.
func hashRandReply(x *ctx, n int, withValues bool) {
	if withValues && x.w.Protocol() == 2 {
		n *= 2
	}
	x.w.Array(n)
}

func hashRandEntry(x *ctx, e store.HashEntry, withValues bool) {
	if !withValues {
		x.w.Bulk(e.Field)
		return
	}
	if x.w.Protocol() == 3 {
		x.w.Array(2)
	}
	x.w.Bulk(e.Field)
	x.w.Bulk(e.Value)
}

// hashKeyType replies WRONGTYPE, and returns false, when key holds another
// type: the commands whose argument errors Redis reports only after looking
// the key up call it first.
func hashKeyType(x *ctx) (exists, ok bool) {
	info, found, err := x.tx.Lookup(x.db(), x.arg(1))
	switch {
	case err != nil:
		x.storeError(err)
		return false, false
	case found && info.Type != encoding.TypeHash:
		x.storeError(store.ErrWrongType)
		return false, false
	}
	return found, true
}

func cmdHScan(x *ctx) {
	cursor, o, ok := collectionScanStart(x, hashKeyType, true)
	if !ok {
		return
	}
	a := store.HScanArgs{Count: o.count, Pattern: o.pattern, NoValues: o.noValues}
	next, es, err := x.tx.HScan(x.db(), x.arg(1), cursor, a)
	if err != nil {
		x.storeError(err)
		return
	}
	if a.NoValues {
		replyScanHeader(x, next, len(es))
	} else {
		replyScanHeader(x, next, 2*len(es))
	}
	for _, e := range es {
		x.w.Bulk(e.Field)
		if !a.NoValues {
			x.w.Bulk(e.Value)
		}
	}
}

// hashMaxDeadline is the latest field deadline Redis accepts
// (HFE_MAX_ABS_TIME_MSEC: 2^48-1 shifted right by two, in unix ms).
const hashMaxDeadline = (1<<48 - 1) >> 2

// hashParseDeadline turns a field-expiry argument into an absolute deadline
// in ms as Redis's parseExpireTime does: never negative, at most
// hashMaxDeadline. It replies and returns false on error.
func hashParseDeadline(x *ctx, arg []byte, u expireUnit, cmd string) (int64, bool) {
	n, ok := rconv.ParseInt(arg)
	if !ok {
		x.notInteger()
		return 0, false
	}
	if n < 0 {
		x.errorReply("ERR invalid expire time, must be >= 0")
		return 0, false
	}
	var base int64
	if !u.absolute {
		base = x.tx.NowMs
	}
	if !u.ms {
		if n > hashMaxDeadline/1000 {
			x.errorReply("ERR invalid expire time in '" + cmd + "' command")
			return 0, false
		}
		n *= 1000
	}
	if n > hashMaxDeadline-base {
		x.errorReply("ERR invalid expire time in '" + cmd + "' command")
		return 0, false
	}
	return n + base, true
}

// hashFields reads "FIELDS numfields field ..." from argument at to the
// end, replying Redis's errors (badCount when numfields is not a positive
// integer) and returning false on error.
func hashFields(x *ctx, at int, badCount string) ([][]byte, bool) {
	if at >= len(x.args) {
		hashArityError(x)
		return nil, false
	}
	if !optIs(x.arg(at), "FIELDS") {
		x.errorReply("ERR Mandatory argument FIELDS is missing or not at the right position")
		return nil, false
	}
	if at+1 >= len(x.args) {
		hashArityError(x)
		return nil, false
	}
	n, ok := rconv.ParseInt(x.arg(at + 1))
	if !ok || n < 1 {
		x.errorReply("ERR " + badCount)
		return nil, false
	}
	if n != int64(len(x.args)-at-2) {
		x.errorReply("ERR The `numfields` parameter must match the number of arguments")
		return nil, false
	}
	return x.args[at+2:], true
}

const hashBadNumFields = "Number of fields must be a positive integer"

func hexpireCmd(u expireUnit, name string) handler {
	return func(x *ctx) {
		if _, ok := hashKeyType(x); !ok {
			return
		}
		deadline, ok := hashParseDeadline(x, x.arg(2), u, name)
		if !ok {
			return
		}
		var cond store.ExpireCond
		at := 4
		switch opt := x.arg(3); {
		case optIs(opt, "NX"):
			cond = store.ExpireNX
		case optIs(opt, "XX"):
			cond = store.ExpireXX
		case optIs(opt, "GT"):
			cond = store.ExpireGT
		case optIs(opt, "LT"):
			cond = store.ExpireLT
		default:
			at = 3
		}
		fields, ok := hashFields(x, at, "Parameter `numFields` should be greater than 0")
		if !ok {
			return
		}
		res, err := x.tx.HExpire(x.db(), x.arg(1), deadline, cond, fields)
		if err != nil {
			x.storeError(err)
			return
		}
		// Redis 7.4's hashTypeSetExDone: "hdel" if a past deadline
		// deleted a field, else "hexpire" if one was set; "del" when
		// the hash lost its last field.
		set, deleted := slices.Contains(res, store.HashExpireSet), slices.Contains(res, store.HashFieldDeleted)
		switch {
		case deleted:
			x.notifyEmptying(notify.Hash, "hdel", x.arg(1))
		case set:
			x.notify(notify.Hash, "hexpire", x.arg(1))
		}
		hashInts(x, res)
	}
}

func hashInts(x *ctx, ns []int64) {
	x.w.Array(len(ns))
	for _, n := range ns {
		x.w.Int(n)
	}
}

// httlCmd is HTTL, HPTTL, HEXPIRETIME and HPEXPIRETIME. Seconds round up,
// as Redis's httlGenericCommand does.
func httlCmd(u expireUnit) handler {
	return func(x *ctx) {
		exists, ok := hashKeyType(x)
		if !ok {
			return
		}
		x.missedIf(!exists, x.arg(1))
		fields, ok := hashFields(x, 2, hashBadNumFields)
		if !ok {
			return
		}
		ds, err := x.tx.HFieldDeadlines(x.db(), x.arg(1), fields)
		if err != nil {
			x.storeError(err)
			return
		}
		for i, d := range ds {
			if d < 0 {
				continue
			}
			if !u.absolute {
				d -= x.tx.NowMs
			}
			if !u.ms {
				d = (d + 999) / 1000
			}
			ds[i] = d
		}
		hashInts(x, ds)
	}
}

func cmdHPersist(x *ctx) {
	if _, ok := hashKeyType(x); !ok {
		return
	}
	fields, ok := hashFields(x, 2, hashBadNumFields)
	if !ok {
		return
	}
	res, err := x.tx.HPersist(x.db(), x.arg(1), fields)
	if err != nil {
		x.storeError(err)
		return
	}
	if slices.Contains(res, store.HashPersisted) {
		x.notify(notify.Hash, "hpersist", x.arg(1))
	}
	hashInts(x, res)
}

func cmdHGetDel(x *ctx) {
	if _, ok := hashKeyType(x); !ok {
		return
	}
	fields, ok := hashFields(x, 2, hashBadNumFields)
	if !ok {
		return
	}
	vs, err := x.tx.HGetDel(x.db(), x.arg(1), fields)
	if err != nil {
		x.storeError(err)
		return
	}
	if slices.ContainsFunc(vs, func(v []byte) bool { return v != nil }) {
		x.notifyEmptying(notify.Hash, "hdel", x.arg(1))
	}
	hashValues(x, vs)
}

func cmdHGetEx(x *ctx) {
	if _, ok := hashKeyType(x); !ok {
		return
	}
	var act store.ExpireAction
	var u expireUnit
	at := 2
	switch opt := x.arg(2); {
	case optIs(opt, "EX"):
		act.Set = true
	case optIs(opt, "PX"):
		act.Set, u.ms = true, true
	case optIs(opt, "EXAT"):
		act.Set, u.absolute = true, true
	case optIs(opt, "PXAT"):
		act.Set, u.ms, u.absolute = true, true, true
	case optIs(opt, "PERSIST"):
		act.Persist = true
		at = 3
	}
	if act.Set {
		d, ok := hashParseDeadline(x, x.arg(3), u, "hgetex")
		if !ok {
			return
		}
		act.ExpireMs = d
		at = 4
	}
	fields, ok := hashFields(x, at, hashBadNumFields)
	if !ok {
		return
	}
	vs, err := x.tx.HGetEx(x.db(), x.arg(1), fields, act)
	if err != nil {
		x.storeError(err)
		return
	}
	hashValues(x, vs)
}

func cmdHSetEx(x *ctx) {
	// Redis reads every option before it looks the key up, in order, so
	// the first bad argument decides the error.
	var a store.HSetExArgs
	var pairs [][]byte
	expiry := false
	for i := 2; i < len(x.args) && pairs == nil; i++ {
		var u expireUnit
		switch opt := x.arg(i); {
		case optIs(opt, "FIELDS"):
			if i >= len(x.args)-3 {
				hashArityError(x)
				return
			}
			n, ok := rconv.ParseInt(x.arg(i + 1))
			if !ok || n < 1 || n > math.MaxInt32 {
				x.errorReply("ERR invalid number of fields")
				return
			}
			rest := len(x.args) - i - 2
			if rest%2 != 0 || n != int64(rest/2) {
				hashArityError(x)
				return
			}
			pairs = x.args[i+2:]
			continue
		case optIs(opt, "FXX"), optIs(opt, "FNX"):
			if a.Cond != store.SetAlways {
				x.errorReply("ERR Only one of FXX or FNX arguments can be specified")
				return
			}
			a.Cond = store.SetXX
			if optIs(opt, "FNX") {
				a.Cond = store.SetNX
			}
			continue
		case optIs(opt, "KEEPTTL"):
			if expiry {
				hashExpiryConflict(x)
				return
			}
			expiry, a.KeepTTL = true, true
			continue
		case optIs(opt, "EX"):
		case optIs(opt, "PX"):
			u.ms = true
		case optIs(opt, "EXAT"):
			u.absolute = true
		case optIs(opt, "PXAT"):
			u.ms, u.absolute = true, true
		default:
			x.errorReply("ERR unknown argument: " + cstr(x.argStr(i)))
			return
		}
		if expiry {
			hashExpiryConflict(x)
			return
		}
		if i >= len(x.args)-1 {
			x.errorReply("ERR missing expire time")
			return
		}
		i++
		d, ok := hashParseDeadline(x, x.arg(i), u, "hsetex")
		if !ok {
			return
		}
		expiry, a.Expire, a.ExpireMs = true, true, d
	}
	if pairs == nil {
		// Unreachable with the arity of -6 (every argument before FIELDS
		// is an option or its value), kept for safety.
		hashArityError(x)
		return
	}
	x.replyBool(x.tx.HSetEx(x.db(), x.arg(1), pairs, a))
}

func hashArityError(x *ctx) {
	x.errorReply("ERR wrong number of arguments for '" + strings.ToLower(x.argStr(0)) + "' command")
}

func hashExpiryConflict(x *ctx) {
	x.errorReply("ERR Only one of EX, PX, EXAT, PXAT or KEEPTTL arguments can be specified")
}
