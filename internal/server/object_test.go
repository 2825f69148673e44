package server

import (
	"context"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/command"
	"github.com/cairndb/cairn/internal/config"
	"github.com/cairndb/cairn/internal/redistest"

	"github.com/redis/go-redis/v9"
)

func TestObjectIdleTimeCountsFromLastAccess(t *testing.T) {
	bothProtocols(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		ctx := context.Background()
		if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
			t.Fatal(err)
		}
		idle, err := c.ObjectIdleTime(ctx, "k").Result()
		if err != nil || idle != 0 {
			t.Fatalf("OBJECT IDLETIME right after SET = %v, %v", idle, err)
		}
		if err := c.ObjectIdleTime(ctx, "missing").Err(); err != redis.Nil {
			t.Fatalf("OBJECT IDLETIME of a missing key: %v", err)
		}
		if err := c.Do(ctx, "OBJECT", "IDLETIME").Err(); err == nil || err.Error() != "ERR wrong number of arguments for 'object|idletime' command" {
			t.Fatalf("arity error: %v", err)
		}
	})
}

func TestSelectRejectsNumbersOutsideCInt(t *testing.T) {
	ts := startServer(t)
	c := ts.client(t, 2)
	ctx := context.Background()
	for arg, want := range map[string]string{
		"4294967296": "ERR value is out of range, value must between -2147483648 and 2147483647",
		"16":         "ERR DB index is out of range",
		"-1":         "ERR DB index is out of range",
		"x":          "ERR value is not an integer or out of range",
	} {
		if err := c.Do(ctx, "SELECT", arg).Err(); err == nil || err.Error() != want {
			t.Errorf("SELECT %s: %v, want %q", arg, err, want)
		}
	}
}

// Key-spec flags as Redis 7.0.15 reports them in COMMAND INFO (checked
// against a real redis-server): cluster routing and ACL key permissions
// will read them.
func TestKeySpecFlagsMatchRedis(t *testing.T) {
	srv := New(Options{Config: config.Default()})
	for _, c := range []struct {
		name  string
		flags []command.KeyFlag
	}{
		{"get", []command.KeyFlag{ro | acc}},
		{"set", []command.KeyFlag{rw | acc | upd | command.KeyVariableFlags}},
		{"setnx", []command.KeyFlag{ow | ins}},
		{"mset", []command.KeyFlag{ow | upd}},
		{"getdel", []command.KeyFlag{rw | acc | del}},
		{"del", []command.KeyFlag{command.KeyRM | del}},
		{"rename", []command.KeyFlag{rw | acc | del, ow | upd}},
		{"copy", []command.KeyFlag{ro | acc, ow | upd}},
		{"ttl", []command.KeyFlag{ro | acc}},
		{"expire", []command.KeyFlag{rw | upd}},
		{"hset", []command.KeyFlag{rw | upd}},
		{"hkeys", []command.KeyFlag{ro | acc}},
	} {
		spec := srv.table.Lookup([]byte(c.name))
		if len(spec.KeySpecs) != len(c.flags) {
			t.Errorf("%s has %d key specs, want %d", c.name, len(spec.KeySpecs), len(c.flags))
			continue
		}
		for i, f := range c.flags {
			if got := spec.KeySpecs[i].Flags; got != f {
				t.Errorf("%s key spec %d flags %v, want %v", c.name, i, got.Names(), f.Names())
			}
		}
	}
}

// TestObjectIdleTimeAfterWrite: a key written and never read is idle since
// the write, whatever the command (Redis gives a new or written object the
// current time), not since the server started; a read resets it.
func TestObjectIdleTimeAfterWrite(t *testing.T) {
	ts := startServer(t)
	c := ts.client(t, 2)
	ctx := context.Background()
	// The server has been up a while before the writes.
	time.Sleep(2100 * time.Millisecond)
	writes := [][]any{
		{"SET", "s", "v"}, {"HSET", "h", "f", "v"}, {"RPUSH", "l", "a"}, {"SADD", "set", "m"},
		{"ZADD", "z", "1", "m"}, {"XADD", "x", "1-1", "f", "v"}, {"SETBIT", "b", "7", "1"}, {"PFADD", "p", "a"},
	}
	for _, w := range writes {
		if err := c.Do(ctx, w...).Err(); err != nil {
			t.Fatal(err)
		}
		if idle, err := c.ObjectIdleTime(ctx, w[1].(string)).Result(); err != nil || idle != 0 {
			t.Errorf("OBJECT IDLETIME right after %v = %v, %v; want 0", w, idle, err)
		}
	}
	time.Sleep(1100 * time.Millisecond)
	if err := c.Get(ctx, "s").Err(); err != nil {
		t.Fatal(err)
	}
	if idle, err := c.ObjectIdleTime(ctx, "s").Result(); err != nil || idle != 0 {
		t.Errorf("OBJECT IDLETIME after GET = %v, %v; want 0", idle, err)
	}
	if idle, err := c.ObjectIdleTime(ctx, "h").Result(); err != nil || idle < time.Second || idle > 2*time.Second {
		t.Errorf("OBJECT IDLETIME 1 s after HSET = %v, %v; want 1 s", idle, err)
	}
}

// TestObjectIdleTimeUnderLFU: with an LFU maxmemory-policy Redis tracks no
// access times, and OBJECT IDLETIME says so (checked with redis-server
// 7.0.15); OBJECT IDLETIME of a missing key is still nil.
func TestObjectIdleTimeUnderLFU(t *testing.T) {
	ts := startServer(t)
	c := redistest.Dial(t, ts.addr)
	wantReply(t, c, "OK", "SET", "k", "v")
	for _, p := range []string{"allkeys-lfu", "volatile-lfu"} {
		wantReply(t, c, "OK", "CONFIG", "SET", "maxmemory-policy", p)
		wantReply(t, c, "-ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.", "OBJECT", "IDLETIME", "k")
		wantReply(t, c, "<nil>", "OBJECT", "IDLETIME", "missing")
	}
	wantReply(t, c, "OK", "CONFIG", "SET", "maxmemory-policy", "allkeys-lru")
	wantReply(t, c, "0", "OBJECT", "IDLETIME", "k")
}

// TestDiffObjectFreq: under an LFU maxmemory-policy OBJECT FREQ reports
// Redis's access counter (5 for a new key, 6 after its first use) and
// OBJECT IDLETIME refuses; under others the reverse. Compared with
// redis-server.
func TestDiffObjectFreq(t *testing.T) {
	d := newDiffRun(t)
	d.t.Cleanup(func() { d.send("CONFIG", "SET", "maxmemory-policy", "noeviction") })
	for _, c := range [][]string{
		{"SET", "k", "v"},
		{"OBJECT", "FREQ", "k"},
		{"CONFIG", "SET", "maxmemory-policy", "allkeys-lfu"},
		{"SET", "n", "v"}, {"OBJECT", "FREQ", "n"},
		{"GET", "n"}, {"OBJECT", "FREQ", "n"},
		{"HSET", "h", "f", "v"}, {"OBJECT", "FREQ", "h"},
		{"HGET", "h", "f"}, {"OBJECT", "FREQ", "h"},
		{"RPUSH", "l", "a"}, {"LRANGE", "l", "0", "-1"}, {"OBJECT", "FREQ", "l"},
		{"OBJECT", "FREQ", "missing"},
		{"OBJECT", "IDLETIME", "n"},
		{"OBJECT", "IDLETIME", "missing"},
		{"CONFIG", "SET", "maxmemory-policy", "volatile-lru"},
		{"OBJECT", "FREQ", "n"},
		{"OBJECT", "FREQ", "missing"},
	} {
		d.same(c...)
	}
}

// TestDiffRestoreIdleTimeFreq: RESTORE's IDLETIME sets the key's idle time
// (under an LRU or no policy) and FREQ its counter (under an LFU one), as
// Redis's objectSetLRUOrLFU; without them a restored key is new.
func TestDiffRestoreIdleTimeFreq(t *testing.T) {
	d := newDiffRun(t)
	d.t.Cleanup(func() { d.send("CONFIG", "SET", "maxmemory-policy", "noeviction") })
	d.same("SET", "k", "v")
	payload, err := d.redis.Do("DUMP", "k")
	if err != nil {
		t.Fatal(err)
	}
	p := asString(payload)
	for _, c := range [][]string{
		{"RESTORE", "a", "0", p, "IDLETIME", "1000"},
		{"OBJECT", "IDLETIME", "a"},
		{"RESTORE", "b", "0", p},
		{"OBJECT", "IDLETIME", "b"},
		{"RESTORE", "c", "0", p, "FREQ", "7"},
		{"OBJECT", "IDLETIME", "c"},
		{"CONFIG", "SET", "maxmemory-policy", "allkeys-lfu"},
		{"RESTORE", "d", "0", p, "FREQ", "42"},
		{"OBJECT", "FREQ", "d"},
		{"RESTORE", "e", "0", p},
		{"OBJECT", "FREQ", "e"},
		{"RESTORE", "f", "0", p, "IDLETIME", "1000"},
		{"OBJECT", "FREQ", "f"},
	} {
		d.same(c...)
	}
}
