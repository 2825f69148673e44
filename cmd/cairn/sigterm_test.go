package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// sigtermLoads run concurrently against the server while it receives
// SIGTERM: the hash-heavy mix that made Pebble refuse to close ("leaked
// iterators: current", exit status 1), reads that hold iterators (HGETALL,
// HSCAN, SCAN), replies without end (HRANDFIELD, SRANDMEMBER with a
// huge negative count), field expiry, blocked clients, subscribers, a
// background save, transactions and metrics scrapes.
var sigtermLoads = []struct {
	name string
	run  func(ctx context.Context, c *redis.Client, rnd *rand.Rand) error
}{
	{"HSET pipeline", func(ctx context.Context, c *redis.Client, rnd *rand.Rand) error {
		pipe := c.Pipeline()
		for range 32 {
			pipe.HSet(ctx, "h"+strconv.Itoa(rnd.IntN(50)), "f"+strconv.Itoa(rnd.IntN(500)), "v")
		}
		_, err := pipe.Exec(ctx)
		return err
	}},
	{"HGETALL", func(ctx context.Context, c *redis.Client, rnd *rand.Rand) error {
		return c.HGetAll(ctx, "h"+strconv.Itoa(rnd.IntN(50))).Err()
	}},
	{"HSCAN", func(ctx context.Context, c *redis.Client, rnd *rand.Rand) error {
		return c.HScan(ctx, "h"+strconv.Itoa(rnd.IntN(50)), 0, "*", 10).Err()
	}},
	{"HEXPIRE and HDEL", func(ctx context.Context, c *redis.Client, rnd *rand.Rand) error {
		k := "h" + strconv.Itoa(rnd.IntN(50))
		if err := c.HPExpire(ctx, k, 5*time.Millisecond, "f"+strconv.Itoa(rnd.IntN(500))).Err(); err != nil && err != redis.Nil {
			return err
		}
		return c.HDel(ctx, k, "f"+strconv.Itoa(rnd.IntN(500))).Err()
	}},
	{"HRANDFIELD without end", func(ctx context.Context, c *redis.Client, rnd *rand.Rand) error {
		return endless(c, "HRANDFIELD", "h"+strconv.Itoa(rnd.IntN(50)), "-9223372036854775807")
	}},
	{"SRANDMEMBER without end", func(ctx context.Context, c *redis.Client, rnd *rand.Rand) error {
		if err := c.SAdd(ctx, "s", rnd.IntN(100)).Err(); err != nil {
			return err
		}
		return endless(c, "SRANDMEMBER", "s", "-9223372036854775807")
	}},
	{"SCAN and DEL", func(ctx context.Context, c *redis.Client, rnd *rand.Rand) error {
		if err := c.Scan(ctx, 0, "h*", 100).Err(); err != nil {
			return err
		}
		return c.Del(ctx, "h"+strconv.Itoa(rnd.IntN(50))).Err()
	}},
	{"BLPOP and LPUSH", func(ctx context.Context, c *redis.Client, rnd *rand.Rand) error {
		if rnd.IntN(2) == 0 {
			return c.LPush(ctx, "q", "x").Err()
		}
		return c.Do(ctx, "BLPOP", "q", "0.02").Err()
	}},
	{"BGSAVE", func(ctx context.Context, c *redis.Client, rnd *rand.Rand) error {
		// Mostly "already in progress": an error reply, not a failure.
		return c.BgSave(ctx).Err()
	}},
	{"SUBSCRIBE and PUBLISH", func(ctx context.Context, c *redis.Client, rnd *rand.Rand) error {
		sub := c.Subscribe(ctx, "ch")
		defer sub.Close()
		if _, err := sub.Receive(ctx); err != nil {
			return err
		}
		return c.Publish(ctx, "ch", "m").Err()
	}},
	{"MULTI", func(ctx context.Context, c *redis.Client, rnd *rand.Rand) error {
		_, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
			k := "h" + strconv.Itoa(rnd.IntN(50))
			p.HIncrBy(ctx, k, "n", 1)
			p.HLen(ctx, k)
			return nil
		})
		return err
	}},
}

// endless sends a command whose reply has no end on a connection of its
// own, reads a little of the reply and hangs up (go-redis cannot read an
// array of 2⁶³−1 elements).
func endless(c *redis.Client, args ...string) error {
	nc, err := net.Dial("tcp", c.Options().Addr)
	if err != nil {
		return err
	}
	defer nc.Close()
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := nc.Write([]byte(b.String())); err != nil {
		return err
	}
	_ = nc.SetReadDeadline(time.Now().Add(time.Second))
	buf := make([]byte, 64<<10)
	for range 4 {
		if _, err := nc.Read(buf); err != nil {
			return err
		}
	}
	return nil
}

// TestSigtermUnderLoadExitsCleanly sends SIGTERM to a server under load,
// round after round on the same data directory: every time the server
// must close its engine cleanly and exit with status 0, since a
// supervisor reads anything else as a crash.
func TestSigtermUnderLoadExitsCleanly(t *testing.T) {
	rounds := 30
	if testing.Short() {
		rounds = 5
	}
	bin := buildCairn(t)
	dir := t.TempDir()
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rnd := rand.New(rand.NewPCG(uint64(seed), 0))
	for round := range rounds {
		maddr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
		p := startCairn(t, bin, true, 0, "--dir", dir, "--metrics-addr", maddr)
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		for i, load := range sigtermLoads {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c := redis.NewClient(&redis.Options{Addr: fmt.Sprintf("127.0.0.1:%d", p.port), PoolSize: 1, MaxRetries: -1, ReadTimeout: 5 * time.Second})
				defer c.Close()
				r := rand.New(rand.NewPCG(uint64(seed), uint64(round*100+i)))
				for ctx.Err() == nil {
					err := load.run(ctx, c, r)
					var reply redis.Error
					if err != nil && err != redis.Nil && !errors.As(err, &reply) {
						return // the server went away
					}
				}
			}()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				resp, err := http.Get("http://" + maddr + "/metrics")
				if err != nil {
					return
				}
				_ = resp.Body.Close()
			}
		}()
		time.Sleep(time.Duration(20+rnd.IntN(300)) * time.Millisecond)
		if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		code := p.wait(t)
		cancel()
		wg.Wait()
		out := p.out.String()
		if code != 0 || strings.Contains(out, "level=ERROR") {
			t.Fatalf("round %d: exit status %d after SIGTERM under load (seed %d):\n%s", round, code, seed, out)
		}
	}
}

// TestSigtermWhileOpening sends SIGTERM while the engine replays a large
// log at start: the signal waits until the server is up, which then shuts
// down cleanly with exit status 0 instead of dying of the signal.
func TestSigtermWhileOpening(t *testing.T) {
	bin := buildCairn(t)
	dir := t.TempDir()
	p := startCairn(t, bin, true, 0, "--dir", dir)
	c := redis.NewClient(&redis.Options{Addr: fmt.Sprintf("127.0.0.1:%d", p.port), PoolSize: 1})
	ctx := context.Background()
	value := strings.Repeat("v", 100)
	for batch := range 100 {
		pipe := c.Pipeline()
		for i := range 1000 {
			pipe.Set(ctx, fmt.Sprintf("key:%d:%d", batch, i), value, 0)
		}
		if _, err := pipe.Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	_ = c.Close()
	// Killed, the server leaves its log unflushed: the next start replays it.
	p.kill(t)
	// The pid file appears once the server catches signals, before the
	// engine opens: a SIGTERM sent earlier would kill the process.
	pidFile := filepath.Join(t.TempDir(), "cairn.pid")
	q := p.restartForSignal(t, bin, "--dir", dir, "--pidfile", pidFile)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(time.Millisecond) {
		if _, err := os.Stat(pidFile); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no pid file after 30 s:\n%s", q.out)
		}
	}
	if err := q.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := q.wait(t); code != 0 || !strings.Contains(q.out.String(), "ready to exit") {
		t.Fatalf("exit status %d after SIGTERM at start:\n%s", code, q.out)
	}
}

// restartForSignal starts bin again on p's port without waiting for it to
// be ready.
func (p *cairnProc) restartForSignal(t *testing.T, bin string, args ...string) *cairnProc {
	t.Helper()
	args = append(args, "--port", strconv.Itoa(p.port))
	q := &cairnProc{cmd: exec.Command(bin, args...), port: p.port, out: &lockedBuffer{}, done: make(chan struct{})}
	q.cmd.Stdout, q.cmd.Stderr = q.out, q.out
	if err := q.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { q.err = q.cmd.Wait(); close(q.done) }()
	t.Cleanup(func() {
		_ = q.cmd.Process.Kill()
		<-q.done
	})
	return q
}
