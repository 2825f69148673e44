package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/redis/go-redis/v9"

	"github.com/cairndb/cairn/bench/internal/loadgen"
	"github.com/cairndb/cairn/bench/internal/procs"
)

// The bitmaps scenario (issue 21): SETBIT and GETBIT at random offsets of
// one bitmap (offsets below settings.BitmapRange, 10^8 in a full run),
// unpipelined and -P 16, and BITCOUNT and BITPOS over a sparse bitmap
// whose highest bit is settings.BitmapHighBit (4·10^9: a 500 MB string
// in Redis) with settings.BitmapBits bits set. Redis scans the whole
// string; Cairn reads only the fragments that exist. The scans run on
// one connection, unpipelined, a few times: their latency is the figure.
// Everything runs on Cairn's load generator, the same for both servers.

const bitmapsScenario = "bitmaps"

const (
	bitmapKey = "bench:bitmap"
	sparseKey = "bench:sparse"
)

var bitmapWorkloads = []workload{
	{Name: "SETBIT", Group: bitmapsScenario, Probe: []any{"SETBIT", probeKey, "7", "1"}, Run: runOp(setbitOp)},
	{Name: "GETBIT", Group: bitmapsScenario, Probe: []any{"GETBIT", probeKey, "7"}, Prefill: prefillBitmap, Run: runOp(getbitOp)},
	{Name: "BITCOUNT_SPARSE", Group: bitmapsScenario, Probe: []any{"BITCOUNT", probeKey}, Prefill: prefillSparse,
		Scale: 0.0005, Pipelines: []int{1}, Run: runScan(bitcountOp)},
	{Name: "BITPOS_SPARSE", Group: bitmapsScenario, Probe: []any{"BITPOS", probeKey, "1"}, Prefill: prefillSparse,
		Scale: 0.0005, Pipelines: []int{1}, Run: runScan(bitposOp)},
}

// bitmapDescriptions say what each workload sends, for RESULTS.md.
func bitmapDescriptions(s settings) map[string]string {
	return map[string]string{
		"SETBIT": fmt.Sprintf("`SETBIT %s <random offset below %s> 1`, one bitmap for every client", bitmapKey, fmtOps(float64(s.BitmapRange))),
		"GETBIT": fmt.Sprintf("`GETBIT %s <random offset below %s>` after %d random SETBITs and one at the last offset", bitmapKey, fmtOps(float64(s.BitmapRange)), s.BitmapPrefill),
		"BITCOUNT_SPARSE": fmt.Sprintf("`BITCOUNT %s` over %d random bits below %s and bit %s (a %s string): one connection, unpipelined",
			sparseKey, s.BitmapBits, fmtOps(float64(s.BitmapHighBit)), fmtOps(float64(s.BitmapHighBit)), fmtBytes(s.BitmapHighBit/8+1)),
		"BITPOS_SPARSE": fmt.Sprintf("`BITPOS %s 1 <random byte start>` over the same bitmap: the scan to the next set bit (~%s on average)",
			sparseKey, fmtBytes(s.BitmapHighBit/8/int64(max(s.BitmapBits, 1)))),
	}
}

func setbitOp(s settings) loadgen.Op {
	return loadgen.Op{
		Name:    "SETBIT",
		Replies: 1,
		Append: func(buf []byte, rng *rand.Rand) []byte {
			return loadgen.AppendCommand(buf, "SETBIT", bitmapKey, strconv.FormatInt(rng.Int64N(s.BitmapRange), 10), "1")
		},
		Check: func(_ int, r loadgen.Reply) error { return wantBit(r) },
	}
}

func getbitOp(s settings) loadgen.Op {
	return loadgen.Op{
		Name:    "GETBIT",
		Replies: 1,
		Append: func(buf []byte, rng *rand.Rand) []byte {
			return loadgen.AppendCommand(buf, "GETBIT", bitmapKey, strconv.FormatInt(rng.Int64N(s.BitmapRange), 10))
		},
		Check: func(_ int, r loadgen.Reply) error { return wantBit(r) },
	}
}

func bitcountOp(s settings) loadgen.Op {
	return loadgen.Op{
		Name:    "BITCOUNT",
		Replies: 1,
		Append: func(buf []byte, _ *rand.Rand) []byte {
			return loadgen.AppendCommand(buf, "BITCOUNT", sparseKey)
		},
		Check: func(_ int, r loadgen.Reply) error {
			// Random bits may coincide: at most BitmapBits+1 are set.
			if r.Type != ':' || r.Int < 1 || r.Int > int64(s.BitmapBits)+1 {
				return fmt.Errorf("BITCOUNT gave %s, want 1..%d", r, s.BitmapBits+1)
			}
			return nil
		},
	}
}

func bitposOp(s settings) loadgen.Op {
	return loadgen.Op{
		Name:    "BITPOS",
		Replies: 1,
		Append: func(buf []byte, rng *rand.Rand) []byte {
			return loadgen.AppendCommand(buf, "BITPOS", sparseKey, "1", strconv.FormatInt(rng.Int64N(s.BitmapHighBit/8), 10))
		},
		Check: func(_ int, r loadgen.Reply) error {
			// The last bit is set, so every search from below it finds one.
			if r.Type != ':' || r.Int < 0 || r.Int > s.BitmapHighBit {
				return fmt.Errorf("BITPOS gave %s, want 0..%d", r, s.BitmapHighBit)
			}
			return nil
		},
	}
}

func wantBit(r loadgen.Reply) error {
	if r.Type != ':' || (r.Int != 0 && r.Int != 1) {
		return fmt.Errorf("got %s, want 0 or 1", r)
	}
	return nil
}

// setBits sets each offset of bits in key, pipelined.
func setBits(ctx context.Context, c *redis.Client, key string, bits []int64) error {
	for len(bits) > 0 {
		batch := bits[:min(len(bits), 1000)]
		bits = bits[len(batch):]
		pipe := c.Pipeline()
		for _, b := range batch {
			pipe.SetBit(ctx, key, b, 1)
		}
		if _, err := pipe.Exec(ctx); err != nil {
			return fmt.Errorf("SETBIT %s: %w", key, err)
		}
	}
	return nil
}

// prefillBitmap sets BitmapPrefill random bits of the GETBIT bitmap and
// its last bit, so that it spans the whole range.
func prefillBitmap(ctx context.Context, c *redis.Client, s settings, _ int) error {
	rng := rand.New(rand.NewPCG(21, 1))
	bits := make([]int64, 0, s.BitmapPrefill+1)
	for range s.BitmapPrefill {
		bits = append(bits, rng.Int64N(s.BitmapRange))
	}
	return setBits(ctx, c, bitmapKey, append(bits, s.BitmapRange-1))
}

// prefillSparse sets BitmapBits random bits below BitmapHighBit and the
// bit BitmapHighBit itself, the same for every run and both servers.
func prefillSparse(ctx context.Context, c *redis.Client, s settings, _ int) error {
	rng := rand.New(rand.NewPCG(21, 2))
	bits := make([]int64, 0, s.BitmapBits+1)
	for range s.BitmapBits {
		bits = append(bits, rng.Int64N(s.BitmapHighBit))
	}
	return setBits(ctx, c, sparseKey, append(bits, s.BitmapHighBit))
}

// runScan measures a scan: n units from one connection, unpipelined,
// whatever the matrix's clients and depth (the workload runs at -P 1
// only): its latency is what the scenario reports.
func runScan(mk func(settings) loadgen.Op) func(context.Context, *harness, *procs.Process, int, int) (benchRun, error) {
	return func(ctx context.Context, h *harness, p *procs.Process, n, _ int) (benchRun, error) {
		op := mk(h.set)
		res, err := loadgen.Pipelined(ctx, loadgen.PipeConfig{
			Addr: p.Addr(), Conns: 1, Pipeline: 1, Units: int64(n), Seed: rand.Uint64(),
		}, op)
		if err != nil {
			return benchRun{}, err
		}
		return benchRun{Result: loadgenResult(op.Name, res.UnitsPerSec(), res.Latency), CPUus: math.NaN(),
			Delivered: math.NaN(), DeliveryP50Ms: math.NaN(), DeliveryP99Ms: math.NaN()}, nil
	}
}
