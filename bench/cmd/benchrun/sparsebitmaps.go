package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/cairndb/cairn/bench/internal/procs"
)

// The sparse-bitmaps scenario (issue 21): the memory of many bitmaps that
// each have one bit set at a far offset (4294967295, the last bit of a
// 512 MB string, in a full run). Redis holds every such bitmap as a whole
// 512 MB string, so it gets only SparseRedisKeys of them and its figure at
// N is extrapolated per key; Cairn stores one fragment per bitmap and gets
// all N.

const sparseBitmaps = "sparse-bitmaps"

// sparseResult is the scenario's outcome.
type sparseResult struct {
	Keys      int
	Bit       int64
	CairnCmd  string
	RedisCmd  string
	LoadTime  time.Duration // Cairn's SETBITs of all Keys
	CairnRSS  int64         // VmRSS after loading
	CairnPeak int64         // VmHWM over the load
	CairnDisk procs.DirUsage
	RedisKeys int
	RedisBase int64 // used_memory before loading
	RedisUsed int64 // used_memory after RedisKeys
	RedisRSS  int64 // VmRSS after RedisKeys
	RedisAtN  int64 // used_memory at Keys, extrapolated per key unless RedisKeys == Keys
}

func (h *harness) sparseBitmaps(ctx context.Context) error {
	s := h.set
	r := &sparseResult{Keys: s.SparseKeys, Bit: s.SparseBit, RedisKeys: min(s.SparseRedisKeys, s.SparseKeys)}
	h.res.Sparse = r
	bit := strconv.FormatInt(s.SparseBit, 10)
	load := func(c *redis.Client, n int) error {
		for i := 0; i < n; {
			pipe := c.Pipeline()
			for j := 0; j < 1000 && i < n; j, i = j+1, i+1 {
				pipe.Do(ctx, "SETBIT", "sparse:"+strconv.Itoa(i), bit, "1")
			}
			if _, err := pipe.Exec(ctx); err != nil {
				return fmt.Errorf("SETBIT: %w", err)
			}
		}
		// Every bitmap holds its bit, at the right length.
		last := "sparse:" + strconv.Itoa(n-1)
		if got, err := c.Do(ctx, "BITCOUNT", last).Int64(); err != nil || got != 1 {
			return fmt.Errorf("BITCOUNT %s = %d, %v; want 1", last, got, err)
		}
		if got, err := c.StrLen(ctx, last).Result(); err != nil || got != s.SparseBit/8+1 {
			return fmt.Errorf("STRLEN %s = %d, %v; want %d", last, got, err, s.SparseBit/8+1)
		}
		return nil
	}

	h.logf("%s: Cairn, %d bitmaps with bit %s set", sparseBitmaps, r.Keys, bit)
	cp, err := h.startCairn(ctx, sparseBitmaps, cairnConfig{appendfsync: "everysec", cacheSize: h.set.MatrixCache})
	if err != nil {
		return err
	}
	defer cp.Stop(time.Minute)
	r.CairnCmd = commandLine(cp)
	cc := client(cp)
	defer cc.Close()
	start := time.Now()
	if err := load(cc, r.Keys); err != nil {
		return fmt.Errorf("cairn: %w", err)
	}
	r.LoadTime = time.Since(start)
	if r.CairnRSS, err = currentRSS(cp); err != nil {
		return err
	}
	if r.CairnPeak, err = cp.PeakRSS(); err != nil {
		return err
	}
	if r.CairnDisk, err = procs.DirSize(dirOf(cp)); err != nil {
		return err
	}
	h.logf("%s: cairn loaded in %v; RSS %s (peak %s), files %s", sparseBitmaps, r.LoadTime.Round(time.Millisecond),
		fmtBytes(r.CairnRSS), fmtBytes(r.CairnPeak), fmtBytes(r.CairnDisk.Apparent))

	rp, err := h.startRedis(ctx, sparseBitmaps, redisConfig{})
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
	if err := load(rc, r.RedisKeys); err != nil {
		return fmt.Errorf("redis: %w", err)
	}
	if r.RedisUsed, err = usedMemory(ctx, rc); err != nil {
		return err
	}
	if r.RedisRSS, err = currentRSS(rp); err != nil {
		return err
	}
	r.RedisAtN = r.RedisBase + int64(float64(r.RedisUsed-r.RedisBase)/float64(r.RedisKeys)*float64(r.Keys))
	h.logf("%s: redis used_memory %s at %d keys (%s at %d)", sparseBitmaps, fmtBytes(r.RedisUsed), r.RedisKeys, fmtBytes(r.RedisAtN), r.Keys)
	return nil
}

// currentRSS returns a process's resident set size now (VmRSS).
func currentRSS(p *procs.Process) (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.Pid()))
	if err != nil {
		return 0, fmt.Errorf("read %s status: %w", p.Name, err)
	}
	return procs.StatusBytes(data, "VmRSS")
}

func (r *results) writeSparse(b io.Writer) {
	t := r.Sparse
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p("## Sparse bitmaps: memory\n\n")
	p("%s keys `sparse:<i>`, each made by one `SETBIT sparse:<i> %d 1`: a %s string with one bit set. ",
		fmtOps(float64(t.Keys)), t.Bit, fmtBytes(t.Bit/8+1))
	p("Cairn holds such a bitmap as its metadata record and the one 1 KiB fragment that holds the bit; Redis holds the whole string in memory, so it gets %d of them and its figure at %s keys is extrapolated per key from used_memory.\n\n",
		t.RedisKeys, fmtOps(float64(t.Keys)))
	p("- Cairn: `%s`\n- Redis: `%s`\n\n", t.CairnCmd, t.RedisCmd)
	p("| | Cairn | Redis |\n|---|---:|---:|\n")
	p("| keys loaded | %s (in %v) | %s |\n", fmtOps(float64(t.Keys)), t.LoadTime.Round(time.Millisecond), fmtOps(float64(t.RedisKeys)))
	p("| RSS after loading | %s (peak %s) | %s |\n", fmtBytes(t.CairnRSS), fmtBytes(t.CairnPeak), fmtBytes(t.RedisRSS))
	p("| Redis used_memory | – | %s (empty: %s) |\n", fmtBytes(t.RedisUsed), fmtBytes(t.RedisBase))
	how := "extrapolated"
	if t.RedisKeys == t.Keys {
		how = "measured"
	}
	p("| memory at %s keys | %s RSS | %s used_memory (%s) |\n", fmtOps(float64(t.Keys)), fmtBytes(t.CairnRSS), fmtBytes(t.RedisAtN), how)
	p("| files on disk | %s | – |\n\n", fmtBytes(t.CairnDisk.Apparent))
}
