package server

import (
	"context"
	"strconv"
	"strings"
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
