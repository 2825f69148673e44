// Command benchrun is the logic behind bench/run: it builds Cairn, starts
// Cairn and Debian's redis-server side by side on loopback ports with fresh
// data directories, runs the benchmark scenarios against both, and writes
// RESULTS.md and results.svg.
//
// Usage (from the repository root; bench/run does this for you):
//
//	benchrun [--quick | --smoke] [--big] [--pprof] [--out DIR] [scenario ...]
//
// Scenarios: strings, collections, durable, scripting-pubsub, streams,
// hll-geo, acl, tls, big-collections, zset-churn, bigger-than-memory,
// restart, rdb-import.
// With none named, all run. Every load is bounded in count and in time and
// talks to loopback only; every process and directory the harness creates is
// removed on exit, including after Ctrl-C.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// scenarioNames in the order a full run performs them.
var scenarioNames = []string{"strings", "collections", "durable", scriptPubSub, streams, hllGeo, aclScenario, bitmapsScenario, tlsScenario, "big-collections", "zset-churn", "bigger-than-memory", sparseBitmaps, "restart", rdbImport}

var scenarioHelp = map[string]string{
	"strings":            "redis-benchmark PING, SET, GET, INCR, MSET at -P 1 and -P 16 (Cairn appendfsync everysec)",
	"collections":        "redis-benchmark LPUSH ... LRANGE_100, each once Cairn supports it",
	"durable":            "write workloads: Cairn appendfsync always vs Redis appendonly yes + appendfsync always",
	scriptPubSub:         "EVALSHA of an INCR script, MULTI + 5 SETs + EXEC, PUBLISH to 1 and 100 subscribers (own load generator), -P 1 and -P 16",
	streams:              "XADD -P 1 and -P 16; 10 consumers XREADGROUP + XACK; XRANGE, XPENDING, XINFO GROUPS, XTRIM, DEL on a 10M-entry stream",
	hllGeo:               "PFADD of 10 elements, PFCOUNT of 1 and 3 keys, GEOSEARCH BYRADIUS 5 km in a 1M-member geo set, -P 1 and -P 16",
	aclScenario:          "GET and SET as the default user and as a restricted ACL user (own load generator), -P 1 and -P 16",
	bitmapsScenario:      "SETBIT/GETBIT at random offsets below 10^8, -P 1 and -P 16; BITCOUNT and BITPOS over a bitmap with 1000 bits up to bit 4·10^9 (own load generator)",
	tlsScenario:          "redis-benchmark GET and SET over TLS and over plain TCP, -P 1 and -P 16",
	"big-collections":    "1M-member hash, set, list, zset: HGET, middle LINDEX, deep ZRANGEBYSCORE LIMIT; DEL and UNLINK",
	"zset-churn":         "ZADD + ZREMRANGEBYRANK on one hot zset for 60 s; ZRANGE 0 10 latency before, during, after",
	"bigger-than-memory": "load N × 1 KiB keys (≥ 4× Cairn's block cache), GET/SET 90/10 saturated and at a fixed rate; RSS, disk",
	sparseBitmaps:        "RSS of 10,000 bitmaps each with one bit at offset 4294967295 (512 MB strings); Redis holds one, extrapolated",
	"restart":            "time from exec to first PONG with N keys on disk; Redis loading an RDB for contrast",
	rdbImport:            "cairn import of an RDB file Redis wrote (1 GB; --rdb-size): MB/s, keys/s, peak RSS; Redis loading the same file",
}

type options struct {
	mode        string // "default", "quick", "smoke"
	big         bool
	pprof       bool
	keep        bool
	out         string
	dataRoot    string
	cairnBin    string
	rounds      int
	btmKeys     int
	btmCache    string
	btmDuration time.Duration
	btmRate     float64
	restartKeys int
	bcMembers   int
	churnDur    time.Duration
	// Streams and geo sizes.
	streamEntries int
	streamPending int
	geoMembers    int
	rdbSize       string
	scenarios     []string
}

func parseArgs(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("bench/run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	quick := fs.Bool("quick", false, "about one minute: smaller counts, same matrix")
	smoke := fs.Bool("smoke", false, "a few seconds with tiny counts, to prove the harness works (CI); writes to a temporary directory")
	fs.BoolVar(&o.big, "big", false, "bigger-than-memory at ~50 GB on disk and restart with 10M keys")
	fs.BoolVar(&o.pprof, "pprof", false, "capture CPU and allocation profiles of Cairn during each scenario (needs Cairn's pprof-addr setting)")
	fs.BoolVar(&o.keep, "keep", false, "keep the work directory (data dirs, server logs) instead of removing it")
	fs.StringVar(&o.out, "out", "", "directory for RESULTS.md, results.svg and profiles (default: bench/ for a full default run, else a new temporary directory)")
	fs.StringVar(&o.dataRoot, "data-root", "", "parent of the servers' data directories (default: $TMPDIR unless it is tmpfs, else bench/)")
	fs.StringVar(&o.cairnBin, "cairn-bin", "", "use this Cairn binary instead of building ./cmd/cairn")
	fs.IntVar(&o.rounds, "rounds", 0, "alternating rounds per redis-benchmark workload (default 3)")
	fs.IntVar(&o.btmKeys, "btm-keys", 0, "bigger-than-memory: number of 1 KiB keys (default: 4× the block cache)")
	fs.StringVar(&o.btmCache, "btm-cache", "", "bigger-than-memory: Cairn's --cache-size (default 64mb; 16mb --quick; 1gb --big)")
	fs.DurationVar(&o.btmDuration, "btm-duration", 0, "bigger-than-memory: length of the saturated GET/SET mix")
	fs.Float64Var(&o.btmRate, "btm-rate", 0, "bigger-than-memory: fixed rate of the open-loop mix, as a fraction of Cairn's saturated throughput (default 0.5)")
	fs.IntVar(&o.restartKeys, "restart-keys", 0, "restart: number of keys on disk (default 1M; 10M with --big)")
	fs.IntVar(&o.bcMembers, "bc-members", 0, "big-collections: members per collection (default 1M; 100k --quick)")
	fs.DurationVar(&o.churnDur, "churn-duration", 0, "zset-churn: length of the churn (default 60s; 10s --quick)")
	fs.IntVar(&o.streamEntries, "stream-entries", 0, "streams: entries of the big stream (default 10M; 1M --quick)")
	fs.IntVar(&o.streamPending, "stream-pending", 0, "streams: pending entries of its group, entries XTRIM drops, entries of the stream DEL deletes (default 1M; 100k --quick)")
	fs.IntVar(&o.geoMembers, "geo-members", 0, "hll-geo: members of the geo set (default 1M; 100k --quick)")
	fs.StringVar(&o.rdbSize, "rdb-size", "", "rdb-import: size of the RDB file Redis makes (default 1gb; 50mb --quick; 1mb --smoke)")
	list := fs.Bool("list", false, "list the scenarios and exit")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: bench/run [flags] [scenario ...]\n\nscenarios (default: all):\n")
		for _, s := range scenarioNames {
			fmt.Fprintf(stderr, "  %-20s %s\n", s, scenarioHelp[s])
		}
		fmt.Fprintf(stderr, "\nflags:\n")
		fs.PrintDefaults()
	}
	// Scenario names may come before, between or after flags.
	rest := args
	for {
		if err := fs.Parse(rest); err != nil {
			return o, err
		}
		if fs.NArg() == 0 {
			break
		}
		o.scenarios = append(o.scenarios, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if *list {
		fs.Usage()
		return o, flag.ErrHelp
	}
	switch {
	case *quick && *smoke:
		return o, errors.New("--quick and --smoke exclude each other")
	case *smoke:
		o.mode = "smoke"
	case *quick:
		o.mode = "quick"
	default:
		o.mode = "default"
	}
	for _, s := range o.scenarios {
		if !slices.Contains(scenarioNames, s) {
			return o, fmt.Errorf("unknown scenario %q (have: %s)", s, strings.Join(scenarioNames, ", "))
		}
	}
	if len(o.scenarios) == 0 {
		o.scenarios = slices.Clone(scenarioNames)
	}
	if o.rounds < 0 || o.btmKeys < 0 || o.restartKeys < 0 || o.btmDuration < 0 || o.bcMembers < 0 || o.churnDur < 0 || o.streamEntries < 0 || o.streamPending < 0 || o.geoMembers < 0 || o.btmRate < 0 || o.btmRate > 1 {
		return o, errors.New("counts and durations must not be negative, and --btm-rate must be in (0, 1]")
	}
	return o, nil
}

func run(args []string, stdout, stderr io.Writer) int {
	o, err := parseArgs(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "bench/run:", err)
		return 2
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		sig, ok := <-sigs
		if !ok {
			return
		}
		fmt.Fprintf(stderr, "\nbench/run: %v: stopping the servers and cleaning up...\n", sig)
		cancel()
	}()
	defer signal.Stop(sigs)

	h, err := newHarness(ctx, o, stdout, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "bench/run:", err)
		return 1
	}
	err = h.runAll(ctx)
	if cerr := h.close(); cerr != nil {
		fmt.Fprintln(stderr, "bench/run: cleanup:", cerr)
	}
	if ctx.Err() != nil {
		fmt.Fprintln(stderr, "bench/run: interrupted")
		return 130
	}
	if err != nil {
		fmt.Fprintln(stderr, "bench/run:", err)
		return 1
	}
	return 0
}

// repoRoot returns the directory holding Cairn's go.mod, starting from the
// working directory (bench/run changes into the repository first).
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.Contains(string(data), "module github.com/cairndb/cairn") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("not inside the Cairn repository (no go.mod for github.com/cairndb/cairn)")
		}
		dir = parent
	}
}
