//go:build unix

package clients

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/rueidis"
)

// goClient is a go-redis client with its default options (RESP3), closed
// when the test ends.
func goClient(t *testing.T, addr string, proto int) *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: addr, Protocol: proto, ReadTimeout: 10 * time.Second})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// equal fails the test unless got equals want.
func equal(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: got %#v, want %#v", what, got, want)
	}
}

// goTxPipelined: go-redis TxPipelined wraps the commands in MULTI/EXEC.
func goTxPipelined(ctx context.Context, t *testing.T, addr string) {
	for _, proto := range []int{2, 3} {
		rdb := goClient(t, addr, proto)
		var incr *redis.IntCmd
		var get *redis.StringCmd
		var lr *redis.StringSliceCmd
		cmds, err := rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Set(ctx, "gt:a", 1, 0)
			incr = p.Incr(ctx, "gt:a")
			get = p.Get(ctx, "gt:a")
			p.RPush(ctx, "gt:l", "x", "y")
			lr = p.LRange(ctx, "gt:l", 0, -1)
			return nil
		})
		if err != nil {
			t.Fatalf("RESP%d TxPipelined: %v", proto, err)
		}
		equal(t, "commands run", len(cmds), 5)
		equal(t, "INCR in MULTI", incr.Val(), int64(2))
		equal(t, "GET in MULTI", get.Val(), "2")
		equal(t, "LRANGE in MULTI", lr.Val(), []string{"x", "y"})

		// A command that fails at run time fails alone; the rest apply.
		rdb.Set(ctx, "gt:s", "text", 0)
		_, err = rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Incr(ctx, "gt:s")
			p.Set(ctx, "gt:after", "done", 0)
			return nil
		})
		if err == nil {
			t.Fatalf("RESP%d: INCR of a string inside MULTI gave no error", proto)
		}
		equal(t, "write after the failing command", rdb.Get(ctx, "gt:after").Val(), "done")
		if err := rdb.Del(ctx, "gt:a", "gt:l", "gt:s", "gt:after").Err(); err != nil {
			t.Fatal(err)
		}
	}
}

// goWatch is the optimistic-locking INCR of Redis's and go-redis's
// documentation: concurrent goroutines each WATCH, read, and write in
// MULTI, retrying on conflict; the final count must be exact.
func goWatch(ctx context.Context, t *testing.T, addr string) {
	rdb := redis.NewClient(&redis.Options{Addr: addr, PoolSize: 16, ReadTimeout: 10 * time.Second})
	t.Cleanup(func() { _ = rdb.Close() })
	const key = "gw:counter"

	// A conflicting write between WATCH and EXEC aborts the transaction.
	err := rdb.Watch(ctx, func(tx *redis.Tx) error {
		if err := rdb.Set(ctx, key, "other", 0).Err(); err != nil {
			return err
		}
		_, err := tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Set(ctx, key, "mine", 0)
			return nil
		})
		return err
	}, key)
	if !errors.Is(err, redis.TxFailedErr) {
		t.Fatalf("EXEC after a conflicting write: got %v, want %v", err, redis.TxFailedErr)
	}
	equal(t, "value after the aborted transaction", rdb.Get(ctx, key).Val(), "other")
	rdb.Del(ctx, key)

	increment := func() error {
		txf := func(tx *redis.Tx) error {
			n, err := tx.Get(ctx, key).Int()
			if err != nil && err != redis.Nil {
				return err
			}
			_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.Set(ctx, key, n+1, 0)
				return nil
			})
			return err
		}
		for range 1000 {
			err := rdb.Watch(ctx, txf, key)
			if err != redis.TxFailedErr {
				return err
			}
		}
		return errors.New("increment: too many retries")
	}
	const workers, each = 8, 30
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				if err := increment(); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("increment: %v", err)
	}
	n, err := rdb.Get(ctx, key).Int()
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "counter after concurrent WATCH increments", n, workers*each)
}

// goPubSub: go-redis Subscribe and PSubscribe, messages through Channel,
// in RESP2 and RESP3.
func goPubSub(ctx context.Context, t *testing.T, addr string) {
	for _, proto := range []int{2, 3} {
		rdb := goClient(t, addr, proto)
		sub := rdb.Subscribe(ctx, "gp:ch")
		if _, err := sub.Receive(ctx); err != nil { // the subscribe confirmation
			t.Fatalf("RESP%d SUBSCRIBE: %v", proto, err)
		}
		if err := sub.PSubscribe(ctx, "gp:news.*"); err != nil {
			t.Fatalf("RESP%d PSUBSCRIBE: %v", proto, err)
		}
		ch := sub.Channel()
		// PUBLISH counts receivers; poll until the pattern is registered.
		deadline := time.Now().Add(5 * time.Second)
		for rdb.PubSubNumPat(ctx).Val() != 1 {
			if time.Now().After(deadline) {
				t.Fatalf("RESP%d: PUBSUB NUMPAT never reached 1", proto)
			}
			time.Sleep(10 * time.Millisecond)
		}
		equal(t, "receivers of gp:ch", rdb.Publish(ctx, "gp:ch", "hello").Val(), int64(1))
		equal(t, "receivers of gp:news.tech", rdb.Publish(ctx, "gp:news.tech", "chips").Val(), int64(1))
		want := []redis.Message{
			{Channel: "gp:ch", Payload: "hello"},
			{Channel: "gp:news.tech", Pattern: "gp:news.*", Payload: "chips"},
		}
		for i, w := range want {
			select {
			case m := <-ch:
				equal(t, fmt.Sprintf("RESP%d message %d", proto, i), *m, w)
			case <-time.After(5 * time.Second):
				t.Fatalf("RESP%d: message %d did not arrive", proto, i)
			}
		}
		equal(t, "PUBSUB NUMSUB", rdb.PubSubNumSub(ctx, "gp:ch").Val(), map[string]int64{"gp:ch": 1})
		if err := sub.Close(); err != nil {
			t.Fatalf("closing the subscription: %v", err)
		}
		deadline = time.Now().Add(5 * time.Second)
		for rdb.PubSubNumSub(ctx, "gp:ch").Val()["gp:ch"] != 0 {
			if time.Now().After(deadline) {
				t.Fatalf("RESP%d: subscriber still counted after close", proto)
			}
			time.Sleep(10 * time.Millisecond)
		}
		equal(t, "receivers after close", rdb.Publish(ctx, "gp:ch", "gone").Val(), int64(0))
	}
}

// goScript: go-redis Script.Run tries EVALSHA and falls back to EVAL on
// NOSCRIPT; Load, EvalSha, Exists and Flush as libraries use them.
func goScript(ctx context.Context, t *testing.T, addr string) {
	rdb := goClient(t, addr, 3)
	if err := rdb.ScriptFlush(ctx).Err(); err != nil {
		t.Fatalf("SCRIPT FLUSH: %v", err)
	}
	incrBy := redis.NewScript(`
local n = redis.call('INCRBY', KEYS[1], ARGV[1])
return {n, KEYS[1], tostring(n * 2)}`)
	got, err := incrBy.Run(ctx, rdb, []string{"gs:n"}, 5).Slice()
	if err != nil {
		t.Fatalf("Script.Run (EVALSHA, then EVAL on NOSCRIPT): %v", err)
	}
	equal(t, "first run", got, []any{int64(5), "gs:n", "10"})
	// EVAL loaded it into the script cache.
	equal(t, "SCRIPT EXISTS", incrBy.Exists(ctx, rdb).Val(), []bool{true})
	got, err = incrBy.EvalSha(ctx, rdb, []string{"gs:n"}, 2).Slice()
	if err != nil {
		t.Fatalf("EVALSHA: %v", err)
	}
	equal(t, "EVALSHA", got, []any{int64(7), "gs:n", "14"})

	sha, err := rdb.ScriptLoad(ctx, "return redis.call('GET', KEYS[1])").Result()
	if err != nil {
		t.Fatalf("SCRIPT LOAD: %v", err)
	}
	equal(t, "EVALSHA of a loaded script", rdb.EvalSha(ctx, sha, []string{"gs:n"}).Val(), "7")
	if err := rdb.EvalSha(ctx, "0000000000000000000000000000000000000000", nil).Err(); err == nil || !redis.HasErrorPrefix(err, "NOSCRIPT") {
		t.Fatalf("EVALSHA of an unknown script: got %v, want a NOSCRIPT error", err)
	}
	if err := rdb.Eval(ctx, "return redis.error_reply('MYERR custom')", nil).Err(); err == nil || err.Error() != "MYERR custom" {
		t.Fatalf("redis.error_reply: got %v", err)
	}
	// Run inside a pipeline, as a batch of jobs would.
	cmds, err := rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for range 3 {
			incrBy.Run(ctx, p, []string{"gs:p"}, 1)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("scripts in a pipeline: %v", err)
	}
	for i, c := range cmds {
		v, _ := c.(*redis.Cmd).Slice()
		equal(t, fmt.Sprintf("pipelined run %d", i), v[0], int64(i+1))
	}
}

// rueidisNoCache: rueidis without client-side caching (HELLO 3, auto-
// pipelining), the way it runs against servers without CLIENT TRACKING.
func rueidisNoCache(ctx context.Context, t *testing.T, addr string) {
	c, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{addr}, DisableCache: true})
	if err != nil {
		t.Fatalf("rueidis.NewClient: %v", err)
	}
	defer c.Close()
	if err := c.Do(ctx, c.B().Set().Key("rn:k").Value("v").Build()).Error(); err != nil {
		t.Fatalf("SET: %v", err)
	}
	v, err := c.Do(ctx, c.B().Get().Key("rn:k").Build()).ToString()
	if err != nil || v != "v" {
		t.Fatalf("GET: %q, %v", v, err)
	}
	// Concurrent callers share pipelined connections.
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				if err := c.Do(ctx, c.B().Hset().Key("rn:h").FieldValue().FieldValue(fmt.Sprintf("f%d-%d", g, i), "x").Build()).Error(); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("concurrent HSET: %v", err)
	}
	n, err := c.Do(ctx, c.B().Hlen().Key("rn:h").Build()).AsInt64()
	if err != nil || n != 400 {
		t.Fatalf("HLEN: %d, %v (want 400)", n, err)
	}
	resps := c.DoMulti(ctx,
		c.B().Incr().Key("rn:n").Build(),
		c.B().Incr().Key("rn:n").Build(),
		c.B().Zadd().Key("rn:z").ScoreMember().ScoreMember(1, "a").ScoreMember(2, "b").Build(),
		c.B().Zrange().Key("rn:z").Min("0").Max("-1").Build())
	for i, r := range resps {
		if r.Error() != nil {
			t.Fatalf("DoMulti reply %d: %v", i, r.Error())
		}
	}
	if got, _ := resps[1].AsInt64(); got != 2 {
		t.Fatalf("second INCR: %d", got)
	}
	if got, _ := resps[3].AsStrSlice(); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Fatalf("ZRANGE: %v", got)
	}
	// DoCache falls back to a plain call when the cache is off.
	v, err = c.DoCache(ctx, c.B().Get().Key("rn:k").Cache(), time.Minute).ToString()
	if err != nil || v != "v" {
		t.Fatalf("DoCache without a cache: %q, %v", v, err)
	}
}

// rueidisCache: rueidis with its default options, which turn on
// client-side caching (RESP3, CLIENT TRACKING in OPTIN mode): a second read
// is a cache hit and another client's write invalidates it.
func rueidisCache(ctx context.Context, t *testing.T, addr string) {
	c, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{addr}})
	if err != nil {
		t.Fatalf("rueidis.NewClient with default options (client-side caching on): %v", err)
	}
	defer c.Close()
	w := goClient(t, addr, 2)
	if err := w.Set(ctx, "rc:k", "v1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	get := func() rueidis.RedisResult { return c.DoCache(ctx, c.B().Get().Key("rc:k").Cache(), time.Minute) }
	r := get()
	if v, err := r.ToString(); err != nil || v != "v1" {
		t.Fatalf("first cached GET: %q, %v", v, err)
	}
	if r.IsCacheHit() {
		t.Fatal("first GET claims a cache hit")
	}
	r = get()
	if v, _ := r.ToString(); v != "v1" || !r.IsCacheHit() {
		t.Fatalf("second GET: %q, cache hit %v (want v1 from the cache)", v, r.IsCacheHit())
	}
	if ttl := r.CacheTTL(); ttl <= 0 || ttl > 60 {
		t.Fatalf("cache TTL of the entry: %d (want 1..60 s, from PTTL)", ttl)
	}

	// Another client's write invalidates the entry.
	waitValue := func(what, want string) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for {
			v, err := get().ToString()
			if err == nil && v == want || want == "" && rueidis.IsRedisNil(err) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: cached GET still gives %q, %v (want %q)", what, v, err, want)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	w.Set(ctx, "rc:k", "v2", 0)
	waitValue("invalidation after another client's SET", "v2")
	w.Del(ctx, "rc:k")
	waitValue("invalidation after DEL", "")

	// A key that expires on the server expires in the cache too.
	w.Set(ctx, "rc:e", "soon", 300*time.Millisecond)
	if v, _ := c.DoCache(ctx, c.B().Get().Key("rc:e").Cache(), time.Minute).ToString(); v != "soon" {
		t.Fatalf("cached GET of a volatile key: %q", v)
	}
	time.Sleep(500 * time.Millisecond)
	if _, err := c.DoCache(ctx, c.B().Get().Key("rc:e").Cache(), time.Minute).ToString(); !rueidis.IsRedisNil(err) {
		t.Fatalf("cached GET of an expired key: %v (want nil)", err)
	}

	// Several keys at once, then a hash.
	w.MSet(ctx, "rc:a", "1", "rc:b", "2")
	for round := range 2 {
		vals, err := rueidis.MGetCache(c, ctx, time.Minute, []string{"rc:a", "rc:b"})
		if err != nil {
			t.Fatalf("MGetCache: %v", err)
		}
		a, b := vals["rc:a"], vals["rc:b"]
		as, _ := a.ToString()
		bs, _ := b.ToString()
		equal(t, fmt.Sprintf("MGetCache round %d", round), []string{as, bs}, []string{"1", "2"})
		if round == 1 && !a.IsCacheHit() {
			t.Fatal("second MGetCache is not served from the cache")
		}
	}
	w.HSet(ctx, "rc:h", "f", "1")
	hgetall := func() map[string]string {
		m, err := c.DoCache(ctx, c.B().Hgetall().Key("rc:h").Cache(), time.Minute).AsStrMap()
		if err != nil {
			t.Fatalf("cached HGETALL: %v", err)
		}
		return m
	}
	equal(t, "cached HGETALL", hgetall(), map[string]string{"f": "1"})
	w.HSet(ctx, "rc:h", "f", "2")
	deadline := time.Now().Add(5 * time.Second)
	for hgetall()["f"] != "2" {
		if time.Now().After(deadline) {
			t.Fatal("cached HGETALL never saw the new field value")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
