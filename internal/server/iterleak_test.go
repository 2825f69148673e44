package server

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/engine"
)

// openIterators is how many engine iterators (views included) are open.
func (ts *testServer) openIterators(t *testing.T) int64 {
	t.Helper()
	p, ok := ts.eng.(*engine.Pebble)
	if !ok {
		t.Skip("not a Pebble engine")
	}
	return p.OpenIterators()
}

// TestCommandsCloseTheirIterators runs commands at their edge cases (zero
// and negative counts, empty ranges, missing keys, wrong types, small and
// big collections, scripts and transactions) and checks after each that
// every engine iterator it opened is closed: a leaked one holds Pebble's
// state and makes a later shutdown wait and fail ("leaked iterators").
func TestCommandsCloseTheirIterators(t *testing.T) {
	ts := startServer(t)
	c := ts.client(t, 2)
	ctx := context.Background()
	setup := [][]any{
		{"SET", "str", "hello world"},
		{"SET", "n", "10"},
		{"HSET", "h", "a", "1", "b", "2", "c", "3"},
		{"RPUSH", "l", "a", "b", "c", "a", "b"},
		{"SADD", "s", "a", "b", "c"},
		{"SADD", "si", "1", "2", "3"},
		{"ZADD", "z", "1", "a", "2", "b", "3", "c"},
		{"XADD", "x", "1-1", "f", "v"},
		{"XADD", "x", "2-1", "f", "v"},
		{"XGROUP", "CREATE", "x", "g", "0"},
		{"XREADGROUP", "GROUP", "g", "alice", "COUNT", "1", "STREAMS", "x", ">"},
		{"PFADD", "hll", "a", "b"},
		{"SETBIT", "bits", "100", "1"},
	}
	// Big collections take other paths (sampling, no whole read).
	for _, big := range []string{"bh", "bs", "bz", "bl", "bsi"} {
		args := []any{map[string]string{"bh": "HSET", "bs": "SADD", "bz": "ZADD", "bl": "RPUSH", "bsi": "SADD"}[big], big}
		for i := range 1200 {
			switch big {
			case "bh":
				args = append(args, fmt.Sprintf("f%d", i), i)
			case "bz":
				args = append(args, i, fmt.Sprintf("m%d", i))
			case "bsi":
				args = append(args, i*7)
			default:
				args = append(args, fmt.Sprintf("m%d", i))
			}
		}
		setup = append(setup, args)
	}
	for _, a := range setup {
		if err := c.Do(ctx, a...).Err(); err != nil {
			t.Fatalf("%v: %v", a[0], err)
		}
	}
	var cmds []string
	for _, h := range []string{"h", "bh", "str", "missing"} {
		for _, n := range []string{"", "0", "-1", "-5", "3", "2000"} {
			cmds = append(cmds, strings.TrimSpace("HRANDFIELD "+h+" "+n))
			if n != "" {
				cmds = append(cmds, "HRANDFIELD "+h+" "+n+" WITHVALUES")
			}
		}
	}
	for _, s := range []string{"s", "bs", "si", "bsi", "str", "missing"} {
		for _, n := range []string{"", "0", "-1", "-5", "3", "2000"} {
			cmds = append(cmds, strings.TrimSpace("SRANDMEMBER "+s+" "+n))
		}
		cmds = append(cmds, "SMEMBERS "+s, "SSCAN "+s+" 0", "SSCAN "+s+" 0 MATCH m1* COUNT 5",
			"SINTER "+s+" bs", "SINTERCARD 2 "+s+" bs LIMIT 1", "SUNION "+s+" missing", "SDIFF "+s+" s",
			"SMISMEMBER "+s+" a m5", "SCARD "+s, "SORT "+s+" ALPHA LIMIT 0 0", "SORT "+s+" BY nosort")
	}
	for _, z := range []string{"z", "bz", "str", "missing"} {
		for _, n := range []string{"", "0", "-1", "-5", "3", "2000"} {
			cmds = append(cmds, strings.TrimSpace("ZRANDMEMBER "+z+" "+n))
			if n != "" {
				cmds = append(cmds, "ZRANDMEMBER "+z+" "+n+" WITHSCORES")
			}
		}
		cmds = append(cmds, "ZRANGE "+z+" 5 1", "ZRANGE "+z+" 0 -1 WITHSCORES", "ZRANGE "+z+" (1 +inf BYSCORE LIMIT 0 0",
			"ZRANGE "+z+" [a + BYLEX LIMIT 1 2", "ZRANGEBYSCORE "+z+" 5 1", "ZREVRANGEBYSCORE "+z+" +inf -inf LIMIT 2 1",
			"ZRANGEBYLEX "+z+" - + LIMIT 0 -1", "ZCOUNT "+z+" 1 2", "ZLEXCOUNT "+z+" - +", "ZSCAN "+z+" 0 COUNT 3",
			"ZRANK "+z+" b", "ZREVRANK "+z+" m7", "ZUNION 2 "+z+" z", "ZINTER 2 "+z+" bz WITHSCORES", "ZDIFF 2 "+z+" z",
			"ZINTERCARD 2 "+z+" bz LIMIT 1", "ZMSCORE "+z+" a m1", "ZRANGESTORE zdst "+z+" 0 -1")
	}
	for _, l := range []string{"l", "bl", "str", "missing"} {
		cmds = append(cmds, "LRANGE "+l+" 5 1", "LRANGE "+l+" 0 -1", "LPOS "+l+" a RANK -1 COUNT 0",
			"LPOS "+l+" b COUNT 0 MAXLEN 2", "LINDEX "+l+" -1", "SORT "+l+" ALPHA LIMIT 0 0", "LLEN "+l)
	}
	cmds = append(cmds,
		"HGETALL h", "HGETALL bh", "HKEYS bh", "HVALS h", "HSCAN h 0", "HSCAN bh 0 MATCH f1* COUNT 7", "HLEN bh",
		"HGETALL str", "HSCAN missing 0",
		"XRANGE x - + COUNT 0", "XRANGE x + -", "XREVRANGE x + - COUNT 1", "XREAD COUNT 0 STREAMS x 0",
		"XPENDING x g", "XPENDING x g - + 10", "XPENDING x g IDLE 0 - + 0 alice", "XINFO STREAM x FULL",
		"XINFO GROUPS x", "XINFO CONSUMERS x g", "XAUTOCLAIM x g bob 0 0-0 COUNT 1", "XLEN x", "XRANGE str - +",
		"SCAN 0", "SCAN 0 COUNT 1", "SCAN 0 MATCH b* TYPE hash", "SCAN 0 TYPE stream", "KEYS *", "KEYS b*",
		"RANDOMKEY", "DBSIZE", "EXISTS h bh missing",
		"GETRANGE str 5 1", "GETRANGE str 0 -1", "BITCOUNT bits", "BITCOUNT bits 5 1", "BITPOS bits 1 5 1",
		"BITPOS bits 0", "PFCOUNT hll missing",
		"MEMORY USAGE bh SAMPLES 0", "MEMORY USAGE bz", "MEMORY USAGE bl SAMPLES 5", "OBJECT ENCODING bs",
		"DUMP bh", "DUMP x", "DUMP bz", "DUMP missing", "TYPE bh", "TTL h",
		"COPY bh bh2", "COPY bz bz2", "COPY bs bs2 REPLACE", "RENAME bh2 bh3", "DEL bh3", "UNLINK bz2",
		"SPOP bs2 0", "SPOP bs2 -1", "SPOP bs2 5", "ZPOPMIN zdst 0", "ZMPOP 1 zdst MIN COUNT 2", "LMPOP 1 missing LEFT",
		"SINTERSTORE sdst bs si", "ZUNIONSTORE zu 2 bz z", "SORT bl ALPHA LIMIT 0 5 STORE sorted",
		"EVAL \"return redis.call('hrandfield', KEYS[1], 0)\" 1 h",
		"EVAL \"return redis.call('zrandmember', KEYS[1], -3)\" 1 bz",
		"EVAL \"redis.call('hgetall', KEYS[1]) error('boom')\" 1 bh",
		"EVAL \"return redis.call('srandmember', KEYS[1], 0)\" 1 bs",
		"EVAL \"return redis.pcall('hrandfield', 'str', 0)\" 0",
		"FLUSHDB ASYNC",
	)
	for _, cmd := range cmds {
		args := splitArgs(cmd)
		_ = c.Do(ctx, args...).Err()
		if n := waitIterators(t, ts); n != 0 {
			t.Fatalf("%s: %d engine iterators left open", cmd, n)
		}
	}
	// The same inside a transaction.
	for _, cmd := range []string{"HRANDFIELD h 0", "SRANDMEMBER s 0", "ZRANDMEMBER z 0 WITHSCORES"} {
		_ = c.Do(ctx, "SADD", "s", "a").Err()
		_ = c.Do(ctx, "HSET", "h", "a", "1").Err()
		_ = c.Do(ctx, "ZADD", "z", "1", "a").Err()
		pipe := c.TxPipeline()
		pipe.Do(ctx, splitArgs(cmd)...)
		_, _ = pipe.Exec(ctx)
		if n := waitIterators(t, ts); n != 0 {
			t.Fatalf("MULTI %s EXEC: %d engine iterators left open", cmd, n)
		}
	}
}

// waitIterators returns the open iterators once none is, or after a
// second: a command's reply can reach the client just before its view is
// released.
func waitIterators(t *testing.T, ts *testServer) int64 {
	deadline := time.Now().Add(time.Second)
	for {
		n := ts.openIterators(t)
		if n == 0 || time.Now().After(deadline) {
			return n
		}
		time.Sleep(time.Millisecond)
	}
}

// splitArgs splits a command line on spaces, keeping double-quoted parts
// whole.
func splitArgs(line string) []any {
	var out []any
	for line != "" {
		line = strings.TrimLeft(line, " ")
		if strings.HasPrefix(line, "\"") {
			end := strings.Index(line[1:], "\"")
			out = append(out, line[1:end+1])
			line = line[end+2:]
			continue
		}
		field, rest, _ := strings.Cut(line, " ")
		out = append(out, field)
		line = rest
	}
	return out
}

// TestShutdownStopsRunningScripts: a shutdown stops a looping script that
// has read (and so holds a view of the engine) or written, and one that
// starts while the shutdown is under way, so that the connections end and
// no iterator is left for the engine's close.
func TestShutdownStopsRunningScripts(t *testing.T) {
	// No BUSY replies: the late script must run to be stopped.
	ts := startServer(t, "busy-reply-threshold", "600000")
	ctx := context.Background()
	setup := ts.client(t, 2)
	if err := setup.HSet(ctx, "h", "a", "1", "b", "2").Err(); err != nil {
		t.Fatal(err)
	}
	// One at a time runs: a script excludes the others.
	scripts := []string{
		"redis.call('hrandfield', KEYS[1], 0) redis.call('hgetall', KEYS[1]) redis.call('set', 'w', 1) while true do end",
	}
	done := make(chan error, len(scripts)+1)
	for _, src := range scripts {
		c := ts.client(t, 2)
		go func() { done <- c.Eval(ctx, src, []string{"h"}).Err() }()
	}
	deadline := time.Now().Add(10 * time.Second)
	for ts.srv.runs.count.Load() < int64(len(scripts)) {
		if time.Now().After(deadline) {
			t.Fatalf("%d scripts running after 10 s", ts.srv.runs.count.Load())
		}
		time.Sleep(time.Millisecond)
	}
	// As Shutdown does first; a script started after it is stopped too.
	ts.srv.runs.cancelAll()
	late := ts.client(t, 2)
	go func() { done <- late.Eval(ctx, "redis.call('get', 'x') while true do end", nil).Err() }()
	for range len(scripts) + 1 {
		select {
		case err := <-done:
			if err == nil {
				t.Error("a script stopped by the shutdown answered without an error")
			}
		case <-time.After(10 * time.Second):
			t.Fatal("a script still runs 10 s after the shutdown began")
		}
	}
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := ts.srv.Shutdown(sctx); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	if n := ts.openIterators(t); n != 0 {
		t.Fatalf("%d engine iterators open after the shutdown", n)
	}
}
