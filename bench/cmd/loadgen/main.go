// Command loadgen is the bigger-than-memory load generator on its own, for
// use against any Redis-protocol server (bench/run drives the same code in
// its bigger-than-memory scenario):
//
//	loadgen --addr 127.0.0.1:6379 --keys 262144 --value-size 1024 --duration 30s
//
// It loads --keys keys of --value-size random bytes (skipped with
// --skip-load), then runs a uniform random GET/SET mix from --conns clients
// and prints throughput and latency percentiles: closed-loop (as fast as
// replies come back), or with --rate open-loop at that many operations per
// second, latencies measured from each command's scheduled send time. It
// exits non-zero if any command fails or, after a load, if any GET misses.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/cairndb/cairn/bench/internal/loadgen"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(1)
	}
}

func run() error {
	var cfg loadgen.Config
	addr := flag.String("addr", "127.0.0.1:6379", "server address")
	flag.IntVar(&cfg.Keys, "keys", 262144, "number of keys (N)")
	flag.IntVar(&cfg.ValueSize, "value-size", 1024, "bytes per value")
	flag.StringVar(&cfg.KeyPrefix, "prefix", "btm:", "key prefix")
	flag.IntVar(&cfg.LoadConns, "load-conns", 8, "concurrent loaders")
	flag.IntVar(&cfg.LoadBatch, "load-batch", 100, "SETs per pipeline while loading")
	flag.IntVar(&cfg.Conns, "conns", 50, "concurrent clients in the mix")
	getPct := flag.Float64("get-percent", 90, "percentage of GETs in the mix")
	flag.DurationVar(&cfg.Duration, "duration", 30*time.Second, "length of the mix")
	flag.Int64Var(&cfg.MaxOps, "max-ops", 20_000_000, "stop the mix after this many operations (0: no cap)")
	flag.Float64Var(&cfg.Rate, "rate", 0, "open-loop: offer this many operations per second in all (0: closed-loop)")
	seed := flag.Uint64("seed", 0, "random seed (0: from the clock)")
	skipLoad := flag.Bool("skip-load", false, "do not load; run the mix against keys already there")
	flag.Parse()
	if flag.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", flag.Args())
	}
	if cfg.Rate < 0 {
		return fmt.Errorf("--rate %v is negative", cfg.Rate)
	}
	if *getPct < 0 || *getPct > 100 {
		return fmt.Errorf("--get-percent %v is not in [0, 100]", *getPct)
	}
	cfg.GetRatio = *getPct / 100
	cfg.Seed = *seed
	if cfg.Seed == 0 {
		cfg.Seed = uint64(time.Now().UnixNano())
	}
	cfg.Progress = func(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	c := loadgen.NewClient(*addr, max(cfg.Conns, cfg.LoadConns))
	defer c.Close()

	if !*skipLoad {
		l, err := loadgen.Load(ctx, c, cfg)
		if err != nil {
			return err
		}
		fmt.Printf("load: %d keys × %d B in %v: %.0f keys/s, %.1f MiB/s\n",
			l.Keys, cfg.ValueSize, l.Elapsed.Round(time.Millisecond), l.KeysPerSec(), l.MBPerSec())
	}
	m, err := loadgen.Mix(ctx, c, cfg)
	if err != nil {
		return err
	}
	fmt.Printf("mix: GET/SET %.0f/%.0f, %d clients, %v: %.0f ops/s (%d GETs, %d SETs, %d misses)\n",
		cfg.GetRatio*100, 100-cfg.GetRatio*100, cfg.Conns, m.Elapsed.Round(time.Millisecond), m.OpsPerSec(), m.Gets, m.Sets, m.Misses)
	type row struct {
		name string
		lat  loadgen.Latency
	}
	lats := []row{{"GET", m.Get}, {"SET", m.Set}, {"all", m.All}}
	if cfg.Rate > 0 {
		fmt.Printf("  open-loop at %.0f ops/s offered; latencies from the scheduled send times; %d sends behind schedule at the end\n", cfg.Rate, m.Unsent)
		lats = append(lats, row{"GET from send", m.GetSent}, row{"client lag", m.Lag})
	}
	// The load generator's own goroutines waiting for a processor: time
	// inside every latency above that the server did not spend.
	lats = append(lats, row{"client scheduling", m.Sched})
	for _, l := range lats {
		fmt.Printf("  %-3s p50 %v  p99 %v  p99.9 %v  max %v\n", l.name, l.lat.P50, l.lat.P99, l.lat.P999, l.lat.Max)
	}
	if !*skipLoad && m.Misses > 0 {
		return fmt.Errorf("%d GETs missed after a complete load", m.Misses)
	}
	return nil
}
