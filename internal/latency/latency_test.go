package latency

import (
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"
)

func TestBuckets(t *testing.T) {
	// Every bucket's bounds map back to it, the buckets tile the range
	// without gaps, and none is wider than 1/128 of its lowest value.
	var next uint64
	for i := range buckets {
		lo, hi := bounds(i)
		if lo != next {
			t.Fatalf("bucket %d starts at %d, want %d", i, lo, next)
		}
		if index(lo) != i || index(hi) != i {
			t.Fatalf("bucket %d = [%d, %d], but those values index %d and %d", i, lo, hi, index(lo), index(hi))
		}
		if w := hi - lo + 1; lo >= 2*subCount && w*subCount > lo {
			t.Fatalf("bucket %d = [%d, %d] is wider than 1/%d of its values", i, lo, hi, subCount)
		}
		next = hi + 1
	}
	if got := index(1 << 62); got != buckets-1 {
		t.Fatalf("a value past the range indexes %d, want the last bucket %d", got, buckets-1)
	}
}

func TestPercentiles(t *testing.T) {
	tests := []struct {
		name    string
		records []time.Duration
		ps      []float64
		want    []time.Duration
	}{
		{"empty", nil, []float64{0, 50, 100}, []time.Duration{0, 0, 0}},
		{"exact below 256 ns", []time.Duration{1, 2, 3, 4, 100}, []float64{0, 20, 50, 80, 100}, []time.Duration{1, 1, 3, 4, 100}},
		// 1000 ns falls in the bucket [1000, 1003]; 39 µs in [38912, 39167].
		{"one value", []time.Duration{1000}, []float64{0, 50, 100}, []time.Duration{1000, 1003, 1003}},
		{"bucket bounds", []time.Duration{39000}, []float64{0, 99.9}, []time.Duration{38912, 39167}},
		{"negative counts as zero", []time.Duration{-5}, []float64{50}, []time.Duration{0}},
		{"out of range percentiles clamp", []time.Duration{10, 20}, []float64{-1, 101}, []time.Duration{10, 20}},
		// 50% of 3 is 1.5, rounded to the 2nd value, as hdr_value_at_percentile does.
		{"rounds the count", []time.Duration{10, 20, 30}, []float64{50, 33.3, 66.7}, []time.Duration{20, 10, 20}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var h Histogram
			for _, d := range tc.records {
				h.Record(d)
			}
			if got := h.Percentiles(tc.ps); !slices.Equal(got, tc.want) {
				t.Fatalf("Percentiles(%v) = %v, want %v", tc.ps, got, tc.want)
			}
		})
	}
}

// TestPercentilesNearExact checks random samples against the exact
// percentile of the sorted sample: the histogram's answer is the exact one
// rounded up to its bucket, so never below it and at most 1/128 above.
func TestPercentilesNearExact(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	for range 20 {
		var h Histogram
		sample := make([]time.Duration, 1+rng.IntN(5000))
		for i := range sample {
			// Log-uniform from 1 ns to about 1 s.
			sample[i] = time.Duration(float64(int64(1)<<rng.IntN(30)) * (1 + rng.Float64()))
			h.Record(sample[i])
		}
		slices.Sort(sample)
		ps := []float64{1, 25, 50, 90, 99, 99.9, 100}
		got := h.Percentiles(ps)
		for j, p := range ps {
			k := max(int(p/100*float64(len(sample))+0.5), 1)
			exact := sample[k-1]
			if got[j] < exact || float64(got[j]-exact) > float64(exact)/subCount+1 {
				t.Fatalf("p%v of %d values: %v, exact %v", p, len(sample), got[j], exact)
			}
		}
	}
}

func TestCumulative(t *testing.T) {
	var h Histogram
	if got := h.Cumulative(1024); len(got) != 0 {
		t.Fatalf("empty histogram: %v", got)
	}
	// 2 under 1 µs, 1 at 3 µs, 3 at 40 µs.
	for _, d := range []time.Duration{500, 1000, 3000, 40000, 40000, 40000} {
		h.Record(d)
	}
	want := []Step{{1031, 2}, {4127, 3}, {66047, 6}}
	if got := h.Cumulative(1024); !slices.Equal(got, want) {
		t.Fatalf("Cumulative = %v, want %v", got, want)
	}
	h.Record(time.Duration(1) << 50)
	got := h.Cumulative(1024)
	if last := got[len(got)-1]; last.Count != 7 {
		t.Fatalf("a value past the range is not counted: %v", got)
	}
	h.Reset()
	if got := h.Cumulative(1024); len(got) != 0 {
		t.Fatalf("Reset left %v", got)
	}
}

func TestConcurrentRecord(t *testing.T) {
	var h Histogram
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 1000 {
				h.Record(time.Duration(g*1000 + i))
			}
		})
	}
	wg.Go(func() {
		for range 10 {
			h.Percentiles([]float64{50, 99})
		}
	})
	wg.Wait()
	if steps := h.Cumulative(1024); len(steps) == 0 || steps[len(steps)-1].Count != 8000 {
		t.Fatalf("Cumulative = %v, want 8000 in all", steps)
	}
	// 7999 ns lies in the bucket [7968, 7999].
	if got := h.Percentiles([]float64{100}); got[0] != 7999 {
		t.Fatalf("p100 = %v", got[0])
	}
}

func BenchmarkRecord(b *testing.B) {
	var h Histogram
	for i := 0; b.Loop(); i++ {
		h.Record(time.Duration(i & 0xffff))
	}
}
