package server

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// The replies below are those of redis-server 7.0.15.

const listWrongType = ksErr("WRONGTYPE Operation against a key holding the wrong kind of value")

func listArity(name string) ksErr {
	return ksErr("ERR wrong number of arguments for '" + name + "' command")
}

func TestListPushPopAndRead(t *testing.T) {
	bothProtocols(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		ksRun(t, c, []ksStep{
			kstep(int64(3), "LPUSH", "l", "a", "b", "c"),
			kstep(int64(5), "RPUSH", "l", "d", "e"),
			kstep([]any{"c", "b", "a", "d", "e"}, "LRANGE", "l", "0", "-1"),
			kstep(int64(5), "LLEN", "l"),
			kstep(int64(0), "LLEN", "nol"),
			kstep(int64(6), "LPUSHX", "l", "x"),
			kstep(int64(7), "RPUSHX", "l", "y"),
			kstep(int64(0), "LPUSHX", "nol", "x", "y"),
			kstep(int64(0), "RPUSHX", "nol", "x"),
			kstep(int64(0), "EXISTS", "nol"),
			kstep("list", "TYPE", "l"),
			kstep("x", "LPOP", "l"),
			kstep("y", "RPOP", "l"),
			kstep([]any{"c", "b"}, "LPOP", "l", "2"),
			kstep([]any{"e", "d"}, "RPOP", "l", "2"),
			kstep([]any{}, "LPOP", "l", "0"),
			kstep([]any{"a"}, "LPOP", "l", "10"),
			kstep(int64(0), "EXISTS", "l"),
			kstep(ksNil{}, "LPOP", "l"),
			kstep(ksNil{}, "RPOP", "l"),
			kstep(ksNil{}, "LPOP", "l", "3"),
			kstep(ksNil{}, "LPOP", "l", "0"),
			kstep(int64(5), "RPUSH", "l", "a", "b", "c", "d", "e"),
			kstep([]any{"e", "d", "c", "b", "a"}, "RPOP", "l", "9223372036854775807"),
			// LINDEX and LRANGE.
			kstep(int64(7), "RPUSH", "l", "0", "1", "2", "3", "4", "5", "6"),
			kstep("0", "LINDEX", "l", "0"),
			kstep("6", "LINDEX", "l", "-1"),
			kstep("0", "LINDEX", "l", "-7"),
			kstep(ksNil{}, "LINDEX", "l", "7"),
			kstep(ksNil{}, "LINDEX", "l", "-8"),
			kstep(ksNil{}, "LINDEX", "nol", "0"),
			kstep(ksNil{}, "LINDEX", "nol", "abc"),
			kstep([]any{"1", "2", "3"}, "LRANGE", "l", "1", "3"),
			kstep([]any{"5", "6"}, "LRANGE", "l", "-2", "-1"),
			kstep([]any{"0", "1", "2", "3", "4", "5", "6"}, "LRANGE", "l", "-100", "100"),
			kstep([]any{}, "LRANGE", "l", "5", "2"),
			kstep([]any{}, "LRANGE", "l", "7", "10"),
			kstep([]any{}, "LRANGE", "l", "-100", "-8"),
			kstep([]any{}, "LRANGE", "nol", "0", "-1"),
		})
	})
}

func TestListSetInsertRemTrim(t *testing.T) {
	bothProtocols(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		ksRun(t, c, []ksStep{
			kstep(int64(7), "RPUSH", "l", "a", "b", "c", "a", "b", "c", "a"),
			kstep("OK", "LSET", "l", "0", "A"),
			kstep("OK", "LSET", "l", "-1", "Z"),
			kstep([]any{"A", "b", "c", "a", "b", "c", "Z"}, "LRANGE", "l", "0", "-1"),
			kstep(ksErr("ERR index out of range"), "LSET", "l", "7", "x"),
			kstep(ksErr("ERR index out of range"), "LSET", "l", "-8", "x"),
			kstep(ksErr("ERR no such key"), "LSET", "nol", "0", "x"),
			kstep(ksErr("ERR no such key"), "LSET", "nol", "abc", "x"),
			kstep(ksErr("ERR value is not an integer or out of range"), "LSET", "l", "abc", "x"),
			// LINSERT.
			kstep(int64(8), "LINSERT", "l", "BEFORE", "c", "x"),
			kstep(int64(9), "LINSERT", "l", "after", "c", "y"),
			kstep(int64(10), "LINSERT", "l", "After", "Z", "end"),
			kstep(int64(11), "LINSERT", "l", "before", "A", "start"),
			kstep([]any{"start", "A", "b", "x", "c", "y", "a", "b", "c", "Z", "end"}, "LRANGE", "l", "0", "-1"),
			kstep(int64(-1), "LINSERT", "l", "before", "nothere", "x"),
			kstep(int64(0), "LINSERT", "nol", "before", "a", "x"),
			kstep(ksErr("ERR syntax error"), "LINSERT", "l", "middle", "a", "x"),
			kstep(int64(0), "EXISTS", "nol"),
			// LREM.
			kstep(int64(1), "LREM", "l", "1", "b"),
			kstep(int64(1), "LREM", "l", "-1", "c"),
			kstep([]any{"start", "A", "x", "c", "y", "a", "b", "Z", "end"}, "LRANGE", "l", "0", "-1"),
			kstep(int64(0), "LREM", "l", "0", "nothere"),
			kstep(int64(4), "RPUSH", "m", "k", "v", "k", "k"),
			kstep(int64(3), "LREM", "m", "0", "k"),
			kstep([]any{"v"}, "LRANGE", "m", "0", "-1"),
			kstep(int64(1), "LREM", "m", "-5", "v"),
			kstep(int64(0), "EXISTS", "m"),
			kstep(int64(0), "LREM", "nol", "0", "x"),
			// LTRIM.
			kstep("OK", "LTRIM", "l", "1", "-2"),
			kstep([]any{"A", "x", "c", "y", "a", "b", "Z"}, "LRANGE", "l", "0", "-1"),
			kstep("OK", "LTRIM", "l", "-3", "100"),
			kstep([]any{"a", "b", "Z"}, "LRANGE", "l", "0", "-1"),
			kstep("OK", "LTRIM", "l", "0", "-1"),
			kstep(int64(3), "LLEN", "l"),
			kstep("OK", "LTRIM", "l", "5", "1"),
			kstep(int64(0), "EXISTS", "l"),
			kstep("OK", "LTRIM", "nol", "0", "1"),
			kstep(int64(0), "EXISTS", "nol"),
		})
	})
}

func TestListLPos(t *testing.T) {
	bothProtocols(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		ksRun(t, c, []ksStep{
			kstep(int64(8), "RPUSH", "l", "a", "b", "c", "1", "2", "3", "c", "c"),
			kstep(int64(2), "LPOS", "l", "c"),
			kstep(int64(6), "LPOS", "l", "c", "RANK", "2"),
			kstep(int64(7), "LPOS", "l", "c", "rank", "-1"),
			kstep(int64(6), "LPOS", "l", "c", "RANK", "-2"),
			kstep(ksNil{}, "LPOS", "l", "c", "RANK", "4"),
			kstep(ksNil{}, "LPOS", "l", "z"),
			kstep([]any{int64(2), int64(6)}, "LPOS", "l", "c", "COUNT", "2"),
			kstep([]any{int64(2), int64(6), int64(7)}, "LPOS", "l", "c", "COUNT", "0"),
			kstep([]any{int64(7), int64(6), int64(2)}, "LPOS", "l", "c", "RANK", "-1", "COUNT", "0"),
			kstep([]any{int64(6), int64(7)}, "LPOS", "l", "c", "RANK", "2", "COUNT", "0"),
			kstep([]any{}, "LPOS", "l", "z", "COUNT", "0"),
			kstep(ksNil{}, "LPOS", "l", "c", "MAXLEN", "2"),
			kstep(int64(2), "LPOS", "l", "c", "MAXLEN", "3"),
			kstep([]any{int64(7)}, "LPOS", "l", "c", "RANK", "-1", "COUNT", "0", "MAXLEN", "1"),
			kstep([]any{int64(2)}, "LPOS", "l", "c", "COUNT", "0", "MAXLEN", "6"),
			// Later options override earlier ones.
			kstep(int64(6), "LPOS", "l", "c", "RANK", "1", "RANK", "2"),
			kstep(ksNil{}, "LPOS", "l", "c", "RANK", "9223372036854775807"),
			kstep(ksNil{}, "LPOS", "l", "c", "RANK", "-9223372036854775807"),
			// Redis 7.0 treats the lowest rank as -1 (7.2 rejects it).
			kstep(int64(7), "LPOS", "l", "c", "RANK", "-9223372036854775808"),
			kstep(ksNil{}, "LPOS", "nol", "c"),
			kstep([]any{}, "LPOS", "nol", "c", "COUNT", "1"),
			kstep(ksErr("ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list"), "LPOS", "l", "c", "RANK", "0"),
			kstep(ksErr("ERR value is not an integer or out of range"), "LPOS", "l", "c", "RANK", "x"),
			kstep(ksErr("ERR COUNT can't be negative"), "LPOS", "l", "c", "COUNT", "-1"),
			kstep(ksErr("ERR COUNT can't be negative"), "LPOS", "l", "c", "COUNT", "x"),
			kstep(ksErr("ERR MAXLEN can't be negative"), "LPOS", "l", "c", "MAXLEN", "-1"),
			kstep(ksErr("ERR MAXLEN can't be negative"), "LPOS", "l", "c", "MAXLEN", "x"),
			kstep(ksErr("ERR syntax error"), "LPOS", "l", "c", "RANK"),
			kstep(ksErr("ERR syntax error"), "LPOS", "l", "c", "FOO", "1"),
			kstep(ksErr("ERR syntax error"), "LPOS", "nol", "c", "COUNT"),
		})
	})
}

func TestListMoveAndMPop(t *testing.T) {
	bothProtocols(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		ksRun(t, c, []ksStep{
			kstep(int64(3), "RPUSH", "src", "a", "b", "c"),
			kstep("c", "RPOPLPUSH", "src", "dst"),
			kstep("a", "LMOVE", "src", "dst", "LEFT", "RIGHT"),
			kstep("c", "LMOVE", "dst", "src", "left", "left"),
			kstep("a", "LMOVE", "dst", "src", "RIGHT", "right"),
			kstep(int64(0), "EXISTS", "dst"),
			kstep([]any{"c", "b", "a"}, "LRANGE", "src", "0", "-1"),
			// A list onto itself rotates.
			kstep("c", "LMOVE", "src", "src", "LEFT", "RIGHT"),
			kstep([]any{"b", "a", "c"}, "LRANGE", "src", "0", "-1"),
			kstep("c", "RPOPLPUSH", "src", "src"),
			kstep([]any{"c", "b", "a"}, "LRANGE", "src", "0", "-1"),
			kstep("c", "LMOVE", "src", "src", "LEFT", "LEFT"),
			kstep([]any{"c", "b", "a"}, "LRANGE", "src", "0", "-1"),
			kstep(ksNil{}, "LMOVE", "nol", "dst", "LEFT", "LEFT"),
			kstep(ksNil{}, "RPOPLPUSH", "nol", "dst"),
			kstep(int64(0), "EXISTS", "dst"),
			kstep(ksErr("ERR syntax error"), "LMOVE", "src", "dst", "UP", "LEFT"),
			kstep(ksErr("ERR syntax error"), "LMOVE", "src", "dst", "LEFT", "DOWN"),
			// LMPOP.
			kstep([]any{"src", []any{"c"}}, "LMPOP", "1", "src", "LEFT"),
			kstep([]any{"src", []any{"a", "b"}}, "LMPOP", "2", "nol", "src", "right", "COUNT", "5"),
			kstep(int64(0), "EXISTS", "src"),
			kstep(ksNil{}, "LMPOP", "2", "nol", "src", "LEFT"),
			kstep(int64(3), "RPUSH", "k2", "x", "y", "z"),
			kstep([]any{"k2", []any{"x", "y"}}, "LMPOP", "3", "nol", "k1", "k2", "LEFT", "count", "2"),
			kstep(ksErr("ERR numkeys should be greater than 0"), "LMPOP", "0", "k2", "LEFT"),
			kstep(ksErr("ERR numkeys should be greater than 0"), "LMPOP", "-1", "k2", "LEFT"),
			kstep(ksErr("ERR numkeys should be greater than 0"), "LMPOP", "x", "k2", "LEFT"),
			kstep(ksErr("ERR syntax error"), "LMPOP", "2", "k2", "LEFT"),
			kstep(ksErr("ERR syntax error"), "LMPOP", "10", "k2", "LEFT"),
			kstep(ksErr("ERR syntax error"), "LMPOP", "1", "k2", "MIDDLE"),
			kstep(ksErr("ERR syntax error"), "LMPOP", "1", "k2", "LEFT", "COUNT"),
			kstep(ksErr("ERR syntax error"), "LMPOP", "1", "k2", "LEFT", "COUNT", "1", "COUNT", "2"),
			kstep(ksErr("ERR syntax error"), "LMPOP", "1", "k2", "LEFT", "FOO"),
			kstep(ksErr("ERR count should be greater than 0"), "LMPOP", "1", "k2", "LEFT", "COUNT", "0"),
			kstep(ksErr("ERR count should be greater than 0"), "LMPOP", "1", "k2", "LEFT", "COUNT", "-1"),
			kstep(ksErr("ERR count should be greater than 0"), "LMPOP", "1", "k2", "LEFT", "COUNT", "x"),
			kstep([]any{"z"}, "LRANGE", "k2", "0", "-1"),
		})
	})
}

func TestListErrors(t *testing.T) {
	bothProtocols(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		ksDo(t, c, "SET", "str", "v")
		ksDo(t, c, "HSET", "hash", "f", "v")
		ksDo(t, c, "RPUSH", "l", "a")
		for _, key := range []string{"str", "hash"} {
			ksRun(t, c, []ksStep{
				kstep(listWrongType, "LPUSH", key, "a"),
				kstep(listWrongType, "RPUSH", key, "a"),
				kstep(listWrongType, "LPUSHX", key, "a"),
				kstep(listWrongType, "RPUSHX", key, "a"),
				kstep(listWrongType, "LPOP", key),
				kstep(listWrongType, "RPOP", key, "2"),
				kstep(listWrongType, "LLEN", key),
				kstep(listWrongType, "LINDEX", key, "0"),
				kstep(listWrongType, "LINDEX", key, "x"),
				kstep(listWrongType, "LRANGE", key, "0", "-1"),
				kstep(listWrongType, "LSET", key, "0", "x"),
				kstep(listWrongType, "LSET", key, "x", "x"),
				kstep(listWrongType, "LINSERT", key, "BEFORE", "a", "x"),
				kstep(listWrongType, "LREM", key, "0", "a"),
				kstep(listWrongType, "LTRIM", key, "0", "1"),
				kstep(listWrongType, "LPOS", key, "a"),
				kstep(listWrongType, "LMOVE", key, "l", "LEFT", "LEFT"),
				kstep(listWrongType, "LMOVE", "l", key, "LEFT", "LEFT"),
				kstep(listWrongType, "RPOPLPUSH", "l", key),
				kstep(listWrongType, "LMPOP", "2", "nol", key, "LEFT"),
				kstep(listWrongType, "BLPOP", "nol", key, "0"),
				kstep(listWrongType, "BRPOP", key, "0"),
				kstep(listWrongType, "BLMOVE", key, "l", "LEFT", "LEFT", "0"),
				kstep(listWrongType, "BLMOVE", "l", key, "LEFT", "LEFT", "0"),
				kstep(listWrongType, "BRPOPLPUSH", key, "l", "0"),
				kstep(listWrongType, "BLMPOP", "0", "1", key, "LEFT"),
			})
		}
		ksRun(t, c, []ksStep{
			// The first list is served before a later key of another type.
			kstep([]any{"l", []any{"a"}}, "LMPOP", "2", "l", "str", "LEFT"),
			kstep(int64(1), "RPUSH", "l", "a"),
			kstep([]any{"l", "a"}, "BLPOP", "l", "str", "0"),
			// An absent source is nil whatever the destination holds.
			kstep(ksNil{}, "LMOVE", "nol", "str", "LEFT", "LEFT"),
			kstep(ksNil{}, "BLMOVE", "nol", "str", "LEFT", "LEFT", "0.01"),
			// Arguments are checked before the key.
			kstep(ksErr("ERR value is out of range, must be positive"), "LPOP", "str", "x"),
			kstep(ksErr("ERR value is out of range, must be positive"), "LPOP", "nol", "-1"),
			kstep(ksErr("ERR value is not an integer or out of range"), "LRANGE", "str", "a", "1"),
			kstep(ksErr("ERR value is not an integer or out of range"), "LRANGE", "nol", "0", "b"),
			kstep(ksErr("ERR value is not an integer or out of range"), "LTRIM", "str", "a", "1"),
			kstep(ksErr("ERR value is not an integer or out of range"), "LREM", "str", "x", "a"),
			kstep(ksErr("ERR syntax error"), "LINSERT", "str", "middle", "a", "x"),
			kstep(ksErr("ERR syntax error"), "LMPOP", "1", "str", "middle"),
			kstep(ksErr("ERR timeout is not a float or out of range"), "BLPOP", "str", "x"),
			kstep(ksErr("ERR syntax error"), "BLMOVE", "str", "l", "UP", "LEFT", "x"),
			kstep(listArity("lpop"), "LPOP", "l", "1", "2"),
			kstep(listArity("rpop"), "RPOP", "l", "1", "2"),
			kstep(listArity("lpush"), "LPUSH", "l"),
			kstep(listArity("lpos"), "LPOS", "l"),
			kstep(listArity("linsert"), "LINSERT", "l", "BEFORE", "a"),
			kstep(listArity("lmpop"), "LMPOP", "1", "l"),
			kstep(listArity("blpop"), "BLPOP", "l"),
			kstep(listArity("blmpop"), "BLMPOP", "0", "1", "l"),
			kstep(listArity("blmove"), "BLMOVE", "a", "b", "LEFT", "LEFT"),
			kstep(listArity("brpoplpush"), "BRPOPLPUSH", "a", "b"),
		})
	})
}

func TestListBlockingTimeoutArgument(t *testing.T) {
	bothProtocols(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		const notFloat = ksErr("ERR timeout is not a float or out of range")
		const negative = ksErr("ERR timeout is negative")
		for _, cmd := range [][]any{
			{"BLPOP", "nol"}, {"BRPOP", "nol"}, {"BRPOPLPUSH", "nol", "dst"},
			{"BLMOVE", "nol", "dst", "LEFT", "RIGHT"},
		} {
			for _, c2 := range []struct {
				timeout string
				want    any
			}{
				{"x", notFloat}, {"", notFloat}, {" 1", notFloat}, {"1 ", notFloat}, {"nan", notFloat},
				{"-1", negative}, {"-0.5", negative}, {"-inf", negative},
				// Redis 7.0 calls a timeout beyond LLONG_MAX ms negative.
				{"inf", negative}, {"1e20", negative}, {"9.3e15", negative},
				// Fractions round up to whole milliseconds.
				{"0.0001", ksNil{}}, {"0x0.1p-6", ksNil{}}, {"1e-2", ksNil{}},
			} {
				args := append(append([]any{}, cmd...), c2.timeout)
				if !ksCheck(t, c, c2.want, args...) {
					t.FailNow()
				}
			}
		}
		ksRun(t, c, []ksStep{
			kstep(notFloat, "BLMPOP", "x", "1", "nol", "LEFT"),
			kstep(negative, "BLMPOP", "-1", "1", "nol", "LEFT"),
			// BLMPOP checks numkeys and its options before the timeout.
			kstep(ksErr("ERR numkeys should be greater than 0"), "BLMPOP", "x", "0", "nol", "LEFT"),
			kstep(ksErr("ERR syntax error"), "BLMPOP", "x", "1", "nol", "MIDDLE"),
			kstep(ksErr("ERR count should be greater than 0"), "BLMPOP", "x", "1", "nol", "LEFT", "COUNT", "0"),
			kstep(ksErr("ERR syntax error"), "BLMPOP", "0", "10", "nol", "LEFT"),
			kstep(ksNil{}, "BLMPOP", "0.01", "2", "nol", "nol2", "RIGHT", "COUNT", "3"),
		})
	})
}

// TestListNullRepliesOnTheWire checks the exact null of each reply: a null
// bulk string or a null array in RESP2, both _ in RESP3.
func TestListNullRepliesOnTheWire(t *testing.T) {
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) {
			ts := startServer(t)
			rc := ts.wireProto(t, proto)
			nullBulk, nullArray := "$-1\r\n", "*-1\r\n"
			if proto == 3 {
				nullBulk, nullArray = "_\r\n", "_\r\n"
			}
			rc.run([]wireStep{
				wstep(nullBulk, "LPOP", "nol"),
				wstep(nullArray, "LPOP", "nol", "2"),
				wstep(nullBulk, "RPOP", "nol"),
				wstep(nullBulk, "LINDEX", "nol", "0"),
				wstep(nullBulk, "LPOS", "nol", "a"),
				wstep("*0\r\n", "LPOS", "nol", "a", "COUNT", "2"),
				wstep("*0\r\n", "LRANGE", "nol", "0", "-1"),
				wstep(nullArray, "LMPOP", "1", "nol", "LEFT"),
				wstep(nullBulk, "LMOVE", "nol", "dst", "LEFT", "LEFT"),
				wstep(nullBulk, "RPOPLPUSH", "nol", "dst"),
				wstep(nullArray, "BLPOP", "nol", "0.01"),
				wstep(nullArray, "BRPOP", "nol", "nol2", "0.01"),
				wstep(nullArray, "BLMPOP", "0.01", "1", "nol", "LEFT"),
				// A wait that times out is a null array even where the
				// command's reply is a bulk string (Redis's
				// replyToBlockedClientTimedOut).
				wstep(nullArray, "BLMOVE", "nol", "dst", "LEFT", "LEFT", "0.01"),
				wstep(nullArray, "BRPOPLPUSH", "nol", "dst", "0.01"),
				wstep(":1\r\n", "RPUSH", "l", "a"),
				wstep("*0\r\n", "LPOP", "l", "0"),
				wstep("*2\r\n$1\r\nl\r\n*1\r\n$1\r\na\r\n", "LMPOP", "1", "l", "LEFT", "COUNT", "3"),
			})
		})
	}
}

func TestListCommandInfo(t *testing.T) {
	ts := startServer(t)
	rc := ts.wire(t)
	keySpec := func(flags, begin, find string) string {
		return "*6\r\n$5\r\nflags\r\n" + flags + "$12\r\nbegin_search\r\n*4\r\n$4\r\ntype\r\n$5\r\nindex\r\n$4\r\nspec\r\n*2\r\n$5\r\nindex\r\n" + begin +
			"$9\r\nfind_keys\r\n" + find
	}
	rangeKeys := func(last string) string {
		return "*4\r\n$4\r\ntype\r\n$5\r\nrange\r\n$4\r\nspec\r\n*6\r\n$7\r\nlastkey\r\n" + last + "$7\r\nkeystep\r\n:1\r\n$5\r\nlimit\r\n:0\r\n"
	}
	keyNum := "*4\r\n$4\r\ntype\r\n$6\r\nkeynum\r\n$4\r\nspec\r\n*6\r\n$9\r\nkeynumidx\r\n:0\r\n$8\r\nfirstkey\r\n:1\r\n$7\r\nkeystep\r\n:1\r\n"
	rwAccDel := "*3\r\n+RW\r\n+access\r\n+delete\r\n"
	rc.run([]wireStep{
		wstep("*1\r\n*10\r\n$5\r\nlmpop\r\n:-4\r\n*2\r\n+write\r\n+movablekeys\r\n:0\r\n:0\r\n:0\r\n*3\r\n+@write\r\n+@list\r\n+@slow\r\n*0\r\n*1\r\n"+
			keySpec(rwAccDel, ":1\r\n", keyNum)+"*0\r\n", "COMMAND", "INFO", "lmpop"),
		wstep("*1\r\n*10\r\n$6\r\nblmpop\r\n:-5\r\n*3\r\n+write\r\n+blocking\r\n+movablekeys\r\n:0\r\n:0\r\n:0\r\n*4\r\n+@write\r\n+@list\r\n+@slow\r\n+@blocking\r\n*0\r\n*1\r\n"+
			keySpec(rwAccDel, ":2\r\n", keyNum)+"*0\r\n", "COMMAND", "INFO", "blmpop"),
		wstep("*1\r\n*10\r\n$5\r\nblpop\r\n:-3\r\n*3\r\n+write\r\n+noscript\r\n+blocking\r\n:1\r\n:-2\r\n:1\r\n*4\r\n+@write\r\n+@list\r\n+@slow\r\n+@blocking\r\n*0\r\n*1\r\n"+
			keySpec(rwAccDel, ":1\r\n", rangeKeys(":-2\r\n"))+"*0\r\n", "COMMAND", "INFO", "blpop"),
		wstep("*1\r\n*10\r\n$5\r\nlmove\r\n:5\r\n*2\r\n+write\r\n+denyoom\r\n:1\r\n:2\r\n:1\r\n*3\r\n+@write\r\n+@list\r\n+@slow\r\n*0\r\n*2\r\n"+
			keySpec(rwAccDel, ":1\r\n", rangeKeys(":0\r\n"))+keySpec("*2\r\n+RW\r\n+insert\r\n", ":2\r\n", rangeKeys(":0\r\n"))+"*0\r\n", "COMMAND", "INFO", "lmove"),
		wstep("*1\r\n*10\r\n$4\r\nlpos\r\n:-3\r\n*1\r\n+readonly\r\n:1\r\n:1\r\n:1\r\n*3\r\n+@read\r\n+@list\r\n+@slow\r\n*0\r\n*1\r\n"+
			keySpec("*2\r\n+RO\r\n+access\r\n", ":1\r\n", rangeKeys(":0\r\n"))+"*0\r\n", "COMMAND", "INFO", "lpos"),
		wstep("*2\r\n$1\r\na\r\n$1\r\nb\r\n", "COMMAND", "GETKEYS", "lmpop", "2", "a", "b", "left"),
		wstep("*2\r\n$1\r\na\r\n$1\r\nb\r\n", "COMMAND", "GETKEYS", "blmpop", "0", "2", "a", "b", "left", "count", "3"),
		wstep("*3\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n", "COMMAND", "GETKEYS", "blpop", "a", "b", "c", "0"),
		wstep("*2\r\n$1\r\na\r\n$1\r\nb\r\n", "COMMAND", "GETKEYS", "lmove", "a", "b", "left", "right"),
		wstep("*3\r\n$1\r\na\r\n$1\r\nb\r\n$4\r\nleft\r\n", "COMMAND", "GETKEYS", "lmpop", "3", "a", "b", "left"),
		wstep("-ERR Invalid arguments specified for command\r\n", "COMMAND", "GETKEYS", "lmpop", "x", "a", "b", "left"),
	})
}

// --- Blocking commands -----------------------------------------------------

// listBlocked is INFO's blocked_clients.
func listBlocked(t *testing.T, c *redis.Client) int {
	t.Helper()
	info, err := c.Info(context.Background(), "clients").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, "blocked_clients:"); ok {
			n, err := strconv.Atoi(v)
			if err != nil {
				t.Fatalf("blocked_clients:%s", v)
			}
			return n
		}
	}
	t.Fatalf("INFO clients has no blocked_clients: %q", info)
	return 0
}

// listWaitBlocked waits until n clients are blocked.
func listWaitBlocked(t *testing.T, c *redis.Client, n int) {
	t.Helper()
	waitUntil(t, 5*time.Second, fmt.Sprintf("%d clients are blocked", n), func() bool { return listBlocked(t, c) == n })
}

// listAsync runs a command on its own connection and delivers its reply.
type listAsync struct {
	done chan struct{}
	val  any
	err  error
}

func listGo(t *testing.T, ts *testServer, proto int, args ...any) *listAsync {
	t.Helper()
	c := ts.client(t, proto)
	// Connect first, so the command is sent as soon as the goroutine runs.
	if err := c.Ping(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	a := &listAsync{done: make(chan struct{})}
	go func() {
		defer close(a.done)
		a.val, a.err = c.Do(context.Background(), args...).Result()
	}()
	return a
}

// wait returns the reply, failing if it does not come within d.
func (a *listAsync) wait(t *testing.T, d time.Duration) (any, error) {
	t.Helper()
	select {
	case <-a.done:
		return a.val, a.err
	case <-time.After(d):
		t.Fatalf("no reply within %v", d)
		return nil, nil
	}
}

// expect checks the reply against want (ksNil for a null).
func (a *listAsync) expect(t *testing.T, want any) {
	t.Helper()
	got, err := a.wait(t, 5*time.Second)
	if _, isNil := want.(ksNil); isNil {
		if !errors.Is(err, redis.Nil) {
			t.Fatalf("reply %#v, %v; want null", got, err)
		}
		return
	}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("reply %#v, %v; want %#v", got, err, want)
	}
}

// pending checks that no reply has come yet.
func (a *listAsync) pending(t *testing.T) {
	t.Helper()
	select {
	case <-a.done:
		t.Fatalf("unexpected reply %#v, %v", a.val, a.err)
	case <-time.After(20 * time.Millisecond):
	}
}

func listBlockingBoth(t *testing.T, f func(t *testing.T, ts *testServer, c *redis.Client, proto int)) {
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) {
			ts := startServer(t)
			f(t, ts, ts.client(t, proto), proto)
		})
	}
}

func TestListBlockingPopIsWokenByAPush(t *testing.T) {
	listBlockingBoth(t, func(t *testing.T, ts *testServer, c *redis.Client, proto int) {
		for _, v := range []struct {
			cmd  []any
			push []any
			want any
			left []any // the pushed list afterwards
		}{
			{[]any{"BLPOP", "k", "0"}, []any{"RPUSH", "k", "a", "b"}, []any{"k", "a"}, []any{"b"}},
			{[]any{"BRPOP", "k", "0"}, []any{"RPUSH", "k", "a", "b"}, []any{"k", "b"}, []any{"a"}},
			{[]any{"BLPOP", "k1", "k2", "k3", "0"}, []any{"LPUSH", "k2", "x"}, []any{"k2", "x"}, []any{}},
			{[]any{"BRPOPLPUSH", "k", "dst", "0"}, []any{"RPUSH", "k", "a", "b"}, "b", []any{"a"}},
			{[]any{"BLMOVE", "k", "dst", "LEFT", "RIGHT", "0"}, []any{"RPUSH", "k", "a", "b"}, "a", []any{"b"}},
			{[]any{"BLMPOP", "0", "2", "k0", "k", "RIGHT", "COUNT", "2"}, []any{"RPUSH", "k", "a", "b", "c"}, []any{"k", []any{"c", "b"}}, []any{"a"}},
			{[]any{"BLMPOP", "0.9", "1", "k", "LEFT"}, []any{"LPUSHX", "k", "a"}, nil, nil},
		} {
			a := listGo(t, ts, proto, v.cmd...)
			listWaitBlocked(t, c, 1)
			a.pending(t)
			ksDo(t, c, v.push...)
			if v.want == nil {
				// LPUSHX of an absent list creates nothing to serve.
				a.expect(t, ksNil{})
			} else {
				a.expect(t, v.want)
				pushed := v.push[1].(string)
				if got := ksDo(t, c, "LRANGE", pushed, "0", "-1"); !reflect.DeepEqual(got, v.left) {
					t.Fatalf("%q left %q = %#v, want %#v", v.cmd, pushed, got, v.left)
				}
			}
			listWaitBlocked(t, c, 0)
			ksDo(t, c, "FLUSHALL")
		}
	})
}

func TestListBlockedClientsAreServedInOrder(t *testing.T) {
	listBlockingBoth(t, func(t *testing.T, ts *testServer, c *redis.Client, proto int) {
		// One push of several items serves each blocked client in turn.
		var as []*listAsync
		for i := range 3 {
			as = append(as, listGo(t, ts, proto, "BLPOP", "q", "0"))
			listWaitBlocked(t, c, i+1)
		}
		ksRun(t, c, []ksStep{kstep(int64(4), "RPUSH", "q", "a", "b", "c", "d")})
		for i, a := range as {
			a.expect(t, []any{"q", string(rune('a' + i))})
		}
		listWaitBlocked(t, c, 0)
		ksRun(t, c, []ksStep{kstep([]any{"d"}, "LRANGE", "q", "0", "-1"), kstep(int64(1), "DEL", "q")})

		// LPUSH x y z leaves z first: the first client gets z, the second y.
		as = as[:0]
		for i := range 2 {
			as = append(as, listGo(t, ts, proto, "BLPOP", "q", "0"))
			listWaitBlocked(t, c, i+1)
		}
		ksDo(t, c, "LPUSH", "q", "x", "y", "z")
		as[0].expect(t, []any{"q", "z"})
		as[1].expect(t, []any{"q", "y"})
		ksRun(t, c, []ksStep{kstep([]any{"x"}, "LRANGE", "q", "0", "-1"), kstep(int64(1), "DEL", "q")})

		// Pushed one at a time, items go to the clients in the order they
		// blocked.
		as = as[:0]
		for i := range 3 {
			as = append(as, listGo(t, ts, proto, "BRPOP", "q", "0"))
			listWaitBlocked(t, c, i+1)
		}
		for i, a := range as {
			ksDo(t, c, "RPUSH", "q", fmt.Sprint(i))
			a.expect(t, []any{"q", fmt.Sprint(i)})
		}
		listWaitBlocked(t, c, 0)
		ksRun(t, c, []ksStep{kstep(int64(0), "EXISTS", "q")})
	})
}

func TestListBlockingTimeouts(t *testing.T) {
	listBlockingBoth(t, func(t *testing.T, ts *testServer, c *redis.Client, proto int) {
		for _, cmd := range [][]any{
			{"BLPOP", "k", "0.15"},
			{"BRPOP", "k", "k2", "0.15"},
			{"BLMOVE", "k", "dst", "LEFT", "LEFT", "0.15"},
			{"BRPOPLPUSH", "k", "dst", "0.15"},
			{"BLMPOP", "0.15", "1", "k", "LEFT"},
		} {
			start := time.Now()
			a := listGo(t, ts, proto, cmd...)
			listWaitBlocked(t, c, 1)
			a.expect(t, ksNil{})
			if d := time.Since(start); d < 150*time.Millisecond || d > 2*time.Second {
				t.Fatalf("%q timed out after %v", cmd, d)
			}
			listWaitBlocked(t, c, 0)
		}
		// Writes to the key that leave nothing to pop wake the client,
		// which goes back to waiting until its deadline.
		start := time.Now()
		b := listGo(t, ts, proto, "BLPOP", "k", "0.3")
		listWaitBlocked(t, c, 1)
		ksDo(t, c, "LPUSHX", "k", "x")
		ksDo(t, c, "SET", "k", "v")
		ksDo(t, c, "DEL", "k")
		b.pending(t)
		b.expect(t, ksNil{})
		if d := time.Since(start); d < 300*time.Millisecond || d > 2*time.Second {
			t.Fatalf("BLPOP 0.3 returned after %v", d)
		}
	})
}

func TestListBlockedClientThatDisconnectsIsCleanedUp(t *testing.T) {
	listBlockingBoth(t, func(t *testing.T, ts *testServer, c *redis.Client, proto int) {
		rc := ts.wireProto(t, proto)
		rc.write(wireCmd("BLPOP", "k", "0"))
		listWaitBlocked(t, c, 1)
		_ = rc.nc.Close()
		listWaitBlocked(t, c, 0)
		// Nobody is left to take the item.
		ksRun(t, c, []ksStep{
			kstep(int64(1), "LPUSH", "k", "x"),
			kstep(int64(1), "LLEN", "k"),
		})
	})
}

func TestListBlockingMove(t *testing.T) {
	listBlockingBoth(t, func(t *testing.T, ts *testServer, c *redis.Client, proto int) {
		// BLMOVE of a list onto itself rotates it, at once or once woken.
		ksRun(t, c, []ksStep{
			kstep(int64(3), "RPUSH", "r", "a", "b", "c"),
			kstep("a", "BLMOVE", "r", "r", "LEFT", "RIGHT", "0"),
			kstep([]any{"b", "c", "a"}, "LRANGE", "r", "0", "-1"),
			kstep("a", "BRPOPLPUSH", "r", "r", "0"),
			kstep([]any{"a", "b", "c"}, "LRANGE", "r", "0", "-1"),
			kstep(int64(1), "DEL", "r"),
		})
		a := listGo(t, ts, proto, "BLMOVE", "r", "r", "RIGHT", "LEFT", "0")
		listWaitBlocked(t, c, 1)
		ksDo(t, c, "RPUSH", "r", "a", "b")
		a.expect(t, "b")
		ksRun(t, c, []ksStep{kstep([]any{"b", "a"}, "LRANGE", "r", "0", "-1")})

		// A client blocked on dst is woken by a BLMOVE into dst, itself
		// woken by a push to src.
		pop := listGo(t, ts, proto, "BLPOP", "dst", "0")
		listWaitBlocked(t, c, 1)
		move := listGo(t, ts, proto, "BLMOVE", "src", "dst", "RIGHT", "LEFT", "0")
		listWaitBlocked(t, c, 2)
		ksDo(t, c, "RPUSH", "src", "x")
		move.expect(t, "x")
		pop.expect(t, []any{"dst", "x"})
		listWaitBlocked(t, c, 0)
		ksRun(t, c, []ksStep{kstep(int64(0), "EXISTS", "src", "dst")})

		// The same with LMOVE (not blocking) as the mover.
		pop = listGo(t, ts, proto, "BRPOP", "dst", "0")
		listWaitBlocked(t, c, 1)
		ksRun(t, c, []ksStep{
			kstep(int64(2), "RPUSH", "src", "y", "z"),
			kstep("y", "LMOVE", "src", "dst", "LEFT", "LEFT"),
		})
		pop.expect(t, []any{"dst", "y"})
		ksRun(t, c, []ksStep{kstep(int64(0), "EXISTS", "dst"), kstep([]any{"z"}, "LRANGE", "src", "0", "-1")})
	})
}

// TestListBlockingConsumersDrainAQueue runs producers and blocked
// consumers concurrently: every item pushed must be popped exactly once and
// no consumer may stay blocked while items wait.
func TestListBlockingConsumersDrainAQueue(t *testing.T) {
	ts := startServer(t)
	c := ts.client(t, 2)
	const consumers, producers, perProducer = 6, 3, 150
	total := producers * perProducer
	var mu sync.Mutex
	seen := map[string]int{}
	var wg sync.WaitGroup
	errs := make(chan error, consumers+producers)
	for i := range consumers {
		cc := ts.client(t, 2)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				cmd := []any{"BLPOP", "q1", "q2", "0.5"}
				if i%2 == 1 {
					cmd = []any{"BLMOVE", "q1", "q2", "LEFT", "RIGHT", "0.5"}
				}
				v, err := cc.Do(context.Background(), cmd...).Result()
				if errors.Is(err, redis.Nil) {
					return // the queue stayed empty for 0.5 s: done
				}
				if err != nil {
					errs <- err
					return
				}
				if arr, ok := v.([]any); ok {
					mu.Lock()
					seen[arr[1].(string)]++
					mu.Unlock()
				}
			}
		}()
	}
	for p := range producers {
		pc := ts.client(t, 2)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perProducer {
				if err := pc.RPush(context.Background(), "q1", fmt.Sprintf("%d-%d", p, i)).Err(); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n := ksInt(t, c, "EXISTS", "q1", "q2"); n != 0 {
		t.Fatalf("%d queues still hold items after every consumer timed out", n)
	}
	if len(seen) != total {
		t.Fatalf("%d distinct items popped, want %d", len(seen), total)
	}
	for item, n := range seen {
		if n != 1 {
			t.Fatalf("item %s popped %d times", item, n)
		}
	}
}

// TestListBlockedPopSeesAPushRightAfterIt pushes just after BLPOP was
// sent, so that the push often commits between BLPOP finding the list
// empty and its client being queued: the waiter must still be served (a
// timeout here is a lost wakeup). Racy by nature, it catches a regression
// in a fraction of runs.
func TestListBlockedPopSeesAPushRightAfterIt(t *testing.T) {
	ts := startServer(t)
	var wg sync.WaitGroup
	lost := make(chan string, 8)
	for p := range 4 {
		cons, prod := ts.client(t, 2), ts.client(t, 2)
		wg.Add(1)
		go func() {
			defer wg.Done()
			key := fmt.Sprintf("q%d", p)
			for i := range 150 {
				done := make(chan error, 1)
				go func() {
					_, err := cons.Do(context.Background(), "BLPOP", key, "0.5").Result()
					done <- err
				}()
				time.Sleep(time.Duration(i%40) * time.Microsecond)
				if err := prod.RPush(context.Background(), key, "x").Err(); err != nil {
					lost <- err.Error()
					return
				}
				if err := <-done; err != nil {
					lost <- fmt.Sprintf("BLPOP %s after push %d: %v", key, i, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(lost)
	for msg := range lost {
		t.Error(msg)
	}
}

// TestListBlockedClientIgnoresKeysOfOtherTypes: once blocked, a client
// waits for a list; a blocked key that becomes another type neither ends
// the wait nor fails it, as in Redis 7.0.
func TestListBlockedClientIgnoresKeysOfOtherTypes(t *testing.T) {
	listBlockingBoth(t, func(t *testing.T, ts *testServer, c *redis.Client, proto int) {
		a := listGo(t, ts, proto, "BLPOP", "k", "0")
		listWaitBlocked(t, c, 1)
		ksDo(t, c, "SET", "k", "str")
		a.pending(t)
		ksRun(t, c, []ksStep{kstep(int64(1), "DEL", "k"), kstep(int64(1), "RPUSH", "k", "x")})
		a.expect(t, []any{"k", "x"})

		// Another key that is pushed serves it, past the one of another
		// type.
		a = listGo(t, ts, proto, "BLPOP", "k1", "k2", "0")
		listWaitBlocked(t, c, 1)
		ksDo(t, c, "SET", "k1", "str")
		ksDo(t, c, "RPUSH", "k2", "v")
		a.expect(t, []any{"k2", "v"})

		// BLMOVE: a source of another type keeps it waiting; a destination
		// of another type fails it when the source gets an item.
		a = listGo(t, ts, proto, "BLMOVE", "src", "dst", "LEFT", "LEFT", "0")
		listWaitBlocked(t, c, 1)
		ksDo(t, c, "SET", "src", "str")
		a.pending(t)
		ksDo(t, c, "DEL", "src")
		ksDo(t, c, "SET", "dst", "str")
		ksDo(t, c, "RPUSH", "src", "x")
		if _, err := a.wait(t, 5*time.Second); err == nil || err.Error() != string(listWrongType) {
			t.Fatalf("BLMOVE into a string = %v, want WRONGTYPE", err)
		}
		ksRun(t, c, []ksStep{kstep([]any{"x"}, "LRANGE", "src", "0", "-1")})
		listWaitBlocked(t, c, 0)
	})
}
