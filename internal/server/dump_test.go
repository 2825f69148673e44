package server

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/rdb"
	"github.com/cairndb/cairn/internal/redistest"
)

// dumpOf runs DUMP key on c and returns the payload.
func dumpOf(t *testing.T, c *redistest.Conn, who, key string) string {
	t.Helper()
	v, err := c.Do("DUMP", key)
	if err != nil {
		t.Fatalf("%s: DUMP %s: %v", who, key, err)
	}
	p, ok := v.([]byte)
	if !ok {
		t.Fatalf("%s: DUMP %s = %v", who, key, v)
	}
	return string(p)
}

// dumpCase is a value built by setup (on key k) and read back by reads
// (with {} standing for the key); unordered reads compare as multisets.
type dumpCase struct {
	name      string
	setup     [][]string
	reads     [][]string
	unordered bool
	pairs     bool
}

func dumpCases() []dumpCase {
	many := func(cmd string, n int, item func(i int) []string) []string {
		args := []string{cmd, "k"}
		for i := range n {
			args = append(args, item(i)...)
		}
		return args
	}
	str := [][]string{{"GET", "{}"}, {"TYPE", "{}"}}
	list := [][]string{{"LRANGE", "{}", "0", "-1"}, {"LLEN", "{}"}}
	zset := [][]string{{"ZRANGE", "{}", "0", "-1", "WITHSCORES"}}
	return []dumpCase{
		{name: "string", setup: [][]string{{"SET", "k", "hello"}}, reads: str},
		{name: "string int", setup: [][]string{{"SET", "k", "-123456789"}}, reads: str},
		{name: "string empty", setup: [][]string{{"SET", "k", ""}}, reads: str},
		{name: "string long", setup: [][]string{{"SET", "k", strings.Repeat("abcdefghij", 1000)}}, reads: str},
		{name: "string binary", setup: [][]string{{"SET", "k", "\x00\xff\r\n"}}, reads: str},
		{name: "list small", setup: [][]string{{"RPUSH", "k", "a", "1", "-5", "300", "70000", "-5000000000", "", strings.Repeat("x", 100), strings.Repeat("y", 5000), strings.Repeat("w", 8000)}}, reads: list},
		{name: "list large", setup: [][]string{many("RPUSH", 2000, func(i int) []string { return []string{"e" + strconv.Itoa(i)} })}, reads: list},
		{name: "list huge element", setup: [][]string{{"RPUSH", "k", "a", strings.Repeat("z", 30000), "b"}}, reads: list},
		{name: "set intset", setup: [][]string{{"SADD", "k", "1", "-2", "300", "70000", "-5000000000"}}, reads: [][]string{{"SMEMBERS", "{}"}}, unordered: true},
		{name: "set small", setup: [][]string{{"SADD", "k", "a", "b", "12"}}, reads: [][]string{{"SMEMBERS", "{}"}}, unordered: true},
		{name: "set large", setup: [][]string{many("SADD", 700, func(i int) []string { return []string{"m" + strconv.Itoa(i)} })}, reads: [][]string{{"SMEMBERS", "{}"}, {"SCARD", "{}"}}, unordered: true},
		{name: "zset small", setup: [][]string{{"ZADD", "k", "1", "a", "-2.5", "b", "inf", "c", "-inf", "d", "123456.75", "e", "0.25", "f"}}, reads: zset},
		{name: "zset large", setup: [][]string{many("ZADD", 300, func(i int) []string {
			return []string{strconv.FormatFloat(float64(i)/4, 'g', -1, 64), "m" + strconv.Itoa(i)}
		})}, reads: zset},
		{name: "hash small", setup: [][]string{{"HSET", "k", "f1", "v1", "f2", "123", "f3", ""}}, reads: [][]string{{"HGETALL", "{}"}}, unordered: true, pairs: true},
		{name: "hash large", setup: [][]string{many("HSET", 600, func(i int) []string { return []string{"f" + strconv.Itoa(i), "v" + strconv.Itoa(i)} })}, reads: [][]string{{"HGETALL", "{}"}}, unordered: true, pairs: true},
		{name: "hash long value", setup: [][]string{{"HSET", "k", "f", strings.Repeat("x", 100)}}, reads: [][]string{{"HGETALL", "{}"}}, unordered: true, pairs: true},
	}
}

// TestDumpRestoreWithRedis moves every type both ways between a real
// redis-server 7 and Cairn: DUMP in Redis then RESTORE in both, and DUMP
// in Cairn then RESTORE in both, and compares what each then holds.
func TestDumpRestoreWithRedis(t *testing.T) {
	for _, tc := range dumpCases() {
		t.Run(tc.name, func(t *testing.T) {
			d := newDiffRun(t)
			for _, c := range tc.setup {
				d.same(c...)
			}
			d.same("PEXPIRE", "k", "5000000")
			fromRedis := dumpOf(t, d.redis, "redis-server", "k")
			fromCairn := dumpOf(t, d.cairn, "Cairn", "k")
			for _, m := range []struct{ key, payload string }{{"from_redis", fromRedis}, {"from_cairn", fromCairn}} {
				d.same("RESTORE", m.key, "0", m.payload)
				d.same("RESTORE", m.key, "0", m.payload) // BUSYKEY
				d.same("RESTORE", m.key, "3000000", m.payload, "REPLACE", "IDLETIME", "10")
				d.same("TTL", m.key)
				for _, r := range tc.reads {
					args := make([]string, len(r))
					for i, a := range r {
						args[i] = strings.ReplaceAll(a, "{}", m.key)
					}
					if tc.unordered {
						d.sameUnordered(tc.pairs, args...)
					} else {
						d.same(args...)
					}
				}
				abs := strconv.FormatInt(time.Now().Add(time.Hour).UnixMilli(), 10)
				d.same("RESTORE", m.key, abs, m.payload, "REPLACE", "ABSTTL", "FREQ", "5")
				d.same("TTL", m.key)
				d.same("RESTORE", m.key, "1000", m.payload, "REPLACE", "ABSTTL")
				d.same("EXISTS", m.key)
			}
		})
	}
}

func TestRestoreErrorsLikeRedis(t *testing.T) {
	d := newDiffRun(t)
	d.same("SET", "k", "v")
	good := dumpOf(t, d.redis, "redis-server", "k")
	body := []byte(good[:len(good)-10])
	// withTrailer gives body a valid Redis 7.0 trailer.
	withTrailer := func(body string) string {
		b := binary.LittleEndian.AppendUint16([]byte(body), 10)
		return string(binary.LittleEndian.AppendUint64(b, rdb.CRC64(0, b)))
	}
	flipped := []byte(good)
	flipped[2] ^= 0x20
	cases := [][]string{
		{"RESTORE", "k", "0", good},
		{"RESTORE", "k", "-1", good},
		{"RESTORE", "k", "abc", good},
		{"RESTORE", "n", "-1", good},
		{"RESTORE", "n", "abc", good},
		{"RESTORE", "n", "0", good, "FOO"},
		{"RESTORE", "n", "0", good, "IDLETIME"},
		{"RESTORE", "n", "0", good, "IDLETIME", "-1"},
		{"RESTORE", "n", "0", good, "IDLETIME", "x"},
		{"RESTORE", "n", "0", good, "FREQ", "256"},
		{"RESTORE", "n", "0", good, "FREQ", "-1"},
		{"RESTORE", "n", "0", good, "IDLETIME", "1", "FREQ", "1"},
		{"RESTORE", "n", "0", good, "FREQ", "1", "IDLETIME", "1"},
		{"RESTORE", "k", "0", "junk", "FOO"},
		{"RESTORE", "n", "0", ""},
		{"RESTORE", "n", "0", "short"},
		{"RESTORE", "n", "0", string(flipped)},
		{"RESTORE", "n", "0", good[:len(good)-1]},
		{"RESTORE", "n", "0", withTrailer(string(body) + "x")},
		{"RESTORE", "n", "0", withTrailer("\x00\x80\xff\xff\xff\xff")},
		{"RESTORE", "n", "0", withTrailer("\x02\x81\xff\xff\xff\xff\xff\xff\xff\xff")},
		{"RESTORE", "n", "0", withTrailer("\x02\x00")},
		{"RESTORE", "n", "0", withTrailer("\x02\x02\x01a\x01a")},
		{"RESTORE", "n", "0", withTrailer("\x04\x01\x01a")},
		{"RESTORE", "n", "0", withTrailer("\x12\x01\x02\x03abc")},
		{"RESTORE", "n", "0", withTrailer("\x0b\x04\x01\x00\x00\x00")},
		{"RESTORE", "n", "0", withTrailer("\x63")},
		{"EXISTS", "n"},
		{"DUMP", "nosuchkey"},
		{"DUMP"},
	}
	for _, c := range cases {
		d.same(c...)
	}
}

// TestRestoreNotifies checks the "restore" event (class g) and the "del"
// of an ABSTTL already past, as Redis sends them.
func TestRestoreNotifies(t *testing.T) {
	d := newDiffRun(t)
	d.same("CONFIG", "SET", "notify-keyspace-events", "KEA")
	d.same("SET", "k", "v")
	p := dumpOf(t, d.redis, "redis-server", "k")
	var got [2][]string
	for i, c := range []*redistest.Conn{d.redis, d.cairn} {
		sub := notifySubscriber(t, c.Addr())
		for _, cmd := range [][]any{{"RESTORE", "r", "0", p}, {"RESTORE", "r", "0", p, "REPLACE"}, {"RESTORE", "r", "1", p, "REPLACE", "ABSTTL"}} {
			if _, err := c.Do(cmd...); err != nil {
				t.Fatal(err)
			}
		}
		got[i] = drainEvents(t, c, sub)
	}
	if fmt.Sprint(got[0]) != fmt.Sprint(got[1]) {
		t.Fatalf("notifications differ:\nredis-server: %q\nCairn:        %q", got[0], got[1])
	}
	if !strings.Contains(fmt.Sprint(got[1]), "restore") {
		t.Fatalf("no restore event: %q", got[1])
	}
}

// TestDumpHashFieldTTL: a hash with field deadlines is dumped in Redis
// 7.4's format (version 12), which Cairn restores with the deadlines and
// Redis 7.0 refuses as too new; fields already past their deadline are
// not restored.
func TestDumpHashFieldTTL(t *testing.T) {
	d := newDiffRun(t)
	c := d.cairn
	do := func(args ...any) any {
		t.Helper()
		v, err := c.Do(args...)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return v
	}
	do("HSET", "h", "a", "1", "b", "2", "c", "3")
	do("HPEXPIRE", "h", "500000", "FIELDS", "1", "a")
	do("HPEXPIRE", "h", "900000", "FIELDS", "1", "c")
	p := dumpOf(t, c, "Cairn", "h")
	if v := binary.LittleEndian.Uint16([]byte(p[len(p)-10:])); v != rdb.FieldTTLVersion {
		t.Fatalf("payload version %d", v)
	}
	do("RESTORE", "h2", "0", p)
	want := fmt.Sprint(do("HPEXPIRETIME", "h", "FIELDS", "3", "a", "b", "c"))
	if got := fmt.Sprint(do("HPEXPIRETIME", "h2", "FIELDS", "3", "a", "b", "c")); got != want {
		t.Fatalf("restored field deadlines %s, want %s", got, want)
	}
	if got, want := fmt.Sprint(do("HGETALL", "h2")), fmt.Sprint(do("HGETALL", "h")); got != want {
		t.Fatalf("restored %s, want %s", got, want)
	}
	if _, err := d.redis.Do("RESTORE", "h", "0", p); err == nil || !strings.Contains(err.Error(), "version or checksum") {
		t.Fatalf("Redis 7.0 RESTORE of a version-12 payload: %v", err)
	}
	// A field whose deadline has passed is left out; a hash of only such
	// fields is not created.
	past := time.Now().Add(-time.Hour).UnixMilli()
	o := rdb.Object{Kind: rdb.KindHash, Pairs: [][]byte{[]byte("x"), []byte("1"), []byte("y"), []byte("2")}, FieldDeadlines: []int64{past, 0}}
	do("RESTORE", "h3", "0", rdb.AppendValue(nil, o))
	if got := fmt.Sprintf("%q", do("HGETALL", "h3")); got != `["y" "2"]` {
		t.Fatalf("HGETALL after RESTORE with an expired field = %s", got)
	}
	o.FieldDeadlines = []int64{past, past}
	do("RESTORE", "h4", "0", rdb.AppendValue(nil, o))
	if got := do("EXISTS", "h4"); got != int64(0) {
		t.Fatalf("EXISTS of a hash restored with only expired fields = %v", got)
	}
}

// TestRestoreReplaceLikeRedis: REPLACE over a key of another type and
// deadline, RESTORE inside MULTI and in another database, and DUMP of a
// key Cairn wrote restored in Redis after its type changed.
func TestRestoreReplaceLikeRedis(t *testing.T) {
	d := newDiffRun(t)
	d.same("RPUSH", "l", "a", "b", "c")
	d.same("HSET", "h", "f", "v")
	d.same("SET", "s", "str")
	d.same("PEXPIRE", "s", "900000")
	list := dumpOf(t, d.redis, "redis-server", "l")
	hash := dumpOf(t, d.cairn, "Cairn", "h")
	d.same("RESTORE", "s", "0", list, "REPLACE")
	d.same("TYPE", "s")
	d.same("TTL", "s")
	d.same("LRANGE", "s", "0", "-1")
	d.same("RESTORE", "s", "0", hash, "REPLACE")
	d.same("TYPE", "s")
	d.same("HGETALL", "s")
	d.same("MULTI")
	d.same("RESTORE", "m", "0", list)
	d.same("RESTORE", "m", "0", list)
	d.same("RESTORE", "m", "0", hash, "REPLACE")
	d.same("HGET", "m", "f")
	d.same("EXEC")
	d.same("SELECT", "3")
	d.same("RESTORE", "l", "0", list)
	d.same("LRANGE", "l", "0", "-1")
	d.same("SELECT", "0")
	d.same("DBSIZE")
	for _, k := range []string{"l", "h", "s", "m"} {
		d.same("RESTORE", "copy-"+k, "0", dumpOf(t, d.cairn, "Cairn", k))
		d.same("TYPE", "copy-"+k)
	}
}

// TestRestoreTouchesWatchedKey: RESTORE REPLACE of a watched key makes
// the watcher's EXEC fail, as any write does.
func TestRestoreTouchesWatchedKey(t *testing.T) {
	d := newDiffRun(t)
	d.same("SET", "k", "old")
	p := dumpOf(t, d.redis, "redis-server", "k")
	for _, c := range []*redistest.Conn{d.redis, d.cairn} {
		other := redistest.Dial(t, c.Addr())
		for _, cmd := range [][]any{{"WATCH", "k"}, {"MULTI"}, {"GET", "k"}} {
			if _, err := c.Do(cmd...); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := other.Do("RESTORE", "k", "0", p, "REPLACE"); err != nil {
			t.Fatal(err)
		}
		if v, err := c.DoRaw("EXEC"); err != nil || string(v) != "*-1\r\n" {
			t.Fatalf("%s: EXEC after RESTORE of a watched key = %q, %v", c.Addr(), v, err)
		}
	}
}
