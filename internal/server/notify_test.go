package server

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/redistest"
	"github.com/redis/go-redis/v9"
)

// notifyCases are command sequences covering every write command and the
// reads that report a missing key, each starting from an empty server.
// Every case's events, as a subscriber to __key*__:* receives them, must be
// Redis's, in order.
var notifyCases = []struct {
	name string
	cmds [][]string
}{
	{"set", cmds(
		"SET k v", "SET k v2 XX", "SET k v NX", "SET n v XX", "SET k v EX 100",
		"SET k v KEEPTTL", "SET k v3 GET", "SET m v GET", "SET k v PX 100000 NX",
		"SETNX k v", "SETNX k2 v", "SETEX k 100 v", "PSETEX k 100000 v",
		"GETSET k w", "GETSET fresh w", "LPUSH l a", "SET l v GET", "SET l v")},
	{"getdel-getex", cmds(
		"SET k v", "GETDEL k", "GETDEL k", "SET k v", "GETEX k EX 100", "GETEX k PERSIST",
		"GETEX k PERSIST", "GETEX k PX 5000", "GETEX k", "GETEX nope EX 10",
		"GETEX k PXAT 1", "GET k")},
	{"mset-append-incr", cmds(
		"MSET a 1 b 2 a 3", "MSETNX a 1 c 3", "MSETNX c 3 d 4", "APPEND a x", "APPEND z x",
		"APPEND z ''", "INCR n", "INCRBY n 5", "DECR n", "DECRBY n 2", "INCR z",
		"INCRBY n 9223372036854775807", "INCRBYFLOAT f 1.5", "INCRBYFLOAT f abc",
		"SETRANGE s 5 x", "SETRANGE s2 0 ''", "SETRANGE s 0 ''", "SETRANGE s 1 yy",
		"SETRANGE s 536870912 x", "LPUSH l x", "APPEND l x", "INCR l", "SETRANGE l 0 x")},
	{"bitmaps", cmds(
		"SETBIT b 7 1", "SETBIT b 7 1", "SETBIT b 7 0", "SETBIT b 100 0", "SETBIT b 3 x",
		"GETBIT nope 1", "GETBIT b 7", "BITCOUNT nope", "BITCOUNT b", "BITPOS nope 1", "BITPOS b 0",
		"BITOP OR d b nope", "BITOP AND d nope nope2", "BITOP AND d nope", "BITOP NOT d b",
		"BITFIELD f SET u8 0 5", "BITFIELD f SET u8 0 5", "BITFIELD f GET u8 0", "BITFIELD nope GET u8 0",
		"BITFIELD g OVERFLOW FAIL INCRBY u2 0 9", "BITFIELD_RO nope GET u8 0", "BITFIELD f INCRBY u8 0 1",
		"SETBIT big 4000000 1", "BITCOUNT big", "SETBIT big 4000000 1", "LPUSH l x", "SETBIT l 0 1")},
	{"string reads", cmds(
		"GET nope", "SET a 1", "GET a", "MGET a nope a nope2", "STRLEN nope", "STRLEN a",
		"GETRANGE nope 0 1", "GETRANGE a x 1", "LCS a nope", "LPUSH l x", "GET l", "MGET l")},
	{"del-exists-type-ttl", cmds(
		"MSET a 1 b 2", "DEL a nope b a", "SET a 1", "UNLINK a a", "SET a 1",
		"EXISTS a nope a nope", "TOUCH a nope", "TYPE nope", "TYPE a", "TTL nope", "PTTL a",
		"EXPIRETIME nope", "PEXPIRETIME a", "OBJECT ENCODING nope", "OBJECT IDLETIME nope",
		"OBJECT REFCOUNT nope", "RANDOMKEY", "DBSIZE", "KEYS *", "SCAN 0 MATCH nope")},
	{"rename", cmds(
		"SET a 1", "RENAME a b", "RENAME b b", "RENAME nope x", "SET c 3", "RENAME b c",
		"RENAMENX c c", "SET d 4", "RENAMENX c d", "RENAMENX c e", "SADD s x", "RENAME s e",
		"EXPIRE e 100", "RENAME e f", "TTL f")},
	{"copy-move", cmds(
		"SET a 1", "COPY a b", "COPY a b", "COPY a b REPLACE", "COPY nope x", "COPY a a",
		"COPY a b DB 1", "COPY a b DB 1", "RPUSH l 1 2", "COPY l l2", "MOVE a 1", "MOVE b 1",
		"MOVE nope 1", "MOVE l 0", "SELECT 1", "DEL a b", "SELECT 0")},
	{"expire-persist", cmds(
		"SET k v", "EXPIRE k 100", "EXPIRE k 100 NX", "EXPIRE k 200 XX", "EXPIRE k 50 GT",
		"EXPIRE k 50 LT", "PEXPIRE k 100000", "EXPIREAT k 99999999999", "PERSIST k",
		"PERSIST k", "PERSIST nope", "EXPIRE nope 10", "EXPIRE k -1", "SET k v",
		"PEXPIREAT k 1", "SET k v", "EXPIRE k 0", "SADD s a", "EXPIRE s 100", "PERSIST s")},
	{"flush-swap", cmds(
		"MSET a 1 b 2", "SELECT 1", "SET c 3", "SELECT 0", "SWAPDB 0 1", "FLUSHDB",
		"SELECT 1", "FLUSHDB", "SET x 1", "FLUSHALL")},
	{"push-pop", cmds(
		"LPUSH l a b", "RPUSH l c", "LPUSHX nope x", "RPUSHX nope x", "RPUSHX l d",
		"LPUSHX l e", "LPOP l", "RPOP l 2", "LPOP l 0", "LPOP nope", "RPOP nope 2",
		"RPOP l 10", "LPOP l", "SET s x", "LPUSH s x", "LPOP s")},
	{"list edits", cmds(
		"RPUSH l a b c a", "LSET l 0 x", "LSET l 9 x", "LSET nope 0 x", "LINSERT l BEFORE b y",
		"LINSERT l AFTER nope z", "LINSERT nope BEFORE a b", "LREM l 0 a", "LREM l 0 zz",
		"LTRIM l 0 1", "LTRIM l 0 -1", "LTRIM nope 0 1", "LTRIM l 5 10", "RPUSH m a",
		"LREM m 1 a", "RPUSH t a b", "LTRIM t 1 0")},
	{"list moves", cmds(
		"RPUSH src a b", "LMOVE src dst LEFT RIGHT", "LMOVE src dst RIGHT LEFT",
		"LMOVE src dst LEFT LEFT", "RPUSH one x", "LMOVE one one LEFT RIGHT",
		"RPOPLPUSH one two", "RPOPLPUSH nope two", "RPUSH l 1 2 3",
		"LMPOP 2 nope l LEFT COUNT 2", "LMPOP 1 l RIGHT COUNT 5", "LMPOP 1 l LEFT",
		"RPUSH b 1 2", "BLPOP nope b 1", "BRPOP b 1", "RPUSH c 1",
		"BLMOVE c d LEFT RIGHT 1", "BRPOPLPUSH d e 1", "RPUSH f 1 2",
		"BLMPOP 1 2 nope f RIGHT COUNT 9")},
	{"list reads", cmds(
		"LLEN nope", "LINDEX nope 0", "LINDEX nope x", "LRANGE nope 0 -1", "LRANGE nope a b",
		"LPOS nope a", "RPUSH l a", "LLEN l", "LINDEX l 0", "LRANGE l 0 -1", "LPOS l a")},
	{"sets", cmds(
		"SADD s a b", "SADD s a", "SREM s x", "SREM nope x", "SREM s a", "SREM s b x",
		"SADD s a b c", "SPOP s 0", "SPOP nope", "SPOP nope 2", "SPOP s 1", "SPOP s 10",
		"SADD t 1", "SPOP t")},
	{"smove", cmds(
		"SADD s a b", "SMOVE s d a", "SMOVE s d x", "SMOVE nope d a", "SMOVE s s b",
		"SADD d b", "SMOVE s d b", "SADD s c", "SMOVE s e c", "SET str x", "SADD f z",
		"SMOVE f str z")},
	{"set stores", cmds(
		"SADD a 1 2 3", "SADD b 2 3 4", "SINTERSTORE d a b", "SUNIONSTORE d a b",
		"SDIFFSTORE d a b", "SINTERSTORE d a nope", "SINTERSTORE d a nope", "SDIFFSTORE e a a",
		"SUNIONSTORE e nope nope2", "SUNIONSTORE a a b", "SINTERSTORE b b", "SDIFFSTORE b b b",
		"SET str x", "SINTERSTORE str a", "SINTERSTORE d a str", "SUNIONSTORE str2 nope")},
	{"set reads", cmds(
		"SISMEMBER nope x", "SMISMEMBER nope x y", "SMEMBERS nope", "SCARD nope",
		"SRANDMEMBER nope", "SRANDMEMBER nope 2", "SRANDMEMBER nope x", "SINTER nope nope2",
		"SUNION nope", "SDIFF nope", "SINTERCARD 2 nope nope2", "SSCAN nope 0", "SSCAN nope x",
		"SADD s a", "SCARD s", "SMEMBERS s", "SINTER s nope")},
	{"hashes", cmds(
		"HSET h a 1", "HSET h a 1", "HMSET h b 2", "HSETNX h a 1", "HSETNX h c 3",
		"HSETNX h2 a 1", "HINCRBY h n 5", "HINCRBY h a x", "HINCRBYFLOAT h f 1.5",
		"HINCRBYFLOAT h a nan", "HDEL h nope", "HDEL nope a", "HDEL h a b",
		"HDEL h c n f", "SET s x", "HSET s a 1")},
	{"hash reads", cmds(
		"HGET nope f", "HMGET nope a b", "HLEN nope", "HSTRLEN nope f", "HEXISTS nope f",
		"HGETALL nope", "HKEYS nope", "HVALS nope", "HRANDFIELD nope", "HRANDFIELD nope 2",
		"HSCAN nope 0", "HSET h a 1", "HGET h b", "HLEN h")},
	{"zadd", cmds(
		"ZADD z 1 a 2 b", "ZADD z 1 a", "ZADD z XX 3 c", "ZADD z NX 5 a", "ZADD z CH 9 a",
		"ZADD z INCR 1 a", "ZINCRBY z 0 a", "ZINCRBY z 1 a", "ZINCRBY y 1 a",
		"ZADD z GT 1 a", "ZADD z LT 1 a", "ZADD z XX INCR 1 nope", "ZADD w XX 1 a",
		"ZADD z x a", "ZADD z INCR inf b", "ZADD z INCR -inf b")},
	{"zrem", cmds(
		"ZADD z 1 a 2 b 3 c 4 d 5 e", "ZREM z nope", "ZREM nope a", "ZREM z a",
		"ZREMRANGEBYSCORE z 100 200", "ZREMRANGEBYSCORE z 2 2", "ZREMRANGEBYRANK z 5 9",
		"ZREMRANGEBYRANK z 0 0", "ZREMRANGEBYLEX z [a [a", "ZREMRANGEBYLEX z - +",
		"ZADD y 1 a", "ZREM y a b")},
	{"zpop", cmds(
		"ZADD z 1 a 2 b 3 c", "ZPOPMIN z", "ZPOPMAX z 0", "ZPOPMIN nope", "ZPOPMAX z 5",
		"ZADD z 1 a 2 b", "ZMPOP 2 nope z MIN COUNT 1", "ZMPOP 1 z MAX COUNT 9",
		"ZADD y 1 a 2 b", "BZPOPMIN nope y 1", "BZPOPMAX y 1", "ZADD x 1 a",
		"BZMPOP 1 2 nope x MIN")},
	{"zstores", cmds(
		"ZADD a 1 x 2 y", "ZADD b 3 y 4 z", "ZUNIONSTORE d 2 a b", "ZINTERSTORE d 2 a b",
		"ZDIFFSTORE d 2 a b", "ZINTERSTORE d 2 a nope", "ZINTERSTORE d 2 a nope",
		"ZDIFFSTORE e 1 nope", "ZRANGESTORE r a 0 -1", "ZRANGESTORE r a 5 9",
		"ZRANGESTORE r nope 0 -1", "ZUNIONSTORE d 2 a b WEIGHTS 1", "ZUNIONSTORE d 1 nope",
		"SET str x", "ZUNIONSTORE str 1 a", "ZRANGESTORE str a 0 0", "ZINTERSTORE a 2 a a")},
	{"zset reads", cmds(
		"ZCARD nope", "ZSCORE nope a", "ZMSCORE nope a b", "ZCOUNT nope 0 1", "ZCOUNT nope x 1",
		"ZLEXCOUNT nope - +", "ZRANK nope a", "ZREVRANK nope a", "ZRANGE nope 0 -1",
		"ZRANGE nope 0 -1 BYSCORE", "ZRANGEBYSCORE nope 0 1", "ZREVRANGE nope 0 1",
		"ZRANGEBYLEX nope - +", "ZRANDMEMBER nope", "ZRANDMEMBER nope 3",
		"ZUNION 2 nope nope2", "ZINTER 1 nope", "ZDIFF 1 nope", "ZINTERCARD 1 nope",
		"ZUNION 2 nope nope2 BADOPT", "ZSCAN nope 0", "ZADD z 1 a", "ZCARD z", "ZSCORE z b")},
	{"multi", cmds(
		"MULTI", "SET a 1", "LPUSH l x", "GET nope", "INCR a", "LPOP l", "EXEC",
		"MULTI", "SET b 1", "DISCARD", "MULTI", "GET nope", "SCARD nope2", "EXEC",
		"MULTI", "SET c 1", "INCR nope", "LPUSH c x", "EXEC")},
}

// cmds splits each command at spaces; two single quotes stand for an
// empty argument.
func cmds(lines ...string) [][]string {
	out := make([][]string, len(lines))
	for i, l := range lines {
		for _, a := range strings.Fields(l) {
			if a == "''" {
				a = ""
			}
			out[i] = append(out[i], a)
		}
	}
	return out
}

// TestNotifyMatchesRedis runs every case on a real redis-server and on
// Cairn, each with notify-keyspace-events set, and compares what a
// subscriber to __key*__:* receives, message by message. The installed
// Redis is 7.0; the events of these commands are the same in 7.2 (only
// the serving of blocked clients moved, with the same events).
func TestNotifyMatchesRedis(t *testing.T) {
	for _, classes := range []string{"KEA", "KEAmn", "Kgn", "El$", "Ezxm"} {
		t.Run(classes, func(t *testing.T) {
			d := newDiffRun(t)
			rsub := notifySubscriber(t, d.redis.Addr())
			csub := notifySubscriber(t, d.cairn.Addr())
			d.same("CONFIG", "SET", "notify-keyspace-events", classes)
			for _, tc := range notifyCases {
				d.same("FLUSHALL")
				for _, c := range tc.cmds {
					if randomReply[strings.ToUpper(c[0])] {
						d.send(c...)
					} else {
						d.same(c...)
					}
				}
				want := drainEvents(t, d.redis, rsub)
				got := drainEvents(t, d.cairn, csub)
				if i := firstDifference(want, got); i >= 0 {
					lo := max(i-4, 0)
					t.Errorf("%s: events differ from #%d\nRedis:\n  %s\nCairn:\n  %s", tc.name, i,
						strings.Join(want[lo:min(i+6, len(want))], "\n  "),
						strings.Join(got[lo:min(i+6, len(got))], "\n  "))
				}
			}
		})
	}
}

// randomReply names the commands whose replies are random: only their
// events are compared.
var randomReply = map[string]bool{"SPOP": true, "SRANDMEMBER": true, "HRANDFIELD": true, "ZRANDMEMBER": true}

// firstDifference is the index of the first element where a and b differ,
// -1 when they are equal.
func firstDifference(a, b []string) int {
	for i := range max(len(a), len(b)) {
		if i >= len(a) || i >= len(b) || a[i] != b[i] {
			return i
		}
	}
	return -1
}

// notifySubscriber subscribes a new connection to addr to every keyspace
// and keyevent channel.
func notifySubscriber(t *testing.T, addr string) *redis.PubSub {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, DisableIdentity: true})
	t.Cleanup(func() { c.Close() })
	ps := c.PSubscribe(context.Background(), "__key*__:*")
	t.Cleanup(func() { ps.Close() })
	if _, err := ps.Receive(context.Background()); err != nil {
		t.Fatalf("PSUBSCRIBE: %v", err)
	}
	return ps
}

// drainEvents publishes an end marker on conn's server (a channel the
// pattern also matches) and returns the messages that came before it.
func drainEvents(t *testing.T, conn interface {
	Do(args ...any) (any, error)
}, ps *redis.PubSub) []string {
	t.Helper()
	if _, err := conn.Do("PUBLISH", "__keyend__:end", "end"); err != nil {
		t.Fatalf("PUBLISH: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var out []string
	for {
		m, err := ps.ReceiveMessage(ctx)
		if err != nil {
			t.Fatalf("waiting for events (got %q): %v", out, err)
		}
		if m.Channel == "__keyend__:end" {
			return out
		}
		out = append(out, fmt.Sprintf("%s %s", m.Channel, m.Payload))
	}
}

// TestNotifyHashFieldExpiry checks the events of the commands the
// installed Redis (7.0) lacks, against what Redis 7.4's t_hash.c
// (HEXPIRE, HPERSIST, field reclaiming) and Redis 8's (HGETDEL, HGETEX,
// HSETEX) emit.
func TestNotifyHashFieldExpiry(t *testing.T) {
	ts := startServer(t)
	c := redistest.Dial(t, ts.addr)
	sub := notifySubscriber(t, ts.addr)
	if _, err := c.Do("CONFIG", "SET", "notify-keyspace-events", "KAn"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		cmds [][]string
		want []string
	}{
		{cmds("HSET h a 1 b 2 c 3"), []string{"h new", "h hset"}},
		{cmds("HEXPIRE h 100 FIELDS 2 a nope"), []string{"h hexpire"}},
		{cmds("HEXPIRE h 100 NX FIELDS 1 a", "HEXPIRE nope 100 FIELDS 1 a"), nil},
		{cmds("HPEXPIREAT h 1 FIELDS 1 a"), []string{"h hdel"}},
		{cmds("HEXPIRE h 100 FIELDS 1 b", "HPERSIST h FIELDS 2 b c"), []string{"h hexpire", "h hpersist"}},
		{cmds("HPERSIST h FIELDS 1 b"), nil},
		{cmds("HGETDEL h FIELDS 2 b nope"), []string{"h hdel"}},
		{cmds("HGETDEL h FIELDS 1 nope"), nil},
		{cmds("HGETEX h EX 100 FIELDS 1 c", "HGETEX h PERSIST FIELDS 1 c", "HGETEX h PERSIST FIELDS 1 c"),
			[]string{"h hexpire", "h hpersist"}},
		{cmds("HGETEX h PXAT 1 FIELDS 1 c"), []string{"h hdel", "h del"}},
		{cmds("HSETEX h EX 100 FIELDS 1 a 1"), []string{"h new", "h hset", "h hexpire"}},
		{cmds("HSETEX h FNX FIELDS 1 a 1", "HSETEX h FXX FIELDS 1 zz 1"), nil},
		{cmds("HSETEX h KEEPTTL FIELDS 1 a 2"), []string{"h hset"}},
		{cmds("HSETEX h PXAT 1 FIELDS 1 a 2"), []string{"h hset", "h hdel", "h del"}},
		{cmds("HSETEX g PXAT 1 FIELDS 1 a 2"), []string{"g new", "g hset", "g hdel", "g del"}},
		{cmds("HSET h a 1", "HDEL h a"), []string{"h new", "h hset", "h hdel", "h del"}},
	}
	for _, tc := range tests {
		for _, cmd := range tc.cmds {
			args := make([]any, len(cmd))
			for i, a := range cmd {
				args[i] = a
			}
			if _, err := c.Do(args...); err != nil {
				t.Fatalf("%q: %v", cmd, err)
			}
		}
		got := keyspaceEvents(drainEvents(t, c, sub))
		if strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%q: events %q, want %q", tc.cmds, got, tc.want)
		}
	}
}

// TestNotifyExpiryAndPastDeadlines checks the events Redis sends at a
// moment of its own choosing (an expired key or field reclaimed), which
// the differential test cannot compare.
func TestNotifyExpiryAndPastDeadlines(t *testing.T) {
	ts := startServer(t)
	c := redistest.Dial(t, ts.addr)
	sub := notifySubscriber(t, ts.addr)
	if _, err := c.Do("CONFIG", "SET", "notify-keyspace-events", "KAn"); err != nil {
		t.Fatal(err)
	}
	do := func(args ...any) {
		t.Helper()
		if _, err := c.Do(args...); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
	}
	// Redis stores a SET with a past deadline and reclaims it at once.
	do("SET", "k", "v", "PXAT", "1")
	want := []string{"k new", "k set", "k expire", "k expired"}
	if got := keyspaceEvents(drainEvents(t, c, sub)); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("SET PXAT 1: events %q, want %q", got, want)
	}
	// A key and a field reach their deadlines: the reclaimers report them.
	do("SET", "gone", "v", "PX", "20")
	do("HSET", "h", "a", "1", "b", "2")
	do("HPEXPIRE", "h", "20", "FIELDS", "1", "a")
	do("HSET", "h2", "a", "1")
	do("HPEXPIRE", "h2", "20", "FIELDS", "1", "a")
	want = []string{"gone expired", "h hexpired", "h2 del", "h2 hexpired"}
	deadline := time.Now().Add(10 * time.Second)
	var seen []string
	for time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		for _, e := range keyspaceEvents(drainEvents(t, c, sub)) {
			if strings.HasSuffix(e, "expired") || strings.HasSuffix(e, " del") {
				seen = append(seen, e)
			}
		}
		if len(seen) >= len(want) {
			break
		}
	}
	slices.Sort(seen)
	if strings.Join(seen, ",") != strings.Join(want, ",") {
		t.Errorf("reclaiming: events %q, want %q", seen, want)
	}
}

// keyspaceEvents keeps the __keyspace@0__ messages of events, as "key
// event".
func keyspaceEvents(events []string) []string {
	var out []string
	for _, e := range events {
		if rest, ok := strings.CutPrefix(e, "__keyspace@0__:"); ok {
			out = append(out, rest)
		}
	}
	return out
}

// TestNotifyBlockedClientServed compares the events of blocking pops that
// wait and are then served by another client's push: Redis 7.2 runs the
// command again, as Cairn does (7.0 serves it apart, with the same
// events).
func TestNotifyBlockedClientServed(t *testing.T) {
	d := newDiffRun(t)
	rsub := notifySubscriber(t, d.redis.Addr())
	csub := notifySubscriber(t, d.cairn.Addr())
	d.same("CONFIG", "SET", "notify-keyspace-events", "KEA")
	cases := []struct{ block, push []string }{
		{cmds("BLPOP l 5")[0], cmds("RPUSH l a b")[0]},
		{cmds("BLMOVE src dst RIGHT LEFT 5")[0], cmds("LPUSH src x")[0]},
		{cmds("BZPOPMAX z 5")[0], cmds("ZADD z 1 a")[0]},
		{cmds("BLMPOP 5 1 m LEFT COUNT 3")[0], cmds("RPUSH m 1 2")[0]},
	}
	for _, tc := range cases {
		for _, srv := range []struct {
			conn *redistest.Conn
			addr string
		}{{d.redis, d.redis.Addr()}, {d.cairn, d.cairn.Addr()}} {
			blocked := redistest.Dial(t, srv.addr)
			done := make(chan error, 1)
			go func() {
				args := make([]any, len(tc.block))
				for i, a := range tc.block {
					args[i] = a
				}
				_, err := blocked.Do(args...)
				done <- err
			}()
			waitBlocked(t, srv.conn)
			args := make([]any, len(tc.push))
			for i, a := range tc.push {
				args[i] = a
			}
			if _, err := srv.conn.Do(args...); err != nil {
				t.Fatal(err)
			}
			if err := <-done; err != nil {
				t.Fatalf("%q: %v", tc.block, err)
			}
		}
		want := drainEvents(t, d.redis, rsub)
		got := drainEvents(t, d.cairn, csub)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%q then %q: events\n  %s\nwant\n  %s", tc.block, tc.push,
				strings.Join(got, "\n  "), strings.Join(want, "\n  "))
		}
		d.same("FLUSHALL")
	}
}

// waitBlocked waits until a client of conn's server is blocked.
func waitBlocked(t *testing.T, conn *redistest.Conn) {
	t.Helper()
	for range 500 {
		v, err := conn.Do("INFO", "clients")
		if err != nil {
			t.Fatal(err)
		}
		if s, ok := v.([]byte); ok && !strings.Contains(string(s), "blocked_clients:0") {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("no client blocked")
}
