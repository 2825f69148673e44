package main

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/redis/go-redis/v9"

	"github.com/cairndb/cairn/bench/internal/loadgen"
	"github.com/cairndb/cairn/bench/internal/procs"
	"github.com/cairndb/cairn/bench/internal/rbench"
)

// The scripting-pubsub scenario (issue 19): EVALSHA of a one-key script,
// MULTI + five SETs + EXEC, and PUBLISH to 1 and to 100 subscribers. None
// of these is a redis-benchmark test (it can run EVALSHA, but not a
// sequence of commands as one request, nor count what subscribers
// receive), so they all run on Cairn's own load generator, the same way
// for both servers: -c connections, -P units in flight on each, closed
// loop, random keys. A plain INCR on the same client is the baseline the
// script is measured against. The matrix code runs them (rounds,
// alternation, calibration, CPU per unit), through workload.Run.

const scriptPubSub = "scripting-pubsub"

// incrScript is the script EVALSHA runs; incrSHA its SHA1, which SCRIPT
// LOAD must return.
const incrScript = "return redis.call('INCR', KEYS[1])"

var incrSHA = func() string {
	sum := sha1.Sum([]byte(incrScript))
	return hex.EncodeToString(sum[:])
}()

// pubsubChannel is the channel the pub/sub workloads publish to.
const pubsubChannel = "cairn-bench:channel"

// txSets is the number of SETs in the transaction workload.
const txSets = 5

var scriptPubSubWorkloads = []workload{
	{Name: "INCR", Group: scriptPubSub, Run: runOp(incrOp)},
	{Name: "EVALSHA", Group: scriptPubSub, Probe: []any{"SCRIPT", "LOAD", incrScript}, Prefill: loadIncrScript, Run: runOp(evalshaOp)},
	{Name: "MULTI_5xSET", Group: scriptPubSub, Run: runOp(txOp)},
	{Name: "PUBLISH_1", Group: scriptPubSub, Probe: []any{"PUBLISH", probeKey, "x"}, Subscribers: 1, Run: runPubSub(1)},
	{Name: "PUBLISH_100", Group: scriptPubSub, Probe: []any{"PUBLISH", probeKey, "x"}, Subscribers: 100, Scale: 0.25, Run: runPubSub(100)},
}

// spDescriptions say what each workload of the scenario sends, for
// RESULTS.md.
var spDescriptions = map[string]string{
	"INCR":        "`INCR key:<random>`: the baseline, on the same client as the rest",
	"EVALSHA":     "`EVALSHA <sha> 1 key:<random>` of `" + incrScript + "`, loaded with SCRIPT LOAD after each FLUSHALL",
	"MULTI_5xSET": "`MULTI`, `SET key:<random> <value>` × 5, `EXEC`: one unit of 7 commands, counted as one transaction",
	"PUBLISH_1":   "`PUBLISH <channel> <value>` with 1 connection SUBSCRIBEd to the channel",
	"PUBLISH_100": "`PUBLISH <channel> <value>` with 100 connections SUBSCRIBEd to the channel",
}

// randKey is redis-benchmark's key:__rand_int__ with -r keyspace.
func randKey(rng *rand.Rand, keyspace int) string {
	var b [32]byte
	out := append(b[:0], "key:"...)
	d := strconv.AppendInt(nil, int64(rng.IntN(keyspace)), 10)
	for n := len(d); n < 12; n++ {
		out = append(out, '0')
	}
	return string(append(out, d...))
}

func wantInt(r loadgen.Reply) error {
	if r.Type != ':' {
		return fmt.Errorf("got %s, want an integer", r)
	}
	return nil
}

func incrOp(s settings) loadgen.Op {
	return loadgen.Op{
		Name:    "INCR",
		Replies: 1,
		Append: func(buf []byte, rng *rand.Rand) []byte {
			return loadgen.AppendCommand(buf, "INCR", randKey(rng, s.Keyspace))
		},
		Check: func(_ int, r loadgen.Reply) error { return wantInt(r) },
	}
}

func evalshaOp(s settings) loadgen.Op {
	return loadgen.Op{
		Name:    "EVALSHA",
		Replies: 1,
		Append: func(buf []byte, rng *rand.Rand) []byte {
			return loadgen.AppendCommand(buf, "EVALSHA", incrSHA, "1", randKey(rng, s.Keyspace))
		},
		Check: func(_ int, r loadgen.Reply) error { return wantInt(r) },
	}
}

func txOp(s settings) loadgen.Op {
	val := make([]byte, s.DataSize)
	for i := range val {
		val[i] = 'x'
	}
	value := string(val)
	return loadgen.Op{
		Name:    "MULTI/SET×5/EXEC",
		Replies: txSets + 2,
		Append: func(buf []byte, rng *rand.Rand) []byte {
			buf = loadgen.AppendCommand(buf, "MULTI")
			for range txSets {
				buf = loadgen.AppendCommand(buf, "SET", randKey(rng, s.Keyspace), value)
			}
			return loadgen.AppendCommand(buf, "EXEC")
		},
		Check: func(i int, r loadgen.Reply) error {
			switch {
			case i == 0 && (r.Type != '+' || string(r.Str) != "OK"):
				return fmt.Errorf("MULTI gave %s", r)
			case i > 0 && i <= txSets && (r.Type != '+' || string(r.Str) != "QUEUED"):
				return fmt.Errorf("SET in MULTI gave %s, want QUEUED", r)
			case i == txSets+1:
				if r.Type != '*' || r.Null || len(r.Elems) != txSets {
					return fmt.Errorf("EXEC gave %s, want %d replies", r, txSets)
				}
				for _, e := range r.Elems {
					if e.Type != '+' || string(e.Str) != "OK" {
						return fmt.Errorf("SET in EXEC gave %s", e)
					}
				}
			}
			return nil
		},
	}
}

func loadIncrScript(ctx context.Context, c *redis.Client, _ settings, _ int) error {
	sha, err := c.ScriptLoad(ctx, incrScript).Result()
	if err != nil {
		return fmt.Errorf("SCRIPT LOAD: %w", err)
	}
	if sha != incrSHA {
		return fmt.Errorf("SCRIPT LOAD returned %s, want the script's SHA1 %s", sha, incrSHA)
	}
	return nil
}

// runOp measures a loadgen.Op: n units at depth pipeline from the
// matrix's number of clients.
func runOp(mk func(settings) loadgen.Op) func(context.Context, *harness, *procs.Process, int, int) (benchRun, error) {
	return func(ctx context.Context, h *harness, p *procs.Process, n, pipeline int) (benchRun, error) {
		op := mk(h.set)
		res, err := loadgen.Pipelined(ctx, loadgen.PipeConfig{
			Addr: p.Addr(), Conns: h.set.Clients, Pipeline: pipeline, Units: int64(n), Seed: rand.Uint64(),
		}, op)
		if err != nil {
			return benchRun{}, err
		}
		return benchRun{Result: loadgenResult(op.Name, res.UnitsPerSec(), res.Latency), CPUus: math.NaN(),
			Delivered: math.NaN(), DeliveryP50Ms: math.NaN(), DeliveryP99Ms: math.NaN()}, nil
	}
}

// runPubSub measures PUBLISH to subs subscribers: n PUBLISHes from the
// matrix's number of clients.
func runPubSub(subs int) func(context.Context, *harness, *procs.Process, int, int) (benchRun, error) {
	return func(ctx context.Context, h *harness, p *procs.Process, n, pipeline int) (benchRun, error) {
		res, err := loadgen.PubSub(ctx, loadgen.PubSubConfig{
			Addr: p.Addr(), Channel: pubsubChannel, Subscribers: subs, Publishers: h.set.Clients,
			Pipeline: pipeline, Messages: int64(n), PayloadSize: max(h.set.DataSize, 16),
		})
		if err != nil {
			return benchRun{}, err
		}
		return benchRun{Result: loadgenResult("PUBLISH", res.PublishesPerSec(), res.Publish), CPUus: math.NaN(),
			Delivered: res.DeliveredPerSec(), DeliveryP50Ms: ms(res.Delivery.P50), DeliveryP99Ms: ms(res.Delivery.P99)}, nil
	}
}

func loadgenResult(name string, rps float64, l loadgen.Latency) rbench.Result {
	nan := math.NaN()
	return rbench.Result{Test: name, RPS: rps, AvgMs: nan, MinMs: nan, P50Ms: ms(l.P50), P95Ms: nan, P99Ms: ms(l.P99), MaxMs: ms(l.Max)}
}
