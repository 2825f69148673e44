package server

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

const siNotInt = replyErr("ERR value is not an integer or out of range")

func siArity(name string) replyErr {
	return replyErr("ERR wrong number of arguments for '" + name + "' command")
}

// TestSortedintKvrocksExample runs the example of Kvrocks's documentation
// ("Custom api sortedint") and its tcl test, expected replies included.
func TestSortedintKvrocksExample(t *testing.T) {
	bothProtocols(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		runSteps(t, c, []step{
			stepOf(int64(1), "SIADD", "mysi", "1"),
			stepOf(int64(1), "SIADD", "mysi", "2"),
			stepOf(int64(0), "SIADD", "mysi", "2"),
			stepOf(int64(5), "SIADD", "mysi", "3", "4", "5", "123", "245"),
			stepOf(int64(7), "SICARD", "mysi"),
			stepOf([]any{"245", "123", "5"}, "SIREVRANGE", "mysi", "0", "3"),
			stepOf([]any{"4", "3", "2"}, "SIREVRANGE", "mysi", "0", "3", "cursor", "5"),
			stepOf([]any{"245"}, "SIRANGE", "mysi", "0", "3", "cursor", "123"),
			stepOf([]any{"1", "2", "3", "4"}, "SIRANGEBYVALUE", "mysi", "1", "(5"),
			stepOf([]any{"5", "4", "3", "2"}, "SIREVRANGEBYVALUE", "mysi", "5", "(1"),
			stepOf([]any{int64(1), int64(0), int64(1)}, "SIEXISTS", "mysi", "1", "88", "2"),
			stepOf(int64(1), "SIREM", "mysi", "2"),
			stepOf("sortedint", "TYPE", "mysi"),
		})
	})
}

func TestSortedintCommands(t *testing.T) {
	bothProtocols(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		const max = "18446744073709551615"
		runSteps(t, c, []step{
			// Repeats among the arguments count once; order is numeric,
			// not by bytes.
			stepOf(int64(6), "SIADD", "s", "10", "9", "100", "0", max, "10", "2"),
			stepOf(int64(6), "SICARD", "s"),
			stepOf(int64(0), "SICARD", "nokey"),
			stepOf([]any{"0", "2", "9", "10", "100", max}, "SIRANGE", "s", "0", "0"),
			stepOf([]any{max, "100", "10", "9", "2", "0"}, "SIREVRANGE", "s", "0", "0"),
			// offset and count.
			stepOf([]any{"9", "10"}, "SIRANGE", "s", "2", "2"),
			stepOf([]any{"10", "9"}, "SIREVRANGE", "s", "2", "2"),
			stepOf([]any{}, "SIRANGE", "s", "6", "2"),
			stepOf([]any{}, "SIRANGE", "s", max, "2"),
			// A cursor is exclusive and need not be a member; 0 is the
			// start.
			stepOf([]any{"10", "100"}, "SIRANGE", "s", "0", "2", "CURSOR", "9"),
			stepOf([]any{"10"}, "SIRANGE", "s", "1", "1", "CURSOR", "3"),
			stepOf([]any{"9", "2"}, "SIREVRANGE", "s", "0", "2", "cursor", "10"),
			stepOf([]any{"0", "2"}, "SIRANGE", "s", "0", "2", "CURSOR", "0"),
			stepOf([]any{max, "100"}, "SIREVRANGE", "s", "0", "2", "CURSOR", "0"),
			stepOf([]any{}, "SIRANGE", "s", "0", "2", "CURSOR", max),
			stepOf([]any{"100", "10"}, "SIREVRANGE", "s", "0", "2", "CURSOR", max),
			stepOf([]any{}, "SIRANGE", "nokey", "0", "10"),
			// By value: bounds, exclusive bounds, infinities, LIMIT.
			stepOf([]any{"2", "9", "10"}, "SIRANGEBYVALUE", "s", "1", "10"),
			stepOf([]any{"9"}, "SIRANGEBYVALUE", "s", "(2", "(10"),
			stepOf([]any{"0", "2", "9", "10", "100", max}, "SIRANGEBYVALUE", "s", "-inf", "+inf"),
			stepOf([]any{"100", "10"}, "SIREVRANGEBYVALUE", "s", "+inf", "-inf", "LIMIT", "1", "2"),
			stepOf([]any{"9", "10", "100"}, "SIRANGEBYVALUE", "s", "(0", "("+max, "limit", "1", "0"),
			stepOf([]any{"0", "2"}, "SIRANGEBYVALUE", "s", "-inf", "+inf", "LIMIT", "-5", "2"),
			stepOf([]any{"0", "2", "9", "10", "100", max}, "SIRANGEBYVALUE", "s", "-inf", "+inf", "LIMIT", "0", "-1"),
			stepOf([]any{max}, "SIRANGEBYVALUE", "s", max, max),
			stepOf([]any{}, "SIRANGEBYVALUE", "s", "("+max, "+inf"),
			stepOf([]any{}, "SIRANGEBYVALUE", "s", "-inf", "(0"),
			stepOf([]any{}, "SIRANGEBYVALUE", "s", "10", "9"),
			stepOf([]any{}, "SIRANGEBYVALUE", "s", "(9", "(10"),
			stepOf([]any{}, "SIRANGEBYVALUE", "nokey", "-inf", "+inf"),
			stepOf([]any{"10", "9"}, "SIREVRANGEBYVALUE", "s", "10", "(2"),
			// SIEXISTS on a missing key: all 0.
			stepOf([]any{int64(1), int64(1), int64(0)}, "SIEXISTS", "s", "0", max, "1"),
			stepOf([]any{int64(0), int64(0)}, "SIEXISTS", "nokey", "1", "2"),
			// SIREM: repeats once, absent ids not counted, emptied key gone.
			stepOf(int64(2), "SIREM", "s", "0", "0", "7", "2"),
			stepOf(int64(0), "SIREM", "nokey", "1"),
			stepOf(int64(4), "SICARD", "s"),
			stepOf(int64(4), "SIREM", "s", "9", "10", "100", max),
			stepOf(int64(0), "EXISTS", "s"),
			stepOf("none", "TYPE", "s"),
		})
	})
}

func TestSortedintErrors(t *testing.T) {
	c := startServer(t).client(t, 2)
	runSteps(t, c, []step{
		stepOf("OK", "SET", "str", "x"),
		stepOf(int64(1), "SADD", "set", "1"),
		stepOf(int64(1), "SIADD", "si", "1"),
		// Arity.
		stepOf(siArity("siadd"), "SIADD", "si"),
		stepOf(siArity("sirem"), "SIREM", "si"),
		stepOf(siArity("sicard"), "SICARD"),
		stepOf(siArity("siexists"), "SIEXISTS", "si"),
		stepOf(siArity("sirange"), "SIRANGE", "si", "0"),
		stepOf(siArity("sirevrangebyvalue"), "SIREVRANGEBYVALUE", "si", "0"),
		// Ids: unsigned 64-bit decimal only; nothing written on error.
		stepOf(siNotInt, "SIADD", "si", "2", "-1"),
		stepOf(siNotInt, "SIADD", "si", "18446744073709551616"),
		stepOf(siNotInt, "SIADD", "si", "1.5"),
		stepOf(siNotInt, "SIADD", "si", ""),
		stepOf(siNotInt, "SIADD", "si", "+3"),
		stepOf(siNotInt, "SIADD", "si", " 3"),
		stepOf(siNotInt, "SIREM", "si", "x"),
		stepOf(siNotInt, "SIEXISTS", "si", "1", "x"),
		stepOf(int64(1), "SICARD", "si"),
		// SIRANGE arguments.
		stepOf(siNotInt, "SIRANGE", "si", "-1", "2"),
		stepOf(siNotInt, "SIRANGE", "si", "0", "x"),
		stepOf(siNotInt, "SIRANGE", "si", "0", "1", "CURSOR", "-1"),
		stepOf(replyErr("ERR syntax error"), "SIRANGE", "si", "0", "1", "CURSORS", "1"),
		stepOf(replyErr("ERR syntax error"), "SIRANGE", "si", "0", "1", "CURSOR"),
		stepOf(replyErr("ERR syntax error"), "SIREVRANGE", "si", "0", "1", "CURSOR", "1", "x"),
		// By-value bounds, Kvrocks's texts.
		stepOf(replyErr("ERR min > max"), "SIRANGEBYVALUE", "si", "+inf", "10"),
		stepOf(replyErr("ERR min > max"), "SIRANGEBYVALUE", "si", "1", "-inf"),
		stepOf(replyErr("ERR min > max"), "SIREVRANGEBYVALUE", "si", "-inf", "1"),
		stepOf(replyErr("ERR the min isn't integer"), "SIRANGEBYVALUE", "si", "abc", "10"),
		stepOf(replyErr("ERR the min isn't integer"), "SIRANGEBYVALUE", "si", "(", "10"),
		stepOf(replyErr("ERR the min isn't integer"), "SIRANGEBYVALUE", "si", "-10", "10"),
		stepOf(replyErr("ERR the max isn't integer"), "SIRANGEBYVALUE", "si", "1", "(xyz"),
		stepOf(replyErr("ERR the max isn't integer"), "SIREVRANGEBYVALUE", "si", "x", "1"),
		stepOf(replyErr("ERR the min isn't integer"), "SIREVRANGEBYVALUE", "si", "1", "x"),
		stepOf(replyErr("ERR syntax error"), "SIRANGEBYVALUE", "si", "1", "2", "LIMITS", "0", "1"),
		stepOf(replyErr("ERR syntax error"), "SIRANGEBYVALUE", "si", "1", "2", "LIMIT", "0"),
		stepOf(siNotInt, "SIRANGEBYVALUE", "si", "1", "2", "LIMIT", "0", "x"),
		stepOf(siNotInt, "SIRANGEBYVALUE", "si", "1", "2", "LIMIT", "4294967296", "1"),
		// Wrong types, both ways.
		stepOf(setWrongType, "SIADD", "str", "1"),
		stepOf(setWrongType, "SIADD", "set", "1"),
		stepOf(setWrongType, "SIREM", "set", "1"),
		stepOf(setWrongType, "SICARD", "str"),
		stepOf(setWrongType, "SIEXISTS", "set", "1"),
		stepOf(setWrongType, "SIRANGE", "set", "0", "1"),
		stepOf(setWrongType, "SIREVRANGE", "set", "0", "1", "CURSOR", "0"),
		stepOf(setWrongType, "SIRANGEBYVALUE", "str", "-inf", "+inf"),
		stepOf(setWrongType, "SIREVRANGEBYVALUE", "str", "10", "9"),
		stepOf(setWrongType, "SADD", "si", "1"),
		stepOf(setWrongType, "GET", "si"),
		stepOf(setWrongType, "ZCARD", "si"),
		stepOf(setWrongType, "SORT", "si"),
		// DUMP has no RDB form to write.
		stepOf(replyErr("ERR DUMP is not supported for sortedint keys: the RDB format has no such type"), "DUMP", "si"),
	})
}

func TestSortedintKeyspace(t *testing.T) {
	c := startServer(t).client(t, 2)
	runSteps(t, c, []step{
		stepOf(int64(3), "SIADD", "si", "3", "1", "2"),
		stepOf("sortedint", "OBJECT", "ENCODING", "si"),
		stepOf(replyCheck(func(reply any) string {
			if n, ok := reply.(int64); !ok || n <= 0 {
				return fmt.Sprintf("got %#v; want a positive size", reply)
			}
			return ""
		}), "MEMORY", "USAGE", "si"),
		stepOf(int64(1), "EXISTS", "si"),
		stepOf(replyCheck(func(reply any) string {
			if reply != "si" {
				return fmt.Sprintf("got %#v; want \"si\"", reply)
			}
			return ""
		}), "RANDOMKEY"),
		stepOf(replyScan{"0", []string{"si"}}, "SCAN", "0", "TYPE", "sortedint"),
		stepOf(replyScan{"0", []string{"si"}}, "SCAN", "0", "TYPE", "SortedInt"),
		stepOf(replyScan{"0", nil}, "SCAN", "0", "TYPE", "set"),
		stepOf(int64(1), "EXPIRE", "si", "100"),
		stepOf(int64(1), "COPY", "si", "c"),
		stepOf([]any{"1", "2", "3"}, "SIRANGE", "c", "0", "0"),
		stepOf(int64(100), "TTL", "c"),
		// The copy is independent of the source.
		stepOf(int64(1), "SIREM", "c", "2"),
		stepOf(int64(3), "SICARD", "si"),
		stepOf("OK", "RENAME", "c", "r"),
		stepOf([]any{"3", "1"}, "SIREVRANGE", "r", "0", "0"),
		stepOf(int64(1), "MOVE", "r", "1"),
		stepOf(int64(0), "EXISTS", "r"),
		stepOf("OK", "SELECT", "1"),
		stepOf([]any{"1", "3"}, "SIRANGEBYVALUE", "r", "-inf", "+inf"),
		stepOf("sortedint", "TYPE", "r"),
		stepOf("OK", "SELECT", "0"),
		// Scripts and transactions run them like any command.
		stepOf([]any{"3", "2", "1"}, "EVAL", "return redis.call('SIREVRANGE', KEYS[1], 0, 0)", "1", "si"),
		stepOf("OK", "MULTI"),
		stepOf("QUEUED", "SIADD", "si", "4"),
		stepOf("QUEUED", "SIRANGEBYVALUE", "si", "(2", "+inf"),
		stepOf([]any{int64(1), []any{"3", "4"}}, "EXEC"),
		stepOf(int64(1), "SIREM", "si", "4"),
		// DEL drops the version: a new key under the name starts empty.
		stepOf(int64(1), "DEL", "si"),
		stepOf(int64(0), "SICARD", "si"),
		stepOf(int64(1), "SIADD", "si", "7"),
		stepOf([]any{"7"}, "SIRANGE", "si", "0", "0"),
		stepOf(int64(1), "SADD", "set", "a"),
		stepOf(setWrongType, "SIADD", "set", "1"),
	})
}

// TestSortedintMatchesModel checks random operations, on a set large
// enough for range deletes, against a sorted slice.
func TestSortedintMatchesModel(t *testing.T) {
	c := startServer(t).client(t, 3)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(21, 5))
	model := map[uint64]bool{}
	sorted := func() []uint64 {
		var s []uint64
		for id := range model {
			s = append(s, id)
		}
		slices.Sort(s)
		return s
	}
	strs := func(ids []uint64) []string {
		out := make([]string, len(ids))
		for i, id := range ids {
			out[i] = strconv.FormatUint(id, 10)
		}
		return out
	}
	for round := 0; round < 60; round++ {
		args := []any{"SIADD", "k"}
		rem := []any{"SIREM", "k"}
		for i := 0; i < 20; i++ {
			id := r.Uint64N(500)
			if i%7 == 0 {
				id = r.Uint64()
			}
			args = append(args, strconv.FormatUint(id, 10))
			if !model[id] {
				model[id] = true
			}
			if r.IntN(4) == 0 {
				victim := r.Uint64N(500)
				rem = append(rem, strconv.FormatUint(victim, 10))
			}
		}
		if err := c.Do(ctx, args...).Err(); err != nil {
			t.Fatal(err)
		}
		if len(rem) > 2 {
			if err := c.Do(ctx, rem...).Err(); err != nil {
				t.Fatal(err)
			}
			for _, a := range rem[2:] {
				id, _ := strconv.ParseUint(a.(string), 10, 64)
				delete(model, id)
			}
		}
		all := sorted()
		lo, hi := r.Uint64N(600), r.Uint64N(600)
		off, cnt := r.IntN(5), r.IntN(8)
		var want []uint64
		for _, id := range all {
			if id > lo && id <= hi {
				want = append(want, id)
			}
		}
		want = want[min(off, len(want)):]
		if cnt > 0 {
			want = want[:min(cnt, len(want))]
		}
		got, err := c.Do(ctx, "SIRANGEBYVALUE", "k", fmt.Sprintf("(%d", lo), hi, "LIMIT", off, cnt).StringSlice()
		if err != nil || !slices.Equal(got, strs(want)) {
			t.Fatalf("round %d: SIRANGEBYVALUE (%d %d LIMIT %d %d = %q, %v; want %q", round, lo, hi, off, cnt, got, err, strs(want))
		}
		cursor := r.Uint64N(600)
		var rev []uint64
		for i := len(all) - 1; i >= 0; i-- {
			if cursor == 0 || all[i] < cursor {
				rev = append(rev, all[i])
			}
		}
		rev = rev[min(off, len(rev)):]
		if cnt > 0 {
			rev = rev[:min(cnt, len(rev))]
		}
		got, err = c.Do(ctx, "SIREVRANGE", "k", off, cnt, "CURSOR", cursor).StringSlice()
		if err != nil || !slices.Equal(got, strs(rev)) {
			t.Fatalf("round %d: SIREVRANGE %d %d CURSOR %d = %q, %v; want %q", round, off, cnt, cursor, got, err, strs(rev))
		}
		if n, err := c.Do(ctx, "SICARD", "k").Int64(); err != nil || n != int64(len(all)) {
			t.Fatalf("round %d: SICARD = %d, %v; want %d", round, n, err, len(all))
		}
	}
	// DEL of a sortedint this big drops its version with range deletes.
	runSteps(t, c, []step{
		stepOf(int64(1), "DEL", "k"),
		stepOf(int64(0), "SICARD", "k"),
		stepOf([]any{}, "SIRANGE", "k", "0", "0"),
		stepOf(int64(1), "SIADD", "k", "3"),
		stepOf([]any{"3"}, "SIRANGEBYVALUE", "k", "-inf", "+inf"),
	})
}

func TestSortedintNotifications(t *testing.T) {
	ts := startServer(t)
	c := ts.client(t, 2)
	ctx := context.Background()
	if err := c.Do(ctx, "CONFIG", "SET", "notify-keyspace-events", "KEA").Err(); err != nil {
		t.Fatal(err)
	}
	sub := ts.client(t, 2).PSubscribe(ctx, "__keyevent@0__:*")
	defer sub.Close()
	if _, err := sub.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range [][]any{
		{"SIADD", "si", "1", "2"},
		{"SIADD", "si", "1"}, // nothing added: no event
		{"SIREM", "si", "5"}, // nothing removed: no event
		{"SIREM", "si", "1"},
		{"SIREM", "si", "2"},
	} {
		if err := c.Do(ctx, cmd...).Err(); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"__keyevent@0__:siadd", "__keyevent@0__:sirem", "__keyevent@0__:sirem", "__keyevent@0__:del"}
	ch := sub.Channel()
	for i, w := range want {
		select {
		case m := <-ch:
			if m.Channel != w || m.Payload != "si" {
				t.Fatalf("event %d: %s %q; want %s \"si\"", i, m.Channel, m.Payload, w)
			}
		case <-time.After(2 * time.Second):
			t.Fatalf("event %d: none; want %s", i, w)
		}
	}
}

// FuzzSortedintBounds checks that the by-value bound parser never panics
// and that what it accepts reads back as the same bounds.
func FuzzSortedintBounds(f *testing.F) {
	for _, s := range [][2]string{{"-inf", "+inf"}, {"(1", "(5"}, {"(", "1"}, {"+inf", "1"}, {"18446744073709551615", "(18446744073709551616"}, {"-1", "2"}, {"", ""}, {"00", "(007"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, lo, hi string) {
		r, msg := parseSortedintBounds([]byte(lo), []byte(hi))
		if msg != "" {
			return
		}
		again := func(arg string, v uint64, ex bool, inf string) {
			if arg == inf {
				return
			}
			digits, hasParen := strings.CutPrefix(arg, "(")
			n, err := strconv.ParseUint(digits, 10, 64)
			if hasParen != ex || err != nil || n != v || strings.TrimLeft(digits, "0123456789") != "" {
				t.Fatalf("%q parsed as %d (exclusive %t)", arg, v, ex)
			}
		}
		again(lo, r.Min, r.MinEx, "-inf")
		again(hi, r.Max, r.MaxEx, "+inf")
	})
}
