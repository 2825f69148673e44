package server

import (
	"bytes"
	"math"
	"strconv"
	"strings"

	"github.com/cairndb/cairn/internal/command"
	"github.com/cairndb/cairn/internal/encoding"
	"github.com/cairndb/cairn/internal/notify"
	"github.com/cairndb/cairn/internal/rconv"
	"github.com/cairndb/cairn/internal/store"
)

const ks = command.CatKeyspace

func keyspaceCommands() []cmdEntry {
	one := keys{1, 1, 1}
	all := keys{1, -1, 1}
	return []cmdEntry{
		withTips(withKeyFlags(def("del", -2, write, all, ks, "generic", "1.0.0", "Deletes one or more keys.", cmdDel), command.KeyRM|del), "request_policy:multi_shard", "response_policy:agg_sum"),
		withTips(withKeyFlags(def("unlink", -2, write|fast, all, ks, "generic", "4.0.0", "Asynchronously deletes one or more keys.", cmdDel), command.KeyRM|del), "request_policy:multi_shard", "response_policy:agg_sum"),
		withTips(def("exists", -2, readonly|fast, all, ks, "generic", "1.0.0", "Determines whether one or more keys exist.", untouched(cmdExists)), "request_policy:multi_shard", "response_policy:agg_sum"),
		withTips(def("touch", -2, readonly|fast, all, ks, "generic", "3.2.1", "Returns the number of existing keys out of those specified after updating the time they were last accessed.", cmdExists), "request_policy:multi_shard", "response_policy:agg_sum"),
		def("type", 2, readonly|fast, one, ks, "generic", "1.0.0", "Determines the type of value stored at a key.", untouched(cmdType)),
		withTwoKeySpecs(def("rename", 3, write, keys{1, 2, 1}, ks, "generic", "1.0.0", "Renames a key and overwrites the destination.", cmdRename), rw|acc|del, ow|upd, false),
		withTwoKeySpecs(def("renamenx", 3, write|fast, keys{1, 2, 1}, ks, "generic", "1.0.0", "Renames a key only when the target key name doesn't exist.", cmdRenameNX), rw|acc|del, ow|ins, false),
		withTwoKeySpecs(def("copy", -3, write|denyoom, keys{1, 2, 1}, ks, "generic", "6.2.0", "Copies the value of a key to a new key.", cmdCopy), ro|acc, ow|upd, false),
		withKeyFlags(def("move", 3, write|fast, one, ks, "generic", "1.0.0", "Moves a key to another database.", cmdMove), rw|acc|upd),
		withKeyFlags(def("expire", -3, write|fast, one, ks, "generic", "1.0.0", "Sets the expiration time of a key in seconds.", expireCmd(expireUnit{}, "expire")), rw|upd),
		withKeyFlags(def("pexpire", -3, write|fast, one, ks, "generic", "2.6.0", "Sets the expiration time of a key in milliseconds.", expireCmd(expireUnit{ms: true}, "pexpire")), rw|upd),
		withKeyFlags(def("expireat", -3, write|fast, one, ks, "generic", "1.2.0", "Sets the expiration time of a key to a Unix timestamp.", expireCmd(expireUnit{absolute: true}, "expireat")), rw|upd),
		withKeyFlags(def("pexpireat", -3, write|fast, one, ks, "generic", "2.6.0", "Sets the expiration time of a key to a Unix milliseconds timestamp.", expireCmd(expireUnit{ms: true, absolute: true}, "pexpireat")), rw|upd),
		withTips(withKeyFlags(def("ttl", 2, readonly|fast, one, ks, "generic", "1.0.0", "Returns the expiration time in seconds of a key.", untouched(ttlCmd(false, false))), ro|acc), tipOutput),
		withTips(withKeyFlags(def("pttl", 2, readonly|fast, one, ks, "generic", "2.6.0", "Returns the expiration time in milliseconds of a key.", untouched(ttlCmd(true, false))), ro|acc), tipOutput),
		withKeyFlags(def("expiretime", 2, readonly|fast, one, ks, "generic", "7.0.0", "Returns the expiration time of a key as a Unix timestamp.", untouched(ttlCmd(false, true))), ro|acc),
		withKeyFlags(def("pexpiretime", 2, readonly|fast, one, ks, "generic", "7.0.0", "Returns the expiration time of a key as a Unix milliseconds timestamp.", untouched(ttlCmd(true, true))), ro|acc),
		withKeyFlags(def("persist", 2, write|fast, one, ks, "generic", "2.2.0", "Removes the expiration time of a key.", cmdPersist), rw|upd),
		withTips(def("keys", 2, readonly, noKeys, ks|command.CatDangerous, "generic", "1.0.0", "Returns all key names that match a pattern.", cmdKeys), "request_policy:all_shards", tipOutputOrder),
		withTips(def("scan", -2, readonly, noKeys, ks, "generic", "2.8.0", "Iterates over the key names in the database.", cmdScan), tipOutput, "request_policy:special"),
		withTips(def("randomkey", 1, readonly, noKeys, ks, "generic", "1.0.0", "Returns a random key name from the database.", cmdRandomKey), "request_policy:all_shards", tipOutput),
		withTips(def("dbsize", 1, readonly|fast, noKeys, ks, "server", "1.0.0", "Returns the number of keys in the database.", cmdDBSize), "request_policy:all_shards", "response_policy:agg_sum"),
		withTips(def("flushdb", -1, write|command.LockAll, noKeys, ks|command.CatDangerous, "server", "1.0.0", "Removes all keys from the current database.", cmdFlushDB), "request_policy:all_shards", "response_policy:all_succeeded"),
		withTips(def("flushall", -1, write|command.LockAll, noKeys, ks|command.CatDangerous, "server", "1.0.0", "Removes all keys from all databases.", cmdFlushAll), "request_policy:all_shards", "response_policy:all_succeeded"),
		def("swapdb", 3, write|fast|command.LockAll, noKeys, ks|command.CatDangerous, "server", "4.0.0", "Swaps two Redis databases.", cmdSwapDB),
		container("object", "generic", "2.2.3", "A container for object introspection commands.", 0,
			withTips(def("object|encoding", 3, readonly, keys{2, 2, 1}, ks, "generic", "2.2.3", "Returns the internal encoding of a Redis object.", untouched(cmdObjectEncoding)), tipOutput),
			withTips(def("object|freq", 3, readonly, keys{2, 2, 1}, ks, "generic", "4.0.0", "Returns the logarithmic access frequency counter of a Redis object.", untouched(cmdObjectFreq)), tipOutput),
			withTips(def("object|idletime", 3, readonly, keys{2, 2, 1}, ks, "generic", "2.2.3", "Returns the time since the last access to a Redis object.", untouched(cmdObjectIdleTime)), tipOutput),
			withTips(def("object|refcount", 3, readonly, keys{2, 2, 1}, ks, "generic", "2.2.3", "Returns the reference count of a value of a key.", untouched(cmdObjectRefcount)), tipOutput),
			def("object|help", 2, loading|stale, noKeys, ks, "generic", "6.2.0", "Returns helpful text about the different subcommands.", cmdObjectHelp),
		),
	}
}

func cmdDel(x *ctx) {
	replyCountKeys(x, func(tx *store.Tx, db int, key []byte) (bool, error) {
		ok, err := tx.Delete(db, key)
		if ok {
			x.notify(notify.Generic, "del", key)
		}
		return ok, err
	})
}

// cmdExists is EXISTS and TOUCH: each key is a read, and a missing one a
// "keymiss".
func cmdExists(x *ctx) {
	replyCountKeys(x, func(tx *store.Tx, db int, key []byte) (bool, error) {
		ok, err := tx.Exists(db, key)
		x.missedIf(!ok && err == nil, key)
		return ok, err
	})
}

// replyCountKeys answers with the number of key arguments for which f
// reports true (DEL, UNLINK, EXISTS; a key given twice counts twice).
func replyCountKeys(x *ctx, f func(tx *store.Tx, db int, key []byte) (bool, error)) {
	var n int64
	for _, k := range x.args[1:] {
		ok, err := f(x.tx, x.db(), k)
		if err != nil {
			x.storeError(err)
			return
		}
		n += boolInt(ok)
	}
	x.w.Int(n)
}

func cmdType(x *ctx) {
	info, ok, err := x.tx.Lookup(x.db(), x.arg(1))
	switch {
	case err != nil:
		x.storeError(err)
	case !ok:
		x.missed(x.arg(1))
		x.w.SimpleString("none")
	default:
		x.w.SimpleString(info.Type.String())
	}
}

func cmdRename(x *ctx) {
	if _, err := x.tx.Rename(x.db(), x.arg(1), x.arg(2), false); err != nil {
		x.storeError(err)
		return
	}
	x.notifyRename()
	x.ok()
}

func cmdRenameNX(x *ctx) {
	ok, err := x.tx.Rename(x.db(), x.arg(1), x.arg(2), true)
	if ok && err == nil {
		x.notifyRename()
	}
	x.replyBool(ok, err)
}

// notifyRename records a RENAME's events; renaming a key to itself changes
// nothing and reports nothing.
func (x *ctx) notifyRename() {
	if bytes.Equal(x.arg(1), x.arg(2)) {
		return
	}
	x.notify(notify.Generic, "rename_from", x.arg(1))
	x.notify(notify.Generic, "rename_to", x.arg(2))
}

// parseDB parses a database number argument, replying on error. Like
// Redis's getIntFromObjectOrReply, a number outside the C int range has
// its own error, distinct from one that names no database.
func (x *ctx) parseDB(arg []byte) (int, bool) {
	n, ok := rconv.ParseInt(arg)
	if !ok {
		x.notInteger()
		return 0, false
	}
	if n < math.MinInt32 || n > math.MaxInt32 {
		x.errorReply("ERR value is out of range, value must between -2147483648 and 2147483647")
		return 0, false
	}
	if n < 0 || n >= int64(x.srv.st.Databases()) {
		x.errorReply(string(store.ErrDBIndex))
		return 0, false
	}
	return int(n), true
}

// parseInt32 parses a C int argument; ok is false when it is not one.
func parseInt32(arg []byte) (int64, bool) {
	n, ok := rconv.ParseInt(arg)
	return n, ok && n >= math.MinInt32 && n <= math.MaxInt32
}

func cmdCopy(x *ctx) {
	dstDB, replace := x.db(), false
	for i := 3; i < len(x.args); i++ {
		switch optName(x.arg(i)) {
		case "REPLACE":
			replace = true
		case "DB":
			if i+1 >= len(x.args) {
				x.syntaxError()
				return
			}
			i++
			db, ok := x.parseDB(x.arg(i))
			if !ok {
				return
			}
			dstDB = db
		default:
			x.syntaxError()
			return
		}
	}
	ok, err := x.tx.Copy(x.db(), x.arg(1), dstDB, x.arg(2), replace)
	switch {
	case err != nil:
	case ok:
		x.tx.Notify(notify.Generic, "copy_to", dstDB, x.arg(2))
	default:
		// COPY reads its source as GET does.
		x.keyMiss(x.arg(1))
	}
	x.replyBool(ok, err)
}

func cmdMove(x *ctx) {
	db, ok := x.parseDB(x.arg(2))
	if !ok {
		return
	}
	ok, err := x.tx.Move(x.db(), x.arg(1), db)
	if ok && err == nil {
		x.notify(notify.Generic, "move_from", x.arg(1))
		x.tx.Notify(notify.Generic, "move_to", db, x.arg(1))
	}
	x.replyBool(ok, err)
}

func expireCmd(u expireUnit, name string) handler {
	return func(x *ctx) {
		// Redis checks the options before the number: "EXPIRE k abc NX XX"
		// is an option error, not an integer error.
		var cond store.ExpireCond
		for _, a := range x.args[3:] {
			switch optName(a) {
			case "NX":
				cond |= store.ExpireNX
			case "XX":
				cond |= store.ExpireXX
			case "GT":
				cond |= store.ExpireGT
			case "LT":
				cond |= store.ExpireLT
			default:
				// Redis formats the option with %s: it ends at a NUL.
				x.errorReply("ERR Unsupported option " + cstr(string(a)))
				return
			}
		}
		if cond&store.ExpireNX != 0 && cond&(store.ExpireXX|store.ExpireGT|store.ExpireLT) != 0 {
			x.errorReply("ERR NX and XX, GT or LT options at the same time are not compatible")
			return
		}
		if cond&store.ExpireGT != 0 && cond&store.ExpireLT != 0 {
			x.errorReply("ERR GT and LT options at the same time are not compatible")
			return
		}
		n, ok := rconv.ParseInt(x.arg(2))
		if !ok {
			x.notInteger()
			return
		}
		deadline, ok := toDeadline(n, u, x.tx.NowMs)
		if !ok {
			x.errorReply("ERR invalid expire time in '" + name + "' command")
			return
		}
		done, err := x.tx.Expire(x.db(), x.arg(1), deadline, cond)
		if err != nil {
			x.storeError(err)
			return
		}
		switch {
		case !done:
		case deadline <= x.tx.NowMs:
			// A deadline already past deletes the key.
			x.notify(notify.Generic, "del", x.arg(1))
		default:
			x.notify(notify.Generic, "expire", x.arg(1))
		}
		x.w.Int(boolInt(done))
	}
}

// untouched runs h without counting the keys it looks up as used (OBJECT
// IDLETIME), as Redis's LOOKUP_NOTOUCH does for TTL, TYPE, EXISTS and
// OBJECT. The Tx may be shared with the rest of a pipeline, so the
// default comes back after h.
func untouched(h handler) handler {
	return func(x *ctx) {
		x.tx.SetTouch(false)
		defer x.tx.SetTouch(true)
		h(x)
	}
}

// ttlCmd is TTL, PTTL, EXPIRETIME and PEXPIRETIME. Second replies round
// to the nearest second, the absolute ones included, as Redis's
// ttlGenericCommand does.
func ttlCmd(ms, absolute bool) handler {
	return func(x *ctx) {
		d, err := x.tx.Deadline(x.db(), x.arg(1))
		if err != nil {
			x.storeError(err)
			return
		}
		x.missedIf(d == store.TTLMissing, x.arg(1))
		if d < 0 {
			x.w.Int(d)
			return
		}
		if !absolute {
			d = max(d-x.tx.NowMs, 0)
		}
		if !ms {
			// (d+500)/1000 without overflowing for deadlines near
			// math.MaxInt64, where Redis still replies the exact value.
			d = d/1000 + (d%1000+500)/1000
		}
		x.w.Int(d)
	}
}

func cmdPersist(x *ctx) {
	ok, err := x.tx.Persist(x.db(), x.arg(1))
	if ok && err == nil {
		x.notify(notify.Generic, "persist", x.arg(1))
	}
	x.replyBool(ok, err)
}

func cmdKeys(x *ctx) {
	var found [][]byte
	err := x.tx.Keys(x.db(), x.arg(1), func(k []byte) error {
		found = append(found, append([]byte(nil), k...))
		return nil
	})
	if err != nil {
		x.storeError(err)
		return
	}
	x.w.Array(len(found))
	for _, k := range found {
		x.w.Bulk(k)
	}
}

// typeByName maps SCAN's TYPE argument to a key type as Redis's strcasecmp
// matches it: as a C string, ignoring ASCII case only.
func typeByName(arg []byte) (encoding.Type, bool) {
	for t := encoding.TypeString; t <= encoding.LastType; t++ {
		if optIs(arg, strings.ToUpper(t.String())) {
			return t, true
		}
	}
	return 0, false
}

func cmdScan(x *ctx) {
	cursor, ok := scanCursorArg(x, 1)
	if !ok {
		return
	}
	a := store.ScanArgs{Count: 10}
	for i := 2; i < len(x.args); i++ {
		opt := optName(x.arg(i))
		if i+1 >= len(x.args) {
			x.syntaxError()
			return
		}
		i++
		switch opt {
		case "COUNT":
			if a.Count, ok = scanCount(x, x.arg(i)); !ok {
				return
			}
		case "MATCH":
			a.Pattern = scanPattern(x.arg(i))
		case "TYPE":
			// Redis 7 accepts any name here: one it does not know
			// matches no key (the error is left for Redis 8), so the
			// zero Type, which no key has, stands for it.
			t, _ := typeByName(x.arg(i))
			a.Type, a.TypeSet = t, true
		default:
			x.syntaxError()
			return
		}
	}
	next, found, err := x.tx.Scan(x.db(), cursor, a)
	if err != nil {
		x.storeError(err)
		return
	}
	replyScanHeader(x, next, len(found))
	for _, k := range found {
		x.w.Bulk(k)
	}
}

func cmdRandomKey(x *ctx) {
	x.replyBulkOrNil(x.tx.RandomKey(x.db()))
}

func cmdDBSize(x *ctx) { x.w.Int(x.tx.DBSize(x.db())) }

// flushMode checks FLUSHDB/FLUSHALL's optional ASYNC|SYNC. Both are instant
// here: a flush is a handful of range tombstones.
func (x *ctx) flushMode() bool {
	if len(x.args) > 2 {
		x.syntaxError()
		return false
	}
	if len(x.args) == 2 {
		m := optName(x.arg(1))
		if m != "ASYNC" && m != "SYNC" {
			x.syntaxError()
			return false
		}
	}
	return true
}

func cmdFlushDB(x *ctx) {
	if !x.flushMode() {
		return
	}
	if err := x.srv.watches.touchFlushed(x.tx, x.db(), -1); err != nil {
		x.storeError(err)
		return
	}
	if err := x.tx.FlushDB(x.db()); err != nil {
		x.storeError(err)
		return
	}
	x.afterCommit = x.srv.invalidateAll
	x.ok()
}

func cmdFlushAll(x *ctx) {
	if !x.flushMode() {
		return
	}
	if err := x.srv.watches.touchFlushed(x.tx, -1, -1); err != nil {
		x.storeError(err)
		return
	}
	if err := x.tx.FlushAll(); err != nil {
		x.storeError(err)
		return
	}
	x.afterCommit = x.srv.invalidateAll
	x.ok()
}

func cmdSwapDB(x *ctx) {
	a, ok := parseInt32(x.arg(1))
	if !ok {
		x.errorReply("ERR invalid first DB index")
		return
	}
	b, ok := parseInt32(x.arg(2))
	if !ok {
		x.errorReply("ERR invalid second DB index")
		return
	}
	n := int64(x.srv.st.Databases())
	if a < 0 || a >= n || b < 0 || b >= n {
		x.errorReply(string(store.ErrDBIndex))
		return
	}
	for _, pair := range [][2]int{{int(a), int(b)}, {int(b), int(a)}} {
		if err := x.srv.watches.touchFlushed(x.tx, pair[0], pair[1]); err != nil {
			x.storeError(err)
			return
		}
	}
	if err := x.tx.SwapDB(int(a), int(b)); err != nil {
		x.storeError(err)
		return
	}
	// Blocked clients of both databases run again once it commits (the
	// Tx lists them in ChangedDBs), as Redis rescans them after a swap.
	x.ok()
}

func cmdObjectEncoding(x *ctx) {
	enc, ok, err := x.tx.Encoding(x.db(), x.arg(2))
	switch {
	case err != nil:
		x.storeError(err)
	case !ok:
		x.w.NullBulk()
	default:
		x.w.BulkString(enc)
	}
}

func cmdObjectFreq(x *ctx) {
	if _, ok, err := x.tx.Lookup(x.db(), x.arg(2)); err != nil || !ok {
		if err != nil {
			x.storeError(err)
		} else {
			x.w.NullBulk()
		}
		return
	}
	if !x.srv.lfuPolicy() {
		x.errorReply("ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.")
		return
	}
	n, _, err := x.tx.Freq(x.db(), x.arg(2))
	x.replyInt(n, err)
}

// applyLFU tells the store whether to count accesses as Redis's LFU
// policies do, with their settings.
func (s *Server) applyLFU() {
	setting := func(name string, def int64) int64 {
		if kv := s.cfg.Get(name); len(kv) == 1 {
			if n, err := strconv.ParseInt(kv[0][1], 10, 64); err == nil {
				return n
			}
		}
		return def
	}
	s.st.SetLFU(s.lfuPolicy(), setting("lfu-log-factor", 10), setting("lfu-decay-time", 1))
}

// sharedRefcount is OBJ_SHARED_REFCOUNT, the reference count Redis reports
// for its preallocated integers 0 to 9999 (OBJ_SHARED_INTEGERS), which every
// command storing such a number shares while maxmemory is off.
const sharedRefcount = math.MaxInt32

func cmdObjectRefcount(x *ctx) {
	info, ok, err := x.tx.Lookup(x.db(), x.arg(2))
	switch {
	case err != nil:
		x.storeError(err)
	case !ok:
		x.w.NullBulk()
	case info.Type == encoding.TypeString && info.Repr == encoding.ReprAuto && isSharedInteger(info.Value):
		x.w.Int(sharedRefcount)
	default:
		// Values are not shared between keys on disk: one reference each.
		x.w.Int(1)
	}
}

// isSharedInteger reports whether Redis would hold v as one of its shared
// integers: an int-encoded string from 0 to 9999.
func isSharedInteger(v []byte) bool {
	if len(v) > 4 {
		return false
	}
	n, ok := rconv.ParseInt(v)
	return ok && n >= 0 && n < 10000
}

func cmdObjectHelp(x *ctx) {
	x.helpReply("OBJECT",
		"ENCODING <key>",
		"    Return the kind of internal representation used in order to store the value",
		"    associated with a <key>.",
		"FREQ <key>",
		"    Return the access frequency index of the <key>. The returned integer is",
		"    proportional to the logarithm of the recent access frequency of the key.",
		"IDLETIME <key>",
		"    Return the idle time of the <key>, that is the approximated number of",
		"    seconds elapsed since the last access to the key.",
		"REFCOUNT <key>",
		"    Return the number of references of the value associated with the specified",
		"    <key>.",
	)
}

// helpReply writes a HELP subcommand's reply in Redis's layout.
func (x *ctx) helpReply(cmd string, lines ...string) {
	x.w.Array(len(lines) + 3)
	x.w.SimpleString(cmd + " <subcommand> [<arg> [value] [opt] ...]. Subcommands are:")
	for _, l := range lines {
		x.w.SimpleString(l)
	}
	x.w.SimpleString("HELP")
	x.w.SimpleString("    Print this help.")
}

func cmdObjectIdleTime(x *ctx) {
	idle, ok, err := x.tx.IdleTime(x.db(), x.arg(2))
	switch {
	case err != nil:
		x.storeError(err)
	case !ok:
		x.w.NullBulk()
	case x.srv.lfuPolicy():
		// Redis keeps a key's access time or its access frequency in
		// the same field, as the policy says, and answers for the one
		// it keeps.
		x.errorReply("ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.")
	default:
		x.w.Int(idle)
	}
}

// lfuPolicy reports whether maxmemory-policy is an LFU one, under which
// Redis tracks access frequencies instead of access times.
func (s *Server) lfuPolicy() bool {
	kv := s.cfg.Get("maxmemory-policy")
	return len(kv) == 1 && strings.HasSuffix(kv[0][1], "-lfu")
}
