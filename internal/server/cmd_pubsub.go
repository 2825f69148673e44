package server

import (
	"bytes"
	"strings"
	"sync/atomic"

	"github.com/cairndb/cairn/internal/command"
	"github.com/cairndb/cairn/internal/pubsub"
)

// Pub/sub, as Redis's src/pubsub.c: one code path, parameterised by the
// kind of channel, serves SUBSCRIBE/PUBLISH and their shard twins
// SSUBSCRIBE/SPUBLISH; patterns are for global channels only. The registry
// is package pubsub; messages reach subscribers as pushes (push.go).

const psCat = command.CatPubSub

// pubsubState is the server's pub/sub registry and figures.
type pubsubState struct {
	hub *pubsub.Hub[*client]
	// obufDisconnects counts clients closed for their output buffer limit
	// (INFO's client_output_buffer_limit_disconnections).
	obufDisconnects atomic.Int64
}

func (s *Server) initPubSub() { s.ps.hub = pubsub.New[*client]() }

// kindNames are the words of a kind's replies and messages, as Redis's
// pubsubtype holds them.
var kindNames = [2]struct{ subscribe, unsubscribe, message string }{
	pubsub.Global: {"subscribe", "unsubscribe", "message"},
	pubsub.Shard:  {"ssubscribe", "sunsubscribe", "smessage"},
}

// pubsubArgs are the commands' documented arguments (COMMAND DOCS), as
// Redis 7.0.15 describes them, in commandArgs's syntax.
var pubsubArgs = map[string]string{
	"subscribe":            `channel...`,
	"unsubscribe":          `[channel]...`,
	"psubscribe":           `pattern=(pattern:pattern)...`,
	"punsubscribe":         `[pattern:pattern]...`,
	"publish":              `channel message`,
	"ssubscribe":           `shardchannel...`,
	"sunsubscribe":         `[shardchannel]...`,
	"spublish":             `shardchannel message`,
	"pubsub|channels":      `[pattern:pattern]`,
	"pubsub|numsub":        `[channel]...`,
	"pubsub|shardchannels": `[pattern:pattern]`,
	"pubsub|shardnumsub":   `[shardchannel]...`,
}

// withPubsubArgs sets the documented arguments of a command and its
// subcommands from pubsubArgs.
func withPubsubArgs(e cmdEntry) cmdEntry {
	if syntax, ok := pubsubArgs[e.spec.Name]; ok {
		e.spec.Args = command.MustParseArgs(syntax)
	}
	for i := range e.subs {
		e.subs[i] = withPubsubArgs(e.subs[i])
	}
	return e
}

func pubsubCommands() []cmdEntry {
	const subFlags = command.PubSub | noscript | loading | stale
	shardKeys := func(e cmdEntry, last int) cmdEntry {
		// Redis gives the shard commands their channels as key specs
		// flagged not_key: cluster routing uses them, nothing locks them.
		e.spec.KeySpecs = []command.KeySpec{{Flags: command.KeyNotKey, Begin: command.IndexSearch(1), Find: command.RangeKeys(last, 1, 0)}}
		return e
	}
	cmds := []cmdEntry{
		def("subscribe", -2, subFlags, noKeys, psCat, "pubsub", "2.0.0", "Listens for messages published to channels.", cmdSubscribe),
		def("unsubscribe", -1, subFlags, noKeys, psCat, "pubsub", "2.0.0", "Stops listening to messages posted to channels.", cmdUnsubscribe),
		def("psubscribe", -2, subFlags, noKeys, psCat, "pubsub", "2.0.0", "Listens for messages published to channels that match one or more patterns.", cmdPSubscribe),
		def("punsubscribe", -1, subFlags, noKeys, psCat, "pubsub", "2.0.0", "Stops listening to messages published to channels that match one or more patterns.", cmdPUnsubscribe),
		// Redis flags PUBLISH and SPUBLISH may_replicate but hides that
		// flag from COMMAND INFO; Cairn, which does not replicate yet,
		// leaves it off so that COMMAND INFO matches.
		def("publish", 3, command.PubSub|loading|stale|fast, noKeys, psCat, "pubsub", "2.0.0", "Posts a message to a channel.", cmdPublish),
		shardKeys(def("ssubscribe", -2, subFlags, noKeys, psCat, "pubsub", "7.0.0", "Listens for messages published to shard channels.", cmdSSubscribe), -1),
		shardKeys(def("sunsubscribe", -1, subFlags, noKeys, psCat, "pubsub", "7.0.0", "Stops listening to messages posted to shard channels.", cmdSUnsubscribe), -1),
		shardKeys(def("spublish", 3, command.PubSub|loading|stale|fast, noKeys, psCat, "pubsub", "7.0.0", "Post a message to a shard channel", cmdSPublish), 0),
		container("pubsub", "pubsub", "2.8.0", "A container for Pub/Sub commands.", 0,
			def("pubsub|channels", -2, command.PubSub|loading|stale, noKeys, psCat, "pubsub", "2.8.0", "Returns the active channels.", cmdPubsubChannels),
			def("pubsub|numpat", 2, command.PubSub|loading|stale, noKeys, psCat, "pubsub", "2.8.0", "Returns a count of unique pattern subscriptions.", cmdPubsubNumPat),
			def("pubsub|numsub", -2, command.PubSub|loading|stale, noKeys, psCat, "pubsub", "2.8.0", "Returns a count of subscribers to channels.", cmdPubsubNumSub),
			def("pubsub|shardchannels", -2, command.PubSub|loading|stale, noKeys, psCat, "pubsub", "7.0.0", "Returns the active shard channels.", cmdPubsubShardChannels),
			def("pubsub|shardnumsub", -2, command.PubSub|loading|stale, noKeys, psCat, "pubsub", "7.0.0", "Returns the count of subscribers of shard channels.", cmdPubsubShardNumSub),
			def("pubsub|help", 2, loading|stale, noKeys, 0, "pubsub", "6.2.0", "Returns helpful text about the different subcommands.", cmdPubsubHelp),
		),
	}
	for i := range cmds {
		cmds[i] = withPubsubArgs(cmds[i])
	}
	return cmds
}

// subscribedModeError is Redis's refusal of a command from a RESP2 client
// with subscriptions, or "" when the command may run: in RESP2 such a
// connection carries only messages and (un)subscription replies.
func (c *client) subscribedModeError(spec *command.Spec) string {
	if !c.pubsubMode.Load() || c.resp3.Load() {
		return ""
	}
	switch spec.Name {
	case "ping", "subscribe", "ssubscribe", "unsubscribe", "sunsubscribe", "psubscribe", "punsubscribe", "quit", "reset":
		return ""
	}
	return "ERR Can't execute '" + spec.Name + "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context"
}

// replySubscription writes one (un)subscription confirmation: kind, the
// channel or pattern (nil when unsubscribing from nothing), and the count.
// CLIENT REPLY OFF and SKIP do not silence it: Redis 7 writes it as a push
// (CLIENT_PUSHING), which they let through, and a client that waits for it
// would otherwise hang.
func (x *ctx) replySubscription(kind string, name []byte, count int) {
	defer x.w.ResumeDiscard(x.w.PauseDiscard())
	x.w.Push(3)
	x.w.BulkString(kind)
	if name == nil {
		x.w.NullBulk()
	} else {
		x.w.Bulk(name)
	}
	x.w.Int(int64(count))
}

func (x *ctx) replySubscriptionString(kind, name string, count int) {
	defer x.w.ResumeDiscard(x.w.PauseDiscard())
	x.w.Push(3)
	x.w.BulkString(kind)
	x.w.BulkString(name)
	x.w.Int(int64(count))
}

// updatePubSubMode sets or clears the client's subscribed mode (Redis's
// CLIENT_PUBSUB) after its subscriptions changed.
func (x *ctx) updatePubSubMode() {
	x.cl.pubsubMode.Store(x.srv.ps.hub.Subscribed(x.cl))
}

func subscribeKind(x *ctx, k pubsub.Kind) {
	for _, ch := range x.args[1:] {
		_, n := x.srv.ps.hub.Subscribe(x.cl, k, string(ch))
		x.replySubscription(kindNames[k].subscribe, ch, n)
	}
	x.updatePubSubMode()
}

func unsubscribeKind(x *ctx, k pubsub.Kind, patterns bool) {
	hub := x.srv.ps.hub
	kind := kindNames[k].unsubscribe
	if patterns {
		kind = "punsubscribe"
	}
	if len(x.args) == 1 {
		removed, left := hub.UnsubscribeAll(x.cl, k, patterns)
		if len(removed) == 0 {
			x.replySubscription(kind, nil, left)
		}
		for i, name := range removed {
			x.replySubscriptionString(kind, name, left+len(removed)-1-i)
		}
	} else {
		for _, name := range x.args[1:] {
			var n int
			if patterns {
				_, n = hub.PUnsubscribe(x.cl, string(name))
			} else {
				_, n = hub.Unsubscribe(x.cl, k, string(name))
			}
			x.replySubscription(kind, name, n)
		}
	}
	x.updatePubSubMode()
}

func cmdSubscribe(x *ctx)    { subscribeKind(x, pubsub.Global) }
func cmdUnsubscribe(x *ctx)  { unsubscribeKind(x, pubsub.Global, false) }
func cmdSUnsubscribe(x *ctx) { unsubscribeKind(x, pubsub.Shard, false) }
func cmdPUnsubscribe(x *ctx) { unsubscribeKind(x, pubsub.Global, true) }
func cmdPublish(x *ctx)      { replyPublish(x, pubsub.Global) }
func cmdSPublish(x *ctx)     { replyPublish(x, pubsub.Shard) }
func cmdPubsubNumPat(x *ctx) { _, p, _ := x.srv.ps.hub.Stats(); x.w.Int(int64(p)) }
func cmdPubsubChannels(x *ctx) {
	channelList(x, pubsub.Global)
}
func cmdPubsubShardChannels(x *ctx) { channelList(x, pubsub.Shard) }
func cmdPubsubNumSub(x *ctx)        { numSub(x, pubsub.Global) }
func cmdPubsubShardNumSub(x *ctx)   { numSub(x, pubsub.Shard) }

func cmdSSubscribe(x *ctx) {
	if x.deferred != nil {
		// Redis runs a transaction's commands as a client that may not
		// block, which SSUBSCRIBE refuses (SUBSCRIBE and PSUBSCRIBE make
		// an exception for MULTI, for compatibility).
		x.errorReply("ERR SSUBSCRIBE isn't allowed for a DENY BLOCKING client")
		return
	}
	subscribeKind(x, pubsub.Shard)
}

func cmdPSubscribe(x *ctx) {
	for _, p := range x.args[1:] {
		_, n := x.srv.ps.hub.PSubscribe(x.cl, string(p))
		x.replySubscription("psubscribe", p, n)
	}
	x.updatePubSubMode()
}

// replyPublish publishes and replies with the count. A RESP3 client that
// receives its own message gets it before the reply, as from Redis, which
// queues it first.
func replyPublish(x *ctx, k pubsub.Kind) {
	n := x.publish(k)
	if x.deferred == nil && x.cl != nil {
		x.cl.takePushes()
	}
	x.w.Int(int64(n))
}

// publish answers PUBLISH and SPUBLISH: the receivers are counted now, and
// the message reaches them once the command's effects are visible (after
// the commit of a MULTI/EXEC or script that holds it).
func (x *ctx) publish(k pubsub.Kind) int {
	s := x.srv
	rs := s.ps.hub.AppendReceivers(nil, k, x.arg(1))
	if len(rs) == 0 {
		return 0
	}
	ch, msg := x.arg(1), x.arg(2)
	if x.deferred != nil {
		// The arguments' memory is not the group's to keep.
		ch, msg = bytes.Clone(ch), bytes.Clone(msg)
	}
	x.later(func() { deliver(k, rs, ch, msg) })
	return len(rs)
}

// publish sends msg to the subscribers of channel (and of the patterns
// that match it) at once, and returns how many deliveries it made: for
// messages the server itself publishes (keyspace notifications).
func (s *Server) publish(channel, msg []byte) int {
	rs := s.ps.hub.AppendReceivers(nil, pubsub.Global, channel)
	deliver(pubsub.Global, rs, channel, msg)
	return len(rs)
}

// deliver queues a message for each receiver, encoded for its protocol.
func deliver(k pubsub.Kind, rs []pubsub.Receiver[*client], channel, msg []byte) {
	kind := kindNames[k].message
	for _, r := range rs {
		if r.ByPattern {
			pat := r.Pattern
			r.To.push(func(b []byte, resp3 bool) []byte {
				return appendPushBulks(b, resp3, "pmessage", []byte(pat), channel, msg)
			})
			continue
		}
		r.To.push(func(b []byte, resp3 bool) []byte {
			return appendPushBulks(b, resp3, kind, channel, msg)
		})
	}
}

// dropSubscriptions ends every subscription of c without replies (RESET,
// and a connection that closes).
func (s *Server) dropSubscriptions(c *client) {
	s.ps.hub.Drop(c)
	c.pubsubMode.Store(false)
}

func channelList(x *ctx, k pubsub.Kind) {
	if len(x.args) > 3 {
		x.subcommandSyntaxError()
		return
	}
	var pattern []byte
	if len(x.args) == 3 {
		pattern = x.arg(2)
	}
	chans := x.srv.ps.hub.Channels(k, pattern)
	x.w.Array(len(chans))
	for _, ch := range chans {
		x.w.BulkString(ch)
	}
}

func numSub(x *ctx, k pubsub.Kind) {
	// A flat array of channel, count pairs in both protocols, as Redis
	// replies.
	x.w.Array(2 * (len(x.args) - 2))
	for _, ch := range x.args[2:] {
		x.w.Bulk(ch)
		x.w.Int(int64(x.srv.ps.hub.NumSub(k, string(ch))))
	}
}

// subcommandSyntaxError is Redis's addReplySubcommandSyntaxError.
func (x *ctx) subcommandSyntaxError() {
	x.errorReply("ERR unknown subcommand or wrong number of arguments for '" + truncate(cstr(x.argStr(1)), 128) + "'. Try " + strings.ToUpper(cstr(x.argStr(0))) + " HELP.")
}

func cmdPubsubHelp(x *ctx) {
	x.helpReply("PUBSUB",
		"CHANNELS [<pattern>]",
		"    Return the currently active channels matching a <pattern> (default: '*').",
		"NUMPAT",
		"    Return number of subscriptions to patterns.",
		"NUMSUB [<channel> ...]",
		"    Return the number of subscribers for the specified channels, excluding",
		"    pattern subscriptions(default: no channels).",
		"SHARDCHANNELS [<pattern>]",
		"    Return the currently active shard level channels matching a <pattern> (default: '*').",
		"SHARDNUMSUB [<shardchannel> ...]",
		"    Return the number of subscribers for the specified shard level channel(s)",
	)
}
