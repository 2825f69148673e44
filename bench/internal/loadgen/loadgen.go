// Package loadgen is Cairn's own load generator, for what redis-benchmark
// cannot do. Its first use is the bigger-than-memory case: it loads N keys
// with incompressible values into a Redis-protocol server, then runs a
// uniform random GET/SET mix and reports throughput and latency percentiles
// from HdrHistograms. Pipelined runs any unit of commands the way
// redis-benchmark runs one command (closed loop, -c connections, -P units
// in flight), including sequences such as MULTI, SETs, EXEC; PubSub
// measures PUBLISH to a number of subscribing connections and the rate at
// which they receive. Both speak RESP2 directly (resp.go).
//
// The mix runs in one of two ways. Closed-loop (Config.Rate zero), every
// client sends its next command as soon as the last reply arrives: that
// finds the server's saturated throughput, but its latencies are mostly
// time spent queued behind the other clients. Open-loop (Config.Rate set),
// the clients together send a fixed number of commands per second on a
// schedule, and each latency runs from the command's scheduled send time,
// not from when it was actually sent: a stall that delays later commands
// counts against every one of them instead of silently thinning the sample
// ("coordinated omission", the method of wrk2 and HdrHistogram). Whatever
// the client itself loses between a command falling due and its reply being
// read is charged to the server the same way, so the pacing is built not to
// lose any (see pacer).
//
// Values are random bytes on purpose: a compressible value would let Pebble's
// block compression shrink the data below the cache size and the "bigger
// than memory" case would quietly stop being one.
package loadgen

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/redis/go-redis/v9"
)

// Config sets the size and shape of a run.
type Config struct {
	Keys      int    // N: keys loaded, and the key range the mix draws from
	ValueSize int    // bytes per value
	KeyPrefix string // keys are KeyPrefix + a 10-digit index

	LoadConns int // concurrent loaders
	LoadBatch int // SETs per pipeline while loading

	Conns    int           // concurrent clients in the mix, one command in flight each
	GetRatio float64       // fraction of the mix that is GET (the rest SET)
	Duration time.Duration // the mix stops after this long...
	MaxOps   int64         // ...or after this many operations, whichever is first (0: no cap)
	// Rate, when positive, makes the mix open-loop: Rate operations per
	// second in all, each client sending every Conns/Rate seconds with the
	// clients' schedules spread evenly. Zero: closed-loop, as fast as the
	// replies come back.
	Rate float64
	Seed uint64

	// Progress, if set, receives a line now and then while loading.
	Progress func(format string, args ...any)
}

// Key returns the i-th key of the data set.
func (c Config) Key(i int) string {
	var buf [32]byte
	b := append(buf[:0], c.KeyPrefix...)
	digits := strconv.AppendInt(nil, int64(i), 10)
	for n := len(digits); n < 10; n++ {
		b = append(b, '0')
	}
	return string(append(b, digits...))
}

func (c Config) progress(format string, args ...any) {
	if c.Progress != nil {
		c.Progress(format, args...)
	}
}

// NewClient returns a go-redis client sized for cfg, speaking RESP2 like
// redis-benchmark and sending nothing extra on connect.
func NewClient(addr string, conns int) *redis.Client {
	return redis.NewClient(&redis.Options{
		Addr:            addr,
		Protocol:        2,
		DisableIdentity: true,
		PoolSize:        conns,
		MinIdleConns:    0,
		MaxRetries:      -1, // a retried command would hide a failure and skew latency
		ReadTimeout:     30 * time.Second,
		WriteTimeout:    30 * time.Second,
		PoolTimeout:     30 * time.Second,
	})
}

// progressEvery is how often Load reports while it runs.
const progressEvery = 5 * time.Second

// LoadResult describes the load phase.
type LoadResult struct {
	Keys    int
	Bytes   int64 // value bytes written
	Elapsed time.Duration
}

// KeysPerSec is the load throughput in keys per second.
func (r LoadResult) KeysPerSec() float64 { return float64(r.Keys) / r.Elapsed.Seconds() }

// MBPerSec is the load throughput in MiB of values per second.
func (r LoadResult) MBPerSec() float64 { return float64(r.Bytes) / (1 << 20) / r.Elapsed.Seconds() }

// Load writes keys [0, cfg.Keys) with random values of cfg.ValueSize bytes.
func Load(ctx context.Context, c *redis.Client, cfg Config) (LoadResult, error) {
	if cfg.Keys <= 0 || cfg.ValueSize <= 0 {
		return LoadResult{}, errors.New("loadgen: Keys and ValueSize must be positive")
	}
	workers, batch := max(cfg.LoadConns, 1), max(cfg.LoadBatch, 1)
	var next, done, lastReport atomic.Int64
	start := time.Now()
	lastReport.Store(start.UnixNano())
	errc := make(chan error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.NewChaCha8(seed32(cfg.Seed, uint64(w)))
			vals := make([]byte, batch*cfg.ValueSize)
			for {
				first := int(next.Add(int64(batch))) - batch
				if first >= cfg.Keys || ctx.Err() != nil {
					return
				}
				last := min(first+batch, cfg.Keys)
				_, _ = rng.Read(vals)
				pipe := c.Pipeline()
				for i := first; i < last; i++ {
					off := (i - first) * cfg.ValueSize
					pipe.Set(ctx, cfg.Key(i), vals[off:off+cfg.ValueSize], 0)
				}
				if _, err := pipe.Exec(ctx); err != nil {
					errc <- fmt.Errorf("load keys %d..%d: %w", first, last-1, err)
					return
				}
				n := done.Add(int64(last - first))
				now := time.Now().UnixNano()
				if prev := lastReport.Load(); now-prev >= int64(progressEvery) && lastReport.CompareAndSwap(prev, now) {
					cfg.progress("loaded %d/%d keys (%.0f keys/s)", n, cfg.Keys, float64(n)/time.Since(start).Seconds())
				}
			}
		}()
	}
	wg.Wait()
	close(errc)
	if err := errors.Join(collect(errc)...); err != nil {
		return LoadResult{}, err
	}
	if err := ctx.Err(); err != nil {
		return LoadResult{}, err
	}
	return LoadResult{Keys: cfg.Keys, Bytes: int64(cfg.Keys) * int64(cfg.ValueSize), Elapsed: time.Since(start)}, nil
}

// Latency holds percentiles of one kind of operation.
type Latency struct {
	Count int64
	P50   time.Duration
	P99   time.Duration
	P999  time.Duration
	Max   time.Duration
}

// MixResult describes the GET/SET phase.
type MixResult struct {
	Elapsed time.Duration
	Gets    int64
	Sets    int64
	Misses  int64 // GETs that found no key: after a full load, a lost write
	All     Latency
	Get     Latency
	Set     Latency
	// Open-loop runs only. Rate is the rate asked for. GetSent is GET's
	// latency from the moment the command actually went out, without the
	// wait for its scheduled slot: the service time plus the round trip.
	// Lag is how late the load generator itself woke to send a command
	// that was due and whose connection was free: time the client, not the
	// server, lost (Get includes it). Unsent counts scheduled sends still
	// pending at the end: the server fell behind.
	Rate    float64
	GetSent Latency
	Lag     Latency
	Unsent  int64
	// Sched is how long the load generator's goroutines waited, runnable,
	// for a processor during the mix (the Go runtime's
	// /sched/latencies:seconds, as bucket upper bounds, for the whole
	// process): a reply that has arrived is not read, and a command that is
	// due is not sent, until its goroutine runs. Like Lag it is the
	// client's delay inside the latencies; both runs.
	Sched Latency
}

// OpsPerSec is the mix's throughput.
func (r MixResult) OpsPerSec() float64 { return float64(r.Gets+r.Sets) / r.Elapsed.Seconds() }

// Histogram range: 1 µs to 60 s at three significant figures.
const (
	histMin = 1
	histMax = 60_000_000
	histSig = 3
)

// Recorder collects the latencies of one kind of operation in an
// HdrHistogram (1 µs to 60 s, three significant figures). It is not safe
// for concurrent use: give each goroutine its own and Merge them.
type Recorder struct{ h *hdrhistogram.Histogram }

// NewRecorder returns an empty Recorder.
func NewRecorder() *Recorder { return &Recorder{h: hdrhistogram.New(histMin, histMax, histSig)} }

// Record adds one latency, clamped to the histogram's range.
func (r *Recorder) Record(d time.Duration) {
	_ = r.h.RecordValue(min(max(d.Microseconds(), histMin), histMax))
}

// Merge adds every latency recorded by o.
func (r *Recorder) Merge(o *Recorder) { r.h.Merge(o.h) }

// Latency returns the percentiles recorded so far.
func (r *Recorder) Latency() Latency {
	h := r.h
	us := func(v int64) time.Duration { return time.Duration(v) * time.Microsecond }
	return Latency{
		Count: h.TotalCount(),
		P50:   us(h.ValueAtQuantile(50)),
		P99:   us(h.ValueAtQuantile(99)),
		P999:  us(h.ValueAtQuantile(99.9)),
		Max:   us(h.Max()),
	}
}

// Mix runs cfg.Conns clients, each issuing one command at a time against a
// uniformly random key in [0, cfg.Keys): GET with probability cfg.GetRatio,
// else SET of a fresh random value; closed-loop, or open-loop at cfg.Rate.
// Any error reply or I/O error ends the run with that error: a measurement
// with failures in it is not one.
func Mix(ctx context.Context, c *redis.Client, cfg Config) (MixResult, error) {
	if cfg.Keys <= 0 || cfg.Conns <= 0 || cfg.Duration <= 0 || cfg.Rate < 0 {
		return MixResult{}, errors.New("loadgen: Keys, Conns and Duration must be positive, Rate not negative")
	}
	type worker struct {
		get, set, getSent, lag     *Recorder
		gets, sets, misses, unsent int64
	}
	workers := make([]worker, cfg.Conns)
	var ops atomic.Int64
	errc := make(chan error, cfg.Conns)
	var ready, wg sync.WaitGroup
	startGate := make(chan struct{})
	var start time.Time // written before startGate closes
	// Each client's interval between scheduled sends, open-loop.
	var interval time.Duration
	if cfg.Rate > 0 {
		interval = time.Duration(float64(cfg.Conns) / cfg.Rate * float64(time.Second))
	}
	ready.Add(cfg.Conns)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			wk := &workers[w]
			wk.get, wk.set, wk.getSent, wk.lag = NewRecorder(), NewRecorder(), NewRecorder(), NewRecorder()
			rng := rand.New(rand.NewPCG(cfg.Seed, uint64(w)+1))
			vrng := rand.NewChaCha8(seed32(cfg.Seed^0x5eed, uint64(w)))
			val := make([]byte, cfg.ValueSize)
			var pc *pacer
			if interval > 0 {
				var err error
				if pc, err = newPacer(); err != nil {
					ready.Done()
					errc <- err
					return
				}
				defer pc.Close()
			}
			conn := c.Conn() // one connection per worker for the whole run
			defer conn.Close()
			err := conn.Ping(ctx).Err() // connect before the clock starts
			ready.Done()
			if err != nil {
				errc <- fmt.Errorf("connect: %w", err)
				return
			}
			<-startGate
			deadline := start.Add(cfg.Duration)
			// Open-loop: the clients' first sends are spread over one
			// interval so that together they send at an even pace.
			next := start.Add(interval * time.Duration(w) / time.Duration(cfg.Conns))
			var prevDone time.Time
			for ctx.Err() == nil {
				if interval > 0 && !next.After(deadline) && time.Now().After(deadline) {
					// Still behind schedule when time is up: count what
					// was never sent rather than run on past the end.
					wk.unsent = int64(deadline.Sub(next)/interval) + 1
					return
				}
				if interval > 0 && next.After(deadline) {
					return
				}
				if cfg.MaxOps > 0 && ops.Add(1) > cfg.MaxOps {
					return
				}
				key := cfg.Key(rng.IntN(cfg.Keys))
				isGet := rng.Float64() < cfg.GetRatio
				if !isGet {
					_, _ = vrng.Read(val)
				}
				var t0 time.Time
				if interval > 0 {
					if err := pc.waitUntil(next); err != nil {
						errc <- err
						return
					}
					t0 = next
					next = next.Add(interval)
				} else {
					t0 = time.Now()
				}
				sent := time.Now()
				if interval > 0 {
					// Due at t0, but the connection was busy until prevDone.
					wk.lag.Record(sent.Sub(later(t0, prevDone)))
				}
				var err error
				if isGet {
					err = conn.Get(ctx, key).Err()
				} else {
					err = conn.Set(ctx, key, val, 0).Err()
				}
				now := time.Now()
				prevDone = now
				lat := now.Sub(t0)
				switch {
				case isGet && errors.Is(err, redis.Nil):
					wk.misses++
					err = nil
					fallthrough
				case isGet && err == nil:
					wk.gets++
					wk.get.Record(lat)
					wk.getSent.Record(now.Sub(sent))
				case err == nil:
					wk.sets++
					wk.set.Record(lat)
				}
				if err != nil {
					if ctx.Err() == nil {
						errc <- fmt.Errorf("%s %s: %w", opName(isGet), key, err)
					}
					return
				}
				if interval == 0 && now.After(deadline) {
					return
				}
			}
		}()
	}
	ready.Wait()
	schedBefore := schedLatencies()
	start = time.Now()
	close(startGate)
	wg.Wait()
	elapsed := time.Since(start)
	sched := schedLatencies().minus(schedBefore)
	close(errc)
	if err := errors.Join(collect(errc)...); err != nil {
		return MixResult{}, err
	}
	if err := ctx.Err(); err != nil {
		return MixResult{}, err
	}
	get, set, all, getSent, lag := NewRecorder(), NewRecorder(), NewRecorder(), NewRecorder(), NewRecorder()
	res := MixResult{Elapsed: elapsed, Rate: cfg.Rate, Sched: sched.latency()}
	for _, wk := range workers {
		get.Merge(wk.get)
		set.Merge(wk.set)
		getSent.Merge(wk.getSent)
		lag.Merge(wk.lag)
		res.Gets += wk.gets
		res.Sets += wk.sets
		res.Misses += wk.misses
		res.Unsent += wk.unsent
	}
	all.Merge(get)
	all.Merge(set)
	res.All, res.Get, res.Set = all.Latency(), get.Latency(), set.Latency()
	if cfg.Rate > 0 {
		res.GetSent, res.Lag = getSent.Latency(), lag.Latency()
	}
	return res, nil
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func opName(isGet bool) string {
	if isGet {
		return "GET"
	}
	return "SET"
}

func seed32(seed, stream uint64) [32]byte {
	var s [32]byte
	for i := range 8 {
		s[i] = byte(seed >> (8 * i))
		s[8+i] = byte(stream >> (8 * i))
	}
	return s
}

func collect(errc <-chan error) []error {
	var errs []error
	for err := range errc {
		errs = append(errs, err)
	}
	return errs
}
