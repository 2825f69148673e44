package engine

import (
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
)

// BenchmarkGroupCommit is appendfsync always under concurrency: writers
// each commit a batch without syncing and then wait for SyncWAL, as the
// server does before it replies. The syncs of concurrent writers should be
// shared, so ops/s grows with the writers while syncs/op falls.
func BenchmarkGroupCommit(b *testing.B) {
	for _, writers := range []int{1, 8, 50} {
		b.Run(fmt.Sprintf("writers=%d", writers), func(b *testing.B) {
			p, err := OpenPebble(b.TempDir(), PebbleOptions{CacheSize: 8 << 20})
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			var next atomic.Int64
			var wg sync.WaitGroup
			b.ResetTimer()
			for w := 0; w < writers; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					val := make([]byte, 128)
					for {
						i := next.Add(1)
						if i > int64(b.N) {
							return
						}
						batch := p.NewBatch()
						_ = batch.Set([]byte("key:"+strconv.FormatInt(i%100000, 10)), val)
						if err := batch.Commit(false); err != nil {
							b.Error(err)
						}
						_ = batch.Close()
						if err := p.SyncWAL(); err != nil {
							b.Error(err)
						}
					}
				}()
			}
			wg.Wait()
			b.StopTimer()
			m := p.db().Metrics()
			b.ReportMetric(float64(m.WAL.Files), "walfiles")
		})
	}
}
