package server

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/config"
	"github.com/cairndb/cairn/internal/engine"
	"github.com/cairndb/cairn/internal/store"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/redis/go-redis/v9"
)

// testServer is a Cairn server on a loopback listener, over an in-memory
// engine, for tests that speak the protocol.
type testServer struct {
	addr string
	cfg  *config.Config
	srv  *Server
	st   *store.Store
	eng  engine.Engine
}

// startServer starts a server for one test and stops it (checking the
// store's invariants) when the test ends. settings are CONFIG-style
// name/value pairs applied before start, e.g. "requirepass", "secret".
func startServer(t testing.TB, settings ...string) *testServer {
	t.Helper()
	cfg := testConfig(t, settings...)
	eng, err := engine.OpenPebble("", engine.PebbleOptions{FS: vfs.NewMem(), CacheSize: 8 << 20})
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	return serveTest(t, cfg, eng, log, true)
}

// testConfig is the default configuration with the test's settings
// (CONFIG-style name/value pairs) and a fast expiry reaper.
func testConfig(t testing.TB, settings ...string) *config.Config {
	t.Helper()
	cfg := config.Default()
	args := []string{"--hz", "100"}
	for i := 0; i+1 < len(settings); i += 2 {
		args = append(args, "--"+settings[i], settings[i+1])
	}
	if err := cfg.ApplyArgs(args); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// serveTest opens a store over eng and serves it on a loopback port until
// the test ends; then it stops the server, checks the store's invariants
// when check is set, and closes the store and the engine.
func serveTest(t testing.TB, cfg *config.Config, eng engine.Engine, log *slog.Logger, check bool) *testServer {
	t.Helper()
	mode, err := store.ParseSyncMode(cfg.AppendFsync())
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(eng, store.Options{Databases: cfg.Databases(), Sync: mode, Logger: log, ReapInterval: 10 * time.Millisecond, KeyCacheSize: cfg.KeyCacheSize(), MemberFilterSize: cfg.MemberFilterSize()})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := New(Options{Config: cfg, Store: st, Logger: log})
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		<-done
		if check {
			if err := store.Check(st); err != nil {
				t.Errorf("store invariants after the test: %v", err)
			}
		}
		_ = st.Close()
		// Every command closes what it opens: with the clients gone and
		// the store's own background work (the expiry reaper) stopped, no
		// engine iterator may be left (Pebble refuses to close under one).
		if p, ok := eng.(*engine.Pebble); ok {
			if n := p.OpenIterators(); n != 0 {
				t.Errorf("%d engine iterators left open after the server and the store stopped", n)
			}
		}
		_ = eng.Close()
	})
	return &testServer{addr: ln.Addr().String(), cfg: cfg, srv: srv, st: st, eng: eng}
}

// client returns a go-redis client speaking RESP2 or RESP3, closed when
// the test ends.
func (ts *testServer) client(t testing.TB, proto int) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{
		Addr:     ts.addr,
		Protocol: proto,
		Password: ts.cfg.RequirePass(),
		// One connection, so SELECT and connection state stick.
		PoolSize:     1,
		MinIdleConns: 0,
		ReadTimeout:  10 * time.Second,
	})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// raw opens a plain TCP connection for byte-level protocol tests.
func (ts *testServer) raw(t testing.TB) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// bothProtocols runs f once over RESP2 and once over RESP3, each on a
// fresh server.
func bothProtocols(t *testing.T, f func(t *testing.T, ts *testServer, c *redis.Client)) {
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) {
			ts := startServer(t)
			f(t, ts, ts.client(t, proto))
		})
	}
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p))
	return len(p), nil
}

func TestHarnessPing(t *testing.T) {
	bothProtocols(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		if got, err := c.Ping(context.Background()).Result(); err != nil || got != "PONG" {
			t.Fatalf("PING = %q, %v", got, err)
		}
	})
}
