package server

import (
	"bytes"
	"errors"
	"math"

	"github.com/cairndb/cairn/internal/command"
	"github.com/cairndb/cairn/internal/notify"
	"github.com/cairndb/cairn/internal/rconv"
	"github.com/cairndb/cairn/internal/store"
)

// Consumer group commands: XGROUP, XREADGROUP, XACK, XPENDING.

func streamGroupCommands() []cmdEntry {
	one := keys{1, 1, 1}
	two := keys{2, 2, 1}
	e := []cmdEntry{
		container("xgroup", "stream", "5.0.0", "A container for consumer groups commands.", 0,
			withKeyFlags(def("xgroup|create", -5, write|denyoom, two, streamCat, "stream", "5.0.0", "Creates a consumer group.", cmdXGroupCreate), rw|ins),
			withKeyFlags(def("xgroup|createconsumer", 5, write|denyoom, two, streamCat, "stream", "6.2.0", "Creates a consumer in a consumer group.", cmdXGroupCreateConsumer), rw|ins),
			withKeyFlags(def("xgroup|delconsumer", 5, write, two, streamCat, "stream", "5.0.0", "Deletes a consumer from a consumer group.", cmdXGroupDelConsumer), rw|del),
			withKeyFlags(def("xgroup|destroy", 4, write, two, streamCat, "stream", "5.0.0", "Destroys a consumer group.", cmdXGroupDestroy), rw|del),
			def("xgroup|help", 2, loading|stale, noKeys, streamCat, "stream", "5.0.0", "Returns helpful text about the different subcommands.", cmdXGroupHelp),
			withKeyFlags(def("xgroup|setid", -5, write, two, streamCat, "stream", "5.0.0", "Sets the last-delivered ID of a consumer group.", cmdXGroupSetID), rw|upd),
		),
		streamsKeysEntry(def("xreadgroup", -7, write|command.Blocking, noKeys, streamCat, "stream", "5.0.0", "Returns new or historical messages from a stream for a consumer in a group. Blocks until a message is available otherwise.", cmdXReadGroup), 4),
		withKeyFlags(def("xack", -4, write|fast, one, streamCat, "stream", "5.0.0", "Returns the number of messages that were successfully acknowledged by the consumer group member of a stream.", cmdXAck), rw|upd),
		withTips(withKeyFlags(def("xclaim", -6, write|fast, one, streamCat, "stream", "5.0.0", "Changes, or acquires, ownership of a message in a consumer group, as if the message was delivered a consumer group member.", cmdXClaim), rw|upd), tipOutput),
		withTips(withKeyFlags(def("xautoclaim", -6, write|fast, one, streamCat, "stream", "6.2.0", "Changes, or acquires, ownership of messages in a consumer group, as if the messages were delivered to as consumer group member.", cmdXAutoClaim), rw|del), tipOutput),
		withTips(withKeyFlags(def("xpending", -3, readonly, one, streamCat, "stream", "5.0.0", "Returns the information and entries from a stream consumer group's pending entries list.", cmdXPending), ro|acc), tipOutput),
	}
	for _, c := range e {
		for _, s := range append([]cmdEntry{c}, c.subs...) {
			switch s.spec.Name {
			case "xgroup|create":
				s.spec.History = []command.HistoryEntry{{Since: "7.0.0", Changes: "Added the `entries_read` named argument."}}
			case "xgroup|setid":
				s.spec.History = []command.HistoryEntry{{Since: "7.0.0", Changes: "Added the optional `entries_read` argument."}}
			case "xautoclaim":
				s.spec.History = []command.HistoryEntry{{Since: "7.0.0", Changes: "Added an element to the reply array, containing deleted entries the command cleared from the PEL"}}
			case "xpending":
				s.spec.History = []command.HistoryEntry{{Since: "6.2.0", Changes: "Added the `IDLE` option and exclusive range intervals."}}
			}
		}
	}
	return e
}

// groupError replies to a store error, wording NOGROUP as msg.
func (x *ctx) groupError(err error, msg string) {
	if err == store.ErrNoGroup {
		x.errorReply("NOGROUP " + msg)
		return
	}
	x.storeError(err)
}

// xgroupOptions parses CREATE's and SETID's options from argument 5 on.
func (x *ctx) xgroupOptions(create bool) (mkstream bool, entriesRead int64, ok bool) {
	entriesRead = store.InvalidEntriesRead
	for i := 5; i < len(x.args); {
		switch {
		case create && optIs(x.arg(i), "MKSTREAM"):
			mkstream = true
			i++
		case optIs(x.arg(i), "ENTRIESREAD") && i+1 < len(x.args):
			n, ok := rconv.ParseInt(x.arg(i + 1))
			if !ok {
				x.notInteger()
				return false, 0, false
			}
			if n < 0 && n != store.InvalidEntriesRead {
				x.errorReply("ERR value for ENTRIESREAD must be positive or -1")
				return false, 0, false
			}
			entriesRead = n
			i += 2
		default:
			x.subcommandSyntaxError()
			return false, 0, false
		}
	}
	return mkstream, entriesRead, true
}

// xgroupLookup runs XGROUP's checks of the key and group, in Redis's order:
// WRONGTYPE, a missing key (unless mkstream), a missing group when
// needGroup. It replies on failure.
func (x *ctx) xgroupLookup(mkstream, needGroup bool) bool {
	key, group := x.arg(2), x.arg(3)
	_, _, exists, err := x.tx.StreamMeta(x.db(), key)
	if err != nil {
		x.storeError(err)
		return false
	}
	if mkstream {
		return true
	}
	if !exists {
		x.storeError(store.ErrXGroupNoKey)
		return false
	}
	if needGroup {
		ok, err := x.tx.StreamGroupExists(x.db(), key, group)
		if err != nil {
			x.storeError(err)
			return false
		}
		if !ok {
			x.errorReply("NOGROUP No such consumer group '" + string(group) + "' for key name '" + string(key) + "'")
			return false
		}
	}
	return true
}

// groupID parses XGROUP's id argument: $ or an id (strict for CREATE).
func (x *ctx) groupID(strict bool) (id store.StreamID, dollar, ok bool) {
	if a := x.arg(4); len(a) == 1 && a[0] == '$' {
		return id, true, true
	}
	id, _, ok = x.parseStreamID(x.arg(4), 0, strict, false)
	return id, false, ok
}

func cmdXGroupCreate(x *ctx) {
	mkstream, entriesRead, ok := x.xgroupOptions(true)
	if !ok || !x.xgroupLookup(mkstream, false) {
		return
	}
	if len(x.args) > 8 {
		x.subcommandSyntaxError()
		return
	}
	id, dollar, ok := x.groupID(true)
	if !ok {
		return
	}
	if err := x.tx.XGroupCreate(x.db(), x.arg(2), x.arg(3), id, dollar, mkstream, entriesRead); err != nil {
		x.storeError(err)
		return
	}
	x.notify(notify.Stream, "xgroup-create", x.arg(2))
	x.ok()
}

func cmdXGroupSetID(x *ctx) {
	_, entriesRead, ok := x.xgroupOptions(false)
	if !ok || !x.xgroupLookup(false, true) {
		return
	}
	if len(x.args) != 5 && len(x.args) != 7 {
		x.subcommandSyntaxError()
		return
	}
	id, dollar, ok := x.groupID(false)
	if !ok {
		return
	}
	if err := x.tx.XGroupSetID(x.db(), x.arg(2), x.arg(3), id, dollar, entriesRead); err != nil {
		x.storeError(err)
		return
	}
	x.notify(notify.Stream, "xgroup-setid", x.arg(2))
	x.ok()
}

func cmdXGroupDestroy(x *ctx) {
	if !x.xgroupLookup(false, false) {
		return
	}
	ok, err := x.tx.XGroupDestroy(x.db(), x.arg(2), x.arg(3))
	if err == nil && ok {
		x.notify(notify.Stream, "xgroup-destroy", x.arg(2))
	}
	x.replyBool(ok, err)
}

func cmdXGroupCreateConsumer(x *ctx) {
	if !x.xgroupLookup(false, true) {
		return
	}
	ok, err := x.tx.XGroupCreateConsumer(x.db(), x.arg(2), x.arg(3), x.arg(4))
	if err == nil && ok {
		x.notify(notify.Stream, "xgroup-createconsumer", x.arg(2))
	}
	x.replyBool(ok, err)
}

func cmdXGroupDelConsumer(x *ctx) {
	if !x.xgroupLookup(false, true) {
		return
	}
	n, existed, err := x.tx.XGroupDelConsumer(x.db(), x.arg(2), x.arg(3), x.arg(4))
	if err == nil && existed {
		x.notify(notify.Stream, "xgroup-delconsumer", x.arg(2))
	}
	x.replyInt(n, err)
}

func cmdXGroupHelp(x *ctx) {
	x.helpReply("XGROUP",
		"CREATE <key> <groupname> <id|$> [option]",
		"    Create a new consumer group. Options are:",
		"    * MKSTREAM",
		"      Create the empty stream if it does not exist.",
		"    * ENTRIESREAD entries_read",
		"      Set the group's entries_read counter (internal use).",
		"CREATECONSUMER <key> <groupname> <consumer>",
		"    Create a new consumer in the specified group.",
		"DELCONSUMER <key> <groupname> <consumer>",
		"    Remove the specified consumer.",
		"DESTROY <key> <groupname>",
		"    Remove the specified group.",
		"SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
		"    Set the current group ID and entries_read counter.",
	)
}

func cmdXReadGroup(x *ctx) {
	var r xreadArgs
	var group, consumer []byte
	noack := false
	i := 1
	for ; i < len(x.args); i++ {
		more := len(x.args) - 1 - i
		o := x.arg(i)
		switch {
		case optIs(o, "BLOCK") && more > 0:
			if x.refuseScriptBlock() {
				return
			}
			i++
			ms, ok := rconv.ParseInt(x.arg(i))
			if !ok {
				x.errorReply("ERR timeout is not an integer or out of range")
				return
			}
			if !x.setBlock(&r, ms) {
				return
			}
		case optIs(o, "COUNT") && more > 0:
			i++
			n, ok := rconv.ParseInt(x.arg(i))
			if !ok {
				x.notInteger()
				return
			}
			r.count = max(n, 0)
		case optIs(o, "STREAMS") && more > 0:
			if more%2 != 0 {
				x.errorReply("ERR Unbalanced 'xreadgroup' list of streams: for each stream key an ID or '>' must be specified.")
				return
			}
			r.first = i + 1
			r.keys = x.args[i+1 : i+1+more/2]
			r.ids = x.args[i+1+more/2:]
		case optIs(o, "GROUP") && more >= 2:
			group, consumer = x.arg(i+1), x.arg(i+2)
			i += 2
		case optIs(o, "NOACK"):
			noack = true
		default:
			x.syntaxError()
			return
		}
		if r.keys != nil {
			break
		}
	}
	if r.keys == nil {
		x.syntaxError()
		return
	}
	if group == nil {
		x.errorReply("ERR Missing GROUP option for XREADGROUP")
		return
	}
	type want struct {
		start   store.StreamID
		history bool
	}
	wants := make([]want, len(r.keys))
	// One stream read with >, the common case: XReadGroup finds the
	// group missing itself, sparing a lookup of the group's record. With
	// several streams, or another id whose errors come after NOGROUP's,
	// every group is checked first, as Redis does.
	fast := len(r.keys) == 1 && len(r.ids[0]) == 1 && r.ids[0][0] == '>'
	for i, key := range r.keys {
		if fast {
			break
		}
		ok, err := x.tx.StreamGroupExists(x.db(), key, group)
		if err != nil {
			x.storeError(err)
			return
		}
		x.keyMiss(key)
		if !ok {
			// Also the reply of a blocked client whose stream was deleted
			// or group destroyed meanwhile: Redis 7.2 runs the command
			// again (7.0 replied -UNBLOCKED to a deletion).
			x.errorReply(noGroupRead(key, group))
			return
		}
		switch a := r.ids[i]; {
		case len(a) == 1 && a[0] == '$':
			x.errorReply("ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the history of this consumer by specifying a proper ID, or use the > ID to get new messages. The $ ID would just return an empty result set.")
			return
		case len(a) == 1 && a[0] == '+':
			x.errorReply("ERR The + ID is meaningless in the context of XREADGROUP: you want to read the history of this consumer by specifying a proper ID, or use the > ID to get new messages. The + ID would just return an empty result set.")
			return
		case len(a) == 1 && a[0] == '>':
		default:
			id, _, ok := x.parseStreamID(a, 0, true, false)
			if !ok {
				return
			}
			// Served from the id after it, as XREAD's. The largest id is
			// Redis's own mark of >, and reads as >.
			if next, ok := id.Next(); ok {
				wants[i] = want{start: next, history: true}
			}
		}
	}
	var out []servedStream
	for i, key := range r.keys {
		res, err := x.tx.XReadGroup(x.db(), key, group, consumer, wants[i].start, wants[i].history, r.count, noack, x.woken)
		if fast {
			x.keyMiss(key)
			if errors.Is(err, store.ErrNoGroup) {
				x.errorReply(noGroupRead(key, group))
				return
			}
		}
		if err != nil {
			x.storeError(err)
			return
		}
		if res.ConsumerCreated {
			x.notify(notify.Stream, "xgroup-createconsumer", key)
		}
		if wants[i].history || len(res.Entries) > 0 {
			out = append(out, servedStream{key, res.Entries})
		}
	}
	if len(out) > 0 {
		replyServed(x, out, groupEntries)
		return
	}
	if !r.block || x.inGroup() {
		x.w.NullArray()
		return
	}
	x.block(r.keys, r.timeout, func(x *ctx) { x.w.NullArray() })
}

// groupEntries is streamEntries where an entry deleted since it was
// delivered (nil Fields) is its id and a null.
func groupEntries(x *ctx, entries []store.StreamEntry) {
	x.w.Array(len(entries))
	var buf []byte
	for _, e := range entries {
		x.w.Array(2)
		buf = e.ID.AppendText(buf[:0])
		x.w.Bulk(buf)
		if e.Fields == nil {
			x.w.NullArray()
			continue
		}
		bulks(x, e.Fields)
	}
}

func cmdXAck(x *ctx) {
	// Redis looks the key and group up before it parses the ids.
	ok, err := x.tx.StreamGroupExists(x.db(), x.arg(1), x.arg(2))
	if err == nil {
		x.keyMiss(x.arg(1))
	}
	if err != nil || !ok {
		x.replyInt(0, err)
		return
	}
	ids, ok := x.parseStreamIDList(x.args[3:])
	if !ok {
		return
	}
	x.replyInt(x.tx.XAck(x.db(), x.arg(1), x.arg(2), ids))
}

func cmdXPending(x *ctx) {
	n := len(x.args)
	if n != 3 && (n < 6 || n > 9) {
		x.syntaxError()
		return
	}
	var start, end store.StreamID
	var count, minIdle int64
	var consumer []byte
	if n >= 6 {
		at := 3
		if optIs(x.arg(3), "IDLE") {
			v, ok := rconv.ParseInt(x.arg(4))
			if !ok {
				x.notInteger()
				return
			}
			minIdle = v
			if n < 8 {
				x.syntaxError()
				return
			}
			at += 2
		}
		c, ok := rconv.ParseInt(x.arg(at + 2))
		if !ok {
			x.notInteger()
			return
		}
		count = max(c, 0)
		var ex bool
		if start, ex, ok = x.parseIntervalID(x.arg(at), 0); !ok {
			return
		}
		if ex {
			if start, ok = start.Next(); !ok {
				x.errorReply("ERR invalid start ID for the interval")
				return
			}
		}
		if end, ex, ok = x.parseIntervalID(x.arg(at+1), math.MaxUint64); !ok {
			return
		}
		if ex {
			if end, ok = end.Prev(); !ok {
				x.errorReply("ERR invalid end ID for the interval")
				return
			}
		}
		if at+3 < n {
			consumer = x.arg(at + 3)
		}
	}
	x.keyMiss(x.arg(1))
	noGroup := "No such key '" + string(x.arg(1)) + "' or consumer group '" + string(x.arg(2)) + "'"
	if n == 3 {
		s, err := x.tx.XPendingSummary(x.db(), x.arg(1), x.arg(2))
		if err != nil {
			x.groupError(err, noGroup)
			return
		}
		x.w.Array(4)
		x.w.Int(s.Count)
		if s.Count == 0 {
			x.w.NullBulk()
			x.w.NullBulk()
			x.w.NullArray()
			return
		}
		x.w.Bulk(s.First.AppendText(nil))
		x.w.Bulk(s.Last.AppendText(nil))
		x.w.Array(len(s.Consumers))
		for _, c := range s.Consumers {
			x.w.Array(2)
			x.w.Bulk(c.Name)
			x.w.Bulk(rconv.AppendInt(nil, c.Pending))
		}
		return
	}
	entries, err := x.tx.XPendingRange(x.db(), x.arg(1), x.arg(2), start, end, count, minIdle, consumer)
	if err != nil {
		x.groupError(err, noGroup)
		return
	}
	x.w.Array(len(entries))
	for _, e := range entries {
		x.w.Array(4)
		x.w.Bulk(e.ID.AppendText(nil))
		x.w.Bulk(e.Consumer)
		x.w.Int(e.IdleMs)
		x.w.Int(e.Deliveries)
	}
}

// claimedEntries writes XCLAIM's and XAUTOCLAIM's claimed entries: ids
// alone with JUSTID, else entries.
func claimedEntries(x *ctx, entries []store.StreamEntry, justID bool) {
	if !justID {
		streamEntries(x, entries)
		return
	}
	x.w.Array(len(entries))
	for _, e := range entries {
		x.w.Bulk(e.ID.AppendText(nil))
	}
}

func cmdXClaim(x *ctx) {
	ok, err := x.tx.StreamGroupExists(x.db(), x.arg(1), x.arg(2))
	if err != nil {
		x.storeError(err)
		return
	}
	x.keyMiss(x.arg(1))
	if !ok {
		x.errorReply("NOGROUP No such key '" + string(x.arg(1)) + "' or consumer group '" + string(x.arg(2)) + "'")
		return
	}
	minIdle, ok := rconv.ParseInt(x.arg(4))
	if !ok {
		x.errorReply("ERR Invalid min-idle-time argument for XCLAIM")
		return
	}
	a := store.XClaimArgs{MinIdle: max(minIdle, 0), DeliveryMs: -1, RetryCount: -1}
	var ids []store.StreamID
	j := 5
	for ; j < len(x.args); j++ {
		id, ok := parseStrictIDQuiet(x.arg(j))
		if !ok {
			break
		}
		ids = append(ids, id)
	}
	now := x.tx.NowMs
	for ; j < len(x.args); j++ {
		more := len(x.args) - 1 - j
		opt := x.arg(j)
		switch {
		case optIs(opt, "FORCE"):
			a.Force = true
		case optIs(opt, "JUSTID"):
			a.JustID = true
		case optIs(opt, "IDLE") && more > 0:
			j++
			v, ok := rconv.ParseInt(x.arg(j))
			if !ok {
				x.errorReply("ERR Invalid IDLE option argument for XCLAIM")
				return
			}
			a.DeliveryMs = now - v
		case optIs(opt, "TIME") && more > 0:
			j++
			v, ok := rconv.ParseInt(x.arg(j))
			if !ok {
				x.errorReply("ERR Invalid TIME option argument for XCLAIM")
				return
			}
			a.DeliveryMs = v
		case optIs(opt, "RETRYCOUNT") && more > 0:
			j++
			v, ok := rconv.ParseInt(x.arg(j))
			if !ok {
				x.errorReply("ERR Invalid RETRYCOUNT option argument for XCLAIM")
				return
			}
			a.RetryCount = v
		case optIs(opt, "LASTID") && more > 0:
			j++
			if a.LastID, _, ok = x.parseStreamID(x.arg(j), 0, true, false); !ok {
				return
			}
		default:
			x.errorReply("ERR Unrecognized XCLAIM option '" + cstr(string(opt)) + "'")
			return
		}
	}
	entries, created, err := x.tx.XClaim(x.db(), x.arg(1), x.arg(2), x.arg(3), ids, &a)
	if err != nil {
		x.storeError(err)
		return
	}
	if created {
		x.notify(notify.Stream, "xgroup-createconsumer", x.arg(1))
	}
	claimedEntries(x, entries, a.JustID)
}

// parseStrictIDQuiet parses a strict id without replying.
func parseStrictIDQuiet(arg []byte) (store.StreamID, bool) {
	if len(arg) > 127 || (len(arg) == 1 && (arg[0] == '-' || arg[0] == '+')) {
		return store.StreamID{}, false
	}
	if i := bytes.IndexByte(arg, 0); i >= 0 {
		arg = arg[:i]
	}
	msPart, seqPart, dash := bytes.Cut(arg, []byte{'-'})
	ms, ok := parseULL(msPart)
	if !ok {
		return store.StreamID{}, false
	}
	var seq uint64
	if dash {
		if seq, ok = parseULL(seqPart); !ok {
			return store.StreamID{}, false
		}
	}
	return store.StreamID{Ms: ms, Seq: seq}, true
}

func cmdXAutoClaim(x *ctx) {
	minIdle, ok := rconv.ParseInt(x.arg(4))
	if !ok {
		x.errorReply("ERR Invalid min-idle-time argument for XAUTOCLAIM")
		return
	}
	start, ex, ok := x.parseIntervalID(x.arg(5), 0)
	if !ok {
		return
	}
	if ex {
		if start, ok = start.Next(); !ok {
			x.errorReply("ERR invalid start ID for the interval")
			return
		}
	}
	count, justID := int64(100), false
	for j := 6; j < len(x.args); j++ {
		more := len(x.args) - 1 - j
		switch opt := x.arg(j); {
		case optIs(opt, "COUNT") && more > 0:
			n, ok := rconv.ParseInt(x.arg(j + 1))
			if !ok || n < 1 || n > math.MaxInt64/16 {
				x.errorReply("ERR COUNT must be > 0")
				return
			}
			count = n
			j++
		case optIs(opt, "JUSTID"):
			justID = true
		default:
			x.syntaxError()
			return
		}
	}
	x.keyMiss(x.arg(1))
	r, err := x.tx.XAutoClaim(x.db(), x.arg(1), x.arg(2), x.arg(3), max(minIdle, 0), start, count, justID)
	if err != nil {
		x.groupError(err, "No such key '"+string(x.arg(1))+"' or consumer group '"+string(x.arg(2))+"'")
		return
	}
	if r.ConsumerCreated {
		x.notify(notify.Stream, "xgroup-createconsumer", x.arg(1))
	}
	x.w.Array(3)
	x.w.Bulk(r.Next.AppendText(nil))
	claimedEntries(x, r.Claimed, justID)
	x.w.Array(len(r.Deleted))
	for _, id := range r.Deleted {
		x.w.Bulk(id.AppendText(nil))
	}
}

// noGroupRead is XREADGROUP's error for a missing key or group.
func noGroupRead(key, group []byte) string {
	return "NOGROUP No such key '" + string(key) + "' or consumer group '" + string(group) + "' in XREADGROUP with GROUP option"
}
