package server

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/store"
	"github.com/redis/go-redis/v9"
)

// The hash tests' step tables; see steps_test.go.
type (
	hashErr      = replyErr
	hashNull     = replyNull
	hashPairs    = replyPairs
	hashAnyOrder = replyAnyOrder
	hashCheck    = replyCheck
	hashStep     = step
)

// hashBoth runs f over RESP2 and RESP3, each on a fresh server whose hash
// field-deadline invariants are checked when the test ends.
func hashBoth(t *testing.T, f func(t *testing.T, ts *testServer, c *redis.Client)) {
	bothProtocols(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		t.Cleanup(func() {
			if err := store.CheckHashFields(ts.st); err != nil {
				t.Errorf("hash invariants after the test: %v", err)
			}
		})
		f(t, ts, c)
	})
}

func hashDo(t *testing.T, c *redis.Client, args ...any) any {
	t.Helper()
	v, err := c.Do(context.Background(), args...).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		t.Fatalf("%q: %v", args, err)
	}
	return v
}

const hashWrongType = hashErr("WRONGTYPE Operation against a key holding the wrong kind of value")

func hashArity(name string) hashErr {
	return hashErr("ERR wrong number of arguments for '" + name + "' command")
}

func TestHashBasicCommands(t *testing.T) {
	hashBoth(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		runSteps(t, c, []hashStep{
			stepOf(int64(3), "HSET", "h", "a", "1", "b", "2", "c", "3"),
			stepOf(int64(1), "HSET", "h", "a", "10", "d", "4"),
			stepOf(int64(1), "HSET", "h", "e", "x", "e", "y"),
			stepOf("OK", "HMSET", "h", "f", "6", "a", "1"),
			stepOf(hashArity("hset"), "HSET", "h", "a", "1", "b"),
			stepOf(hashArity("hmset"), "HMSET", "h", "a"),
			stepOf(hashArity("hset"), "HSET", "h", "a"),
			stepOf(int64(0), "HSETNX", "h", "a", "z"),
			stepOf(int64(1), "HSETNX", "h", "empty", ""),
			stepOf("1", "HGET", "h", "a"),
			stepOf("y", "HGET", "h", "e"),
			stepOf("", "HGET", "h", "empty"),
			stepOf(hashNull{}, "HGET", "h", "nope"),
			stepOf(hashNull{}, "HGET", "nokey", "a"),
			stepOf([]any{"1", nil, "", "2"}, "HMGET", "h", "a", "nope", "empty", "b"),
			stepOf([]any{nil, nil}, "HMGET", "nokey", "a", "b"),
			stepOf(int64(7), "HLEN", "h"),
			stepOf(int64(0), "HLEN", "nokey"),
			stepOf(int64(1), "HSTRLEN", "h", "a"),
			stepOf(int64(0), "HSTRLEN", "h", "empty"),
			stepOf(int64(0), "HSTRLEN", "h", "nope"),
			stepOf(int64(0), "HSTRLEN", "nokey", "a"),
			stepOf(int64(1), "HEXISTS", "h", "empty"),
			stepOf(int64(0), "HEXISTS", "h", "nope"),
			stepOf(int64(0), "HEXISTS", "nokey", "a"),
			stepOf(hashPairs{"a": "1", "b": "2", "c": "3", "d": "4", "e": "y", "f": "6", "empty": ""}, "HGETALL", "h"),
			stepOf(hashAnyOrder{"a", "b", "c", "d", "e", "f", "empty"}, "HKEYS", "h"),
			stepOf(hashAnyOrder{"1", "2", "3", "4", "y", "6", ""}, "HVALS", "h"),
			stepOf(hashPairs{}, "HGETALL", "nokey"),
			stepOf([]any{}, "HKEYS", "nokey"),
			stepOf([]any{}, "HVALS", "nokey"),
			stepOf(int64(2), "HDEL", "h", "a", "nope", "b", "a"),
			stepOf(int64(0), "HDEL", "nokey", "a"),
			stepOf(int64(5), "HDEL", "h", "c", "d", "e", "f", "empty"),
			stepOf(int64(0), "EXISTS", "h"),
			stepOf(int64(0), "DBSIZE"),
			stepOf(hashArity("hget"), "HGET", "h"),
			stepOf(hashArity("hdel"), "HDEL", "h"),
			stepOf(hashArity("hmget"), "HMGET", "h"),
			stepOf(hashArity("hgetall"), "HGETALL", "h", "x"),
			stepOf(int64(1), "HSET", "h", "f", "v"),
			stepOf("hash", "TYPE", "h"),
		})
	})
}

func TestHashIncrCommands(t *testing.T) {
	hashBoth(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		runSteps(t, c, []hashStep{
			stepOf(int64(5), "HINCRBY", "h", "n", "5"),
			stepOf(int64(-5), "HINCRBY", "h", "n", "-10"),
			stepOf(hashErr("ERR value is not an integer or out of range"), "HINCRBY", "h", "n", "1.5"),
			stepOf(hashErr("ERR value is not an integer or out of range"), "HINCRBY", "h", "n", " 1"),
			stepOf(int64(3), "HSET", "h", "s", "abc", "max", "9223372036854775807", "f", "1.5"),
			stepOf(hashErr("ERR hash value is not an integer"), "HINCRBY", "h", "s", "1"),
			stepOf(hashErr("ERR hash value is not an integer"), "HINCRBY", "h", "f", "1"),
			stepOf(hashErr("ERR increment or decrement would overflow"), "HINCRBY", "h", "max", "1"),
			stepOf(int64(9223372036854775806), "HINCRBY", "h", "max", "-1"),
			stepOf("3", "HINCRBYFLOAT", "h", "f", "1.5"),
			stepOf("5000", "HINCRBYFLOAT", "h", "new", "5.0e3"),
			stepOf("17", "HINCRBYFLOAT", "h", "x", "0x11"),
			stepOf("-4.5", "HINCRBYFLOAT", "h", "n", "0.5"),
			stepOf(hashErr("ERR value is not a valid float"), "HINCRBYFLOAT", "h", "f", "abc"),
			stepOf(hashErr("ERR value is not a valid float"), "HINCRBYFLOAT", "h", "f", "nan"),
			stepOf(hashErr("ERR value is NaN or Infinity"), "HINCRBYFLOAT", "h", "f", "inf"),
			stepOf(hashErr("ERR value is NaN or Infinity"), "HINCRBYFLOAT", "h", "f", "-inf"),
			stepOf(hashErr("ERR hash value is not a float"), "HINCRBYFLOAT", "h", "s", "1"),
			// Redis adds in long double: 1.7e308 twice is finite there, and
			// only the long double's own range overflows.
			stepOf(int64(1), "HSET", "h", "huge", "1e4932"),
			stepOf(hashErr("ERR increment would produce NaN or Infinity"), "HINCRBYFLOAT", "h", "huge", "1e4932"),
			stepOf(hashErr("ERR value is not an integer or out of range"), "HINCRBY", "str", "f", "x"),
			stepOf(int64(7), "HLEN", "h"),
		})
	})
}

// hashOtherType makes key a collection of another type than hash, with
// whichever of the other collection types the server has.
func hashOtherType(t *testing.T, c *redis.Client, key string) {
	t.Helper()
	for _, args := range [][]any{{"SADD", key, "m"}, {"RPUSH", key, "m"}, {"ZADD", key, "1", "m"}} {
		if err := c.Do(context.Background(), args...).Err(); err == nil {
			return
		} else if !strings.HasPrefix(err.Error(), "ERR unknown command") {
			t.Fatalf("%q: %v", args, err)
		}
	}
	t.Fatal("no set, list or sorted set command to make a key of another collection type with")
}

func TestHashCommandsAgainstTheWrongType(t *testing.T) {
	hashBoth(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		hashDo(t, c, "SET", "str", "v")
		hashOtherType(t, c, "other")
		for _, key := range []string{"str", "other"} {
			var steps []hashStep
			for _, args := range [][]any{
				{"HSET", key, "f", "v"}, {"HMSET", key, "f", "v"}, {"HSETNX", key, "f", "v"},
				{"HGET", key, "f"}, {"HMGET", key, "f", "g"}, {"HDEL", key, "f"},
				{"HLEN", key}, {"HSTRLEN", key, "f"}, {"HEXISTS", key, "f"},
				{"HGETALL", key}, {"HKEYS", key}, {"HVALS", key},
				{"HINCRBY", key, "f", "1"}, {"HINCRBYFLOAT", key, "f", "1"},
				{"HRANDFIELD", key}, {"HRANDFIELD", key, "2"}, {"HRANDFIELD", key, "-2", "WITHVALUES"},
				{"HSCAN", key, "0"}, {"HSCAN", key, "0", "COUNT", "x"},
				{"HEXPIRE", key, "10", "FIELDS", "1", "f"}, {"HPEXPIRE", key, "x", "FIELDS", "1", "f"},
				{"HEXPIREAT", key, "10", "NX", "FIELDS", "1", "f"}, {"HPEXPIREAT", key, "10", "FIELDS", "9", "f"},
				{"HTTL", key, "FIELDS", "1", "f"}, {"HPTTL", key, "FIELDS", "1", "f"},
				{"HEXPIRETIME", key, "FIELDS", "1", "f"}, {"HPEXPIRETIME", key, "FIELDS", "x", "f"},
				{"HPERSIST", key, "FIELDS", "1", "f"}, {"HGETDEL", key, "FIELDS", "1", "f"},
				{"HGETEX", key, "EX", "10", "FIELDS", "1", "f"}, {"HGETEX", key, "BAD", "1", "f"},
				{"HSETEX", key, "FIELDS", "1", "f", "v"}, {"HSETEX", key, "FNX", "PX", "10", "FIELDS", "1", "f", "v"},
			} {
				steps = append(steps, stepOf(hashWrongType, args...))
			}
			runSteps(t, c, steps)
		}
		// Argument errors Redis reports before it looks at the key.
		runSteps(t, c, []hashStep{
			stepOf(hashErr("ERR value is not an integer or out of range"), "HINCRBY", "str", "f", "x"),
			stepOf(hashErr("ERR value is not a valid float"), "HINCRBYFLOAT", "str", "f", "x"),
			stepOf(hashErr("ERR value is not an integer or out of range"), "HRANDFIELD", "str", "x"),
			stepOf(hashErr("ERR syntax error"), "HRANDFIELD", "str", "1", "x"),
			stepOf(hashErr("ERR invalid cursor"), "HSCAN", "str", "x"),
			stepOf(hashErr("ERR value is not an integer or out of range"), "HSETEX", "str", "EX", "x", "FIELDS", "1", "f", "v"),
			stepOf("v", "GET", "str"),
		})
	})
}

func TestHashRandField(t *testing.T) {
	hashBoth(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		proto := c.Options().Protocol
		fields := map[string]string{"a": "1", "b": "2", "c": "3", "d": "4", "e": "5"}
		hashDo(t, c, "HSET", "h", "a", "1", "b", "2", "c", "3", "d", "4", "e", "5")
		// withValues checks a reply of n fields and values (distinct when
		// distinct is set): a flat array in RESP2, pairs in RESP3.
		withValues := func(n int, distinct bool) hashCheck {
			return func(reply any) string {
				arr, ok := reply.([]any)
				if !ok {
					return fmt.Sprintf("%#v is not an array", reply)
				}
				var pairs [][2]any
				if proto == 2 {
					if len(arr)%2 != 0 {
						return fmt.Sprintf("odd RESP2 reply %#v", arr)
					}
					for i := 0; i < len(arr); i += 2 {
						pairs = append(pairs, [2]any{arr[i], arr[i+1]})
					}
				} else {
					for _, p := range arr {
						pa, ok := p.([]any)
						if !ok || len(pa) != 2 {
							return fmt.Sprintf("RESP3 element %#v is not a pair", p)
						}
						pairs = append(pairs, [2]any{pa[0], pa[1]})
					}
				}
				if len(pairs) != n {
					return fmt.Sprintf("%d pairs, want %d", len(pairs), n)
				}
				seen := map[any]bool{}
				for _, p := range pairs {
					if f, ok := p[0].(string); !ok || fields[f] != p[1] {
						return fmt.Sprintf("pair %v is not in the hash", p)
					}
					if distinct && seen[p[0]] {
						return fmt.Sprintf("field %v repeated", p[0])
					}
					seen[p[0]] = true
				}
				return ""
			}
		}
		fieldsOnly := func(n int, distinct bool) hashCheck {
			return func(reply any) string {
				got, ok := replyStrings(reply)
				if !ok || len(got) != n {
					return fmt.Sprintf("%#v: want %d fields", reply, n)
				}
				seen := map[string]bool{}
				for _, f := range got {
					if _, ok := fields[f]; !ok || (distinct && seen[f]) {
						return fmt.Sprintf("field %q unknown or repeated", f)
					}
					seen[f] = true
				}
				return ""
			}
		}
		runSteps(t, c, []hashStep{
			stepOf(hashCheck(func(r any) string {
				if _, ok := fields[fmt.Sprint(r)]; !ok {
					return fmt.Sprintf("%#v is not a field", r)
				}
				return ""
			}), "HRANDFIELD", "h"),
			stepOf(fieldsOnly(3, true), "HRANDFIELD", "h", "3"),
			stepOf(fieldsOnly(5, true), "HRANDFIELD", "h", "5"),
			stepOf(fieldsOnly(5, true), "HRANDFIELD", "h", "100"),
			stepOf(fieldsOnly(20, false), "HRANDFIELD", "h", "-20"),
			stepOf(fieldsOnly(1, false), "HRANDFIELD", "h", "-1"),
			stepOf([]any{}, "HRANDFIELD", "h", "0"),
			stepOf([]any{}, "HRANDFIELD", "h", "0", "WITHVALUES"),
			stepOf(withValues(2, true), "HRANDFIELD", "h", "2", "WITHVALUES"),
			stepOf(withValues(5, true), "HRANDFIELD", "h", "9", "withvalues"),
			stepOf(withValues(12, false), "HRANDFIELD", "h", "-12", "WITHVALUES"),
			stepOf(hashNull{}, "HRANDFIELD", "nokey"),
			stepOf([]any{}, "HRANDFIELD", "nokey", "5"),
			stepOf([]any{}, "HRANDFIELD", "nokey", "-5", "WITHVALUES"),
			stepOf(hashErr("ERR value is not an integer or out of range"), "HRANDFIELD", "h", "x"),
			stepOf(hashErr("ERR value is not an integer or out of range"), "HRANDFIELD", "h", "-0"),
			stepOf(hashErr("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807"), "HRANDFIELD", "h", "-9223372036854775808"),
			stepOf(hashErr("ERR value is out of range"), "HRANDFIELD", "h", "4611686018427387904", "WITHVALUES"),
			stepOf(hashErr("ERR value is out of range"), "HRANDFIELD", "h", "-4611686018427387904", "WITHVALUES"),
			stepOf(hashErr("ERR syntax error"), "HRANDFIELD", "h", "1", "WITHVALUE"),
			stepOf(hashErr("ERR syntax error"), "HRANDFIELD", "h", "1", "WITHVALUES", "x"),
		})
		// A hash too big to sample in memory.
		args := []any{"HSET", "big"}
		for i := range 1500 {
			args = append(args, fmt.Sprintf("field:%04d", i), strconv.Itoa(i))
		}
		hashDo(t, c, args...)
		got, ok := replyStrings(hashDo(t, c, "HRANDFIELD", "big", "100"))
		seen := map[string]bool{}
		for _, f := range got {
			seen[f] = true
		}
		if !ok || len(got) != 100 || len(seen) != 100 {
			t.Fatalf("HRANDFIELD big 100: %d fields, %d distinct", len(got), len(seen))
		}
		got, ok = replyStrings(hashDo(t, c, "HRANDFIELD", "big", "-3000"))
		clear(seen)
		for _, f := range got {
			seen[f] = true
		}
		// 3000 fair draws from 1500 fields reach about 1300 of them.
		if !ok || len(got) != 3000 || len(seen) < 1000 {
			t.Fatalf("HRANDFIELD big -3000: %d fields, %d distinct", len(got), len(seen))
		}
	})
}

func TestHashScan(t *testing.T) {
	hashBoth(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		hashDo(t, c, "HSET", "h", "a", "1", "b", "2", "ab", "3")
		runSteps(t, c, []hashStep{
			stepOf([]any{"0", []any{"a", "1", "ab", "3", "b", "2"}}, "HSCAN", "h", "0"),
			stepOf([]any{"0", []any{"a", "1", "ab", "3", "b", "2"}}, "HSCAN", "h", "0", "COUNT", "1"),
			stepOf([]any{"0", []any{"a", "1", "ab", "3"}}, "HSCAN", "h", "0", "MATCH", "a*"),
			stepOf([]any{"0", []any{"a", "ab", "b"}}, "HSCAN", "h", "0", "NOVALUES"),
			stepOf([]any{"0", []any{"ab"}}, "HSCAN", "h", "0", "match", "?b", "novalues", "count", "5"),
			stepOf([]any{"0", []any{}}, "HSCAN", "nokey", "0"),
			// Redis replies to a missing key before reading the options.
			stepOf([]any{"0", []any{}}, "HSCAN", "nokey", "0", "COUNT", "x"),
			stepOf(hashErr("ERR invalid cursor"), "HSCAN", "h", "x"),
			stepOf(hashErr("ERR invalid cursor"), "HSCAN", "h", "18446744073709551616"),
			stepOf(hashErr("ERR value is not an integer or out of range"), "HSCAN", "h", "0", "COUNT", "x"),
			stepOf(hashErr("ERR syntax error"), "HSCAN", "h", "0", "COUNT", "0"),
			stepOf(hashErr("ERR syntax error"), "HSCAN", "h", "0", "COUNT"),
			stepOf(hashErr("ERR syntax error"), "HSCAN", "h", "0", "MATCH"),
			stepOf(hashErr("ERR syntax error"), "HSCAN", "h", "0", "TYPE", "hash"),
			stepOf(hashArity("hscan"), "HSCAN", "h"),
		})
		// A big hash is scanned in pages; every field comes back.
		const n = 1000
		args := []any{"HSET", "big"}
		for i := range n {
			args = append(args, fmt.Sprintf("user:%05d", i), strconv.Itoa(i))
		}
		hashDo(t, c, args...)
		seen := map[string]string{}
		cursor, calls := "0", 0
		for {
			calls++
			reply, ok := hashDo(t, c, "HSCAN", "big", cursor, "COUNT", "25").([]any)
			if !ok || len(reply) != 2 {
				t.Fatalf("HSCAN reply %#v", reply)
			}
			cursor = reply[0].(string)
			if _, err := strconv.ParseUint(cursor, 10, 64); err != nil {
				t.Fatalf("cursor %q is not a decimal u64", cursor)
			}
			page, ok := replyPairsOf(reply[1])
			if !ok {
				t.Fatalf("HSCAN page %#v", reply[1])
			}
			for f, v := range page {
				seen[f] = v
			}
			if cursor == "0" || calls > 10*n {
				break
			}
		}
		if len(seen) != n || calls < n/25 {
			t.Fatalf("HSCAN saw %d of %d fields in %d calls", len(seen), n, calls)
		}
		for i := range n {
			if seen[fmt.Sprintf("user:%05d", i)] != strconv.Itoa(i) {
				t.Fatalf("field %d missing or wrong", i)
			}
		}
	})
}

func TestHashFieldExpiryCommands(t *testing.T) {
	hashBoth(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		now := time.Now()
		inRange := func(lo, hi int64) hashCheck {
			return func(r any) string {
				arr, ok := r.([]any)
				if !ok || len(arr) != 1 {
					return fmt.Sprintf("%#v is not a one-element array", r)
				}
				if n, ok := arr[0].(int64); !ok || n < lo || n > hi {
					return fmt.Sprintf("%#v not in [%d, %d]", arr[0], lo, hi)
				}
				return ""
			}
		}
		sec := now.Unix()
		runSteps(t, c, []hashStep{
			stepOf([]any{int64(-2), int64(-2)}, "HEXPIRE", "h", "100", "FIELDS", "2", "a", "b"),
			stepOf([]any{int64(-2)}, "HTTL", "h", "FIELDS", "1", "a"),
			stepOf([]any{int64(-2)}, "HPERSIST", "h", "FIELDS", "1", "a"),
			stepOf(int64(0), "EXISTS", "h"),
			stepOf(int64(4), "HSET", "h", "a", "1", "b", "2", "c", "3", "d", "4"),
			stepOf([]any{int64(1), int64(-2)}, "HEXPIRE", "h", "100", "FIELDS", "2", "a", "zz"),
			stepOf([]any{int64(0), int64(1)}, "HEXPIRE", "h", "200", "NX", "FIELDS", "2", "a", "b"),
			stepOf([]any{int64(1), int64(0)}, "HEXPIRE", "h", "300", "XX", "FIELDS", "2", "a", "c"),
			stepOf([]any{int64(0), int64(1), int64(0)}, "HEXPIRE", "h", "250", "GT", "FIELDS", "3", "a", "b", "c"),
			stepOf([]any{int64(1), int64(0), int64(1)}, "HEXPIRE", "h", "250", "LT", "FIELDS", "3", "a", "b", "c"),
			stepOf([]any{int64(250), int64(250), int64(250), int64(-1), int64(-2)}, "HTTL", "h", "FIELDS", "5", "a", "b", "c", "d", "zz"),
			stepOf(inRange(249_000, 250_000), "HPTTL", "h", "FIELDS", "1", "a"),
			stepOf(inRange(sec+249, sec+252), "HEXPIRETIME", "h", "FIELDS", "1", "a"),
			stepOf(inRange(sec*1000+249_000, sec*1000+252_000), "HPEXPIRETIME", "h", "FIELDS", "1", "a"),
			stepOf([]any{int64(1)}, "HPEXPIRE", "h", "5000", "FIELDS", "1", "d"),
			stepOf(inRange(4000, 5000), "HPTTL", "h", "FIELDS", "1", "d"),
			stepOf([]any{int64(1)}, "HEXPIREAT", "h", strconv.FormatInt(sec+1000, 10), "FIELDS", "1", "d"),
			stepOf([]any{sec + 1000}, "HEXPIRETIME", "h", "FIELDS", "1", "d"),
			stepOf([]any{int64(1)}, "HPEXPIREAT", "h", strconv.FormatInt(sec*1000+2_000_123, 10), "FIELDS", "1", "d"),
			stepOf([]any{sec*1000 + 2_000_123}, "HPEXPIRETIME", "h", "FIELDS", "1", "d"),
			// HEXPIRETIME rounds up, as HTTL does.
			stepOf([]any{sec + 2001}, "HEXPIRETIME", "h", "FIELDS", "1", "d"),
			stepOf([]any{int64(1), int64(-1), int64(-2)}, "HPERSIST", "h", "FIELDS", "3", "a", "a", "zz"),
			stepOf([]any{int64(-1), int64(250)}, "HTTL", "h", "FIELDS", "2", "a", "b"),
			// A deadline not in the future deletes the field.
			stepOf([]any{int64(2), int64(-2), int64(0)}, "HEXPIREAT", "h", "1", "NX", "FIELDS", "3", "a", "zz", "b"),
			stepOf([]any{int64(2)}, "HPEXPIRE", "h", "0", "FIELDS", "1", "b"),
			stepOf(hashPairs{"c": "3", "d": "4"}, "HGETALL", "h"),
			stepOf(int64(2), "HLEN", "h"),
			// HSET drops a field's deadline; HINCRBY keeps it.
			stepOf(int64(0), "HSET", "h", "c", "30"),
			stepOf([]any{int64(-1)}, "HTTL", "h", "FIELDS", "1", "c"),
			stepOf(int64(5), "HINCRBY", "h", "d", "1"),
			stepOf([]any{sec*1000 + 2_000_123}, "HPEXPIRETIME", "h", "FIELDS", "1", "d"),
			stepOf([]any{int64(2), int64(2)}, "HEXPIRE", "h", "0", "FIELDS", "2", "c", "d"),
			stepOf(int64(0), "EXISTS", "h"),
		})
	})
}

func TestHashFieldExpiryArgumentErrors(t *testing.T) {
	hashBoth(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		hashDo(t, c, "HSET", "h", "f1", "v1")
		notInt := hashErr("ERR value is not an integer or out of range")
		noFields := hashErr("ERR Mandatory argument FIELDS is missing or not at the right position")
		mismatch := hashErr("ERR The `numfields` parameter must match the number of arguments")
		positive := hashErr("ERR Number of fields must be a positive integer")
		negative := hashErr("ERR invalid expire time, must be >= 0")
		runSteps(t, c, []hashStep{
			stepOf(negative, "HEXPIRE", "h", "-1", "FIELDS", "1", "f1"),
			stepOf(negative, "HEXPIRE", "h", "-9223372036854775808", "FIELDS", "1", "f1"),
			stepOf(notInt, "HEXPIRE", "h", "x", "FIELDS", "1", "f1"),
			stepOf(notInt, "HEXPIRE", "h", "9223372036854775808", "FIELDS", "1", "f1"),
			stepOf(hashErr("ERR invalid expire time in 'hexpire' command"), "HEXPIRE", "h", strconv.Itoa((1<<48)/1000), "FIELDS", "1", "f1"),
			stepOf(hashErr("ERR invalid expire time in 'hexpireat' command"), "HEXPIREAT", "h", strconv.FormatInt((1<<46)/1000+1, 10), "FIELDS", "1", "f1"),
			stepOf(hashErr("ERR invalid expire time in 'hpexpire' command"), "HPEXPIRE", "h", strconv.Itoa(1<<46), "FIELDS", "1", "f1"),
			stepOf(hashErr("ERR invalid expire time in 'hpexpireat' command"), "HPEXPIREAT", "h", strconv.Itoa(1<<46), "FIELDS", "1", "f1"),
			stepOf([]any{int64(1)}, "HPEXPIREAT", "h", strconv.Itoa(1<<46-1), "FIELDS", "1", "f1"),
			stepOf([]any{int64(1<<46 - 1)}, "HPEXPIRETIME", "h", "FIELDS", "1", "f1"),
			stepOf(hashErr("ERR Parameter `numFields` should be greater than 0"), "HPEXPIRE", "h", "1000", "NX", "FIELDS", "0", "f1"),
			stepOf(hashErr("ERR Parameter `numFields` should be greater than 0"), "HPEXPIRE", "h", "1000", "FIELDS", "x", "f1"),
			stepOf(mismatch, "HPEXPIRE", "h", "1000", "NX", "FIELDS", "4", "f1", "f2", "f3"),
			stepOf(mismatch, "HPEXPIRE", "h", "1000", "FIELDS", "2", "f1", "f2", "f3"),
			stepOf(mismatch, "HPEXPIRE", "h", "1000", "NX", "FIELDS", "1"),
			stepOf(noFields, "HPEXPIRE", "h", "1000", "BAD", "FIELDS", "1", "f1"),
			stepOf(noFields, "HPEXPIRE", "h", "1000", "NX", "1", "f1"),
			stepOf(hashArity("hpexpire"), "HPEXPIRE", "h", "1000", "FIELDS", "1"),
			stepOf(mismatch, "HTTL", "h", "FIELDS", "1", "f1", "f2"),
			stepOf(mismatch, "HTTL", "h", "FIELDS", "3", "f1", "f2"),
			stepOf(positive, "HTTL", "h", "FIELDS", "0", "f1"),
			stepOf(positive, "HPTTL", "h", "FIELDS", "-1", "f1"),
			stepOf(positive, "HEXPIRETIME", "h", "FIELDS", "9223372036854775808", "f1"),
			stepOf(noFields, "HPEXPIRETIME", "h", "FIELD", "1", "f1"),
			stepOf(hashArity("httl"), "HTTL", "h", "FIELDS", "1"),
			stepOf(mismatch, "HPERSIST", "h", "FIELDS", "2", "f1", "f2", "f3"),
			stepOf(positive, "HPERSIST", "h", "FIELDS", "0", "f1"),
			stepOf(hashArity("hpersist"), "HPERSIST", "h", "FIELDS", "1"),
			// The key is looked up first: a missing one answers for every
			// field once the arguments parse.
			stepOf([]any{int64(-2), int64(-2)}, "HPEXPIRE", "nokey", "1000", "FIELDS", "2", "a", "b"),
			stepOf([]any{int64(-2)}, "HPEXPIRETIME", "nokey", "FIELDS", "1", "a"),
		})
	})
}

func TestHashGetExSetExGetDel(t *testing.T) {
	hashBoth(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		sec := time.Now().Unix()
		ttlIn := func(lo, hi int64) hashCheck {
			return func(r any) string {
				arr, ok := r.([]any)
				if !ok || len(arr) == 0 {
					return fmt.Sprintf("%#v is not a non-empty array", r)
				}
				for _, v := range arr {
					if n, ok := v.(int64); !ok || n < lo || n > hi {
						return fmt.Sprintf("%#v not in [%d, %d]", v, lo, hi)
					}
				}
				return ""
			}
		}
		runSteps(t, c, []hashStep{
			// HSETEX
			stepOf(int64(0), "HSETEX", "h", "FXX", "FIELDS", "2", "f1", "v1", "f2", "v2"),
			stepOf(int64(0), "EXISTS", "h"),
			stepOf(int64(1), "HSETEX", "h", "FIELDS", "1", "f1", "v1"),
			stepOf(int64(1), "HSETEX", "h", "FIELDS", "1", "f1", "v11"),
			stepOf("v11", "HGET", "h", "f1"),
			stepOf(int64(0), "HSETEX", "h", "FXX", "FIELDS", "2", "f1", "x", "f2", "x"),
			stepOf(int64(0), "HSETEX", "h", "FNX", "FIELDS", "2", "f1", "x", "f2", "x"),
			stepOf(hashPairs{"f1": "v11"}, "HGETALL", "h"),
			stepOf(int64(1), "HSETEX", "h", "FNX", "EX", "100", "FIELDS", "2", "f2", "v2", "f3", "v3"),
			stepOf(ttlIn(99, 100), "HTTL", "h", "FIELDS", "2", "f2", "f3"),
			stepOf(int64(1), "HSETEX", "h", "PX", "5000", "FXX", "FIELDS", "2", "f1", "v1", "f2", "v2"),
			stepOf(ttlIn(4000, 5000), "HPTTL", "h", "FIELDS", "2", "f1", "f2"),
			stepOf(int64(1), "HSETEX", "h", "KEEPTTL", "FIELDS", "1", "f2", "v22"),
			stepOf(ttlIn(4000, 5000), "HPTTL", "h", "FIELDS", "1", "f2"),
			stepOf(int64(1), "HSETEX", "h", "FIELDS", "1", "f2", "v222"),
			stepOf([]any{int64(-1)}, "HTTL", "h", "FIELDS", "1", "f2"),
			stepOf(int64(1), "HSETEX", "h", "EXAT", strconv.FormatInt(sec+10, 10), "FIELDS", "1", "f4", "v4"),
			stepOf([]any{sec + 10}, "HEXPIRETIME", "h", "FIELDS", "1", "f4"),
			stepOf(int64(1), "HSETEX", "h", "PXAT", strconv.FormatInt(sec*1000+10_500, 10), "FIELDS", "1", "f4", "v4"),
			stepOf([]any{sec*1000 + 10_500}, "HPEXPIRETIME", "h", "FIELDS", "1", "f4"),
			stepOf(int64(1), "HSETEX", "h", "EXAT", "1", "FIELDS", "2", "f4", "x", "f5", "x"),
			stepOf(hashPairs{"f1": "v1", "f2": "v222", "f3": "v3"}, "HGETALL", "h"),
			// HGETEX
			stepOf([]any{"v1", nil}, "HGETEX", "h", "FIELDS", "2", "f1", "nope"),
			stepOf([]any{int64(-1)}, "HTTL", "h", "FIELDS", "1", "f2"),
			stepOf([]any{"v222"}, "HGETEX", "h", "EX", "1000", "FIELDS", "1", "f2"),
			stepOf(ttlIn(999, 1000), "HTTL", "h", "FIELDS", "1", "f2"),
			stepOf([]any{"v222", "v3"}, "HGETEX", "h", "PERSIST", "FIELDS", "2", "f2", "f3"),
			stepOf([]any{int64(-1), int64(-1)}, "HTTL", "h", "FIELDS", "2", "f2", "f3"),
			stepOf([]any{"v1"}, "HGETEX", "h", "PX", "20000", "FIELDS", "1", "f1"),
			stepOf(ttlIn(19000, 20000), "HPTTL", "h", "FIELDS", "1", "f1"),
			stepOf([]any{"v1"}, "HGETEX", "h", "EXAT", strconv.FormatInt(sec+30, 10), "FIELDS", "1", "f1"),
			stepOf([]any{sec + 30}, "HEXPIRETIME", "h", "FIELDS", "1", "f1"),
			stepOf([]any{"v1"}, "HGETEX", "h", "PXAT", "1", "FIELDS", "1", "f1"),
			stepOf(int64(0), "HEXISTS", "h", "f1"),
			stepOf([]any{nil, nil}, "HGETEX", "nokey", "EX", "10", "FIELDS", "2", "a", "b"),
			// HGETDEL
			stepOf([]any{"v222", nil, nil}, "HGETDEL", "h", "FIELDS", "3", "f2", "nope", "f2"),
			stepOf([]any{nil}, "HGETDEL", "nokey", "FIELDS", "1", "a"),
			stepOf([]any{"v3"}, "HGETDEL", "h", "fields", "1", "f3"),
			stepOf(int64(0), "EXISTS", "h"),
		})
		// Argument errors, in Redis's order.
		notInt := hashErr("ERR value is not an integer or out of range")
		noFields := hashErr("ERR Mandatory argument FIELDS is missing or not at the right position")
		mismatch := hashErr("ERR The `numfields` parameter must match the number of arguments")
		positive := hashErr("ERR Number of fields must be a positive integer")
		onlyOne := hashErr("ERR Only one of EX, PX, EXAT, PXAT or KEEPTTL arguments can be specified")
		fxxFnx := hashErr("ERR Only one of FXX or FNX arguments can be specified")
		runSteps(t, c, []hashStep{
			stepOf(hashArity("hgetex"), "HGETEX", "h", "FIELDS", "1"),
			stepOf(noFields, "HGETEX", "h", "XFIELDX", "1", "a"),
			stepOf(noFields, "HGETEX", "h", "PXAT", "1", "1"),
			stepOf(noFields, "HGETEX", "h", "PERSIST", "1", "FIELDS", "1", "a"),
			stepOf(mismatch, "HGETEX", "h", "FIELDS", "2", "a"),
			stepOf(positive, "HGETEX", "h", "FIELDS", "0", "a"),
			stepOf(positive, "HGETEX", "h", "FIELDS", "-1", "a"),
			stepOf(positive, "HGETEX", "h", "FIELDS", "9223372036854775808", "a"),
			stepOf(notInt, "HGETEX", "h", "EX", "bla", "FIELDS", "1", "a"),
			stepOf(notInt, "HGETEX", "h", "EX", "9223372036854775808", "FIELDS", "1", "a"),
			stepOf(hashErr("ERR invalid expire time, must be >= 0"), "HGETEX", "h", "PX", "-1", "FIELDS", "1", "a"),
			stepOf(hashErr("ERR invalid expire time, must be >= 0"), "HGETEX", "h", "EX", "-1", "FIELDS", "1", "a"),
			stepOf(hashErr("ERR invalid expire time in 'hgetex' command"), "HGETEX", "h", "EX", strconv.Itoa(1<<48), "FIELDS", "1", "a"),
			stepOf(hashErr("ERR invalid expire time in 'hgetex' command"), "HGETEX", "h", "PXAT", strconv.Itoa(1<<46+100), "FIELDS", "1", "a"),
			stepOf(hashArity("hgetex"), "HGETEX", "h", "EX", "10", "FIELDS"),
			stepOf(hashArity("hgetdel"), "HGETDEL", "h", "FIELDS", "1"),
			stepOf(noFields, "HGETDEL", "h", "FIELD", "1", "a"),
			stepOf(mismatch, "HGETDEL", "h", "FIELDS", "2", "a"),
			stepOf(positive, "HGETDEL", "h", "FIELDS", "0", "a"),
			stepOf(hashArity("hsetex"), "HSETEX", "h", "FIELDS", "1"),
			stepOf(hashArity("hsetex"), "HSETEX", "h", "FIELDS", "2", "a", "b"),
			stepOf(hashArity("hsetex"), "HSETEX", "h", "FIELDS", "2", "a", "b", "c"),
			stepOf(hashArity("hsetex"), "HSETEX", "h", "FIELDS", "2", "a", "b", "c", "d", "e"),
			stepOf(hashArity("hsetex"), "HSETEX", "h", "FIELDS", "3", "a", "b", "c", "d"),
			stepOf(hashArity("hsetex"), "HSETEX", "h", "FIELDS", "1", "a", "b", "unknown"),
			stepOf(hashErr("ERR unknown argument: nx"), "HSETEX", "h", "nx", "FIELDS", "1", "a", "b"),
			stepOf(hashErr("ERR unknown argument: 1"), "HSETEX", "h", "1", "FIELDS", "1", "a", "b"),
			stepOf(fxxFnx, "HSETEX", "h", "FXX", "FXX", "EX", "100", "FIELDS", "1", "a", "b"),
			stepOf(fxxFnx, "HSETEX", "h", "FNX", "FXX", "EX", "100", "FIELDS", "1", "a", "b"),
			stepOf(onlyOne, "HSETEX", "h", "EX", "100", "PX", "1000", "FIELDS", "1", "a", "b"),
			stepOf(onlyOne, "HSETEX", "h", "EX", "100", "KEEPTTL", "FIELDS", "1", "a", "b"),
			stepOf(onlyOne, "HSETEX", "h", "KEEPTTL", "EX", "100", "FIELDS", "1", "a", "b"),
			stepOf(onlyOne, "HSETEX", "h", "KEEPTTL", "KEEPTTL", "FIELDS", "1", "a", "b"),
			stepOf(onlyOne, "HSETEX", "h", "PXAT", "100", "EXAT", "100", "FIELDS", "1", "a", "b"),
			stepOf(notInt, "HSETEX", "h", "EX", "FIELDS", "1", "a", "b"),
			stepOf(hashErr("ERR invalid expire time in 'hsetex' command"), "HSETEX", "h", "EXAT", strconv.Itoa(1<<48), "1", "a", "b"),
			stepOf(hashErr("ERR invalid expire time, must be >= 0"), "HSETEX", "h", "EXAT", "-1", "1", "a", "b"),
			stepOf(notInt, "HSETEX", "h", "EXAT", "9223372036854775808", "1", "a", "b"),
			stepOf(hashErr("ERR invalid number of fields"), "HSETEX", "h", "FIELDS", "x", "a", "b"),
			stepOf(hashErr("ERR invalid number of fields"), "HSETEX", "h", "FIELDS", "0", "a", "b"),
			stepOf(hashErr("ERR invalid number of fields"), "HSETEX", "h", "FIELDS", "-1", "a", "b"),
			stepOf(hashErr("ERR invalid number of fields"), "HSETEX", "h", "FIELDS", "2147483648", "a", "b"),
			stepOf(int64(0), "EXISTS", "h"),
		})
	})
}

func TestHashExpiredFieldsAreInvisibleAndReclaimed(t *testing.T) {
	hashBoth(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		runSteps(t, c, []hashStep{
			stepOf(int64(4), "HSET", "h", "a", "1", "b", "2", "c", "3", "d", "4"),
			stepOf(int64(2), "HSET", "all", "x", "1", "y", "2"),
			stepOf([]any{int64(1), int64(1)}, "HPEXPIRE", "h", "100", "FIELDS", "2", "a", "b"),
			stepOf([]any{int64(1)}, "HPEXPIRE", "h", "100000", "FIELDS", "1", "d"),
			stepOf([]any{int64(1), int64(1)}, "HPEXPIRE", "all", "100", "FIELDS", "2", "x", "y"),
			// Copies and renames keep the fields' deadlines.
			stepOf(int64(1), "COPY", "h", "copy"),
			stepOf("OK", "RENAME", "all", "all2"),
			stepOf("OK", "RENAME", "all2", "all"),
		})
		time.Sleep(200 * time.Millisecond)
		runSteps(t, c, []hashStep{
			stepOf(hashNull{}, "HGET", "h", "a"),
			stepOf(int64(0), "HEXISTS", "h", "b"),
			stepOf(int64(0), "HSTRLEN", "h", "a"),
			stepOf([]any{nil, nil, "3"}, "HMGET", "h", "a", "b", "c"),
			stepOf(int64(2), "HLEN", "h"),
			stepOf(hashPairs{"c": "3", "d": "4"}, "HGETALL", "h"),
			stepOf(hashPairs{"c": "3", "d": "4"}, "HGETALL", "copy"),
			stepOf(hashAnyOrder{"c", "d"}, "HKEYS", "h"),
			stepOf(hashAnyOrder{"3", "4"}, "HVALS", "h"),
			stepOf(hashAnyOrder{"c", "d"}, "HRANDFIELD", "h", "10"),
			stepOf([]any{"0", []any{"c", "d"}}, "HSCAN", "h", "0", "NOVALUES"),
			stepOf([]any{int64(-2), int64(-2), int64(-1)}, "HTTL", "h", "FIELDS", "3", "a", "b", "c"),
			stepOf([]any{int64(-2)}, "HPERSIST", "h", "FIELDS", "1", "a"),
			stepOf([]any{int64(-2)}, "HEXPIRE", "h", "10", "FIELDS", "1", "a"),
			stepOf([]any{nil}, "HGETDEL", "h", "FIELDS", "1", "a"),
			stepOf([]any{nil}, "HGETEX", "h", "PERSIST", "FIELDS", "1", "b"),
			stepOf(int64(0), "HSETEX", "h", "FXX", "FIELDS", "1", "a", "x"),
			stepOf(int64(1), "HSETNX", "h", "a", "new"),
			stepOf(int64(0), "HDEL", "h", "b"),
			stepOf(int64(1), "HINCRBY", "copy", "a", "1"),
			stepOf([]any{int64(-1)}, "HTTL", "copy", "FIELDS", "1", "a"),
			stepOf(int64(0), "HLEN", "all"),
			stepOf(hashPairs{}, "HGETALL", "all"),
			stepOf(hashNull{}, "HRANDFIELD", "all"),
			stepOf([]any{}, "HRANDFIELD", "all", "-3"),
		})
		if _, err := ts.st.ReapExpiredFields(time.Second); err != nil {
			t.Fatal(err)
		}
		runSteps(t, c, []hashStep{
			// A hash whose every field expired is gone once reclaimed.
			stepOf(int64(0), "EXISTS", "all"),
			stepOf(int64(2), "DBSIZE"),
			stepOf(hashPairs{"a": "new", "c": "3", "d": "4"}, "HGETALL", "h"),
			stepOf(hashPairs{"a": "1", "c": "3", "d": "4"}, "HGETALL", "copy"),
		})
	})
}
