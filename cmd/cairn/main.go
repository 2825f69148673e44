// Command cairn runs the Cairn server: a Redis-compatible server that keeps
// its data on disk in Pebble.
//
// Usage:
//
//	cairn [/path/to/cairn.conf] [--name value ...]
//	cairn --help
//	cairn --version
//	cairn import dump.rdb [/path/to/cairn.conf] [--name value ...]
//	cairn export DATADIR dump.rdb [--name value ...]
//	cairn backup DATADIR DESTDIR
//	cairn backup --addr HOST:PORT [--user U] [--password P] DESTDIR
//	cairn restore BACKUPDIR DATADIR
//
// The import subcommand loads a Redis RDB file into the data directory the
// settings name (dir, databases, ...), with the server stopped, and exits.
// export writes a data directory as an RDB file, backup copies a data
// directory consistently (from a running server with --addr, through its
// BACKUP command), and restore makes a new data directory from a backup;
// see docs/operations.md.
//
// The optional config file uses redis.conf syntax; command-line settings
// follow it and win, as with redis-server.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cairndb/cairn/internal/config"
	"github.com/cairndb/cairn/internal/engine"
	"github.com/cairndb/cairn/internal/fdlimit"
	"github.com/cairndb/cairn/internal/logthrottle"
	"github.com/cairndb/cairn/internal/metrics"
	"github.com/cairndb/cairn/internal/procs"
	"github.com/cairndb/cairn/internal/server"
	"github.com/cairndb/cairn/internal/store"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "cairn:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) > 0 {
		switch args[0] {
		case "import":
			return runImport(args[1:], os.Stderr)
		case "export":
			return runExport(args[1:], os.Stderr)
		case "backup":
			return runBackup(args[1:], os.Stderr)
		case "restore":
			return runRestore(args[1:], os.Stderr)
		}
	}
	for _, a := range args {
		switch a {
		case "--version", "-v":
			fmt.Printf("Cairn v=%s (Redis %s compatible)\n", server.Version, server.RedisVersion)
			return nil
		case "--help", "-h":
			printHelp(os.Stdout)
			return nil
		}
	}
	cfg := config.Default()
	var configFile string
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		configFile = args[0]
		if err := cfg.LoadFile(configFile); err != nil {
			return err
		}
		// CONFIG REWRITE and INFO's config_file name it absolute, as
		// Redis does.
		if abs, err := filepath.Abs(configFile); err == nil {
			configFile = abs
		}
		args = args[1:]
	}
	if err := cfg.ApplyArgs(args); err != nil {
		return err
	}
	// With quiet-monitor, before any file or listener is opened: this
	// replaces the process with a fresh image of itself, which reads the
	// same settings again (see procs.ExecWithQuietMonitor).
	var monitorErr error
	if cfg.QuietMonitor() {
		monitorErr = procs.ExecWithQuietMonitor()
	}

	var level slog.LevelVar
	level.Set(slogLevel(cfg.LogLevel()))
	cfg.OnChange("loglevel", func(v string) { level.Set(slogLevel(v)) })
	var logOut io.Writer = os.Stderr
	if f := cfg.LogFile(); f != "" {
		lf, err := os.OpenFile(f, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return fmt.Errorf("open logfile: %w", err)
		}
		defer lf.Close()
		logOut = lf
	}
	// A fault that fails every command (a full disk) must not turn the log
	// into a flood: repeats of a line are counted and summarised.
	log := slog.New(logthrottle.New(slog.NewTextHandler(logOut, &slog.HandlerOptions{Level: &level}), logthrottle.DefaultWindow))
	slog.SetDefault(log)
	if ignored := cfg.Ignored(); len(ignored) > 0 {
		log.Warn("accepted for Redis compatibility but not applied by Cairn (cairn --help says why)", "settings", strings.Join(ignored, " "))
	}
	if monitorErr != nil {
		log.Warn("the Go runtime's monitor thread keeps its default wake-ups", "err", monitorErr)
	}

	if err := fitClients(cfg, log); err != nil {
		return err
	}

	// From here a SIGTERM or SIGINT waits in sigs: one that arrives while
	// the engine opens (replaying its log can take a while) is acted on as
	// soon as the server is up, with the same clean shutdown and exit
	// status 0 as later.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	defer signal.Stop(sigs)

	// The pid file is best effort, as in Redis: a stock redis.conf names
	// /run/redis/redis-server.pid, which a user may not be able to write.
	// It is written once signals are caught, so whoever reads it may send
	// SIGTERM at once and get a clean shutdown.
	if pf := cfg.PidFile(); pf != "" {
		if err := os.WriteFile(pf, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
			log.Warn("Failed to write PID file", "err", err)
		} else {
			defer os.Remove(pf)
		}
	}

	eng, st, err := openStorage(cfg, log)
	if err != nil {
		return lockedError(cfg.Dir(), err)
	}
	// Checked while the directory is locked, so no import is under way.
	if err := unfinishedImport(cfg.Dir()); err != nil {
		return errors.Join(err, closeStorage(log, st, eng))
	}
	cfg.OnChange("appendfsync", func(v string) {
		if m, err := store.ParseSyncMode(v); err == nil {
			st.SetSyncMode(m)
		}
	})
	cfg.OnChange("hz", func(string) { st.SetReapInterval(time.Second / time.Duration(cfg.Hz())) })

	if addr := cfg.PprofAddr(); addr != "" {
		if err := servePprof(addr, log); err != nil {
			return errors.Join(err, closeStorage(log, st, eng))
		}
	}
	srv, err := server.Build(server.Options{Config: cfg, Store: st, Logger: log, ConfigFile: configFile})
	if err == nil {
		// The config file's user lines or the aclfile; an error stops the
		// start, as in Redis.
		if err = srv.LoadUsers(); err != nil {
			_ = srv.Shutdown(context.Background())
		}
	}
	if err != nil {
		return errors.Join(err, closeStorage(log, st, eng))
	}
	var metricsSrv *http.Server
	if addr := cfg.MetricsAddr(); addr != "" {
		if metricsSrv, err = serveMetrics(addr, srv, log); err != nil {
			_ = srv.Shutdown(context.Background())
			return errors.Join(err, closeStorage(log, st, eng))
		}
	}
	// GOMAXPROCS in the environment fixes the count, unless procs is set.
	gov := procs.New(srv.Load, 0, log)
	gov.SetBackground(eng.BackgroundJobs)
	gov.SetDiskWaits(eng.WALSyncs)
	if _, env := os.LookupEnv("GOMAXPROCS"); env && cfg.Procs() == 0 {
		gov.Fix(runtime.GOMAXPROCS(0))
	} else {
		gov.Fix(cfg.Procs())
	}
	gov.Start()
	defer gov.Stop()
	cfg.OnChange("procs", func(string) { gov.Fix(cfg.Procs()) })
	lns, reopen, err := listen(cfg, log)
	if err != nil {
		_ = srv.Shutdown(context.Background())
		return errors.Join(err, closeStorage(log, st, eng))
	}
	// CONFIG SET bind and port reopen the TCP listeners, as in Redis.
	srv.SetListen(reopen)
	serveErr := make(chan error, len(lns))
	for _, l := range lns {
		log.Info("ready to accept connections", "addr", l.addr, "tls", l.tls, "dir", cfg.Dir(), "appendfsync", cfg.AppendFsync())
		if l.unix {
			go func() { serveErr <- srv.Serve(l.ln) }()
			continue
		}
		go func() {
			// A listener a CONFIG SET replaced ends with nil: no failure.
			if err := srv.ServeTCP(l.ln, l.tls); err != nil {
				serveErr <- err
			}
		}()
	}

	// Under systemd (supervised systemd, or auto with NOTIFY_SOCKET set),
	// a Type=notify unit learns here that Cairn serves, as from Redis.
	notifySocket := ""
	if cfg.SupervisedSystemd(os.Getenv("NOTIFY_SOCKET")) {
		notifySocket = os.Getenv("NOTIFY_SOCKET")
		log.Info("supervised by systemd: set TimeoutStartSec and TimeoutStopSec in the unit to fit the data's recovery and shutdown")
		if err := sdNotify(notifySocket, "STATUS=Ready to accept connections\nREADY=1\n"); err != nil {
			log.Warn("telling systemd Cairn is ready failed", "err", err)
		}
	}

	var failed error
	select {
	case sig := <-sigs:
		log.Warn("received signal, shutting down", "signal", sig.String())
	case <-srv.ShutdownRequested():
	case err := <-serveErr:
		if !errors.Is(err, server.ErrServerClosed) {
			log.Error("serve failed", "err", err)
			failed = err
		}
	}
	// A second signal while shutting down is left to the default action:
	// it ends a shutdown that waits too long for the operator's taste.
	signal.Stop(sigs)
	if err := sdNotify(notifySocket, "STOPPING=1\n"); err != nil {
		log.Warn("telling systemd Cairn is stopping failed", "err", err)
	}
	stopServing(srv, metricsSrv, log)
	if err := closeStorage(log, st, eng); err != nil {
		return errors.Join(failed, err)
	}
	if failed != nil {
		return failed
	}
	log.Info("cairn is now ready to exit, bye bye")
	return nil
}

// shutdownReport is how often a shutdown that waits for commands still
// running says which they are.
const shutdownReport = 10 * time.Second

// stopServing closes the connections and waits for every command in flight,
// however long, as Redis finishes the command it is running before it
// shuts down: the engine must not close under a running command (Pebble
// would refuse: "leaked iterators"). Commands that stream a long reply
// stop once their connection is closed; anything else still running is
// logged every shutdownReport. The metrics endpoint, which reads the store
// too, is closed first.
func stopServing(srv *server.Server, metricsSrv *http.Server, log *slog.Logger) {
	if metricsSrv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), shutdownReport)
		if err := metricsSrv.Shutdown(ctx); err != nil {
			log.Warn("closing the metrics endpoint", "err", err)
		}
		cancel()
	}
	for {
		ctx, cancel := context.WithTimeout(context.Background(), shutdownReport)
		err := srv.Shutdown(ctx)
		cancel()
		if err == nil {
			return
		}
		log.Warn("shutdown is waiting for commands still running", "clients", srv.Running())
	}
}

// openStorage opens the data directory's engine and the store on it.
func openStorage(cfg *config.Config, log *slog.Logger) (*engine.Pebble, *store.Store, error) {
	if err := os.MkdirAll(cfg.Dir(), 0o755); err != nil {
		return nil, nil, fmt.Errorf("create data dir: %w", err)
	}
	eng, err := engine.OpenPebble(cfg.Dir(), engine.PebbleOptions{CacheSize: cfg.CacheSize(), Logger: log})
	if err != nil {
		return nil, nil, err
	}
	mode, err := store.ParseSyncMode(cfg.AppendFsync())
	if err != nil {
		_ = eng.Close()
		return nil, nil, err
	}
	st, err := store.Open(eng, store.Options{
		Databases:        cfg.Databases(),
		Sync:             mode,
		Logger:           log,
		ReapInterval:     time.Second / time.Duration(cfg.Hz()),
		KeyCacheSize:     cfg.KeyCacheSize(),
		MemberFilterSize: cfg.MemberFilterSize(),
	})
	if err != nil {
		_ = eng.Close()
		return nil, nil, err
	}
	return eng, st, nil
}

// closeStorage stops the store's background work, makes every write durable
// and closes the engine. Its error means writes acknowledged under
// appendfsync everysec or no may be lost.
func closeStorage(log *slog.Logger, st *store.Store, eng engine.Engine) error {
	if err := st.Close(); err != nil {
		log.Error("syncing the log at shutdown failed", "err", err)
		_ = eng.Close()
		return err
	}
	if err := eng.Close(); err != nil {
		log.Error("closing the storage engine failed", "err", err)
		return err
	}
	log.Info("data synced to disk and storage engine closed")
	return nil
}

// fitClients lowers maxclients to what the open-file limit allows, after
// raising the limit if it can (Redis's adjustOpenFilesLimit), and refuses a
// CONFIG SET of maxclients beyond it, so that accept never runs the process
// out of descriptors.
func fitClients(cfg *config.Config, log *slog.Logger) error {
	want := cfg.MaxClients()
	fit, err := fdlimit.Fit(want, log)
	if err != nil {
		return err
	}
	if fit < want {
		if err := cfg.Set([][2]string{{"maxclients", strconv.Itoa(fit)}}); err != nil {
			return fmt.Errorf("lower maxclients: %w", err)
		}
	}
	cfg.Check("maxclients", func(v string) string {
		n, err := strconv.Atoi(v)
		if err != nil {
			return ""
		}
		if fit, err := fdlimit.Fit(n, log); err != nil || fit < n {
			return fmt.Sprintf("The operating system is not able to handle the specified number of clients, try with %d", fit)
		}
		return ""
	})
	return nil
}

func slogLevel(v string) slog.Level {
	switch v {
	case "debug":
		return slog.LevelDebug
	case "verbose":
		return slog.LevelDebug + 2
	case "warning":
		return slog.LevelWarn
	case "nothing":
		return slog.LevelError + 4
	}
	return slog.LevelInfo
}

// servePprof serves Go's profiles (net/http/pprof) on addr, for the
// benchmark harness and for diagnosing a live server. The endpoint has no
// authentication: it belongs on loopback.
func servePprof(addr string, log *slog.Logger) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("pprof-addr: %w", err)
	}
	log.Info("serving pprof", "addr", ln.Addr().String())
	go func() { _ = http.Serve(ln, pprofMux()) }()
	return nil
}

// serveMetrics serves the server's Prometheus metrics on addr, at
// /metrics. Like pprof, the endpoint has no authentication: it belongs on
// loopback.
func serveMetrics(addr string, srv *server.Server, log *slog.Logger) (*http.Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics-addr: %w", err)
	}
	log.Info("serving metrics", "addr", ln.Addr().String())
	hs := &http.Server{Handler: metrics.Mux(srv), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	return hs, nil
}

// pprofMux routes the profiles. The command line page is refused: it would
// show --requirepass to anyone who can reach the endpoint.
func pprofMux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "the command line is not served: it may hold secrets", http.StatusForbidden)
	})
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}
