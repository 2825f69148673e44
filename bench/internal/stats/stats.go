// Package stats summarises repeated benchmark measurements: the median as the
// figure to quote and the min–max range to show how noisy the machine was.
//
// The harness reports medians rather than means because one disturbed run on a
// shared machine moves a mean a long way and a median of three hardly at all.
package stats

import (
	"math"
	"slices"
)

// Summary describes a set of repeated measurements of one quantity.
type Summary struct {
	Median float64
	Min    float64
	Max    float64
	N      int // how many measurements were summarised
}

// Summarize returns the median, minimum and maximum of xs, ignoring NaNs
// (a run that did not report the quantity). With no usable values every
// field but N is NaN.
func Summarize(xs []float64) Summary {
	vals := make([]float64, 0, len(xs))
	for _, x := range xs {
		if !math.IsNaN(x) {
			vals = append(vals, x)
		}
	}
	if len(vals) == 0 {
		nan := math.NaN()
		return Summary{Median: nan, Min: nan, Max: nan}
	}
	slices.Sort(vals)
	n := len(vals)
	med := vals[n/2]
	if n%2 == 0 {
		med = (vals[n/2-1] + vals[n/2]) / 2
	}
	return Summary{Median: med, Min: vals[0], Max: vals[n-1], N: n}
}

// Valid reports whether the summary holds at least one measurement.
func (s Summary) Valid() bool { return s.N > 0 }

// Ratio returns a/b, or NaN when either is missing or b is zero, so that a
// ratio is never invented from an absent measurement.
func Ratio(a, b float64) float64 {
	if math.IsNaN(a) || math.IsNaN(b) || b == 0 {
		return math.NaN()
	}
	return a / b
}

// PairedRatios returns a[i]/b[i] for every index where both runs reported a
// value. The harness alternates Redis and Cairn within a round, so a pair
// shares the machine's conditions and the spread of paired ratios is an
// honest picture of the noise in the headline ratio.
func PairedRatios(a, b []float64) []float64 {
	n := min(len(a), len(b))
	out := make([]float64, 0, n)
	for i := 0; i < n; i++ {
		if r := Ratio(a[i], b[i]); !math.IsNaN(r) {
			out = append(out, r)
		}
	}
	return out
}
