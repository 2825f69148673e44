// Package latency keeps histograms of how long commands take, for INFO
// latencystats and LATENCY HISTOGRAM: every command records into its own
// Histogram from whichever connection runs it, so recording is a few atomic
// adds and never takes a lock.
//
// The buckets are log-linear, as HdrHistogram's are: values below 256 ns
// have a bucket each, and every power of two above that is split into 128
// equal buckets, so a bucket is never wider than 1/128 of its values (two
// significant decimal digits, Redis's precision). A percentile is reported
// as the highest value of the bucket it falls in (the lowest, for the 0th
// percentile), as HdrHistogram's hdr_value_at_percentile does.
//
// A Histogram may be read while it is being written: a reader sees every
// record that finished before it began, and any subset of those in flight.
package latency

import (
	"math/bits"
	"sync/atomic"
	"time"
)

const (
	// subBits sets the precision: 1<<subBits buckets per power of two.
	subBits  = 7
	subCount = 1 << subBits
	// maxShift bounds the range: values up to 2^(maxShift+subBits+1)-1 ns
	// (about 2.4 hours) have their own bucket; longer ones count in the
	// last.
	maxShift = 35
	buckets  = (maxShift+1)*subCount + subCount
)

// Histogram counts durations. The zero value is empty and ready to use.
type Histogram struct {
	counts [buckets]atomic.Uint64
}

// index is the bucket of a value in nanoseconds.
func index(ns uint64) int {
	shift := bits.Len64(ns) - (subBits + 1)
	if shift <= 0 {
		return int(ns)
	}
	if shift > maxShift {
		return buckets - 1
	}
	return shift*subCount + int(ns>>uint(shift))
}

// bounds are the lowest and highest values in nanoseconds of bucket i.
func bounds(i int) (lo, hi uint64) {
	if i < 2*subCount {
		return uint64(i), uint64(i)
	}
	shift := uint(i/subCount - 1)
	lo = uint64(i-int(shift)*subCount) << shift
	return lo, lo + 1<<shift - 1
}

// Record counts one duration; a negative one counts as zero.
func (h *Histogram) Record(d time.Duration) {
	ns := uint64(max(d, 0))
	h.counts[index(ns)].Add(1)
}

// Reset empties the histogram. Records made while it runs may survive it.
func (h *Histogram) Reset() {
	for i := range h.counts {
		h.counts[i].Store(0)
	}
}

// snapshot copies the counts, with their sum.
func (h *Histogram) snapshot() (counts []uint64, total uint64) {
	counts = make([]uint64, buckets)
	for i := range h.counts {
		counts[i] = h.counts[i].Load()
		total += counts[i]
	}
	return counts, total
}

// Percentiles returns the duration at each percentile p in [0, 100]: the
// highest value of the bucket holding the k-th shortest duration, where k
// is p% of the count rounded half up (and at least 1), or for p = 0 the
// lowest value of the first bucket. An empty histogram gives 0.
func (h *Histogram) Percentiles(ps []float64) []time.Duration {
	counts, total := h.snapshot()
	out := make([]time.Duration, len(ps))
	if total == 0 {
		return out
	}
	for j, p := range ps {
		p = min(max(p, 0), 100)
		want := max(uint64(p/100*float64(total)+0.5), 1)
		var seen uint64
		for i, n := range counts {
			seen += n
			if seen >= want {
				lo, hi := bounds(i)
				if p == 0 {
					out[j] = time.Duration(lo)
				} else {
					out[j] = time.Duration(hi)
				}
				break
			}
		}
	}
	return out
}

// Step is one step of a cumulative distribution: Count durations took at
// most UpTo.
type Step struct {
	UpTo  time.Duration
	Count uint64
}

// Cumulative is the distribution in steps that double from first: for each
// step that counts more durations than the one before, the durations up to
// it (to the highest value of the bucket that holds first·2^k), until every
// duration is counted. LATENCY HISTOGRAM reports it from 1024 ns.
func (h *Histogram) Cumulative(first time.Duration) []Step {
	counts, total := h.snapshot()
	var out []Step
	var seen, reported uint64
	i := 0
	for step := uint64(max(first, 1)); reported < total; step *= 2 {
		last := index(step)
		for ; i <= last; i++ {
			seen += counts[i]
		}
		if seen > reported {
			_, hi := bounds(last)
			out = append(out, Step{UpTo: time.Duration(hi), Count: seen})
			reported = seen
		}
		if last == buckets-1 {
			break
		}
	}
	return out
}
