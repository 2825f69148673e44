package stats

import (
	"math"
	"testing"
)

func TestSummarize(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name string
		in   []float64
		want Summary
	}{
		{"odd", []float64{3, 1, 2}, Summary{Median: 2, Min: 1, Max: 3, N: 3}},
		{"even", []float64{4, 1, 3, 2}, Summary{Median: 2.5, Min: 1, Max: 4, N: 4}},
		{"one", []float64{7}, Summary{Median: 7, Min: 7, Max: 7, N: 1}},
		{"outlier does not move the median", []float64{100, 101, 5}, Summary{Median: 100, Min: 5, Max: 101, N: 3}},
		{"nan ignored", []float64{nan, 2, 4}, Summary{Median: 3, Min: 2, Max: 4, N: 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Summarize(tc.in); got != tc.want {
				t.Errorf("Summarize(%v) = %+v, want %+v", tc.in, got, tc.want)
			}
		})
	}
}

func TestSummarizeEmpty(t *testing.T) {
	for _, in := range [][]float64{nil, {math.NaN()}} {
		s := Summarize(in)
		if s.Valid() || !math.IsNaN(s.Median) || !math.IsNaN(s.Min) || !math.IsNaN(s.Max) {
			t.Errorf("Summarize(%v) = %+v, want invalid NaN summary", in, s)
		}
	}
}

func TestSummarizeDoesNotReorderInput(t *testing.T) {
	in := []float64{3, 1, 2}
	Summarize(in)
	if in[0] != 3 || in[1] != 1 || in[2] != 2 {
		t.Errorf("input reordered: %v", in)
	}
}

func TestRatio(t *testing.T) {
	tests := []struct {
		a, b, want float64
	}{
		{1, 2, 0.5},
		{3, 0, math.NaN()},
		{math.NaN(), 1, math.NaN()},
		{1, math.NaN(), math.NaN()},
	}
	for _, tc := range tests {
		got := Ratio(tc.a, tc.b)
		if math.IsNaN(tc.want) != math.IsNaN(got) || (!math.IsNaN(got) && got != tc.want) {
			t.Errorf("Ratio(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestPairedRatios(t *testing.T) {
	got := PairedRatios([]float64{2, math.NaN(), 9, 4}, []float64{1, 5, 3})
	want := []float64{2, 3}
	if len(got) != len(want) {
		t.Fatalf("PairedRatios = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("PairedRatios = %v, want %v", got, want)
		}
	}
}
