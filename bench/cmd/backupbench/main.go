// Command backupbench measures what Cairn's snapshots and backups cost a
// running server: how long BGSAVE and BACKUP take over a data set, and the
// latency of a steady write load before and while each runs; then, with
// the server stopped, how long `cairn backup` of the data directory takes.
//
//	go run ./bench/cmd/backupbench --keys 200000 --value-size 256 --rate 2000
//
// It builds Cairn (or runs --cairn), starts it on a fresh data directory
// under --work, loads --keys string keys of --value-size bytes plus a few
// large collections, then for each phase (idle, BGSAVE, BACKUP) offers
// --rate SETs per second from --conns clients, open-loop, and reports the
// p50/p99/max latency of the SETs, measured from each one's scheduled send
// time. It prints a Markdown table for bench/RESULTS.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "backupbench:", err)
		os.Exit(1)
	}
}

type options struct {
	cairn     string
	work      string
	keys      int
	valueSize int
	rate      float64
	conns     int
	idle      time.Duration
}

func run() error {
	var o options
	flag.StringVar(&o.cairn, "cairn", "", "Cairn binary (default: go build ./cmd/cairn)")
	flag.StringVar(&o.work, "work", "", "work directory (default: a temporary one, removed at the end)")
	flag.IntVar(&o.keys, "keys", 200000, "string keys loaded before the phases")
	flag.IntVar(&o.valueSize, "value-size", 256, "bytes per string value")
	flag.Float64Var(&o.rate, "rate", 2000, "SETs offered per second during each phase")
	flag.IntVar(&o.conns, "conns", 8, "clients sending the SETs")
	flag.DurationVar(&o.idle, "idle", 3*time.Second, "length of the phase without a snapshot")
	flag.Parse()
	redis.SetLogger(quietLogger{}) // the clients' reconnects after SHUTDOWN
	if o.work == "" {
		dir, err := os.MkdirTemp("", "backupbench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		o.work = dir
	}
	if o.cairn == "" {
		o.cairn = filepath.Join(o.work, "cairn")
		if out, err := exec.Command("go", "build", "-o", o.cairn, "./cmd/cairn").CombinedOutput(); err != nil {
			return fmt.Errorf("go build: %v\n%s", err, out)
		}
	}
	data := filepath.Join(o.work, "data")
	srv, addr, err := startCairn(o.cairn, data)
	if err != nil {
		return err
	}
	defer func() { _ = srv.Process.Kill(); _ = srv.Wait() }()
	ctx := context.Background()
	c := redis.NewClient(&redis.Options{Addr: addr, ReadTimeout: 10 * time.Minute})
	defer c.Close()

	start := time.Now()
	if err := load(ctx, c, o); err != nil {
		return err
	}
	loadTook := time.Since(start)
	dirBytes, _ := dirSize(data)
	fmt.Printf("loaded %d keys of %d bytes (+ 4 collections of 100,000 members) in %v; data directory %.1f MB\n\n",
		o.keys, o.valueSize, loadTook.Round(time.Millisecond), float64(dirBytes)/1e6)

	type row struct {
		phase string
		took  time.Duration
		lat   latencies
	}
	var rows []row
	// Idle: the write load alone.
	lat := writeLoad(ctx, addr, o, func() (time.Duration, error) { time.Sleep(o.idle); return o.idle, nil })
	rows = append(rows, row{"SETs alone", o.idle, lat})
	// BGSAVE: started, then polled until done.
	var bgErr error
	lat = writeLoad(ctx, addr, o, func() (time.Duration, error) {
		t0 := time.Now()
		if err := c.BgSave(ctx).Err(); err != nil {
			return 0, err
		}
		for {
			info, err := c.Info(ctx, "persistence").Result()
			if err != nil {
				return 0, err
			}
			if strings.Contains(info, "rdb_bgsave_in_progress:0") {
				if !strings.Contains(info, "rdb_last_bgsave_status:ok") {
					return 0, errors.New("BGSAVE failed")
				}
				return time.Since(t0), nil
			}
			time.Sleep(5 * time.Millisecond)
		}
	})
	bgErr = lat.err
	rows = append(rows, row{"during BGSAVE", lat.took, lat})
	// BACKUP: the command returns when the copy is complete.
	lat = writeLoad(ctx, addr, o, func() (time.Duration, error) {
		t0 := time.Now()
		err := c.Do(ctx, "BACKUP", filepath.Join(o.work, "online-backup")).Err()
		return time.Since(t0), err
	})
	rows = append(rows, row{"during BACKUP", lat.took, lat})
	if bgErr != nil || lat.err != nil {
		return errors.Join(bgErr, lat.err)
	}
	rdbBytes, _ := dirSize(filepath.Join(data, "dump.rdb"))

	// Offline: the data directory of the stopped server.
	_ = c.Shutdown(ctx).Err()
	_ = srv.Wait()
	dirBytes, _ = dirSize(data)
	dirBytes -= rdbBytes // BGSAVE's file is in the data directory
	t0 := time.Now()
	if out, err := exec.Command(o.cairn, "backup", data, filepath.Join(o.work, "offline-backup")).CombinedOutput(); err != nil {
		return fmt.Errorf("cairn backup: %v\n%s", err, out)
	}
	offline := time.Since(t0)

	fmt.Printf("| phase | operation time | SETs done | SET p50 ms | SET p99 ms | SET max ms |\n|---|---:|---:|---:|---:|---:|\n")
	for _, r := range rows {
		fmt.Printf("| %s | %v | %d | %.3f | %.3f | %.3f |\n", r.phase, r.took.Round(time.Millisecond), len(r.lat.d),
			r.lat.pct(50), r.lat.pct(99), r.lat.pct(100))
	}
	fmt.Printf("\nRDB file %.1f MB. `cairn backup` of the stopped server's %.1f MB data directory: %v (tables hard-linked on one file system).\n",
		float64(rdbBytes)/1e6, float64(dirBytes)/1e6, offline.Round(time.Millisecond))
	return nil
}

// startCairn runs the binary on dir with a free loopback port and waits
// until it answers.
func startCairn(bin, dir string) (*exec.Cmd, string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", err
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	_, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command(bin, "--bind", "127.0.0.1", "--port", port, "--dir", dir, "--appendfsync", "everysec", "--loglevel", "warning")
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, "", err
	}
	c := redis.NewClient(&redis.Options{Addr: addr})
	defer c.Close()
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if c.Ping(context.Background()).Err() == nil {
			return cmd, addr, nil
		}
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	return nil, "", errors.New("cairn did not start")
}

// load writes the string keys in pipelines, and four collections.
func load(ctx context.Context, c *redis.Client, o options) error {
	val := strings.Repeat("v", o.valueSize)
	for i := 0; i < o.keys; i += 1000 {
		p := c.Pipeline()
		for j := i; j < min(i+1000, o.keys); j++ {
			p.Set(ctx, "key:"+strconv.Itoa(j), val, 0)
		}
		if _, err := p.Exec(ctx); err != nil {
			return err
		}
	}
	for i := 0; i < 100000; i += 1000 {
		p := c.Pipeline()
		members := make([]any, 0, 1000)
		zs := make([]redis.Z, 0, 1000)
		fields := make([]any, 0, 2000)
		for j := i; j < i+1000; j++ {
			m := "m" + strconv.Itoa(j)
			members = append(members, m)
			zs = append(zs, redis.Z{Score: float64(j), Member: m})
			fields = append(fields, m, j)
		}
		p.RPush(ctx, "big:list", members...)
		p.SAdd(ctx, "big:set", members...)
		p.ZAdd(ctx, "big:zset", zs...)
		p.HSet(ctx, "big:hash", fields...)
		if _, err := p.Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}

// latencies are the SETs' latencies in one phase, sorted.
type latencies struct {
	d    []time.Duration
	took time.Duration
	err  error
}

func (l latencies) pct(p float64) float64 {
	if len(l.d) == 0 {
		return 0
	}
	i := min(int(float64(len(l.d))*p/100), len(l.d)-1)
	return float64(l.d[i]) / 1e6
}

// writeLoad offers o.rate SETs per second from o.conns clients while op
// runs, open-loop (each SET's latency counts from when it was due), and
// returns their latencies with op's time and error.
func writeLoad(ctx context.Context, addr string, o options, op func() (time.Duration, error)) latencies {
	stop := make(chan struct{})
	var mu sync.Mutex
	var all []time.Duration
	var wg sync.WaitGroup
	interval := time.Duration(float64(time.Second) * float64(o.conns) / o.rate)
	val := strings.Repeat("w", o.valueSize)
	for w := range o.conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := redis.NewClient(&redis.Options{Addr: addr, PoolSize: 1})
			defer c.Close()
			rng := rand.New(rand.NewPCG(uint64(w), 1))
			var mine []time.Duration
			due := time.Now().Add(time.Duration(rng.Int64N(int64(interval))))
			for {
				select {
				case <-stop:
					mu.Lock()
					all = append(all, mine...)
					mu.Unlock()
					return
				default:
				}
				if d := time.Until(due); d > 0 {
					time.Sleep(d)
				}
				if err := c.Set(ctx, "key:"+strconv.Itoa(rng.IntN(o.keys)), val, 0).Err(); err == nil {
					mine = append(mine, time.Since(due))
				}
				due = due.Add(interval)
			}
		}()
	}
	time.Sleep(200 * time.Millisecond) // the load settles first
	took, err := op()
	close(stop)
	wg.Wait()
	slices.Sort(all)
	return latencies{d: all, took: took, err: err}
}

// dirSize is the bytes of the regular files under path.
func dirSize(path string) (int64, error) {
	var n int64
	err := filepath.Walk(path, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
		return err
	})
	return n, err
}

type quietLogger struct{}

func (quietLogger) Printf(context.Context, string, ...any) {}
