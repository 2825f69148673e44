package server

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// The set tests' step tables; see steps_test.go.
type (
	setErr      = replyErr
	setNull     = replyNull
	setAnyOrder = replyAnyOrder
	setCheck    = replyCheck
	setStep     = step
)

const setWrongType = setErr("WRONGTYPE Operation against a key holding the wrong kind of value")

func setArity(name string) setErr {
	return setErr("ERR wrong number of arguments for '" + name + "' command")
}

func setDo(t *testing.T, c *redis.Client, args ...any) any {
	t.Helper()
	v, err := c.Do(context.Background(), args...).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		t.Fatalf("%q: %v", args, err)
	}
	return v
}

func setMembers(t *testing.T, c *redis.Client, key string) []string {
	t.Helper()
	ms, err := c.SMembers(context.Background(), key).Result()
	if err != nil {
		t.Fatalf("SMEMBERS %s: %v", key, err)
	}
	slices.Sort(ms)
	return ms
}

// setFill adds n members named by name(i), in commands of 1,000.
func setFill(t *testing.T, c *redis.Client, key string, n int, name func(i int) string) {
	t.Helper()
	for lo := 0; lo < n; lo += 1000 {
		args := []any{"SADD", key}
		for i := lo; i < min(n, lo+1000); i++ {
			args = append(args, name(i))
		}
		setDo(t, c, args...)
	}
}

// setMembersOfCheck accepts an array whose elements are distinct members
// of want, n of them.
func setDistinctOf(n int, want ...string) setCheck {
	return func(reply any) string {
		got, ok := replyStrings(reply)
		if !ok || len(got) != n {
			return fmt.Sprintf("got %#v; want %d members", reply, n)
		}
		seen := map[string]bool{}
		for _, m := range got {
			if seen[m] || !slices.Contains(want, m) {
				return fmt.Sprintf("got %q: %q repeated or not a member of %q", got, m, want)
			}
			seen[m] = true
		}
		return ""
	}
}

// setDrawsOf accepts an array of n elements, each a member of want.
func setDrawsOf(n int, want ...string) setCheck {
	return func(reply any) string {
		got, ok := replyStrings(reply)
		if !ok || len(got) != n {
			return fmt.Sprintf("got %#v; want %d draws", reply, n)
		}
		for _, m := range got {
			if !slices.Contains(want, m) {
				return fmt.Sprintf("%q is not a member of %q", m, want)
			}
		}
		return ""
	}
}

func TestSetBasicCommands(t *testing.T) {
	bothProtocols(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		runSteps(t, c, []setStep{
			stepOf(int64(3), "SADD", "s", "a", "b", "c"),
			stepOf(int64(1), "SADD", "s", "a", "d", "d"),
			stepOf(int64(0), "SADD", "s", "a"),
			stepOf("set", "TYPE", "s"),
			stepOf(int64(4), "SCARD", "s"),
			stepOf(int64(0), "SCARD", "nokey"),
			stepOf(int64(1), "SISMEMBER", "s", "a"),
			stepOf(int64(0), "SISMEMBER", "s", "z"),
			stepOf(int64(0), "SISMEMBER", "nokey", "a"),
			stepOf([]any{int64(1), int64(0), int64(1)}, "SMISMEMBER", "s", "a", "z", "d"),
			stepOf([]any{int64(0), int64(0)}, "SMISMEMBER", "nokey", "a", "b"),
			stepOf(setAnyOrder{"a", "b", "c", "d"}, "SMEMBERS", "s"),
			stepOf(setAnyOrder{}, "SMEMBERS", "nokey"),
			stepOf(int64(2), "SREM", "s", "a", "z", "b", "a"),
			stepOf(int64(0), "SREM", "nokey", "a"),
			stepOf(setAnyOrder{"c", "d"}, "SMEMBERS", "s"),
			// Empty and binary members are members like any other.
			stepOf(int64(2), "SADD", "s", "", "\x00\xff"),
			stepOf(int64(1), "SISMEMBER", "s", ""),
			stepOf(setAnyOrder{"", "\x00\xff", "c", "d"}, "SMEMBERS", "s"),
			// A set emptied by SREM disappears.
			stepOf(int64(4), "SREM", "s", "c", "d", "", "\x00\xff"),
			stepOf(int64(0), "EXISTS", "s"),
			stepOf("none", "TYPE", "s"),
		})
	})
}

// setOtherTypes makes str a string and h a hash.
func setOtherTypes(t *testing.T, c *redis.Client) {
	t.Helper()
	setDo(t, c, "SET", "str", "x")
	setDo(t, c, "HSET", "h", "f", "v")
}

func TestSetCommandsAgainstTheWrongType(t *testing.T) {
	bothProtocols(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		setOtherTypes(t, c)
		setDo(t, c, "SADD", "s", "a")
		for _, k := range []string{"str", "h"} {
			runSteps(t, c, []setStep{
				stepOf(setWrongType, "SADD", k, "a"),
				stepOf(setWrongType, "SREM", k, "a"),
				stepOf(setWrongType, "SISMEMBER", k, "a"),
				stepOf(setWrongType, "SMISMEMBER", k, "a"),
				stepOf(setWrongType, "SMEMBERS", k),
				stepOf(setWrongType, "SCARD", k),
				stepOf(setWrongType, "SPOP", k),
				stepOf(setWrongType, "SPOP", k, "0"),
				stepOf(setWrongType, "SPOP", k, "3"),
				stepOf(setWrongType, "SRANDMEMBER", k),
				stepOf(setWrongType, "SRANDMEMBER", k, "0"),
				stepOf(setWrongType, "SRANDMEMBER", k, "-3"),
				stepOf(setWrongType, "SMOVE", k, "s", "a"),
				stepOf(setWrongType, "SMOVE", "s", k, "a"),
				stepOf(setWrongType, "SINTER", k),
				// Every key's type is checked, even after an absent one.
				stepOf(setWrongType, "SINTER", "nokey", k),
				stepOf(setWrongType, "SINTER", "s", "nokey", k),
				stepOf(setWrongType, "SINTERCARD", "2", "nokey", k),
				stepOf(setWrongType, "SINTERSTORE", "d", "nokey", k),
				stepOf(setWrongType, "SUNION", "s", k),
				stepOf(setWrongType, "SUNIONSTORE", "d", "s", k),
				stepOf(setWrongType, "SDIFF", "nokey", k),
				stepOf(setWrongType, "SDIFF", "s", k),
				stepOf(setWrongType, "SDIFFSTORE", "d", "nokey", k),
				stepOf(setWrongType, "SSCAN", k, "0"),
				// The type is checked before SSCAN's options.
				stepOf(setWrongType, "SSCAN", k, "0", "COUNT", "0"),
			})
		}
		// Nothing above changed anything.
		runSteps(t, c, []setStep{
			stepOf("x", "GET", "str"),
			stepOf("v", "HGET", "h", "f"),
			stepOf(setAnyOrder{"a"}, "SMEMBERS", "s"),
			stepOf(int64(0), "EXISTS", "d"),
		})
	})
}

func TestSetArgumentErrors(t *testing.T) {
	bothProtocols(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		setDo(t, c, "SADD", "s", "a", "b", "c")
		runSteps(t, c, []setStep{
			stepOf(setArity("sadd"), "SADD", "s"),
			stepOf(setArity("srem"), "SREM", "s"),
			stepOf(setArity("sismember"), "SISMEMBER", "s"),
			stepOf(setArity("sismember"), "SISMEMBER", "s", "a", "b"),
			stepOf(setArity("smismember"), "SMISMEMBER", "s"),
			stepOf(setArity("smembers"), "SMEMBERS", "s", "x"),
			stepOf(setArity("scard"), "SCARD"),
			stepOf(setArity("spop"), "SPOP"),
			stepOf(setArity("srandmember"), "SRANDMEMBER"),
			stepOf(setArity("smove"), "SMOVE", "s", "d"),
			stepOf(setArity("sinter"), "SINTER"),
			stepOf(setArity("sintercard"), "SINTERCARD", "1"),
			stepOf(setArity("sinterstore"), "SINTERSTORE", "d"),
			stepOf(setArity("sunion"), "SUNION"),
			stepOf(setArity("sunionstore"), "SUNIONSTORE", "d"),
			stepOf(setArity("sdiff"), "SDIFF"),
			stepOf(setArity("sdiffstore"), "SDIFFSTORE", "d"),
			stepOf(setArity("sscan"), "SSCAN", "s"),

			// SPOP's count: one message for a negative count and for no
			// number, checked before the key's type.
			stepOf(setErr("ERR syntax error"), "SPOP", "s", "1", "2"),
			stepOf(setErr("ERR value is out of range, must be positive"), "SPOP", "s", "-1"),
			stepOf(setErr("ERR value is out of range, must be positive"), "SPOP", "s", "abc"),
			stepOf(setErr("ERR value is out of range, must be positive"), "SPOP", "s", "9223372036854775808"),
			stepOf(setErr("ERR value is out of range, must be positive"), "SPOP", "str", "-1"),
			// SRANDMEMBER's count.
			stepOf(setErr("ERR syntax error"), "SRANDMEMBER", "s", "1", "2"),
			stepOf(setErr("ERR value is not an integer or out of range"), "SRANDMEMBER", "s", "abc"),
			stepOf(setErr("ERR value is not an integer or out of range"), "SRANDMEMBER", "s", "-0"),
			stepOf(setErr("ERR value is not an integer or out of range"), "SRANDMEMBER", "s", "9223372036854775808"),
			stepOf(setErr("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807"), "SRANDMEMBER", "s", "-9223372036854775808"),
			stepOf(setErr("ERR value is not an integer or out of range"), "SRANDMEMBER", "str", "abc"),

			// SINTERCARD.
			stepOf(setErr("ERR numkeys should be greater than 0"), "SINTERCARD", "0", "s"),
			stepOf(setErr("ERR numkeys should be greater than 0"), "SINTERCARD", "-1", "s"),
			stepOf(setErr("ERR numkeys should be greater than 0"), "SINTERCARD", "abc", "s"),
			stepOf(setErr("ERR Number of keys can't be greater than number of args"), "SINTERCARD", "2", "s"),
			stepOf(setErr("ERR Number of keys can't be greater than number of args"), "SINTERCARD", "3", "s", "s"),
			stepOf(setErr("ERR LIMIT can't be negative"), "SINTERCARD", "1", "s", "LIMIT", "-1"),
			stepOf(setErr("ERR LIMIT can't be negative"), "SINTERCARD", "1", "s", "LIMIT", "abc"),
			stepOf(setErr("ERR LIMIT can't be negative"), "SINTERCARD", "1", "s", "LIMIT", "9223372036854775808"),
			stepOf(setErr("ERR syntax error"), "SINTERCARD", "1", "s", "LIMIT"),
			stepOf(setErr("ERR syntax error"), "SINTERCARD", "1", "s", "FOO", "1"),
			// Options are read before the keys are looked at.
			stepOf(setErr("ERR LIMIT can't be negative"), "SINTERCARD", "1", "str", "LIMIT", "-1"),

			// SSCAN.
			stepOf(setErr("ERR invalid cursor"), "SSCAN", "s", "abc"),
			stepOf(setErr("ERR invalid cursor"), "SSCAN", "s", "18446744073709551616"),
			stepOf(setErr("ERR invalid cursor"), "SSCAN", "nokey", "1x"),
			stepOf(setErr("ERR syntax error"), "SSCAN", "s", "0", "COUNT", "0"),
			stepOf(setErr("ERR syntax error"), "SSCAN", "s", "0", "COUNT", "-1"),
			stepOf(setErr("ERR value is not an integer or out of range"), "SSCAN", "s", "0", "COUNT", "abc"),
			stepOf(setErr("ERR syntax error"), "SSCAN", "s", "0", "MATCH"),
			stepOf(setErr("ERR syntax error"), "SSCAN", "s", "0", "NOVALUES"),
			stepOf(setErr("ERR syntax error"), "SSCAN", "s", "0", "TYPE", "string"),
			// An absent key answers before the options are read.
			stepOf([]any{"0", []any{}}, "SSCAN", "nokey", "0", "COUNT", "0"),
		})
	})
}

// TestSetReplyTypes checks the exact bytes of replies whose RESP type
// differs between the commands: SMEMBERS, SPOP with a count and the set
// algebra are RESP3 sets, SRANDMEMBER with a count an array, as in Redis 7.
func TestSetReplyTypes(t *testing.T) {
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) {
			ts := startServer(t)
			rc := ts.wireProto(t, proto)
			set, null := "~", "_\r\n"
			if proto == 2 {
				set, null = "*", "$-1\r\n"
			}
			rc.do("SADD", "s", "a")
			rc.do("SADD", "t", "a")
			tests := []struct {
				args []string
				want string
			}{
				{[]string{"SMEMBERS", "s"}, set + "1\r\n$1\r\na\r\n"},
				{[]string{"SMEMBERS", "nokey"}, set + "0\r\n"},
				{[]string{"SINTER", "s", "t"}, set + "1\r\n$1\r\na\r\n"},
				{[]string{"SINTER", "s", "nokey"}, set + "0\r\n"},
				{[]string{"SUNION", "s", "t"}, set + "1\r\n$1\r\na\r\n"},
				{[]string{"SDIFF", "s", "t"}, set + "0\r\n"},
				{[]string{"SRANDMEMBER", "s", "1"}, "*1\r\n$1\r\na\r\n"},
				{[]string{"SRANDMEMBER", "s", "-2"}, "*2\r\n$1\r\na\r\n$1\r\na\r\n"},
				{[]string{"SRANDMEMBER", "s", "0"}, "*0\r\n"},
				{[]string{"SRANDMEMBER", "nokey", "3"}, "*0\r\n"},
				{[]string{"SRANDMEMBER", "nokey", "-3"}, "*0\r\n"},
				{[]string{"SRANDMEMBER", "nokey"}, null},
				{[]string{"SRANDMEMBER", "s"}, "$1\r\na\r\n"},
				{[]string{"SMISMEMBER", "s", "a", "b"}, "*2\r\n:1\r\n:0\r\n"},
				{[]string{"SISMEMBER", "s", "a"}, ":1\r\n"},
				{[]string{"SINTERCARD", "2", "s", "t"}, ":1\r\n"},
				{[]string{"SSCAN", "s", "0"}, "*2\r\n$1\r\n0\r\n*1\r\n$1\r\na\r\n"},
				{[]string{"SSCAN", "nokey", "0"}, "*2\r\n$1\r\n0\r\n*0\r\n"},
				{[]string{"SPOP", "nokey"}, null},
				{[]string{"SPOP", "nokey", "2"}, set + "0\r\n"},
				{[]string{"SPOP", "s", "0"}, set + "0\r\n"},
				{[]string{"SPOP", "s", "5"}, set + "1\r\n$1\r\na\r\n"},
				{[]string{"EXISTS", "s"}, ":0\r\n"},
				{[]string{"SPOP", "t"}, "$1\r\na\r\n"},
			}
			for _, tt := range tests {
				if got := rc.do(tt.args...); got != tt.want {
					t.Errorf("%q = %q, want %q", tt.args, got, tt.want)
				}
			}
		})
	}
}

func TestSetPopAndRandMember(t *testing.T) {
	bothProtocols(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		small := []string{"a", "b", "c", "d", "e"}
		setDo(t, c, append([]any{"SADD", "s"}, "a", "b", "c", "d", "e")...)
		runSteps(t, c, []setStep{
			stepOf(setDistinctOf(3, small...), "SRANDMEMBER", "s", "3"),
			stepOf(setDistinctOf(5, small...), "SRANDMEMBER", "s", "5"),
			stepOf(setDistinctOf(5, small...), "SRANDMEMBER", "s", "9223372036854775807"),
			stepOf(setDrawsOf(20, small...), "SRANDMEMBER", "s", "-20"),
			stepOf(setDrawsOf(1, small...), "SRANDMEMBER", "s", "-1"),
			stepOf([]any{}, "SRANDMEMBER", "s", "0"),
			stepOf(int64(5), "SCARD", "s"),
		})
		popped := setDo(t, c, "SPOP", "s", "2")
		got, ok := replyStrings(popped)
		if !ok || len(got) != 2 || got[0] == got[1] {
			t.Fatalf("SPOP s 2 = %#v", popped)
		}
		left := setMembers(t, c, "s")
		if len(left) != 3 {
			t.Fatalf("%d members left after popping 2 of 5", len(left))
		}
		for _, m := range got {
			if slices.Contains(left, m) {
				t.Fatalf("%q popped but still a member", m)
			}
		}
		one := setDo(t, c, "SPOP", "s")
		if m, ok := one.(string); !ok || !slices.Contains(left, m) {
			t.Fatalf("SPOP s = %#v, members were %q", one, left)
		}
		runSteps(t, c, []setStep{
			stepOf(setDistinctOf(2, left...), "SPOP", "s", "10"),
			stepOf(int64(0), "EXISTS", "s"),
			stepOf(setNull{}, "SPOP", "s"),
			stepOf(setNull{}, "SRANDMEMBER", "s"),
		})

		// A set too big to read whole is sampled.
		setFill(t, c, "big", 3000, func(i int) string { return strconv.Itoa(i) })
		all := make([]string, 3000)
		for i := range all {
			all[i] = strconv.Itoa(i)
		}
		runSteps(t, c, []setStep{
			stepOf(setDistinctOf(10, all...), "SRANDMEMBER", "big", "10"),
			stepOf(setDistinctOf(1500, all...), "SRANDMEMBER", "big", "1500"),
			stepOf(setDrawsOf(20, all...), "SRANDMEMBER", "big", "-20"),
			stepOf(setDrawsOf(5000, all...), "SRANDMEMBER", "big", "-5000"),
			stepOf(setDistinctOf(100, all...), "SPOP", "big", "100"),
			stepOf(int64(2900), "SCARD", "big"),
			stepOf(setDistinctOf(2800, all...), "SPOP", "big", "2800"),
			stepOf(int64(100), "SCARD", "big"),
		})
	})
}

func TestSetMove(t *testing.T) {
	bothProtocols(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		setOtherTypes(t, c)
		setDo(t, c, "SADD", "src", "a", "b")
		setDo(t, c, "SADD", "dst", "c")
		runSteps(t, c, []setStep{
			stepOf(int64(1), "SMOVE", "src", "dst", "a"),
			stepOf(setAnyOrder{"b"}, "SMEMBERS", "src"),
			stepOf(setAnyOrder{"a", "c"}, "SMEMBERS", "dst"),
			stepOf(int64(0), "SMOVE", "src", "dst", "zz"),
			// Already in the destination: still a move.
			stepOf(int64(1), "SADD", "src", "c"),
			stepOf(int64(1), "SMOVE", "src", "dst", "c"),
			stepOf(setAnyOrder{"b"}, "SMEMBERS", "src"),
			stepOf(setAnyOrder{"a", "c"}, "SMEMBERS", "dst"),
			// To the same key: a membership test.
			stepOf(int64(1), "SMOVE", "dst", "dst", "a"),
			stepOf(int64(0), "SMOVE", "dst", "dst", "zz"),
			stepOf(setAnyOrder{"a", "c"}, "SMEMBERS", "dst"),
			// An absent source answers 0 before the destination's type is
			// checked; a present one does not.
			stepOf(int64(0), "SMOVE", "nokey", "str", "a"),
			stepOf(setWrongType, "SMOVE", "src", "str", "b"),
			stepOf(setAnyOrder{"b"}, "SMEMBERS", "src"),
			// The last member: the source disappears, the destination is
			// created.
			stepOf(int64(1), "SMOVE", "src", "new", "b"),
			stepOf(int64(0), "EXISTS", "src"),
			stepOf(setAnyOrder{"b"}, "SMEMBERS", "new"),
		})
	})
}

func TestSetAlgebra(t *testing.T) {
	bothProtocols(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		setOtherTypes(t, c)
		setDo(t, c, "SADD", "a", "1", "2", "3", "4")
		setDo(t, c, "SADD", "b", "2", "3", "5")
		setDo(t, c, "SADD", "c", "3", "4", "5", "6")
		runSteps(t, c, []setStep{
			stepOf(setAnyOrder{"2", "3"}, "SINTER", "a", "b"),
			stepOf(setAnyOrder{"3"}, "SINTER", "a", "b", "c"),
			stepOf(setAnyOrder{"1", "2", "3", "4"}, "SINTER", "a"),
			stepOf(setAnyOrder{"1", "2", "3", "4"}, "SINTER", "a", "a"),
			stepOf(setAnyOrder{}, "SINTER", "a", "nokey"),
			stepOf(setAnyOrder{"1", "2", "3", "4", "5"}, "SUNION", "a", "b"),
			stepOf(setAnyOrder{"1", "2", "3", "4", "5", "6"}, "SUNION", "a", "b", "c", "nokey"),
			stepOf(setAnyOrder{}, "SUNION", "nokey"),
			stepOf(setAnyOrder{"1", "4"}, "SDIFF", "a", "b"),
			stepOf(setAnyOrder{"1"}, "SDIFF", "a", "b", "c"),
			stepOf(setAnyOrder{"1", "2", "3", "4"}, "SDIFF", "a", "nokey"),
			stepOf(setAnyOrder{}, "SDIFF", "a", "a"),
			stepOf(setAnyOrder{}, "SDIFF", "nokey", "a"),
			stepOf(int64(2), "SINTERCARD", "2", "a", "b"),
			stepOf(int64(1), "SINTERCARD", "3", "a", "b", "c"),
			stepOf(int64(1), "SINTERCARD", "2", "a", "b", "LIMIT", "1"),
			stepOf(int64(2), "SINTERCARD", "2", "a", "b", "limit", "0"),
			stepOf(int64(2), "SINTERCARD", "2", "a", "b", "LIMIT", "1", "LIMIT", "5"),
			stepOf(int64(0), "SINTERCARD", "2", "a", "nokey"),

			stepOf(int64(2), "SINTERSTORE", "d", "a", "b"),
			stepOf(setAnyOrder{"2", "3"}, "SMEMBERS", "d"),
			stepOf(int64(5), "SUNIONSTORE", "d", "a", "b"),
			stepOf(setAnyOrder{"1", "2", "3", "4", "5"}, "SMEMBERS", "d"),
			stepOf(int64(2), "SDIFFSTORE", "d", "a", "b"),
			stepOf(setAnyOrder{"1", "4"}, "SMEMBERS", "d"),
			// The destination may be a source.
			stepOf(int64(5), "SUNIONSTORE", "d", "d", "nokey", "b", "d"),
			stepOf(setAnyOrder{"1", "2", "3", "4", "5"}, "SMEMBERS", "d"),
			stepOf(int64(2), "SINTERSTORE", "a", "a", "c"),
			stepOf(setAnyOrder{"3", "4"}, "SMEMBERS", "a"),
			stepOf(int64(1), "SDIFFSTORE", "a", "a", "b"),
			stepOf(setAnyOrder{"4"}, "SMEMBERS", "a"),
			// Any type is overwritten.
			stepOf(int64(3), "SINTERSTORE", "str", "b"),
			stepOf("set", "TYPE", "str"),
			stepOf(int64(4), "SUNIONSTORE", "h", "c"),
			stepOf(setAnyOrder{"3", "4", "5", "6"}, "SMEMBERS", "h"),
			// An empty result deletes the destination.
			stepOf(int64(0), "SINTERSTORE", "str", "b", "nokey"),
			stepOf(int64(0), "EXISTS", "str"),
			stepOf(int64(0), "SDIFFSTORE", "h", "c", "c"),
			stepOf(int64(0), "EXISTS", "h"),
			stepOf(int64(0), "SUNIONSTORE", "d", "nokey"),
			stepOf(int64(0), "EXISTS", "d"),
		})
		// A *STORE result has no deadline, whatever the destination had.
		setDo(t, c, "SADD", "ttl", "x")
		setDo(t, c, "EXPIRE", "ttl", "100")
		runSteps(t, c, []setStep{
			stepOf(int64(3), "SUNIONSTORE", "ttl", "b"),
			stepOf(int64(-1), "TTL", "ttl"),
		})
	})
}

func TestSetAlgebraOnBigSets(t *testing.T) {
	bothProtocols(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		setFill(t, c, "evens", 3000, func(i int) string { return strconv.Itoa(2 * i) })
		setFill(t, c, "threes", 2000, func(i int) string { return strconv.Itoa(3 * i) })
		inter := int64(0)
		for i := 0; i < 6000; i += 6 {
			inter++
		}
		runSteps(t, c, []setStep{
			stepOf(inter, "SINTERCARD", "2", "evens", "threes"),
			stepOf(int64(10), "SINTERCARD", "2", "evens", "threes", "LIMIT", "10"),
			stepOf(inter, "SINTERSTORE", "six", "threes", "evens"),
			stepOf(int64(3000+2000)-inter, "SUNIONSTORE", "u", "evens", "threes"),
			stepOf(int64(3000)-inter, "SDIFFSTORE", "d", "evens", "threes"),
			stepOf(int64(3000+2000)-inter, "SCARD", "u"),
		})
		ms := setMembers(t, c, "six")
		for _, m := range ms {
			n, _ := strconv.Atoi(m)
			if n%6 != 0 {
				t.Fatalf("%s in the intersection", m)
			}
		}
	})
}

// setScanAll runs SSCAN to the end and returns how often each member came
// back and how many calls it took.
func setScanAll(t *testing.T, c *redis.Client, key string, opts ...any) (map[string]int, int) {
	t.Helper()
	got := map[string]int{}
	cursor := "0"
	for calls := 1; ; calls++ {
		if calls > 100000 {
			t.Fatal("SSCAN does not finish")
		}
		v := setDo(t, c, append([]any{"SSCAN", key, cursor}, opts...)...)
		arr, ok := v.([]any)
		if !ok || len(arr) != 2 {
			t.Fatalf("SSCAN reply %#v", v)
		}
		if cursor, ok = arr[0].(string); !ok {
			t.Fatalf("SSCAN cursor %#v", arr[0])
		}
		ms, ok := replyStrings(arr[1])
		if !ok {
			t.Fatalf("SSCAN members %#v", arr[1])
		}
		for _, m := range ms {
			got[m]++
		}
		if cursor == "0" {
			return got, calls
		}
	}
}

func TestSetScan(t *testing.T) {
	bothProtocols(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		// A set Redis keeps as an intset or a listpack comes whole.
		setDo(t, c, "SADD", "small", "1", "2", "x")
		runSteps(t, c, []setStep{
			stepOf(setCheck(func(r any) string {
				arr := r.([]any)
				if arr[0] != "0" {
					return fmt.Sprintf("cursor %v for a small set", arr[0])
				}
				if g, _ := replyStrings(arr[1]); !sameStrings(g, []string{"1", "2", "x"}) {
					return fmt.Sprintf("members %q", g)
				}
				return ""
			}), "SSCAN", "small", "0", "COUNT", "1"),
		})
		setFill(t, c, "big", 2500, func(i int) string { return fmt.Sprintf("m:%d", i) })
		for _, opts := range [][]any{nil, {"COUNT", "1"}, {"COUNT", "100"}, {"count", "7", "match", "*"}} {
			got, calls := setScanAll(t, c, "big", opts...)
			if len(got) != 2500 {
				t.Fatalf("SSCAN %v: %d members of 2500", opts, len(got))
			}
			for m, n := range got {
				if n != 1 {
					t.Fatalf("SSCAN %v: %q came %d times from an unchanged set", opts, m, n)
				}
			}
			if len(opts) == 2 && opts[1] == "1" && calls < 2000 {
				t.Fatalf("COUNT 1 finished in %d calls", calls)
			}
		}
		got, _ := setScanAll(t, c, "big", "MATCH", "m:1?", "COUNT", "50")
		if len(got) != 10 {
			t.Fatalf("MATCH m:1? found %d members", len(got))
		}
		// Cursor spellings Redis's strtoul accepts.
		for _, cur := range []string{"+0", "00", "-0"} {
			if v := setDo(t, c, "SSCAN", "small", cur); v.([]any)[0] != "0" {
				t.Fatalf("SSCAN small %s = %#v", cur, v)
			}
		}
	})
}

func TestSetScanReturnsMembersPresentThroughoutUnderWrites(t *testing.T) {
	ts := startServer(t)
	c := ts.client(t, 3)
	w := ts.client(t, 2)
	setFill(t, c, "s", 1500, func(i int) string { return fmt.Sprintf("stable:%d", i) })
	got := map[string]bool{}
	cursor := "0"
	for call := 0; ; call++ {
		if call > 0 {
			setDo(t, w, "SADD", "s", fmt.Sprintf("new:%d", call), fmt.Sprintf("A%d", call))
			setDo(t, w, "SREM", "s", fmt.Sprintf("new:%d", call-1))
		}
		arr := setDo(t, c, "SSCAN", "s", cursor, "COUNT", "25").([]any)
		cursor = arr[0].(string)
		ms, _ := replyStrings(arr[1])
		for _, m := range ms {
			got[m] = true
		}
		if cursor == "0" {
			break
		}
	}
	for i := range 1500 {
		if m := fmt.Sprintf("stable:%d", i); !got[m] {
			t.Fatalf("%s present throughout but not returned", m)
		}
	}
}

func TestSetExpiryAndKeyspace(t *testing.T) {
	bothProtocols(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		setDo(t, c, "SADD", "s", "a", "b")
		runSteps(t, c, []setStep{
			stepOf(int64(1), "PEXPIRE", "s", "30"),
			stepOf("OK", "RENAME", "s", "r"),
			stepOf(setAnyOrder{"a", "b"}, "SMEMBERS", "r"),
			stepOf(int64(1), "COPY", "r", "cp"),
			stepOf(setAnyOrder{"a", "b"}, "SMEMBERS", "cp"),
			// COPY copies the deadline too.
			stepOf(setCheck(func(r any) string {
				if n, ok := r.(int64); !ok || n <= 0 || n > 30 {
					return fmt.Sprintf("PTTL of the copy %#v", r)
				}
				return ""
			}), "PTTL", "cp"),
			stepOf(int64(1), "PERSIST", "cp"),
			stepOf(int64(1), "SADD", "cp", "c"),
			stepOf(setAnyOrder{"a", "b"}, "SMEMBERS", "r"),
		})
		time.Sleep(60 * time.Millisecond)
		runSteps(t, c, []setStep{
			stepOf(int64(0), "EXISTS", "r"),
			stepOf(int64(0), "SCARD", "r"),
			stepOf(int64(0), "SISMEMBER", "r", "a"),
			// A set created where one expired starts empty.
			stepOf(int64(1), "SADD", "r", "z"),
			stepOf(setAnyOrder{"z"}, "SMEMBERS", "r"),
			stepOf(setAnyOrder{"a", "b", "c"}, "SMEMBERS", "cp"),
			stepOf(int64(1), "DEL", "cp"),
			stepOf(int64(0), "EXISTS", "cp"),
		})
	})
}

func TestSetCommandKeys(t *testing.T) {
	ts := startServer(t)
	c := ts.client(t, 2)
	tests := []struct {
		args []any
		want []any
	}{
		{[]any{"COMMAND", "GETKEYS", "SINTERCARD", "2", "a", "b", "LIMIT", "1"}, []any{"a", "b"}},
		{[]any{"COMMAND", "GETKEYS", "SINTERSTORE", "d", "a", "b"}, []any{"d", "a", "b"}},
		{[]any{"COMMAND", "GETKEYS", "SMOVE", "a", "b", "m"}, []any{"a", "b"}},
		{[]any{"COMMAND", "GETKEYS", "SDIFF", "a", "b"}, []any{"a", "b"}},
	}
	for _, tt := range tests {
		if got := setDo(t, c, tt.args...); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q = %#v, want %#v", tt.args, got, tt.want)
		}
	}
	info := setDo(t, c, "COMMAND", "INFO", "SINTERCARD", "SADD", "SPOP").([]any)
	wantHead := [][]any{
		{"sintercard", int64(-3), []any{"readonly", "movablekeys"}, int64(0), int64(0), int64(0)},
		{"sadd", int64(-3), []any{"write", "denyoom", "fast"}, int64(1), int64(1), int64(1)},
		{"spop", int64(-2), []any{"write", "fast"}, int64(1), int64(1), int64(1)},
	}
	for i, w := range wantHead {
		got := info[i].([]any)
		if !reflect.DeepEqual(got[:6], w) {
			t.Errorf("COMMAND INFO %s = %#v, want %#v", w[0], got[:6], w)
		}
	}
}
