package server

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/redistest"
	"github.com/cairndb/cairn/internal/resp"
	"github.com/redis/go-redis/v9"
)

// Pub/sub tests: exact replies over the wire in RESP2 and RESP3, flows
// through go-redis, comparisons with a real redis-server, and the limits
// (output buffer, many subscriptions).

// wirePush is a pub/sub reply or message: an array in RESP2, a push in
// RESP3, of bulk strings, with a final integer when count >= 0.
func wirePush(proto int, count int, elems ...string) string {
	head := "*"
	if proto == 3 {
		head = ">"
	}
	n := len(elems)
	if count >= 0 {
		n++
	}
	s := head + strconv.Itoa(n) + "\r\n"
	for _, e := range elems {
		s += wireBulk(e)
	}
	if count >= 0 {
		s += ":" + strconv.Itoa(count) + "\r\n"
	}
	return s
}

// expect reads one reply and checks it.
func (rc *wireConn) expect(want string) {
	rc.t.Helper()
	if got := rc.reply(); got != want {
		rc.t.Fatalf("got %q, want %q", got, want)
	}
}

// sendOnly writes a command without reading a reply.
func (rc *wireConn) sendOnly(args ...string) {
	rc.t.Helper()
	rc.write(wireCmd(args...))
}

func TestPubSubWireReplies(t *testing.T) {
	for _, proto := range []int{2, 3} {
		t.Run("RESP"+strconv.Itoa(proto), func(t *testing.T) {
			ts := startServer(t)
			sub := ts.wireProto(t, proto)
			pub := ts.wire(t)

			sub.sendOnly("SUBSCRIBE", "a", "b")
			sub.expect(wirePush(proto, 1, "subscribe", "a"))
			sub.expect(wirePush(proto, 2, "subscribe", "b"))
			sub.sendOnly("SUBSCRIBE", "a")
			sub.expect(wirePush(proto, 2, "subscribe", "a"))
			sub.sendOnly("PSUBSCRIBE", "a*")
			sub.expect(wirePush(proto, 3, "psubscribe", "a*"))
			// Shard subscriptions count on their own.
			sub.sendOnly("SSUBSCRIBE", "s")
			sub.expect(wirePush(proto, 1, "ssubscribe", "s"))

			pub.run([]wireStep{
				wstep(":2\r\n", "PUBLISH", "a", "hello"),
				wstep(":1\r\n", "PUBLISH", "abc", "x"),
				wstep(":0\r\n", "PUBLISH", "zzz", "x"),
				wstep(":1\r\n", "SPUBLISH", "s", "sharded"),
				// Shard channels and global channels are apart.
				wstep(":0\r\n", "SPUBLISH", "a", "x"),
				wstep(":0\r\n", "PUBLISH", "s", "x"),
			})
			sub.expect(wirePush(proto, -1, "message", "a", "hello"))
			sub.expect(wirePush(proto, -1, "pmessage", "a*", "a", "hello"))
			sub.expect(wirePush(proto, -1, "pmessage", "a*", "abc", "x"))
			sub.expect(wirePush(proto, -1, "smessage", "s", "sharded"))

			if proto == 2 {
				sub.run([]wireStep{
					wstep("*2\r\n$4\r\npong\r\n$0\r\n\r\n", "PING"),
					wstep("*2\r\n$4\r\npong\r\n$2\r\nhi\r\n", "PING", "hi"),
					wstep("-ERR Can't execute 'get': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context\r\n", "GET", "k"),
					wstep("-ERR Can't execute 'client|id': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context\r\n", "CLIENT", "ID"),
					wstep(arityErr("ping"), "PING", "a", "b"),
				})
			} else {
				sub.run([]wireStep{
					wstep("+PONG\r\n", "PING"),
					wstep("_\r\n", "GET", "k"),
				})
			}

			sub.sendOnly("UNSUBSCRIBE", "a", "nope")
			sub.expect(wirePush(proto, 2, "unsubscribe", "a"))
			sub.expect(wirePush(proto, 2, "unsubscribe", "nope"))
			sub.sendOnly("UNSUBSCRIBE")
			sub.expect(wirePush(proto, 1, "unsubscribe", "b"))
			sub.sendOnly("PUNSUBSCRIBE")
			sub.expect(wirePush(proto, 0, "punsubscribe", "a*"))
			if proto == 2 {
				// Still subscribed to a shard channel: still in
				// subscribed mode.
				sub.run([]wireStep{wstep("-ERR Can't execute 'get': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context\r\n", "GET", "k")})
			}
			sub.sendOnly("SUNSUBSCRIBE", "s")
			sub.expect(wirePush(proto, 0, "sunsubscribe", "s"))
			// Unsubscribing from nothing still answers, with a nil name.
			nilName := func(kind string) string {
				return wirePush(proto, -1)[:1] + "3\r\n" + wireBulk(kind) + wireNull(proto) + ":0\r\n"
			}
			for _, kind := range []string{"unsubscribe", "punsubscribe", "sunsubscribe"} {
				sub.sendOnly(strings.ToUpper(kind))
				sub.expect(nilName(kind))
			}
			sub.run([]wireStep{wstep("+PONG\r\n", "PING"), wstep(wireNull(proto), "GET", "k")})
		})
	}
}

func TestPubSubIntrospection(t *testing.T) {
	ts := startServer(t)
	a, b := ts.wire(t), ts.wireProto(t, 3)
	a.sendOnly("SUBSCRIBE", "news.1", "news.2", "other")
	for range 3 {
		a.reply()
	}
	a.sendOnly("PSUBSCRIBE", "news.*", "x?")
	a.reply()
	a.reply()
	b.sendOnly("SUBSCRIBE", "news.1")
	b.reply()
	b.sendOnly("PSUBSCRIBE", "news.*")
	b.reply()
	b.sendOnly("SSUBSCRIBE", "sh1", "sh2")
	b.reply()
	b.reply()
	q := ts.wire(t)
	sorted := func(reply string) []string {
		lines := strings.Split(strings.TrimSuffix(reply, "\r\n"), "\r\n")
		var names []string
		for i := 2; i < len(lines); i += 2 {
			names = append(names, lines[i])
		}
		slices.Sort(names)
		return names
	}
	if got := sorted(q.do("PUBSUB", "CHANNELS")); !slices.Equal(got, []string{"news.1", "news.2", "other"}) {
		t.Fatalf("PUBSUB CHANNELS = %q", got)
	}
	if got := sorted(q.do("PUBSUB", "CHANNELS", "news.*")); !slices.Equal(got, []string{"news.1", "news.2"}) {
		t.Fatalf("PUBSUB CHANNELS news.* = %q", got)
	}
	if got := sorted(q.do("PUBSUB", "SHARDCHANNELS")); !slices.Equal(got, []string{"sh1", "sh2"}) {
		t.Fatalf("PUBSUB SHARDCHANNELS = %q", got)
	}
	q.run([]wireStep{
		wstep("*4\r\n"+wireBulk("news.1")+":2\r\n"+wireBulk("zz")+":0\r\n", "PUBSUB", "NUMSUB", "news.1", "zz"),
		wstep("*0\r\n", "PUBSUB", "NUMSUB"),
		wstep("*2\r\n"+wireBulk("sh1")+":1\r\n", "PUBSUB", "SHARDNUMSUB", "sh1"),
		wstep(":2\r\n", "PUBSUB", "NUMPAT"),
		wstep("*0\r\n", "PUBSUB", "SHARDCHANNELS", "nomatch"),
		wstep("-ERR unknown subcommand or wrong number of arguments for 'channels'. Try PUBSUB HELP.\r\n", "PUBSUB", "channels", "a", "b"),
		wstep("-ERR unknown subcommand 'nope'. Try PUBSUB HELP.\r\n", "PUBSUB", "nope"),
		wstep("-ERR wrong number of arguments for 'pubsub|numpat' command\r\n", "PUBSUB", "NUMPAT", "x"),
		wstep(arityErr("publish"), "PUBLISH", "x"),
		wstep(arityErr("subscribe"), "SUBSCRIBE"),
		wstep("*14\r\n+PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:\r\n+CHANNELS [<pattern>]\r\n+    Return the currently active channels matching a <pattern> (default: '*').\r\n+NUMPAT\r\n+    Return number of subscriptions to patterns.\r\n+NUMSUB [<channel> ...]\r\n+    Return the number of subscribers for the specified channels, excluding\r\n+    pattern subscriptions(default: no channels).\r\n+SHARDCHANNELS [<pattern>]\r\n+    Return the currently active shard level channels matching a <pattern> (default: '*').\r\n+SHARDNUMSUB [<shardchannel> ...]\r\n+    Return the number of subscribers for the specified shard level channel(s)\r\n+HELP\r\n+    Print this help.\r\n", "PUBSUB", "HELP"),
		// RESP3 NUMSUB is still a flat array, as in Redis.
	})
	fields := infoFields(t, q, "stats")
	for k, want := range map[string]string{"pubsub_channels": "3", "pubsub_patterns": "2", "pubsubshard_channels": "2"} {
		if fields[k] != want {
			t.Errorf("INFO %s = %q, want %s", k, fields[k], want)
		}
	}
	byID := map[string]map[string]string{}
	for _, line := range clientLines(t, textOf(t, 2, q.do("CLIENT", "LIST"))) {
		_, f := clientFields(t, line)
		byID[f["id"]] = f
	}
	var subs [][4]string
	for _, f := range byID {
		subs = append(subs, [4]string{f["flags"], f["sub"], f["psub"], f["ssub"]})
	}
	slices.SortFunc(subs, func(x, y [4]string) int { return strings.Compare(x[1]+x[2]+x[3], y[1]+y[2]+y[3]) })
	want := [][4]string{{"N", "0", "0", "0"}, {"P", "1", "1", "2"}, {"P", "3", "2", "0"}}
	if !slices.Equal(subs, want) {
		t.Fatalf("CLIENT LIST flags/sub/psub/ssub = %q, want %q", subs, want)
	}
	if got := clientLines(t, textOf(t, 2, q.do("CLIENT", "LIST", "TYPE", "pubsub"))); len(got) != 2 {
		t.Fatalf("CLIENT LIST TYPE pubsub lists %d clients", len(got))
	}
	if got := clientLines(t, textOf(t, 2, q.do("CLIENT", "LIST", "TYPE", "normal"))); len(got) != 1 {
		t.Fatalf("CLIENT LIST TYPE normal lists %d clients", len(got))
	}
	q.run([]wireStep{wstep(":2\r\n", "CLIENT", "KILL", "TYPE", "pubsub")})
	a.expectClosed()
	b.expectClosed()
}

func TestPubSubResetAndCloseDropSubscriptions(t *testing.T) {
	ts := startServer(t)
	sub := ts.wire(t)
	sub.sendOnly("SUBSCRIBE", "ch")
	sub.reply()
	sub.sendOnly("PSUBSCRIBE", "c*")
	sub.reply()
	sub.run([]wireStep{
		wstep("+RESET\r\n", "RESET"),
		wstep("$-1\r\n", "GET", "k"),
	})
	q := ts.wire(t)
	q.run([]wireStep{
		wstep(":0\r\n", "PUBLISH", "ch", "m"),
		wstep(":0\r\n", "PUBSUB", "NUMPAT"),
	})
	sub.sendOnly("SSUBSCRIBE", "s")
	sub.reply()
	sub.nc.Close()
	for i := 0; ; i++ {
		if q.do("SPUBLISH", "s", "m") == ":0\r\n" {
			break
		}
		if i == 500 {
			t.Fatal("a closed subscriber still receives")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestPubSubMatchesRedis runs the same subscriber/publisher conversation
// against redis-server and Cairn and compares every byte.
func TestPubSubMatchesRedis(t *testing.T) {
	for _, proto := range []int{2, 3} {
		t.Run("RESP"+strconv.Itoa(proto), func(t *testing.T) {
			r := redistest.Start(t)
			ts := startServer(t)
			open := func(addr string) (*wireConn, *wireConn) {
				dial := func() *wireConn {
					nc, err := net.Dial("tcp", addr)
					if err != nil {
						t.Fatal(err)
					}
					_ = nc.SetDeadline(time.Now().Add(10 * time.Second))
					t.Cleanup(func() { _ = nc.Close() })
					return &wireConn{t: t, nc: nc, r: bufio.NewReader(nc)}
				}
				sub := dial()
				if proto == 3 {
					sub.do("HELLO", "3")
				}
				return sub, dial()
			}
			rs, rp := open(r.Addr())
			cs, cp := open(ts.addr)
			type step struct {
				pub   bool
				args  []string
				reads int
			}
			s := func(reads int, args ...string) step { return step{args: args, reads: reads} }
			p := func(args ...string) step { return step{pub: true, args: args, reads: 1} }
			steps := []step{
				s(1, "UNSUBSCRIBE"), s(1, "PUNSUBSCRIBE"), s(1, "SUNSUBSCRIBE"),
				s(2, "SUBSCRIBE", "c1", "c2"), s(1, "PSUBSCRIBE", "c[0-9]"), s(1, "PSUBSCRIBE", "c[0-9]"),
				s(1, "SSUBSCRIBE", "sh"),
				s(1, "PING"), s(1, "PING", "x"), s(1, "GET", "k"), s(1, "ECHO", "x"), s(1, "PING", "a", "b"),
				p("PUBLISH", "c1", "m1"), s(2), p("PUBLISH", "c3", ""), s(1), p("SPUBLISH", "sh", "m3"), s(1),
				p("PUBSUB", "NUMSUB", "c1", "c3"), p("PUBSUB", "NUMPAT"), p("PUBSUB", "SHARDNUMSUB", "sh", "c1"),
				p("PUBSUB", "CHANNELS", "c1"), p("PUBSUB", "SHARDCHANNELS"),
				p("PUBSUB", "NUMPAT", "x"), p("PUBSUB", "CHANNELS", "a", "b"), p("PUBSUB", "nope"), p("PUBSUB"),
				p("PUBLISH", "c1"), p("SPUBLISH", "x", "y", "z"), p("SUBSCRIBE"), p("PSUBSCRIBE"), p("SSUBSCRIBE"),
				s(2, "UNSUBSCRIBE", "c2", "zz"), s(1, "PUNSUBSCRIBE", "c[0-9]"), s(1, "UNSUBSCRIBE"),
				s(1, "GET", "k"), s(1, "SUNSUBSCRIBE"), s(1, "GET", "k"), s(1, "PING"),
			}
			if proto == 3 {
				// A subscriber publishing to itself gets the message,
				// then the count.
				steps = append(steps, s(1, "SUBSCRIBE", "me"), s(2, "PUBLISH", "me", "self"),
					s(1, "SSUBSCRIBE", "sme"), s(2, "SPUBLISH", "sme", "self"))
			}
			for i, st := range steps {
				rc, cc := rs, cs
				if st.pub {
					rc, cc = rp, cp
				}
				if len(st.args) > 0 {
					rc.sendOnly(st.args...)
					cc.sendOnly(st.args...)
				}
				for range st.reads {
					want, got := rc.reply(), cc.reply()
					if want != got {
						t.Fatalf("step %d %q: Cairn %q, Redis %q", i, st.args, got, want)
					}
				}
			}
		})
	}
}

func TestPubSubGoRedisFlows(t *testing.T) {
	bothProtocols(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		ctx := context.Background()
		subClient := ts.client(t, c.Options().Protocol)
		ps := subClient.Subscribe(ctx, "news")
		defer ps.Close()
		if _, err := ps.Receive(ctx); err != nil {
			t.Fatalf("subscribe confirmation: %v", err)
		}
		if err := ps.PSubscribe(ctx, "n*"); err != nil {
			t.Fatal(err)
		}
		if m, err := ps.Receive(ctx); err != nil {
			t.Fatal(err)
		} else if sub, ok := m.(*redis.Subscription); !ok || sub.Kind != "psubscribe" || sub.Count != 2 {
			t.Fatalf("PSUBSCRIBE confirmation = %#v", m)
		}
		if n, err := c.Publish(ctx, "news", "hello").Result(); err != nil || n != 2 {
			t.Fatalf("PUBLISH = %d, %v", n, err)
		}
		got := map[string]string{}
		for range 2 {
			m, err := ps.ReceiveMessage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			got[m.Pattern] = m.Channel + "=" + m.Payload
		}
		if got[""] != "news=hello" || got["n*"] != "news=hello" {
			t.Fatalf("messages = %q", got)
		}
		if err := ps.Ping(ctx, "p"); err != nil {
			t.Fatal(err)
		}
		if m, err := ps.Receive(ctx); err != nil {
			t.Fatal(err)
		} else if pong, ok := m.(*redis.Pong); !ok || pong.Payload != "p" {
			t.Fatalf("PING in subscribed mode = %#v", m)
		}

		sps := subClient.SSubscribe(ctx, "shard")
		defer sps.Close()
		if _, err := sps.Receive(ctx); err != nil {
			t.Fatal(err)
		}
		if n, err := c.SPublish(ctx, "shard", "s1").Result(); err != nil || n != 1 {
			t.Fatalf("SPUBLISH = %d, %v", n, err)
		}
		if m, err := sps.ReceiveMessage(ctx); err != nil || m.Channel != "shard" || m.Payload != "s1" {
			t.Fatalf("smessage = %+v, %v", m, err)
		}
		if n, err := c.PubSubNumSub(ctx, "news").Result(); err != nil || n["news"] != 1 {
			t.Fatalf("PUBSUB NUMSUB = %v, %v", n, err)
		}
		if n, err := c.PubSubShardNumSub(ctx, "shard").Result(); err != nil || n["shard"] != 1 {
			t.Fatalf("PUBSUB SHARDNUMSUB = %v, %v", n, err)
		}
		if n, err := c.PubSubNumPat(ctx).Result(); err != nil || n != 1 {
			t.Fatalf("PUBSUB NUMPAT = %v, %v", n, err)
		}
		if chans, err := c.PubSubChannels(ctx, "*").Result(); err != nil || !slices.Equal(chans, []string{"news"}) {
			t.Fatalf("PUBSUB CHANNELS = %v, %v", chans, err)
		}
		if err := ps.Unsubscribe(ctx, "news"); err != nil {
			t.Fatal(err)
		}
		if err := ps.PUnsubscribe(ctx); err != nil {
			t.Fatal(err)
		}
		for i := 0; ; i++ {
			n, err := c.Publish(ctx, "news", "late").Result()
			if err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				break
			}
			if i == 500 {
				t.Fatal("unsubscribed client still counted")
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}

// TestPubSubPushesInRESP3AlongsideCommands checks that a RESP3 subscriber
// runs ordinary commands, receives pushes while it waits in a blocking
// command, and that replies and pushes never mix, under appendfsync always
// (where replies wait for a sync in the durable writer).
func TestPubSubPushesInRESP3AlongsideCommands(t *testing.T) {
	ts := startServer(t, "appendfsync", "always")
	sub := ts.wireProto(t, 3)
	pub := ts.wire(t)
	sub.sendOnly("SUBSCRIBE", "ch")
	sub.expect(wirePush(3, 1, "subscribe", "ch"))

	// A push while the subscriber is blocked in BLPOP arrives before the
	// BLPOP's reply.
	sub.sendOnly("BLPOP", "list", "0")
	time.Sleep(50 * time.Millisecond)
	pub.run([]wireStep{wstep(":1\r\n", "PUBLISH", "ch", "while-blocked")})
	sub.expect(wirePush(3, -1, "message", "ch", "while-blocked"))
	pub.run([]wireStep{wstep(":1\r\n", "RPUSH", "list", "v")})
	sub.expect("*2\r\n" + wireBulk("list") + wireBulk("v"))

	// Writes pipelined by the subscriber while messages flow: every reply
	// and every message arrives whole, messages in order.
	const n = 300
	done := make(chan struct{})
	go func() {
		defer close(done)
		p := ts.wire(t)
		var b strings.Builder
		for i := range n {
			b.WriteString(wireCmd("PUBLISH", "ch", strconv.Itoa(i)))
		}
		p.write(b.String())
		for range n {
			p.reply()
		}
	}()
	var b strings.Builder
	for i := range n {
		b.WriteString(wireCmd("SET", "k"+strconv.Itoa(i), "v"))
	}
	sub.write(b.String())
	oks, next := 0, 0
	for oks < n || next < n {
		got := sub.reply()
		switch {
		case got == "+OK\r\n":
			oks++
		case got == wirePush(3, -1, "message", "ch", strconv.Itoa(next)):
			next++
		default:
			t.Fatalf("after %d OKs and %d messages: unexpected %q", oks, next, got)
		}
	}
	<-done
}

// TestPubSubSlowSubscriberIsDisconnected floods a subscriber that never
// reads: the publisher is never held up, and the subscriber is closed once
// its queued messages reach the hard limit, as Redis closes it.
func TestPubSubSlowSubscriberIsDisconnected(t *testing.T) {
	for _, limit := range []string{"pubsub 1mb 0 0", "pubsub 0 256kb 0"} {
		t.Run(limit, func(t *testing.T) {
			ts := startServer(t, "client-output-buffer-limit", limit)
			sub := ts.wire(t)
			sub.sendOnly("SUBSCRIBE", "flood")
			sub.expect(wirePush(2, 1, "subscribe", "flood"))
			pub := ts.wire(t)
			msg := strings.Repeat("x", 10<<10)
			// Bounded: 4,000 messages of 10 KiB are 40 MB, far beyond
			// what the socket buffers and the limit hold; the soft limit
			// needs a second to pass, so that loop is also bounded in time.
			deadline := time.Now().Add(20 * time.Second)
			dropped := false
			for i := 0; i < 4000 && time.Now().Before(deadline); i++ {
				if pub.do("PUBLISH", "flood", msg) == ":0\r\n" {
					dropped = true
					break
				}
				if strings.Contains(limit, " 0 256kb") && i > 1000 {
					time.Sleep(5 * time.Millisecond)
				}
			}
			if !dropped {
				t.Fatal("the flooded subscriber was never disconnected")
			}
			if f := infoFields(t, pub, "stats"); f["client_output_buffer_limit_disconnections"] != "1" {
				t.Fatalf("client_output_buffer_limit_disconnections = %q", f["client_output_buffer_limit_disconnections"])
			}
			// The subscriber finds its connection closed once it reads
			// what the socket still held.
			_ = sub.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
			for {
				if _, err := sub.r.Discard(64 << 10); err != nil {
					if ne, ok := err.(net.Error); ok && ne.Timeout() {
						t.Fatal("the subscriber's connection was not closed")
					}
					break
				}
			}
		})
	}
}

// TestPubSubManySubscriptions subscribes one connection to 100,000
// channels and 100,000 patterns, publishes, and unsubscribes from all: no
// step may be quadratic.
func TestPubSubManySubscriptions(t *testing.T) {
	n := 100000
	if testing.Short() {
		n = 10000
	}
	ts := startServer(t)
	sub := ts.wireProto(t, 3)
	var chans, pats []string
	for i := range n {
		chans = append(chans, "ch:"+strconv.Itoa(i))
		pats = append(pats, "p:"+strconv.Itoa(i)+":*")
	}
	_ = sub.nc.SetDeadline(time.Now().Add(120 * time.Second))
	sub.sendOnly(append([]string{"SUBSCRIBE"}, chans...)...)
	for i := range n {
		if got := sub.reply(); i == n-1 && got != wirePush(3, n, "subscribe", chans[n-1]) {
			t.Fatalf("last confirmation %q", got)
		}
	}
	sub.sendOnly(append([]string{"PSUBSCRIBE"}, pats...)...)
	for i := range n {
		if got := sub.reply(); i == n-1 && got != wirePush(3, 2*n, "psubscribe", pats[n-1]) {
			t.Fatalf("last confirmation %q", got)
		}
	}
	q := ts.wire(t)
	_ = q.nc.SetDeadline(time.Now().Add(60 * time.Second))
	q.run([]wireStep{
		wstep(":"+strconv.Itoa(n)+"\r\n", "PUBSUB", "NUMPAT"),
		wstep(":1\r\n", "PUBLISH", "p:77:x", "m"),
		wstep(":1\r\n", "PUBLISH", "ch:5", "m"),
	})
	sub.expect(wirePush(3, -1, "pmessage", "p:77:*", "p:77:x", "m"))
	sub.expect(wirePush(3, -1, "message", "ch:5", "m"))
	fields := map[string]string{}
	for _, line := range clientLines(t, textOf(t, 2, q.do("CLIENT", "LIST", "TYPE", "pubsub"))) {
		_, fields = clientFields(t, line)
	}
	if fields["sub"] != strconv.Itoa(n) || fields["psub"] != strconv.Itoa(n) {
		t.Fatalf("CLIENT LIST sub=%s psub=%s", fields["sub"], fields["psub"])
	}
	sub.sendOnly("UNSUBSCRIBE")
	for i := range n {
		if got := sub.reply(); i == n-1 && !strings.HasSuffix(got, ":"+strconv.Itoa(n)+"\r\n") {
			t.Fatalf("last unsubscribe %q", got)
		}
	}
	sub.sendOnly("PUNSUBSCRIBE")
	for i := range n {
		if got := sub.reply(); i == n-1 && !strings.HasSuffix(got, ":0\r\n") {
			t.Fatalf("last punsubscribe %q", got)
		}
	}
	q.run([]wireStep{wstep(":0\r\n", "PUBSUB", "NUMPAT"), wstep("*0\r\n", "PUBSUB", "CHANNELS")})
}

// TestPublishInAGroupWaitsForItsCommit runs PUBLISH as a command inside an
// atomic group runs (with deferred effects): the count is the receivers at
// the call, the message goes out only when the group's effects do, with
// the arguments as they were.
func TestPublishInAGroupWaitsForItsCommit(t *testing.T) {
	ts := startServer(t)
	sub := ts.wire(t)
	sub.sendOnly("SUBSCRIBE", "ch")
	sub.expect(wirePush(2, 1, "subscribe", "ch"))
	var out bytes.Buffer
	var deferred []func()
	args := [][]byte{[]byte("PUBLISH"), []byte("ch"), []byte("msg")}
	x := &ctx{srv: ts.srv, w: resp.NewWriter(&out), args: args, deferred: &deferred}
	cmdPublish(x)
	if err := x.w.Flush(); err != nil || out.String() != ":1\r\n" {
		t.Fatalf("PUBLISH in a group = %q, %v", out.String(), err)
	}
	// The request buffer is reused once the command is done.
	copy(args[2], "XXX")
	sub.expectSilent(100 * time.Millisecond)
	if len(deferred) != 1 {
		t.Fatalf("%d deferred effects, want 1", len(deferred))
	}
	deferred[0]()
	sub.expect(wirePush(2, -1, "message", "ch", "msg"))

	// SSUBSCRIBE refuses to run in a group, as in Redis.
	out.Reset()
	x = &ctx{srv: ts.srv, w: resp.NewWriter(&out), args: [][]byte{[]byte("SSUBSCRIBE"), []byte("s")}, deferred: &deferred}
	cmdSSubscribe(x)
	_ = x.w.Flush()
	if want := "-ERR SSUBSCRIBE isn't allowed for a DENY BLOCKING client\r\n"; out.String() != want {
		t.Fatalf("SSUBSCRIBE in a group = %q, want %q", out.String(), want)
	}
}

// TestPubSubCommandInfoMatchesRedis compares the commands' specs (arity,
// flags, key positions and specs, ACL categories, subcommands) with
// redis-server's COMMAND INFO.
func TestPubSubCommandInfoMatchesRedis(t *testing.T) {
	rc := redistest.Start(t)
	ts := startServer(t)
	c := ts.client(t, 2)
	ctx := context.Background()
	for _, name := range []string{"subscribe", "unsubscribe", "psubscribe", "punsubscribe", "publish",
		"ssubscribe", "sunsubscribe", "spublish", "pubsub"} {
		// Redis lists subcommands in its dictionary's order: compare them
		// sorted.
		sortSubs := func(v any) string {
			info := v.([]any)[0].([]any)
			subs := info[len(info)-1].([]any)
			names := make([]string, len(subs))
			for i, s := range subs {
				names[i] = fmt.Sprint(s)
			}
			slices.Sort(names)
			return fmt.Sprint(info[:len(info)-1], names)
		}
		want := sortSubs(canonReply(rc.Do("COMMAND", "INFO", name)))
		got := sortSubs(canonReply(c.Do(ctx, "COMMAND", "INFO", name).Result()))
		if got != want {
			t.Errorf("COMMAND INFO %s\n  Cairn: %v\n  Redis: %v", name, got, want)
		}
	}
}

// TestPubSubSubscribersAreNeverIdle: the timeout setting closes idle
// clients, but not those with subscriptions, as in Redis.
func TestPubSubSubscribersAreNeverIdle(t *testing.T) {
	ts := startServer(t, "timeout", "1")
	sub := ts.wire(t)
	sub.sendOnly("SUBSCRIBE", "ch")
	sub.expect(wirePush(2, 1, "subscribe", "ch"))
	idle := ts.wire(t)
	idle.run([]wireStep{wstep("+PONG\r\n", "PING")})
	time.Sleep(2500 * time.Millisecond)
	idle.expectClosed()
	pub := ts.wire(t)
	pub.run([]wireStep{wstep(":1\r\n", "PUBLISH", "ch", "still here")})
	sub.expect(wirePush(2, -1, "message", "ch", "still here"))
}

// TestPubSubConcurrentChurn has subscribers in both protocols subscribe,
// unsubscribe, run commands and hang up while publishers publish, to give
// the race detector every interleaving of pushes, replies and departures
// it can find. Every reply must parse; the server must stop cleanly.
func TestPubSubConcurrentChurn(t *testing.T) {
	ts := startServer(t, "appendfsync", "always")
	ctx := context.Background()
	const rounds = 40
	done := make(chan error, 8)
	for i := range 4 {
		go func() {
			var err error
			defer func() { done <- err }()
			for r := range rounds {
				c := redis.NewClient(&redis.Options{Addr: ts.addr, Protocol: 2 + i%2, PoolSize: 1})
				ps := c.Subscribe(ctx, "churn", "c"+strconv.Itoa(i))
				if _, err = ps.Receive(ctx); err != nil {
					return
				}
				if err = ps.PSubscribe(ctx, "ch*"); err != nil {
					return
				}
				if i%2 == 1 {
					// RESP3: ordinary commands between the messages.
					if err = c.Set(ctx, "k"+strconv.Itoa(i), r, 0).Err(); err != nil {
						return
					}
				}
				if r%2 == 0 {
					_ = ps.Unsubscribe(ctx)
				}
				_ = ps.Close()
				_ = c.Close()
			}
		}()
	}
	for range 2 {
		go func() {
			var err error
			defer func() { done <- err }()
			c := redis.NewClient(&redis.Options{Addr: ts.addr, PoolSize: 1})
			defer c.Close()
			for r := range rounds * 20 {
				if err = c.Publish(ctx, "churn", strconv.Itoa(r)).Err(); err != nil {
					return
				}
				if err = c.SPublish(ctx, "churn", "s").Err(); err != nil {
					return
				}
			}
		}()
	}
	for range 6 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	q := ts.wire(t)
	for i := 0; ; i++ {
		if q.do("PUBSUB", "NUMPAT") == ":0\r\n" {
			break
		}
		if i == 500 {
			t.Fatal("subscriptions of closed clients remain")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestClientReplyKeepsSubscriptionConfirmations: CLIENT REPLY OFF and SKIP
// silence replies but not the (un)subscription confirmations, the
// messages published to the client (its own too) or a subscription made
// in MULTI, which Redis 7 sends as pushes past those modes; SKIP still
// applies to the command after it. Every byte is compared with Redis, in
// RESP2 and RESP3.
func TestClientReplyKeepsSubscriptionConfirmations(t *testing.T) {
	a := func(args ...string) trackingStep { return trackingStep{"a", args} }
	b := func(args ...string) trackingStep { return trackingStep{"b", args} }
	steps := []trackingStep{
		a("CLIENT", "REPLY", "OFF"),
		a("SUBSCRIBE", "c1", "c2"), a("PSUBSCRIBE", "p*"),
		b("PUBLISH", "c1", "m1"), b("PUBLISH", "pq", "m2"),
		a("SSUBSCRIBE", "s1"), b("SPUBLISH", "s1", "m3"),
		a("PING"),
		a("UNSUBSCRIBE", "c1"), a("PUNSUBSCRIBE"), a("SUNSUBSCRIBE"), a("UNSUBSCRIBE"), a("UNSUBSCRIBE"),
		a("PUNSUBSCRIBE", "none"),
		a("CLIENT", "REPLY", "ON"),
		a("CLIENT", "REPLY", "SKIP"), a("SUBSCRIBE", "c1"), a("PING"),
		a("CLIENT", "REPLY", "SKIP"), a("PING", "x"), a("SUBSCRIBE", "c2"),
		b("PUBLISH", "c1", "m4"),
		a("UNSUBSCRIBE", "c2", "c1"), a("CLIENT", "REPLY", "SKIP"), a("PING", "y"), a("PING", "z"),
		a("CLIENT", "REPLY", "OFF"), a("MULTI"), a("SUBSCRIBE", "c3"), a("PING"), a("EXEC"),
		b("PUBLISH", "c3", "m5"),
		a("RESET"),
	}
	self := []trackingStep{
		// A RESP3 subscriber may publish; its own message comes through.
		a("SUBSCRIBE", "me"), a("CLIENT", "REPLY", "OFF"), a("PUBLISH", "me", "self"), a("SPUBLISH", "me", "s"),
		a("SSUBSCRIBE", "sme"), a("SPUBLISH", "sme", "self2"), a("CLIENT", "REPLY", "ON"),
		a("CLIENT", "REPLY", "SKIP"), a("PUBLISH", "me", "self3"), a("PING", "after"),
	}
	scripts := map[string][]trackingStep{
		"RESP2": steps,
		"RESP3": append(append([]trackingStep{a("HELLO", "3")}, steps...), append([]trackingStep{a("HELLO", "3")}, self...)...),
	}
	compareTrackingScripts(t, scripts)
}
