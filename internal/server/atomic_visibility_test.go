package server

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestAtomicGroupsInvisibleToPlainReads: plain reads (GET, HLEN, each its
// own command, served from the key cache when it holds the key) never see
// the inside of an atomic group (issue 27, item 1). Writers run groups
// that write a key twice — MULTI INCR INCR, the same as a script and as a
// function, MULTI HSET HDEL — or two keys in a row (MULTI INCR a INCR b),
// while readers check what no state between two commits can show: an odd
// counter, HLEN 2 of a hash that holds one field before and after every
// group, or b behind a when b is read after a. Redis shows none of them.
// Between its two writes each group writes filler keys, so that the
// moment between them lasts long enough for readers to find it.
func TestAtomicGroupsInvisibleToPlainReads(t *testing.T) {
	ts := startServer(t)
	ctx := context.Background()
	setup := ts.client(t, 2)
	if err := setup.HSet(ctx, "h", "base", "1").Err(); err != nil {
		t.Fatal(err)
	}
	const fillers = 200
	filler := func(prefix string) []any {
		var kv []any
		for i := range fillers {
			kv = append(kv, fmt.Sprintf("%s:%d", prefix, i), i)
		}
		return kv
	}
	keys := func(first string) []string {
		ks := []string{first}
		for i := range fillers {
			ks = append(ks, fmt.Sprintf("%s:%d", first, i))
		}
		return ks
	}
	const fill = "for i = 2, #KEYS do redis.call('set', KEYS[i], i) end; "
	lib := "#!lua name=twice\nredis.register_function('incr2', function(keys) local KEYS = keys; redis.call('incr', KEYS[1]); " + fill + "return redis.call('incr', KEYS[1]) end)"
	if err := setup.FunctionLoad(ctx, lib).Err(); err != nil {
		t.Fatal(err)
	}
	twice := redis.NewScript("redis.call('incr', KEYS[1]); " + fill + "return redis.call('incr', KEYS[1])")
	if err := twice.Load(ctx, setup).Err(); err != nil {
		t.Fatal(err)
	}

	writers := []struct {
		name string
		run  func(c *redis.Client) error
	}{
		{"MULTI INCR INCR", func(c *redis.Client) error {
			_, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.Incr(ctx, "m")
				p.MSet(ctx, filler("m")...)
				p.Incr(ctx, "m")
				return nil
			})
			return err
		}},
		{"EVALSHA of INCR INCR", func(c *redis.Client) error {
			return twice.EvalSha(ctx, c, keys("s")).Err()
		}},
		{"FCALL of INCR INCR", func(c *redis.Client) error {
			return c.FCall(ctx, "incr2", keys("f")).Err()
		}},
		{"MULTI HSET HDEL", func(c *redis.Client) error {
			_, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.HSet(ctx, "h", "f", "v")
				p.MSet(ctx, filler("h")...)
				p.HDel(ctx, "h", "f")
				return nil
			})
			return err
		}},
		{"MULTI INCR a INCR b", func(c *redis.Client) error {
			_, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.Incr(ctx, "a")
				p.MSet(ctx, filler("a")...)
				p.Incr(ctx, "b")
				return nil
			})
			return err
		}},
	}

	// check reads once what the writers must never show half done, in one
	// pipeline of separate commands; it describes a violation, or "".
	check := func(c *redis.Client) (string, error) {
		cmds, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
			for range 8 {
				p.Get(ctx, "m")
				p.Get(ctx, "s")
				p.Get(ctx, "f")
				p.HLen(ctx, "h")
				p.Get(ctx, "a")
				p.Get(ctx, "b")
			}
			return nil
		})
		if err != nil && err != redis.Nil {
			return "", err
		}
		for i := 0; i < len(cmds); i += 6 {
			for j, key := range []string{"m", "s", "f"} {
				if n, _ := cmds[i+j].(*redis.StringCmd).Int(); n%2 != 0 {
					return fmt.Sprintf("GET %s = %d, between the two INCRs of one group", key, n), nil
				}
			}
			if n := cmds[i+3].(*redis.IntCmd).Val(); n != 1 {
				return fmt.Sprintf("HLEN h = %d, between HSET and HDEL of one group", n), nil
			}
			a, _ := cmds[i+4].(*redis.StringCmd).Int()
			b, _ := cmds[i+5].(*redis.StringCmd).Int()
			if b < a {
				return fmt.Sprintf("GET a = %d, then GET b = %d: b read after a must not be behind", a, b), nil
			}
		}
		return "", nil
	}

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var once sync.Once
	var failure string
	fail := func(s string) { once.Do(func() { failure = s; close(stop) }) }
	stopped := func() bool {
		select {
		case <-stop:
			return true
		default:
			return false
		}
	}
	var groups, reads atomic.Int64
	for _, w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := ts.client(t, 2)
			for !stopped() {
				if err := w.run(c); err != nil {
					fail(w.name + ": " + err.Error())
					return
				}
				groups.Add(1)
			}
		}()
	}
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := ts.client(t, 2)
			for !stopped() {
				bad, err := check(c)
				switch {
				case err != nil:
					fail("read: " + err.Error())
					return
				case bad != "":
					fail(bad)
					return
				}
				reads.Add(1)
			}
		}()
	}
	select {
	case <-stop:
	case <-time.After(2500 * time.Millisecond):
		fail("")
	}
	wg.Wait()
	t.Logf("%d groups, %d read pipelines", groups.Load(), reads.Load())
	if failure != "" {
		t.Fatalf("after %d groups and %d read pipelines: %s", groups.Load(), reads.Load(), failure)
	}
	// Both sides must have run for the test to mean anything.
	if groups.Load() == 0 || reads.Load() == 0 {
		t.Fatalf("%d groups and %d read pipelines ran", groups.Load(), reads.Load())
	}
	for _, key := range []string{"m", "s", "f"} {
		if n, err := setup.Get(ctx, key).Int(); err != nil || n%2 != 0 {
			t.Errorf("GET %s after the run = %d, %v; want an even count", key, n, err)
		}
	}
}
