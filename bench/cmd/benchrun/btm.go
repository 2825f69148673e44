package main

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/cairndb/cairn/bench/internal/loadgen"
	"github.com/cairndb/cairn/bench/internal/procs"
)

// btmResult is the bigger-than-memory scenario's outcome.
type btmResult struct {
	Keys       int
	ValueSize  int
	CacheSize  int64
	CairnCmd   string
	Load       loadgen.LoadResult
	Mix        loadgen.MixResult
	PeakRSS    int64          // Cairn's VmHWM over the whole scenario
	Disk       procs.DirUsage // Cairn's data directory after the mix
	Conns      int
	GetRatio   float64
	Duration   time.Duration
	MaxOps     int64
	LoadConns  int
	LoadBatch  int
	RedisCmd   string
	RedisBase  int64 // used_memory of the empty Redis
	RedisKeys  int   // keys actually loaded into Redis
	RedisUsed  int64 // used_memory after loading RedisKeys
	RedisAtN   int64 // used_memory at Keys: measured, or extrapolated
	RedisExtra bool  // RedisAtN is extrapolated from RedisKeys
	RedisLoad  loadgen.LoadResult
	RedisMix   *loadgen.MixResult // the same mix on Redis, when it held all N keys
	Budget     int64

	// The same mix open-loop at a fixed rate, RateFraction of Cairn's
	// saturated throughput (Mix), on both servers, and where the machine's
	// CPU went meanwhile.
	RateFraction  float64
	RateDuration  time.Duration
	Fixed         loadgen.MixResult
	FixedCPU      cpuUse
	RedisFixed    *loadgen.MixResult
	RedisFixedCPU cpuUse
	// FixedGetServer and RedisFixedGetServer are the fixed-rate GETs'
	// latencies inside each server (INFO latencystats): the time a GET ran,
	// without the wait for a processor, the network or the client, so
	// that the client's tail can be told apart from the engine's.
	FixedGetServer, RedisFixedGetServer serverLatency

	// KeyCacheSize is Cairn's key-cache-size: a second cache, beside the
	// block cache, of recently used records (a string's value is inline in
	// its record). -1 when the build has no such setting.
	KeyCacheSize int64
}

// redisOverheadGuess sizes the Redis sample before anything is measured:
// a 1 KiB value costs Redis a little over 1 KiB.
const redisOverheadGuess = 100

func (h *harness) biggerThanMemory(ctx context.Context) error {
	s := h.set
	cfg := loadgen.Config{
		Keys: s.BTMKeys, ValueSize: s.BTMValueSize, KeyPrefix: "btm:",
		LoadConns: s.BTMLoadConns, LoadBatch: s.BTMLoadBatch,
		Conns: s.BTMConns, GetRatio: s.BTMGetRatio, Duration: s.BTMDuration, MaxOps: s.BTMMaxOps,
		Seed: uint64(h.start.UnixNano()),
		Progress: func(format string, args ...any) {
			h.logf("bigger-than-memory: "+format, args...)
		},
	}
	r := &btmResult{
		Keys: cfg.Keys, ValueSize: cfg.ValueSize, CacheSize: s.BTMCacheSize,
		Conns: cfg.Conns, GetRatio: cfg.GetRatio, Duration: cfg.Duration, MaxOps: cfg.MaxOps,
		LoadConns: cfg.LoadConns, LoadBatch: cfg.LoadBatch, Budget: s.RedisBudget,
		RateFraction: s.BTMRateFraction, RateDuration: s.BTMRateDuration,
	}

	h.logf("bigger-than-memory: Cairn with --cache-size %s --key-cache-size %s; loading %d keys × %d B (%s, %.1f× the block cache)",
		s.BTMCache, s.BTMKeyCache, cfg.Keys, cfg.ValueSize, fmtBytes(int64(cfg.Keys)*int64(cfg.ValueSize)),
		float64(cfg.Keys)*float64(cfg.ValueSize)/float64(s.BTMCacheSize))
	cp, err := h.startCairn(ctx, "btm", cairnConfig{appendfsync: "everysec", cacheSize: s.BTMCache, keyCacheSize: s.BTMKeyCache})
	if err != nil {
		return err
	}
	defer cp.Stop(time.Minute)
	r.CairnCmd = commandLine(cp)
	if r.KeyCacheSize, err = configBytes(ctx, cp, "key-cache-size"); err != nil {
		return err
	}
	var prof *profileHandle
	if h.opts.pprof {
		ph := h.startProfiler(ctx, cp, "bigger-than-memory")
		prof = &ph
	}
	err = h.loadAndMix(ctx, cp, cfg, &r.Load, &r.Mix)
	if err == nil {
		r.Fixed, r.FixedCPU, r.FixedGetServer, err = h.fixedRate(ctx, cp, cfg, r.RateFraction*r.Mix.OpsPerSec(), r.RateDuration)
	}
	if prof != nil {
		prof.stop()
	}
	if err != nil {
		return fmt.Errorf("cairn: %w", err)
	}
	if r.PeakRSS, err = cp.PeakRSS(); err != nil {
		return err
	}
	if r.Disk, err = procs.DirSize(dirOf(cp)); err != nil {
		return err
	}
	h.logf("bigger-than-memory: cairn saturated %s ops/s; at %s ops/s GET p99 %s; peak RSS %s, files %s (%.0f B/key; %s allocated)",
		fmtOps(r.Mix.OpsPerSec()), fmtOps(r.Fixed.OpsPerSec()), fmtDur(r.Fixed.Get.P99), fmtBytes(r.PeakRSS), fmtBytes(r.Disk.Apparent),
		float64(r.Disk.Apparent)/float64(r.Keys), fmtBytes(r.Disk.Allocated))
	if _, err := cp.Stop(time.Minute); err != nil {
		return err
	}
	// Both sides are recorded before Redis starts, so a Redis failure
	// still leaves Cairn's figures in RESULTS.md.
	h.res.BTM = r

	// Redis: the memory it would need for the same N.
	rp, err := h.startRedis(ctx, "btm", redisConfig{})
	if err != nil {
		return err
	}
	defer rp.Stop(time.Minute)
	r.RedisCmd = commandLine(rp)
	rc := client(rp)
	defer rc.Close()
	if r.RedisBase, err = usedMemory(ctx, rc); err != nil {
		return err
	}
	perKeyGuess := int64(cfg.ValueSize + redisOverheadGuess)
	rcfg := cfg
	if int64(cfg.Keys)*perKeyGuess > s.RedisBudget {
		rcfg.Keys = int(s.RedisBudget / 2 / perKeyGuess)
		r.RedisExtra = true
		h.logf("bigger-than-memory: N does not fit Redis's %s budget; loading %d keys to extrapolate", fmtBytes(s.RedisBudget), rcfg.Keys)
	}
	r.RedisKeys = rcfg.Keys
	if r.RedisExtra {
		lc := loadgen.NewClient(rp.Addr(), rcfg.LoadConns)
		r.RedisLoad, err = loadgen.Load(ctx, lc, rcfg)
		lc.Close()
		if err != nil {
			return fmt.Errorf("redis load: %w", err)
		}
	} else {
		var mix loadgen.MixResult
		if err := h.loadAndMix(ctx, rp, rcfg, &r.RedisLoad, &mix); err != nil {
			return fmt.Errorf("redis: %w", err)
		}
		r.RedisMix = &mix
		// The same offered rate as Cairn's, not half of Redis's own maximum:
		// the question is how each serves one given load.
		fixed, use, inServer, err := h.fixedRate(ctx, rp, rcfg, r.Fixed.Rate, r.RateDuration)
		if err != nil {
			return fmt.Errorf("redis: %w", err)
		}
		r.RedisFixed, r.RedisFixedCPU, r.RedisFixedGetServer = &fixed, use, inServer
	}
	if r.RedisUsed, err = usedMemory(ctx, rc); err != nil {
		return err
	}
	r.RedisAtN = r.RedisUsed
	if r.RedisExtra {
		perKey := float64(r.RedisUsed-r.RedisBase) / float64(r.RedisKeys)
		r.RedisAtN = r.RedisBase + int64(perKey*float64(r.Keys))
	}
	how := "measured"
	if r.RedisExtra {
		how = "extrapolated"
	}
	h.logf("bigger-than-memory: redis used_memory %s at %d keys (%s at N, %s)",
		fmtBytes(r.RedisUsed), r.RedisKeys, fmtBytes(r.RedisAtN), how)
	return nil
}

// loadAndMix loads cfg.Keys keys, checks that all arrived, and runs the mix.
func (h *harness) loadAndMix(ctx context.Context, p *procs.Process, cfg loadgen.Config, load *loadgen.LoadResult, mix *loadgen.MixResult) error {
	lc := loadgen.NewClient(p.Addr(), max(cfg.LoadConns, cfg.Conns))
	defer lc.Close()
	var err error
	if *load, err = loadgen.Load(ctx, lc, cfg); err != nil {
		return fmt.Errorf("load: %w", err)
	}
	n, err := lc.DBSize(ctx).Result()
	if err != nil {
		return fmt.Errorf("DBSIZE: %w", err)
	}
	if n != int64(cfg.Keys) {
		return fmt.Errorf("DBSIZE is %d after loading %d keys", n, cfg.Keys)
	}
	h.logf("bigger-than-memory: %s loaded %d keys in %v (%s keys/s, %.1f MiB/s); GET/SET %.0f/%.0f mix for %v",
		p.Name, cfg.Keys, load.Elapsed.Round(time.Millisecond), fmtOps(load.KeysPerSec()), load.MBPerSec(),
		cfg.GetRatio*100, (1-cfg.GetRatio)*100, cfg.Duration)
	if *mix, err = loadgen.Mix(ctx, lc, cfg); err != nil {
		return fmt.Errorf("mix: %w", err)
	}
	if mix.Misses > 0 {
		return fmt.Errorf("%d of %d GETs found no value after a complete load", mix.Misses, mix.Gets)
	}
	return nil
}

// fixedRate runs cfg's mix open-loop at rate operations per second for d:
// latencies from each command's scheduled send time. It also returns where
// the machine's CPU went meanwhile, and the GETs' latencies inside the
// server.
//
// The load generator shares the machine with the server, so its own delays
// land in the server's latencies. Three figures show them: Lag (a due
// command sent late), Sched (its goroutines waiting for a processor, which
// also holds up replies that have arrived) and its CPU. When each client
// paced itself with nanosleep, Sched had a p99 of 1.3 ms at 25k ops/s and
// Redis, microseconds of work per GET, measured GET p99 2.7–8.8 ms in this
// scenario; with the timerfd pacer (loadgen's pacer) the same runs gave
// 0.6–2.4 ms. The CPU of other processes is recorded because the machine
// may be shared: with a compiler or a test binary taking half a core or
// more beside the run, Redis's p99 alone moved between 0.6 and 9 ms.
func (h *harness) fixedRate(ctx context.Context, p *procs.Process, cfg loadgen.Config, rate float64, d time.Duration) (loadgen.MixResult, cpuUse, serverLatency, error) {
	if !(rate > 0) {
		return loadgen.MixResult{}, cpuUse{}, serverLatency{}, fmt.Errorf("no rate for the fixed-rate mix (saturated throughput %v)", rate)
	}
	cfg.Rate, cfg.Duration, cfg.MaxOps = rate, d, 0
	h.logf("bigger-than-memory: %s: the same mix open-loop at a fixed %s ops/s for %v", p.Name, fmtOps(rate), d)
	c := loadgen.NewClient(p.Addr(), cfg.Conns)
	defer c.Close()
	if err := c.ConfigResetStat(ctx).Err(); err != nil {
		return loadgen.MixResult{}, cpuUse{}, serverLatency{}, fmt.Errorf("CONFIG RESETSTAT: %w", err)
	}
	before, err := sampleCPU(p.Pid())
	if err != nil {
		return loadgen.MixResult{}, cpuUse{}, serverLatency{}, fmt.Errorf("CPU use: %w", err)
	}
	m, err := loadgen.Mix(ctx, c, cfg)
	if err != nil {
		return m, cpuUse{}, serverLatency{}, fmt.Errorf("fixed-rate mix: %w", err)
	}
	after, err := sampleCPU(p.Pid())
	if err != nil {
		return m, cpuUse{}, serverLatency{}, fmt.Errorf("CPU use: %w", err)
	}
	use := after.since(before)
	if m.Misses > 0 {
		return m, use, serverLatency{}, fmt.Errorf("%d of %d GETs found no value after a complete load", m.Misses, m.Gets)
	}
	inServer, err := serverLatencyOf(ctx, c, "get")
	if err != nil {
		return m, use, serverLatency{}, err
	}
	h.logf("bigger-than-memory: %s at %s ops/s (asked %s; %d sends behind schedule at the end): GET p50 %s p99 %s p99.9 %s (in the server %s, %s, %s); client send lag p99 %s, scheduling p99 %s",
		p.Name, fmtOps(m.OpsPerSec()), fmtOps(rate), m.Unsent, fmtDur(m.Get.P50), fmtDur(m.Get.P99), fmtDur(m.Get.P999),
		fmtDur(inServer.P50), fmtDur(inServer.P99), fmtDur(inServer.P999), fmtDur(m.Lag.P99), fmtDur(m.Sched.P99))
	h.logf("bigger-than-memory: %s: CPU in cores: server %.2f, load generator %.2f, other processes %.2f, interrupts %.2f, steal %.2f",
		p.Name, use.Server, use.Client, use.Others, use.Interrupts, use.Steal)
	return m, use, inServer, nil
}

// configBytes returns a numeric CONFIG GET setting of p, or -1 if p has no
// such setting.
func configBytes(ctx context.Context, p *procs.Process, name string) (int64, error) {
	c := client(p)
	defer c.Close()
	kv, err := c.ConfigGet(ctx, name).Result()
	if err != nil {
		return 0, fmt.Errorf("CONFIG GET %s: %w", name, err)
	}
	v, ok := kv[name]
	if !ok {
		return -1, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("CONFIG GET %s: %q: %w", name, v, err)
	}
	return n, nil
}

// usedMemory returns Redis's INFO memory used_memory in bytes.
func usedMemory(ctx context.Context, c *redis.Client) (int64, error) {
	v, err := infoField(ctx, c, "memory", "used_memory")
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("used_memory %q: %w", v, err)
	}
	return n, nil
}

func dirOf(p *procs.Process) string {
	for i := 0; i+1 < len(p.Args); i++ {
		if p.Args[i] == "--dir" {
			return p.Args[i+1]
		}
	}
	return ""
}
