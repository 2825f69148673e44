package server

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// The tests here check the string commands against the replies of Redis 7
// (every expected reply below was taken from redis-server 7.0.15).

// Expected replies of the string tests, besides string, int64 and []any,
// which must match exactly (a RESP3 map matches a []any of its key/value
// pairs, in any order).
type (
	// strErr is an error reply with exactly this text.
	strErr = replyErr
	// strNil is a null reply.
	strNil = replyNull
	// strBetween is an integer reply in [lo, hi].
	strBetween struct{ lo, hi int64 }
)

// strStep is one command and the reply Redis 7 gives to it.
type strStep struct {
	args []any
	want any
}

func sstep(want any, args ...any) strStep { return strStep{args: args, want: want} }

// strRun sends the steps in order, stopping at the first reply that differs.
func strRun(t *testing.T, c *redis.Client, steps []strStep) {
	t.Helper()
	for i, s := range steps {
		if diff := strDiff(c, s.want, s.args...); diff != "" {
			t.Fatalf("step %d: %s", i, diff)
		}
	}
}

// strDiff sends one command and describes how its reply differs from want
// ("" when it does not).
func strDiff(c *redis.Client, want any, args ...any) string {
	got, err := c.Do(context.Background(), args...).Result()
	if msg, done := diffErrOrNull(got, err, want); done {
		if msg != "" {
			msg = fmt.Sprintf("%q: %s", args, msg)
		}
		return msg
	}
	if w, ok := want.(strBetween); ok {
		n, isInt := got.(int64)
		if !isInt || n < w.lo || n > w.hi {
			return fmt.Sprintf("%q = %#v; want an integer in [%d, %d]", args, got, w.lo, w.hi)
		}
		return ""
	}
	if !strEqual(got, want) {
		return fmt.Sprintf("%q = %#v; want %#v", args, got, want)
	}
	return ""
}

// strEqual compares a go-redis reply with an expected value.
func strEqual(got, want any) bool {
	switch w := want.(type) {
	case []any:
		if m, ok := got.(map[any]any); ok {
			if len(w)%2 != 0 || len(m) != len(w)/2 {
				return false
			}
			for i := 0; i < len(w); i += 2 {
				v, ok := m[w[i]]
				if !ok || !strEqual(v, w[i+1]) {
					return false
				}
			}
			return true
		}
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !strEqual(g[i], w[i]) {
				return false
			}
		}
		return true
	case int:
		return got == int64(w)
	}
	return reflect.DeepEqual(got, want)
}

func strArity(name string) strErr {
	return strErr("ERR wrong number of arguments for '" + name + "' command")
}

const (
	strSyntaxErr    = strErr("ERR syntax error")
	strNotInt       = strErr("ERR value is not an integer or out of range")
	strNotFloat     = strErr("ERR value is not a valid float")
	strOverflow     = strErr("ERR increment or decrement would overflow")
	strNaNOrInf     = strErr("ERR increment would produce NaN or Infinity")
	strTooBig       = strErr("ERR string exceeds maximum allowed size (proto-max-bulk-len)")
	strWrongType    = strErr("WRONGTYPE Operation against a key holding the wrong kind of value")
	strLCSWrongType = strErr("ERR The specified keys must contain string values")
)

func strBadExpire(cmd string) strErr {
	return strErr("ERR invalid expire time in '" + cmd + "' command")
}

// strDo runs a command that must succeed and returns its reply.
func strDo(t *testing.T, c *redis.Client, args ...any) any {
	t.Helper()
	v, err := c.Do(context.Background(), args...).Result()
	if err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	return v
}

// strWaitGone polls until key no longer exists, failing after a deadline.
func strWaitGone(t *testing.T, c *redis.Client, key string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		n, err := c.Exists(context.Background(), key).Result()
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%q still exists past its deadline", key)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// strFutureSec is a unix time in seconds an hour from now; strFutureMs the
// same in milliseconds.
func strFutureSec() int64 { return time.Now().Add(time.Hour).Unix() }
func strFutureMs() int64  { return time.Now().Add(time.Hour).UnixMilli() }

func TestStringArityErrors(t *testing.T) {
	ts := startServer(t)
	c := ts.client(t, 2)
	strRun(t, c, []strStep{
		sstep(strArity("get"), "GET"),
		sstep(strArity("get"), "GET", "a", "b"),
		sstep(strArity("set"), "SET", "a"),
		sstep(strArity("setnx"), "SETNX", "a"),
		sstep(strArity("setnx"), "SETNX", "a", "b", "c"),
		sstep(strArity("setex"), "SETEX", "a", "10"),
		sstep(strArity("psetex"), "PSETEX", "a", "10", "v", "x"),
		sstep(strArity("getset"), "GETSET", "a"),
		sstep(strArity("getdel"), "GETDEL"),
		sstep(strArity("getdel"), "GETDEL", "a", "b"),
		sstep(strArity("getex"), "GETEX"),
		sstep(strArity("mget"), "MGET"),
		sstep(strArity("mset"), "MSET"),
		sstep(strArity("mset"), "MSET", "a"),
		sstep(strArity("mset"), "MSET", "a", "1", "b"),
		sstep(strArity("msetnx"), "MSETNX", "a"),
		sstep(strArity("msetnx"), "MSETNX", "a", "1", "b"),
		sstep(strArity("append"), "APPEND", "a"),
		sstep(strArity("strlen"), "STRLEN"),
		sstep(strArity("incr"), "INCR"),
		sstep(strArity("incr"), "INCR", "a", "b"),
		sstep(strArity("decr"), "DECR"),
		sstep(strArity("incrby"), "INCRBY", "a"),
		sstep(strArity("decrby"), "DECRBY", "a", "1", "2"),
		sstep(strArity("incrbyfloat"), "INCRBYFLOAT", "a"),
		sstep(strArity("getrange"), "GETRANGE", "a", "0"),
		sstep(strArity("substr"), "SUBSTR", "a", "0", "1", "2"),
		sstep(strArity("setrange"), "SETRANGE", "a", "0"),
		sstep(strArity("lcs"), "LCS", "a"),
		// None of them created anything.
		sstep(int64(0), "DBSIZE"),
	})
}

func TestSetAndGetBasics(t *testing.T) {
	bothProtocols(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		strRun(t, c, []strStep{
			sstep(strNil{}, "GET", "k"),
			sstep("OK", "SET", "k", "v"),
			sstep("v", "GET", "k"),
			sstep("OK", "SET", "k", "w"),
			sstep("w", "GET", "k"),
			sstep("OK", "SET", "empty", ""),
			sstep("", "GET", "empty"),
			sstep(int64(1), "EXISTS", "empty"),
			sstep("OK", "SET", "", "empty key"),
			sstep("empty key", "GET", ""),
			// Option names are case-insensitive.
			sstep("OK", "SET", "k", "x", "Ex", "100", "xX"),
			sstep(int64(100), "TTL", "k"),
		})
	})
}

func TestSetOptionCombinations(t *testing.T) {
	bothProtocols(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		strRun(t, c, []strStep{
			// NX and XX.
			sstep(strNil{}, "SET", "k", "v", "XX"),
			sstep(int64(0), "EXISTS", "k"),
			sstep("OK", "SET", "k", "v", "NX"),
			sstep(strNil{}, "SET", "k", "w", "NX"),
			sstep("v", "GET", "k"),
			sstep("OK", "SET", "k", "w", "XX"),
			sstep("w", "GET", "k"),
			// GET returns the old value, or nil, and still sets.
			sstep("w", "SET", "k", "x", "GET"),
			sstep("x", "GET", "k"),
			sstep(strNil{}, "SET", "new", "1", "GET"),
			sstep("1", "GET", "new"),
			// NX GET (allowed since 7.0): the old value, and no write.
			sstep("x", "SET", "k", "y", "NX", "GET"),
			sstep("x", "GET", "k"),
			sstep(strNil{}, "SET", "nx", "1", "NX", "GET"),
			sstep("1", "GET", "nx"),
			// XX GET: the old value and a write; nil and no write.
			sstep("x", "SET", "k", "y", "XX", "GET"),
			sstep("y", "GET", "k"),
			sstep(strNil{}, "SET", "xx", "1", "XX", "GET"),
			sstep(int64(0), "EXISTS", "xx"),
			// GET with an expiry.
			sstep("y", "SET", "k", "z", "EX", "100", "GET"),
			sstep(int64(100), "TTL", "k"),
			// Repeating an option is allowed; the last expiry wins, and
			// only it is parsed.
			sstep("z", "SET", "k", "v", "NX", "NX", "GET", "GET"),
			sstep("OK", "SET", "r", "v", "EX", "10", "EX", "20"),
			sstep(int64(20), "TTL", "r"),
			sstep("OK", "SET", "r", "v", "EX", "abc", "EX", "30"),
			sstep(int64(30), "TTL", "r"),
			sstep("OK", "SET", "r", "v", "KEEPTTL", "KEEPTTL"),
			sstep(int64(30), "TTL", "r"),
			sstep("OK", "SET", "r", "v", "XX", "XX"),
			sstep(int64(-1), "TTL", "r"),
		})
	})
}

func TestSetOptionConflictsAreSyntaxErrors(t *testing.T) {
	ts := startServer(t)
	c := ts.client(t, 2)
	for _, args := range [][]any{
		{"NX", "XX"},
		{"XX", "NX"},
		{"EX", "10", "PX", "100"},
		{"PX", "100", "EX", "10"},
		{"EX", "10", "EXAT", "100"},
		{"PXAT", "100", "PX", "100"},
		{"EXAT", "100", "PXAT", "100"},
		{"EX", "10", "KEEPTTL"},
		{"KEEPTTL", "EX", "10"},
		{"KEEPTTL", "PXAT", "10"},
		{"EX"},
		{"EX", "10", "PX"},
		{"PERSIST"},
		{"FOO"},
		{"NXX"},
		{"GETT"},
		{"EX", "10", "GET", "NX", "XX"},
		// A syntax error is found before the expiry is validated.
		{"EX", "0", "FOO"},
		{"EX", "abc", "KEEPTTL"},
	} {
		args := append([]any{"SET", "k", "v"}, args...)
		if diff := strDiff(c, strSyntaxErr, args...); diff != "" {
			t.Error(diff)
		}
	}
	if n := strDo(t, c, "DBSIZE"); n != int64(0) {
		t.Fatalf("DBSIZE = %v after failed SETs", n)
	}
}

func TestSetInvalidExpireTimes(t *testing.T) {
	ts := startServer(t)
	c := ts.client(t, 2)
	bad := strBadExpire("set")
	cases := []struct {
		opt, val string
		want     any
	}{
		{"EX", "0", bad},
		{"EX", "-1", bad},
		{"PX", "0", bad},
		{"PX", "-100", bad},
		{"EXAT", "0", bad},
		{"PXAT", "0", bad},
		{"EXAT", "-1", bad},
		{"EX", "abc", strNotInt},
		{"EX", "1.5", strNotInt},
		{"EX", "", strNotInt},
		{"PX", " 1", strNotInt},
		{"EX", "+1", strNotInt},
		{"EX", "01", strNotInt},
		{"EX", "9223372036854775808", strNotInt},
		// Overflows: seconds times 1000, or now plus the time.
		{"EX", "9223372036854775807", bad},
		{"EXAT", "9223372036854775807", bad},
		{"EX", "9223372036854775", bad},
		{"EX", "9223372036854776", bad},
		{"PX", "9223372036854775807", bad},
		// The largest representable deadlines are fine.
		{"PXAT", "9223372036854775807", "OK"},
		{"EXAT", "9223372036854775", "OK"},
	}
	for _, tc := range cases {
		if diff := strDiff(c, tc.want, "SET", "k", "v", tc.opt, tc.val); diff != "" {
			t.Error(diff)
		}
	}
	// An invalid expiry is reported before GET looks at the key's type.
	strRun(t, c, []strStep{
		sstep(int64(1), "HSET", "h", "f", "v"),
		sstep(bad, "SET", "h", "v", "EX", "0", "GET"),
		sstep(strNotInt, "SET", "h", "v", "EX", "x", "GET"),
		sstep(strWrongType, "SET", "h", "v", "EX", "10", "GET"),
	})
}

func TestSetExpiryForms(t *testing.T) {
	bothProtocols(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		now := time.Now()
		strRun(t, c, []strStep{
			sstep("OK", "SET", "ex", "v", "EX", "100"),
			sstep(int64(100), "TTL", "ex"),
			sstep("OK", "SET", "px", "v", "PX", "100000"),
			sstep(strBetween{99000, 100000}, "PTTL", "px"),
			sstep("OK", "SET", "exat", "v", "EXAT", strconv.FormatInt(now.Unix()+100, 10)),
			sstep(strBetween{98, 101}, "TTL", "exat"),
			sstep(now.Unix()+100, "EXPIRETIME", "exat"),
			sstep("OK", "SET", "pxat", "v", "PXAT", strconv.FormatInt(now.UnixMilli()+100000, 10)),
			sstep(now.UnixMilli()+100000, "PEXPIRETIME", "pxat"),
			// A plain SET drops the deadline; KEEPTTL keeps it.
			sstep("OK", "SET", "ex", "w", "KEEPTTL"),
			sstep(int64(100), "TTL", "ex"),
			sstep("w", "GET", "ex"),
			sstep("OK", "SET", "ex", "x"),
			sstep(int64(-1), "TTL", "ex"),
			// KEEPTTL on a new key: no deadline.
			sstep("OK", "SET", "kt", "v", "KEEPTTL"),
			sstep(int64(-1), "TTL", "kt"),
			// XX with an expiry sets the deadline of the existing key.
			sstep("OK", "SET", "kt", "v", "XX", "PX", "100000"),
			sstep(strBetween{99000, 100000}, "PTTL", "kt"),
		})
	})
}

func TestSetWithPastDeadlineLeavesNoKey(t *testing.T) {
	bothProtocols(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		strRun(t, c, []strStep{
			sstep("OK", "SET", "a", "v", "EXAT", "1"),
			sstep(strNil{}, "GET", "a"),
			sstep("OK", "SET", "b", "old"),
			sstep("old", "SET", "b", "v", "PXAT", "1", "GET"),
			sstep(strNil{}, "GET", "b"),
			sstep(int64(0), "EXISTS", "a", "b"),
			sstep(int64(0), "DBSIZE"),
		})
	})
}

func TestSetWithPXExpires(t *testing.T) {
	ts := startServer(t)
	c := ts.client(t, 3)
	strRun(t, c, []strStep{
		sstep("OK", "SET", "k", "v", "PX", "30"),
		sstep("OK", "PSETEX", "p", "30", "v"),
		sstep("OK", "SET", "keep", "v", "PX", "30"),
		sstep("OK", "SET", "keep", "w", "KEEPTTL"),
		sstep("OK", "SET", "drop", "v", "PX", "30"),
		sstep("OK", "SET", "drop", "w"),
	})
	strWaitGone(t, c, "k")
	strWaitGone(t, c, "p")
	strWaitGone(t, c, "keep")
	strRun(t, c, []strStep{
		sstep(strNil{}, "GET", "k"),
		sstep(strNil{}, "SET", "k", "x", "XX"),
		sstep("OK", "SET", "k", "x", "NX"),
		sstep("w", "GET", "drop"),
	})
	// The expired keys are reclaimed, lazily or actively, so only the two
	// live ones remain counted.
	deadline := time.Now().Add(5 * time.Second)
	for strDo(t, c, "DBSIZE") != int64(2) {
		if time.Now().After(deadline) {
			t.Fatalf("DBSIZE = %v long after the keys expired; want 2", strDo(t, c, "DBSIZE"))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestSetNXSetEXPSetEX(t *testing.T) {
	bothProtocols(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		strRun(t, c, []strStep{
			sstep(int64(1), "SETNX", "k", "v"),
			sstep(int64(0), "SETNX", "k", "w"),
			sstep("v", "GET", "k"),
			sstep("OK", "SETEX", "k", "100", "w"),
			sstep("w", "GET", "k"),
			sstep(int64(100), "TTL", "k"),
			sstep("OK", "PSETEX", "k", "100000", "x"),
			sstep(strBetween{99000, 100000}, "PTTL", "k"),
			sstep(strBadExpire("setex"), "SETEX", "k", "0", "v"),
			sstep(strBadExpire("setex"), "SETEX", "k", "-5", "v"),
			sstep(strBadExpire("setex"), "SETEX", "k", "9223372036854775807", "v"),
			sstep(strNotInt, "SETEX", "k", "abc", "v"),
			sstep(strBadExpire("psetex"), "PSETEX", "k", "0", "v"),
			sstep(strBadExpire("psetex"), "PSETEX", "k", "9223372036854775807", "v"),
			sstep(strNotInt, "PSETEX", "k", "1.5", "v"),
			sstep(strBadExpire("setex"), "SETEX", "missing", "0", "v"),
			sstep("x", "GET", "k"),
			sstep(int64(0), "EXISTS", "missing"),
			// SETEX and SETNX replace/respect keys of any type.
			sstep(int64(1), "HSET", "h", "f", "v"),
			sstep(int64(0), "SETNX", "h", "v"),
			sstep("hash", "TYPE", "h"),
			sstep("OK", "SETEX", "h", "10", "v"),
			sstep("string", "TYPE", "h"),
		})
	})
}

func TestGetSetAndGetDel(t *testing.T) {
	bothProtocols(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		strRun(t, c, []strStep{
			sstep(strNil{}, "GETSET", "k", "a"),
			sstep("a", "GETSET", "k", "b"),
			sstep("b", "GET", "k"),
			// GETSET drops the deadline, as SET does.
			sstep("OK", "SET", "k", "c", "EX", "100"),
			sstep("c", "GETSET", "k", "d"),
			sstep(int64(-1), "TTL", "k"),
			sstep("d", "GETDEL", "k"),
			sstep(strNil{}, "GETDEL", "k"),
			sstep(int64(0), "EXISTS", "k"),
			sstep("OK", "SET", "e", ""),
			sstep("", "GETDEL", "e"),
			sstep(int64(0), "DBSIZE"),
		})
	})
}

func TestGetExOptions(t *testing.T) {
	bothProtocols(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		strRun(t, c, []strStep{
			sstep(strNil{}, "GETEX", "k"),
			sstep(strNil{}, "GETEX", "k", "EX", "10"),
			sstep(int64(0), "EXISTS", "k"),
			sstep("OK", "SET", "k", "v"),
			sstep("v", "GETEX", "k"),
			sstep(int64(-1), "TTL", "k"),
			sstep("v", "GETEX", "k", "EX", "100"),
			sstep(int64(100), "TTL", "k"),
			sstep("v", "GETEX", "k", "PX", "50000"),
			sstep(strBetween{49000, 50000}, "PTTL", "k"),
			sstep("v", "GETEX", "k", "EXAT", strconv.FormatInt(strFutureSec(), 10)),
			sstep(strBetween{3598, 3601}, "TTL", "k"),
			sstep("v", "GETEX", "k", "PXAT", strconv.FormatInt(strFutureMs(), 10)),
			sstep(strBetween{3598, 3601}, "TTL", "k"),
			// Without an option, the deadline stays.
			sstep("v", "GETEX", "k"),
			sstep(strBetween{3598, 3601}, "TTL", "k"),
			sstep("v", "GETEX", "k", "PERSIST"),
			sstep(int64(-1), "TTL", "k"),
			sstep("v", "GETEX", "k", "persist", "PERSIST"),
			sstep(int64(-1), "TTL", "k"),
			// Repeats are allowed and the last one wins.
			sstep("v", "GETEX", "k", "EX", "abc", "EX", "30"),
			sstep(int64(30), "TTL", "k"),
			// A deadline in the past deletes the key after returning it.
			sstep("v", "GETEX", "k", "EXAT", "1"),
			sstep(int64(0), "EXISTS", "k"),
			sstep("OK", "SET", "k", "w"),
			sstep("w", "GETEX", "k", "PXAT", "1"),
			sstep(int64(0), "DBSIZE"),
		})
	})
}

func TestGetExErrors(t *testing.T) {
	bothProtocols(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		bad := strBadExpire("getex")
		strRun(t, c, []strStep{
			sstep("OK", "SET", "k", "v", "EX", "100"),
			sstep(strSyntaxErr, "GETEX", "k", "EX", "10", "PX", "10"),
			sstep(strSyntaxErr, "GETEX", "k", "EX", "10", "PERSIST"),
			sstep(strSyntaxErr, "GETEX", "k", "PERSIST", "EX", "10"),
			sstep(strSyntaxErr, "GETEX", "k", "EX"),
			sstep(strSyntaxErr, "GETEX", "k", "KEEPTTL"),
			sstep(strSyntaxErr, "GETEX", "k", "NX"),
			sstep(strSyntaxErr, "GETEX", "k", "GET"),
			sstep(strSyntaxErr, "GETEX", "k", "FOO"),
			sstep(strSyntaxErr, "GETEX", "missing", "FOO"),
			sstep(bad, "GETEX", "k", "EX", "0"),
			sstep(bad, "GETEX", "k", "PX", "-1"),
			sstep(bad, "GETEX", "k", "EXAT", "0"),
			sstep(bad, "GETEX", "k", "EXAT", "9223372036854775807"),
			sstep(bad, "GETEX", "k", "PX", "9223372036854775807"),
			sstep(strNotInt, "GETEX", "k", "EX", "abc"),
			sstep(int64(100), "TTL", "k"),
			// The key is looked up before the expiry is validated: a
			// missing key is nil and a hash WRONGTYPE, whatever the expiry.
			sstep(strNil{}, "GETEX", "missing", "EX", "0"),
			sstep(strNil{}, "GETEX", "missing", "EX", "abc"),
			sstep(int64(1), "HSET", "h", "f", "v"),
			sstep(strWrongType, "GETEX", "h", "EX", "abc"),
			sstep(strWrongType, "GETEX", "h", "PERSIST"),
			sstep(strWrongType, "GETEX", "h"),
			sstep(strSyntaxErr, "GETEX", "h", "FOO"),
		})
	})
}

func TestMSetMGetMSetNX(t *testing.T) {
	bothProtocols(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		strRun(t, c, []strStep{
			sstep("OK", "MSET", "a", "1", "b", "2", "c", "3"),
			sstep([]any{"1", "2", "3", nil}, "MGET", "a", "b", "c", "d"),
			sstep([]any{nil}, "MGET", "missing"),
			// A repeated key takes its last value.
			sstep("OK", "MSET", "q", "1", "q", "2"),
			sstep("2", "GET", "q"),
			// MSET drops deadlines.
			sstep("OK", "SET", "t", "v", "EX", "100"),
			sstep("OK", "MSET", "t", "x"),
			sstep(int64(-1), "TTL", "t"),
			// MSETNX sets all or nothing.
			sstep(int64(0), "MSETNX", "a", "9", "z", "9"),
			sstep([]any{"1", nil}, "MGET", "a", "z"),
			sstep(int64(1), "MSETNX", "y1", "1", "y2", "2"),
			sstep([]any{"1", "2"}, "MGET", "y1", "y2"),
			sstep(int64(1), "MSETNX", "r", "1", "r", "2"),
			sstep("2", "GET", "r"),
			// MGET answers nil for keys of other types; MSET replaces
			// them; MSETNX counts them as existing.
			sstep(int64(1), "HSET", "h", "f", "v"),
			sstep([]any{"1", nil, nil}, "MGET", "a", "h", "nope"),
			sstep(int64(0), "MSETNX", "h", "x", "zz", "y"),
			sstep(int64(0), "EXISTS", "zz"),
			sstep("OK", "MSET", "h", "x"),
			sstep("x", "GET", "h"),
		})
	})
}

func TestAppendAndStrlen(t *testing.T) {
	bothProtocols(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		strRun(t, c, []strStep{
			sstep(int64(0), "STRLEN", "a"),
			sstep(int64(5), "APPEND", "a", "hello"),
			sstep(int64(11), "APPEND", "a", " world"),
			sstep("hello world", "GET", "a"),
			sstep(int64(11), "STRLEN", "a"),
			// An empty APPEND still creates the key.
			sstep(int64(0), "APPEND", "e", ""),
			sstep(int64(1), "EXISTS", "e"),
			sstep("", "GET", "e"),
			sstep(int64(0), "STRLEN", "e"),
			// Integers are strings too.
			sstep("OK", "SET", "n", "12"),
			sstep(int64(4), "APPEND", "n", "34"),
			sstep(int64(1235), "INCR", "n"),
			sstep(int64(4), "STRLEN", "n"),
			// APPEND keeps the deadline.
			sstep("OK", "SET", "t", "v", "EX", "100"),
			sstep(int64(2), "APPEND", "t", "w"),
			sstep(int64(100), "TTL", "t"),
		})
	})
}

func TestIncrDecrFamily(t *testing.T) {
	bothProtocols(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		strRun(t, c, []strStep{
			sstep(int64(1), "INCR", "i"),
			sstep(int64(2), "INCR", "i"),
			sstep(int64(12), "INCRBY", "i", "10"),
			sstep(int64(-8), "INCRBY", "i", "-20"),
			sstep(int64(-9), "DECR", "i"),
			sstep(int64(-14), "DECRBY", "i", "5"),
			sstep(int64(-9), "DECRBY", "i", "-5"),
			sstep("-9", "GET", "i"),
			sstep(int64(-1), "DECR", "d"),
			sstep(int64(-5), "DECRBY", "d2", "5"),
			sstep(int64(7), "INCRBY", "d3", "7"),
			sstep(int64(0), "INCRBY", "z", "0"),
			sstep("0", "GET", "z"),
			// Overflow leaves the value alone.
			sstep("OK", "SET", "max", "9223372036854775807"),
			sstep(strOverflow, "INCR", "max"),
			sstep(strOverflow, "INCRBY", "max", "1"),
			sstep(int64(9223372036854775806), "DECR", "max"),
			sstep("OK", "SET", "min", "-9223372036854775808"),
			sstep(strOverflow, "DECR", "min"),
			sstep(strOverflow, "DECRBY", "min", "1"),
			sstep(strOverflow, "INCRBY", "min", "-1"),
			sstep("-9223372036854775808", "GET", "min"),
			sstep(int64(-1), "INCRBY", "min", "9223372036854775807"),
			sstep(int64(-9223372036854775808), "INCRBY", "x", "-9223372036854775808"),
			sstep(strErr("ERR decrement would overflow"), "DECRBY", "x", "-9223372036854775808"),
			sstep(strErr("ERR decrement would overflow"), "DECRBY", "nokey", "-9223372036854775808"),
			sstep(int64(0), "EXISTS", "nokey"),
			sstep(int64(-9223372036854775807), "DECRBY", "y", "9223372036854775807"),
			// INCR keeps the deadline.
			sstep("OK", "SET", "t", "5", "EX", "100"),
			sstep(int64(6), "INCR", "t"),
			sstep(int64(100), "TTL", "t"),
		})
	})
}

func TestIncrRejectsNonIntegers(t *testing.T) {
	ts := startServer(t)
	c := ts.client(t, 2)
	// Redis's string2ll: no spaces, no '+', no leading zeros, no "-0",
	// nothing beyond int64.
	bad := []string{"", "abc", "1.5", "1.0", " 1", "1 ", "+1", "01", "-0", "1e3", "0x10",
		"9223372036854775808", "-9223372036854775809", "99999999999999999999", "1\x00", "\x001"}
	for _, v := range bad {
		if diff := strDiff(c, strNotInt, "INCRBY", "k", v); diff != "" {
			t.Error(diff)
		}
		if diff := strDiff(c, strNotInt, "DECRBY", "k", v); diff != "" {
			t.Error(diff)
		}
		strDo(t, c, "SET", "s", v)
		for _, cmd := range [][]any{{"INCR", "s"}, {"DECR", "s"}, {"INCRBY", "s", "1"}, {"DECRBY", "s", "1"}} {
			if diff := strDiff(c, strNotInt, cmd...); diff != "" {
				t.Error(diff)
			}
		}
		if got := strDo(t, c, "GET", "s"); got != v {
			t.Errorf("value %q became %q after failed INCRs", v, got)
		}
	}
	if n := strDo(t, c, "EXISTS", "k"); n != int64(0) {
		t.Error("a failed INCRBY created its key")
	}
	// The largest integers Redis accepts.
	strRun(t, c, []strStep{
		sstep(int64(-9223372036854775808), "INCRBY", "n", "-9223372036854775808"),
		sstep(int64(-1), "INCRBY", "n", "9223372036854775807"),
		sstep(int64(0), "INCRBY", "n", "1"),
	})
}

func TestIncrByFloat(t *testing.T) {
	bothProtocols(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		strRun(t, c, []strStep{
			sstep("1.5", "INCRBYFLOAT", "f", "1.5"),
			sstep("1.6", "INCRBYFLOAT", "f", "0.1"),
			sstep("0", "INCRBYFLOAT", "f", "-1.6"),
			sstep("0", "GET", "f"),
			sstep("5000", "INCRBYFLOAT", "g", "5.0e3"),
			sstep("5000.5", "INCRBYFLOAT", "g", "0.5"),
			sstep("10.5", "INCRBYFLOAT", "h", "10.5"),
			sstep("10", "INCRBYFLOAT", "h", "-0.5"),
			// Numbers of any syntax strtold reads.
			sstep("0.125", "INCRBYFLOAT", "x", "0x1p-3"),
			sstep("1.125", "INCRBYFLOAT", "x", "0X.8P1"),
			sstep("17.125", "INCRBYFLOAT", "x", "0x10"),
			sstep("17.625", "INCRBYFLOAT", "x", ".5"),
			sstep("22.625", "INCRBYFLOAT", "x", "5."),
			sstep("23.625", "INCRBYFLOAT", "x", "+1"),
			sstep("23.625", "INCRBYFLOAT", "x", "-0"),
			sstep("23.625", "INCRBYFLOAT", "x", "0e99999999"),
			// Long double precision: 17 decimals, a 64-bit significand.
			sstep("17.12500000000000001", "INCRBYFLOAT", "y", "17.12500000000000001"),
			sstep("0.0001", "INCRBYFLOAT", "z", "0.0001"),
			sstep("0.0001", "INCRBYFLOAT", "z", "1e-20"),
			sstep("0", "INCRBYFLOAT", "tiny", "1e-400"),
			sstep("100000000000000000", "INCRBYFLOAT", "big", "1e17"),
			sstep("100000000123456789.125", "INCRBYFLOAT", "big", "123456789.123456789"),
			sstep("OK", "SET", "i", "9223372036854775807"),
			sstep("9223372036854775808", "INCRBYFLOAT", "i", "1"),
			sstep("9223372036854775808", "INCRBYFLOAT", "i", "0.5"),
			sstep("OK", "SET", "p", "1.23456789012345678901234567890"),
			sstep("1.23456789012345679", "INCRBYFLOAT", "p", "0"),
			sstep("0.1", "INCRBYFLOAT", "q", "0.1"),
			sstep("0.3", "INCRBYFLOAT", "q", "0.2"),
			sstep("0.3", "INCRBYFLOAT", "q", "0"),
			sstep("OK", "SET", "neg", "-5"),
			sstep("0", "INCRBYFLOAT", "neg", "5"),
			sstep("0", "INCRBYFLOAT", "neg", "-1e-30"),
			// Beyond double's range, still within long double's.
			sstep("OK", "SET", "huge", "1e308"),
			sstep("199999999999999999993371759311691291321120199694831134415594095989843469737676123744200253843777078640893494450108026446304269499187921167194841628860392837535918200039206381557326219209014213335878306791577877829121087126122536729803237260434173178506889763247582601711514636284849020905456510092687857156096",
				"INCRBYFLOAT", "huge", "1e308"),
			sstep("OK", "SET", "ld", "1.1e4932"),
			sstep(strNaNOrInf, "INCRBYFLOAT", "ld", "1e4931"),
			sstep("1.1e4932", "GET", "ld"),
			sstep(strNaNOrInf, "INCRBYFLOAT", "ld", "inf"),
			sstep(strNaNOrInf, "INCRBYFLOAT", "new", "inf"),
			sstep(strNaNOrInf, "INCRBYFLOAT", "new", "-Infinity"),
			sstep(int64(0), "EXISTS", "new"),
			sstep("OK", "SET", "inf", "inf"),
			sstep(strNaNOrInf, "INCRBYFLOAT", "inf", "1"),
			sstep(strNaNOrInf, "INCRBYFLOAT", "inf", "-inf"),
			// INCRBYFLOAT keeps the deadline.
			sstep("OK", "SET", "t", "1", "EX", "100"),
			sstep("1.5", "INCRBYFLOAT", "t", "0.5"),
			sstep(int64(100), "TTL", "t"),
		})
	})
}

func TestIncrByFloatRejectsInvalidNumbers(t *testing.T) {
	ts := startServer(t)
	c := ts.client(t, 2)
	bad := []string{"", "abc", "nan", "NaN", " 1", "1 ", "1e", ".", "e5", "0x", "1e400000", "1.5.5", "--1", "1,5"}
	for _, v := range bad {
		if diff := strDiff(c, strNotFloat, "INCRBYFLOAT", "k", v); diff != "" {
			t.Error(diff)
		}
		strDo(t, c, "SET", "s", v)
		if diff := strDiff(c, strNotFloat, "INCRBYFLOAT", "s", "1"); diff != "" {
			t.Error(diff)
		}
		if got := strDo(t, c, "GET", "s"); got != v {
			t.Errorf("value %q became %q after a failed INCRBYFLOAT", v, got)
		}
	}
	if n := strDo(t, c, "EXISTS", "k"); n != int64(0) {
		t.Error("a failed INCRBYFLOAT created its key")
	}
	// The key's type is checked before either number.
	strRun(t, c, []strStep{
		sstep(int64(1), "HSET", "h", "f", "v"),
		sstep(strWrongType, "INCRBYFLOAT", "h", "abc"),
	})
}

func TestGetRangeAndSubstr(t *testing.T) {
	ts := startServer(t)
	c := ts.client(t, 2)
	strDo(t, c, "SET", "m", "\x00\x00\x00abc")
	strDo(t, c, "SET", "e", "")
	cases := []struct {
		key        string
		start, end string
		want       any
	}{
		{"m", "0", "-1", "\x00\x00\x00abc"},
		{"m", "-100", "100", "\x00\x00\x00abc"},
		{"m", "2", "1", ""},
		{"m", "-1", "-2", ""},
		{"m", "-2", "-1", "bc"},
		{"m", "5", "10", "c"},
		{"m", "6", "10", ""},
		{"m", "0", "0", "\x00"},
		{"m", "-1", "0", ""},
		{"m", "0", "-100", "\x00"},
		{"m", "3", "4", "ab"},
		{"m", "9223372036854775807", "9223372036854775807", ""},
		{"m", "-9223372036854775808", "9223372036854775807", "\x00\x00\x00abc"},
		{"m", "-9223372036854775808", "-9223372036854775808", "\x00"},
		{"m", "3", "-9223372036854775808", ""},
		{"m", "abc", "1", strNotInt},
		{"m", "1", "abc", strNotInt},
		{"m", "1", "9223372036854775808", strNotInt},
		{"missing", "0", "-1", ""},
		{"missing", "x", "-1", strNotInt},
		{"e", "0", "-1", ""},
		{"e", "-1", "0", ""},
		{"e", "0", "0", ""},
	}
	for _, cmd := range []string{"GETRANGE", "SUBSTR"} {
		for _, tc := range cases {
			if diff := strDiff(c, tc.want, cmd, tc.key, tc.start, tc.end); diff != "" {
				t.Error(diff)
			}
		}
	}
}

func TestSetRange(t *testing.T) {
	bothProtocols(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		strRun(t, c, []strStep{
			sstep("OK", "SET", "a", "hello world"),
			sstep(int64(11), "SETRANGE", "a", "6", "W"),
			sstep("hello World", "GET", "a"),
			sstep(int64(16), "SETRANGE", "a", "15", "X"),
			sstep("hello World\x00\x00\x00\x00X", "GET", "a"),
			sstep(int64(16), "SETRANGE", "a", "0", "HELLO WORLD!!!!!"),
			sstep("HELLO WORLD!!!!!", "GET", "a"),
			// A missing key is zero-padded.
			sstep(int64(6), "SETRANGE", "m", "3", "abc"),
			sstep("\x00\x00\x00abc", "GET", "m"),
			// An empty value changes nothing and creates nothing.
			sstep(int64(16), "SETRANGE", "a", "100", ""),
			sstep(int64(16), "STRLEN", "a"),
			sstep(int64(0), "SETRANGE", "none", "5", ""),
			sstep(int64(0), "EXISTS", "none"),
			sstep("OK", "SET", "e", ""),
			sstep(int64(0), "SETRANGE", "e", "0", ""),
			sstep(int64(1), "EXISTS", "e"),
			// Errors.
			sstep(strErr("ERR offset is out of range"), "SETRANGE", "a", "-1", "x"),
			sstep(strErr("ERR offset is out of range"), "SETRANGE", "a", "-9223372036854775808", ""),
			sstep(strNotInt, "SETRANGE", "a", "abc", "x"),
			sstep(strNotInt, "SETRANGE", "a", "1.5", "x"),
			sstep(strTooBig, "SETRANGE", "a", "536870912", "x"),
			sstep(strTooBig, "SETRANGE", "a", "536870911", "xy"),
			sstep(strTooBig, "SETRANGE", "a", "9223372036854775807", "x"),
			sstep(strTooBig, "SETRANGE", "a", "9223372036854775806", "xy"),
			sstep(strTooBig, "SETRANGE", "new", "9223372036854775807", "x"),
			sstep(int64(0), "EXISTS", "new"),
			sstep("HELLO WORLD!!!!!", "GET", "a"),
			// SETRANGE keeps the deadline.
			sstep("OK", "SET", "t", "v", "EX", "100"),
			sstep(int64(3), "SETRANGE", "t", "2", "x"),
			sstep(int64(100), "TTL", "t"),
			// The server still works (a huge offset once crashed the
			// connection and left the key's lock held).
			sstep("OK", "SET", "a", "done"),
			sstep("OK", "FLUSHALL"),
		})
	})
}

func TestStringMaxBulkLenLimitsGrowth(t *testing.T) {
	ts := startServer(t, "proto-max-bulk-len", "1mb")
	c := ts.client(t, 2)
	const limit = 1 << 20
	full := strings.Repeat("z", limit)
	strRun(t, c, []strStep{
		sstep(int64(limit), "SETRANGE", "k", strconv.Itoa(limit-1), "x"),
		sstep(strTooBig, "SETRANGE", "k2", strconv.Itoa(limit), "x"),
		sstep(int64(0), "EXISTS", "k2"),
		sstep(int64(limit), "SETRANGE", "k", strconv.Itoa(limit-1), ""),
		sstep(int64(limit), "SETRANGE", "k", strconv.Itoa(limit), ""),
		sstep(strTooBig, "SETRANGE", "k", strconv.Itoa(limit-1), "xy"),
		sstep(strTooBig, "APPEND", "k", "y"),
		sstep(int64(limit), "APPEND", "k", ""),
		sstep(int64(limit), "STRLEN", "k"),
		sstep(int64(limit), "APPEND", "k3", full),
		sstep(strTooBig, "APPEND", "k3", "z"),
		sstep(int64(limit-1), "APPEND", "k4", full[1:]),
		sstep(int64(limit), "APPEND", "k4", "z"),
		sstep(strTooBig, "APPEND", "k4", "z"),
		// LCS refuses a table larger than the limit: (600+1)² cells of 4
		// bytes each is more than 1 MB.
		sstep("OK", "MSET", "la", strings.Repeat("a", 600), "lb", strings.Repeat("a", 600)),
		sstep(strErr("ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len"), "LCS", "la", "lb", "LEN"),
		sstep("OK", "MSET", "la", strings.Repeat("a", 400), "lb", strings.Repeat("a", 400)),
		sstep(int64(400), "LCS", "la", "lb", "LEN"),
	})
}

func TestLCS(t *testing.T) {
	bothProtocols(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		r := func(a0, a1, b0, b1 int64) []any { return []any{[]any{a0, a1}, []any{b0, b1}} }
		rl := func(a0, a1, b0, b1, n int64) []any { return []any{[]any{a0, a1}, []any{b0, b1}, n} }
		strRun(t, c, []strStep{
			sstep("OK", "MSET", "key1", "ohmytext", "key2", "mynewtext", "a1", "abcdef", "b1", "xbcdyef",
				"a2", "ABCBDAB", "b2", "BDCABA", "a3", "aaaa", "b3", "aa", "e", ""),
			sstep("mytext", "LCS", "key1", "key2"),
			sstep(int64(6), "LCS", "key1", "key2", "LEN"),
			sstep(int64(6), "LCS", "key1", "key2", "len", "WITHMATCHLEN"),
			sstep(int64(6), "LCS", "key1", "key2", "LEN", "MINMATCHLEN", "3"),
			sstep(int64(6), "LCS", "key1", "key2", "LEN", "LEN"),
			sstep("mytext", "LCS", "key1", "key2", "WITHMATCHLEN"),
			sstep([]any{"matches", []any{r(4, 7, 5, 8), r(2, 3, 0, 1)}, "len", int64(6)},
				"LCS", "key1", "key2", "IDX"),
			sstep([]any{"matches", []any{rl(4, 7, 5, 8, 4)}, "len", int64(6)},
				"LCS", "key1", "key2", "IDX", "MINMATCHLEN", "4", "WITHMATCHLEN"),
			sstep([]any{"matches", []any{rl(4, 7, 5, 8, 4), rl(2, 3, 0, 1, 2)}, "len", int64(6)},
				"LCS", "key1", "key2", "idx", "withmatchlen"),
			sstep([]any{"matches", []any{rl(4, 7, 5, 8, 4), rl(2, 3, 0, 1, 2)}, "len", int64(6)},
				"LCS", "key1", "key2", "IDX", "MINMATCHLEN", "-5", "WITHMATCHLEN"),
			sstep([]any{"matches", []any{rl(0, 7, 0, 7, 8)}, "len", int64(8)},
				"LCS", "key1", "key1", "IDX", "WITHMATCHLEN"),
			sstep([]any{"matches", []any{rl(4, 5, 5, 6, 2), rl(1, 3, 1, 3, 3)}, "len", int64(5)},
				"LCS", "a1", "b1", "IDX", "WITHMATCHLEN"),
			// The last MINMATCHLEN wins.
			sstep([]any{"matches", []any{r(1, 3, 1, 3)}, "len", int64(5)},
				"LCS", "a1", "b1", "IDX", "MINMATCHLEN", "1", "MINMATCHLEN", "3"),
			// Ties are broken as Redis breaks them.
			sstep("BDAB", "LCS", "a2", "b2"),
			sstep("BCBA", "LCS", "b2", "a2"),
			sstep([]any{"matches", []any{rl(5, 6, 3, 4, 2), rl(3, 4, 0, 1, 2)}, "len", int64(4)},
				"LCS", "a2", "b2", "IDX", "WITHMATCHLEN"),
			sstep([]any{"matches", []any{rl(5, 5, 5, 5, 1), rl(4, 4, 3, 3, 1), rl(2, 2, 2, 2, 1), rl(0, 0, 1, 1, 1)}, "len", int64(4)},
				"LCS", "b2", "a2", "IDX", "WITHMATCHLEN"),
			sstep([]any{"matches", []any{rl(2, 3, 0, 1, 2)}, "len", int64(2)},
				"LCS", "a3", "b3", "IDX", "WITHMATCHLEN"),
			sstep([]any{"matches", []any{r(0, 1, 2, 3)}, "len", int64(2)},
				"LCS", "b3", "a3", "IDX"),
			// Missing and empty keys are empty strings.
			sstep("", "LCS", "key1", "missing"),
			sstep(int64(0), "LCS", "missing", "missing2", "LEN"),
			sstep([]any{"matches", []any{}, "len", int64(0)}, "LCS", "missing", "key1", "IDX"),
			sstep([]any{"matches", []any{}, "len", int64(0)}, "LCS", "e", "key1", "IDX"),
			sstep("", "LCS", "key1", "e"),
			// Errors.
			sstep(strErr("ERR If you want both the length and indexes, please just use IDX."),
				"LCS", "key1", "key2", "LEN", "IDX"),
			sstep(strSyntaxErr, "LCS", "key1", "key2", "IDX", "LEN", "FOO"),
			sstep(strSyntaxErr, "LCS", "key1", "key2", "FOO"),
			sstep(strSyntaxErr, "LCS", "key1", "key2", "IDX", "MINMATCHLEN"),
			sstep(strNotInt, "LCS", "key1", "key2", "IDX", "MINMATCHLEN", "abc"),
			sstep(strNotInt, "LCS", "key1", "key2", "IDX", "MINMATCHLEN", "abc", "FOO"),
			sstep(strSyntaxErr, "LCS", "key1", "key2", "FOO", "MINMATCHLEN", "abc"),
			// The keys' types are checked before the options are parsed.
			sstep(int64(1), "HSET", "h", "f", "v"),
			sstep(strLCSWrongType, "LCS", "h", "key1"),
			sstep(strLCSWrongType, "LCS", "key1", "h", "LEN"),
			sstep(strLCSWrongType, "LCS", "h", "key1", "FOO"),
			sstep(strLCSWrongType, "LCS", "h", "missing", "IDX", "LEN"),
		})
	})
}

// strLCSLength is the length of the longest common subsequence of a and b,
// by the textbook recurrence.
func strLCSLength(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			if a[i-1] == b[j-1] {
				cur[j] = prev[j-1] + 1
			} else {
				cur[j] = max(prev[j], cur[j-1])
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// strIsSubsequence reports whether s is a subsequence of t.
func strIsSubsequence(s, t string) bool {
	for i := 0; i < len(t) && len(s) > 0; i++ {
		if t[i] == s[0] {
			s = s[1:]
		}
	}
	return s == ""
}

func TestLCSRandomStringsAreConsistent(t *testing.T) {
	ts := startServer(t)
	c := ts.client(t, 2)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 11))
	for i := range 200 {
		gen := func() string {
			b := make([]byte, rng.IntN(40))
			for j := range b {
				b[j] = "ab\x00\xff"[rng.IntN(4)]
			}
			return string(b)
		}
		a, b := gen(), gen()
		strDo(t, c, "MSET", "a", a, "b", b)
		want := strLCSLength(a, b)
		common := strDo(t, c, "LCS", "a", "b").(string)
		n := strDo(t, c, "LCS", "a", "b", "LEN").(int64)
		if len(common) != want || n != int64(want) || !strIsSubsequence(common, a) || !strIsSubsequence(common, b) {
			t.Fatalf("case %d: LCS(%q, %q) = %q, LEN %d; want a common subsequence of length %d", i, a, b, common, n, want)
		}
		reply, err := c.Do(ctx, "LCS", "a", "b", "IDX", "WITHMATCHLEN").Slice()
		if err != nil || len(reply) != 4 || reply[0] != "matches" || reply[3] != int64(want) {
			t.Fatalf("case %d: LCS IDX = %#v, %v", i, reply, err)
		}
		// The ranges run backwards through both strings, do not overlap,
		// cover equal bytes, and their bytes in order are the LCS.
		var joined []string
		lastA, lastB := int64(len(a)), int64(len(b))
		for _, m := range reply[1].([]any) {
			m := m.([]any)
			ra, rb, l := m[0].([]any), m[1].([]any), m[2].(int64)
			a0, a1, b0, b1 := ra[0].(int64), ra[1].(int64), rb[0].(int64), rb[1].(int64)
			if a1-a0+1 != l || b1-b0+1 != l || a1 >= lastA || b1 >= lastB || a0 < 0 || b0 < 0 || a[a0:a1+1] != b[b0:b1+1] {
				t.Fatalf("case %d: LCS(%q, %q) IDX has a bad range %v", i, a, b, m)
			}
			lastA, lastB = a0, b0
			joined = append([]string{a[a0 : a1+1]}, joined...)
		}
		if strings.Join(joined, "") != common {
			t.Fatalf("case %d: LCS(%q, %q) IDX ranges spell %q, not %q", i, a, b, strings.Join(joined, ""), common)
		}
	}
}

func TestStringCommandsOnWrongType(t *testing.T) {
	bothProtocols(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		strRun(t, c, []strStep{
			sstep(int64(1), "HSET", "h", "f", "v"),
			sstep(strWrongType, "GET", "h"),
			sstep(strWrongType, "STRLEN", "h"),
			sstep(strWrongType, "APPEND", "h", "x"),
			sstep(strWrongType, "SETRANGE", "h", "0", "x"),
			sstep(strWrongType, "SETRANGE", "h", "0", ""),
			sstep(strWrongType, "GETRANGE", "h", "0", "-1"),
			sstep(strWrongType, "SUBSTR", "h", "0", "-1"),
			sstep(strWrongType, "INCR", "h"),
			sstep(strWrongType, "DECR", "h"),
			sstep(strWrongType, "INCRBY", "h", "1"),
			sstep(strWrongType, "DECRBY", "h", "1"),
			sstep(strWrongType, "INCRBYFLOAT", "h", "1"),
			sstep(strWrongType, "GETSET", "h", "x"),
			sstep(strWrongType, "GETDEL", "h"),
			sstep(strWrongType, "GETEX", "h"),
			sstep(strWrongType, "SET", "h", "x", "GET"),
			sstep(strWrongType, "SET", "h", "x", "NX", "GET"),
			sstep(strWrongType, "SET", "h", "x", "XX", "GET"),
			// Argument errors found before the lookup come first.
			sstep(strNotInt, "INCRBY", "h", "x"),
			sstep(strErr("ERR decrement would overflow"), "DECRBY", "h", "-9223372036854775808"),
			sstep(strErr("ERR offset is out of range"), "SETRANGE", "h", "-1", "x"),
			sstep(strNotInt, "GETRANGE", "h", "a", "b"),
			sstep(strSyntaxErr, "SET", "h", "x", "FOO", "GET"),
			// The failures left the hash alone.
			sstep("hash", "TYPE", "h"),
			sstep("v", "HGET", "h", "f"),
			// Without GET, SET replaces a key of any type.
			sstep(strNil{}, "SET", "h", "x", "NX"),
			sstep("hash", "TYPE", "h"),
			sstep("OK", "SET", "h", "x", "XX"),
			sstep("string", "TYPE", "h"),
			sstep("x", "GET", "h"),
			sstep(int64(1), "DEL", "h"),
			sstep(int64(1), "HSET", "h", "f", "v"),
			sstep("OK", "SET", "h", "y"),
			sstep("y", "GET", "h"),
		})
	})
}

func TestStringValuesAreBinarySafe(t *testing.T) {
	bothProtocols(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		all := make([]byte, 256)
		for i := range all {
			all[i] = byte(i)
		}
		v := string(all) + "\r\n$3\r\n*1\r\n"
		key := "k\x00\r\n\xff"
		strRun(t, c, []strStep{
			sstep("OK", "SET", key, v),
			sstep(v, "GET", key),
			sstep(int64(len(v)), "STRLEN", key),
			sstep(int64(len(v)+3), "APPEND", key, "\x00\r\n"),
			sstep(v+"\x00\r\n", "GET", key),
			sstep(v[10:20], "GETRANGE", key, "10", "19"),
			sstep(int64(len(v)+3), "SETRANGE", key, "0", "\r\n\x00"),
			sstep("\r\n\x00"+v[3:]+"\x00\r\n", "GET", key),
			sstep("OK", "MSET", "a\x00", "\x00\x01", "a\x00b", "\x00\x02"),
			sstep([]any{"\x00\x01", "\x00\x02", nil}, "MGET", "a\x00", "a\x00b", "a"),
			sstep("\x00", "LCS", "a\x00", "a\x00b"),
			sstep("\x00\x01", "GETDEL", "a\x00"),
			sstep([]any{nil, "\x00\x02"}, "MGET", "a\x00", "a\x00b"),
		})
	})
}

// strStats reads INFO stats' keyspace hits and misses.
func strStats(t *testing.T, c *redis.Client) (hits, misses int64) {
	t.Helper()
	info := c.Info(context.Background(), "stats").Val()
	for line := range strings.SplitSeq(info, "\r\n") {
		k, v, _ := strings.Cut(line, ":")
		n, _ := strconv.ParseInt(v, 10, 64)
		switch k {
		case "keyspace_hits":
			hits = n
		case "keyspace_misses":
			misses = n
		}
	}
	return hits, misses
}

func TestStringReadsCountKeyspaceHitsAndMisses(t *testing.T) {
	ts := startServer(t)
	c := ts.client(t, 2)
	strDo(t, c, "SET", "a", "1")
	strDo(t, c, "HSET", "h", "f", "v")
	// Each command and how many hits and misses Redis 7.0 counts for it.
	cases := []struct {
		args         []any
		hits, misses int64
	}{
		{[]any{"GET", "a"}, 1, 0},
		{[]any{"GET", "nope"}, 0, 1},
		{[]any{"GET", "h"}, 1, 0},
		{[]any{"GETEX", "a"}, 1, 0},
		{[]any{"GETEX", "nope"}, 0, 1},
		{[]any{"GETEX", "a", "PERSIST"}, 1, 0},
		{[]any{"GETEX", "a", "EX", "abc"}, 1, 0},
		{[]any{"SET", "a", "2", "GET"}, 1, 0},
		{[]any{"SET", "b", "2", "GET"}, 0, 1},
		{[]any{"SET", "h", "2", "GET"}, 1, 0},
		{[]any{"SET", "a", "3"}, 0, 0},
		{[]any{"GETSET", "a", "3"}, 1, 0},
		{[]any{"GETSET", "c", "3"}, 0, 1},
		{[]any{"GETDEL", "c"}, 1, 0},
		{[]any{"GETDEL", "c"}, 0, 1},
		{[]any{"MGET", "a", "nope", "b"}, 2, 1},
		{[]any{"STRLEN", "a"}, 1, 0},
		{[]any{"STRLEN", "nope"}, 0, 1},
		{[]any{"GETRANGE", "a", "0", "1"}, 1, 0},
		{[]any{"GETRANGE", "nope", "0", "1"}, 0, 1},
		{[]any{"LCS", "a", "b"}, 2, 0},
		{[]any{"LCS", "a", "nope"}, 1, 1},
		{[]any{"LCS", "h", "a"}, 2, 0},
		{[]any{"INCR", "a"}, 0, 0},
		{[]any{"APPEND", "a", "x"}, 0, 0},
		{[]any{"SETRANGE", "a", "0", "y"}, 0, 0},
		{[]any{"INCRBYFLOAT", "b", "1"}, 0, 0},
		{[]any{"SETNX", "a", "1"}, 0, 0},
		{[]any{"MSETNX", "a", "1"}, 0, 0},
	}
	for _, tc := range cases {
		h0, m0 := strStats(t, c)
		_ = c.Do(context.Background(), tc.args...).Err()
		h1, m1 := strStats(t, c)
		if h1-h0 != tc.hits || m1-m0 != tc.misses {
			t.Errorf("%q counted %d hits, %d misses; want %d, %d", tc.args, h1-h0, m1-m0, tc.hits, tc.misses)
		}
	}
}

func TestStringCommandsAreAtomicUnderConcurrency(t *testing.T) {
	ts := startServer(t)
	const clients, rounds = 8, 100
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := ts.client(t, 2+i%2)
			ctx := context.Background()
			for range rounds {
				if err := c.Incr(ctx, "n").Err(); err != nil {
					errs <- err
					return
				}
				if err := c.IncrByFloat(ctx, "f", 0.5).Err(); err != nil {
					errs <- err
					return
				}
				if err := c.Append(ctx, "s", "x").Err(); err != nil {
					errs <- err
					return
				}
				if err := c.DecrBy(ctx, "d", 2).Err(); err != nil {
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
	c := ts.client(t, 2)
	strRun(t, c, []strStep{
		sstep(int64(clients*rounds), "STRLEN", "s"),
		sstep(strconv.Itoa(clients*rounds), "GET", "n"),
		sstep(strconv.Itoa(clients*rounds/2), "GET", "f"),
		sstep(strconv.Itoa(-2*clients*rounds), "GET", "d"),
	})
}

// strWire is a raw connection for checking replies byte for byte.
type strWire struct {
	t  *testing.T
	nc io.Writer
	r  *bufio.Reader
}

func strWireConn(t *testing.T, ts *testServer, proto int) *strWire {
	nc := ts.raw(t)
	w := &strWire{t: t, nc: nc, r: bufio.NewReader(nc)}
	if proto == 3 {
		if got := w.do("HELLO", "3"); !strings.HasPrefix(got, "%") {
			t.Fatalf("HELLO 3 = %q", got)
		}
	}
	return w
}

// do sends a command and returns its whole reply as it came on the wire.
func (w *strWire) do(args ...string) string {
	w.t.Helper()
	var b bytes.Buffer
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := w.nc.Write(b.Bytes()); err != nil {
		w.t.Fatal(err)
	}
	var out strings.Builder
	w.read(&out)
	return out.String()
}

// read copies one reply (with its nested elements) to out.
func (w *strWire) read(out *strings.Builder) {
	w.t.Helper()
	line, err := w.r.ReadString('\n')
	if err != nil {
		w.t.Fatalf("reading a reply: %v (so far %q)", err, out.String())
	}
	out.WriteString(line)
	body := strings.TrimSuffix(line[1:], "\r\n")
	switch line[0] {
	case '$', '=', '!':
		n, _ := strconv.Atoi(body)
		if n < 0 {
			return
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(w.r, buf); err != nil {
			w.t.Fatal(err)
		}
		out.Write(buf)
	case '*', '~', '>':
		n, _ := strconv.Atoi(body)
		for range n {
			w.read(out)
		}
	case '%', '|':
		n, _ := strconv.Atoi(body)
		for range 2 * n {
			w.read(out)
		}
	}
}

func TestStringRepliesOnTheWire(t *testing.T) {
	bulk := func(s string) string { return "$" + strconv.Itoa(len(s)) + "\r\n" + s + "\r\n" }
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) {
			ts := startServer(t)
			w := strWireConn(t, ts, proto)
			null, idxHead := "$-1\r\n", "*4\r\n"
			if proto == 3 {
				null, idxHead = "_\r\n", "%2\r\n"
			}
			steps := []struct {
				args []string
				want string
			}{
				{[]string{"GET", "k"}, null},
				{[]string{"SET", "k", "v"}, "+OK\r\n"},
				{[]string{"SET", "k", "v", "NX"}, null},
				{[]string{"SET", "k", "w", "GET"}, bulk("v")},
				{[]string{"SET", "n", "1", "GET"}, null},
				{[]string{"SET", "k", "v", "XX", "NX"}, "-ERR syntax error\r\n"},
				{[]string{"GET", "k"}, bulk("w")},
				{[]string{"SETNX", "k", "v"}, ":0\r\n"},
				{[]string{"SETEX", "k", "10", "x"}, "+OK\r\n"},
				{[]string{"GETEX", "k", "PERSIST"}, bulk("x")},
				{[]string{"GETDEL", "nope"}, null},
				{[]string{"MSET", "a", "1", "b", "2"}, "+OK\r\n"},
				{[]string{"MGET", "a", "nope", "b"}, "*3\r\n" + bulk("1") + null + bulk("2")},
				{[]string{"MSETNX", "a", "1"}, ":0\r\n"},
				{[]string{"INCR", "a"}, ":2\r\n"},
				{[]string{"DECRBY", "a", "5"}, ":-3\r\n"},
				// INCRBYFLOAT replies with a bulk string, not a RESP3 double.
				{[]string{"INCRBYFLOAT", "a", "0.5"}, bulk("-2.5")},
				{[]string{"APPEND", "a", "x"}, ":5\r\n"},
				{[]string{"STRLEN", "a"}, ":5\r\n"},
				{[]string{"GETRANGE", "a", "0", "1"}, bulk("-2")},
				{[]string{"GETRANGE", "nope", "0", "1"}, bulk("")},
				{[]string{"SETRANGE", "a", "0", "+"}, ":5\r\n"},
				{[]string{"MSET", "x", "ohmytext", "y", "mynewtext"}, "+OK\r\n"},
				{[]string{"LCS", "x", "y"}, bulk("mytext")},
				{[]string{"LCS", "x", "y", "LEN"}, ":6\r\n"},
				{[]string{"LCS", "x", "y", "IDX", "MINMATCHLEN", "4", "WITHMATCHLEN"},
					idxHead + bulk("matches") + "*1\r\n*3\r\n*2\r\n:4\r\n:7\r\n*2\r\n:5\r\n:8\r\n:4\r\n" + bulk("len") + ":6\r\n"},
				{[]string{"LCS", "x", "nope", "IDX"}, idxHead + bulk("matches") + "*0\r\n" + bulk("len") + ":0\r\n"},
			}
			for i, s := range steps {
				if got := w.do(s.args...); got != s.want {
					t.Fatalf("step %d: %q = %q, want %q", i, s.args, got, s.want)
				}
			}
		})
	}
}

// FuzzStringOptions checks parseStringOpts against the rules of Redis's
// parseExtendedStringArgumentsOrReply: what it accepts is consistent, the
// expiry it keeps is the argument after the last expiry keyword, and any
// unknown word makes the whole list a syntax error.
func FuzzStringOptions(f *testing.F) {
	for _, s := range []string{"", "NX", "XX", "NX XX", "GET", "KEEPTTL", "EX 10", "PX 10 EX 1",
		"ex 1 EX 2", "EX abc EX 3", "KEEPTTL EX 1", "EX 1 KEEPTTL", "PERSIST", "PERSIST EX 1",
		"EX", "EXAT 1 EXAT", "NX GET KEEPTTL XX", "pxat 9 PXAT 8 get nx", "GET GET KEEPTTL KEEPTTL"} {
		f.Add(s, true)
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, line string, set bool) {
		var args [][]byte
		for w := range strings.FieldsSeq(line) {
			args = append(args, []byte(w))
		}
		o, ok := parseStringOpts(args, set)
		if !ok {
			return
		}
		if set && o.persist || !set && (o.get || o.keepTTL || o.cond != 0) {
			t.Fatalf("%q (set %v): an option of the other command was accepted: %+v", line, set, o)
		}
		if o.expire != nil && (o.keepTTL || o.persist) {
			t.Fatalf("%q: an expiry together with KEEPTTL or PERSIST: %+v", line, o)
		}
		var lastExpire []byte
		for i := 0; i < len(args); i++ {
			switch strings.ToUpper(string(args[i])) {
			case "EX", "PX", "EXAT", "PXAT":
				if i+1 >= len(args) {
					t.Fatalf("%q: accepted an expiry keyword without a value", line)
				}
				i++
				lastExpire = args[i]
			}
		}
		if !bytes.Equal(o.expire, lastExpire) {
			t.Fatalf("%q: kept expiry %q, want %q", line, o.expire, lastExpire)
		}
		if _, ok := parseStringOpts(append(args, []byte("BOGUS")), set); ok {
			t.Fatalf("%q BOGUS was accepted", line)
		}
	})
}

// FuzzIncrByFloat checks INCRBYFLOAT over the protocol: an error leaves the
// value alone; a result is a plain decimal close to the float64 sum, and
// adding 0 to it gives it back unchanged.
func FuzzIncrByFloat(f *testing.F) {
	for _, s := range [][2]string{{"0", "1.5"}, {"10.5", "0.1"}, {"1e17", "123456789.123456789"},
		{"1e308", "1e308"}, {"1.1e4932", "1e4931"}, {"0x1p-3", "0X.8P1"}, {"-5", "5"}, {"inf", "1"},
		{"1", "nan"}, {"abc", "1"}, {"1", " 1"}, {"9223372036854775807", "0.5"}, {"1e-400", "-1e-20"},
		{"0e99999999", ".5"}, {"5.", "+1"}, {"-0", "-0"}, {"1.23456789012345678901234567890", "0"}} {
		f.Add(s[0], s[1])
	}
	ts := startServer(f)
	c := ts.client(f, 2)
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, cur, delta string) {
		if err := c.Set(ctx, "f", cur, 0).Err(); err != nil {
			t.Fatal(err)
		}
		got, err := c.Do(ctx, "INCRBYFLOAT", "f", delta).Text()
		if err != nil {
			switch err.Error() {
			case string(strNotFloat), string(strNaNOrInf):
			default:
				t.Fatalf("INCRBYFLOAT %q by %q: %v", cur, delta, err)
			}
			if v := c.Get(ctx, "f").Val(); v != cur {
				t.Fatalf("a failed INCRBYFLOAT %q by %q changed the value to %q", cur, delta, v)
			}
			return
		}
		intPart, frac, hasPoint := strings.Cut(strings.TrimPrefix(got, "-"), ".")
		if intPart == "" || strings.Trim(intPart, "0123456789") != "" || strings.Trim(frac, "0123456789") != "" ||
			hasPoint && (frac == "" || len(frac) > 17 || strings.HasSuffix(frac, "0")) || got == "-0" {
			t.Fatalf("INCRBYFLOAT %q by %q = %q: not a plain decimal", cur, delta, got)
		}
		a, errA := strconv.ParseFloat(cur, 64)
		b, errB := strconv.ParseFloat(delta, 64)
		r, errR := strconv.ParseFloat(got, 64)
		if errA == nil && errB == nil && errR == nil && !math.IsInf(a+b, 0) && !math.IsNaN(a+b) {
			if tol := (math.Abs(a)+math.Abs(b)+math.Abs(r))*1e-15 + 1e-16; math.Abs(r-(a+b)) > tol {
				t.Fatalf("INCRBYFLOAT %q by %q = %q; float64 says %v", cur, delta, got, a+b)
			}
		}
		if again, err := c.Do(ctx, "INCRBYFLOAT", "f", "0").Text(); err != nil || again != got {
			t.Fatalf("INCRBYFLOAT %q by 0 = %q, %v; want it unchanged", got, again, err)
		}
	})
}
