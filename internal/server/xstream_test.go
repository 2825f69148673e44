package server

import (
	"context"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestStreamAutoIDs checks the ids XADD generates: the time in
// milliseconds, a sequence after the last id, never going back.
func TestStreamAutoIDs(t *testing.T) {
	ts := startServer(t)
	c := ts.client(t, 2)
	ctx := context.Background()
	before := time.Now().UnixMilli()
	var last [2]uint64
	for i := range 50 {
		id, err := c.XAdd(ctx, &redis.XAddArgs{Stream: "s", Values: []any{"i", i}}).Result()
		if err != nil {
			t.Fatal(err)
		}
		ms, seq, ok := strings.Cut(id, "-")
		if !ok {
			t.Fatalf("id %q", id)
		}
		m, _ := strconv.ParseUint(ms, 10, 64)
		s, _ := strconv.ParseUint(seq, 10, 64)
		if int64(m) < before || int64(m) > time.Now().UnixMilli() {
			t.Fatalf("id %q: time outside [%d, now]", id, before)
		}
		if m < last[0] || (m == last[0] && s <= last[1]) {
			t.Fatalf("id %q after %d-%d", id, last[0], last[1])
		}
		last = [2]uint64{m, s}
	}
	// After an explicit id in the future, * continues its sequence.
	future := uint64(time.Now().UnixMilli() + 3600_000)
	ksRun(t, c, []ksStep{
		kstep(strconv.FormatUint(future, 10)+"-5", "XADD", "s", strconv.FormatUint(future, 10)+"-5", "f", "v"),
		kstep(strconv.FormatUint(future, 10)+"-6", "XADD", "s", "*", "f", "v"),
		kstep(int64(52), "XLEN", "s"),
		// XSETID refuses (as Redis 7.2 does) a last id below the largest
		// deleted one.
		kstep(int64(1), "XDEL", "s", strconv.FormatUint(future, 10)+"-6"),
		kstep(ksErr("ERR The ID specified in XSETID is smaller than current max_deleted_entry_id"), "XSETID", "s", strconv.FormatUint(future, 10)+"-5"),
		kstep("OK", "XSETID", "s", strconv.FormatUint(future, 10)+"-6"),
	})
}

// TestStreamXReadPlus checks XREAD's + id (Redis 7.4): the last entry.
func TestStreamXReadPlus(t *testing.T) {
	ts := startServer(t)
	c := ts.client(t, 2)
	ksRun(t, c, []ksStep{
		kstep(ksNil{}, "XREAD", "STREAMS", "s", "+"),
		kstep("1-1", "XADD", "s", "1-1", "a", "1"),
		kstep("2-1", "XADD", "s", "2-1", "b", "2"),
		kstep([]any{[]any{"s", []any{[]any{"2-1", []any{"b", "2"}}}}}, "XREAD", "STREAMS", "s", "+"),
	})
}

// TestStreamXReadBlock checks XREAD BLOCK: woken by an XADD from another
// client (with $ resolved when it blocked), by one inside MULTI and a
// script, timing out with a null, and served in the order blocked.
func TestStreamXReadBlock(t *testing.T) {
	listBlockingBoth(t, func(t *testing.T, ts *testServer, c *redis.Client, proto int) {
		ksDo(t, c, "XADD", "s", "1-1", "old", "x")
		entry := func(id, f, v string) any { return []any{id, []any{f, v}} }
		reply := func(key string, entries ...any) any {
			if proto == 3 {
				return map[any]any{key: entries}
			}
			return []any{[]any{key, entries}}
		}
		for _, v := range []struct {
			cmd  []any
			add  [][]any
			want any
		}{
			{[]any{"XREAD", "BLOCK", "0", "STREAMS", "s", "$"}, [][]any{{"XADD", "s", "2-1", "new", "y"}}, reply("s", entry("2-1", "new", "y"))},
			{[]any{"XREAD", "BLOCK", "0", "STREAMS", "nos", "s", "$", "$"}, [][]any{{"XADD", "nos", "5-1", "a", "b"}}, reply("nos", entry("5-1", "a", "b"))},
			{[]any{"XREAD", "BLOCK", "0", "COUNT", "1", "STREAMS", "s", "2-1"}, [][]any{{"MULTI"}, {"XADD", "s", "3-1", "m", "1"}, {"XADD", "s", "3-2", "m", "2"}, {"EXEC"}}, reply("s", entry("3-1", "m", "1"))},
			{[]any{"XREAD", "BLOCK", "0", "STREAMS", "s", "$"}, [][]any{{"EVAL", "return redis.call('XADD', KEYS[1], '4-1', 'l', 'u')", "1", "s"}}, reply("s", entry("4-1", "l", "u"))},
		} {
			a := listGo(t, ts, proto, v.cmd...)
			listWaitBlocked(t, c, 1)
			a.pending(t)
			for _, cmd := range v.add {
				ksDo(t, c, cmd...)
			}
			a.expect(t, v.want)
			listWaitBlocked(t, c, 0)
		}
		// A write that adds nothing new to the stream leaves it waiting.
		a := listGo(t, ts, proto, "XREAD", "BLOCK", "0", "STREAMS", "s", "$")
		listWaitBlocked(t, c, 1)
		ksDo(t, c, "XDEL", "s", "1-1")
		ksDo(t, c, "XSETID", "s", "10-0")
		ksDo(t, c, "DEL", "s")
		ksDo(t, c, "SET", "s", "str")
		ksDo(t, c, "DEL", "s")
		a.pending(t)
		ksDo(t, c, "XADD", "s", "4-1", "older", "z")
		a.pending(t)
		ksDo(t, c, "XADD", "s", "5-1", "again", "z")
		a.expect(t, reply("s", entry("5-1", "again", "z")))
		// Timeout.
		a = listGo(t, ts, proto, "XREAD", "BLOCK", "50", "STREAMS", "s", "$")
		a.expect(t, ksNil{})
		// Served in the order blocked.
		var as []*listAsync
		for i := range 3 {
			as = append(as, listGo(t, ts, proto, "XREAD", "BLOCK", "0", "STREAMS", "q", "$"))
			listWaitBlocked(t, c, i+1)
		}
		ksDo(t, c, "XADD", "q", "1-1", "k", "v")
		for _, a := range as {
			a.expect(t, reply("q", entry("1-1", "k", "v")))
		}
	})
}

// TestStreamXReadGroupBlock checks XREADGROUP BLOCK: woken by XADD and
// given the entry as pending, timing out, and the error (NOGROUP, as Redis
// 7.2 runs the command again) when the stream is deleted or the group
// destroyed while it waits.
func TestStreamXReadGroupBlock(t *testing.T) {
	listBlockingBoth(t, func(t *testing.T, ts *testServer, c *redis.Client, proto int) {
		ksDo(t, c, "XGROUP", "CREATE", "s", "g", "$", "MKSTREAM")
		reply := func(key string, entries ...any) any {
			if proto == 3 {
				return map[any]any{key: entries}
			}
			return []any{[]any{key, entries}}
		}
		a := listGo(t, ts, proto, "XREADGROUP", "GROUP", "g", "c1", "BLOCK", "0", "STREAMS", "s", ">")
		listWaitBlocked(t, c, 1)
		a.pending(t)
		ksDo(t, c, "XADD", "s", "1-1", "f", "v")
		a.expect(t, reply("s", []any{"1-1", []any{"f", "v"}}))
		ksRun(t, c, []ksStep{kstep([]any{int64(1), "1-1", "1-1", []any{[]any{"c1", "1"}}}, "XPENDING", "s", "g")})

		a = listGo(t, ts, proto, "XREADGROUP", "GROUP", "g", "c1", "BLOCK", "50", "STREAMS", "s", ">")
		a.expect(t, ksNil{})

		a = listGo(t, ts, proto, "XREADGROUP", "GROUP", "g", "c1", "BLOCK", "0", "STREAMS", "s", ">")
		listWaitBlocked(t, c, 1)
		ksDo(t, c, "XGROUP", "DESTROY", "s", "g")
		expectError(t, a, "NOGROUP No such key 's' or consumer group 'g' in XREADGROUP with GROUP option")

		ksDo(t, c, "XGROUP", "CREATE", "s", "g", "$")
		a = listGo(t, ts, proto, "XREADGROUP", "GROUP", "g", "c1", "BLOCK", "0", "STREAMS", "s", ">")
		listWaitBlocked(t, c, 1)
		ksDo(t, c, "DEL", "s")
		expectError(t, a, "NOGROUP No such key 's' or consumer group 'g' in XREADGROUP with GROUP option")
		listWaitBlocked(t, c, 0)
	})
}

// TestStreamGroupPending checks XPENDING's extended form, whose idle
// times depend on the clock.
func TestStreamGroupPending(t *testing.T) {
	ts := startServer(t)
	c := ts.client(t, 2)
	ctx := context.Background()
	ksDo(t, c, "XGROUP", "CREATE", "s", "g", "0", "MKSTREAM")
	for i := 1; i <= 4; i++ {
		ksDo(t, c, "XADD", "s", strconv.Itoa(i)+"-0", "f", "v")
	}
	ksDo(t, c, "XREADGROUP", "GROUP", "g", "a", "COUNT", "3", "STREAMS", "s", ">")
	ksDo(t, c, "XREADGROUP", "GROUP", "g", "b", "STREAMS", "s", ">")
	ksDo(t, c, "XREADGROUP", "GROUP", "g", "a", "STREAMS", "s", "0")
	got, err := c.XPendingExt(ctx, &redis.XPendingExtArgs{Stream: "s", Group: "g", Start: "-", End: "+", Count: 10}).Result()
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		id, consumer string
		n            int64
	}{{"1-0", "a", 2}, {"2-0", "a", 2}, {"3-0", "a", 2}, {"4-0", "b", 1}}
	if len(got) != len(want) {
		t.Fatalf("XPENDING: %+v", got)
	}
	for i, w := range want {
		if got[i].ID != w.id || got[i].Consumer != w.consumer || got[i].RetryCount != w.n || got[i].Idle < 0 || got[i].Idle > 5*time.Second {
			t.Fatalf("XPENDING entry %d: %+v, want %+v", i, got[i], w)
		}
	}
	got, err = c.XPendingExt(ctx, &redis.XPendingExtArgs{Stream: "s", Group: "g", Start: "(1-0", End: "+", Count: 1, Consumer: "a"}).Result()
	if err != nil || len(got) != 1 || got[0].ID != "2-0" {
		t.Fatalf("XPENDING from (1-0 of a, count 1: %+v, %v", got, err)
	}
	time.Sleep(20 * time.Millisecond)
	got, err = c.XPendingExt(ctx, &redis.XPendingExtArgs{Stream: "s", Group: "g", Idle: 10 * time.Millisecond, Start: "-", End: "+", Count: 10, Consumer: "nobody"}).Result()
	if err != nil || len(got) != 0 {
		t.Fatalf("XPENDING of an unknown consumer: %+v, %v", got, err)
	}
	got, err = c.XPendingExt(ctx, &redis.XPendingExtArgs{Stream: "s", Group: "g", Idle: time.Hour, Start: "-", End: "+", Count: 10}).Result()
	if err != nil || len(got) != 0 {
		t.Fatalf("XPENDING IDLE 1h: %+v, %v", got, err)
	}
}

// expectError waits for a's reply, which must be the error msg.
func expectError(t *testing.T, a *listAsync, msg string) {
	t.Helper()
	got, err := a.wait(t, 5*time.Second)
	if err == nil || err.Error() != msg {
		t.Fatalf("reply %#v, %v; want the error %q", got, err, msg)
	}
}

// TestStreamKeyspace checks a stream among the keyspace commands: TYPE,
// SCAN TYPE, OBJECT ENCODING, EXPIRE, MOVE, SWAPDB, RENAME with groups,
// and commands inside a script.
func TestStreamKeyspace(t *testing.T) {
	ts := startServer(t)
	c := ts.client(t, 2)
	ksRun(t, c, []ksStep{
		kstep("1-1", "XADD", "s", "1-1", "f", "v"),
		kstep("OK", "XGROUP", "CREATE", "s", "g", "0"),
		kstep([]any{[]any{"s", []any{[]any{"1-1", []any{"f", "v"}}}}}, "XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", ">"),
		kstep("stream", "TYPE", "s"),
		kstep("stream", "OBJECT", "ENCODING", "s"),
		kstep("OK", "SET", "str", "x"),
		kstep([]any{"0", []any{"s"}}, "SCAN", "0", "TYPE", "stream"),
		kstep("OK", "RENAME", "s", "s2"),
		kstep([]any{int64(1), "1-1", "1-1", []any{[]any{"c", "1"}}}, "XPENDING", "s2", "g"),
		kstep(int64(1), "MOVE", "s2", "1"),
		kstep("OK", "SELECT", "1"),
		kstep(int64(1), "XLEN", "s2"),
		kstep("OK", "SWAPDB", "0", "1"),
		kstep("OK", "SELECT", "0"),
		kstep(int64(1), "XACK", "s2", "g", "1-1"),
		kstep(int64(1), "PEXPIRE", "s2", "30"),
		kstep("2-1", "EVAL", "return redis.call('XADD', KEYS[1], '2-1', 'a', 'b')", "1", "s3"),
		// Redis 7 refuses BLOCK from scripts rather than answer null.
		kstep(replyErr("ERR XREAD command is not allowed with BLOCK option from scripts script: 86e7d269636ee5b5acd5c77a27465179112514ca, on @user_script:1."), "EVAL", "return redis.call('XREAD', 'BLOCK', '0', 'STREAMS', KEYS[1], '$')", "1", "s3"),
		kstep(int64(1), "EVAL", "return redis.call('XLEN', KEYS[1])", "1", "s3"),
	})
	time.Sleep(60 * time.Millisecond)
	ksRun(t, c, []ksStep{kstep(int64(0), "EXISTS", "s2")})
}

// TestStreamInfoTimes checks XINFO CONSUMERS and STREAM FULL, whose
// replies hold times.
func TestStreamInfoTimes(t *testing.T) {
	ts := startServer(t)
	c := ts.client(t, 3)
	ctx := context.Background()
	ksDo(t, c, "XGROUP", "CREATE", "s", "g", "0", "MKSTREAM")
	ksDo(t, c, "XADD", "s", "1-1", "f", "v")
	ksDo(t, c, "XADD", "s", "2-1", "f", "v")
	ksDo(t, c, "XGROUP", "CREATECONSUMER", "s", "g", "idle")
	ksDo(t, c, "XREADGROUP", "GROUP", "g", "busy", "COUNT", "1", "STREAMS", "s", ">")
	time.Sleep(20 * time.Millisecond)
	cs, err := c.XInfoConsumers(ctx, "s", "g").Result()
	if err != nil || len(cs) != 2 {
		t.Fatalf("XINFO CONSUMERS: %+v, %v", cs, err)
	}
	if cs[0].Name != "busy" || cs[0].Pending != 1 || cs[0].Idle < 20*time.Millisecond || cs[0].Inactive < 20*time.Millisecond {
		t.Fatalf("consumer busy: %+v", cs[0])
	}
	if cs[1].Name != "idle" || cs[1].Pending != 0 || cs[1].Inactive != -time.Millisecond {
		t.Fatalf("consumer idle: %+v", cs[1])
	}
	full, err := c.XInfoStreamFull(ctx, "s", 1).Result()
	if err != nil {
		t.Fatal(err)
	}
	if full.Length != 2 || len(full.Entries) != 1 || len(full.Groups) != 1 {
		t.Fatalf("XINFO STREAM FULL COUNT 1: %+v", full)
	}
	g := full.Groups[0]
	if g.Name != "g" || g.PelCount != 1 || len(g.Pending) != 1 || g.Pending[0].ID != "1-1" || g.Pending[0].Consumer != "busy" || len(g.Consumers) != 2 {
		t.Fatalf("XINFO STREAM FULL group: %+v", g)
	}
	if b := g.Consumers[0]; b.Name != "busy" || b.PelCount != 1 || len(b.Pending) != 1 || b.Pending[0].DeliveryCount != 1 {
		t.Fatalf("XINFO STREAM FULL consumer: %+v", b)
	}
}

// FuzzParseStreamID checks the id parser: no input panics, and an id it
// accepts reads back the same from its canonical text.
func FuzzParseStreamID(f *testing.F) {
	for _, s := range []string{"0", "1-1", "18446744073709551615-18446744073709551615", "18446744073709551616", "-", "+", "1-*", " 1", "+1-2", "-1", "01-02", "1-2-3", "", "1\x00x", "(1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, ok := parseStrictIDQuiet([]byte(s))
		if !ok {
			return
		}
		back, ok := parseStrictIDQuiet([]byte(id.String()))
		if !ok || back != id {
			t.Fatalf("%q parses as %s, which reads back as %s (%v)", s, id, back, ok)
		}
		if v, err := strconv.ParseUint(s, 10, 64); err == nil && (id.Ms != v || id.Seq != 0) {
			t.Fatalf("%q parses as %s", s, id)
		}
	})
}

// TestStreamXReadGroupBlockIsIdle checks that a blocked XREADGROUP waits
// without running again and again: its first run creates the consumer,
// which must not wake it (or anyone) for ever after.
func TestStreamXReadGroupBlockIsIdle(t *testing.T) {
	ts := startServer(t)
	c := ts.client(t, 2)
	ksDo(t, c, "XGROUP", "CREATE", "s", "g", "$", "MKSTREAM")
	var before, after syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &before); err != nil {
		t.Fatal(err)
	}
	a := listGo(t, ts, 2, "XREADGROUP", "GROUP", "g", "c1", "BLOCK", "400", "STREAMS", "s", ">")
	b := listGo(t, ts, 2, "XREADGROUP", "GROUP", "g", "c2", "BLOCK", "400", "STREAMS", "s", ">")
	a.expect(t, ksNil{})
	b.expect(t, ksNil{})
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &after); err != nil {
		t.Fatal(err)
	}
	cpu := time.Duration(after.Utime.Nano()+after.Stime.Nano()-before.Utime.Nano()-before.Stime.Nano()) * time.Nanosecond
	// Two clients spinning for 400 ms would burn about that much CPU.
	if cpu > 250*time.Millisecond {
		t.Fatalf("two blocked XREADGROUP clients used %v of CPU in 400 ms", cpu)
	}
}
