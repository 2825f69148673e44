package server

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/cairndb/cairn/internal/command"
	"github.com/cairndb/cairn/internal/digest"
	"github.com/cairndb/cairn/internal/encoding"
	"github.com/cairndb/cairn/internal/rdb"
	"github.com/cairndb/cairn/internal/store"
)

// debugCommands are DEBUG, MODULE and LOLWUT: Redis's commands for tests,
// tools and fun, where they mean something for Cairn.
func debugCommands() []cmdEntry {
	dbg := def("debug", -2, admin|noscript|loading|stale|command.LockAll, noKeys, 0, "server", "1.0.0", "A container for debugging commands.", cmdDebug)
	dbg.spec.DocFlags = command.DocSysCmd
	dbg.spec.Complexity = "Depends on subcommand."
	const modAdmin = admin | noscript | command.NoAsyncLoading
	return []cmdEntry{
		protectedBy(dbg, debugGuard),
		container("module", "server", "4.0.0", "A container for module commands.", 0,
			def("module|help", 2, loading|stale, noKeys, 0, "server", "5.0.0", "Returns helpful text about the different subcommands.", cmdModuleHelp),
			withTips(def("module|list", 2, admin|noscript, noKeys, 0, "server", "4.0.0", "Returns all loaded modules.", cmdModuleList), "nondeterministic_output_order"),
			protectedBy(def("module|load", -3, modAdmin, noKeys, 0, "server", "4.0.0", "Loads a module.", cmdModuleLoad), moduleGuard),
			protectedBy(def("module|loadex", -3, modAdmin, noKeys, 0, "server", "7.0.0", "Loads a module using extended parameters.", cmdModuleLoad), moduleGuard),
			protectedBy(def("module|unload", 3, modAdmin, noKeys, 0, "server", "4.0.0", "Unloads a module.", cmdModuleUnload), moduleGuard),
		),
		def("lolwut", -1, readonly|fast, noKeys, 0, "server", "5.0.0", "Displays computer art and the Redis version", cmdLolwut),
	}
}

// Cairn loads no modules: MODULE LIST is always empty, and a module to
// load is refused with Redis's reply to one that failed to load, the
// reason in the log, as Redis puts it there.

func cmdModuleList(x *ctx) { x.w.Array(0) }

func cmdModuleLoad(x *ctx) {
	x.srv.log.Warn("Module " + cstr(x.argStr(2)) + " failed to load: Cairn does not support Redis modules")
	x.errorReply("ERR Error loading the extension. Please check the server logs.")
}

func cmdModuleUnload(x *ctx) {
	x.errorReply("ERR Error unloading module: no such module with that name")
}

func cmdModuleHelp(x *ctx) {
	x.helpReply("MODULE",
		"LIST",
		"    Return a list of loaded modules.",
		"LOAD <path> [<arg> ...]",
		"    Load a module library from <path>, passing to it any optional arguments.",
		"LOADEX <path> [[CONFIG NAME VALUE] [CONFIG NAME VALUE]] [ARGS ...]",
		"    Load a module library from <path>, while passing it module configurations and optional arguments.",
		"UNLOAD <name>",
		"    Unload a module.",
	)
}

// debugSub is one DEBUG subcommand: the argument counts it takes (Redis
// checks them per subcommand) and its handler.
type debugSub struct {
	// argc is the exact argument count including DEBUG and the
	// subcommand; minArgc, when set, makes it a minimum instead.
	argc, minArgc int
	run           func(x *ctx)
}

// debugSubs are the DEBUG subcommands Cairn has, by upper-case name. The
// rest of Redis's (SEGFAULT, POPULATE, JMAP, ...) answer as an unknown
// subcommand, the reply Redis gives to one it does not have.
var debugSubs map[string]debugSub

func init() {
	debugSubs = map[string]debugSub{
		"HELP":              {argc: 2, run: cmdDebugHelp},
		"SLEEP":             {argc: 3, run: cmdDebugSleep},
		"OBJECT":            {argc: 3, run: cmdDebugObject},
		"RELOAD":            {minArgc: 2, run: cmdDebugReload},
		"SET-ACTIVE-EXPIRE": {argc: 3, run: cmdDebugSetActiveExpire},
		"CHANGE-REPL-ID":    {argc: 2, run: cmdDebugChangeReplID},
		"LOG":               {argc: 3, run: cmdDebugLog},
		"ERROR":             {argc: 3, run: cmdDebugError},
		"PROTOCOL":          {argc: 3, run: cmdDebugProtocol},
		"DIGEST":            {argc: 2, run: cmdDebugDigest},
		"DIGEST-VALUE":      {minArgc: 2, run: cmdDebugDigestValue},
	}
}

// cmdDebug runs a DEBUG subcommand. DEBUG is one command in Redis's table
// (COMMAND INFO lists no subcommands), so it reads its subcommand itself.
// It runs under the exclusive lock: DEBUG SLEEP stops every writer, as it
// stops the whole of Redis, and DIGEST reads one still dataset.
func cmdDebug(x *ctx) {
	sub, ok := debugSubs[strings.ToUpper(cstr(x.argStr(1)))]
	if !ok || (sub.minArgc == 0 && len(x.args) != sub.argc) || len(x.args) < sub.minArgc {
		x.subcommandSyntaxError()
		return
	}
	// DEBUG looks at keys without touching them, as Redis's finds them in
	// its dictionary without a lookup: OBJECT IDLETIME is left as it was.
	x.tx.SetTouch(false)
	sub.run(x)
}

func cmdDebugHelp(x *ctx) {
	x.helpReply("DEBUG",
		"CHANGE-REPL-ID",
		"    Change the replication IDs of the instance.",
		"    Dangerous: should be used only for testing the replication subsystem.",
		"DIGEST",
		"    Output a hex signature representing the current DB content.",
		"DIGEST-VALUE <key> [<key> ...]",
		"    Output a hex signature of the values of all the specified keys.",
		"ERROR <string>",
		"    Return a Redis protocol error with <string> as message. Useful for clients",
		"    unit tests to simulate Redis errors.",
		"LOG <message>",
		"    Write <message> to the server log.",
		"OBJECT <key>",
		"    Show low level info about `key` and associated value.",
		"PROTOCOL <type>",
		"    Reply with a test value of the specified type. <type> can be: string,",
		"    integer, double, bignum, null, array, set, map, attrib, push, verbatim,",
		"    true, false.",
		"RELOAD [option ...]",
		"    Make every write durable, drop the key cache and read the key counts",
		"    back from disk: Cairn's data is always on disk, so this is its save and",
		"    reload. The options MERGE, NOFLUSH and NOSAVE are accepted and change",
		"    nothing.",
		"SET-ACTIVE-EXPIRE <0|1>",
		"    Setting it to 0 disables expiring keys in background when they are not",
		"    accessed (otherwise the Redis behavior). Setting it to 1 reenables back the",
		"    default.",
		"SLEEP <seconds>",
		"    Stop every writer for <seconds>. Decimals allowed.",
	)
}

// cmdDebugSleep waits holding the exclusive lock, so every write waits
// with it, as the whole of Redis does; reads go on (they take no locks in
// Cairn). A shutdown or CLIENT KILL cuts the sleep short.
func cmdDebugSleep(x *ctx) {
	secs := strtodPrefix(x.argStr(2))
	// Redis sleeps for the microseconds; NaN and the negative, nothing.
	if secs > 0 {
		d := time.Duration(min(secs, float64(math.MaxInt64/int64(time.Second)))*1e6) * time.Microsecond
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-x.cl.gone:
			t.Stop()
		}
	}
	x.ok()
}

// strtodPrefix reads the longest prefix of s that C's strtod takes as a
// number, and 0 when none is, as DEBUG SLEEP reads its argument.
func strtodPrefix(s string) float64 {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	for n := len(s); n > 0; n-- {
		if f, err := strconv.ParseFloat(s[:n], 64); err == nil || errors.Is(err, strconv.ErrRange) {
			return f
		}
	}
	return 0
}

// cmdDebugObject is Redis's line of low-level facts about a key. Cairn
// holds no object in memory: the address is that of the value as read,
// refcount is OBJECT REFCOUNT's, encoding OBJECT ENCODING's,
// serializedlength the size of the value's RDB serialization (DUMP's
// payload without its type and trailer), and lru and lru_seconds_idle come
// from OBJECT IDLETIME's access clock.
func cmdDebugObject(x *ctx) {
	db, key := x.db(), x.arg(2)
	info, ok, err := x.tx.Lookup(db, key)
	if err == nil && ok {
		var enc string
		var idle int64
		if enc, ok, err = x.tx.Encoding(db, key); err == nil && ok {
			idle, ok, err = x.tx.IdleTime(db, key)
		}
		var v store.Value
		if err == nil && ok {
			v, _, ok, err = x.tx.ReadValue(db, key)
			if errors.Is(err, store.ErrNoRDBType) {
				err, ok = nil, true
			}
		}
		if err == nil && ok {
			refcount := 1
			if info.Type == encoding.TypeString && info.Repr == encoding.ReprAuto && isSharedInteger(info.Value) {
				refcount = sharedRefcount
			}
			serialized := 0
			if v.Type == info.Type {
				serialized = len(rdb.AppendValue(nil, store.ObjectOf(v))) - 1 - rdbTrailerLen
			}
			// Redis's LRU clock: seconds, in 24 bits.
			lru := (x.srv.nowMs()/1000 - idle) & (1<<24 - 1)
			x.w.SimpleString(fmt.Sprintf("Value at:%p refcount:%d encoding:%s serializedlength:%d lru:%d lru_seconds_idle:%d",
				&v, refcount, enc, serialized, lru, idle))
			return
		}
	}
	if err != nil {
		x.storeError(err)
		return
	}
	x.errorReply("ERR no such key")
}

// rdbTrailerLen is what follows a DUMP payload's value: the RDB version
// (2 bytes) and the CRC-64 (8).
const rdbTrailerLen = 10

func cmdDebugReload(x *ctx) {
	for _, opt := range x.args[2:] {
		if !optIs(opt, "MERGE") && !optIs(opt, "NOFLUSH") && !optIs(opt, "NOSAVE") {
			x.errorReply("ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.")
			return
		}
	}
	if err := x.tx.Reload(); err != nil {
		x.internalError(err)
		return
	}
	x.srv.log.Warn("DB reloaded by DEBUG RELOAD")
	x.ok()
}

func cmdDebugSetActiveExpire(x *ctx) {
	// atoi, as Redis reads it: anything but a number is 0.
	x.srv.st.SetActiveExpire(atoi(x.argStr(2)) != 0)
	x.ok()
}

// atoi is C's atoi: the leading integer of s, 0 when there is none.
func atoi(s string) int64 {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	end := 0
	if end < len(s) && (s[end] == '-' || s[end] == '+') {
		end++
	}
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	n, _ := strconv.ParseInt(s[:end], 10, 64)
	return n
}

func cmdDebugChangeReplID(x *ctx) {
	x.srv.log.Warn("Changing replication IDs after receiving DEBUG change-repl-id")
	r := &x.srv.repl
	r.mu.Lock()
	r.replID = newReplID()
	r.replID2, r.secondOffset = strings.Repeat("0", 40), -1
	r.mu.Unlock()
	x.ok()
}

func cmdDebugLog(x *ctx) {
	x.srv.log.Warn("DEBUG LOG: " + cstr(x.argStr(2)))
	x.ok()
}

// cmdDebugError replies the argument as an error, line breaks made spaces.
// Like Redis, it does not count as a failed call or in errorstats.
func cmdDebugError(x *ctx) { x.w.Error(x.argStr(2)) }

// cmdDebugProtocol replies Redis's test value of each RESP type.
func cmdDebugProtocol(x *ctx) {
	w := x.w
	switch name := x.arg(2); {
	case optIs(name, "STRING"):
		w.BulkString("Hello World")
	case optIs(name, "INTEGER"):
		w.Int(12345)
	case optIs(name, "DOUBLE"):
		w.Double(3.141)
	case optIs(name, "BIGNUM"):
		w.BigNumber("1234567999999999999999999999999999999")
	case optIs(name, "NULL"):
		w.NullBulk()
	case optIs(name, "ARRAY"), optIs(name, "SET"):
		if optIs(name, "SET") {
			w.Set(3)
		} else {
			w.Array(3)
		}
		for j := range 3 {
			w.Int(int64(j))
		}
	case optIs(name, "MAP"):
		w.Map(3)
		for j := range 3 {
			w.Int(int64(j))
			w.Bool(j == 1)
		}
	case optIs(name, "ATTRIB"):
		if w.Protocol() == 3 {
			// An attribute is no reply of its own: a real one follows.
			w.Raw([]byte("|1\r\n"))
			w.BulkString("key-popularity")
			w.Array(2)
			w.BulkString("key:123")
			w.Int(90)
		}
		w.BulkString("Some real reply following the attribute")
	case optIs(name, "PUSH"):
		if w.Protocol() != 3 {
			x.errorReply("ERR RESP2 is not supported by this command")
			return
		}
		w.Push(2)
		w.BulkString("server-cpu-usage")
		w.Int(42)
		w.BulkString("Some real reply following the push reply")
	case optIs(name, "TRUE"):
		w.Bool(true)
	case optIs(name, "FALSE"):
		w.Bool(false)
	case optIs(name, "VERBATIM"):
		w.Verbatim("txt", "This is a verbatim\nstring")
	default:
		x.errorReply("ERR Wrong protocol type name. Please use one of the following: string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|true|false")
	}
}

// cmdDebugDigest is Redis's digest of the whole dataset (package digest):
// the same data gives the same digest in Cairn and in Redis.
func cmdDebugDigest(x *ctx) {
	var ds digest.Dataset
	st := x.srv.st
	for db := range st.Databases() {
		started := false
		err := x.tx.Keys(db, []byte("*"), func(k []byte) error {
			key := bytes.Clone(k)
			o, expires, ok, err := digestValue(x.tx, db, key)
			if err != nil || !ok {
				return err
			}
			if !started {
				ds.StartDB(db)
				started = true
			}
			ds.Add(digest.KeyValue(key, o, expires))
			return nil
		})
		if err != nil {
			x.storeError(err)
			return
		}
	}
	x.w.SimpleString(ds.Sum().String())
}

func cmdDebugDigestValue(x *ctx) {
	sums := make([]digest.Sum, 0, len(x.args)-2)
	for _, key := range x.args[2:] {
		o, expires, ok, err := digestValue(x.tx, x.db(), key)
		if err != nil {
			x.storeError(err)
			return
		}
		var sum digest.Sum
		if ok {
			sum = digest.Value(o, expires)
		}
		sums = append(sums, sum)
	}
	x.w.Array(len(sums))
	for _, s := range sums {
		x.w.SimpleString(s.String())
	}
}

// digestValue reads a key's value for the digest. A sortedint, which has
// no Redis form, is digested as the set of its integers' decimal text.
func digestValue(tx *store.Tx, db int, key []byte) (rdb.Object, bool, bool, error) {
	v, deadline, ok, err := tx.ReadValue(db, key)
	if errors.Is(err, store.ErrNoRDBType) {
		info, ok, err := tx.Lookup(db, key)
		if err != nil || !ok {
			return rdb.Object{}, false, ok, err
		}
		ids, err := tx.SIRangeByValue(db, key, store.SIValueRange{Max: math.MaxUint64})
		if err != nil {
			return rdb.Object{}, false, false, err
		}
		items := make([][]byte, len(ids))
		for i, id := range ids {
			items[i] = strconv.AppendUint(nil, id, 10)
		}
		return rdb.Object{Kind: rdb.KindSet, Items: items}, info.ExpireMs != 0, true, nil
	}
	if err != nil || !ok {
		return rdb.Object{}, false, ok, err
	}
	return store.ObjectOf(v), deadline != 0, true, nil
}
