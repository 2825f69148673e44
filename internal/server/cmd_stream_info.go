package server

import (
	"github.com/cairndb/cairn/internal/command"
	"github.com/cairndb/cairn/internal/rconv"
	"github.com/cairndb/cairn/internal/store"
)

// XINFO STREAM [FULL [COUNT n]], GROUPS, CONSUMERS and HELP.

func streamInfoCommands() []cmdEntry {
	two := keys{2, 2, 1}
	e := container("xinfo", "stream", "5.0.0", "A container for stream introspection commands.", 0,
		withTips(withKeyFlags(def("xinfo|consumers", 4, readonly, two, streamCat, "stream", "5.0.0", "Returns a list of the consumers in a consumer group.", cmdXInfoConsumers), ro|acc), tipOutput),
		withKeyFlags(def("xinfo|groups", 3, readonly, two, streamCat, "stream", "5.0.0", "Returns a list of the consumer groups of a stream.", cmdXInfoGroups), ro|acc),
		def("xinfo|help", 2, loading|stale, noKeys, streamCat, "stream", "5.0.0", "Returns helpful text about the different subcommands.", cmdXInfoHelp),
		withKeyFlags(def("xinfo|stream", -3, readonly, two, streamCat, "stream", "5.0.0", "Returns information about a stream.", cmdXInfoStream), ro|acc),
	)
	for _, s := range e.subs {
		switch s.spec.Name {
		case "xinfo|consumers":
			s.spec.History = []command.HistoryEntry{{Since: "7.2.0", Changes: "Added the `inactive` field, and changed the meaning of `idle`."}}
		case "xinfo|groups":
			s.spec.History = []command.HistoryEntry{{Since: "7.0.0", Changes: "Added the `entries-read` and `lag` fields"}}
		case "xinfo|stream":
			s.spec.History = []command.HistoryEntry{
				{Since: "6.0.0", Changes: "Added the `FULL` modifier."},
				{Since: "7.0.0", Changes: "Added the `max-deleted-entry-id`, `entries-added`, `recorded-first-entry-id`, `entries-read` and `lag` fields"},
				{Since: "7.2.0", Changes: "Added the `active-time` field, and changed the meaning of `seen-time`."},
			}
		}
	}
	return []cmdEntry{e}
}

func cmdXInfoHelp(x *ctx) {
	x.helpReply("XINFO",
		"CONSUMERS <key> <groupname>",
		"    Show consumers of <groupname>.",
		"GROUPS <key>",
		"    Show the stream consumer groups.",
		"STREAM <key> [FULL [COUNT <count>]",
		"    Show information about the stream.",
	)
}

// bulkStr writes a bulk string.
func (x *ctx) bulkStr(s string) { x.w.Bulk([]byte(s)) }

func (x *ctx) bulkID(id store.StreamID) { x.w.Bulk(id.AppendText(nil)) }

// entryOrNull writes one entry as [id, fields], or a null.
func (x *ctx) entryOrNull(e *store.StreamEntry) {
	if e == nil {
		x.w.NullBulk()
		return
	}
	x.w.Array(2)
	x.bulkID(e.ID)
	bulks(x, e.Fields)
}

// groupFields writes the fields XINFO GROUPS and STREAM FULL share.
func (x *ctx) entriesReadAndLag(g *store.GroupInfo) {
	x.bulkStr("entries-read")
	if g.EntriesRead != store.InvalidEntriesRead {
		x.w.Int(g.EntriesRead)
	} else {
		x.w.NullBulk()
	}
	x.bulkStr("lag")
	if g.LagKnown {
		x.w.Int(g.Lag)
	} else {
		x.w.NullBulk()
	}
}

func cmdXInfoGroups(x *ctx) {
	groups, ok, err := x.tx.XInfoGroups(x.db(), x.arg(2))
	switch {
	case err != nil:
		x.storeError(err)
		return
	case !ok:
		x.missed(x.arg(2))
		x.storeError(store.ErrNoSuchKey)
		return
	}
	x.w.Array(len(groups))
	for i := range groups {
		g := &groups[i]
		x.w.Map(6)
		x.bulkStr("name")
		x.w.Bulk(g.Name)
		x.bulkStr("consumers")
		x.w.Int(int64(g.Consumers))
		x.bulkStr("pending")
		x.w.Int(int64(g.Pending))
		x.bulkStr("last-delivered-id")
		x.bulkID(g.LastID)
		x.entriesReadAndLag(g)
	}
}

func cmdXInfoConsumers(x *ctx) {
	cs, err := x.tx.XInfoConsumers(x.db(), x.arg(2), x.arg(3))
	x.missedIf(err == store.ErrNoSuchKey, x.arg(2))
	if err != nil {
		x.groupError(err, "No such consumer group '"+string(x.arg(3))+"' for key name '"+string(x.arg(2))+"'")
		return
	}
	now := x.tx.NowMs
	x.w.Array(len(cs))
	for _, c := range cs {
		x.w.Map(4)
		x.bulkStr("name")
		x.w.Bulk(c.Name)
		x.bulkStr("pending")
		x.w.Int(int64(c.Pending))
		x.bulkStr("idle")
		x.w.Int(max(now-c.SeenMs, 0))
		x.bulkStr("inactive")
		if c.ActiveMs != -1 {
			x.w.Int(now - c.ActiveMs)
		} else {
			x.w.Int(-1)
		}
	}
}

// radixTree is what XINFO STREAM reports as radix-tree-keys and -nodes.
// Cairn has no radix tree: it reports what Redis would for a stream whose
// entries filled its nodes in turn (stream-node-max-entries each).
func (x *ctx) radixTree(length uint64) (keys, nodes int64) {
	per := uint64(max(x.srv.cfg.StreamNodeMaxEntries(), 1))
	keys = int64((length + per - 1) / per)
	return keys, keys + 1
}

func cmdXInfoStream(x *ctx) {
	key := x.arg(2)
	// Redis looks the key up before it reads the options.
	info, ok, err := x.tx.XInfoStream(x.db(), key)
	switch {
	case err != nil:
		x.storeError(err)
		return
	case !ok:
		x.missed(key)
		x.storeError(store.ErrNoSuchKey)
		return
	}
	full, count := false, int64(10)
	if opts := x.args[3:]; len(opts) > 0 {
		if (len(opts) != 1 && len(opts) != 3) || !optIs(opts[0], "FULL") {
			x.subcommandSyntaxError()
			return
		}
		full = true
		if len(opts) == 3 {
			if !optIs(opts[1], "COUNT") {
				x.subcommandSyntaxError()
				return
			}
			n, ok := rconv.ParseInt(opts[2])
			if !ok {
				x.notInteger()
				return
			}
			if n < 0 {
				n = 10
			}
			count = n
		}
	}
	var entries []store.StreamEntry
	var groups []store.FullGroup
	if full {
		if info, entries, groups, _, err = x.tx.XInfoStreamFull(x.db(), key, count); err != nil {
			x.storeError(err)
			return
		}
	}
	if full {
		x.w.Map(9)
	} else {
		x.w.Map(10)
	}
	keys, nodes := x.radixTree(info.Length)
	x.bulkStr("length")
	x.w.Int(int64(info.Length))
	x.bulkStr("radix-tree-keys")
	x.w.Int(keys)
	x.bulkStr("radix-tree-nodes")
	x.w.Int(nodes)
	x.bulkStr("last-generated-id")
	x.bulkID(info.LastID)
	x.bulkStr("max-deleted-entry-id")
	x.bulkID(info.MaxDeletedID)
	x.bulkStr("entries-added")
	x.w.Int(int64(info.EntriesAdded))
	x.bulkStr("recorded-first-entry-id")
	x.bulkID(info.FirstID)
	if !full {
		x.bulkStr("groups")
		x.w.Int(int64(len(info.Groups)))
		x.bulkStr("first-entry")
		x.entryOrNull(info.First)
		x.bulkStr("last-entry")
		x.entryOrNull(info.Last)
		return
	}
	x.bulkStr("entries")
	streamEntries(x, entries)
	x.bulkStr("groups")
	x.w.Array(len(groups))
	for i := range groups {
		g := &groups[i]
		x.w.Map(7)
		x.bulkStr("name")
		x.w.Bulk(g.Name)
		x.bulkStr("last-delivered-id")
		x.bulkID(g.LastID)
		x.entriesReadAndLag(&g.GroupInfo)
		x.bulkStr("pel-count")
		x.w.Int(int64(g.GroupInfo.Pending))
		x.bulkStr("pending")
		x.w.Array(len(g.Pending))
		for _, p := range g.Pending {
			x.w.Array(4)
			x.bulkID(p.ID)
			x.w.Bulk(p.Consumer)
			x.w.Int(p.DeliveryMs)
			x.w.Int(int64(p.Count))
		}
		x.bulkStr("consumers")
		x.w.Array(len(g.Consumers))
		for _, c := range g.Consumers {
			x.w.Map(5)
			x.bulkStr("name")
			x.w.Bulk(c.Name)
			x.bulkStr("seen-time")
			x.w.Int(c.SeenMs)
			x.bulkStr("active-time")
			x.w.Int(c.ActiveMs)
			x.bulkStr("pel-count")
			x.w.Int(int64(c.ConsumerInfo.Pending))
			x.bulkStr("pending")
			x.w.Array(len(c.Pending))
			for _, p := range c.Pending {
				x.w.Array(3)
				x.bulkID(p.ID)
				x.w.Int(p.DeliveryMs)
				x.w.Int(int64(p.Count))
			}
		}
	}
}
