package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/cairndb/cairn/bench/internal/loadgen"
	"github.com/cairndb/cairn/bench/internal/machine"
	"github.com/cairndb/cairn/bench/internal/procs"
)

// harness holds what every scenario shares: the binaries, the process group
// that cleans up, where things are written, and the results so far.
type harness struct {
	opts   options
	set    settings
	stdout io.Writer
	stderr io.Writer
	start  time.Time

	repo    string
	group   *procs.Group
	work    string // binaries, logs and data directories live under here
	out     string // RESULTS.md, results.svg, profiles
	tempOut bool   // out is a temporary directory created by the harness

	cairnBin, redisBin, benchBin string
	res                          *results
}

func newHarness(ctx context.Context, o options, stdout, stderr io.Writer) (*harness, error) {
	set, err := settingsFor(o)
	if err != nil {
		return nil, err
	}
	h := &harness{opts: o, set: set, stdout: stdout, stderr: stderr, start: time.Now(), group: &procs.Group{Keep: o.keep}}
	if h.repo, err = repoRoot(); err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			_ = h.group.Close()
		}
	}()

	dataRoot := o.dataRoot
	if dataRoot == "" {
		dataRoot = defaultDataRoot(h.repo)
	}
	if err := os.MkdirAll(dataRoot, 0o755); err != nil {
		return nil, fmt.Errorf("create data root: %w", err)
	}
	if h.work, err = h.group.TempDir(dataRoot, "cairn-bench-"); err != nil {
		return nil, err
	}
	for _, sub := range []string{"bin", "logs", "data"} {
		if err := os.Mkdir(filepath.Join(h.work, sub), 0o755); err != nil {
			return nil, fmt.Errorf("create work directory: %w", err)
		}
	}

	full := len(o.scenarios) == len(scenarioNames)
	switch {
	case o.out != "":
		h.out = o.out
	case o.mode == "smoke":
		h.out = filepath.Join(h.work, "out") // removed with the work directory
	case o.mode == "default" && full:
		h.out = filepath.Join(h.repo, "bench")
	default:
		// A partial or quick run must not overwrite the published results.
		if h.out, err = os.MkdirTemp(dataRoot, "cairn-bench-results-"); err != nil {
			return nil, fmt.Errorf("create results directory: %w", err)
		}
		h.tempOut = true
	}
	if err := os.MkdirAll(h.out, 0o755); err != nil {
		return nil, fmt.Errorf("create output directory: %w", err)
	}

	if h.redisBin, err = exec.LookPath("redis-server"); err != nil {
		return nil, errors.New("redis-server not found (bench/run installs it with apt-get; or: apt-get install redis-server redis-tools)")
	}
	if h.benchBin, err = exec.LookPath("redis-benchmark"); err != nil {
		return nil, errors.New("redis-benchmark not found (apt-get install redis-tools)")
	}
	if o.cairnBin != "" {
		h.cairnBin = o.cairnBin
	} else {
		h.cairnBin = filepath.Join(h.work, "bin", "cairn")
		h.logf("building Cairn (go build -o %s ./cmd/cairn)", h.cairnBin)
		cmd := exec.CommandContext(ctx, "go", "build", "-o", h.cairnBin, "./cmd/cairn")
		cmd.Dir = h.repo
		if outp, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("build Cairn: %w\n%s", err, outp)
		}
	}

	h.res = &results{
		Mode:     o.mode,
		Big:      o.big,
		Started:  h.start,
		Settings: set,
		Machine:  machine.Collect(h.work),
		Versions: h.versions(ctx),
	}
	if o.pprof {
		if err := h.checkPprof(ctx); err != nil {
			return nil, err
		}
	}
	if o.big {
		need := int64(set.BTMKeys) * int64(set.BTMValueSize+200)
		if free := h.res.Machine.Disk.Free; free > 0 && free < need {
			return nil, fmt.Errorf("--big needs about %s free under %s, have %s", fmtBytes(need), h.work, fmtBytes(free))
		}
	}
	ok = true
	return h, nil
}

// defaultDataRoot avoids tmpfs: data "on disk" in RAM would make the
// durable and bigger-than-memory figures meaningless.
func defaultDataRoot(repo string) string {
	tmp := os.TempDir()
	if d := machine.Collect(tmp).Disk; d.FSType != "tmpfs" && d.FSType != "ramfs" {
		return tmp
	}
	return filepath.Join(repo, "bench")
}

func (h *harness) logf(format string, args ...any) {
	el := time.Since(h.start).Round(100 * time.Millisecond)
	fmt.Fprintf(h.stderr, "[%7s] %s\n", el, fmt.Sprintf(format, args...))
}

func (h *harness) runAll(ctx context.Context) error {
	h.logf("mode %s; scenarios: %s; work directory %s", h.opts.mode, strings.Join(h.opts.scenarios, ", "), h.work)
	var errs []error
	for _, name := range h.opts.scenarios {
		if ctx.Err() != nil {
			break
		}
		var err error
		switch name {
		case "strings", "collections", "durable", scriptPubSub, hllGeo, aclScenario, bitmapsScenario, tlsScenario:
			err = h.matrix(ctx, name)
		case streams:
			err = h.matrix(ctx, name)
			if ctx.Err() == nil {
				err = errors.Join(err, h.streamLatency(ctx))
			}
		case "big-collections":
			err = h.bigCollections(ctx)
		case "zset-churn":
			err = h.zsetChurn(ctx)
		case "bigger-than-memory":
			err = h.biggerThanMemory(ctx)
		case "restart":
			err = h.restart(ctx)
		case sparseBitmaps:
			err = h.sparseBitmaps(ctx)
		case rdbImport:
			err = h.rdbImportScenario(ctx)
		}
		if err != nil && ctx.Err() == nil {
			h.logf("%s FAILED: %v", name, err)
			h.res.Errors = append(h.res.Errors, fmt.Sprintf("%s: %v", name, err))
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	h.res.Elapsed = time.Since(h.start)
	if err := h.writeResults(); err != nil {
		errs = append(errs, err)
	}
	// Run-level errors recorded by scenarios that carried on.
	if len(errs) == 0 && len(h.res.Errors) > 0 {
		errs = append(errs, fmt.Errorf("%d run(s) failed; see the Errors section", len(h.res.Errors)))
	}
	if h.opts.mode == "smoke" {
		if err := h.checkSmoke(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (h *harness) close() error {
	err := h.group.Close()
	if h.tempOut {
		// Fails, as it should, unless an interrupted run left it empty.
		_ = os.Remove(h.out)
	}
	if h.opts.keep {
		fmt.Fprintf(h.stderr, "bench/run: kept the work directory %s\n", h.work)
	}
	return err
}

// Server start-up.

func (h *harness) dataDir(name string) (string, error) {
	return h.group.TempDir(filepath.Join(h.work, "data"), name+"-")
}

type cairnConfig struct {
	appendfsync string
	cacheSize   string
	// keyCacheSize is passed as key-cache-size unless empty (the default).
	keyCacheSize string
	dir          string   // reuse this data directory (restart); empty: a fresh one
	extra        []string // further arguments (the tls scenario's TLS settings)
}

// startCairn starts Cairn and returns it with the exact arguments used.
func (h *harness) startCairn(ctx context.Context, label string, c cairnConfig) (*procs.Process, error) {
	dir := c.dir
	if dir == "" {
		var err error
		if dir, err = h.dataDir("cairn-" + label); err != nil {
			return nil, err
		}
	}
	port, err := procs.FreePort()
	if err != nil {
		return nil, err
	}
	args := []string{"--bind", "127.0.0.1", "--port", strconv.Itoa(port), "--dir", dir,
		"--appendfsync", c.appendfsync, "--cache-size", c.cacheSize}
	if c.keyCacheSize != "" {
		args = append(args, "--key-cache-size", c.keyCacheSize)
	}
	args = append(args, c.extra...)
	if h.opts.pprof {
		pport, err := procs.FreePort()
		if err != nil {
			return nil, err
		}
		args = append(args, "--pprof-addr", "127.0.0.1:"+strconv.Itoa(pport))
	}
	p, err := h.group.Start(ctx, procs.Spec{
		Name: "cairn", Bin: h.cairnBin, Args: args, Port: port,
		LogPath: filepath.Join(h.work, "logs", "cairn-"+label+".log"),
	})
	if err != nil && h.opts.pprof && strings.Contains(err.Error(), "pprof-addr") {
		return nil, fmt.Errorf("--pprof needs Cairn to accept a pprof-addr setting (net/http/pprof on that address), which this build does not: %w", err)
	}
	return p, err
}

type redisConfig struct {
	appendonly  bool
	appendfsync string
	dir         string
	extra       []string // further arguments (the tls scenario's TLS settings)
}

func (h *harness) startRedis(ctx context.Context, label string, c redisConfig) (*procs.Process, error) {
	dir := c.dir
	if dir == "" {
		var err error
		if dir, err = h.dataDir("redis-" + label); err != nil {
			return nil, err
		}
	}
	port, err := procs.FreePort()
	if err != nil {
		return nil, err
	}
	args := []string{"--bind", "127.0.0.1", "--port", strconv.Itoa(port), "--dir", dir,
		"--save", "", "--daemonize", "no", "--dbfilename", "dump.rdb"}
	if c.appendonly {
		args = append(args, "--appendonly", "yes", "--appendfsync", c.appendfsync)
	} else {
		args = append(args, "--appendonly", "no")
	}
	args = append(args, c.extra...)
	return h.group.Start(ctx, procs.Spec{
		Name: "redis", Bin: h.redisBin, Args: args, Port: port,
		LogPath: filepath.Join(h.work, "logs", "redis-"+label+".log"),
	})
}

// commandLine renders a process's command line for RESULTS.md, with the
// per-run parts (port, temporary directory) shown as placeholders so the
// line is the same from run to run.
func commandLine(p *procs.Process) string {
	parts := []string{filepath.Base(p.Bin)}
	for i := 0; i < len(p.Args); i++ {
		a := p.Args[i]
		if i > 0 {
			switch p.Args[i-1] {
			case "--port":
				a = "<port>"
			case "--dir":
				a = "<fresh dir>"
			case "--pprof-addr":
				a = "<addr>"
			case "--tls-port":
				a = "<tls port>"
			case "--tls-cert-file", "--tls-key-file", "--tls-ca-cert-file":
				a = "<" + strings.TrimPrefix(p.Args[i-1], "--tls-") + ">"
			}
		}
		if a == "" {
			a = `""`
		}
		parts = append(parts, a)
	}
	return strings.Join(parts, " ")
}

// client returns a small go-redis client for set-up work (FLUSHALL,
// prefill, probes, INFO), not for measuring.
func client(p *procs.Process) *redis.Client { return loadgen.NewClient(p.Addr(), 4) }

// infoField returns one field of INFO <section>.
func infoField(ctx context.Context, c *redis.Client, section, name string) (string, error) {
	s, err := c.Info(ctx, section).Result()
	if err != nil {
		return "", fmt.Errorf("INFO %s: %w", section, err)
	}
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		if k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), ":"); ok && k == name {
			return v, nil
		}
	}
	return "", fmt.Errorf("INFO %s has no %s", section, name)
}

func (h *harness) versions(ctx context.Context) versions {
	out := func(name string, args ...string) string {
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Dir = h.repo
		// git status must not write the index: the harness only looks.
		cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0")
		b, err := cmd.Output()
		if err != nil {
			return "unknown"
		}
		return strings.TrimSpace(string(b))
	}
	v := versions{
		Cairn:     out(h.cairnBin, "--version"),
		Redis:     out(h.redisBin, "--version"),
		Benchmark: out(h.benchBin, "--version"),
		Go:        runtime.Version(),
		Commit:    out("git", "rev-parse", "--short=12", "HEAD"),
	}
	if st := out("git", "status", "--porcelain", "--untracked-files=no"); st != "" && st != "unknown" {
		v.Commit += " (with uncommitted changes)"
	}
	return v
}
