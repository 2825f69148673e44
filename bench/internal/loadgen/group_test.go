package loadgen

import (
	"context"
	"strconv"
	"strings"
	"testing"
)

// TestConsumeGroupAgainstRedis drains a stream through a consumer group:
// every entry is delivered and acknowledged once, and nothing is left
// pending.
func TestConsumeGroupAgainstRedis(t *testing.T) {
	addr, c := redisAddr(t)
	const n = 95
	for i := range n {
		if _, err := c.Do("XADD", "s", "*", "f", strconv.Itoa(i)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Do("XGROUP", "CREATE", "s", "g", "0"); err != nil {
		t.Fatal(err)
	}
	cfg := GroupConfig{Addr: addr, Key: "s", Group: "g", Consumers: 3, Count: 10, Messages: n}
	res, err := ConsumeGroup(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Acked != n || res.Reads < 10 || res.Latency.Count != res.Reads || !(res.AckedPerSec() > 0) {
		t.Errorf("result %+v; want %d acknowledged in at least 10 reads, one latency each", res, n)
	}
	pending, err := c.Do("XPENDING", "s", "g")
	if err != nil {
		t.Fatal(err)
	}
	if p := pending.([]any); p[0].(int64) != 0 {
		t.Errorf("XPENDING after the run = %v, want nothing pending", p)
	}

	// The group is drained: a run that expects messages fails.
	if _, err := ConsumeGroup(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "acknowledged 0 messages") {
		t.Errorf("run on a drained group: err = %v", err)
	}
	// A missing group is an error reply, which fails the run.
	cfg.Group = "nope"
	if _, err := ConsumeGroup(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "NOGROUP") {
		t.Errorf("run on a missing group: err = %v", err)
	}
	if _, err := ConsumeGroup(context.Background(), GroupConfig{Addr: addr, Key: "s", Group: "g", Consumers: 1, Count: 0, Messages: 1}); err == nil {
		t.Error("COUNT 0 accepted")
	}
}

func TestEntryIDs(t *testing.T) {
	bulk := func(s string) Reply { return Reply{Type: '$', Str: []byte(s)} }
	arr := func(e ...Reply) Reply { return Reply{Type: '*', Elems: e} }
	entry := func(id string) Reply { return arr(bulk(id), arr(bulk("f"), bulk("v"))) }
	good := arr(arr(bulk("s"), arr(entry("1-0"), entry("1-1"))))
	ids, err := entryIDs([]string{"x"}, good, "s")
	if err != nil || strings.Join(ids, ",") != "x,1-0,1-1" {
		t.Errorf("entryIDs = %q, %v", ids, err)
	}
	for name, bad := range map[string]Reply{
		"two streams":  arr(arr(bulk("s"), arr()), arr(bulk("t"), arr())),
		"other stream": arr(arr(bulk("t"), arr(entry("1-0")))),
		"not an array": bulk("s"),
		"entry no id":  arr(arr(bulk("s"), arr(arr(arr(), arr())))),
		"null id":      arr(arr(bulk("s"), arr(arr(Reply{Type: '$', Null: true}, arr())))),
	} {
		if _, err := entryIDs(nil, bad, "s"); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if got := string(appendXAck(nil, "s", "g", []string{"1-0", "2-0"})); got != string(AppendCommand(nil, "XACK", "s", "g", "1-0", "2-0")) {
		t.Errorf("appendXAck = %q", got)
	}
}
