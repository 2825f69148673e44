package server

import (
	"context"
	"testing"

	"github.com/cairndb/cairn/internal/command"
	"github.com/cairndb/cairn/internal/config"

	"github.com/redis/go-redis/v9"
)

func TestObjectIdleTimeCountsFromLastAccess(t *testing.T) {
	bothProtocols(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		ctx := context.Background()
		if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
			t.Fatal(err)
		}
		idle, err := c.ObjectIdleTime(ctx, "k").Result()
		if err != nil || idle != 0 {
			t.Fatalf("OBJECT IDLETIME right after SET = %v, %v", idle, err)
		}
		if err := c.ObjectIdleTime(ctx, "missing").Err(); err != redis.Nil {
			t.Fatalf("OBJECT IDLETIME of a missing key: %v", err)
		}
		if err := c.Do(ctx, "OBJECT", "IDLETIME").Err(); err == nil || err.Error() != "ERR wrong number of arguments for 'object|idletime' command" {
			t.Fatalf("arity error: %v", err)
		}
	})
}

func TestSelectRejectsNumbersOutsideCInt(t *testing.T) {
	ts := startServer(t)
	c := ts.client(t, 2)
	ctx := context.Background()
	for arg, want := range map[string]string{
		"4294967296": "ERR value is out of range, value must between -2147483648 and 2147483647",
		"16":         "ERR DB index is out of range",
		"-1":         "ERR DB index is out of range",
		"x":          "ERR value is not an integer or out of range",
	} {
		if err := c.Do(ctx, "SELECT", arg).Err(); err == nil || err.Error() != want {
			t.Errorf("SELECT %s: %v, want %q", arg, err, want)
		}
	}
}

// Key-spec flags as Redis 7.0.15 reports them in COMMAND INFO (checked
// against a real redis-server): cluster routing and ACL key permissions
// will read them.
func TestKeySpecFlagsMatchRedis(t *testing.T) {
	srv := New(Options{Config: config.Default()})
	for _, c := range []struct {
		name  string
		flags []command.KeyFlag
	}{
		{"get", []command.KeyFlag{ro | acc}},
		{"set", []command.KeyFlag{rw | acc | upd | command.KeyVariableFlags}},
		{"setnx", []command.KeyFlag{ow | ins}},
		{"mset", []command.KeyFlag{ow | upd}},
		{"getdel", []command.KeyFlag{rw | acc | del}},
		{"del", []command.KeyFlag{command.KeyRM | del}},
		{"rename", []command.KeyFlag{rw | acc | del, ow | upd}},
		{"copy", []command.KeyFlag{ro | acc, ow | upd}},
		{"ttl", []command.KeyFlag{ro | acc}},
		{"expire", []command.KeyFlag{rw | upd}},
		{"hset", []command.KeyFlag{rw | upd}},
		{"hkeys", []command.KeyFlag{ro | acc}},
	} {
		spec := srv.table.Lookup([]byte(c.name))
		if len(spec.KeySpecs) != len(c.flags) {
			t.Errorf("%s has %d key specs, want %d", c.name, len(spec.KeySpecs), len(c.flags))
			continue
		}
		for i, f := range c.flags {
			if got := spec.KeySpecs[i].Flags; got != f {
				t.Errorf("%s key spec %d flags %v, want %v", c.name, i, got.Names(), f.Names())
			}
		}
	}
}
