package server

import (
	"strconv"
	"strings"

	"github.com/cairndb/cairn/internal/command"
	"github.com/cairndb/cairn/internal/encoding"
	"github.com/cairndb/cairn/internal/rconv"
	"github.com/cairndb/cairn/internal/store"
)

const ks = command.CatKeyspace

func keyspaceCommands() []cmdEntry {
	one := keys{1, 1, 1}
	all := keys{1, -1, 1}
	return []cmdEntry{
		def("del", -2, write, all, ks, "generic", "1.0.0", "Deletes one or more keys.", cmdDel),
		def("unlink", -2, write|fast, all, ks, "generic", "4.0.0", "Asynchronously deletes one or more keys.", cmdDel),
		def("exists", -2, readonly|fast, all, ks, "generic", "1.0.0", "Determines whether one or more keys exist.", cmdExists),
		def("touch", -2, readonly|fast, all, ks, "generic", "3.2.1", "Returns the number of existing keys out of those specified after updating the time they were last accessed.", cmdExists),
		def("type", 2, readonly|fast, one, ks, "generic", "1.0.0", "Determines the type of value stored at a key.", cmdType),
		def("rename", 3, write, keys{1, 2, 1}, ks, "generic", "1.0.0", "Renames a key and overwrites the destination.", cmdRename),
		def("renamenx", 3, write|fast, keys{1, 2, 1}, ks, "generic", "1.0.0", "Renames a key only when the target key name doesn't exist.", cmdRenameNX),
		def("copy", -3, write|denyoom, keys{1, 2, 1}, ks, "generic", "6.2.0", "Copies the value of a key to a new key.", cmdCopy),
		def("move", 3, write|fast, one, ks, "generic", "1.0.0", "Moves a key to another database.", cmdMove),
		def("expire", -3, write|fast, one, ks, "generic", "1.0.0", "Sets the expiration time of a key in seconds.", expireCmd(expireUnit{}, "expire")),
		def("pexpire", -3, write|fast, one, ks, "generic", "2.6.0", "Sets the expiration time of a key in milliseconds.", expireCmd(expireUnit{ms: true}, "pexpire")),
		def("expireat", -3, write|fast, one, ks, "generic", "1.2.0", "Sets the expiration time of a key to a Unix timestamp.", expireCmd(expireUnit{absolute: true}, "expireat")),
		def("pexpireat", -3, write|fast, one, ks, "generic", "2.6.0", "Sets the expiration time of a key to a Unix milliseconds timestamp.", expireCmd(expireUnit{ms: true, absolute: true}, "pexpireat")),
		def("ttl", 2, readonly|fast, one, ks, "generic", "1.0.0", "Returns the expiration time in seconds of a key.", ttlCmd(false, false)),
		def("pttl", 2, readonly|fast, one, ks, "generic", "2.6.0", "Returns the expiration time in milliseconds of a key.", ttlCmd(true, false)),
		def("expiretime", 2, readonly|fast, one, ks, "generic", "7.0.0", "Returns the expiration time of a key as a Unix timestamp.", ttlCmd(false, true)),
		def("pexpiretime", 2, readonly|fast, one, ks, "generic", "7.0.0", "Returns the expiration time of a key as a Unix milliseconds timestamp.", ttlCmd(true, true)),
		def("persist", 2, write|fast, one, ks, "generic", "2.2.0", "Removes the expiration time of a key.", cmdPersist),
		def("keys", 2, readonly, noKeys, ks|command.CatDangerous, "generic", "1.0.0", "Returns all key names that match a pattern.", cmdKeys),
		def("scan", -2, readonly, noKeys, ks, "generic", "2.8.0", "Iterates over the key names in the database.", cmdScan),
		def("randomkey", 1, readonly, noKeys, ks, "generic", "1.0.0", "Returns a random key name from the database.", cmdRandomKey),
		def("dbsize", 1, readonly|fast, noKeys, ks, "server", "1.0.0", "Returns the number of keys in the database.", cmdDBSize),
		def("flushdb", -1, write|command.LockAll, noKeys, ks|command.CatDangerous, "server", "1.0.0", "Removes all keys from the current database.", cmdFlushDB),
		def("flushall", -1, write|command.LockAll, noKeys, ks|command.CatDangerous, "server", "1.0.0", "Removes all keys from all databases.", cmdFlushAll),
		def("swapdb", 3, write|fast|command.LockAll, noKeys, ks|command.CatDangerous, "server", "4.0.0", "Swaps two Redis databases.", cmdSwapDB),
		container("object", "generic", "2.2.3", "A container for object introspection commands.", ks,
			def("object|encoding", 3, readonly, keys{2, 2, 1}, ks, "generic", "2.2.3", "Returns the internal encoding of a Redis object.", cmdObjectEncoding),
			def("object|freq", 3, readonly, keys{2, 2, 1}, ks, "generic", "4.0.0", "Returns the logarithmic access frequency counter of a Redis object.", cmdObjectFreq),
			def("object|refcount", 3, readonly, keys{2, 2, 1}, ks, "generic", "2.2.3", "Returns the reference count of a value of a key.", cmdObjectRefcount),
			def("object|help", 2, loading|stale, noKeys, ks, "generic", "6.2.0", "Returns helpful text about the different subcommands.", cmdObjectHelp),
		),
	}
}

func cmdDel(x *ctx) {
	var n int64
	for _, k := range x.args[1:] {
		ok, err := x.tx.Delete(x.db(), k)
		if err != nil {
			x.storeError(err)
			return
		}
		n += boolInt(ok)
	}
	x.w.Int(n)
}

func cmdExists(x *ctx) {
	var n int64
	for _, k := range x.args[1:] {
		ok, err := x.tx.Exists(x.db(), k)
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
	x.ok()
}

func cmdRenameNX(x *ctx) {
	done, err := x.tx.Rename(x.db(), x.arg(1), x.arg(2), true)
	if err != nil {
		x.storeError(err)
		return
	}
	x.w.Int(boolInt(done))
}

// parseDB parses a database number argument, replying on error.
func (x *ctx) parseDB(arg []byte) (int, bool) {
	n, ok := rconv.ParseInt(arg)
	if !ok {
		x.notInteger()
		return 0, false
	}
	if n < 0 || n >= int64(x.srv.st.Databases()) {
		x.errorReply(string(store.ErrDBIndex))
		return 0, false
	}
	return int(n), true
}

func cmdCopy(x *ctx) {
	dstDB, replace := x.db(), false
	for i := 3; i < len(x.args); i++ {
		switch strings.ToUpper(x.argStr(i)) {
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
	done, err := x.tx.Copy(x.db(), x.arg(1), dstDB, x.arg(2), replace)
	if err != nil {
		x.storeError(err)
		return
	}
	x.w.Int(boolInt(done))
}

func cmdMove(x *ctx) {
	db, ok := x.parseDB(x.arg(2))
	if !ok {
		return
	}
	done, err := x.tx.Move(x.db(), x.arg(1), db)
	if err != nil {
		x.storeError(err)
		return
	}
	x.w.Int(boolInt(done))
}

func expireCmd(u expireUnit, name string) handler {
	return func(x *ctx) {
		n, ok := rconv.ParseInt(x.arg(2))
		if !ok {
			x.notInteger()
			return
		}
		var cond store.ExpireCond
		var nx, xx, gt, lt bool
		for _, a := range x.args[3:] {
			switch strings.ToUpper(string(a)) {
			case "NX":
				nx, cond = true, store.ExpireNX
			case "XX":
				xx, cond = true, store.ExpireXX
			case "GT":
				gt, cond = true, store.ExpireGT
			case "LT":
				lt, cond = true, store.ExpireLT
			default:
				x.errorReply("ERR Unsupported option " + string(a))
				return
			}
		}
		if nx && (xx || gt || lt) {
			x.errorReply("ERR NX and XX, GT or LT options at the same time are not compatible")
			return
		}
		if gt && lt {
			x.errorReply("ERR GT and LT options at the same time are not compatible")
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
		x.w.Int(boolInt(done))
	}
}

func ttlCmd(ms, absolute bool) handler {
	return func(x *ctx) {
		d, err := x.tx.Deadline(x.db(), x.arg(1))
		switch {
		case err != nil:
			x.storeError(err)
			return
		case d < 0:
			x.w.Int(d)
			return
		case absolute && ms:
			x.w.Int(d)
		case absolute:
			x.w.Int(d / 1000)
		default:
			left := max(d-x.tx.NowMs, 0)
			if !ms {
				left = (left + 500) / 1000
			}
			x.w.Int(left)
		}
	}
}

func cmdPersist(x *ctx) {
	done, err := x.tx.Persist(x.db(), x.arg(1))
	if err != nil {
		x.storeError(err)
		return
	}
	x.w.Int(boolInt(done))
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

// typeByName maps SCAN's TYPE argument to a key type.
func typeByName(name string) (encoding.Type, bool) {
	for t := encoding.TypeString; t <= encoding.TypeStream; t++ {
		if strings.EqualFold(t.String(), name) {
			return t, true
		}
	}
	return 0, false
}

func cmdScan(x *ctx) {
	cursor, ok := rconv.ParseCursor(x.arg(1))
	if !ok {
		x.errorReply("ERR invalid cursor")
		return
	}
	a := store.ScanArgs{Count: 10}
	for i := 2; i < len(x.args); i++ {
		opt := strings.ToUpper(x.argStr(i))
		if i+1 >= len(x.args) {
			x.syntaxError()
			return
		}
		i++
		switch opt {
		case "COUNT":
			n, ok := rconv.ParseInt(x.arg(i))
			if !ok {
				x.notInteger()
				return
			}
			if n < 1 {
				x.syntaxError()
				return
			}
			a.Count = int(min(n, 1<<20))
		case "MATCH":
			a.Pattern = x.arg(i)
			if string(a.Pattern) == "*" {
				a.Pattern = nil
			}
		case "TYPE":
			t, known := typeByName(x.argStr(i))
			if !known {
				x.errorReply("ERR unknown type name '" + x.argStr(i) + "'")
				return
			}
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
	x.w.Array(2)
	x.w.BulkString(strconv.FormatUint(next, 10))
	x.w.Array(len(found))
	for _, k := range found {
		x.w.Bulk(k)
	}
}

func cmdRandomKey(x *ctx) {
	k, ok, err := x.tx.RandomKey(x.db())
	switch {
	case err != nil:
		x.storeError(err)
	case !ok:
		x.w.NullBulk()
	default:
		x.w.Bulk(k)
	}
}

func cmdDBSize(x *ctx) { x.w.Int(x.srv.st.DBSize(x.db())) }

// flushMode checks FLUSHDB/FLUSHALL's optional ASYNC|SYNC. Both are instant
// here: a flush is a handful of range tombstones.
func (x *ctx) flushMode() bool {
	if len(x.args) > 2 {
		x.syntaxError()
		return false
	}
	if len(x.args) == 2 {
		m := strings.ToUpper(x.argStr(1))
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
	if err := x.tx.FlushDB(x.db()); err != nil {
		x.storeError(err)
		return
	}
	x.ok()
}

func cmdFlushAll(x *ctx) {
	if !x.flushMode() {
		return
	}
	if err := x.tx.FlushAll(); err != nil {
		x.storeError(err)
		return
	}
	x.ok()
}

func cmdSwapDB(x *ctx) {
	a, ok := rconv.ParseInt(x.arg(1))
	if !ok {
		x.errorReply("ERR invalid first DB index")
		return
	}
	b, ok := rconv.ParseInt(x.arg(2))
	if !ok {
		x.errorReply("ERR invalid second DB index")
		return
	}
	n := int64(x.srv.st.Databases())
	if a < 0 || a >= n || b < 0 || b >= n {
		x.errorReply(string(store.ErrDBIndex))
		return
	}
	if err := x.tx.SwapDB(int(a), int(b)); err != nil {
		x.storeError(err)
		return
	}
	x.ok()
}

func cmdObjectEncoding(x *ctx) {
	info, ok, err := x.tx.Lookup(x.db(), x.arg(2))
	switch {
	case err != nil:
		x.storeError(err)
	case !ok:
		x.w.NullBulk()
	case info.Type == encoding.TypeString:
		x.w.BulkString(store.StringEncoding(info.Value))
	default:
		x.w.BulkString(info.Type.String())
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
	// Cairn keeps no access statistics: it behaves as Redis does under its
	// default maxmemory-policy, which tracks no frequencies.
	x.errorReply("ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.")
}

func cmdObjectRefcount(x *ctx) {
	_, ok, err := x.tx.Lookup(x.db(), x.arg(2))
	switch {
	case err != nil:
		x.storeError(err)
	case !ok:
		x.w.NullBulk()
	default:
		// Values are not shared between keys on disk: one reference each.
		x.w.Int(1)
	}
}

func cmdObjectHelp(x *ctx) {
	x.helpReply("OBJECT",
		"ENCODING <key>",
		"    Return the kind of internal representation used in order to store the value",
		"    associated with a <key>.",
		"FREQ <key>",
		"    Return the access frequency index of the <key>. The returned integer is",
		"    proportional to the logarithm of the recent access frequency of the key.",
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
