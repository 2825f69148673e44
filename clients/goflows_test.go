//go:build unix

package clients

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
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

// goStreamWorkers is a consumer-group job queue as go-redis users write
// it: a producer goroutine XADDs jobs while three worker goroutines read
// them with XREADGROUP > (COUNT, a short BLOCK) and XACK each. Before they
// start, a consumer reads a few entries and "crashes" without acknowledging
// them; one of them is taken over by id with XCLAIM, the rest, once idle
// long enough (XPENDING's extended form with IDLE and a consumer filter
// shows them), by XAUTOCLAIM. Every job must be processed exactly once, the
// group must end with nothing pending and no lag, and XTRIM MINID then
// drops exactly the entries below the id it is given.
func goStreamWorkers(ctx context.Context, t *testing.T, addr string) {
	const (
		stream, group     = "gsw:jobs", "workers"
		n, first, crashed = 300, 20, 7
		minIdle           = 50 * time.Millisecond
	)
	workers := []string{"w0", "w1", "w2"}
	rdb := goClient(t, addr, 3)
	if err := rdb.XGroupCreateMkStream(ctx, stream, group, "$").Err(); err != nil {
		t.Fatalf("XGROUP CREATE MKSTREAM: %v", err)
	}
	if err := rdb.XGroupCreate(ctx, stream, group, "$").Err(); err == nil || !strings.HasPrefix(err.Error(), "BUSYGROUP") {
		t.Fatalf("XGROUP CREATE of an existing group: got %v, want BUSYGROUP", err)
	}

	var mu sync.Mutex
	var produced []string
	type done struct{ consumer, id, job string }
	var processed []done
	add := func(c *redis.Client, i int) error {
		id, err := c.XAdd(ctx, &redis.XAddArgs{Stream: stream, Values: []any{"job", strconv.Itoa(i)}}).Result()
		if err != nil {
			return fmt.Errorf("XADD job %d: %w", i, err)
		}
		mu.Lock()
		produced = append(produced, id)
		mu.Unlock()
		return nil
	}
	// The first jobs go in before any consumer runs, so the crashing
	// consumer has entries to take.
	for i := range first {
		if err := add(rdb, i); err != nil {
			t.Fatal(err)
		}
	}
	crash, err := rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: group, Consumer: "crash", Streams: []string{stream, ">"}, Count: crashed, Block: -1}).Result()
	if err != nil {
		t.Fatalf("XREADGROUP of the crashing consumer: %v", err)
	}
	equal(t, "streams in the crashing consumer's read", len(crash), 1)
	var crashedIDs []string
	for _, m := range crash[0].Messages {
		crashedIDs = append(crashedIDs, m.ID)
	}
	equal(t, "entries the crashing consumer took", crashedIDs, produced[:crashed])

	// Nothing of the crashed consumer has been idle for an hour.
	ext, err := rdb.XPendingExt(ctx, &redis.XPendingExtArgs{Stream: stream, Group: group, Idle: time.Hour, Start: "-", End: "+", Count: 100, Consumer: "crash"}).Result()
	if err != nil {
		t.Fatalf("XPENDING IDLE 3600000: %v", err)
	}
	equal(t, "entries idle for an hour", len(ext), 0)

	// XCLAIM takes its first entry by id; the claim counts as a delivery.
	claimed, err := rdb.XClaim(ctx, &redis.XClaimArgs{Stream: stream, Group: group, Consumer: "stealer", MinIdle: 0, Messages: []string{crashedIDs[0]}}).Result()
	if err != nil {
		t.Fatalf("XCLAIM %s: %v", crashedIDs[0], err)
	}
	equal(t, "XCLAIM reply", claimed, []redis.XMessage{{ID: crashedIDs[0], Values: map[string]any{"job": "0"}}})
	ext, err = rdb.XPendingExt(ctx, &redis.XPendingExtArgs{Stream: stream, Group: group, Start: "-", End: "+", Count: 100, Consumer: "stealer"}).Result()
	if err != nil {
		t.Fatalf("XPENDING CONSUMER stealer: %v", err)
	}
	if len(ext) != 1 || ext[0].ID != crashedIDs[0] || ext[0].Consumer != "stealer" || ext[0].RetryCount != 2 {
		t.Fatalf("XPENDING of the stealer after XCLAIM: got %+v, want %s with 2 deliveries", ext, crashedIDs[0])
	}
	equal(t, "XACK by the stealer", rdb.XAck(ctx, stream, group, crashedIDs[0]).Val(), int64(1))
	processed = append(processed, done{"stealer", crashedIDs[0], "0"})

	var wg sync.WaitGroup
	errs := make(chan error, 1+len(workers))
	producerDone := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(producerDone)
		c := goClient(t, addr, 2)
		for i := first; i < n; i++ {
			if err := add(c, i); err != nil {
				errs <- err
				return
			}
		}
	}()
	for wi, name := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := goClient(t, addr, 2+wi%2)
			for range 10 * n { // bounded; ends far sooner
				var finished bool
				select {
				case <-producerDone:
					finished = true
				default:
				}
				got, err := c.XReadGroup(ctx, &redis.XReadGroupArgs{Group: group, Consumer: name, Streams: []string{stream, ">"}, Count: 10, Block: 100 * time.Millisecond}).Result()
				if err != nil && err != redis.Nil {
					errs <- fmt.Errorf("%s: XREADGROUP: %w", name, err)
					return
				}
				if len(got) == 0 || len(got[0].Messages) == 0 {
					if finished {
						return // the producer had finished before this empty read
					}
					continue
				}
				ids := make([]string, len(got[0].Messages))
				mu.Lock()
				for i, m := range got[0].Messages {
					ids[i] = m.ID
					job, _ := m.Values["job"].(string)
					processed = append(processed, done{name, m.ID, job})
				}
				mu.Unlock()
				acked, err := c.XAck(ctx, stream, group, ids...).Result()
				if err != nil || acked != int64(len(ids)) {
					errs <- fmt.Errorf("%s: XACK of %d entries: %d, %v", name, len(ids), acked, err)
					return
				}
			}
			errs <- fmt.Errorf("%s: still reading after %d rounds", name, 10*n)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	equal(t, "jobs produced", len(produced), n)
	equal(t, "XLEN", rdb.XLen(ctx, stream).Val(), int64(n))

	// Only the crashed consumer's other entries are pending now.
	rest := crashedIDs[1:]
	sum, err := rdb.XPending(ctx, stream, group).Result()
	if err != nil {
		t.Fatalf("XPENDING: %v", err)
	}
	equal(t, "XPENDING summary before recovery", *sum, redis.XPending{Count: crashed - 1, Lower: rest[0], Higher: rest[len(rest)-1], Consumers: map[string]int64{"crash": crashed - 1}})
	for _, w := range workers {
		ext, err := rdb.XPendingExt(ctx, &redis.XPendingExtArgs{Stream: stream, Group: group, Start: "-", End: "+", Count: 100, Consumer: w}).Result()
		if err != nil || len(ext) != 0 {
			t.Fatalf("XPENDING CONSUMER %s: got %+v, %v; want nothing", w, ext, err)
		}
	}
	// Wait (bounded) until every one of them has been idle for minIdle.
	deadline := time.Now().Add(10 * time.Second)
	for {
		ext, err = rdb.XPendingExt(ctx, &redis.XPendingExtArgs{Stream: stream, Group: group, Idle: minIdle, Start: "-", End: "+", Count: 100, Consumer: "crash"}).Result()
		if err != nil {
			t.Fatalf("XPENDING IDLE CONSUMER crash: %v", err)
		}
		if len(ext) == len(rest) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("XPENDING IDLE %s: only %d of %d entries idle after 10 s", minIdle, len(ext), len(rest))
		}
		time.Sleep(20 * time.Millisecond)
	}
	for i, e := range ext {
		if e.ID != rest[i] || e.Consumer != "crash" || e.RetryCount != 1 || e.Idle < minIdle {
			t.Fatalf("XPENDING IDLE entry %d: got %+v, want %s of crash, 1 delivery, idle >= %s", i, e, rest[i], minIdle)
		}
	}

	// Recovery: idle long enough, all of them are taken in one XAUTOCLAIM.
	msgs, next, err := rdb.XAutoClaim(ctx, &redis.XAutoClaimArgs{Stream: stream, Group: group, MinIdle: minIdle, Start: "0-0", Count: 100, Consumer: "recovery"}).Result()
	if err != nil {
		t.Fatalf("XAUTOCLAIM: %v", err)
	}
	equal(t, "XAUTOCLAIM cursor after a full scan", next, "0-0")
	ids := make([]string, len(msgs))
	for i, m := range msgs {
		ids[i] = m.ID
		job, _ := m.Values["job"].(string)
		processed = append(processed, done{"recovery", m.ID, job})
	}
	equal(t, "entries XAUTOCLAIM recovered", ids, rest)
	equal(t, "XACK by the recovery consumer", rdb.XAck(ctx, stream, group, ids...).Val(), int64(len(ids)))
	msgs, next, err = rdb.XAutoClaim(ctx, &redis.XAutoClaimArgs{Stream: stream, Group: group, Start: "0-0", Consumer: "recovery"}).Result()
	if err != nil || len(msgs) != 0 || next != "0-0" {
		t.Fatalf("XAUTOCLAIM with nothing pending: got %v, %q, %v", msgs, next, err)
	}

	// Every job was processed exactly once, with the fields it was added with.
	equal(t, "jobs processed (exactly once)", len(processed), n)
	index := make(map[string]int, n)
	for i, id := range produced {
		index[id] = i
	}
	seen := make(map[string]bool, n)
	counts := map[string]int{}
	for _, p := range processed {
		i, ok := index[p.id]
		if !ok || seen[p.id] || p.job != strconv.Itoa(i) {
			t.Fatalf("%s processed %s (job %q): unknown, twice, or not job %d", p.consumer, p.id, p.job, i)
		}
		seen[p.id] = true
		counts[p.consumer]++
	}
	equal(t, "jobs of the stealer and the recovery consumer", []int{counts["stealer"], counts["recovery"]}, []int{1, crashed - 1})
	equal(t, "XPENDING count at the end", rdb.XPending(ctx, stream, group).Val().Count, int64(0))

	groups, err := rdb.XInfoGroups(ctx, stream).Result()
	if err != nil {
		t.Fatalf("XINFO GROUPS: %v", err)
	}
	consumers, err := rdb.XInfoConsumers(ctx, stream, group).Result()
	if err != nil {
		t.Fatalf("XINFO CONSUMERS: %v", err)
	}
	// Every consumer that took entries is listed. A worker that never got
	// one (the others drained the stream) is listed by Redis 7.2, which
	// creates the consumer on any XREADGROUP, but not by Redis 7.0, which
	// creates it when it first serves it: it may or may not be there.
	names := map[string]bool{}
	for _, c := range consumers {
		names[c.Name] = true
		if c.Pending != 0 {
			t.Fatalf("XINFO CONSUMERS: %s has %d pending", c.Name, c.Pending)
		}
	}
	equal(t, "XINFO CONSUMERS names are distinct", len(names), len(consumers))
	for _, name := range append([]string{"crash", "recovery", "stealer"}, workers...) {
		if !names[name] && (counts[name] > 0 || !slices.Contains(workers, name)) {
			t.Fatalf("XINFO CONSUMERS %v lacks %s", consumers, name)
		}
		delete(names, name)
	}
	if len(names) != 0 {
		t.Fatalf("XINFO CONSUMERS has unknown consumers: %v", names)
	}
	want := redis.XInfoGroup{Name: group, Consumers: int64(len(consumers)), Pending: 0, LastDeliveredID: produced[n-1], EntriesRead: n, Lag: 0}
	equal(t, "XINFO GROUPS", groups, []redis.XInfoGroup{want})

	// XTRIM MINID drops exactly the entries below the id; the group's
	// counters stay.
	const keep = 150
	equal(t, "XTRIM MINID", rdb.XTrimMinID(ctx, stream, produced[n-keep]).Val(), int64(n-keep))
	equal(t, "XTRIM MINID again", rdb.XTrimMinID(ctx, stream, produced[n-keep]).Val(), int64(0))
	equal(t, "XLEN after XTRIM", rdb.XLen(ctx, stream).Val(), int64(keep))
	head, err := rdb.XRangeN(ctx, stream, "-", "+", 1).Result()
	if err != nil || len(head) != 1 || head[0].ID != produced[n-keep] {
		t.Fatalf("first entry after XTRIM MINID %s: got %v, %v", produced[n-keep], head, err)
	}
	groups, err = rdb.XInfoGroups(ctx, stream).Result()
	if err != nil {
		t.Fatalf("XINFO GROUPS after XTRIM: %v", err)
	}
	equal(t, "XINFO GROUPS after XTRIM", groups, []redis.XInfoGroup{want})
}
