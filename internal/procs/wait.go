package procs

import (
	"math"
	"runtime/metrics"
	"time"
)

// schedWaits reads the runtime's scheduling latency, the time goroutines
// spend runnable before they run, one window at a time.
type schedWaits struct {
	sample [1]metrics.Sample
	last   []uint64
	delta  []uint64
}

const schedLatencies = "/sched/latencies:seconds"

// window returns the median wait of the goroutines scheduled since the
// last call (0 for none, or on the first call), rounded up to its
// histogram bucket.
func (s *schedWaits) window() time.Duration {
	s.sample[0].Name = schedLatencies
	metrics.Read(s.sample[:])
	if s.sample[0].Value.Kind() != metrics.KindFloat64Histogram {
		return 0
	}
	h := s.sample[0].Value.Float64Histogram()
	if len(s.last) != len(h.Counts) {
		s.last = append(s.last[:0], h.Counts...)
		return 0
	}
	s.delta = s.delta[:0]
	for i, n := range h.Counts {
		s.delta = append(s.delta, n-s.last[i])
	}
	copy(s.last, h.Counts)
	return median(s.delta, h.Buckets)
}

// median is the upper bound of the bucket that holds the middle count of
// a histogram (Buckets has one bound more than counts).
func median(counts []uint64, bounds []float64) time.Duration {
	var total uint64
	for _, n := range counts {
		total += n
	}
	if total == 0 {
		return 0
	}
	var acc uint64
	for i, n := range counts {
		acc += n
		if 2*acc >= total {
			hi := bounds[i+1]
			if math.IsInf(hi, 1) {
				hi = bounds[i]
			}
			return time.Duration(hi * float64(time.Second))
		}
	}
	return 0
}
