package server

import (
	"errors"
	"math"

	"github.com/cairndb/cairn/internal/command"
	"github.com/cairndb/cairn/internal/notify"
	"github.com/cairndb/cairn/internal/rconv"
	"github.com/cairndb/cairn/internal/rdb"
	"github.com/cairndb/cairn/internal/store"
)

// DUMP and RESTORE move one key's value in Redis's serialization format
// (package rdb), so that values travel between Cairn and Redis either way.

func dumpCommands() []cmdEntry {
	one := keys{1, 1, 1}
	restore := withKeyFlags(def("restore", -4, write|denyoom, one, ks|command.CatDangerous, "generic", "2.6.0", "Creates a key from the serialized representation of a value.", cmdRestore), ow|upd)
	restore.spec.History = []command.HistoryEntry{
		{Since: "3.0.0", Changes: "Added the `REPLACE` modifier."},
		{Since: "5.0.0", Changes: "Added the `ABSTTL` modifier."},
		{Since: "5.0.0", Changes: "Added the `IDLETIME` and `FREQ` options."},
	}
	return []cmdEntry{
		withTips(withKeyFlags(def("dump", 2, readonly, one, ks, "generic", "2.6.0", "Returns a serialized representation of the value stored at a key.", cmdDump), ro|acc), tipOutput),
		restore,
	}
}

func cmdDump(x *ctx) {
	v, _, ok, err := x.tx.ReadValue(x.db(), x.arg(1))
	switch {
	case err != nil:
		x.storeError(err)
	case !ok:
		x.keyMiss(x.arg(1))
		x.w.NullBulk()
	default:
		x.w.Bulk(rdb.AppendValue(nil, store.ObjectOf(v)))
	}
}

// restoreArgs are RESTORE's options.
type restoreArgs struct {
	replace, absTTL bool
	// idle and freq are -1 when not given; they set the key's access
	// time or counter (OBJECT IDLETIME, OBJECT FREQ).
	idle, freq int64
}

func (x *ctx) parseRestoreArgs() (restoreArgs, bool) {
	a := restoreArgs{idle: -1, freq: -1}
	for i := 4; i < len(x.args); i++ {
		more := i+1 < len(x.args)
		switch name := optName(x.arg(i)); {
		case name == "REPLACE":
			a.replace = true
		case name == "ABSTTL":
			a.absTTL = true
		case name == "IDLETIME" && more && a.freq == -1:
			i++
			n, ok := rconv.ParseInt(x.arg(i))
			if !ok {
				x.notInteger()
				return a, false
			}
			if n < 0 {
				x.errorReply("ERR Invalid IDLETIME value, must be >= 0")
				return a, false
			}
			a.idle = n
		case name == "FREQ" && more && a.idle == -1:
			i++
			n, ok := rconv.ParseInt(x.arg(i))
			if !ok {
				x.notInteger()
				return a, false
			}
			if n < 0 || n > 255 {
				x.errorReply("ERR Invalid FREQ value, must be >= 0 and <= 255")
				return a, false
			}
			a.freq = n
		default:
			x.syntaxError()
			return a, false
		}
	}
	return a, true
}

func cmdRestore(x *ctx) {
	// Redis's order: the options, the key's existence, the TTL, then
	// the payload.
	a, ok := x.parseRestoreArgs()
	if !ok {
		return
	}
	db, key := x.db(), x.arg(1)
	if !a.replace {
		exists, err := x.tx.Exists(db, key)
		if err != nil {
			x.storeError(err)
			return
		}
		if exists {
			x.errorReply("BUSYKEY Target key name already exists.")
			return
		}
	}
	ttl, ok := rconv.ParseInt(x.arg(2))
	if !ok {
		x.notInteger()
		return
	}
	if ttl < 0 {
		x.errorReply("ERR Invalid TTL value, must be >= 0")
		return
	}
	obj, err := rdb.DecodeValue(x.arg(3))
	switch {
	case errors.Is(err, rdb.ErrBadTrailer):
		x.errorReply("ERR DUMP payload version or checksum are wrong")
		return
	case err != nil:
		x.errorReply("ERR Bad data format")
		return
	}
	deadline := ttl
	if ttl != 0 && !a.absTTL {
		deadline = x.tx.NowMs + min(ttl, math.MaxInt64-x.tx.NowMs)
	}
	if ttl != 0 && deadline <= x.tx.NowMs {
		// Already expired (ABSTTL in the past): the key is only removed.
		deleted, err := x.tx.Delete(db, key)
		if err != nil {
			x.storeError(err)
			return
		}
		if deleted {
			x.notify(notify.Generic, "del", key)
		}
		x.ok()
		return
	}
	written, err := x.tx.WriteValue(db, key, store.ValueOf(obj), deadline)
	if err != nil {
		x.storeError(err)
		return
	}
	if written {
		x.tx.SetAccess(db, key, a.idle, a.freq)
		x.notify(notify.Generic, "restore", key)
	}
	x.ok()
}
