package server

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/redis/go-redis/v9"

	"github.com/cairndb/cairn/internal/engine"
	"github.com/cairndb/cairn/internal/store"
)

// TestScriptingMatchesRedis runs scripts, functions and their management
// commands on a real Redis and on Cairn, in RESP2 and RESP3, and compares
// every reply byte for byte.
func TestScriptingMatchesRedis(t *testing.T) {
	scripts := []diffSession{
		{"calls and conversions", [][]string{
			{"EVAL", "return redis.call('INCR', KEYS[1])", "1", "n"},
			{"EVAL", "return redis.call('GET', KEYS[1])", "1", "n"},
			{"EVAL", "return {1, 'two', {3}, false, true, 3.99, -2.5}", "0"},
			{"EVAL", "return redis.call('HGETALL', 'nohash')", "0"},
			{"EVAL", "redis.call('RPUSH', 'l', 'a', 'b'); return redis.call('LRANGE', 'l', 0, -1)", "0"},
			{"EVAL", "return redis.call('GET', 'nokey')", "0"},
			{"EVAL", "return {ok='FINE'}", "0"},
			{"EVAL", "return {err='MYERR bad thing'}", "0"},
			{"EVAL", "return redis.status_reply('S')", "0"},
			{"EVAL", "return redis.error_reply('E1')", "0"},
			{"EVAL", "return redis.sha1hex('')", "0"},
			{"EVAL", "return {KEYS[1], KEYS[2], ARGV[1], ARGV[2]}", "2", "k1", "k2", "a1", "a2"},
			{"EVAL", "redis.setresp(3); return redis.call('HGETALL', KEYS[1])", "1", "h"},
			{"EVAL", "redis.call('HSET', KEYS[1], 'f', 'v'); redis.setresp(3); return redis.call('HGETALL', KEYS[1])", "1", "h"},
			{"EVAL", "redis.setresp(3); return {double=3.5}", "0"},
			{"EVAL", "redis.setresp(3); return {map={a=1}}", "0"},
			{"EVAL", "return redis.pcall('INCR', 'l')", "0"},
			{"EVAL", "return redis.call('INCR', 'l')", "0"},
			{"EVAL", "local ok = redis.pcall('NOSUCH'); return ok", "0"},
			{"EVAL", "return redis.call('GET')", "0"},
			{"EVAL", "return x", "0"},
			{"EVAL", "x = 1", "0"},
			{"EVAL", "return cjson.decode('[1,2,{\"a\":3}]')[3].a", "0"},
			{"EVAL", "return tostring(bit.band(0xff, 0x0f))", "0"},
			{"EVAL", "return redis.call('MULTI')", "0"},
			{"EVAL", "return redis.call('EVAL', 'return 1', '0')", "0"},
			{"EVAL", "return redis.call('BLPOP', 'nolist', 0)", "0"},
			{"EVAL", "redis.call('SELECT', 3); redis.call('SET', 'in3', 'x'); return redis.call('GET', 'in3')", "0"},
			{"GET", "in3"},
			{"SELECT", "3"},
			{"GET", "in3"},
			{"SELECT", "0"},
		}},
		{"argument errors", [][]string{
			{"EVAL", "return 1", "x"},
			{"EVAL", "return 1", "3", "a"},
			{"EVAL", "return 1", "-1"},
			{"EVAL", "return (", "0"},
			{"EVALSHA", "ffffffffffffffffffffffffffffffffffffffff", "0"},
			{"EVALSHA", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "0"},
			{"EVAL", "return 1", "0"},
			{"EVALSHA", "E0E1F9FABFC9D4800C877A703B823AC0578FF8DB", "0"},
		}},
		{"read-only scripts", [][]string{
			{"EVAL_RO", "return redis.call('SET', 'a', 'b')", "0"},
			{"EVAL_RO", "return redis.call('GET', 'a')", "0"},
			{"EVAL", "#!lua flags=no-writes\nreturn redis.call('SET', 'a', 'b')", "0"},
			{"EVAL_RO", "#!lua\nreturn 1", "0"},
			{"EVAL", "#!lua flags=no-writes,allow-oom\nreturn 2", "0"},
			{"EVAL", "#!lua flags=bogus\nreturn 2", "0"},
			{"EVAL", "#!perl\nreturn 2", "0"},
		}},
		{"script cache", [][]string{
			{"SCRIPT", "LOAD", "return 'cached'"},
			{"SCRIPT", "EXISTS", "a5b1d8b4a5a7d8d0d4e6f7a8b9c0d1e2f3a4b5c6", "0a8b8a5e1a83e26ad53c7e1c2d0a1bd1d0e4e1c5"},
			{"EVALSHA", "0a8b8a5e1a83e26ad53c7e1c2d0a1bd1d0e4e1c5", "0"},
			{"SCRIPT", "FLUSH"},
			{"SCRIPT", "FLUSH", "ASYNC"},
			{"SCRIPT", "FLUSH", "BOGUS"},
			{"SCRIPT", "KILL"},
			{"SCRIPT", "NOSUCH"},
		}},
		{"functions", [][]string{
			{"FUNCTION", "LOAD", "#!lua name=lib1\nredis.register_function('f1', function(keys, args) return redis.call('INCRBY', keys[1], args[1]) end)"},
			{"FUNCTION", "LOAD", "#!lua name=lib2\nredis.register_function{function_name='ro1', callback=function(keys) return redis.call('GET', keys[1]) end, flags={'no-writes'}, description='reads'}"},
			{"FUNCTION", "LOAD", "#!lua name=lib1\nredis.register_function('f1', function() return 1 end)"},
			{"FCALL", "f1", "1", "fk", "5"},
			{"FCALL", "f1", "1", "fk", "5"},
			{"FCALL_RO", "f1", "1", "fk", "5"},
			{"FCALL_RO", "ro1", "1", "fk"},
			{"FCALL", "nosuch", "0"},
			{"FUNCTION", "LIST", "LIBRARYNAME", "lib2"},
			{"FUNCTION", "LIST", "WITHCODE", "LIBRARYNAME", "lib1"},
			{"FUNCTION", "LIST", "LIBRARYNAME", "zz*"},
			{"FUNCTION", "STATS"},
			{"FUNCTION", "DELETE", "nolib"},
			{"FUNCTION", "KILL"},
			{"FUNCTION", "RESTORE", "bogus"},
			{"FUNCTION", "DELETE", "lib1"},
			{"FCALL", "f1", "1", "fk", "5"},
			{"FUNCTION", "FLUSH"},
		}},
		{"scripts in transactions", [][]string{
			{"MULTI"},
			{"EVAL", "return redis.call('SET', KEYS[1], 'm')", "1", "mk"},
			{"GET", "mk"},
			{"EXEC"},
		}},
	}
	runDiffSessions(t, scripts)
}

// TestFunctionsSurviveRestart: libraries are data in the engine, loaded
// again when a server starts over the same files.
func TestFunctionsSurviveRestart(t *testing.T) {
	fs := vfs.NewMem()
	ctx := context.Background()
	start := func() (*Server, *store.Store, engine.Engine, string, chan error) {
		eng, err := engine.OpenPebble("", engine.PebbleOptions{FS: fs, CacheSize: 8 << 20})
		if err != nil {
			t.Fatal(err)
		}
		st, err := store.Open(eng, store.Options{Databases: 16})
		if err != nil {
			t.Fatal(err)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		srv := New(Options{Config: testConfig(t), Store: st, Logger: slog.New(slog.NewTextHandler(testWriter{t}, nil))})
		done := make(chan error, 1)
		go func() { done <- srv.Serve(ln) }()
		return srv, st, eng, ln.Addr().String(), done
	}
	stop := func(srv *Server, st *store.Store, eng engine.Engine, done chan error) {
		if err := srv.Shutdown(ctx); err != nil {
			t.Fatal(err)
		}
		<-done
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
		if err := eng.Close(); err != nil {
			t.Fatal(err)
		}
	}

	srv, st, eng, addr, done := start()
	c := redis.NewClient(&redis.Options{Addr: addr})
	lib := "#!lua name=keep\nredis.register_function('kept', function(keys, args) return 'still here' end)"
	if err := c.FunctionLoad(ctx, lib).Err(); err != nil {
		t.Fatal(err)
	}
	dump, err := c.FunctionDump(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	stop(srv, st, eng, done)

	srv, st, eng, addr, done = start()
	defer stop(srv, st, eng, done)
	c2 := redis.NewClient(&redis.Options{Addr: addr, Protocol: 3})
	defer c2.Close()
	if got, err := c2.FCall(ctx, "kept", nil).Text(); err != nil || got != "still here" {
		t.Fatalf("after restart FCALL kept = %q, %v", got, err)
	}
	if err := c2.FunctionFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if err := c2.FunctionRestore(ctx, dump).Err(); err != nil {
		t.Fatalf("FUNCTION RESTORE of our own dump: %v", err)
	}
	if got, _ := c2.FCall(ctx, "kept", nil).Text(); got != "still here" {
		t.Fatalf("after RESTORE FCALL kept = %q", got)
	}
}

// TestScriptTouchingUndeclaredKeys: a script may touch keys it did not
// declare (Redis allows it outside cluster mode); when another client
// holds one, the script runs again with the larger key set, and the result
// is as if it ran alone.
func TestScriptTouchingUndeclaredKeys(t *testing.T) {
	ts := startServer(t)
	ctx := context.Background()
	const workers, rounds = 6, 40
	// Each script moves a unit from a declared key to one named in ARGV,
	// which other workers' scripts declare.
	move := redis.NewScript(`
		local n = redis.call('DECR', KEYS[1])
		redis.call('INCR', ARGV[1])
		return n`)
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := ts.client(t, 2+w%2)
			for i := range rounds {
				from := "acct" + strconv.Itoa(w)
				to := "acct" + strconv.Itoa((w+i+1)%workers)
				if err := move.Run(ctx, c, []string{from}, to).Err(); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	c := ts.client(t, 2)
	sum := 0
	for w := range workers {
		n, _ := c.Get(ctx, "acct"+strconv.Itoa(w)).Int()
		sum += n
	}
	if sum != 0 {
		t.Fatalf("units moved between accounts sum to %d, want 0", sum)
	}
}

// TestBusyScriptAndKill: past busy-reply-threshold other clients get BUSY;
// SCRIPT KILL stops a script that has not written, and refuses one that
// has; FUNCTION KILL does the same for functions.
func TestBusyScriptAndKill(t *testing.T) {
	ts := startServer(t, "busy-reply-threshold", "100")
	ctx := context.Background()
	runner, other := ts.client(t, 2), ts.client(t, 3)

	done := make(chan error, 1)
	go func() { done <- runner.Eval(ctx, "while true do end", nil).Err() }()
	waitBusy := func(want string) {
		t.Helper()
		deadline := time.Now().Add(15 * time.Second)
		for {
			err := other.Get(ctx, "x").Err()
			if err != nil && strings.HasPrefix(err.Error(), "BUSY") {
				if err.Error() != want {
					t.Fatalf("BUSY reply %q, want %q", err, want)
				}
				return
			}
			if time.Now().After(deadline) {
				select {
				case derr := <-done:
					t.Fatalf("no BUSY reply while a script loops: %v; the script ended: %v", err, derr)
				default:
				}
				t.Fatalf("no BUSY reply while a script loops: %v (runs %d)", err, ts.srv.runs.count.Load())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitBusy(errBusyEval)
	if err := other.Do(ctx, "FUNCTION", "KILL").Err(); err == nil || err.Error() != errBusyEval {
		t.Fatalf("FUNCTION KILL on a script: %v", err)
	}
	if err := other.ScriptKill(ctx).Err(); err != nil {
		t.Fatalf("SCRIPT KILL: %v", err)
	}
	if err := <-done; err == nil || !strings.HasPrefix(err.Error(), "ERR Script killed by user with SCRIPT KILL") {
		t.Fatalf("the killed script's reply: %v", err)
	}
	if err := other.Set(ctx, "x", "1", 0).Err(); err != nil {
		t.Fatalf("after the kill: %v", err)
	}

	// A script that wrote cannot be killed; it ends by itself, after
	// seconds enough for a loaded machine to poll it while it is busy.
	go func() {
		done <- runner.Eval(ctx, "redis.call('SET', 'w', '1'); local t = redis.call('TIME'); while true do local n = redis.call('TIME'); if n[1] - t[1] >= 3 then break end end; return 1", nil).Err()
	}()
	waitBusy(errBusyEval)
	if err := other.ScriptKill(ctx).Err(); err == nil || !strings.HasPrefix(err.Error(), "UNKILLABLE") {
		t.Fatalf("SCRIPT KILL of a script that wrote: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatalf("the unkillable script: %v", err)
	}

	if err := runner.FunctionLoad(ctx, "#!lua name=spin\nredis.register_function('spin', function() while true do end end)").Err(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- runner.FCall(ctx, "spin", nil).Err() }()
	waitBusy(errBusyFunction)
	if err := other.FunctionKill(ctx).Err(); err != nil {
		t.Fatalf("FUNCTION KILL: %v", err)
	}
	if err := <-done; err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("the killed function's reply: %v", err)
	}
	if err := other.ScriptKill(ctx).Err(); err == nil || !strings.HasPrefix(err.Error(), "NOTBUSY") {
		t.Fatalf("SCRIPT KILL with nothing running: %v", err)
	}
}

// TestScriptBadInput: runaway scripts end with errors and leave the
// server serving.
func TestScriptBadInput(t *testing.T) {
	ts := startServer(t)
	ctx := context.Background()
	c := ts.client(t, 2)
	tests := []struct {
		name, body string
	}{
		{"deep recursion", "local function f(n) return f(n + 1) + 1 end return f(1)"},
		{"huge table", "local t = {} for i = 1, 1000000 do t[i] = i end return #t"},
		{"self-referencing reply", "local t = {} t[1] = t return t"},
		{"deep cjson", "return cjson.decode(string.rep('[', 100000))"},
		{"deep cmsgpack", "return cmsgpack.unpack(string.rep('\\145', 100000))"},
	}
	for _, tt := range tests {
		err := c.Eval(ctx, tt.body, nil).Err()
		t.Logf("%s: %v", tt.name, err)
		if pong, perr := c.Ping(ctx).Result(); perr != nil || pong != "PONG" {
			t.Fatalf("%s: server no longer answers: %v", tt.name, perr)
		}
	}
	if !errors.Is(c.Eval(ctx, "return 1", nil).Err(), nil) {
		t.Fatal("a plain script fails after the bad ones")
	}
}

// TestScriptMemoryLimit: a script or function that grows the server's
// memory past script-memory-limit is stopped with the OOM error, its
// writes so far standing as after any script error; 0 lifts the limit.
func TestScriptMemoryLimit(t *testing.T) {
	ts := startServer(t, "script-memory-limit", "16mb")
	ctx := context.Background()
	c := ts.client(t, 2)
	// grow keeps 256 KiB strings until it is stopped, slowly enough for the
	// watchdog to see it long before its bound (256 MiB).
	const grow = `local t = {} for i = 1, 1024 do t[i] = string.rep('x', 262144) .. i for j = 1, 1000 do end end`
	const oom = "OOM Script used more memory than 'script-memory-limit' allows (16777216 bytes) script: "
	err := c.Eval(ctx, "redis.call('SET', KEYS[1], 'written') "+grow+" return 'not stopped'", []string{"w"}).Err()
	if err == nil || !strings.HasPrefix(err.Error(), oom) {
		t.Fatalf("EVAL growing past the limit: %v, want %q...", err, oom)
	}
	if v, err := c.Get(ctx, "w").Result(); v != "written" {
		t.Errorf("the stopped script's write: %q, %v", v, err)
	}
	lib := "#!lua name=grow\nredis.register_function('grow', function() " + grow + " return 'not stopped' end)"
	if err := c.FunctionLoad(ctx, lib).Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.FCall(ctx, "grow", nil).Err(); err == nil || !strings.HasPrefix(err.Error(), oom) {
		t.Errorf("FCALL growing past the limit: %v", err)
	}
	if err := c.Eval(ctx, "return #string.rep('x', 20 * 1048576)", nil).Err(); err == nil || !strings.HasPrefix(err.Error(), "ERR user_script:1: not enough memory") {
		t.Errorf("string.rep past the limit: %v", err)
	}
	if err := c.ConfigSet(ctx, "script-memory-limit", "0").Err(); err != nil {
		t.Fatal(err)
	}
	if n, err := c.Eval(ctx, "return #string.rep('x', 20 * 1048576)", nil).Int(); n != 20<<20 || err != nil {
		t.Errorf("string.rep with no limit: %d, %v", n, err)
	}
}
