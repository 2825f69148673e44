package server

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestMultiMatchesRedis runs transactions on a real Redis and on Cairn and
// compares every reply byte for byte, in RESP2 and RESP3: queueing,
// EXECABORT, run-time errors inside EXEC, nesting errors, WATCH's rules.
func TestMultiMatchesRedis(t *testing.T) {
	scripts := []diffSession{
		{"queued commands run in order", [][]string{
			{"MULTI"}, {"SET", "a", "1"}, {"INCR", "a"}, {"GET", "a"}, {"LPUSH", "a", "x"}, {"APPEND", "a", "z"}, {"EXEC"}, {"GET", "a"},
		}},
		{"empty transaction", [][]string{{"MULTI"}, {"EXEC"}}},
		{"an unknown command aborts", [][]string{
			{"MULTI"}, {"SET", "b", "1"}, {"NOSUCHCMD", "x"}, {"SET", "b", "2"}, {"EXEC"}, {"GET", "b"},
		}},
		{"a wrong arity aborts", [][]string{
			{"MULTI"}, {"SET", "c"}, {"INCR", "c"}, {"EXEC"}, {"EXISTS", "c"},
		}},
		{"an unknown subcommand aborts", [][]string{
			{"MULTI"}, {"CLIENT", "NOPE"}, {"EXEC"},
		}},
		{"nesting and misplaced commands", [][]string{
			{"EXEC"}, {"DISCARD"}, {"MULTI"}, {"MULTI"}, {"WATCH", "k"}, {"PING"}, {"EXEC"},
		}},
		{"discard forgets", [][]string{
			{"MULTI"}, {"SET", "d", "1"}, {"DISCARD"}, {"GET", "d"}, {"EXEC"},
		}},
		{"blocking commands do not block", [][]string{
			{"MULTI"}, {"BLPOP", "nolist", "0"}, {"BZPOPMIN", "nozset", "0"}, {"BLMOVE", "nolist", "x", "LEFT", "LEFT", "0"}, {"EXEC"},
		}},
		{"watch a key changed before multi", [][]string{
			{"SET", "w", "1"}, {"WATCH", "w"}, {"SET", "w", "2"}, {"MULTI"}, {"INCR", "w"}, {"EXEC"}, {"GET", "w"},
		}},
		{"watch an unchanged key", [][]string{
			{"SET", "w2", "1"}, {"WATCH", "w2"}, {"MULTI"}, {"INCR", "w2"}, {"EXEC"}, {"GET", "w2"},
		}},
		{"unwatch clears", [][]string{
			{"WATCH", "w3"}, {"SET", "w3", "1"}, {"UNWATCH"}, {"MULTI"}, {"GET", "w3"}, {"EXEC"},
		}},
		{"exec clears the watches", [][]string{
			{"WATCH", "w4"}, {"SET", "w4", "1"}, {"MULTI"}, {"EXEC"}, {"SET", "w4", "2"}, {"MULTI"}, {"GET", "w4"}, {"EXEC"},
		}},
		{"a deleted watched key", [][]string{
			{"SET", "w5", "1"}, {"WATCH", "w5"}, {"DEL", "w5"}, {"MULTI"}, {"PING"}, {"EXEC"},
		}},
		{"deleting a missing watched key is no change", [][]string{
			{"WATCH", "w6"}, {"DEL", "w6"}, {"MULTI"}, {"PING"}, {"EXEC"},
		}},
		{"an expire on a watched key", [][]string{
			{"SET", "w7", "1"}, {"WATCH", "w7"}, {"EXPIRE", "w7", "100"}, {"MULTI"}, {"PING"}, {"EXEC"},
		}},
		{"flushall does not touch a missing watched key", [][]string{
			{"WATCH", "w8"}, {"FLUSHALL"}, {"MULTI"}, {"PING"}, {"EXEC"},
		}},
		{"flushdb touches an existing watched key", [][]string{
			{"SET", "w9", "1"}, {"WATCH", "w9"}, {"FLUSHDB"}, {"MULTI"}, {"PING"}, {"EXEC"},
		}},
		{"flushdb of another database does not touch", [][]string{
			{"SET", "w10", "1"}, {"WATCH", "w10"}, {"SELECT", "1"}, {"FLUSHDB"}, {"SELECT", "0"}, {"MULTI"}, {"PING"}, {"EXEC"},
		}},
		{"swapdb touches a key existing in the swapped-in database", [][]string{
			{"SELECT", "1"}, {"SET", "w11", "x"}, {"SELECT", "0"}, {"WATCH", "w11"}, {"SWAPDB", "0", "1"}, {"MULTI"}, {"PING"}, {"EXEC"}, {"SWAPDB", "0", "1"},
		}},
		{"a watched key renamed onto", [][]string{
			{"SET", "src", "1"}, {"WATCH", "dst"}, {"RENAME", "src", "dst"}, {"MULTI"}, {"PING"}, {"EXEC"},
		}},
		{"watch inside a transaction's own writes", [][]string{
			{"WATCH", "w12"}, {"MULTI"}, {"SET", "w12", "1"}, {"EXEC"}, {"MULTI"}, {"GET", "w12"}, {"EXEC"},
		}},
		{"select inside multi", [][]string{
			{"MULTI"}, {"SELECT", "2"}, {"SET", "s", "two"}, {"SELECT", "0"}, {"EXEC"}, {"SELECT", "2"}, {"GET", "s"}, {"SELECT", "0"}, {"GET", "s"},
		}},
		{"flushall and keys inside multi", [][]string{
			{"SET", "f1", "1"}, {"MULTI"}, {"KEYS", "f*"}, {"FLUSHALL"}, {"DBSIZE"}, {"EXEC"},
		}},
		{"reset ends a transaction", [][]string{
			{"WATCH", "r1"}, {"MULTI"}, {"SET", "r1", "1"}, {"RESET"}, {"EXEC"}, {"GET", "r1"},
		}},
	}
	runDiffSessions(t, scripts)
}

// diffSession is a named sequence of commands for runDiffSessions.
type diffSession struct {
	name string
	cmds [][]string
}

// runDiffSessions plays each session on a fresh real Redis and a fresh
// Cairn, in RESP2 and in RESP3, comparing every reply byte for byte.
func runDiffSessions(t *testing.T, sessions []diffSession) {
	for _, proto := range []int{2, 3} {
		for _, sc := range sessions {
			t.Run(fmt.Sprintf("resp%d/%s", proto, sc.name), func(t *testing.T) {
				d := newDiffRunProto(t, proto)
				for _, c := range sc.cmds {
					d.same(c...)
				}
			})
		}
	}
}

// TestWatchExpiredKeyAbortsExec: a key watched while live that expires
// before EXEC aborts it, even when nothing has reclaimed the key yet; a
// key already expired when watched does not.
func TestWatchExpiredKeyAbortsExec(t *testing.T) {
	ts := startServer(t)
	rc := ts.wire(t)
	rc.do("SET", "soon", "1", "PX", "50")
	rc.do("WATCH", "soon")
	time.Sleep(80 * time.Millisecond)
	rc.do("MULTI")
	rc.do("PING")
	if got := rc.do("EXEC"); got != "*-1\r\n" {
		t.Fatalf("EXEC after a watched key expired = %q, want a nil array", got)
	}
	rc.do("SET", "gone", "1", "PX", "1")
	time.Sleep(10 * time.Millisecond)
	rc.do("WATCH", "gone")
	rc.do("MULTI")
	rc.do("PING")
	if got := rc.do("EXEC"); got != "*1\r\n+PONG\r\n" {
		t.Fatalf("EXEC watching an already expired key = %q", got)
	}
}

// TestWatchSeesOtherClients: a change by another client aborts EXEC; the
// optimistic-lock retry loop of Redis's documentation then counts every
// increment of concurrent clients exactly once.
func TestWatchSeesOtherClients(t *testing.T) {
	ts := startServer(t)
	ctx := context.Background()
	a, b := ts.client(t, 2), ts.client(t, 3)
	if err := a.Set(ctx, "k", "1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	err := a.Watch(ctx, func(tx *redis.Tx) error {
		if err := b.Set(ctx, "k", "2", 0).Err(); err != nil {
			return err
		}
		_, err := tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Set(ctx, "k", "3", 0)
			return nil
		})
		return err
	}, "k")
	if !errors.Is(err, redis.TxFailedErr) {
		t.Fatalf("Watch after another client's write: %v, want TxFailedErr", err)
	}
	if v := a.Get(ctx, "k").Val(); v != "2" {
		t.Fatalf("k = %q, want 2 (the aborted transaction must not apply)", v)
	}

	const clients, incrs = 8, 25
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := ts.client(t, 2+i%2)
			for range incrs {
				for attempt := 0; ; attempt++ {
					if attempt > 1000 {
						errs <- errors.New("too many retries")
						return
					}
					err := c.Watch(ctx, func(tx *redis.Tx) error {
						n, err := tx.Get(ctx, "counter").Int()
						if err != nil && err != redis.Nil {
							return err
						}
						_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
							p.Set(ctx, "counter", strconv.Itoa(n+1), 0)
							return nil
						})
						return err
					}, "counter")
					if err == nil {
						break
					}
					if !errors.Is(err, redis.TxFailedErr) {
						errs <- err
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n, _ := a.Get(ctx, "counter").Int(); n != clients*incrs {
		t.Fatalf("counter = %d, want %d", n, clients*incrs)
	}
}

// TestExecIsAtomic: readers never see half of a transaction. One client
// moves a unit between two keys in MULTI/EXEC; others read both keys with
// MGET and must always see the sum unchanged.
func TestExecIsAtomic(t *testing.T) {
	ts := startServer(t)
	ctx := context.Background()
	w := ts.client(t, 2)
	w.MSet(ctx, "x", 100, "y", 0)
	done := make(chan struct{})
	var wg sync.WaitGroup
	var bad sync.Once
	var badErr error
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := ts.client(t, 2)
			for {
				select {
				case <-done:
					return
				default:
				}
				vals, err := r.MGet(ctx, "x", "y").Result()
				if err != nil {
					bad.Do(func() { badErr = err })
					return
				}
				x, _ := strconv.Atoi(vals[0].(string))
				y, _ := strconv.Atoi(vals[1].(string))
				if x+y != 100 {
					bad.Do(func() { badErr = fmt.Errorf("saw x=%d y=%d mid-transaction", x, y) })
					return
				}
			}
		}()
	}
	for range 300 {
		if _, err := w.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.DecrBy(ctx, "x", 1)
			p.IncrBy(ctx, "y", 1)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	wg.Wait()
	if badErr != nil {
		t.Fatal(badErr)
	}
	if got := w.MGet(ctx, "x", "y").Val(); fmt.Sprint(got) != "[-200 300]" {
		t.Fatalf("x, y = %v", got)
	}
}

// TestMultiQueueErrorsAndLimits: a queued transaction keeps only what it
// needs, and commands refused while queueing doom EXEC.
func TestMultiQueueErrorsAndLimits(t *testing.T) {
	ts := startServer(t)
	rc := ts.wire(t)
	rc.do("MULTI")
	var req strings.Builder
	const n = 20000
	for i := range n {
		req.WriteString(wireCmd("RPUSH", "big", strconv.Itoa(i)))
	}
	rc.write(req.String())
	for i := range n {
		if got := rc.reply(); got != "+QUEUED\r\n" {
			t.Fatalf("reply %d = %q", i, got)
		}
	}
	got := rc.do("EXEC")
	if !strings.HasPrefix(got, fmt.Sprintf("*%d\r\n:1\r\n:2\r\n", n)) {
		t.Fatalf("EXEC = %.40q", got)
	}
	if got := rc.do("LLEN", "big"); got != fmt.Sprintf(":%d\r\n", n) {
		t.Fatalf("LLEN = %q", got)
	}
}

// TestMultiQueueLimit: a transaction whose queued commands pass
// client-query-buffer-limit is dropped, answered with a clear error, and
// EXEC aborts; the connection and the server go on.
func TestMultiQueueLimit(t *testing.T) {
	ts := startServer(t, "client-query-buffer-limit", "1mb")
	rc := ts.wire(t)
	rc.do("MULTI")
	big := strings.Repeat("x", 64<<10)
	var got string
	for i := range 40 {
		got = rc.do("SET", "k"+strconv.Itoa(i), big)
		if got != "+QUEUED\r\n" {
			break
		}
	}
	if !strings.Contains(got, "client-query-buffer-limit") {
		t.Fatalf("queueing past the limit answered %q", got)
	}
	if got := rc.do("SET", "after", "1"); got != "+QUEUED\r\n" {
		t.Fatalf("after the limit: %q", got)
	}
	if got := rc.do("EXEC"); !strings.HasPrefix(got, "-EXECABORT") {
		t.Fatalf("EXEC = %q", got)
	}
	if got := rc.do("EXISTS", "k0", "after"); got != ":0\r\n" {
		t.Fatalf("keys of the dropped transaction exist: %q", got)
	}
}
