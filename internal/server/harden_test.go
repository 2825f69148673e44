package server

import (
	"bufio"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/engine"
	"github.com/cairndb/cairn/internal/store"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"
	"github.com/redis/go-redis/v9"
)

// faultyListener fails its first faults Accepts with err, as a listener
// does when the process is out of descriptors.
type faultyListener struct {
	net.Listener
	faults atomic.Int64
	err    error
}

func (l *faultyListener) Accept() (net.Conn, error) {
	if l.faults.Add(-1) >= 0 {
		return nil, l.err
	}
	return l.Listener.Accept()
}

// TestAcceptOutOfDescriptorsKeepsServing: accept failing with EMFILE or
// ENFILE is a shortage that ends when descriptors are freed, not the end of
// the server (it used to return from Serve, which shut the process down).
func TestAcceptOutOfDescriptorsKeepsServing(t *testing.T) {
	for _, errno := range []syscall.Errno{syscall.EMFILE, syscall.ENFILE} {
		t.Run(errno.Error(), func(t *testing.T) {
			eng, err := engine.OpenPebble("", engine.PebbleOptions{FS: vfs.NewMem(), CacheSize: 8 << 20})
			if err != nil {
				t.Fatal(err)
			}
			log := slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelError}))
			st, err := store.Open(eng, store.Options{Databases: 16, Logger: log})
			if err != nil {
				t.Fatal(err)
			}
			defer eng.Close()
			defer st.Close()
			inner, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			ln := &faultyListener{Listener: inner, err: &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", errno)}}
			ln.faults.Store(6)
			srv := New(Options{Config: testConfig(t), Store: st, Logger: log})
			done := make(chan error, 1)
			go func() { done <- srv.Serve(ln) }()
			c := redis.NewClient(&redis.Options{Addr: inner.Addr().String(), PoolSize: 1, ReadTimeout: 10 * time.Second})
			defer c.Close()
			if err := c.Ping(context.Background()).Err(); err != nil {
				t.Fatalf("PING after accept failed with %v: %v", errno, err)
			}
			select {
			case err := <-done:
				t.Fatalf("Serve returned %v", err)
			default:
			}
			if err := srv.Shutdown(context.Background()); err != nil {
				t.Fatal(err)
			}
			if err := <-done; err != ErrServerClosed {
				t.Fatalf("Serve after Shutdown = %v", err)
			}
		})
	}
}

// logBuffer collects a server's log lines for a test to look at.
type logBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startLoggedServer is startServer with the log kept for the test.
func startLoggedServer(t *testing.T, settings ...string) (*testServer, *logBuffer) {
	t.Helper()
	eng, err := engine.OpenPebble("", engine.PebbleOptions{FS: vfs.NewMem(), CacheSize: 8 << 20})
	if err != nil {
		t.Fatal(err)
	}
	logs := &logBuffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	return serveTest(t, testConfig(t, settings...), eng, log, true), logs
}

// TestQueryBufferLimitClosesClient: a never-finished request of millions
// of empty arguments, sent slowly, is cut off at client-query-buffer-limit
// (which counts each argument's overhead) with Redis's log line; the server
// goes on serving.
func TestQueryBufferLimitClosesClient(t *testing.T) {
	ts, logs := startLoggedServer(t)
	ctx := context.Background()
	admin := ts.client(t, 2)
	if err := admin.ConfigSet(ctx, "client-query-buffer-limit", "1mb").Err(); err != nil {
		t.Fatal(err)
	}
	if got := admin.ConfigGet(ctx, "client-query-buffer-limit").Val()["client-query-buffer-limit"]; got != "1048576" {
		t.Fatalf("CONFIG GET client-query-buffer-limit = %q", got)
	}
	nc, err := net.Dial("tcp", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if _, err := nc.Write([]byte("*10000000\r\n")); err != nil {
		t.Fatal(err)
	}
	chunk := []byte(strings.Repeat("$0\r\n\r\n", 1000))
	sent := 0
	for ; sent < 10_000; sent++ {
		// 6 MB in all, 1000 arguments at a time: the limit (1 MB, about
		// 16,000 arguments with their overhead) must stop it first.
		if _, err := nc.Write(chunk); err != nil {
			break
		}
		time.Sleep(100 * time.Microsecond)
	}
	_ = nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	if n, err := nc.Read(make([]byte, 64)); err == nil {
		t.Fatalf("the connection stayed open after %d chunks; read %d bytes", sent, n)
	}
	if !strings.Contains(logs.String(), `Closing client that reached max query buffer length: id=`) ||
		!strings.Contains(logs.String(), `(qbuf initial bytes: \"*10000000\\r\\n$0\\r\\n\")`) {
		t.Fatalf("no log line for the closed client:\n%s", logs)
	}
	if err := admin.Ping(ctx).Err(); err != nil {
		t.Fatalf("PING after the client was closed: %v", err)
	}
}

// TestAuthFailuresCountedAndLogged: every refused AUTH and HELLO AUTH counts
// in INFO stats as acl_access_denied_auth, as in Redis, and is logged.
func TestAuthFailuresCountedAndLogged(t *testing.T) {
	ts, logs := startLoggedServer(t, "requirepass", "secret")
	ctx := context.Background()
	bad := redis.NewClient(&redis.Options{Addr: ts.addr, Password: "wrong", PoolSize: 1, MaxRetries: -1})
	defer bad.Close()
	nc, err := net.Dial("tcp", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	rd := bufio.NewReader(nc)
	for _, req := range []string{"AUTH nope\r\n", "AUTH default nope\r\n", "AUTH someone secret\r\n", "HELLO 3 AUTH default nope\r\n", "AUTH secret\r\n"} {
		if _, err := nc.Write([]byte(req)); err != nil {
			t.Fatal(err)
		}
		line, _ := rd.ReadString('\n')
		want := "-WRONGPASS invalid username-password pair or user is disabled.\r\n"
		if req == "AUTH secret\r\n" {
			want = "+OK\r\n"
		}
		if line != want {
			t.Fatalf("%q: reply %q, want %q", req, line, want)
		}
	}
	admin := ts.client(t, 2)
	stat := func() string {
		info := admin.Info(ctx, "stats").Val()
		for _, l := range strings.Split(info, "\r\n") {
			if v, ok := strings.CutPrefix(l, "acl_access_denied_auth:"); ok {
				return v
			}
		}
		return "(missing)"
	}
	if got := stat(); got != "4" {
		t.Fatalf("acl_access_denied_auth = %s, want 4", got)
	}
	if !strings.Contains(logs.String(), "authentication failed") {
		t.Fatalf("no log of the failures:\n%s", logs)
	}
	if err := admin.ConfigResetStat(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if got := stat(); got != "0" {
		t.Fatalf("acl_access_denied_auth after CONFIG RESETSTAT = %s", got)
	}
}

// TestUnauthenticatedRepliesPileUp: a client that has never authenticated
// and pipelines requests without reading is closed once its waiting replies
// pass a small limit, instead of being answered 100,000 times.
func TestUnauthenticatedRepliesPileUp(t *testing.T) {
	ts, logs := startLoggedServer(t, "requirepass", "secret")
	nc, err := net.Dial("tcp", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	go func() { _, _ = nc.Write([]byte(strings.Repeat("AUTH wrong\r\n", 100_000))) }()
	_ = nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	got, err := io.ReadAll(nc)
	// Closed with requests unread, the socket may be reset.
	if err != nil && !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("the connection was not closed: %v after %d bytes", err, len(got))
	}
	if n := strings.Count(string(got), "-WRONGPASS"); n >= 1000 {
		t.Fatalf("%d replies sent before the connection closed", n)
	}
	if !strings.Contains(logs.String(), "Closing unauthenticated client whose replies reached the output limit") {
		t.Fatalf("no log line:\n%s", logs)
	}

	// A client that authenticated once is not held to it, even after RESET.
	c, err := net.Dial("tcp", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	req := "AUTH secret\r\nRESET\r\n" + strings.Repeat("GET k\r\n", 2000) + "PING\r\n"
	go func() { _, _ = c.Write([]byte(req)) }()
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	rd := bufio.NewReader(c)
	for i := range 2003 {
		line, err := rd.ReadString('\n')
		if err != nil {
			t.Fatalf("reply %d: %v", i, err)
		}
		if i == 2002 && line != "-NOAUTH Authentication required.\r\n" {
			t.Fatalf("last reply %q", line)
		}
	}
}

// noSpace fails file writes with ENOSPC while on, as a full disk does.
type noSpace struct{ on atomic.Bool }

func (d *noSpace) MaybeError(op errorfs.Op) error {
	if d.on.Load() && (op.Kind == errorfs.OpFileWrite || op.Kind == errorfs.OpFileWriteAt || op.Kind == errorfs.OpFilePreallocate) {
		return &os.PathError{Op: "write", Path: op.Path, Err: syscall.ENOSPC}
	}
	return nil
}

func (d *noSpace) String() string { return "no space" }

// TestStartOnFullDisk: a server started on a full disk (its WAL to be
// flushed at open) starts, serves reads, answers writes with MISCONF, and
// takes writes again once space is freed, without a restart. It used to
// spin in Pebble's flush loop and never listen.
func TestStartOnFullDisk(t *testing.T) {
	disk := &noSpace{}
	fs := errorfs.Wrap(vfs.NewMem(), disk)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	eng, err := engine.OpenPebble("", engine.PebbleOptions{FS: fs, CacheSize: 8 << 20, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(eng, store.Options{Databases: 16, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	tx := st.Begin([][]byte{[]byte("k")})
	if _, err := tx.SetString(0, []byte("k"), []byte("before"), store.SetArgs{}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	tx.Close()
	_ = st.Close()
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}

	disk.on.Store(true)
	opened := make(chan *engine.Pebble, 1)
	go func() {
		eng, err := engine.OpenPebble("", engine.PebbleOptions{FS: fs, CacheSize: 8 << 20, Logger: quiet})
		if err != nil {
			t.Error(err)
		}
		opened <- eng
	}()
	select {
	case eng = <-opened:
	case <-time.After(10 * time.Second):
		t.Fatal("the engine did not open on a full disk")
	}
	if eng == nil {
		t.FailNow()
	}
	ts := serveTest(t, testConfig(t), eng, quiet, false)
	c := ts.client(t, 2)
	ctx := context.Background()
	if got, err := c.Get(ctx, "k").Result(); err != nil || got != "before" {
		t.Fatalf("GET on a full disk = %q, %v", got, err)
	}
	err = c.Set(ctx, "k", "after", 0).Err()
	if err == nil || !strings.HasPrefix(err.Error(), "MISCONF ") {
		t.Fatalf("SET on a full disk = %v, want MISCONF", err)
	}
	disk.on.Store(false)
	deadline := time.Now().Add(10 * time.Second)
	for c.Set(ctx, "k", "after", 0).Err() != nil {
		if time.Now().After(deadline) {
			t.Fatal("writes did not resume once space was freed")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got, err := c.Get(ctx, "k").Result(); err != nil || got != "after" {
		t.Fatalf("GET after space was freed = %q, %v", got, err)
	}
}
