package loadgen

import (
	"math"
	"runtime/metrics"
	"time"
)

// schedMetric is the runtime's histogram of the time goroutines spent
// runnable before they ran.
const schedMetric = "/sched/latencies:seconds"

// schedHist is a snapshot of the process's scheduling latencies.
type schedHist struct {
	counts  []uint64
	buckets []float64 // bucket i is [buckets[i], buckets[i+1]) seconds
}

func schedLatencies() schedHist {
	s := []metrics.Sample{{Name: schedMetric}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64Histogram {
		return schedHist{} // not reported by this runtime
	}
	h := s[0].Value.Float64Histogram()
	// The runtime may reuse the histogram's memory on the next Read.
	return schedHist{counts: append([]uint64(nil), h.Counts...), buckets: append([]float64(nil), h.Buckets...)}
}

// minus returns the latencies recorded since before was taken.
func (h schedHist) minus(before schedHist) schedHist {
	if len(before.counts) != len(h.counts) {
		return h
	}
	d := schedHist{counts: make([]uint64, len(h.counts)), buckets: h.buckets}
	for i, c := range h.counts {
		d.counts[i] = c - before.counts[i]
	}
	return d
}

// latency summarises h, each percentile as the upper bound of the bucket
// it falls in: the runtime's buckets are coarse, and rounding up does not
// flatter the client.
func (h schedHist) latency() Latency {
	var total uint64
	for _, c := range h.counts {
		total += c
	}
	if total == 0 {
		return Latency{}
	}
	bound := func(i int) time.Duration {
		b := h.buckets[i+1]
		if math.IsInf(b, 1) {
			b = h.buckets[i]
		}
		return time.Duration(b * float64(time.Second))
	}
	at := func(q float64) time.Duration {
		rank := uint64(math.Ceil(q * float64(total)))
		var n uint64
		for i, c := range h.counts {
			if n += c; n >= max(rank, 1) {
				return bound(i)
			}
		}
		return bound(len(h.counts) - 1)
	}
	l := Latency{Count: int64(total), P50: at(0.5), P99: at(0.99), P999: at(0.999)}
	for i := len(h.counts) - 1; i >= 0; i-- {
		if h.counts[i] > 0 {
			l.Max = bound(i)
			break
		}
	}
	return l
}
