package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/cairndb/cairn/bench/internal/loadgen"
	"github.com/cairndb/cairn/bench/internal/procs"
	"github.com/cairndb/cairn/bench/internal/rbench"
)

// workload is one redis-benchmark test in the matrix.
type workload struct {
	Name  string // redis-benchmark's test name, also its CSV row: "SET", "LRANGE_100"
	Group string // the scenario that runs it at appendfsync everysec
	// Probe is a command Cairn must know for the workload to run; nil for
	// workloads every server has. Collections appear in the matrix by
	// themselves once their commands stop answering "unknown command".
	Probe []any
	// Prefill, if set, runs after FLUSHALL and before the timed run, so
	// that reads and pops find data (redis-benchmark alone would GET
	// missing keys and pop empty lists).
	Prefill func(ctx context.Context, c *redis.Client, s settings, n int) error
	Scale   float64 // fraction of the scenario's -n (heavier commands run fewer)
	Durable bool    // also part of the durable pair
	// Run, if set, measures the workload with Cairn's own load generator
	// instead of redis-benchmark: n units at pipeline depth pipeline
	// against server p, after FLUSHALL and Prefill. The server's CPU is
	// measured around it as for redis-benchmark.
	Run func(ctx context.Context, h *harness, p *procs.Process, n, pipeline int) (benchRun, error)
	// Subscribers is the number of subscribing connections of a pub/sub
	// workload, whose runs also report messages delivered per second.
	Subscribers int
	// Pipelines, if set, are the only pipeline depths the workload runs
	// at (a consumer reading and then acknowledging has no -P 16).
	Pipelines []int
	// Keep is set by the matrix for a scenario with a setup
	// (scenarioSetups): its runs find the data the setup loaded instead of
	// an empty server.
	Keep bool
}

// runsAt reports whether the workload runs at pipeline depth p.
func (w workload) runsAt(p int) bool { return w.Pipelines == nil || slices.Contains(w.Pipelines, p) }

func (w workload) test() string { return strings.ToLower(w.Name) }

func (w workload) requests(n int) int {
	if w.Scale > 0 {
		return max(int(float64(n)*w.Scale), 1)
	}
	return n
}

const probeKey = "cairn-bench:probe"

// workloads in redis-benchmark's own order.
var workloads = []workload{
	{Name: "PING_INLINE", Group: "strings"},
	{Name: "PING_MBULK", Group: "strings"},
	{Name: "SET", Group: "strings", Durable: true},
	{Name: "GET", Group: "strings", Prefill: prefillStrings},
	{Name: "INCR", Group: "strings", Durable: true},
	{Name: "MSET", Group: "strings", Scale: 0.5, Durable: true},
	{Name: "LPUSH", Group: "collections", Probe: []any{"LPUSH", probeKey, "x"}, Durable: true},
	{Name: "RPUSH", Group: "collections", Probe: []any{"RPUSH", probeKey, "x"}},
	{Name: "LPOP", Group: "collections", Probe: []any{"LPOP", probeKey}, Prefill: prefillList},
	{Name: "RPOP", Group: "collections", Probe: []any{"RPOP", probeKey}, Prefill: prefillList},
	{Name: "SADD", Group: "collections", Probe: []any{"SADD", probeKey, "x"}, Durable: true},
	{Name: "HSET", Group: "collections", Probe: []any{"HSET", probeKey, "f", "v"}, Durable: true},
	{Name: "SPOP", Group: "collections", Probe: []any{"SPOP", probeKey}, Prefill: prefillSet},
	{Name: "ZADD", Group: "collections", Probe: []any{"ZADD", probeKey, "1", "m"}, Durable: true},
	{Name: "ZPOPMIN", Group: "collections", Probe: []any{"ZPOPMIN", probeKey}, Prefill: prefillZSet},
	{Name: "LRANGE_100", Group: "collections", Probe: []any{"LRANGE", probeKey, "0", "99"}, Scale: 0.25},
}

// allWorkloads is every workload of every matrix scenario.
func allWorkloads() []workload {
	all := append(slices.Clone(workloads), scriptPubSubWorkloads...)
	all = append(all, streamWorkloads...)
	all = append(all, hllGeoWorkloads...)
	all = append(all, tlsWorkloads...)
	all = append(all, aclWorkloads...)
	return append(all, bitmapWorkloads...)
}

// scenarioSetups load, once per server, data that a scenario's workloads
// share and that is too big to load again before every run (a 1M-member
// geo set). Such a scenario's runs do not FLUSHALL: its workloads must
// leave the data fit for the others.
var scenarioSetups = map[string]func(ctx context.Context, h *harness, name string, c *redis.Client) error{
	hllGeo: setupHLLGeo,
}

var scenarioTitles = map[string]string{
	"strings":       "redis-benchmark: strings and PING (Cairn appendfsync everysec; Redis without persistence)",
	"collections":   "redis-benchmark: collections (Cairn appendfsync everysec; Redis without persistence)",
	"durable":       "Durable against durable: Cairn appendfsync always vs Redis appendonly yes, appendfsync always",
	scriptPubSub:    "Scripts, transactions and pub/sub: Cairn's load generator (Cairn appendfsync everysec; Redis without persistence)",
	streams:         "Streams: XADD and a consumer group, Cairn's load generator (Cairn appendfsync everysec; Redis without persistence)",
	hllGeo:          "HyperLogLog and geo: Cairn's load generator (Cairn appendfsync everysec; Redis without persistence)",
	aclScenario:     "ACL checks: GET and SET as the default user and as a restricted user, Cairn's load generator (Cairn appendfsync everysec; Redis without persistence)",
	bitmapsScenario: "Bitmaps: SETBIT/GETBIT at random offsets, BITCOUNT/BITPOS over a sparse bitmap (Cairn's load generator; Cairn appendfsync everysec; Redis without persistence)",
	tlsScenario:     "TLS: GET and SET over TLS and over plain TCP, redis-benchmark (Cairn appendfsync everysec; Redis without persistence)",
}

// matrix runs one redis-benchmark scenario: every selected workload at each
// pipeline depth, for settings.Rounds rounds, alternating which server goes
// first so that drift in the machine's speed lands on both.
func (h *harness) matrix(ctx context.Context, scenario string) error {
	durable := scenario == "durable"
	var wls []workload
	for _, w := range allWorkloads() {
		if (durable && w.Durable) || (!durable && w.Group == scenario) {
			// The tls scenario's Run is redis-benchmark too: Only picks
			// from it as from the others.
			if h.set.Only == nil || h.set.Only[w.Name] || (w.Run != nil && w.Group != tlsScenario) {
				wls = append(wls, w)
			}
		}
	}
	ccfg := cairnConfig{appendfsync: "everysec", cacheSize: h.set.MatrixCache}
	rcfg := redisConfig{}
	requests := h.set.Requests
	if durable {
		ccfg.appendfsync = "always"
		rcfg = redisConfig{appendonly: true, appendfsync: "always"}
		requests = h.set.DurableRequests
	}
	if scenario == tlsScenario {
		var err error
		if rcfg.extra, ccfg.extra, err = h.tlsServerArgs(); err != nil {
			return err
		}
	}
	h.logf("%s: starting Redis and Cairn", scenario)
	rp, err := h.startRedis(ctx, scenario, rcfg)
	if err != nil {
		return err
	}
	defer rp.Stop(30 * time.Second)
	cp, err := h.startCairn(ctx, scenario, ccfg)
	if err != nil {
		return err
	}
	defer cp.Stop(30 * time.Second)
	var note string
	if scenario == tlsScenario {
		for _, p := range []*procs.Process{rp, cp} {
			proto, err := waitTLS(ctx, p)
			if err != nil {
				return err
			}
			if ossl, err := opensslSuite(ctx, p); err != nil {
				h.logf("%s: %v", scenario, err)
			} else if ossl != "" {
				proto = ossl + " with an OpenSSL client (openssl s_client, as redis-benchmark)"
			} else {
				proto += " with a Go client"
			}
			note += fmt.Sprintf("%s negotiates %s. ", p.Name, proto)
		}
	}
	if h.opts.pprof {
		prof := h.startProfiler(ctx, cp, scenario)
		defer prof.stop()
	}
	rc, cc := client(rp), client(cp)
	defer rc.Close()
	defer cc.Close()

	mr := &matrixResult{
		Scenario: scenario,
		Title:    scenarioTitles[scenario],
		CairnCmd: commandLine(cp),
		RedisCmd: commandLine(rp),
		Note:     strings.TrimSpace(note),
	}
	h.res.Matrix = append(h.res.Matrix, mr)

	var runnable []workload
	for _, w := range wls {
		supported, reason, err := probe(ctx, cc, w)
		switch {
		case err != nil:
			mr.Skipped = append(mr.Skipped, skip{w.Name, reason})
			h.res.Errors = append(h.res.Errors, fmt.Sprintf("%s: %s probe: %v", scenario, w.Name, err))
			h.logf("%s: %s: probe failed: %v", scenario, w.Name, err)
		case !supported:
			mr.Skipped = append(mr.Skipped, skip{w.Name, reason})
			h.logf("%s: skipping %s: %s", scenario, w.Name, reason)
		default:
			runnable = append(runnable, w)
		}
	}
	if len(runnable) == 0 {
		h.logf("%s: nothing to run", scenario)
		return nil
	}
	if setup := scenarioSetups[scenario]; setup != nil {
		for _, sv := range []server{{"redis", rp, rc}, {"cairn", cp, cc}} {
			t0 := time.Now()
			if err := setup(ctx, h, sv.name, sv.c); err != nil {
				return fmt.Errorf("%s: set-up: %w", sv.name, err)
			}
			h.logf("%s: %s set up in %v", scenario, sv.name, time.Since(t0).Round(time.Millisecond))
		}
		for i := range runnable {
			runnable[i].Keep = true
		}
	}

	rows := map[string]*matrixRow{}
	rowKey := func(w workload, p int) string { return fmt.Sprintf("%s/%d", w.Name, p) }
	for _, p := range h.set.Pipelines {
		for _, w := range runnable {
			if !w.runsAt(p) {
				continue
			}
			r := &matrixRow{Workload: w.Name, Pipeline: p, Requests: w.requests(requests[p])}
			rows[rowKey(w, p)] = r
			mr.Rows = append(mr.Rows, r)
		}
	}
	unknown := map[string]bool{}
	if h.set.RunSeconds > 0 {
		// Calibrate: one short run per server bounds every row's length by
		// the slower server's speed. It doubles as a warm-up.
		for _, w := range runnable {
			for _, p := range h.set.Pipelines {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				row := rows[rowKey(w, p)]
				if row == nil {
					continue
				}
				ncal := min(max(row.Requests/20, h.set.minRequests(p)), row.Requests)
				slowest := math.Inf(1)
				for _, srv := range []struct {
					name string
					p    *procs.Process
					c    *redis.Client
				}{{"redis", rp, rc}, {"cairn", cp, cc}} {
					res, err := h.benchOnce(ctx, srv.p, srv.c, w, ncal, p)
					if ctx.Err() != nil {
						return ctx.Err()
					}
					if isUnknownCommand(err) && srv.name == "cairn" {
						unknown[w.Name] = true
						mr.Skipped = append(mr.Skipped, skip{w.Name, "Cairn answered unknown command during calibration: " + err.Error()})
						break
					}
					if err != nil {
						row.Errors = append(row.Errors, fmt.Sprintf("calibration, %s: %v", srv.name, err))
						h.res.Errors = append(h.res.Errors, fmt.Sprintf("%s: %s -P %d calibration, %s: %v", scenario, w.Name, p, srv.name, err))
						slowest = math.NaN()
						break
					}
					slowest = math.Min(slowest, res.RPS)
				}
				row.Requests = h.set.calibrated(row.Requests, p, slowest)
				h.logf("%s: calibrated %-11s -P %-2d slower server %s ops/s → -n %s",
					scenario, w.Name, p, fmtOps(slowest), fmtOps(float64(row.Requests)))
			}
		}
	}
	for round := range h.set.Rounds {
		for pi, p := range h.set.Pipelines {
			for wi, w := range runnable {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				if unknown[w.Name] || !w.runsAt(p) {
					continue
				}
				if err := exitedEarly(rp, cp); err != nil {
					return err
				}
				row := rows[rowKey(w, p)]
				if row == nil {
					continue
				}
				servers := []struct {
					name string
					p    *procs.Process
					c    *redis.Client
					dst  *[]benchRun
				}{{"redis", rp, rc, &row.Redis}, {"cairn", cp, cc, &row.Cairn}}
				if (round+pi+wi)%2 == 1 {
					servers[0], servers[1] = servers[1], servers[0]
				}
				for _, s := range servers {
					res, err := h.benchOnce(ctx, s.p, s.c, w, row.Requests, p)
					if ctx.Err() != nil {
						return ctx.Err()
					}
					if isUnknownCommand(err) && s.name == "cairn" {
						unknown[w.Name] = true
						mr.Skipped = append(mr.Skipped, skip{w.Name, "Cairn answered unknown command during the run: " + err.Error()})
						h.logf("%s: skipping %s from now on: %v", scenario, w.Name, err)
						break
					}
					if err != nil {
						row.Errors = append(row.Errors, fmt.Sprintf("round %d, %s: %v", round+1, s.name, err))
						h.res.Errors = append(h.res.Errors, fmt.Sprintf("%s: %s -P %d round %d, %s: %v", scenario, w.Name, p, round+1, s.name, err))
						h.logf("%s: round %d/%d %-11s -P %-2d %-5s FAILED: %v", scenario, round+1, h.set.Rounds, w.Name, p, s.name, err)
						res = failedRun(w.Name)
					} else {
						h.logf("%s: round %d/%d %-11s -P %-2d %-5s %12s ops/s  p50 %.3f ms  p99 %.3f ms  CPU %.1f µs/command",
							scenario, round+1, h.set.Rounds, w.Name, p, s.name, fmtOps(res.RPS), res.P50Ms, res.P99Ms, res.CPUus)
					}
					*s.dst = append(*s.dst, res)
				}
			}
		}
	}
	// A workload that turned out unknown mid-run has no comparable rows.
	if len(unknown) > 0 {
		kept := mr.Rows[:0]
		for _, r := range mr.Rows {
			if !unknown[r.Workload] {
				kept = append(kept, r)
			}
		}
		mr.Rows = kept
	}
	return nil
}

// isUnknownCommand reports a run refused because the server does not know
// one of its commands, by redis-benchmark or by the load generator.
func isUnknownCommand(err error) bool {
	return errors.Is(err, rbench.ErrUnknownCommand) || errors.Is(err, loadgen.ErrUnknownCommand)
}

// exitedEarly reports a server that died during a scenario: every later
// run would only fail to connect.
func exitedEarly(ps ...*procs.Process) error {
	for _, p := range ps {
		if p.Exited() {
			return fmt.Errorf("%s exited during the scenario; last log lines:\n%s", p.Name, p.LogTail(10))
		}
	}
	return nil
}

// probe asks Cairn for a workload's command. It reports unsupported (with
// the server's words) when Cairn answers "unknown command", and an error
// for any other failure.
func probe(ctx context.Context, c *redis.Client, w workload) (supported bool, reason string, err error) {
	if w.Probe == nil {
		return true, "", nil
	}
	defer c.Del(ctx, probeKey)
	err = c.Do(ctx, w.Probe...).Err()
	switch {
	case err == nil || errors.Is(err, redis.Nil):
		return true, "", nil
	case strings.Contains(err.Error(), "unknown command"):
		return false, "Cairn: " + err.Error(), nil
	default:
		return false, "probe failed: " + err.Error(), err
	}
}

// benchRun is one redis-benchmark run against one server.
type benchRun struct {
	rbench.Result
	// CPUus is the server's CPU time (user and system) during the run, in
	// microseconds per command; NaN if it could not be read. Unlike ops/s
	// it hardly depends on what else the machine was doing, so it shows
	// where a ratio comes from on a noisy machine.
	CPUus float64
	// Pub/sub workloads only (NaN, or zero from redis-benchmark,
	// otherwise): messages received by all subscribers together per
	// second, and a message's latency from its PUBLISH's send to its
	// receipt, in milliseconds.
	Delivered                    float64
	DeliveryP50Ms, DeliveryP99Ms float64
}

// benchOnce empties the server, prefills what the workload reads, and runs
// redis-benchmark once.
func (h *harness) benchOnce(ctx context.Context, p *procs.Process, c *redis.Client, w workload, n, pipeline int) (benchRun, error) {
	// A tiny run (smoke mode) can finish within redis-benchmark's timer
	// resolution; it is retried with more requests, a bounded number of times.
	for attempt := 0; ; attempt++ {
		r, err := h.benchAttempt(ctx, p, c, w, n, pipeline)
		if !errors.Is(err, rbench.ErrTooShort) || attempt == 2 {
			return r, err
		}
		n *= 10
	}
}

func (h *harness) benchAttempt(ctx context.Context, p *procs.Process, c *redis.Client, w workload, n, pipeline int) (benchRun, error) {
	if !w.Keep {
		if err := c.FlushAll(ctx).Err(); err != nil {
			return benchRun{}, fmt.Errorf("FLUSHALL: %w", err)
		}
	}
	if w.Prefill != nil {
		if err := w.Prefill(ctx, c, h.set, n); err != nil {
			return benchRun{}, fmt.Errorf("prefill: %w", err)
		}
	}
	if w.Run != nil {
		before, cpuErr := serverTicks(p.Pid())
		rctx, cancel := context.WithTimeout(ctx, 2*time.Minute+time.Duration(n)*2*time.Millisecond)
		defer cancel()
		run, err := w.Run(rctx, h, p, n, pipeline)
		after, cpuErr2 := serverTicks(p.Pid())
		if err != nil {
			return benchRun{}, err
		}
		if !(run.RPS > 0) {
			return benchRun{}, fmt.Errorf("the load generator reported %v ops/s", run.RPS)
		}
		if cpuErr == nil && cpuErr2 == nil {
			run.CPUus = cpuPerCommand(after-before, n)
		}
		return run, nil
	}
	before, cpuErr := serverTicks(p.Pid())
	// The server's CPU counts from the end of any test redis-benchmark
	// runs before the measured one (LRANGE_100's own LPUSH fill), so that
	// it is the measured commands' alone.
	onRow := func(r rbench.Result) {
		if strings.EqualFold(r.Name(), w.Name) {
			return
		}
		before, cpuErr = serverTicks(p.Pid())
	}
	// Generous: even at 500 ops/s the run finishes well inside it.
	rctx, cancel := context.WithTimeout(ctx, 2*time.Minute+time.Duration(n)*2*time.Millisecond)
	defer cancel()
	rows, err := rbench.Run(rctx, rbench.Options{
		Bin: h.benchBin, Host: "127.0.0.1", Port: p.Port,
		Clients: h.set.Clients, Requests: n, DataSize: h.set.DataSize,
		KeyspaceLen: h.set.Keyspace, Pipeline: pipeline, Tests: w.test(),
		OnRow: onRow,
	})
	after, cpuErr2 := serverTicks(p.Pid())
	if err != nil {
		return benchRun{}, err
	}
	r, ok := rbench.Find(rows, w.Name)
	if !ok {
		return benchRun{}, fmt.Errorf("redis-benchmark printed no %s row", w.Name)
	}
	if !(r.RPS > 0) {
		return benchRun{}, fmt.Errorf("redis-benchmark reported %v ops/s", r.RPS)
	}
	run := benchRun{Result: r, CPUus: math.NaN()}
	if cpuErr == nil && cpuErr2 == nil {
		run.CPUus = cpuPerCommand(after-before, n)
	}
	return run, nil
}

// cpuPerCommand turns the server's CPU ticks over a run of n commands into
// microseconds per command. A run too short to tick once (10 ms of CPU)
// measured nothing.
func cpuPerCommand(ticks int64, n int) float64 {
	if n <= 0 || ticks <= 0 {
		return math.NaN()
	}
	return float64(ticks) * 1e6 / clockTicks / float64(n)
}

func failedRun(name string) benchRun {
	nan := math.NaN()
	return benchRun{Result: failedResult(name), CPUus: nan, Delivered: nan, DeliveryP50Ms: nan, DeliveryP99Ms: nan}
}

func failedResult(name string) rbench.Result {
	nan := math.NaN()
	return rbench.Result{Test: name, RPS: nan, AvgMs: nan, MinMs: nan, P50Ms: nan, P95Ms: nan, P99Ms: nan, MaxMs: nan}
}

// Prefills write the keys redis-benchmark's tests use (key:<12 digits>,
// mylist, myset, myzset) in pipelined batches.

const prefillBatch = 1000

// popMargin covers the requests a pipelined redis-benchmark may have in
// flight beyond -n.
func popMargin(s settings) int { return s.Clients * 16 }

func prefillStrings(ctx context.Context, c *redis.Client, s settings, _ int) error {
	val := strings.Repeat("x", s.DataSize)
	for first := 0; first < s.Keyspace; first += prefillBatch {
		pipe := c.Pipeline()
		for i := first; i < min(first+prefillBatch, s.Keyspace); i++ {
			pipe.Set(ctx, fmt.Sprintf("key:%012d", i), val, 0)
		}
		if _, err := pipe.Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}

func prefillVariadic(ctx context.Context, c *redis.Client, total int, cmd func(first, last int) []any) error {
	pipe := c.Pipeline()
	for first := 0; first < total; first += prefillBatch {
		pipe.Do(ctx, cmd(first, min(first+prefillBatch, total))...)
		if pipe.Len() == 50 {
			if _, err := pipe.Exec(ctx); err != nil {
				return err
			}
		}
	}
	_, err := pipe.Exec(ctx)
	return err
}

func prefillList(ctx context.Context, c *redis.Client, s settings, n int) error {
	val := strings.Repeat("x", s.DataSize)
	return prefillVariadic(ctx, c, n+popMargin(s), func(first, last int) []any {
		args := []any{"LPUSH", "mylist"}
		for range last - first {
			args = append(args, val)
		}
		return args
	})
}

func prefillSet(ctx context.Context, c *redis.Client, s settings, n int) error {
	return prefillVariadic(ctx, c, n+popMargin(s), func(first, last int) []any {
		args := []any{"SADD", "myset"}
		for i := first; i < last; i++ {
			args = append(args, fmt.Sprintf("element:%012d", i))
		}
		return args
	})
}

func prefillZSet(ctx context.Context, c *redis.Client, s settings, n int) error {
	return prefillVariadic(ctx, c, n+popMargin(s), func(first, last int) []any {
		args := []any{"ZADD", "myzset"}
		for i := first; i < last; i++ {
			args = append(args, i, fmt.Sprintf("element:%012d", i))
		}
		return args
	})
}
