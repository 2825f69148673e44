package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/cairndb/cairn/bench/internal/loadgen"
	"github.com/cairndb/cairn/bench/internal/procs"
)

// restartResult is the restart scenario's outcome.
type restartResult struct {
	Keys       int
	ValueSize  int
	CairnCmd   string
	RedisCmd   string
	CairnLoad  loadgen.LoadResult
	RedisLoad  loadgen.LoadResult
	CairnStop  time.Duration // clean shutdown after loading
	RedisSave  time.Duration // SAVE of the RDB
	CairnDisk  procs.DirUsage
	RedisRDB   int64
	CairnReady []time.Duration // exec → first PONG, one per round
	RedisReady []time.Duration
}

// restart measures the time from exec to the first served PING with N keys
// on disk: Cairn opening its Pebble store, Redis loading an RDB of the same
// keys. Each restart is checked to have all N keys.
func (h *harness) restart(ctx context.Context) error {
	s := h.set
	r := &restartResult{Keys: s.RestartKeys, ValueSize: s.RestartValueSize}
	h.res.Restart = r
	cfg := loadgen.Config{
		Keys: s.RestartKeys, ValueSize: s.RestartValueSize, KeyPrefix: "rs:",
		LoadConns: 8, LoadBatch: 200, Seed: uint64(h.start.UnixNano()),
		Progress: func(format string, args ...any) { h.logf("restart: "+format, args...) },
	}
	cdir, err := h.dataDir("cairn-restart")
	if err != nil {
		return err
	}
	rdir, err := h.dataDir("redis-restart")
	if err != nil {
		return err
	}
	ccfg := cairnConfig{appendfsync: "everysec", cacheSize: s.MatrixCache, dir: cdir}
	rcfg := redisConfig{dir: rdir}

	// Fill both, then stop them cleanly.
	h.logf("restart: loading %d keys × %d B into Cairn and Redis", cfg.Keys, cfg.ValueSize)
	cp, err := h.startCairn(ctx, "restart", ccfg)
	if err != nil {
		return err
	}
	r.CairnCmd = commandLine(cp)
	var prof *profileHandle
	if h.opts.pprof {
		ph := h.startProfiler(ctx, cp, "restart")
		prof = &ph
	}
	r.CairnLoad, err = h.loadChecked(ctx, cp, cfg)
	if prof != nil {
		prof.stop()
	}
	if err != nil {
		return fmt.Errorf("cairn: %w", err)
	}
	if r.CairnStop, err = cp.Stop(time.Minute); err != nil {
		return err
	}
	if r.CairnDisk, err = procs.DirSize(cdir); err != nil {
		return err
	}

	rp, err := h.startRedis(ctx, "restart", rcfg)
	if err != nil {
		return err
	}
	r.RedisCmd = commandLine(rp)
	if r.RedisLoad, err = h.loadChecked(ctx, rp, cfg); err != nil {
		return fmt.Errorf("redis: %w", err)
	}
	rc := client(rp)
	t0 := time.Now()
	err = rc.Save(ctx).Err()
	r.RedisSave = time.Since(t0)
	rc.Close()
	if err != nil {
		return fmt.Errorf("redis SAVE: %w", err)
	}
	// With save "" a SIGTERM does not save again, so dump.rdb is the one
	// just written.
	if _, err := rp.Stop(time.Minute); err != nil {
		return err
	}
	if st, err := os.Stat(filepath.Join(rdir, "dump.rdb")); err == nil {
		r.RedisRDB = st.Size()
	} else {
		return fmt.Errorf("redis wrote no dump.rdb: %w", err)
	}

	for round := range s.RestartRounds {
		order := []string{"cairn", "redis"}
		if round%2 == 1 {
			order[0], order[1] = order[1], order[0]
		}
		for _, name := range order {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			var p *procs.Process
			if name == "cairn" {
				p, err = h.startCairn(ctx, "restart", ccfg)
			} else {
				p, err = h.startRedis(ctx, "restart", rcfg)
			}
			if err != nil {
				return err
			}
			err = checkDBSize(ctx, p, cfg.Keys)
			if _, serr := p.Stop(time.Minute); err == nil {
				err = serr
			}
			if err != nil {
				return fmt.Errorf("%s after restart: %w", name, err)
			}
			if name == "cairn" {
				r.CairnReady = append(r.CairnReady, p.Ready)
			} else {
				r.RedisReady = append(r.RedisReady, p.Ready)
			}
			h.logf("restart: round %d/%d %-5s first PONG after %v", round+1, s.RestartRounds, name, p.Ready.Round(100*time.Microsecond))
		}
	}
	return nil
}

func (h *harness) loadChecked(ctx context.Context, p *procs.Process, cfg loadgen.Config) (loadgen.LoadResult, error) {
	c := loadgen.NewClient(p.Addr(), cfg.LoadConns)
	defer c.Close()
	res, err := loadgen.Load(ctx, c, cfg)
	if err != nil {
		return res, err
	}
	h.logf("restart: %s loaded %d keys in %v (%s keys/s)", p.Name, cfg.Keys, res.Elapsed.Round(time.Millisecond), fmtOps(res.KeysPerSec()))
	return res, checkDBSize(ctx, p, cfg.Keys)
}

func checkDBSize(ctx context.Context, p *procs.Process, want int) error {
	c := client(p)
	defer c.Close()
	n, err := c.DBSize(ctx).Result()
	if err != nil {
		return fmt.Errorf("DBSIZE: %w", err)
	}
	if n != int64(want) {
		return fmt.Errorf("DBSIZE is %d, want %d", n, want)
	}
	return nil
}
