package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/cairndb/cairn/bench/internal/loadgen"
	"github.com/cairndb/cairn/bench/internal/procs"
)

// The big-collections scenario: one collection of each type with N members
// (N = 1,000,000 by default), on Cairn and on Redis. Reads deep inside them
// are timed one call at a time from one connection, so each latency is the
// server's service time plus a loopback round trip, not queueing; DEL and
// UNLINK of whole collections are timed once each.

// bcKind is one collection type: how to add members [first, last) to key in
// one variadic command, and the command that counts its members.
type bcKind struct {
	Name string
	Fill func(key string, first, last int) []any
	Size string
}

var bcKinds = []bcKind{
	{Name: "hash", Size: "HLEN", Fill: func(key string, first, last int) []any {
		args := make([]any, 0, 2+2*(last-first))
		args = append(args, "HSET", key)
		for i := first; i < last; i++ {
			args = append(args, bcMember(i), bcValue(i))
		}
		return args
	}},
	{Name: "set", Size: "SCARD", Fill: func(key string, first, last int) []any {
		args := make([]any, 0, 2+last-first)
		args = append(args, "SADD", key)
		for i := first; i < last; i++ {
			args = append(args, bcMember(i))
		}
		return args
	}},
	{Name: "list", Size: "LLEN", Fill: func(key string, first, last int) []any {
		args := make([]any, 0, 2+last-first)
		args = append(args, "RPUSH", key)
		for i := first; i < last; i++ {
			args = append(args, bcValue(i))
		}
		return args
	}},
	{Name: "zset", Size: "ZCARD", Fill: zaddRange},
}

// zaddRange adds members [first, last) to the sorted set key, member i
// with score i.
func zaddRange(key string, first, last int) []any {
	args := make([]any, 0, 2+2*(last-first))
	args = append(args, "ZADD", key)
	for i := first; i < last; i++ {
		args = append(args, i, bcMember(i))
	}
	return args
}

// bcMember and bcValue are member i of every collection: a field, set
// member or zset member (score i), and a hash value or list element.
// Fixed width keeps their byte order equal to i's order.
func bcMember(i int) string { return fmt.Sprintf("member:%010d", i) }
func bcValue(i int) string  { return fmt.Sprintf("value:%010d", i) }

// bcKey names the two copies of each type: "a" is read and then DELeted,
// "b" is UNLINKed.
func bcKey(kind, which string) string { return "bc:" + kind + ":" + which }

// bcFillBatch members go into one command, bcFillDepth commands into one
// pipeline.
const (
	bcFillBatch = 1000
	bcFillDepth = 8
)

// bcRead is one timed read: it returns the command for sample i of n and
// checks its reply, so a wrong answer fails the scenario instead of
// producing a fast figure.
type bcRead struct {
	Name string // the label in RESULTS.md
	Cmd  func(rng *rand.Rand, n int) (args []any, check func(any) error)
}

// middle returns a random index in the middle half of [0, n).
func middle(rng *rand.Rand, n int) int { return n/4 + rng.IntN(max(n/2, 1)) }

var bcReads = []bcRead{
	{Name: "HGET, random field", Cmd: func(rng *rand.Rand, n int) ([]any, func(any) error) {
		i := rng.IntN(n)
		return []any{"HGET", bcKey("hash", "a"), bcMember(i)}, wantString(bcValue(i))
	}},
	{Name: "LINDEX, random index in the middle half", Cmd: func(rng *rand.Rand, n int) ([]any, func(any) error) {
		i := middle(rng, n)
		return []any{"LINDEX", bcKey("list", "a"), i}, wantString(bcValue(i))
	}},
	{Name: "ZRANGEBYSCORE s +inf LIMIT 0 10, s in the middle half", Cmd: func(rng *rand.Rand, n int) ([]any, func(any) error) {
		i := middle(rng, n)
		return []any{"ZRANGEBYSCORE", bcKey("zset", "a"), i, "+inf", "LIMIT", 0, 10}, wantFirst(bcMember(i), min(10, n-i))
	}},
}

func wantString(want string) func(any) error {
	return func(v any) error {
		if s, ok := v.(string); !ok || s != want {
			return fmt.Errorf("got %v, want %q", v, want)
		}
		return nil
	}
}

func wantFirst(want string, count int) func(any) error {
	return func(v any) error {
		a, ok := v.([]any)
		if !ok || len(a) != count || (count > 0 && a[0] != want) {
			return fmt.Errorf("got %v, want %d members from %q", v, count, want)
		}
		return nil
	}
}

// bcResult is the big-collections scenario's outcome.
type bcResult struct {
	Members  int
	Samples  int
	CairnCmd string
	RedisCmd string
	Cairn    bcSide
	Redis    bcSide
}

type bcSide struct {
	Load   time.Duration              // loading all 2 × 4 collections, one client per collection
	Reads  map[string]loadgen.Latency // by bcRead.Name
	Del    map[string]time.Duration   // by bcKind.Name
	Unlink map[string]time.Duration
}

func (r *bcResult) side(name string) *bcSide {
	if name == "cairn" {
		return &r.Cairn
	}
	return &r.Redis
}

// server is a running server under test with a set-up client.
type server struct {
	name string
	p    *procs.Process
	c    *redis.Client
}

func (h *harness) bigCollections(ctx context.Context) error {
	s := h.set
	n := s.BCMembers
	r := &bcResult{Members: n, Samples: s.BCSamples}
	for _, side := range []*bcSide{&r.Cairn, &r.Redis} {
		side.Reads = map[string]loadgen.Latency{}
		side.Del = map[string]time.Duration{}
		side.Unlink = map[string]time.Duration{}
	}
	h.logf("big-collections: starting Redis and Cairn")
	rp, err := h.startRedis(ctx, "bigcoll", redisConfig{})
	if err != nil {
		return err
	}
	defer rp.Stop(time.Minute)
	cp, err := h.startCairn(ctx, "bigcoll", cairnConfig{appendfsync: "everysec", cacheSize: s.MatrixCache})
	if err != nil {
		return err
	}
	defer cp.Stop(time.Minute)
	r.CairnCmd, r.RedisCmd = commandLine(cp), commandLine(rp)
	if h.opts.pprof {
		prof := h.startProfiler(ctx, cp, "big-collections")
		defer prof.stop()
	}
	// Load bcFillDepth pipelines of one collection at a time per client.
	servers := []server{{"cairn", cp, loadgen.NewClient(cp.Addr(), 2*len(bcKinds)+1)}, {"redis", rp, loadgen.NewClient(rp.Addr(), 2*len(bcKinds)+1)}}
	for _, sv := range servers {
		defer sv.c.Close()
	}
	// Recorded now so that a later failure still shows what was measured.
	h.res.BigColl = r

	for _, sv := range servers {
		h.logf("big-collections: loading a hash, set, list and zset of %s members, twice, into %s", fmtOps(float64(n)), sv.name)
		el, err := h.fillCollections(ctx, sv, n)
		if err != nil {
			return fmt.Errorf("%s: load: %w", sv.name, err)
		}
		r.side(sv.name).Load = el
		h.logf("big-collections: %s loaded %s members in %v (%s members/s)", sv.name,
			fmtOps(float64(2*len(bcKinds)*n)), el.Round(time.Millisecond), fmtOps(float64(2*len(bcKinds)*n)/el.Seconds()))
	}

	seed := uint64(h.start.UnixNano())
	for i, rd := range bcReads {
		for _, sv := range alternate(servers, i) {
			if err := exitedEarly(sv.p); err != nil {
				return err
			}
			lat, err := timeCalls(ctx, sv.c, s.BCSamples, seed+uint64(i), func(rng *rand.Rand) ([]any, func(any) error) {
				return rd.Cmd(rng, n)
			})
			if err != nil {
				return fmt.Errorf("%s: %s: %w", sv.name, rd.Name, err)
			}
			r.side(sv.name).Reads[rd.Name] = lat
			h.logf("big-collections: %-5s %-55s p50 %s  p99 %s  max %s", sv.name, rd.Name, fmtDur(lat.P50), fmtDur(lat.P99), fmtDur(lat.Max))
		}
	}

	// All DELs before all UNLINKs: Redis frees an UNLINKed value on a
	// background thread, which would otherwise compete with the next DEL.
	for _, op := range []string{"DEL", "UNLINK"} {
		which := "a"
		if op == "UNLINK" {
			which = "b"
		}
		for i, k := range bcKinds {
			for _, sv := range alternate(servers, i) {
				d, err := timeDelete(ctx, sv.c, op, bcKey(k.Name, which))
				if err != nil {
					return fmt.Errorf("%s: %w", sv.name, err)
				}
				if op == "DEL" {
					r.side(sv.name).Del[k.Name] = d
				} else {
					r.side(sv.name).Unlink[k.Name] = d
				}
				h.logf("big-collections: %-5s %-6s %s of %s members: %s", sv.name, op, k.Name, fmtOps(float64(n)), fmtDur(d))
			}
		}
	}
	for _, sv := range servers {
		if left, err := sv.c.DBSize(ctx).Result(); err != nil || left != 0 {
			return fmt.Errorf("%s: after deleting every collection DBSIZE = %d (%v), want 0", sv.name, left, err)
		}
	}
	return nil
}

// alternate returns servers in the order for the i-th measurement, so that
// each goes first half the time.
func alternate(servers []server, i int) []server {
	if i%2 == 1 {
		return []server{servers[1], servers[0]}
	}
	return servers
}

// fillCollections loads copies "a" and "b" of every kind with n members,
// one client per collection, and checks their sizes.
func (h *harness) fillCollections(ctx context.Context, sv server, n int) (time.Duration, error) {
	var done, lastReport atomic.Int64
	total := int64(2 * len(bcKinds) * n)
	start := time.Now()
	lastReport.Store(start.UnixNano())
	var wg sync.WaitGroup
	errc := make(chan error, 2*len(bcKinds))
	for _, k := range bcKinds {
		for _, which := range []string{"a", "b"} {
			key := bcKey(k.Name, which)
			wg.Add(1)
			go func() {
				defer wg.Done()
				pipe := sv.c.Pipeline()
				for first := 0; first < n; first += bcFillBatch {
					last := min(first+bcFillBatch, n)
					pipe.Do(ctx, k.Fill(key, first, last)...)
					if pipe.Len() < bcFillDepth && last < n {
						continue
					}
					if _, err := pipe.Exec(ctx); err != nil {
						errc <- fmt.Errorf("%s: %w", key, err)
						return
					}
					d := done.Add(int64(bcFillDepth * bcFillBatch))
					now := time.Now().UnixNano()
					if prev := lastReport.Load(); now-prev >= int64(5*time.Second) && lastReport.CompareAndSwap(prev, now) {
						h.logf("big-collections: %s: %s/%s members (%s/s)", sv.name, fmtOps(float64(min(d, total))), fmtOps(float64(total)),
							fmtOps(float64(d)/time.Since(start).Seconds()))
					}
				}
			}()
		}
	}
	wg.Wait()
	el := time.Since(start)
	close(errc)
	if err := errors.Join(collect(errc)...); err != nil {
		return 0, err
	}
	for _, k := range bcKinds {
		for _, which := range []string{"a", "b"} {
			key := bcKey(k.Name, which)
			got, err := sv.c.Do(ctx, k.Size, key).Int()
			if err != nil {
				return 0, fmt.Errorf("%s %s: %w", k.Size, key, err)
			}
			if got != n {
				return 0, fmt.Errorf("%s %s = %d after loading %d members", k.Size, key, got, n)
			}
		}
	}
	return el, nil
}

func collect(errc <-chan error) []error {
	var errs []error
	for err := range errc {
		errs = append(errs, err)
	}
	return errs
}

// timeCalls sends n commands one at a time on one connection and returns
// their latency distribution. Each reply is checked after its clock stops.
func timeCalls(ctx context.Context, c *redis.Client, n int, seed uint64, next func(*rand.Rand) ([]any, func(any) error)) (loadgen.Latency, error) {
	conn := c.Conn()
	defer conn.Close()
	if err := conn.Ping(ctx).Err(); err != nil {
		return loadgen.Latency{}, err
	}
	rng := rand.New(rand.NewPCG(seed, 0xb1c))
	rec := loadgen.NewRecorder()
	for range n {
		if err := ctx.Err(); err != nil {
			return loadgen.Latency{}, err
		}
		args, check := next(rng)
		t0 := time.Now()
		v, err := conn.Do(ctx, args...).Result()
		rec.Record(time.Since(t0))
		if err != nil {
			return loadgen.Latency{}, fmt.Errorf("%v: %w", args, err)
		}
		if err := check(v); err != nil {
			return loadgen.Latency{}, fmt.Errorf("%v: %w", args, err)
		}
	}
	return rec.Latency(), nil
}

// timeDelete times one DEL or UNLINK of key, which must exist.
func timeDelete(ctx context.Context, c *redis.Client, op, key string) (time.Duration, error) {
	conn := c.Conn()
	defer conn.Close()
	if err := conn.Ping(ctx).Err(); err != nil {
		return 0, err
	}
	t0 := time.Now()
	n, err := conn.Do(ctx, op, key).Int()
	d := time.Since(t0)
	if err != nil {
		return 0, fmt.Errorf("%s %s: %w", op, key, err)
	}
	if n != 1 {
		return 0, fmt.Errorf("%s %s = %d, want 1", op, key, n)
	}
	return d, nil
}

// The zset-churn scenario: one hot sorted set of BCChurnSize members used
// as a queue, ZADD at the tail and ZREMRANGEBYRANK 0 0 at the head, for
// BCChurnDuration. Every removal leaves a tombstone in an LSM store right
// where ZRANGE 0 10 starts reading; the scenario times ZRANGE 0 10 before,
// during and after the churn.

const churnKey = "bc:hot"

// churnSlices is how many parts the churn is divided into for its timeline;
// the first and last are "start" and "end".
const churnSlices = 10

type churnResult struct {
	Size     int
	Duration time.Duration
	Conns    int
	Batch    int // ZADD + ZREMRANGEBYRANK pairs per pipeline
	Samples  int
	CairnCmd string
	RedisCmd string
	Cairn    churnSide
	Redis    churnSide
}

type churnSide struct {
	Pairs   int64 // ZADD + ZREMRANGEBYRANK pairs done
	Elapsed time.Duration
	Before  loadgen.Latency // ZRANGE 0 10 alone, before the churn
	After   loadgen.Latency // ... and right after it
	Slices  []loadgen.Latency
	// BeforeServer and AfterServer are the ZRANGE calls' latencies as the
	// server measured them (INFO latencystats): the reads' cost without the
	// round trip and the scheduling of either process, which on this
	// machine move a ping-pong's p50 by up to 4x with nothing changed.
	BeforeServer, AfterServer serverLatency
}

// serverLatency is a command's latency percentiles as the server measured
// them, from INFO latencystats.
type serverLatency struct{ P50, P99, P999 time.Duration }

func (r *churnResult) side(name string) *churnSide {
	if name == "cairn" {
		return &r.Cairn
	}
	return &r.Redis
}

// PairsPerSec is the churn's rate.
func (c churnSide) PairsPerSec() float64 { return float64(c.Pairs) / c.Elapsed.Seconds() }

func (h *harness) zsetChurn(ctx context.Context) error {
	s := h.set
	r := &churnResult{Size: s.BCChurnSize, Duration: s.BCChurnDuration, Conns: s.BCChurnConns, Batch: s.BCChurnBatch, Samples: s.BCSamples}
	h.res.Churn = r
	for _, name := range []string{"cairn", "redis"} {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var p *procs.Process
		var err error
		if name == "cairn" {
			p, err = h.startCairn(ctx, "churn", cairnConfig{appendfsync: "everysec", cacheSize: s.MatrixCache})
		} else {
			p, err = h.startRedis(ctx, "churn", redisConfig{})
		}
		if err != nil {
			return err
		}
		if name == "cairn" {
			r.CairnCmd = commandLine(p)
		} else {
			r.RedisCmd = commandLine(p)
		}
		var prof *profileHandle
		if h.opts.pprof && name == "cairn" {
			ph := h.startProfiler(ctx, p, "zset-churn")
			prof = &ph
		}
		err = h.churnOne(ctx, server{name, p, loadgen.NewClient(p.Addr(), s.BCChurnConns+2)}, r)
		if prof != nil {
			prof.stop()
		}
		if _, serr := p.Stop(time.Minute); err == nil {
			err = serr
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}

func (h *harness) churnOne(ctx context.Context, sv server, r *churnResult) error {
	defer sv.c.Close()
	side := r.side(sv.name)
	if err := sv.c.Do(ctx, zaddRange(churnKey, 0, r.Size)...).Err(); err != nil {
		return fmt.Errorf("fill %s: %w", churnKey, err)
	}
	zrange := func(*rand.Rand) ([]any, func(any) error) {
		return []any{"ZRANGE", churnKey, 0, 10}, func(v any) error {
			if a, ok := v.([]any); !ok || len(a) != min(11, r.Size) {
				return fmt.Errorf("ZRANGE 0 10 gave %v", v)
			}
			return nil
		}
	}
	var err error
	if side.Before, side.BeforeServer, err = timeZRange(ctx, sv.c, r.Samples, 1, zrange); err != nil {
		return fmt.Errorf("before: %w", err)
	}
	h.logf("zset-churn: %-5s ZRANGE 0 10 on %d members before churn: p50 %s  p99 %s, in the server p50 %s; churning for %v",
		sv.name, r.Size, fmtDur(side.Before.P50), fmtDur(side.Before.P99), fmtMicros(side.BeforeServer.P50), r.Duration)

	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	start := time.Now()
	deadline := start.Add(r.Duration)
	seq := atomic.Int64{}
	seq.Store(int64(r.Size)) // new members score above every existing one
	var pairs atomic.Int64
	var wg sync.WaitGroup
	errc := make(chan error, r.Conns+1)
	for range r.Conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pipe := sv.c.Pipeline()
			for time.Now().Before(deadline) && cctx.Err() == nil {
				for range r.Batch {
					i := int(seq.Add(1))
					pipe.Do(cctx, "ZADD", churnKey, i, bcMember(i))
					pipe.Do(cctx, "ZREMRANGEBYRANK", churnKey, 0, 0)
				}
				if _, err := pipe.Exec(cctx); err != nil {
					if cctx.Err() == nil {
						errc <- fmt.Errorf("churn: %w", err)
						cancel()
					}
					return
				}
				pairs.Add(int64(r.Batch))
			}
		}()
	}
	// The sampler times ZRANGE 0 10 throughout, about every millisecond,
	// into one histogram per slice of the run.
	slices := make([]*loadgen.Recorder, churnSlices)
	for i := range slices {
		slices[i] = loadgen.NewRecorder()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		conn := sv.c.Conn()
		defer conn.Close()
		slice := r.Duration / churnSlices
		reported := 0
		for cctx.Err() == nil {
			now := time.Now()
			if !now.Before(deadline) {
				return
			}
			i := min(int(now.Sub(start)/slice), churnSlices-1)
			// Progress once per slice, unless the slices are too short to read.
			for ; reported < i && slice >= time.Second; reported++ {
				l := slices[reported].Latency()
				h.logf("zset-churn: %-5s %3.0f%%: %s pairs/s so far, ZRANGE 0 10 p50 %s p99 %s", sv.name,
					float64(reported+1)*100/churnSlices, fmtOps(float64(pairs.Load())/time.Since(start).Seconds()), fmtDur(l.P50), fmtDur(l.P99))
			}
			args, check := zrange(nil)
			t0 := time.Now()
			v, err := conn.Do(cctx, args...).Result()
			slices[i].Record(time.Since(t0))
			if err == nil {
				err = check(v)
			}
			if err != nil {
				if cctx.Err() == nil {
					errc <- fmt.Errorf("ZRANGE during churn: %w", err)
					cancel()
				}
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	wg.Wait()
	side.Elapsed = time.Since(start)
	side.Pairs = pairs.Load()
	close(errc)
	if err := errors.Join(collect(errc)...); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, sl := range slices {
		side.Slices = append(side.Slices, sl.Latency())
	}
	if side.After, side.AfterServer, err = timeZRange(ctx, sv.c, r.Samples, 2, zrange); err != nil {
		return fmt.Errorf("after: %w", err)
	}
	card, err := sv.c.ZCard(ctx, churnKey).Result()
	if err != nil {
		return err
	}
	if card != int64(r.Size) {
		return fmt.Errorf("ZCARD %s = %d after churn, want %d", churnKey, card, r.Size)
	}
	h.logf("zset-churn: %-5s %s pairs in %v (%s/s); ZRANGE 0 10 after churn: p50 %s  p99 %s (%s of before), in the server p50 %s (%s of before)",
		sv.name, fmtOps(float64(side.Pairs)), side.Elapsed.Round(time.Millisecond), fmtOps(side.PairsPerSec()),
		fmtDur(side.After.P50), fmtDur(side.After.P99), fmtRatio(durRatio(side.After.P50, side.Before.P50)),
		fmtMicros(side.AfterServer.P50), fmtRatio(durRatio(side.AfterServer.P50, side.BeforeServer.P50)))
	return nil
}

// timeZRange is timeCalls for the churn's ZRANGE calls, which also returns
// their latencies as the server measured them, from INFO latencystats
// (reset before the calls).
func timeZRange(ctx context.Context, c *redis.Client, n int, seed uint64, next func(*rand.Rand) ([]any, func(any) error)) (loadgen.Latency, serverLatency, error) {
	if err := c.ConfigResetStat(ctx).Err(); err != nil {
		return loadgen.Latency{}, serverLatency{}, fmt.Errorf("CONFIG RESETSTAT: %w", err)
	}
	l, err := timeCalls(ctx, c, n, seed, next)
	if err != nil {
		return l, serverLatency{}, err
	}
	sl, err := serverLatencyOf(ctx, c, "zrange")
	return l, sl, err
}

// serverLatencyOf reads command cmd's p50, p99 and p99.9 from INFO
// latencystats, which both Redis 7 and Cairn keep by default with those
// percentiles.
func serverLatencyOf(ctx context.Context, c *redis.Client, cmd string) (serverLatency, error) {
	info, err := c.Info(ctx, "latencystats").Result()
	if err != nil {
		return serverLatency{}, fmt.Errorf("INFO latencystats: %w", err)
	}
	ps, ok := latencyPercentiles(info, cmd)
	p50, ok50 := ps["p50"]
	p99, ok99 := ps["p99"]
	p999, ok999 := ps["p99.9"]
	if !ok || !ok50 || !ok99 || !ok999 {
		return serverLatency{}, fmt.Errorf("INFO latencystats has no p50, p99 and p99.9 for %s (is latency-tracking on?)", cmd)
	}
	return serverLatency{P50: p50, P99: p99, P999: p999}, nil
}

// latencyPercentiles reads command cmd's percentiles from INFO
// latencystats ("latency_percentiles_usec_<cmd>:p50=9.215,p99=20.223,
// p99.9=40.191", in microseconds), by label ("p50").
func latencyPercentiles(info, cmd string) (map[string]time.Duration, bool) {
	for line := range strings.Lines(info) {
		rest, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), "latency_percentiles_usec_"+cmd+":")
		if !ok {
			continue
		}
		out := map[string]time.Duration{}
		for field := range strings.SplitSeq(rest, ",") {
			label, v, ok := strings.Cut(field, "=")
			f, err := strconv.ParseFloat(v, 64)
			if !ok || err != nil || f < 0 || !strings.HasPrefix(label, "p") {
				return nil, false
			}
			out[label] = time.Duration(math.Round(f * float64(time.Microsecond)))
		}
		return out, true
	}
	return nil, false
}

func durRatio(a, b time.Duration) float64 {
	if b <= 0 {
		return math.NaN()
	}
	return float64(a) / float64(b)
}
