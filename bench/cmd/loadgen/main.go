// Command loadgen is Cairn's load generator on its own, for use against any
// Redis-protocol server (bench/run drives the same code in its
// bigger-than-memory and scripting-pubsub scenarios).
//
// The default mode, --mode mix, is the bigger-than-memory load:
//
//	loadgen --addr 127.0.0.1:6379 --keys 262144 --value-size 1024 --duration 30s
//
// It loads --keys keys of --value-size random bytes (skipped with
// --skip-load), then runs a uniform random GET/SET mix from --conns clients
// and prints throughput and latency percentiles: closed-loop (as fast as
// replies come back), or with --rate open-loop at that many operations per
// second, latencies measured from each command's scheduled send time. It
// exits non-zero if any command fails or, after a load, if any GET misses.
//
// The other modes run --requests units from --conns connections with
// --pipeline units in flight on each, like redis-benchmark -n -c -P, on
// random keys key:<12 digits> below --keys:
//
//	loadgen --mode tx --tx-sets 5 --pipeline 16     # MULTI, SET × 5, EXEC as one unit
//	loadgen --mode evalsha                          # SCRIPT LOAD, then EVALSHA of an INCR script
//	loadgen --mode publish --subscribers 100        # PUBLISH to one channel; delivered msgs/s
//	loadgen --mode group --conns 10 --count 10      # --requests entries XADDed, then drained by a consumer group
//
// Mode group replaces the stream loadgen:stream with one of --requests
// entries and a group at its start, which --conns consumers drain with
// XREADGROUP COUNT --count and XACK; it prints messages acknowledged per
// second.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/signal"
	"strings"
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
	mode := flag.String("mode", "mix", "mix (GET/SET, above), tx (MULTI + SETs + EXEC), evalsha (a one-key INCR script), publish or group (a stream's consumer group)")
	count := flag.Int("count", 10, "group: COUNT of each XREADGROUP")
	pipeline := flag.Int("pipeline", 1, "tx, evalsha, publish: units in flight per connection (-P)")
	requests := flag.Int64("requests", 100000, "tx, evalsha, publish: units in all (-n)")
	txSets := flag.Int("tx-sets", 5, "tx: SETs in each transaction")
	subscribers := flag.Int("subscribers", 1, "publish: connections subscribed to the channel")
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
	switch *mode {
	case "mix":
	case "tx", "evalsha", "publish":
		return runUnits(ctx, *mode, *addr, cfg, *pipeline, *requests, *txSets, *subscribers)
	case "group":
		return runGroup(ctx, *addr, cfg.Conns, *count, *requests)
	default:
		return fmt.Errorf("unknown --mode %q (mix, tx, evalsha, publish, group)", *mode)
	}
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

const incrScript = "return redis.call('INCR', KEYS[1])"

// runGroup fills a stream with n entries and drains it through a consumer
// group.
func runGroup(ctx context.Context, addr string, consumers, count int, n int64) error {
	if consumers < 1 || count < 1 || n < 1 {
		return errors.New("--conns, --count and --requests must be positive")
	}
	const key, group = "loadgen:stream", "loadgen"
	c := loadgen.NewClient(addr, 1)
	defer c.Close()
	if err := c.Del(ctx, key).Err(); err != nil {
		return err
	}
	fill := loadgen.Op{Name: "XADD", Replies: 1, Append: func(buf []byte, _ *rand.Rand) []byte {
		return loadgen.AppendCommand(buf, "XADD", key, "*", "field", "value")
	}}
	f, err := loadgen.Pipelined(ctx, loadgen.PipeConfig{Addr: addr, Conns: 1, Pipeline: 1000, Units: n}, fill)
	if err != nil {
		return err
	}
	fmt.Printf("fill: %d entries in %v: %.0f XADD/s\n", n, f.Elapsed.Round(time.Millisecond), f.UnitsPerSec())
	if err := c.Do(ctx, "XGROUP", "CREATE", key, group, "0").Err(); err != nil {
		return fmt.Errorf("XGROUP CREATE: %w", err)
	}
	r, err := loadgen.ConsumeGroup(ctx, loadgen.GroupConfig{Addr: addr, Key: key, Group: group, Consumers: consumers, Count: count, Messages: n})
	if err != nil {
		return err
	}
	fmt.Printf("group: %d consumers, XREADGROUP COUNT %d + XACK: %d messages in %v: %.0f acknowledged/s\n",
		consumers, count, r.Acked, r.Elapsed.Round(time.Millisecond), r.AckedPerSec())
	fmt.Printf("  read + ack p50 %v  p99 %v  p99.9 %v  max %v\n", r.Latency.P50, r.Latency.P99, r.Latency.P999, r.Latency.Max)
	return nil
}

// runUnits runs one of the pipelined modes and prints its figures.
func runUnits(ctx context.Context, mode, addr string, cfg loadgen.Config, pipeline int, requests int64, txSets, subscribers int) error {
	if pipeline < 1 || requests < 1 || cfg.Conns < 1 || cfg.Keys < 1 || txSets < 1 || subscribers < 1 {
		return errors.New("--pipeline, --requests, --conns, --keys, --tx-sets and --subscribers must be positive")
	}
	key := func(rng *rand.Rand) string { return fmt.Sprintf("key:%012d", rng.IntN(cfg.Keys)) }
	pcfg := loadgen.PipeConfig{Addr: addr, Conns: cfg.Conns, Pipeline: pipeline, Units: requests, Seed: cfg.Seed}
	var op loadgen.Op
	switch mode {
	case "publish":
		r, err := loadgen.PubSub(ctx, loadgen.PubSubConfig{Addr: addr, Channel: "loadgen:channel", Subscribers: subscribers,
			Publishers: cfg.Conns, Pipeline: pipeline, Messages: requests, PayloadSize: max(cfg.ValueSize, 16)})
		if err != nil {
			return err
		}
		fmt.Printf("publish: %d PUBLISHes of %d B from %d connections, -P %d, to %d subscribers: %.0f PUBLISH/s, %.0f messages delivered/s\n",
			r.Published, max(cfg.ValueSize, 16), cfg.Conns, pipeline, subscribers, r.PublishesPerSec(), r.DeliveredPerSec())
		fmt.Printf("  PUBLISH  p50 %v  p99 %v  p99.9 %v  max %v\n", r.Publish.P50, r.Publish.P99, r.Publish.P999, r.Publish.Max)
		fmt.Printf("  delivery p50 %v  p99 %v  p99.9 %v  max %v\n", r.Delivery.P50, r.Delivery.P99, r.Delivery.P999, r.Delivery.Max)
		return nil
	case "tx":
		val := strings.Repeat("x", cfg.ValueSize)
		op = loadgen.Op{Name: "MULTI/SET/EXEC", Replies: txSets + 2, Append: func(buf []byte, rng *rand.Rand) []byte {
			buf = loadgen.AppendCommand(buf, "MULTI")
			for range txSets {
				buf = loadgen.AppendCommand(buf, "SET", key(rng), val)
			}
			return loadgen.AppendCommand(buf, "EXEC")
		}, Check: func(i int, r loadgen.Reply) error {
			if i == txSets+1 && (r.Type != '*' || len(r.Elems) != txSets) {
				return fmt.Errorf("EXEC gave %s", r)
			}
			return nil
		}}
	case "evalsha":
		c := loadgen.NewClient(addr, 1)
		sha, err := c.ScriptLoad(ctx, incrScript).Result()
		c.Close()
		if err != nil {
			return fmt.Errorf("SCRIPT LOAD: %w", err)
		}
		op = loadgen.Op{Name: "EVALSHA", Replies: 1, Append: func(buf []byte, rng *rand.Rand) []byte {
			return loadgen.AppendCommand(buf, "EVALSHA", sha, "1", key(rng))
		}}
	}
	r, err := loadgen.Pipelined(ctx, pcfg, op)
	if err != nil {
		return err
	}
	fmt.Printf("%s: %d units from %d connections, -P %d: %.0f units/s\n", mode, r.Units, cfg.Conns, pipeline, r.UnitsPerSec())
	fmt.Printf("  p50 %v  p99 %v  p99.9 %v  max %v\n", r.Latency.P50, r.Latency.P99, r.Latency.P999, r.Latency.Max)
	return nil
}
