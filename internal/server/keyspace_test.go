package server

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// The keyspace tests' step tables; see steps_test.go.
type (
	ksErr  = replyErr
	ksNil  = replyNull
	ksSet  = replyAnyOrder
	ksScan = replyScan
	ksStep = step
)

func kstep(want any, args ...any) ksStep { return stepOf(want, args...) }

// ksRun sends the steps in order, failing on the first reply that differs.
func ksRun(t *testing.T, c *redis.Client, steps []ksStep) {
	t.Helper()
	runSteps(t, c, steps)
}

// ksCheck sends one command and reports whether its reply is want; a
// difference fails the test but lets it go on.
func ksCheck(t *testing.T, c *redis.Client, want any, args ...any) bool {
	t.Helper()
	if msg := replyDiff(c, want, args...); msg != "" {
		t.Errorf("%q: %s", args, msg)
		return false
	}
	return true
}

// ksDo runs a command that must succeed.
func ksDo(t *testing.T, c *redis.Client, args ...any) any {
	t.Helper()
	v, err := c.Do(context.Background(), args...).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		t.Fatalf("%q: %v", args, err)
	}
	return v
}

// ksInt runs a command whose reply is an integer.
func ksInt(t *testing.T, c *redis.Client, args ...any) int64 {
	t.Helper()
	v, ok := ksDo(t, c, args...).(int64)
	if !ok {
		t.Fatalf("%q: reply is not an integer", args)
	}
	return v
}

// ksScanAll iterates SCAN to the end with the given options and returns
// every key it saw (with repeats) and the number of calls it took.
func ksScanAll(t *testing.T, c *redis.Client, opts ...any) (keys []string, calls int) {
	t.Helper()
	cursor := "0"
	for {
		calls++
		if calls > 100000 {
			t.Fatalf("SCAN did not finish after %d calls", calls)
		}
		args := append([]any{"SCAN", cursor}, opts...)
		cursor, keys = ksScanReply(t, ksDo(t, c, args...), keys)
		if cursor == "0" {
			return keys, calls
		}
	}
}

var ksDecimalU64 = regexp.MustCompile(`^(0|[1-9][0-9]*)$`)

// ksScanReply checks the shape of a SCAN reply: a decimal u64 cursor and an
// array of key names.
func ksScanReply(t *testing.T, v any, keys []string) (string, []string) {
	t.Helper()
	arr, ok := v.([]any)
	if !ok || len(arr) != 2 {
		t.Fatalf("SCAN reply %#v is not a two-element array", v)
	}
	cursor, ok := arr[0].(string)
	if !ok || !ksDecimalU64.MatchString(cursor) {
		t.Fatalf("SCAN cursor %#v is not a decimal string", arr[0])
	}
	if _, err := strconv.ParseUint(cursor, 10, 64); err != nil {
		t.Fatalf("SCAN cursor %q is not a u64: %v", cursor, err)
	}
	found, ok := arr[1].([]any)
	if !ok {
		t.Fatalf("SCAN keys %#v are not an array", arr[1])
	}
	for _, k := range found {
		s, ok := k.(string)
		if !ok {
			t.Fatalf("SCAN key %#v is not a string", k)
		}
		keys = append(keys, s)
	}
	return cursor, keys
}

func TestDelCountsEachExistingKeyOnce(t *testing.T) {
	ts := startServer(t)
	c := ts.client(t, 2)
	for _, cmd := range []string{"DEL", "UNLINK", "del", "Unlink"} {
		t.Run(cmd, func(t *testing.T) {
			ksRun(t, c, []ksStep{
				kstep("OK", "MSET", "a", "1", "b", "2", "", "empty", "x\x00y", "nul"),
				kstep(int64(2), cmd, "a", "a", "b", "missing", "b"),
				kstep(int64(0), cmd, "a"),
				kstep(int64(1), cmd, ""),
				kstep(int64(1), cmd, "x\x00y"),
				kstep(int64(0), "EXISTS", "a", "b", "", "x\x00y"),
				kstep(int64(0), "DBSIZE"),
				kstep(ksErr("ERR wrong number of arguments for '"+strings.ToLower(cmd)+"' command"), cmd),
			})
		})
	}
}

func TestExistsCountsRepeatedKeysTwice(t *testing.T) {
	ts := startServer(t)
	c := ts.client(t, 2)
	ksRun(t, c, []ksStep{
		kstep("OK", "MSET", "a", "1", "", "2"),
		kstep(int64(1), "EXISTS", "a"),
		kstep(int64(3), "EXISTS", "a", "a", "a"),
		kstep(int64(4), "EXISTS", "a", "", "missing", "a", ""),
		kstep(int64(0), "EXISTS", "missing", "A"),
		kstep(ksErr("ERR wrong number of arguments for 'exists' command"), "EXISTS"),
	})
}

func TestTouchCountsExistingKeys(t *testing.T) {
	ts := startServer(t)
	c := ts.client(t, 2)
	ksRun(t, c, []ksStep{
		kstep("OK", "MSET", "b", "1", "c", "2"),
		kstep(int64(3), "TOUCH", "b", "c", "nope", "c"),
		kstep(int64(0), "TOUCH", "nope"),
		kstep(ksErr("ERR wrong number of arguments for 'touch' command"), "TOUCH"),
	})
}

func TestTypeOfStringAndMissingKey(t *testing.T) {
	bothProtocols(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		ksRun(t, c, []ksStep{
			kstep("OK", "SET", "s", ""),
			kstep("string", "TYPE", "s"),
			kstep("none", "TYPE", "missing"),
			kstep("none", "TYPE", "S"),
			kstep(ksErr("ERR wrong number of arguments for 'type' command"), "TYPE", "s", "t"),
		})
	})
}

func TestRenameMovesValueAndDeadline(t *testing.T) {
	ts := startServer(t)
	c := ts.client(t, 2)
	ksRun(t, c, []ksStep{
		kstep("OK", "SET", "src", "v", "EX", "100"),
		kstep("OK", "SET", "dst", "old"),
		kstep("OK", "RENAME", "src", "dst"),
		kstep(int64(0), "EXISTS", "src"),
		kstep("v", "GET", "dst"),
		kstep(int64(100), "TTL", "dst"),
		// The destination's own deadline goes with its old value.
		kstep("OK", "SET", "plain", "p"),
		kstep("OK", "RENAME", "plain", "dst"),
		kstep(int64(-1), "TTL", "dst"),
		kstep("p", "GET", "dst"),
		// Renaming a key to itself is allowed and changes nothing.
		kstep(int64(1), "EXPIRE", "dst", "50"),
		kstep("OK", "RENAME", "dst", "dst"),
		kstep(int64(50), "TTL", "dst"),
		kstep(ksErr("ERR no such key"), "RENAME", "missing", "x"),
		kstep(ksErr("ERR no such key"), "RENAME", "missing", "missing"),
		kstep(int64(0), "EXISTS", "x"),
		// Binary-safe names, the empty one included.
		kstep("OK", "RENAME", "dst", ""),
		kstep("OK", "RENAME", "", "a\x00\r\nb"),
		kstep("p", "GET", "a\x00\r\nb"),
		kstep(int64(1), "DBSIZE"),
		kstep(ksErr("ERR wrong number of arguments for 'rename' command"), "RENAME", "a"),
	})
}

func TestRenameNXOnlyWhenTargetIsAbsent(t *testing.T) {
	ts := startServer(t)
	c := ts.client(t, 2)
	ksRun(t, c, []ksStep{
		kstep("OK", "MSET", "a", "1", "b", "2"),
		kstep(int64(0), "RENAMENX", "a", "b"),
		kstep("1", "GET", "a"),
		kstep("2", "GET", "b"),
		// The same key: it exists, so nothing is renamed.
		kstep(int64(0), "RENAMENX", "a", "a"),
		kstep("1", "GET", "a"),
		kstep(ksErr("ERR no such key"), "RENAMENX", "missing", "c"),
		kstep(ksErr("ERR no such key"), "RENAMENX", "missing", "missing"),
		kstep(int64(1), "PEXPIRE", "a", "100000"),
		kstep(int64(1), "RENAMENX", "a", "c"),
		kstep(int64(0), "EXISTS", "a"),
		kstep("1", "GET", "c"),
		kstep(int64(100), "TTL", "c"),
		kstep(ksErr("ERR wrong number of arguments for 'renamenx' command"), "RENAMENX", "a", "b", "c"),
	})
}

func TestCopyOptions(t *testing.T) {
	ts := startServer(t)
	c := ts.client(t, 2)
	ksRun(t, c, []ksStep{
		kstep("OK", "SET", "src", "v", "PX", "100000"),
		kstep(ksErr("ERR source and destination objects are the same"), "COPY", "src", "src"),
		kstep(ksErr("ERR source and destination objects are the same"), "COPY", "src", "src", "DB", "0", "REPLACE"),
		kstep(ksErr("ERR source and destination objects are the same"), "COPY", "missing", "missing"),
		kstep(int64(0), "COPY", "missing", "dst"),
		kstep(int64(1), "COPY", "src", "dst"),
		kstep("v", "GET", "dst"),
		kstep(int64(100), "TTL", "dst"),
		kstep(int64(1), "EXISTS", "src"),
		kstep("OK", "SET", "src", "w"),
		kstep(int64(0), "COPY", "src", "dst"),
		kstep("v", "GET", "dst"),
		kstep(int64(1), "COPY", "src", "dst", "replace"),
		kstep("w", "GET", "dst"),
		// REPLACE clears the destination's deadline along with its value.
		kstep(int64(-1), "TTL", "dst"),
		// The same name in another database is a different key.
		kstep(int64(1), "COPY", "src", "src", "DB", "1"),
		kstep(int64(0), "COPY", "src", "src", "db", "1"),
		kstep(int64(1), "COPY", "src", "src", "db", "1", "REPLACE"),
		kstep(int64(1), "COPY", "src", "other", "REPLACE", "DB", "2", "REPLACE"),
		// The last DB wins.
		kstep(int64(1), "COPY", "src", "last", "DB", "2", "DB", "3"),
		kstep(ksErr("ERR DB index is out of range"), "COPY", "src", "x", "DB", "16"),
		kstep(ksErr("ERR DB index is out of range"), "COPY", "src", "x", "DB", "-1"),
		kstep(ksErr("ERR value is out of range, value must between -2147483648 and 2147483647"), "COPY", "src", "x", "DB", "4294967296"),
		kstep(ksErr("ERR value is not an integer or out of range"), "COPY", "src", "x", "DB", "9223372036854775808"),
		kstep(ksErr("ERR value is not an integer or out of range"), "COPY", "src", "x", "DB", "one"),
		kstep(ksErr("ERR syntax error"), "COPY", "src", "x", "DB"),
		kstep(ksErr("ERR syntax error"), "COPY", "src", "x", "FOO"),
		kstep(ksErr("ERR wrong number of arguments for 'copy' command"), "COPY", "src"),
		kstep("OK", "SELECT", "1"),
		kstep("w", "GET", "src"),
		kstep(int64(1), "DBSIZE"),
		kstep("OK", "SELECT", "2"),
		kstep("w", "GET", "other"),
		kstep(int64(0), "EXISTS", "last"),
		kstep("OK", "SELECT", "3"),
		kstep("w", "GET", "last"),
	})
}

func TestMoveBetweenDatabases(t *testing.T) {
	ts := startServer(t)
	c := ts.client(t, 2)
	ksRun(t, c, []ksStep{
		kstep("OK", "SET", "k", "v", "EX", "100"),
		kstep(ksErr("ERR source and destination objects are the same"), "MOVE", "k", "0"),
		kstep(ksErr("ERR source and destination objects are the same"), "MOVE", "missing", "0"),
		kstep(ksErr("ERR DB index is out of range"), "MOVE", "k", "16"),
		kstep(ksErr("ERR DB index is out of range"), "MOVE", "missing", "99"),
		kstep(ksErr("ERR DB index is out of range"), "MOVE", "k", "-1"),
		kstep(ksErr("ERR DB index is out of range"), "MOVE", "k", "2147483647"),
		kstep(ksErr("ERR value is out of range, value must between -2147483648 and 2147483647"), "MOVE", "k", "2147483648"),
		kstep(ksErr("ERR value is out of range, value must between -2147483648 and 2147483647"), "MOVE", "k", "-2147483649"),
		kstep(ksErr("ERR value is not an integer or out of range"), "MOVE", "k", "9223372036854775808"),
		kstep(ksErr("ERR value is not an integer or out of range"), "MOVE", "k", "1.0"),
		kstep(int64(0), "MOVE", "missing", "1"),
		kstep(int64(1), "MOVE", "k", "1"),
		kstep(int64(0), "EXISTS", "k"),
		kstep("OK", "SET", "k", "here"),
		// The target database has the key: nothing moves.
		kstep(int64(0), "MOVE", "k", "1"),
		kstep("here", "GET", "k"),
		kstep("OK", "SELECT", "1"),
		kstep("v", "GET", "k"),
		kstep(int64(100), "TTL", "k"),
		kstep(ksErr("ERR wrong number of arguments for 'move' command"), "MOVE", "k"),
	})
}

func TestExpireConditions(t *testing.T) {
	// Each case starts from a key with no deadline (ttl -1) or with a
	// deadline 100 s away, then runs EXPIRE with a new number of seconds.
	tests := []struct {
		name    string
		initial int64 // 0: no deadline
		secs    int64
		opts    []any
		want    int64
		wantTTL int64
	}{
		{"no option on persistent key", 0, 50, nil, 1, 50},
		{"NX on persistent key", 0, 50, []any{"NX"}, 1, 50},
		{"NX on volatile key", 100, 50, []any{"nx"}, 0, 100},
		{"XX on persistent key", 0, 50, []any{"XX"}, 0, -1},
		{"XX on volatile key", 100, 50, []any{"Xx"}, 1, 50},
		{"GT on persistent key", 0, 50, []any{"GT"}, 0, -1},
		{"GT larger", 100, 200, []any{"GT"}, 1, 200},
		{"GT smaller", 100, 50, []any{"GT"}, 0, 100},
		{"LT on persistent key", 0, 50, []any{"LT"}, 1, 50},
		{"LT smaller", 100, 50, []any{"lt"}, 1, 50},
		{"LT larger", 100, 200, []any{"LT"}, 0, 100},
		{"XX GT larger", 100, 200, []any{"XX", "GT"}, 1, 200},
		{"XX GT smaller", 100, 50, []any{"XX", "GT"}, 0, 100},
		{"GT XX smaller", 100, 50, []any{"GT", "XX"}, 0, 100},
		{"XX LT on persistent key", 0, 10, []any{"XX", "LT"}, 0, -1},
		{"LT XX larger", 100, 200, []any{"LT", "XX"}, 0, 100},
		{"LT XX smaller", 100, 50, []any{"LT", "XX"}, 1, 50},
		{"repeated NX", 0, 50, []any{"NX", "NX"}, 1, 50},
		{"repeated GT", 100, 50, []any{"GT", "GT"}, 0, 100},
	}
	ts := startServer(t)
	c := ts.client(t, 2)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			steps := []ksStep{kstep("OK", "SET", "k", "v")}
			if tc.initial != 0 {
				steps = append(steps, kstep(int64(1), "EXPIRE", "k", tc.initial))
			}
			steps = append(steps,
				kstep(tc.want, append([]any{"EXPIRE", "k", tc.secs}, tc.opts...)...),
				kstep(tc.wantTTL, "TTL", "k"),
			)
			ksRun(t, c, steps)
		})
	}
	t.Run("missing key", func(t *testing.T) {
		for _, opt := range []string{"NX", "XX", "GT", "LT"} {
			ksCheck(t, c, int64(0), "EXPIRE", "nokey", "10", opt)
		}
		ksCheck(t, c, int64(0), "PEXPIREAT", "nokey", "0")
		ksCheck(t, c, int64(0), "EXISTS", "nokey")
	})
}

func TestExpireOptionErrors(t *testing.T) {
	const (
		nxConflict = ksErr("ERR NX and XX, GT or LT options at the same time are not compatible")
		gtltBoth   = ksErr("ERR GT and LT options at the same time are not compatible")
		notInt     = ksErr("ERR value is not an integer or out of range")
	)
	tests := []struct {
		args []any
		want ksErr
	}{
		{[]any{"EXPIRE", "k", "10", "NX", "XX"}, nxConflict},
		{[]any{"EXPIRE", "k", "10", "nx", "gt"}, nxConflict},
		{[]any{"PEXPIRE", "k", "10", "LT", "NX"}, nxConflict},
		{[]any{"EXPIREAT", "k", "10", "GT", "LT", "NX"}, nxConflict},
		{[]any{"EXPIRE", "k", "10", "GT", "LT"}, gtltBoth},
		{[]any{"PEXPIREAT", "k", "10", "lt", "gt"}, gtltBoth},
		{[]any{"EXPIRE", "k", "10", "FOO"}, "ERR Unsupported option FOO"},
		{[]any{"EXPIRE", "k", "10", ""}, "ERR Unsupported option "},
		{[]any{"EXPIRE", "k", "10", "NX", "XX", "foo"}, "ERR Unsupported option foo"},
		// Options are checked before the number.
		{[]any{"EXPIRE", "k", "abc", "foo"}, "ERR Unsupported option foo"},
		{[]any{"PEXPIRE", "k", "abc", "NX", "XX"}, nxConflict},
		{[]any{"EXPIRE", "k", "9223372036854775807", "bar"}, "ERR Unsupported option bar"},
		{[]any{"EXPIRE", "k", "abc"}, notInt},
		{[]any{"EXPIRE", "k", "10.5"}, notInt},
		{[]any{"EXPIRE", "k", " 10"}, notInt},
		{[]any{"EXPIRE", "k", "+10"}, notInt},
		{[]any{"EXPIRE", "k", ""}, notInt},
		{[]any{"EXPIRE", "k", "9223372036854775808"}, notInt},
		{[]any{"EXPIRE", "k"}, "ERR wrong number of arguments for 'expire' command"},
		{[]any{"PEXPIREAT", "k"}, "ERR wrong number of arguments for 'pexpireat' command"},
	}
	ts := startServer(t)
	c := ts.client(t, 2)
	ksCheck(t, c, "OK", "SET", "k", "v")
	for _, tc := range tests {
		ksCheck(t, c, tc.want, tc.args...)
	}
	ksCheck(t, c, int64(-1), "TTL", "k")
}

func TestExpireOverflowIsInvalidExpireTime(t *testing.T) {
	tests := []struct {
		cmd, n string
		want   any
	}{
		{"EXPIRE", "9223372036854775807", ksErr("ERR invalid expire time in 'expire' command")},
		{"EXPIRE", "9223372036854775", ksErr("ERR invalid expire time in 'expire' command")},
		{"EXPIRE", "-9223372036854775808", ksErr("ERR invalid expire time in 'expire' command")},
		{"EXPIRE", "-9223372036854776", ksErr("ERR invalid expire time in 'expire' command")},
		{"PEXPIRE", "9223372036854775807", ksErr("ERR invalid expire time in 'pexpire' command")},
		{"EXPIREAT", "9223372036854776", ksErr("ERR invalid expire time in 'expireat' command")},
		{"EXPIREAT", "-9223372036854776", ksErr("ERR invalid expire time in 'expireat' command")},
		// The largest deadlines that fit are accepted.
		{"EXPIREAT", "9223372036854775", int64(1)},
		{"PEXPIREAT", "9223372036854775807", int64(1)},
		// The most negative seconds that fit are a past deadline.
		{"EXPIRE", "-9223372036854775", int64(1)},
		{"PEXPIRE", "-9223372036854775808", int64(1)},
	}
	ts := startServer(t)
	c := ts.client(t, 2)
	for _, tc := range tests {
		t.Run(tc.cmd+" "+tc.n, func(t *testing.T) {
			ksRun(t, c, []ksStep{
				kstep("OK", "SET", "k", "v"),
				kstep(tc.want, tc.cmd, "k", tc.n),
			})
		})
	}
}

func TestExpireInThePastDeletesKey(t *testing.T) {
	tests := [][]any{
		{"EXPIRE", "k", "0"},
		{"EXPIRE", "k", "-1"},
		{"PEXPIRE", "k", "0"},
		{"PEXPIRE", "k", "-1", "XX"},
		{"EXPIREAT", "k", "1"},
		{"EXPIREAT", "k", "-100"},
		{"PEXPIREAT", "k", "0"},
		{"PEXPIREAT", "k", strconv.FormatInt(time.Now().UnixMilli()-1000, 10)},
		{"EXPIRE", "k", "-5", "LT"},
	}
	ts := startServer(t)
	c := ts.client(t, 2)
	for _, args := range tests {
		t.Run(fmt.Sprint(args...), func(t *testing.T) {
			ksRun(t, c, []ksStep{
				kstep("OK", "SET", "k", "v", "EX", "10"),
				kstep(int64(1), args...),
				kstep(int64(0), "EXISTS", "k"),
				kstep(int64(-2), "TTL", "k"),
				kstep(int64(0), "DBSIZE"),
			})
		})
	}
	t.Run("a past deadline refused by GT keeps the key", func(t *testing.T) {
		ksRun(t, c, []ksStep{
			kstep("OK", "SET", "k", "v", "EX", "10"),
			kstep(int64(0), "EXPIRE", "k", "-5", "GT"),
			kstep(int64(10), "TTL", "k"),
			kstep(int64(0), "PEXPIRE", "k", "-5", "NX"),
			kstep(int64(1), "EXISTS", "k"),
		})
	})
}

func TestTTLFamilyReplies(t *testing.T) {
	bothProtocols(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		ksRun(t, c, []ksStep{
			kstep(int64(-2), "TTL", "missing"),
			kstep(int64(-2), "PTTL", "missing"),
			kstep(int64(-2), "EXPIRETIME", "missing"),
			kstep(int64(-2), "PEXPIRETIME", "missing"),
			kstep("OK", "SET", "k", "v"),
			kstep(int64(-1), "TTL", "k"),
			kstep(int64(-1), "PTTL", "k"),
			kstep(int64(-1), "EXPIRETIME", "k"),
			kstep(int64(-1), "PEXPIRETIME", "k"),
			// Absolute deadlines; seconds round to the nearest one.
			kstep(int64(1), "PEXPIREAT", "k", "4102444800499"),
			kstep(int64(4102444800), "EXPIRETIME", "k"),
			kstep(int64(4102444800499), "PEXPIRETIME", "k"),
			kstep(int64(1), "PEXPIREAT", "k", "4102444800500"),
			kstep(int64(4102444801), "EXPIRETIME", "k"),
			kstep(int64(1), "PEXPIREAT", "k", "4102444800999"),
			kstep(int64(4102444801), "EXPIRETIME", "k"),
			kstep(int64(1), "EXPIREAT", "k", "4102444800"),
			kstep(int64(4102444800), "EXPIRETIME", "k"),
			kstep(int64(4102444800000), "PEXPIRETIME", "k"),
			// The largest deadline still rounds without overflowing.
			kstep(int64(1), "PEXPIREAT", "k", "9223372036854775807"),
			kstep(int64(9223372036854775807), "PEXPIRETIME", "k"),
			kstep(int64(9223372036854776), "EXPIRETIME", "k"),
			kstep(int64(1), "PEXPIREAT", "k", "9223372036854775307"),
			kstep(int64(9223372036854775), "EXPIRETIME", "k"),
			// Relative: 2.4 s left rounds to 2, 2.9 s to 3.
			kstep(int64(1), "PEXPIRE", "k", "2400"),
			kstep(int64(2), "TTL", "k"),
			kstep(int64(1), "PEXPIRE", "k", "2900"),
			kstep(int64(3), "TTL", "k"),
			kstep(int64(1), "PEXPIRE", "k", "300"),
			kstep(int64(0), "TTL", "k"),
			kstep(ksErr("ERR wrong number of arguments for 'ttl' command"), "TTL", "k", "x"),
			kstep(ksErr("ERR wrong number of arguments for 'pexpiretime' command"), "PEXPIRETIME"),
		})
		pttl := ksInt(t, c, "PTTL", "k")
		if pttl < 0 || pttl > 300 {
			t.Errorf("PTTL after PEXPIRE 300 = %d; want 0..300", pttl)
		}
		ksRun(t, c, []ksStep{
			kstep(int64(1), "EXPIRE", "k", "1000"),
			kstep(int64(1000), "TTL", "k"),
		})
		if at, want := ksInt(t, c, "EXPIRETIME", "k"), time.Now().Unix()+1000; at < want-2 || at > want+1 {
			t.Errorf("EXPIRETIME after EXPIRE 1000 = %d; want about %d", at, want)
		}
	})
}

func TestPersistRemovesDeadline(t *testing.T) {
	ts := startServer(t)
	c := ts.client(t, 2)
	ksRun(t, c, []ksStep{
		kstep(int64(0), "PERSIST", "missing"),
		kstep("OK", "SET", "k", "v"),
		kstep(int64(0), "PERSIST", "k"),
		kstep(int64(1), "EXPIRE", "k", "100"),
		kstep(int64(1), "PERSIST", "k"),
		kstep(int64(-1), "TTL", "k"),
		kstep(int64(0), "PERSIST", "k"),
		kstep(int64(0), "EXPIRE", "k", "10", "XX"),
		kstep("v", "GET", "k"),
		kstep(ksErr("ERR wrong number of arguments for 'persist' command"), "PERSIST"),
	})
}

// ksGlobKeys are the keys the KEYS and SCAN MATCH pattern tests run over.
var ksGlobKeys = []string{"", "a", "ab", "abc", "a*", "a?", "a[", "a]", "a\\", "a-", "b",
	"h\x00llo", "hallo", "hello", "hillo", "hXllo", "HELLO", "\xff", "x\r\ny"}

// ksGlobTests are patterns and what Redis 7.0's KEYS answers for them over
// ksGlobKeys.
var ksGlobTests = []struct {
	pattern string
	want    []string
}{
	{"", []string{""}},
	{"*", ksGlobKeys},
	{"**", ksGlobKeys[1:]}, // only the bare "*" takes the empty key
	{"a", []string{"a"}},
	{"a*", []string{"a", "ab", "abc", "a*", "a?", "a[", "a]", "a\\", "a-"}},
	{"a\\*", []string{"a*"}},
	{"a\\?", []string{"a?"}},
	{"a\\[", []string{"a["}},
	{"a\\]", []string{"a]"}},
	{"a\\\\", []string{"a\\"}},
	{"a]", []string{"a]"}},
	{"a?", []string{"ab", "a*", "a?", "a[", "a]", "a\\", "a-"}},
	{"?", []string{"a", "b", "\xff"}},
	{"h[ae]llo", []string{"hallo", "hello"}},
	{"h[^e]llo", []string{"h\x00llo", "hallo", "hillo", "hXllo"}},
	{"h[a-e]llo", []string{"hallo", "hello"}},
	{"h[e-a]llo", []string{"hallo", "hello"}},
	{"h[A-Z]llo", []string{"hXllo"}},
	{"h?llo", []string{"h\x00llo", "hallo", "hello", "hillo", "hXllo"}},
	{"h\x00*", []string{"h\x00llo"}},
	{"h*o", []string{"h\x00llo", "hallo", "hello", "hillo", "hXllo"}},
	{"H*", []string{"HELLO"}},
	{"a[*", []string{"a*"}},
	{"a[\\[]", []string{"a["}},
	{"a[\\]]", []string{"a]"}},
	{"a[]]", nil},
	{"a[", nil},
	{"[", nil},
	{"\\", nil},
	{"*\\\\", []string{"a\\"}},
	{"\\a", []string{"a"}},
	{"a[a-]", []string{"a]"}},
	{"\xff", []string{"\xff"}},
	{"?\xff", nil},
	{"[\x80-\xff]", []string{"\xff"}},
	{"x\r\n?", []string{"x\r\ny"}},
	{"*c", []string{"abc"}},
	{"a[b-b]*", []string{"ab", "abc"}},
	{"a[^a-z]", []string{"a*", "a?", "a[", "a]", "a\\", "a-"}},
	{"nothing", nil},
}

func ksSetGlobKeys(t *testing.T, c *redis.Client) {
	t.Helper()
	args := []any{"MSET"}
	for _, k := range ksGlobKeys {
		args = append(args, k, "v")
	}
	ksDo(t, c, args...)
}

func TestKeysGlobPatterns(t *testing.T) {
	bothProtocols(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		ksSetGlobKeys(t, c)
		for _, tc := range ksGlobTests {
			ksCheck(t, c, ksSet(tc.want), "KEYS", tc.pattern)
		}
		ksCheck(t, c, ksErr("ERR wrong number of arguments for 'keys' command"), "KEYS")
		ksCheck(t, c, ksErr("ERR wrong number of arguments for 'keys' command"), "KEYS", "*", "*")
	})
}

func TestScanMatchGlobPatterns(t *testing.T) {
	ts := startServer(t)
	c := ts.client(t, 2)
	ksSetGlobKeys(t, c)
	for _, tc := range ksGlobTests {
		for _, count := range []string{"1", "1000"} {
			got, _ := ksScanAll(t, c, "MATCH", tc.pattern, "COUNT", count)
			slices.Sort(got)
			want := slices.Clone(tc.want)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("SCAN MATCH %q COUNT %s found %q; want %q", tc.pattern, count, got, want)
			}
		}
	}
}

func TestScanReturnsEveryKey(t *testing.T) {
	bothProtocols(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		const n = 300
		args := []any{"MSET"}
		for i := range n {
			args = append(args, fmt.Sprintf("key:%d", i), i)
		}
		ksDo(t, c, args...)
		for _, opts := range [][]any{nil, {"COUNT", "1"}, {"COUNT", "7"}, {"count", "1000000"}, {"MATCH", "*"}, {"TYPE", "string", "COUNT", "3"}} {
			keys, calls := ksScanAll(t, c, opts...)
			seen := map[string]bool{}
			for _, k := range keys {
				seen[k] = true
			}
			for i := range n {
				if k := fmt.Sprintf("key:%d", i); !seen[k] {
					t.Errorf("SCAN %q never returned %q", opts, k)
				}
			}
			if len(seen) != n {
				t.Errorf("SCAN %q returned %d distinct keys; want %d", opts, len(seen), n)
			}
			if len(opts) == 0 && calls < n/10 {
				t.Errorf("SCAN with the default COUNT took %d calls for %d keys; want about %d", calls, n, n/10)
			}
		}
		// An empty database: one call, cursor 0, no keys.
		ksDo(t, c, "SELECT", "5")
		ksCheck(t, c, ksScan{"0", nil}, "SCAN", "0")
	})
}

// TestScanReturnsKeysPresentThroughoutUnderWrites checks SCAN's guarantee:
// a key present for the whole iteration is returned, however the rest of
// the keyspace changes between calls.
func TestScanReturnsKeysPresentThroughoutUnderWrites(t *testing.T) {
	ts := startServer(t)
	c := ts.client(t, 2)
	writer := ts.client(t, 2)
	const n = 400
	args := []any{"MSET"}
	for i := range n {
		args = append(args, fmt.Sprintf("stay:%d", i), "v", fmt.Sprintf("gone:%d", i), "v")
	}
	ksDo(t, c, args...)
	seen := map[string]bool{}
	cursor, step := "0", 0
	for {
		var keys []string
		cursor, keys = ksScanReply(t, ksDo(t, c, "SCAN", cursor, "COUNT", "5"), nil)
		for _, k := range keys {
			if !strings.HasPrefix(k, "stay:") && !strings.HasPrefix(k, "gone:") && !strings.HasPrefix(k, "new:") {
				t.Fatalf("SCAN returned %q, which never existed", k)
			}
			seen[k] = true
		}
		if cursor == "0" {
			break
		}
		if step < n {
			ksDo(t, writer, "DEL", fmt.Sprintf("gone:%d", step))
			ksDo(t, writer, "SET", fmt.Sprintf("new:%d", step), "v")
		}
		step++
		if step > 10*n {
			t.Fatal("SCAN did not finish")
		}
	}
	for i := range n {
		if k := fmt.Sprintf("stay:%d", i); !seen[k] {
			t.Errorf("SCAN under writes never returned %q", k)
		}
	}
}

func TestScanOptionErrors(t *testing.T) {
	tests := []struct {
		args []any
		want ksErr
	}{
		{[]any{"SCAN", "0", "COUNT", "0"}, "ERR syntax error"},
		{[]any{"SCAN", "0", "COUNT", "-1"}, "ERR syntax error"},
		{[]any{"SCAN", "0", "COUNT", "abc"}, "ERR value is not an integer or out of range"},
		{[]any{"SCAN", "0", "COUNT", "9223372036854775808"}, "ERR value is not an integer or out of range"},
		{[]any{"SCAN", "0", "COUNT"}, "ERR syntax error"},
		{[]any{"SCAN", "0", "MATCH"}, "ERR syntax error"},
		{[]any{"SCAN", "0", "TYPE"}, "ERR syntax error"},
		{[]any{"SCAN", "0", "FOO", "bar"}, "ERR syntax error"},
		{[]any{"SCAN", "0", "COUNT", "10", "FOO"}, "ERR syntax error"},
		{[]any{"SCAN", "abc"}, "ERR invalid cursor"},
		{[]any{"SCAN", " 1"}, "ERR invalid cursor"},
		{[]any{"SCAN", "1 "}, "ERR invalid cursor"},
		{[]any{"SCAN", "1.5"}, "ERR invalid cursor"},
		{[]any{"SCAN", "0x10"}, "ERR invalid cursor"},
		{[]any{"SCAN", "-"}, "ERR invalid cursor"},
		{[]any{"SCAN", "18446744073709551616"}, "ERR invalid cursor"},
		// The cursor is checked before the options.
		{[]any{"SCAN", "abc", "COUNT", "0"}, "ERR invalid cursor"},
		{[]any{"SCAN"}, "ERR wrong number of arguments for 'scan' command"},
	}
	ts := startServer(t)
	c := ts.client(t, 2)
	ksDo(t, c, "SET", "k", "v")
	for _, tc := range tests {
		ksCheck(t, c, tc.want, tc.args...)
	}
}

// TestScanCursorSpellings checks cursors Redis 7 reads with strtoul: a
// leading sign, leading zeros, nothing at all, and bytes after a NUL.
func TestScanCursorSpellings(t *testing.T) {
	ts := startServer(t)
	c := ts.client(t, 2)
	ksDo(t, c, "MSET", "a", "1", "b", "2", "c", "3")
	for _, cursor := range []string{"", "+0", "00", "0\x00junk"} {
		ksCheck(t, c, ksScan{"0", []string{"a", "b", "c"}}, "SCAN", cursor, "COUNT", "100")
	}
	// -1 wraps to 2^64-1: a valid cursor, past every key position Cairn
	// hands out, so the iteration is over.
	for _, cursor := range []string{"-1", "18446744073709551615"} {
		ksCheck(t, c, ksScan{"0", nil}, "SCAN", cursor)
	}
}

func TestScanCursorIsBulkString(t *testing.T) {
	ts := startServer(t)
	conn := ts.raw(t)
	r := bufio.NewReader(conn)
	if _, err := io.WriteString(conn, "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n*2\r\n$4\r\nSCAN\r\n$1\r\n0\r\n"); err != nil {
		t.Fatal(err)
	}
	want := "+OK\r\n*2\r\n$1\r\n0\r\n*1\r\n$1\r\nk\r\n"
	got := make([]byte, len(want))
	if _, err := io.ReadFull(r, got); err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("SET then SCAN 0 replied %q; want %q", got, want)
	}
}

func TestScanType(t *testing.T) {
	bothProtocols(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		ksDo(t, c, "MSET", "a", "1", "b", "2")
		for _, typ := range []string{"string", "STRING", "String"} {
			keys, _ := ksScanAll(t, c, "TYPE", typ)
			slices.Sort(keys)
			if !slices.Equal(keys, []string{"a", "b"}) {
				t.Errorf("SCAN TYPE %s found %q; want [a b]", typ, keys)
			}
		}
		// Redis 7 filters by name: a type no key has, or a name it does not
		// know at all, matches nothing and is no error.
		for _, typ := range []string{"list", "hash", "set", "zset", "stream", "foo", "", "strings"} {
			ksCheck(t, c, ksScan{"0", nil}, "SCAN", "0", "TYPE", typ, "COUNT", "100")
			keys, calls := ksScanAll(t, c, "TYPE", typ, "COUNT", "1")
			if len(keys) != 0 {
				t.Errorf("SCAN TYPE %q found %q; want none", typ, keys)
			}
			if calls < 2 {
				t.Errorf("SCAN TYPE %q COUNT 1 finished in %d call; want the cursor to walk the keys", typ, calls)
			}
		}
		ksCheck(t, c, ksScan{"0", []string{"a"}}, "SCAN", "0", "TYPE", "string", "MATCH", "a*", "COUNT", "100")
	})
}

func TestRandomKeyPicksLiveKeys(t *testing.T) {
	bothProtocols(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		ksCheck(t, c, ksNil{}, "RANDOMKEY")
		ksDo(t, c, "SET", "", "empty")
		ksCheck(t, c, "", "RANDOMKEY")
		ksDo(t, c, "DEL", "")
		keys := map[string]bool{"a": true, "b\x00": true, "c": true}
		for k := range keys {
			ksDo(t, c, "SET", k, "v")
		}
		seen := map[string]bool{}
		for range 200 {
			k, ok := ksDo(t, c, "RANDOMKEY").(string)
			if !ok || !keys[k] {
				t.Fatalf("RANDOMKEY = %q; want one of the keys", k)
			}
			seen[k] = true
		}
		if len(seen) != len(keys) {
			t.Errorf("200 RANDOMKEYs returned only %v", seen)
		}
		ksCheck(t, c, ksErr("ERR wrong number of arguments for 'randomkey' command"), "RANDOMKEY", "x")
	})
}

func TestFlushDBAndFlushAll(t *testing.T) {
	ts := startServer(t)
	c := ts.client(t, 2)
	fill := []ksStep{
		kstep("OK", "SELECT", "0"),
		kstep("OK", "MSET", "a", "1", "b", "2"),
		kstep(int64(1), "EXPIRE", "a", "100"),
		kstep("OK", "SELECT", "1"),
		kstep("OK", "SET", "c", "3"),
	}
	ksRun(t, c, fill)
	ksRun(t, c, []ksStep{
		kstep(ksErr("ERR syntax error"), "FLUSHDB", "FOO"),
		kstep(ksErr("ERR syntax error"), "FLUSHDB", "ASYNC", "SYNC"),
		kstep(ksErr("ERR syntax error"), "FLUSHALL", "now"),
		kstep(ksErr("ERR syntax error"), "FLUSHALL", "SYNC", "SYNC"),
		kstep(int64(1), "DBSIZE"),
		kstep("OK", "FLUSHDB"),
		kstep(int64(0), "DBSIZE"),
		kstep("OK", "SELECT", "0"),
		kstep(int64(2), "DBSIZE"),
		kstep(int64(100), "TTL", "a"),
	})
	for _, mode := range [][]any{nil, {"ASYNC"}, {"sync"}} {
		ksRun(t, c, fill)
		ksRun(t, c, []ksStep{
			kstep("OK", append([]any{"FLUSHDB"}, mode...)...),
			kstep(int64(0), "DBSIZE"),
			kstep("OK", "SELECT", "0"),
			kstep(int64(2), "DBSIZE"),
			kstep("OK", append([]any{"FLUSHALL"}, mode...)...),
			kstep(int64(0), "DBSIZE"),
			kstep(ksSet{}, "KEYS", "*"),
			kstep(ksNil{}, "RANDOMKEY"),
			kstep(int64(-2), "TTL", "a"),
			kstep("OK", "SELECT", "1"),
			kstep(int64(0), "DBSIZE"),
		})
	}
	// A flushed key can be written again, deadline and all.
	ksRun(t, c, []ksStep{
		kstep("OK", "SELECT", "0"),
		kstep("OK", "SET", "a", "new", "EX", "50"),
		kstep(int64(50), "TTL", "a"),
		kstep(int64(1), "DBSIZE"),
	})
}

func TestDBSizeCountsKeysPerDatabase(t *testing.T) {
	ts := startServer(t)
	c := ts.client(t, 2)
	ksRun(t, c, []ksStep{
		kstep(int64(0), "DBSIZE"),
		kstep("OK", "MSET", "a", "1", "b", "2", "", "3"),
		kstep(int64(3), "DBSIZE"),
		kstep("OK", "SET", "a", "again"),
		kstep(int64(3), "DBSIZE"),
		kstep("OK", "SELECT", "15"),
		kstep(int64(0), "DBSIZE"),
		kstep("OK", "SET", "a", "1"),
		kstep(int64(1), "DBSIZE"),
		kstep("OK", "SELECT", "0"),
		kstep(int64(1), "DEL", "b"),
		kstep(int64(2), "DBSIZE"),
		kstep(ksErr("ERR wrong number of arguments for 'dbsize' command"), "DBSIZE", "0"),
	})
}

func TestKeyspaceSelectDatabase(t *testing.T) {
	ts := startServer(t)
	c := ts.client(t, 2)
	ksRun(t, c, []ksStep{
		kstep("OK", "SET", "k", "db0"),
		kstep("OK", "SELECT", "1"),
		kstep(ksNil{}, "GET", "k"),
		kstep("OK", "SET", "k", "db1"),
		kstep(ksErr("ERR DB index is out of range"), "SELECT", "16"),
		kstep(ksErr("ERR DB index is out of range"), "SELECT", "-1"),
		kstep(ksErr("ERR value is not an integer or out of range"), "SELECT", "one"),
		kstep(ksErr("ERR value is not an integer or out of range"), "SELECT", "9223372036854775808"),
		// A failed SELECT keeps the current database.
		kstep("db1", "GET", "k"),
		kstep("OK", "SELECT", "0"),
		kstep("db0", "GET", "k"),
	})
}

func TestSwapDBExchangesDatabases(t *testing.T) {
	ts := startServer(t)
	c := ts.client(t, 2)
	other := ts.client(t, 2)
	ksRun(t, c, []ksStep{
		kstep("OK", "MSET", "a", "1", "b", "2"),
		kstep(int64(1), "EXPIRE", "a", "100"),
		kstep("OK", "SELECT", "1"),
		kstep("OK", "SET", "c", "3"),
		kstep("OK", "SELECT", "0"),
	})
	// Another connection sitting in db 1 sees the swap too.
	ksRun(t, other, []ksStep{kstep("OK", "SELECT", "1"), kstep(int64(1), "DBSIZE")})
	ksRun(t, c, []ksStep{
		kstep("OK", "SWAPDB", "0", "1"),
		kstep(int64(1), "DBSIZE"),
		kstep("3", "GET", "c"),
		kstep(ksNil{}, "GET", "a"),
		kstep("OK", "SELECT", "1"),
		kstep(int64(2), "DBSIZE"),
		kstep(int64(100), "TTL", "a"),
		kstep("OK", "SWAPDB", "1", "1"),
		kstep(int64(2), "DBSIZE"),
	})
	ksRun(t, other, []ksStep{kstep(int64(2), "DBSIZE"), kstep("1", "GET", "a")})
	ksRun(t, c, []ksStep{
		kstep(ksErr("ERR DB index is out of range"), "SWAPDB", "0", "16"),
		kstep(ksErr("ERR DB index is out of range"), "SWAPDB", "-1", "0"),
		kstep(ksErr("ERR invalid first DB index"), "SWAPDB", "a", "0"),
		kstep(ksErr("ERR invalid first DB index"), "SWAPDB", "a", "b"),
		kstep(ksErr("ERR invalid first DB index"), "SWAPDB", "1.5", "0"),
		kstep(ksErr("ERR invalid first DB index"), "SWAPDB", "4294967296", "0"),
		kstep(ksErr("ERR invalid second DB index"), "SWAPDB", "0", "b"),
		kstep(ksErr("ERR invalid second DB index"), "SWAPDB", "99", "4294967296"),
		kstep(ksErr("ERR wrong number of arguments for 'swapdb' command"), "SWAPDB", "0"),
		kstep(int64(2), "DBSIZE"),
	})
}

func TestObjectEncodingOfStrings(t *testing.T) {
	tests := []struct{ value, want string }{
		{"123", "int"},
		{"-5", "int"},
		{"0", "int"},
		{"9223372036854775807", "int"},
		{"-9223372036854775808", "int"},
		{"9223372036854775808", "embstr"},
		{"12345678901234567890", "embstr"},
		{"01", "embstr"},
		{" 1", "embstr"},
		{"+1", "embstr"},
		{"1.5", "embstr"},
		{"", "embstr"},
		{strings.Repeat("a", 44), "embstr"},
		{strings.Repeat("a", 45), "raw"},
		{strings.Repeat("1", 45), "raw"},
	}
	bothProtocols(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		for _, tc := range tests {
			ksDo(t, c, "SET", "k", tc.value)
			ksCheck(t, c, tc.want, "OBJECT", "ENCODING", "k")
		}
		ksCheck(t, c, ksNil{}, "OBJECT", "ENCODING", "missing")
		ksCheck(t, c, ksNil{}, "object", "encoding", "")
		ksCheck(t, c, ksErr("ERR wrong number of arguments for 'object|encoding' command"), "OBJECT", "ENCODING")
		ksCheck(t, c, ksErr("ERR wrong number of arguments for 'object|encoding' command"), "OBJECT", "ENCODING", "k", "x")
	})
}

func TestObjectRefcountFreqAndHelp(t *testing.T) {
	bothProtocols(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		ksRun(t, c, []ksStep{
			kstep(ksNil{}, "OBJECT", "REFCOUNT", "missing"),
			kstep(ksNil{}, "OBJECT", "FREQ", "missing"),
			kstep("OK", "SET", "s", "hello"),
			kstep(int64(1), "OBJECT", "REFCOUNT", "s"),
			// Integers 0..9999 are Redis's shared objects.
			kstep("OK", "SET", "i", "9999"),
			kstep(int64(math.MaxInt32), "OBJECT", "REFCOUNT", "i"),
			kstep("OK", "SET", "i", "0"),
			kstep(int64(math.MaxInt32), "OBJECT", "REFCOUNT", "i"),
			kstep("OK", "SET", "i", "10000"),
			kstep(int64(1), "OBJECT", "REFCOUNT", "i"),
			kstep("OK", "SET", "i", "-1"),
			kstep(int64(1), "OBJECT", "REFCOUNT", "i"),
			kstep("OK", "SET", "i", "007"),
			kstep(int64(1), "OBJECT", "REFCOUNT", "i"),
			kstep(ksErr("ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust."), "OBJECT", "FREQ", "s"),
			kstep(ksErr("ERR wrong number of arguments for 'object' command"), "OBJECT"),
			kstep(ksErr("ERR unknown subcommand 'foo'. Try OBJECT HELP."), "OBJECT", "foo"),
			kstep(ksErr("ERR wrong number of arguments for 'object|help' command"), "OBJECT", "HELP", "x"),
			kstep(ksErr("ERR wrong number of arguments for 'object|refcount' command"), "OBJECT", "REFCOUNT"),
		})
		help, ok := ksDo(t, c, "OBJECT", "HELP").([]any)
		if !ok || len(help) < 4 {
			t.Fatalf("OBJECT HELP = %#v", help)
		}
		wantEnds := []any{"OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:", "HELP", "    Print this help."}
		if gotEnds := []any{help[0], help[len(help)-2], help[len(help)-1]}; !reflect.DeepEqual(gotEnds, wantEnds) {
			t.Errorf("OBJECT HELP starts and ends with %q; want %q", gotEnds, wantEnds)
		}
		for _, sub := range []string{"ENCODING <key>", "FREQ <key>", "REFCOUNT <key>"} {
			if !slices.Contains(help, any(sub)) {
				t.Errorf("OBJECT HELP does not describe %q", sub)
			}
		}
	})
}

// ksPauseReaper stops the store's background expiry for the rest of the
// test, so what a test sees of an expired key comes from the read path.
// After the interval changes at most one more round starts (the one whose
// short wait was already running); a sentinel key shows when it has run.
func ksPauseReaper(t *testing.T, ts *testServer, c *redis.Client) {
	t.Helper()
	ts.st.SetReapInterval(time.Hour)
	ksDo(t, c, "SET", "reaper-sentinel", "v", "PX", "1")
	// If the last round ran before the sentinel expired, nothing will ever
	// reclaim it; 200 ms without a round means the reaper is parked.
	deadline := time.Now().Add(200 * time.Millisecond)
	for ksInt(t, c, "DBSIZE") != 0 && time.Now().Before(deadline) {
		time.Sleep(2 * time.Millisecond)
	}
	ksDo(t, c, "DEL", "reaper-sentinel")
}

// ksWaitExpired waits until PTTL says the key has gone.
func ksWaitExpired(t *testing.T, c *redis.Client, key string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for ksInt(t, c, "PTTL", key) != -2 {
		if time.Now().After(deadline) {
			t.Fatalf("%q did not expire", key)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestExpireExpiredKeysInvisibleToEveryRead(t *testing.T) {
	bothProtocols(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		ksPauseReaper(t, ts, c)
		// Expired keys whose records the paused reaper leaves in place;
		// their values are as long as the live ones, so a copy that read
		// the wrong record would show it.
		ksRun(t, c, []ksStep{
			kstep("OK", "SET", "live", "LIVE"),
			kstep("OK", "SET", "gone", "GONE", "PX", "30"),
			kstep("OK", "SET", "", "EMPT", "PX", "30"),
			kstep("OK", "SET", "nxdst", "NXDS", "PX", "30"),
			kstep("OK", "SELECT", "1"),
			kstep("OK", "SET", "moved", "OLD1", "PX", "30"),
			kstep("OK", "SELECT", "0"),
			kstep("OK", "SET", "moved", "NEW0"),
		})
		ksWaitExpired(t, c, "gone")
		ksWaitExpired(t, c, "")
		ksWaitExpired(t, c, "nxdst")
		ksDo(t, c, "SELECT", "1")
		ksWaitExpired(t, c, "moved")
		ksDo(t, c, "SELECT", "0")
		ksRun(t, c, []ksStep{
			// The reaper is paused: the records are still counted.
			kstep(int64(5), "DBSIZE"),
			kstep(ksNil{}, "GET", "gone"),
			kstep(int64(0), "EXISTS", "gone", ""),
			kstep(int64(0), "TOUCH", "gone"),
			kstep("none", "TYPE", "gone"),
			kstep(int64(-2), "TTL", "gone"),
			kstep(int64(-2), "PTTL", ""),
			kstep(int64(-2), "EXPIRETIME", "gone"),
			kstep(int64(-2), "PEXPIRETIME", "gone"),
			kstep(ksNil{}, "OBJECT", "ENCODING", "gone"),
			kstep(ksNil{}, "OBJECT", "REFCOUNT", "gone"),
			kstep(ksSet{"live", "moved"}, "KEYS", "*"),
			kstep(ksSet{}, "KEYS", "gone"),
			kstep(ksSet{}, "KEYS", ""),
			kstep(ksSet{}, "KEYS", "g*"),
			kstep(ksScan{"0", []string{"live", "moved"}}, "SCAN", "0", "COUNT", "100"),
			kstep(ksScan{"0", []string{"live", "moved"}}, "SCAN", "0", "COUNT", "100", "TYPE", "string"),
			kstep(ksScan{"0", nil}, "SCAN", "0", "MATCH", "g*", "COUNT", "100"),
			kstep(ksErr("ERR no such key"), "RENAME", "gone", "x"),
			kstep(ksErr("ERR no such key"), "RENAMENX", "gone", "x"),
			kstep(int64(0), "COPY", "gone", "x"),
			kstep(int64(0), "MOVE", "gone", "2"),
			kstep(int64(0), "EXPIRE", "gone", "100"),
			kstep(int64(0), "PERSIST", "gone"),
			kstep(int64(0), "EXISTS", "x"),
		})
		// RANDOMKEY never picks an expired key.
		for range 50 {
			if k := ksDo(t, c, "RANDOMKEY"); k != "live" && k != "moved" {
				t.Fatalf("RANDOMKEY = %q; want a live key", k)
			}
		}
		// An expired destination counts as absent, and what lands there is
		// the source's value and deadline.
		ksRun(t, c, []ksStep{
			kstep(int64(1), "COPY", "live", "gone"),
			kstep("LIVE", "GET", "gone"),
			kstep(int64(-1), "TTL", "gone"),
			kstep(int64(1), "MOVE", "moved", "1"),
			kstep("OK", "SELECT", "1"),
			kstep("NEW0", "GET", "moved"),
			kstep(int64(-1), "TTL", "moved"),
			kstep("OK", "SELECT", "0"),
			kstep(int64(1), "RENAMENX", "live", "nxdst"),
			kstep("LIVE", "GET", "nxdst"),
			kstep(int64(-1), "TTL", "nxdst"),
			kstep("OK", "RENAME", "nxdst", ""),
			kstep("LIVE", "GET", ""),
			kstep(int64(2), "DEL", "", "gone"),
			kstep(int64(0), "DBSIZE"),
		})
		// DEL of an expired key reclaims it but reports nothing deleted.
		ksRun(t, c, []ksStep{kstep("OK", "SET", "d", "v", "PX", "20")})
		ksWaitExpired(t, c, "d")
		ksRun(t, c, []ksStep{
			kstep(int64(1), "DBSIZE"),
			kstep(int64(0), "DEL", "d"),
			kstep(int64(0), "UNLINK", "d"),
			kstep(int64(0), "DBSIZE"),
		})
	})
}

func TestExpireActiveExpiryReclaimsUnreadKeys(t *testing.T) {
	ts := startServer(t)
	c := ts.client(t, 2)
	ksCheck(t, c, []any{"hz", "100"}, "CONFIG", "GET", "hz")
	const n = 200
	for i := range n {
		ksDo(t, c, "SET", fmt.Sprintf("k%d", i), "v", "PX", 20+i%30)
	}
	ksDo(t, c, "SELECT", "3")
	for i := range n {
		ksDo(t, c, "SET", fmt.Sprintf("k%d", i), "v", "PX", 20+i%30)
	}
	ksDo(t, c, "SET", "stays", "v", "EX", "100")
	for _, db := range []string{"0", "3"} {
		ksDo(t, c, "SELECT", db)
		want := int64(0)
		if db == "3" {
			want = 1
		}
		deadline := time.Now().Add(time.Second)
		for {
			size := ksInt(t, c, "DBSIZE")
			if size == want {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("db %s: DBSIZE is %d a second after every deadline; want %d", db, size, want)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	ksCheck(t, c, "v", "GET", "stays")
	if got := ts.st.Stats().ExpiredKeys.Load(); got != 2*n {
		t.Errorf("expired_keys = %d; want %d", got, 2*n)
	}
}

// TestExpireKeepsDeadlineAcrossRewrites checks that a key's deadline
// follows EXPIRE, PERSIST and overwrites exactly, so the expiry index never
// reclaims a key whose deadline was moved later or removed.
func TestExpireKeepsDeadlineAcrossRewrites(t *testing.T) {
	ts := startServer(t)
	c := ts.client(t, 2)
	ksRun(t, c, []ksStep{
		kstep("OK", "SET", "later", "v", "PX", "20"),
		kstep(int64(1), "PEXPIRE", "later", "100000"),
		kstep("OK", "SET", "persisted", "v", "PX", "20"),
		kstep(int64(1), "PERSIST", "persisted"),
		kstep("OK", "SET", "overwritten", "v", "PX", "20"),
		kstep("OK", "SET", "overwritten", "w"),
		kstep("OK", "SET", "renamed", "v", "PX", "20"),
		kstep("OK", "SET", "target", "t", "EX", "100"),
		kstep("OK", "RENAME", "target", "renamed"),
	})
	time.Sleep(60 * time.Millisecond)
	ksRun(t, c, []ksStep{
		kstep(int64(4), "EXISTS", "later", "persisted", "overwritten", "renamed"),
		kstep(int64(100), "TTL", "later"),
		kstep(int64(-1), "TTL", "persisted"),
		kstep("w", "GET", "overwritten"),
		kstep("t", "GET", "renamed"),
		kstep(int64(4), "DBSIZE"),
	})
}
