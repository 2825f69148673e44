package engine

import (
	"fmt"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"
)

// BenchmarkMemtableInsert measures what one written record costs the engine
// on its own, with no server around it: batches of SET-shaped records
// (a 19-byte metadata key, a 150-byte record) committed without a sync.
// Under redis-benchmark -P 16 every SET writes one such record, so this is
// the floor of a pipelined SET's CPU in Cairn; it is measured here so that
// the floor can be read apart from the server's own work.
//
// random draws keys from redis-benchmark's -r 100000 keyspace, so that each
// insert walks the memtable's skiplist to a random place (memory-latency
// bound once the memtable outgrows the CPU caches); sequential writes
// ascending keys, which Pebble's inserter finds next to the last one. The
// difference is the cost of the walk. Flushes and compactions run
// concurrently, as in the server: ns/op is the writer's wall clock, and
// cpu-ns/op the whole process's CPU time (flushes and compactions
// included), comparable with bench/run's server CPU µs/command.
func BenchmarkMemtableInsert(b *testing.B) {
	val := make([]byte, 150)
	for _, order := range []string{"random", "sequential"} {
		for _, size := range []int{1, 16} {
			b.Run(fmt.Sprintf("order=%s/batch=%d", order, size), func(b *testing.B) {
				p, err := OpenPebble(b.TempDir(), PebbleOptions{CacheSize: 64 << 20})
				if err != nil {
					b.Fatal(err)
				}
				defer p.Close()
				rng := rand.New(rand.NewPCG(1, 2))
				key := make([]byte, 0, 32)
				batch := p.NewBatch()
				cpu0 := processCPU(b)
				b.ResetTimer()
				for i := range b.N {
					n := i
					if order == "random" {
						n = rng.IntN(100000)
					}
					key = fmt.Appendf(append(key[:0], 1, 0, 0), "key:%012d", n)
					if err := batch.Set(key, val); err != nil {
						b.Fatal(err)
					}
					if (i+1)%size == 0 || i == b.N-1 {
						if err := batch.Commit(false); err != nil {
							b.Fatal(err)
						}
						_ = batch.Close()
						batch = p.NewBatch()
					}
				}
				b.StopTimer()
				b.ReportMetric(float64(processCPU(b)-cpu0)/float64(b.N), "cpu-ns/op")
				_ = batch.Close()
			})
		}
	}
}

// processCPU is the user and system CPU time the process has used so far.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
