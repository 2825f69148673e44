package server

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/cairndb/cairn/internal/engine"
	"github.com/cairndb/cairn/internal/store"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// startRenamed serves a test server whose configuration renames commands
// as rename-command lines would.
func startRenamed(t *testing.T, renames ...string) *testServer {
	t.Helper()
	cfg := testConfig(t)
	var args []string
	for i := 0; i+1 < len(renames); i += 2 {
		args = append(args, "--rename-command", renames[i], renames[i+1])
	}
	if err := cfg.ApplyArgs(args); err != nil {
		t.Fatal(err)
	}
	eng, err := engine.OpenPebble("", engine.PebbleOptions{FS: vfs.NewMem(), CacheSize: 8 << 20})
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	return serveTest(t, cfg, eng, log, true)
}

// TestRenameCommandEverywhere checks that a renamed command answers to its
// new name only, from a client, inside MULTI and from a script, and that a
// disabled one is gone from COMMAND COUNT, as with Redis's rename-command.
func TestRenameCommandEverywhere(t *testing.T) {
	ts := startRenamed(t, "get", "fetch", "FLUSHALL", "", "config", "cfg")
	c := ts.client(t, 2)
	ctx := context.Background()
	if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if got, err := c.Do(ctx, "fetch", "k").Text(); err != nil || got != "v" {
		t.Errorf("FETCH k = %q, %v", got, err)
	}
	for _, args := range [][]any{{"GET", "k"}, {"FLUSHALL"}} {
		if err := c.Do(ctx, args...).Err(); err == nil || !strings.HasPrefix(err.Error(), "ERR unknown command") {
			t.Errorf("%v: %v", args, err)
		}
	}
	// A renamed container keeps its subcommands.
	if got, err := c.Do(ctx, "CFG", "GET", "hz").StringSlice(); err != nil || len(got) != 2 || got[1] != "100" {
		t.Errorf("CFG GET hz = %q, %v", got, err)
	}
	if err := c.Do(ctx, "CONFIG", "GET", "hz").Err(); err == nil || !strings.HasPrefix(err.Error(), "ERR unknown command") {
		t.Errorf("CONFIG GET hz after the rename: %v", err)
	}
	// MULTI queues by the new name.
	pipe := c.TxPipeline()
	fetch := pipe.Do(ctx, "FETCH", "k")
	if _, err := pipe.Exec(ctx); err != nil || fetch.Val() != "v" {
		t.Errorf("FETCH in MULTI = %v, %v", fetch.Val(), err)
	}
	// A script calls commands by the table's names too.
	if got, err := c.Eval(ctx, "return redis.call('fetch', KEYS[1])", []string{"k"}).Text(); err != nil || got != "v" {
		t.Errorf("redis.call('fetch') = %q, %v", got, err)
	}
	if err := c.Eval(ctx, "return redis.call('get', KEYS[1])", []string{"k"}).Err(); err == nil {
		t.Error("redis.call('get') worked after GET was renamed")
	}
	// COMMAND INFO finds the renamed command under its new name and shows
	// its own; a disabled command is not counted.
	info, err := c.Do(ctx, "COMMAND", "INFO", "fetch").Slice()
	if err != nil || len(info) != 1 {
		t.Fatalf("COMMAND INFO fetch = %v, %v", info, err)
	}
	if entry, ok := info[0].([]any); !ok || entry[0] != "get" {
		t.Errorf("COMMAND INFO fetch = %v", info)
	}
	plain := startServer(t).client(t, 2)
	all, _ := plain.Do(ctx, "COMMAND", "COUNT").Int()
	renamed, _ := c.Do(ctx, "COMMAND", "COUNT").Int()
	if renamed != all-1 {
		t.Errorf("COMMAND COUNT = %d with FLUSHALL disabled, %d without", renamed, all)
	}
}

// TestRenameCommandRefused checks that Build refuses a rename of no
// command, or onto a taken name, naming the directive.
func TestRenameCommandRefused(t *testing.T) {
	for _, tt := range []struct{ old, new, want string }{
		{"nosuch", "x", "command line: 'rename-command \"nosuch\" \"x\"': No such command in rename-command"},
		{"get", "set", "command line: 'rename-command \"get\" \"set\"': Target command name already exists"},
	} {
		cfg := testConfig(t)
		if err := cfg.ApplyArgs([]string{"--rename-command", tt.old, tt.new}); err != nil {
			t.Fatal(err)
		}
		eng, err := engine.OpenPebble("", engine.PebbleOptions{FS: vfs.NewMem(), CacheSize: 1 << 20})
		if err != nil {
			t.Fatal(err)
		}
		st, err := store.Open(eng, store.Options{Databases: 16})
		if err != nil {
			t.Fatal(err)
		}
		_, err = Build(Options{Config: cfg, Store: st})
		if err == nil || err.Error() != tt.want {
			t.Errorf("Build with rename-command %s %s: %v, want %q", tt.old, tt.new, err, tt.want)
		}
		_ = st.Close()
		_ = eng.Close()
	}
}

// TestConfigRewriteWithoutFile checks Redis's refusal of CONFIG REWRITE
// when the server started without a configuration file.
func TestConfigRewriteWithoutFile(t *testing.T) {
	c := startServer(t).client(t, 2)
	err := c.Do(context.Background(), "CONFIG", "REWRITE").Err()
	if err == nil || err.Error() != "ERR The server is running without a config file" {
		t.Errorf("CONFIG REWRITE = %v", err)
	}
}

// TestDiffConfigRewriteAndHelp compares CONFIG REWRITE on a server started
// without a configuration file, and CONFIG HELP, with a real redis-server.
func TestDiffConfigRewriteAndHelp(t *testing.T) {
	d := newDiffRun(t)
	d.same("CONFIG", "REWRITE")
	d.same("CONFIG", "REWRITE", "x")
	r, c := d.send("CONFIG", "HELP")
	// Redis 7.2 says "Print this help.", 7.0 "Prints this help.".
	if r = bytes.Replace(r, []byte("Prints this help."), []byte("Print this help."), 1); !bytes.Equal(r, c) {
		d.mismatch([]string{"CONFIG", "HELP"}, r, c)
	}
	// The settings a stock redis.conf sets and Cairn ignores answer
	// CONFIG GET and CONFIG SET as Redis's do.
	for _, cmd := range [][]string{
		{"CONFIG", "GET", "lazyfree-lazy-user-flush"},
		{"CONFIG", "SET", "lazyfree-lazy-user-flush", "yes"},
		{"CONFIG", "GET", "lazyfree-lazy-user-flush"},
		{"CONFIG", "SET", "activedefrag", "maybe"},
		{"CONFIG", "SET", "maxmemory-policy", "allkeys-lru", "maxmemory", "100mb"},
		{"CONFIG", "SET", "save", "900 1 300"},
		{"CONFIG", "SET", "io-threads", "2"},
		{"CONFIG", "GET", "slave-read-only"},
		{"CONFIG", "SET", "dir", "/tmp"},
		{"CONFIG", "SET", "dbfilename", "x.rdb"},
		{"CONFIG", "SET", "daemonize", "yes"},
	} {
		d.same(cmd...)
	}
	// Redis answers a glob in its dictionary's order.
	d.sameUnordered(true, "CONFIG", "GET", "maxmemory*")
}
