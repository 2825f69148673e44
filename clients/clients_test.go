//go:build unix

package clients

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/config"
	"github.com/cairndb/cairn/internal/engine"
	"github.com/cairndb/cairn/internal/redistest"
	"github.com/cairndb/cairn/internal/server"
	"github.com/cairndb/cairn/internal/store"
	"github.com/redis/go-redis/v9"
)

// flow is one client scenario: a script run by Python or Node, or a Go
// function.
type flow struct {
	name string
	// needs are feature names (see features) or single command names as
	// COMMAND INFO spells them ("bzpopmin", "client|setinfo"). The flow is
	// skipped while the server lacks any of them.
	needs []string
	// probes are commands the library tries and does without when the
	// server refuses them (rueidis asks CLUSTER SLOTS to learn whether it
	// talks to a cluster); a flow needs not declare them.
	probes []string
	// lang is "python", "node", "ruby" or "go".
	lang string
	// script is the file under python/, node/ or ruby/.
	script string
	// deps are the Python modules, npm packages or Ruby libraries the
	// script imports.
	deps []string
	// limit bounds the flow's run; a script bounds itself a little sooner.
	limit time.Duration
	// run is the flow itself (lang go); it fails t on error.
	run func(ctx context.Context, t *testing.T, addr string)
}

// flows is every scenario, in the order they run.
var flows = []flow{
	{name: "py_basic", lang: "python", script: "py_basic.py", deps: []string{"redis"}},
	{name: "py_pipeline", lang: "python", script: "py_pipeline.py", deps: []string{"redis"}, needs: []string{"multi"}},
	{name: "py_watch", lang: "python", script: "py_watch.py", deps: []string{"redis"}, needs: []string{"multi"}},
	{name: "py_lock", lang: "python", script: "py_lock.py", deps: []string{"redis"}, needs: []string{"scripting"}},
	{name: "py_pubsub", lang: "python", script: "py_pubsub.py", deps: []string{"redis"}, needs: []string{"pubsub"}},
	{name: "py_script", lang: "python", script: "py_script.py", deps: []string{"redis"}, needs: []string{"scripting"}},
	{name: "py_stream_workers", lang: "python", script: "py_stream_workers.py", deps: []string{"redis"}, needs: []string{"streams"}},
	{name: "rq_worker", lang: "python", script: "rq_worker.py", deps: []string{"redis", "rq"}, needs: []string{"multi", "scripting", "pubsub", "streams"}, limit: 100 * time.Second},
	{name: "celery_task", lang: "python", script: "celery_task.py", deps: []string{"redis", "celery"}, needs: []string{"multi", "scripting", "pubsub"}, limit: 130 * time.Second},
	{name: "node_basic", lang: "node", script: "node_basic.mjs", deps: []string{"redis", "ioredis"}},
	{name: "node_multi", lang: "node", script: "node_multi.mjs", deps: []string{"redis"}, needs: []string{"multi"}},
	{name: "node_pubsub", lang: "node", script: "node_pubsub.mjs", deps: []string{"redis"}, needs: []string{"pubsub"}},
	{name: "node_csc", lang: "node", script: "node_csc.mjs", deps: []string{"redis"}, needs: []string{"tracking"}},
	{name: "bullmq", lang: "node", script: "bullmq.mjs", deps: []string{"bullmq"}, needs: []string{"scripting", "streams"}, limit: 70 * time.Second},
	{name: "sidekiq_worker", lang: "ruby", script: "sidekiq_worker.rb", deps: []string{"sidekiq"}, needs: []string{"multi", "scripting"}, limit: 100 * time.Second},
	{name: "go_txpipelined", lang: "go", run: goTxPipelined, needs: []string{"multi"}},
	{name: "go_watch", lang: "go", run: goWatch, needs: []string{"multi"}},
	{name: "go_pubsub", lang: "go", run: goPubSub, needs: []string{"pubsub"}},
	{name: "go_script", lang: "go", run: goScript, needs: []string{"scripting"}},
	{name: "go_stream_workers", lang: "go", run: goStreamWorkers, needs: []string{"streams"}},
	{name: "rueidis_nocache", lang: "go", run: rueidisNoCache, probes: []string{"cluster|slots"}},
	{name: "rueidis_cache", lang: "go", run: rueidisCache, needs: []string{"tracking", "multi", "client|caching"}, probes: []string{"cluster|slots"}},
}

// feature is a group of commands that lands in Cairn at once.
type feature struct {
	// core decides presence: the server has the feature when it knows
	// every one of these.
	core []string
	// members and prefixes say which other commands belong to the
	// feature: a flow that uses one against real Redis must declare the
	// feature (or the single command).
	members  []string
	prefixes []string
}

// features are the names a flow's needs may use.
var features = map[string]feature{
	"multi": {core: []string{"multi", "exec", "discard", "watch", "unwatch"}},
	"scripting": {
		core:     []string{"eval", "evalsha", "script|load", "script|exists", "script|flush"},
		members:  []string{"eval_ro", "evalsha_ro"},
		prefixes: []string{"script|"},
	},
	"functions": {core: []string{"fcall", "function|load"}, members: []string{"fcall_ro"}, prefixes: []string{"function|"}},
	"pubsub": {
		core:     []string{"subscribe", "unsubscribe", "psubscribe", "punsubscribe", "publish"},
		members:  []string{"ssubscribe", "sunsubscribe", "spublish"},
		prefixes: []string{"pubsub|"},
	},
	"tracking": {core: []string{"client|tracking"}, members: []string{"client|caching", "client|trackinginfo", "client|getredir"}},
	// Every command whose name starts with x is a stream command.
	"streams": {core: []string{"xadd", "xread", "xrange", "xlen", "xdel", "xtrim"}, prefixes: []string{"x"}},
}

// featureOf names the feature a command belongs to, or "".
func featureOf(cmd string) string {
	for name, f := range features {
		if slices.Contains(f.core, cmd) || slices.Contains(f.members, cmd) {
			return name
		}
		for _, p := range f.prefixes {
			if strings.HasPrefix(cmd, p) {
				return name
			}
		}
	}
	return ""
}

// target is the server the flows run against.
type target struct {
	kind  string // "cairn", "redis" or "addr"
	addr  string
	admin *redis.Client
	// cairn, against real Redis only, is an in-process Cairn asked which
	// commands it knows, to check that each flow declares what Cairn
	// lacks.
	cairn *redis.Client
}

// TestClients runs every flow against the target named by
// CAIRN_CLIENTS_TARGET: "cairn" (the default, in-process), "redis" (a
// redis-server started here, to prove the flows right), or a host:port of
// a running server. CAIRN_CLIENTS_FORCE=1 runs every flow even when the
// server lacks what it needs (to see how a half-done feature fails).
func TestClients(t *testing.T) {
	tg := startTarget(t)
	t.Logf("target: %s at %s", tg.kind, tg.addr)
	var report []string
	for _, f := range flows {
		var skipReason string
		ran := false
		passed := t.Run(f.name, func(t *testing.T) {
			ran = true
			defer func() {
				if t.Skipped() && skipReason == "" {
					skipReason = "skipped"
				}
			}()
			runFlow(t, tg, f, &skipReason)
		})
		if !ran {
			continue // not selected by -run
		}
		needs := strings.Join(f.needs, ",")
		if needs == "" {
			needs = "-"
		}
		status := "passed"
		switch {
		case skipReason != "":
			status = skipReason
		case !passed:
			status = "FAILED"
		}
		report = append(report, fmt.Sprintf("  %-16s %-6s needs %-32s %s", f.name, f.lang, needs, status))
	}
	t.Logf("flows against %s:\n%s", tg.kind, strings.Join(report, "\n"))
}

// runFlow runs one flow, or skips it when the target lacks a need or the
// runtime is missing. *skipped receives the reason of a skip.
func runFlow(t *testing.T, tg *target, f flow, skipped *string) {
	ctx := context.Background()
	if missing := missingNeeds(t, tg.admin, f.needs); len(missing) > 0 && os.Getenv("CAIRN_CLIENTS_FORCE") == "" {
		*skipped = "skipped: server lacks " + strings.Join(missing, ", ")
		t.Skipf("%s needs %s, which the %s server does not have yet", f.name, strings.Join(missing, ", "), tg.kind)
	}
	limit := f.limit
	if limit == 0 {
		limit = 70 * time.Second
	}
	var bin string
	switch f.lang {
	case "python":
		var err error
		if bin, err = python(f.deps); err != nil {
			missingRuntime(t, err, skipped)
		}
	case "node":
		var err error
		if bin, err = node(f.deps); err != nil {
			missingRuntime(t, err, skipped)
		}
	case "ruby":
		var err error
		if bin, err = ruby(f.deps); err != nil {
			missingRuntime(t, err, skipped)
		}
	}

	if err := tg.admin.FlushAll(ctx).Err(); err != nil {
		t.Fatalf("FLUSHALL before the flow: %v", err)
	}
	if tg.kind == "redis" {
		if err := tg.admin.ConfigResetStat(ctx).Err(); err != nil {
			t.Fatalf("CONFIG RESETSTAT: %v", err)
		}
	}

	if f.lang == "go" {
		fctx, cancel := context.WithTimeout(ctx, limit)
		defer cancel()
		f.run(fctx, t, tg.addr)
	} else {
		runScript(t, limit, bin, f.lang, f.script, tg.addr)
	}

	if tg.kind == "redis" && !t.Failed() {
		checkDeclaredNeeds(t, tg, f)
	}
}

// missingNeeds returns the needs the server lacks, asking COMMAND INFO.
func missingNeeds(t *testing.T, c *redis.Client, needs []string) []string {
	t.Helper()
	var missing []string
	for _, need := range needs {
		cmds := []string{need}
		if f, ok := features[need]; ok {
			cmds = f.core
		}
		known, err := knownCommands(context.Background(), c, cmds)
		if err != nil {
			t.Fatalf("asking the server which commands it has: %v", err)
		}
		for _, cmd := range cmds {
			if !known[cmd] {
				missing = append(missing, need)
				break
			}
		}
	}
	return missing
}

// knownCommands asks COMMAND INFO which of cmds the server knows; an
// unknown command's entry is nil.
func knownCommands(ctx context.Context, c *redis.Client, cmds []string) (map[string]bool, error) {
	args := []any{"command", "info"}
	for _, cmd := range cmds {
		args = append(args, cmd)
	}
	reply, err := c.Do(ctx, args...).Slice()
	if err != nil {
		return nil, fmt.Errorf("COMMAND INFO: %w", err)
	}
	if len(reply) != len(cmds) {
		return nil, fmt.Errorf("COMMAND INFO of %d commands gave %d entries", len(cmds), len(reply))
	}
	known := make(map[string]bool, len(cmds))
	for i, cmd := range cmds {
		known[cmd] = reply[i] != nil
	}
	return known, nil
}

// checkDeclaredNeeds, against real Redis, reads the commands the flow ran
// (INFO commandstats, reset before the flow) and fails the flow if it used
// a command that Cairn lacks today and that its needs do not cover: the
// needs must be complete for the skip decision to be right.
func checkDeclaredNeeds(t *testing.T, tg *target, f flow) {
	t.Helper()
	ctx := context.Background()
	info, err := tg.admin.Info(ctx, "commandstats").Result()
	if err != nil {
		t.Fatalf("INFO commandstats: %v", err)
	}
	var used []string
	for _, line := range strings.Split(info, "\n") {
		name, _, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || !strings.HasPrefix(name, "cmdstat_") {
			continue
		}
		cmd := strings.TrimPrefix(name, "cmdstat_")
		if cmd == "config|resetstat" || cmd == "info" {
			continue // the harness's own
		}
		used = append(used, cmd)
	}
	sort.Strings(used)
	t.Logf("commands %s used: %s", f.name, strings.Join(used, " "))
	known, err := knownCommands(ctx, tg.cairn, used)
	if err != nil {
		t.Fatalf("asking Cairn which commands it has: %v", err)
	}
	var undeclared []string
	for _, cmd := range used {
		feat := featureOf(cmd)
		if slices.Contains(f.needs, cmd) || slices.Contains(f.probes, cmd) || (feat != "" && slices.Contains(f.needs, feat)) {
			continue
		}
		if !known[cmd] || feat != "" {
			if feat != "" {
				cmd += " (" + feat + ")"
			}
			undeclared = append(undeclared, cmd)
		}
	}
	if len(undeclared) > 0 {
		t.Errorf("%s uses %s, which its needs do not declare (Cairn lacks it today, or it belongs to a feature)", f.name, strings.Join(undeclared, ", "))
	}
}

// missingRuntime skips the flow, or fails it under CI, where .ci/run
// installs every runtime.
func missingRuntime(t *testing.T, err error, skipped *string) {
	t.Helper()
	if os.Getenv("CI") != "" && os.Getenv("CI") != "false" {
		t.Fatalf("%v (CI must have it: .ci/run installs it)", err)
	}
	*skipped = "skipped: " + err.Error()
	t.Skipf("%v; skipping (.ci/run installs it)", err)
}

// python finds an interpreter that imports every module in deps: Debian's
// /usr/bin/python3 first (its packages python3-redis, python3-rq and
// python3-celery are what .ci/run installs), then python3 on PATH.
func python(deps []string) (string, error) {
	candidates := []string{"/usr/bin/python3"}
	if p, err := exec.LookPath("python3"); err == nil && p != candidates[0] {
		candidates = append(candidates, p)
	}
	var tried []string
	for _, c := range candidates {
		if _, err := os.Stat(c); err != nil {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err := exec.CommandContext(ctx, c, "-c", "import "+strings.Join(deps, ", ")).Run()
		cancel()
		if err == nil {
			return c, nil
		}
		tried = append(tried, c)
	}
	if len(tried) == 0 {
		return "", errors.New("python3 is not installed")
	}
	return "", fmt.Errorf("no python3 (tried %s) imports %s (apt-get install %s)", strings.Join(tried, ", "), strings.Join(deps, ", "), debianPython(deps))
}

func debianPython(deps []string) string {
	pkgs := make([]string, len(deps))
	for i, d := range deps {
		pkgs[i] = "python3-" + d
	}
	return strings.Join(pkgs, " ")
}

// node finds node and checks that clients/node/node_modules holds deps.
func node(deps []string) (string, error) {
	bin, err := exec.LookPath("node")
	if err != nil {
		return "", errors.New("node is not installed")
	}
	for _, d := range deps {
		if _, err := os.Stat(filepath.Join("node", "node_modules", d, "package.json")); err != nil {
			return "", fmt.Errorf("npm package %s is not installed (run `npm ci` in clients/node)", d)
		}
	}
	return bin, nil
}

// ruby finds ruby and checks that it loads deps (Debian's ruby-sidekiq
// brings both, and the sidekiq command the flow starts).
func ruby(deps []string) (string, error) {
	bin, err := exec.LookPath("ruby")
	if err != nil {
		return "", errors.New("ruby is not installed (apt-get install ruby-sidekiq)")
	}
	for _, d := range deps {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err := exec.CommandContext(ctx, bin, "-e", "require '"+d+"'").Run()
		cancel()
		if err != nil {
			return "", fmt.Errorf("ruby cannot load %s (apt-get install ruby-%s)", d, d)
		}
		if _, err := exec.LookPath(d); d == "sidekiq" && err != nil {
			return "", errors.New("the sidekiq command is not on PATH (apt-get install ruby-sidekiq)")
		}
	}
	return bin, nil
}

// runScript runs a flow's script with the server's address and fails the
// test, with the script's output, when it exits non-zero or outlives limit.
// The script runs in its own process group, killed whole at the end, so a
// worker it started cannot outlive it.
func runScript(t *testing.T, limit time.Duration, bin, lang, script, addr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, script, addr)
	cmd.Dir = lang
	cmd.Env = append(os.Environ(), "CAIRN_ADDR="+addr, "PYTHONDONTWRITEBYTECODE=1", "PYTHONUNBUFFERED=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	start := time.Now()
	err := cmd.Run()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // leftovers of the group
	}
	took := time.Since(start).Round(time.Millisecond)
	switch {
	case ctx.Err() != nil:
		t.Fatalf("%s %s/%s %s: no result within %s; output:\n%s", bin, lang, script, addr, limit, out.String())
	case err != nil:
		t.Fatalf("%s %s/%s %s: %v after %s; output:\n%s", bin, lang, script, addr, err, took, out.String())
	}
	t.Logf("%s/%s passed in %s:\n%s", lang, script, took, strings.TrimSpace(out.String()))
}

// startTarget starts (or reaches) the server CAIRN_CLIENTS_TARGET names.
func startTarget(t *testing.T) *target {
	t.Helper()
	kind := os.Getenv("CAIRN_CLIENTS_TARGET")
	tg := &target{kind: kind}
	switch kind {
	case "", "cairn":
		tg.kind = "cairn"
		tg.addr = startCairn(t)
	case "redis":
		if _, err := exec.LookPath("redis-server"); err != nil {
			t.Fatal("CAIRN_CLIENTS_TARGET=redis but redis-server is not installed (apt-get install redis-server)")
		}
		tg.addr = redistest.Start(t).Addr()
		tg.cairn = newClient(t, startCairn(t))
	default:
		if _, _, err := net.SplitHostPort(kind); err != nil {
			t.Fatalf("CAIRN_CLIENTS_TARGET=%q: want cairn, redis or host:port", kind)
		}
		tg.kind, tg.addr = "addr", kind
	}
	tg.admin = newClient(t, tg.addr)
	if err := tg.admin.Ping(context.Background()).Err(); err != nil {
		t.Fatalf("PING %s: %v", tg.addr, err)
	}
	return tg
}

// newClient is a RESP2 go-redis client for the harness's own commands.
func newClient(t *testing.T, addr string) *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, PoolSize: 2, ReadTimeout: 10 * time.Second})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// startCairn serves a Cairn with its data in a temporary directory on a
// loopback listener until the test ends.
func startCairn(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	cfg := config.Default()
	if err := cfg.ApplyArgs([]string{"--dir", dir, "--appendfsync", "no"}); err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(logWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	eng, err := engine.OpenPebble(dir, engine.PebbleOptions{CacheSize: 16 << 20, Logger: log})
	if err != nil {
		t.Fatalf("open engine: %v", err)
	}
	mode, err := store.ParseSyncMode(cfg.AppendFsync())
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(eng, store.Options{
		Databases:        cfg.Databases(),
		Sync:             mode,
		Logger:           log,
		ReapInterval:     10 * time.Millisecond,
		KeyCacheSize:     cfg.KeyCacheSize(),
		MemberFilterSize: cfg.MemberFilterSize(),
	})
	if err != nil {
		_ = eng.Close()
		t.Fatalf("open store: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := server.New(server.Options{Config: cfg, Store: st, Logger: log})
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		<-done
		if err := store.Check(st); err != nil {
			t.Errorf("store invariants after the flows: %v", err)
		}
		_ = st.Close()
		_ = eng.Close()
	})
	return ln.Addr().String()
}

// logWriter sends the server's warnings to the test log.
type logWriter struct{ t *testing.T }

func (w logWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
