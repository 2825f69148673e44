package server

import (
	"bytes"
	"math"
	"time"

	"github.com/cairndb/cairn/internal/command"
	"github.com/cairndb/cairn/internal/encoding"
	"github.com/cairndb/cairn/internal/notify"
	"github.com/cairndb/cairn/internal/rconv"
	"github.com/cairndb/cairn/internal/store"
)

const streamCat = command.CatStream

func streamCommands() []cmdEntry {
	one := keys{1, 1, 1}
	e := []cmdEntry{
		withTips(withKeyNotes(withKeyFlags(def("xadd", -5, write|denyoom|fast, one, streamCat, "stream", "5.0.0", "Appends a new message to a stream. Creates the key if it doesn't exist.", cmdXAdd), rw|upd),
			"UPDATE instead of INSERT because of the optional trimming feature"), tipOutput),
		withKeyFlags(def("xlen", 2, readonly|fast, one, streamCat, "stream", "5.0.0", "Return the number of messages in a stream.", cmdXLen), ro),
		withKeyFlags(def("xrange", -4, readonly, one, streamCat, "stream", "5.0.0", "Returns the messages from a stream within a range of IDs.", cmdXRange), ro|acc),
		withKeyFlags(def("xrevrange", -4, readonly, one, streamCat, "stream", "5.0.0", "Returns the messages from a stream within a range of IDs in reverse order.", cmdXRevRange), ro|acc),
		withKeyFlags(def("xdel", -3, write|fast, one, streamCat, "stream", "5.0.0", "Returns the number of messages after removing them from a stream.", cmdXDel), rw|del),
		withTips(withKeyFlags(def("xtrim", -4, write, one, streamCat, "stream", "5.0.0", "Deletes messages from the beginning of a stream.", cmdXTrim), rw|del), tipOutput),
		withKeyFlags(def("xsetid", -3, write|denyoom|fast, one, streamCat, "stream", "5.0.0", "An internal command for replicating stream values.", cmdXSetID), rw|upd),
		streamsKeysEntry(def("xread", -4, readonly|command.Blocking, noKeys, streamCat, "stream", "5.0.0", "Returns messages from multiple streams with IDs greater than the ones requested. Blocks until a message is available otherwise.", cmdXRead), 1),
	}
	for i := range e {
		s := e[i].spec
		switch s.Name {
		case "xadd":
			s.History = []command.HistoryEntry{
				{Since: "6.2.0", Changes: "Added the `NOMKSTREAM` option, `MINID` trimming strategy and the `LIMIT` option."},
				{Since: "7.0.0", Changes: "Added support for the `<ms>-*` explicit ID form."},
			}
		case "xrange", "xrevrange":
			s.History = []command.HistoryEntry{{Since: "6.2.0", Changes: "Added exclusive ranges."}}
		case "xtrim":
			s.History = []command.HistoryEntry{{Since: "6.2.0", Changes: "Added the `MINID` trimming strategy and the `LIMIT` option."}}
		case "xsetid":
			s.History = []command.HistoryEntry{{Since: "7.0.0", Changes: "Added the `entries_added` and `max_deleted_entry_id` arguments."}}
		}
	}
	return e
}

// streamsKeysEntry gives XREAD and XREADGROUP their keys: those after
// STREAMS (searched for from argument from), the first half of what
// follows it.
func streamsKeysEntry(e cmdEntry, from int) cmdEntry {
	e.spec.Flags |= command.MovableKeys
	e.spec.KeySpecs = []command.KeySpec{{Flags: ro | acc, Begin: command.KeywordSearch("STREAMS", from), Find: command.RangeKeys(-1, 1, 2)}}
	e.spec.KeysFunc = xreadKeys
	return e
}

// xreadKeys is Redis's xreadGetKeys: the keys after the first STREAMS
// (options before it take one argument each, but a key or id may be
// named STREAMS), none when the rest is of odd length.
func xreadKeys(args [][]byte) []int {
	for i := 1; i < len(args); i++ {
		if optIs(args[i], "STREAMS") {
			rest := len(args) - i - 1
			if rest == 0 || rest%2 != 0 {
				return nil
			}
			out := make([]int, 0, rest/2)
			for k := i + 1; k < i+1+rest/2; k++ {
				out = append(out, k)
			}
			return out
		}
	}
	return nil
}

// errInvalidStreamID is Redis's reply to an id it cannot parse.
const errInvalidStreamID = "ERR Invalid stream ID specified as stream command argument"

// parseULL is Redis's string2ull: a strict integer, or else what C's
// strtoull accepts in full (leading blanks, a sign, leading zeros).
func parseULL(b []byte) (uint64, bool) {
	if v, ok := rconv.ParseInt(b); ok {
		return uint64(v), v >= 0
	}
	i := 0
	for i < len(b) && (b[i] == ' ' || (b[i] >= '\t' && b[i] <= '\r')) {
		i++
	}
	neg := false
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	if i == len(b) {
		return 0, false
	}
	var v uint64
	for ; i < len(b); i++ {
		c := b[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		if v > (math.MaxUint64-uint64(c-'0'))/10 {
			return 0, false // ERANGE
		}
		v = v*10 + uint64(c-'0')
	}
	if neg {
		v = -v
	}
	return v, true
}

// parseStreamID is Redis's streamGenericParseIDOrReply: "-" and "+" (unless
// strict), "ms-seq", "ms" (seq = missingSeq) and, when seqStar, "ms-*"
// (seqGiven false). It replies on error.
func (x *ctx) parseStreamID(arg []byte, missingSeq uint64, strict, seqStar bool) (id store.StreamID, seqGiven, ok bool) {
	if len(arg) > 127 {
		x.errorReply(errInvalidStreamID)
		return id, false, false
	}
	if i := bytes.IndexByte(arg, 0); i >= 0 {
		arg = arg[:i] // the C string ends there
	}
	if len(arg) == 1 && (arg[0] == '-' || arg[0] == '+') {
		if strict {
			x.errorReply(errInvalidStreamID)
			return id, false, false
		}
		if arg[0] == '+' {
			return encoding.MaxStreamID, true, true
		}
		return id, true, true
	}
	msPart, seqPart, dash := bytes.Cut(arg, []byte{'-'})
	ms, ok := parseULL(msPart)
	if !ok {
		x.errorReply(errInvalidStreamID)
		return id, false, false
	}
	seq, seqGiven := missingSeq, true
	if dash {
		if seqStar && len(seqPart) == 1 && seqPart[0] == '*' {
			seq, seqGiven = 0, false
		} else if seq, ok = parseULL(seqPart); !ok {
			x.errorReply(errInvalidStreamID)
			return id, false, false
		}
	}
	return store.StreamID{Ms: ms, Seq: seq}, seqGiven, true
}

// parseIntervalID parses a range bound, with Redis's exclusive "(" prefix.
func (x *ctx) parseIntervalID(arg []byte, missingSeq uint64) (id store.StreamID, exclusive, ok bool) {
	if len(arg) > 1 && arg[0] == '(' {
		id, _, ok = x.parseStreamID(arg[1:], missingSeq, true, false)
		return id, true, ok
	}
	id, _, ok = x.parseStreamID(arg, missingSeq, false, false)
	return id, false, ok
}

// streamEntries writes entries as Redis does: each an array of its id and
// its fields and values.
// parseStreamIDList parses the ids XDEL and XACK take, replying on a bad
// one.
func (x *ctx) parseStreamIDList(args [][]byte) ([]store.StreamID, bool) {
	ids := make([]store.StreamID, 0, len(args))
	for _, a := range args {
		id, _, ok := x.parseStreamID(a, 0, true, false)
		if !ok {
			return nil, false
		}
		ids = append(ids, id)
	}
	return ids, true
}

// servedStream is one stream's part of XREAD's or XREADGROUP's reply.
type servedStream struct {
	key     []byte
	entries []store.StreamEntry
}

// replyServed writes XREAD's and XREADGROUP's reply: each stream's key and
// its entries (written by entries), in a map under RESP3.
func replyServed(x *ctx, out []servedStream, entries func(*ctx, []store.StreamEntry)) {
	if x.w.Protocol() >= 3 {
		x.w.Map(len(out))
	} else {
		x.w.Array(len(out))
	}
	for _, s := range out {
		if x.w.Protocol() < 3 {
			x.w.Array(2)
		}
		x.w.Bulk(s.key)
		entries(x, s.entries)
	}
}

func streamEntries(x *ctx, entries []store.StreamEntry) {
	x.w.Array(len(entries))
	var buf []byte
	for _, e := range entries {
		x.w.Array(2)
		buf = e.ID.AppendText(buf[:0])
		x.w.Bulk(buf)
		bulks(x, e.Fields)
	}
}

// parseTrim parses the options of XADD (xadd) and XTRIM from argument 2 on
// as Redis's streamParseAddOrTrimArgsOrReply does. For XADD it stops at the
// id, whose position it returns with the id itself.
func (x *ctx) parseTrim(xadd bool) (t store.StreamTrim, a store.XAddArgs, idpos int, ok bool) {
	approx, limitGiven := false, false
	i := 2
	for ; i < len(x.args); i++ {
		more := len(x.args) - 1 - i
		opt := x.arg(i)
		switch {
		case xadd && len(opt) == 1 && opt[0] == '*':
			return t, a, i, x.checkTrim(&t, xadd, approx, limitGiven)
		case optIs(opt, "MAXLEN") && more > 0, optIs(opt, "MINID") && more > 0:
			if t.Strategy != store.TrimNone {
				x.errorReply("ERR syntax error, MAXLEN and MINID options at the same time are not compatible")
				return t, a, 0, false
			}
			approx = false
			if next := x.arg(i + 1); more >= 2 && len(next) == 1 && (next[0] == '~' || next[0] == '=') {
				approx = next[0] == '~'
				i++
			}
			if optIs(opt, "MAXLEN") {
				n, ok := rconv.ParseInt(x.arg(i + 1))
				if !ok {
					x.notInteger()
					return t, a, 0, false
				}
				if n < 0 {
					x.errorReply("ERR The MAXLEN argument must be >= 0.")
					return t, a, 0, false
				}
				t.Strategy, t.MaxLen = store.TrimMaxLen, n
			} else {
				id, _, ok := x.parseStreamID(x.arg(i+1), 0, true, false)
				if !ok {
					return t, a, 0, false
				}
				t.Strategy, t.MinID = store.TrimMinID, id
			}
			i++
		case optIs(opt, "LIMIT") && more > 0:
			n, ok := rconv.ParseInt(x.arg(i + 1))
			if !ok {
				x.notInteger()
				return t, a, 0, false
			}
			if n < 0 {
				x.errorReply("ERR The LIMIT argument must be >= 0.")
				return t, a, 0, false
			}
			t.Limit, limitGiven = n, true
			i++
		case xadd && optIs(opt, "NOMKSTREAM"):
			a.NoMkStream = true
		case xadd:
			id, seqGiven, ok := x.parseStreamID(opt, 0, true, true)
			if !ok {
				return t, a, 0, false
			}
			a.ID, a.IDGiven, a.SeqGiven = id, true, seqGiven
			return t, a, i, x.checkTrim(&t, xadd, approx, limitGiven)
		default:
			x.syntaxError()
			return t, a, 0, false
		}
	}
	return t, a, i, x.checkTrim(&t, xadd, approx, limitGiven)
}

// checkTrim finishes parseTrim with Redis's checks of the combination.
func (x *ctx) checkTrim(t *store.StreamTrim, xadd, approx, limitGiven bool) bool {
	// Redis's nodes, which ~ trims whole, are emulated with this size.
	t.Node = x.srv.cfg.StreamNodeMaxEntries()
	switch {
	case t.Limit != 0 && t.Strategy == store.TrimNone:
		x.errorReply("ERR syntax error, LIMIT cannot be used without specifying a trimming strategy")
		return false
	case !xadd && t.Strategy == store.TrimNone:
		x.errorReply("ERR syntax error, XTRIM must be called with a trimming strategy")
		return false
	case x.srv.isMasterClient(x.cl):
		// The master rewrote ~ to = with the exact threshold and left
		// any LIMIT: a replica trims to it without a limit, as Redis
		// does for a client it must obey.
		t.Limit = 0
		t.Approx = approx
	case limitGiven && !approx:
		x.errorReply("ERR syntax error, LIMIT cannot be used without the special ~ option")
		return false
	case approx && limitGiven:
		t.Approx = true
	case approx && !limitGiven:
		// At most 100 of Redis's nodes, within [1, 1000000].
		n := t.Node
		t.Approx = true
		switch {
		case n <= 0:
			t.Limit = 10000
		case n > 10000:
			t.Limit = 1000000
		default:
			t.Limit = 100 * n
		}
	}
	return true
}

func cmdXAdd(x *ctx) {
	t, a, idpos, ok := x.parseTrim(true)
	if !ok {
		return
	}
	fields := len(x.args) - idpos - 1
	if fields < 2 || fields%2 == 1 {
		x.errorReply("ERR wrong number of arguments for 'xadd' command")
		return
	}
	if a.IDGiven && a.SeqGiven && a.ID.IsZero() {
		x.errorReply("ERR The ID specified in XADD must be greater than 0-0")
		return
	}
	a.Trim = t
	a.Fields = x.args[idpos+1:]
	id, added, trimmed, err := x.tx.XAdd(x.db(), x.arg(1), &a)
	switch {
	case err != nil:
		x.storeError(err)
	case !added:
		x.w.NullBulk()
	default:
		x.w.Bulk(id.AppendText(nil))
		x.notify(notify.Stream, "xadd", x.arg(1))
		if trimmed > 0 {
			x.notify(notify.Stream, "xtrim", x.arg(1))
		}
	}
}

func cmdXLen(x *ctx) {
	n, ok, err := x.tx.XLen(x.db(), x.arg(1))
	x.missedIf(err == nil && !ok, x.arg(1))
	x.replyInt(n, err)
}

func cmdXRange(x *ctx)    { xrange(x, false) }
func cmdXRevRange(x *ctx) { xrange(x, true) }

// xrange runs XRANGE and XREVRANGE (rev: the end comes first).
func xrange(x *ctx, rev bool) {
	startArg, endArg := x.arg(2), x.arg(3)
	if rev {
		startArg, endArg = endArg, startArg
	}
	start, ex, ok := x.parseIntervalID(startArg, 0)
	if !ok {
		return
	}
	if ex {
		if start, ok = start.Next(); !ok {
			x.errorReply("ERR invalid start ID for the interval")
			return
		}
	}
	end, ex, ok := x.parseIntervalID(endArg, math.MaxUint64)
	if !ok {
		return
	}
	if ex {
		if end, ok = end.Prev(); !ok {
			x.errorReply("ERR invalid end ID for the interval")
			return
		}
	}
	count := int64(-1)
	for i := 4; i < len(x.args); i++ {
		if !optIs(x.arg(i), "COUNT") || i+1 >= len(x.args) {
			x.syntaxError()
			return
		}
		i++
		n, ok := rconv.ParseInt(x.arg(i))
		if !ok {
			x.notInteger()
			return
		}
		count = max(n, 0)
	}
	if count == 0 {
		// Redis checks the key first: an absent one is an empty array, a
		// wrong one WRONGTYPE.
		_, exists, err := x.tx.XLen(x.db(), x.arg(1))
		switch {
		case err != nil:
			x.storeError(err)
		case !exists:
			x.missed(x.arg(1))
			x.w.Array(0)
		default:
			x.w.NullArray()
		}
		return
	}
	entries, exists, err := x.tx.XRange(x.db(), x.arg(1), start, end, max(count, 0), rev)
	if err != nil {
		x.storeError(err)
		return
	}
	x.missedIf(!exists, x.arg(1))
	streamEntries(x, entries)
}

func cmdXDel(x *ctx) {
	// Redis looks the key up before it parses the ids.
	_, exists, err := x.tx.XLen(x.db(), x.arg(1))
	if err != nil || !exists {
		x.replyInt(0, err)
		return
	}
	ids, ok := x.parseStreamIDList(x.args[2:])
	if !ok {
		return
	}
	n, err := x.tx.XDel(x.db(), x.arg(1), ids, x.srv.cfg.StreamNodeMaxEntries())
	if err == nil && n > 0 {
		x.notify(notify.Stream, "xdel", x.arg(1))
	}
	x.replyInt(n, err)
}

func cmdXTrim(x *ctx) {
	t, _, _, ok := x.parseTrim(false)
	if !ok {
		return
	}
	n, err := x.tx.XTrim(x.db(), x.arg(1), &t)
	if err == nil && n > 0 {
		x.notify(notify.Stream, "xtrim", x.arg(1))
	}
	x.replyInt(n, err)
}

func cmdXSetID(x *ctx) {
	id, _, ok := x.parseStreamID(x.arg(2), 0, true, false)
	if !ok {
		return
	}
	added := int64(-1)
	var maxDel store.StreamID
	for i := 3; i < len(x.args); i += 2 {
		more := len(x.args) - 1 - i
		switch {
		case optIs(x.arg(i), "ENTRIESADDED") && more > 0:
			n, ok := rconv.ParseInt(x.arg(i + 1))
			if !ok {
				x.notInteger()
				return
			}
			if n < 0 {
				x.errorReply("ERR entries_added must be positive")
				return
			}
			added = n
		case optIs(x.arg(i), "MAXDELETEDID") && more > 0:
			if maxDel, _, ok = x.parseStreamID(x.arg(i+1), 0, true, false); !ok {
				return
			}
			if id.Compare(maxDel) < 0 {
				x.errorReply("ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id")
				return
			}
		default:
			x.syntaxError()
			return
		}
	}
	if err := x.tx.XSetID(x.db(), x.arg(1), id, added, maxDel); err != nil {
		x.storeError(err)
		return
	}
	x.notify(notify.Stream, "xsetid", x.arg(1))
	x.ok()
}

// xreadArgs is a parsed XREAD.
type xreadArgs struct {
	count   int64
	block   bool
	timeout time.Duration
	// keys and ids are the arguments after STREAMS; first is the index of
	// the first key.
	keys, ids [][]byte
	first     int
}

// refuseScriptBlock answers a BLOCK option inside a script with Redis's
// error (inside MULTI it is allowed and does not wait).
func (x *ctx) refuseScriptBlock() bool {
	if x.group == nil || x.group.kind == groupMulti {
		return false
	}
	x.errorReply("ERR " + string(x.arg(0)) + " command is not allowed with BLOCK option from scripts")
	return true
}

// parseXRead parses XREAD's options as Redis's xreadCommand does.
func (x *ctx) parseXRead() (r xreadArgs, ok bool) {
	for i := 1; i < len(x.args); i++ {
		more := len(x.args) - 1 - i
		o := x.arg(i)
		switch {
		case optIs(o, "BLOCK") && more > 0:
			if x.refuseScriptBlock() {
				return r, false
			}
			i++
			ms, ok := rconv.ParseInt(x.arg(i))
			if !ok {
				x.errorReply("ERR timeout is not an integer or out of range")
				return r, false
			}
			if !x.setBlock(&r, ms) {
				return r, false
			}
		case optIs(o, "COUNT") && more > 0:
			i++
			n, ok := rconv.ParseInt(x.arg(i))
			if !ok {
				x.notInteger()
				return r, false
			}
			r.count = max(n, 0)
		case optIs(o, "STREAMS") && more > 0:
			if more%2 != 0 {
				x.errorReply("ERR Unbalanced 'xread' list of streams: for each stream key an ID, '+', or '$' must be specified.")
				return r, false
			}
			r.first = i + 1
			r.keys = x.args[i+1 : i+1+more/2]
			r.ids = x.args[i+1+more/2:]
			return r, true
		case optIs(o, "GROUP") && more >= 2:
			x.errorReply("ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.")
			return r, false
		case optIs(o, "NOACK"):
			x.errorReply("ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.")
			return r, false
		default:
			x.syntaxError()
			return r, false
		}
	}
	x.syntaxError()
	return r, false
}

func cmdXRead(x *ctx) {
	r, ok := x.parseXRead()
	if !ok {
		return
	}
	after := make([]store.StreamID, len(r.keys))
	// resolved marks the ids given as $ or +, which a blocked client must
	// keep as they were when it blocked.
	resolved := make([]bool, len(r.keys))
	for i, key := range r.keys {
		s, _, exists, err := x.tx.StreamMeta(x.db(), key)
		if err != nil && !(x.woken && err == store.ErrWrongType) {
			x.storeError(err)
			return
		}
		x.missedIf(err == nil && !exists, key)
		switch arg := r.ids[i]; {
		case len(arg) == 1 && arg[0] == '$':
			if exists {
				after[i] = s.LastID
			}
			resolved[i] = true
		case len(arg) == 1 && arg[0] == '+':
			if exists {
				if after[i], ok = s.LastID.Prev(); !ok {
					x.errorReply("ERR the stream last element ID is 0-0")
					return
				}
			}
			resolved[i] = true
		case len(arg) == 1 && arg[0] == '>':
			x.errorReply("ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer> option.")
			return
		default:
			id, _, ok := x.parseStreamID(arg, 0, true, false)
			if !ok {
				return
			}
			after[i] = id
		}
	}
	var out []servedStream
	for i, key := range r.keys {
		start, ok := after[i].Next()
		if !ok {
			continue
		}
		entries, exists, err := x.tx.XRange(x.db(), key, start, encoding.MaxStreamID, r.count, false)
		// Redis looks each key up a second time to serve it.
		x.missedIf(err == nil && !exists, key)
		if err == store.ErrWrongType && x.woken {
			continue
		}
		if err != nil {
			x.storeError(err)
			return
		}
		if len(entries) > 0 {
			out = append(out, servedStream{key, entries})
		}
	}
	if len(out) > 0 {
		replyServed(x, out, streamEntries)
		return
	}
	if !r.block || x.inGroup() {
		x.w.NullArray()
		return
	}
	// Waiting: the ids given as $ or + keep the values they had now, so
	// that the runs after a wake-up serve what came after.
	for i := range r.keys {
		if resolved[i] {
			x.args[r.first+len(r.keys)+i] = after[i].AppendText(nil)
		}
	}
	x.block(r.keys, r.timeout, func(x *ctx) { x.w.NullArray() })
}

// setBlock sets BLOCK's timeout of ms milliseconds (0: forever), replying
// Redis's errors for a negative or too large one.
func (x *ctx) setBlock(r *xreadArgs, ms int64) bool {
	if ms < 0 {
		x.errorReply("ERR timeout is negative")
		return false
	}
	if ms > math.MaxInt64-time.Now().UnixMilli() {
		x.errorReply("ERR timeout is out of range")
		return false
	}
	r.block = true
	if ms < int64(math.MaxInt64/time.Millisecond) {
		r.timeout = time.Duration(ms) * time.Millisecond
	}
	return true
}
