package server

import (
	"strings"
	"testing"
)

// TestWatchSignalsMatchRedis: a write that changes nothing, or leaves one
// of its keys alone, signals (WATCH, tracking) exactly the keys Redis 7
// signals. Each case WATCHes a key, runs one command, and EXEC tells
// whether the key counted as modified (issue 27, item 16: SMOVE of a
// member already in the destination must not touch the destination).
func TestWatchSignalsMatchRedis(t *testing.T) {
	cases := []struct {
		setup string // commands separated by ';'
		watch string
		cmd   string
	}{
		{"SADD src m;SADD dst m", "dst", "SMOVE src dst m"},
		{"SADD src m;SADD dst m", "src", "SMOVE src dst m"},
		{"SADD src m;SADD dst x", "dst", "SMOVE src dst m"},
		{"SADD src x;SADD dst x", "dst", "SMOVE src dst m"},
		{"SADD src m", "src", "SMOVE src src m"},
		{"SADD src m", "dst", "SMOVE src dst m"},
		{"SADD s m", "s", "SADD s m"},
		{"SADD s m", "s", "SREM s x"},
		{"SADD a 1;SADD b 2", "d", "SINTERSTORE d a b"},
		{"SADD a 1;SADD b 2;SADD d 9", "d", "SINTERSTORE d a b"},
		{"SADD a 1", "d", "SUNIONSTORE d nosuch"},
		{"SADD a 1;SADD d 1", "d", "SUNIONSTORE d a"},
		{"SADD a 1", "d", "SDIFFSTORE d a a"},
		{"SADD a 1", "a", "SPOP a 0"},
		{"ZADD z 1 m", "z", "ZADD z 1 m"},
		{"ZADD z 1 m", "z", "ZADD z XX 2 x"},
		{"ZADD z 1 m", "z", "ZADD z NX 5 m"},
		{"ZADD z 1 m", "z", "ZADD z GT 0 m"},
		{"ZADD z 1 m", "z", "ZREM z x"},
		{"ZADD z 1 m", "z", "ZINCRBY z 0 m"},
		{"ZADD a 1 m", "d", "ZUNIONSTORE d 1 nosuch"},
		{"ZADD a 1 m;ZADD d 1 x", "d", "ZINTERSTORE d 2 a nosuch"},
		{"ZADD a 1 m", "d", "ZDIFFSTORE d 2 a a"},
		{"ZADD a 1 m", "d", "ZRANGESTORE d a 5 10"},
		{"ZADD a 1 m;ZADD d 1 x", "d", "ZRANGESTORE d a 5 10"},
		{"ZADD a 1 m", "a", "ZREMRANGEBYSCORE a 5 10"},
		{"ZADD a 1 m", "a", "ZREMRANGEBYRANK a 5 10"},
		{"ZADD a 1 m", "a", "ZREMRANGEBYLEX a [x [y"},
		{"ZADD a 1 m", "a", "ZPOPMIN a 0"},
		{"RPUSH d x", "d", "LMOVE nosuch d LEFT LEFT"},
		{"RPUSH s x", "s", "RPOPLPUSH s s"},
		{"RPUSH s x y", "s", "LMOVE s s LEFT RIGHT"},
		{"RPUSH s x", "s", "LREM s 0 nope"},
		{"RPUSH s x", "s", "LINSERT s BEFORE nope y"},
		{"RPUSH s x", "s", "LTRIM s 0 -1"},
		{"RPUSH s x", "s", "LSET s 0 x"},
		{"RPUSH s x", "s", "LPOP s 0"},
		{"HSET h f v", "h", "HSET h f v"},
		{"HSET h f v", "h", "HDEL h nope"},
		{"HSET h f v", "h", "HSETNX h f w"},
		{"HSET h f 1", "h", "HINCRBY h f 0"},
	}
	d := newDiffRun(t)
	for _, c := range cases {
		d.same("FLUSHALL")
		for _, cmd := range strings.Split(c.setup, ";") {
			d.same(strings.Fields(cmd)...)
		}
		d.same("WATCH", c.watch)
		d.same(strings.Fields(c.cmd)...)
		d.same("MULTI")
		d.same("PING")
		d.same("EXEC")
	}
}
