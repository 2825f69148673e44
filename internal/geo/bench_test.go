package geo

import "testing"

func BenchmarkDistance(b *testing.B) {
	for i := 0; b.Loop(); i++ {
		Distance(13.361389, 38.115556, 15.087269+float64(i&7)*1e-3, 37.502669)
	}
}

func BenchmarkRanges(b *testing.B) {
	s := Shape{Lon: 13.361389, Lat: 38.115556, Radius: 5, Conversion: 1000}
	for b.Loop() {
		s.Ranges()
	}
}
