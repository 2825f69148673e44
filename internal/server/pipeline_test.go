package server

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestPipelinedWritesShareATransaction sends pipelines as single writes, so
// the server finds every command buffered and its writes share one
// transaction: each command must still behave as if it ran alone.
func TestPipelinedWritesShareATransaction(t *testing.T) {
	ts := startServer(t)
	rc := ts.wire(t)
	tests := []struct {
		name     string
		pipeline [][]string
		want     []string
	}{
		{
			name: "later commands read earlier writes",
			pipeline: [][]string{
				{"SET", "a", "1"}, {"INCR", "a"}, {"APPEND", "a", "x"}, {"GET", "a"},
			},
			want: []string{"+OK\r\n", ":2\r\n", ":2\r\n", "$2\r\n2x\r\n"},
		},
		{
			name: "a failing command leaves the others",
			pipeline: [][]string{
				{"SET", "b", "1"}, {"INCR", "a"}, {"LPUSH", "b", "x"}, {"INCR", "b"}, {"DBSIZE"},
			},
			want: []string{
				"+OK\r\n", "-ERR value is not an integer or out of range\r\n",
				"-WRONGTYPE Operation against a key holding the wrong kind of value\r\n", ":2\r\n", ":2\r\n",
			},
		},
		{
			name: "counts and types seen inside the pipeline",
			pipeline: [][]string{
				{"DEL", "a", "b"}, {"RPUSH", "l", "1", "2"}, {"SADD", "s", "m"}, {"EXISTS", "l", "s", "a"}, {"DBSIZE"}, {"TYPE", "l"},
			},
			want: []string{":2\r\n", ":2\r\n", ":1\r\n", ":2\r\n", ":2\r\n", "+list\r\n"},
		},
		{
			name: "a write emptying a collection another created",
			pipeline: [][]string{
				{"RPUSH", "q", "x"}, {"LPOP", "q"}, {"EXISTS", "q"}, {"SET", "q", "v"}, {"GET", "q"},
			},
			want: []string{":1\r\n", "$1\r\nx\r\n", ":0\r\n", "+OK\r\n", "$1\r\nv\r\n"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var req strings.Builder
			for _, c := range tt.pipeline {
				req.WriteString(wireCmd(c...))
			}
			rc.write(req.String())
			for i, want := range tt.want {
				if got := rc.reply(); got != want {
					t.Errorf("reply %d to %v = %q, want %q", i, tt.pipeline[i], got, want)
				}
			}
		})
	}
}

// TestPipelinedWritersDoNotDeadlock runs clients that pipeline increments
// of the same keys in opposite orders: transactions that share pipelines
// must never wait for a lock while holding one, and no increment may be lost.
func TestPipelinedWritersDoNotDeadlock(t *testing.T) {
	ts := startServer(t)
	const clients, rounds, keys = 4, 50, 16
	var wg sync.WaitGroup
	for n := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rc := ts.wire(t)
			for range rounds {
				var req strings.Builder
				for k := range keys {
					if n%2 == 1 {
						k = keys - 1 - k
					}
					req.WriteString(wireCmd("INCR", "k"+strconv.Itoa(k)))
				}
				rc.write(req.String())
				for range keys {
					if got := rc.reply(); got[0] != ':' {
						t.Errorf("INCR = %q", got)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	c := ts.client(t, 2)
	for k := range keys {
		if got, err := c.Get(context.Background(), "k"+strconv.Itoa(k)).Int(); err != nil || got != clients*rounds {
			t.Errorf("k%d = %d, %v; want %d", k, got, err, clients*rounds)
		}
	}
}

// TestPipelinedPushWakesBlockedClient: the wake-up of a blocked client
// comes with the commit of the pipeline that pushed, not before it.
func TestPipelinedPushWakesBlockedClient(t *testing.T) {
	ts := startServer(t)
	waiter := ts.client(t, 2)
	got := make(chan string, 1)
	go func() {
		v, err := waiter.BLPop(context.Background(), 5*time.Second, "jobs").Result()
		got <- fmt.Sprint(v, err)
	}()
	listWaitBlocked(t, ts.client(t, 2), 1)
	rc := ts.wire(t)
	rc.write(wireCmd("SET", "x", "1") + wireCmd("RPUSH", "jobs", "a", "b") + wireCmd("SET", "y", "2"))
	for _, want := range []string{"+OK\r\n", ":2\r\n", "+OK\r\n"} {
		if r := rc.reply(); r != want {
			t.Fatalf("reply %q, want %q", r, want)
		}
	}
	if v := <-got; v != "[jobs a] <nil>" {
		t.Fatalf("BLPOP = %s", v)
	}
	if r := rc.do("LRANGE", "jobs", "0", "-1"); r != "*1\r\n$1\r\nb\r\n" {
		t.Fatalf("LRANGE after the pop = %q", r)
	}
}

// TestProtocolErrorAfterPipelinedWrite: the writes before a malformed
// request ran, as in Redis, and their transaction does not outlive the
// connection holding its keys' locks.
func TestProtocolErrorAfterPipelinedWrite(t *testing.T) {
	ts := startServer(t)
	rc := ts.wire(t)
	rc.write(wireCmd("SET", "lkey", "1") + "*1\r\n$x\r\n")
	if got := rc.reply(); got != "+OK\r\n" {
		t.Fatalf("SET = %q", got)
	}
	if got := rc.reply(); !strings.HasPrefix(got, "-ERR Protocol error") {
		t.Fatalf("malformed request = %q", got)
	}
	c := ts.client(t, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if v, err := c.Get(ctx, "lkey").Result(); err != nil || v != "1" {
		t.Fatalf("GET lkey = %q, %v; want the acknowledged 1", v, err)
	}
	if err := c.Set(ctx, "lkey", "2", 0).Err(); err != nil {
		t.Fatalf("SET on the key after the protocol error: %v", err)
	}
}

// TestBlockingReplyToSlowClientKeepsNoLocks: a blocking pop whose reply
// fills the socket of a client that does not read must not keep the list
// locked while the reply waits to be written.
func TestBlockingReplyToSlowClientKeepsNoLocks(t *testing.T) {
	ts := startServer(t)
	c := ts.client(t, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	item := strings.Repeat("x", 10<<10)
	pipe := c.Pipeline()
	for range 3000 {
		pipe.RPush(ctx, "biglist", item)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	slow := ts.wire(t)
	slow.write(wireCmd("BLMPOP", "0", "1", "biglist", "LEFT", "COUNT", "3000"))
	// The 30 MB reply cannot fit the socket buffers of a client that reads
	// nothing; the push must still go through.
	waitUntil(t, 15*time.Second, "the list is emptied", func() bool { return c.Exists(ctx, "biglist").Val() == 0 })
	if err := c.LPush(ctx, "biglist", "y").Err(); err != nil {
		t.Fatalf("LPUSH while the pop's reply is pending: %v", err)
	}
}

// TestSwapDBWakesBlockedClients: after SWAPDB a client blocked on a key
// that the swap filled is served, as Redis rescans both databases.
func TestSwapDBWakesBlockedClients(t *testing.T) {
	ts := startServer(t)
	ctx := context.Background()
	other := ts.client(t, 2)
	if err := other.Do(ctx, "SELECT", "1").Err(); err != nil {
		t.Fatal(err)
	}
	if err := other.RPush(ctx, "k", "a").Err(); err != nil {
		t.Fatal(err)
	}
	waiter := ts.client(t, 2)
	got := make(chan string, 1)
	go func() {
		v, err := waiter.BLPop(ctx, 5*time.Second, "k").Result()
		got <- fmt.Sprint(v, err)
	}()
	listWaitBlocked(t, other, 1)
	if err := other.Do(ctx, "SWAPDB", "0", "1").Err(); err != nil {
		t.Fatal(err)
	}
	if v := <-got; v != "[k a] <nil>" {
		t.Fatalf("BLPOP after SWAPDB = %s", v)
	}
}
