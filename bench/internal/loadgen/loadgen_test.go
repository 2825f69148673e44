package loadgen

import (
	"testing"
	"time"
)

func TestKey(t *testing.T) {
	c := Config{KeyPrefix: "lg:"}
	tests := []struct {
		i    int
		want string
	}{
		{0, "lg:0000000000"},
		{42, "lg:0000000042"},
		{1234567890, "lg:1234567890"},
		{12345678901, "lg:12345678901"},
	}
	for _, tc := range tests {
		if got := c.Key(tc.i); got != tc.want {
			t.Errorf("Key(%d) = %q, want %q", tc.i, got, tc.want)
		}
	}
	// Fixed width keeps byte order equal to numeric order below 10^10.
	if !(c.Key(9) < c.Key(10) && c.Key(99999) < c.Key(100000)) {
		t.Error("keys do not sort in index order")
	}
}

func TestLatencyPercentiles(t *testing.T) {
	h := newHist()
	// 1000 values: 1..1000 µs.
	for v := int64(1); v <= 1000; v++ {
		if err := h.RecordValue(v); err != nil {
			t.Fatal(err)
		}
	}
	l := latency(h)
	near := func(got time.Duration, wantUs int64) bool {
		d := got - time.Duration(wantUs)*time.Microsecond
		return d >= -2*time.Microsecond && d <= 2*time.Microsecond
	}
	if l.Count != 1000 || !near(l.P50, 500) || !near(l.P99, 990) || !near(l.P999, 999) || !near(l.Max, 1000) {
		t.Errorf("latency = %+v, want count 1000, p50≈500µs, p99≈990µs, p999≈999µs, max≈1000µs", l)
	}
}

func TestSeed32DistinctStreams(t *testing.T) {
	if seed32(1, 0) == seed32(1, 1) || seed32(1, 0) == seed32(2, 0) {
		t.Error("different seeds or streams give the same ChaCha8 seed")
	}
}

func TestResultRates(t *testing.T) {
	l := LoadResult{Keys: 1000, Bytes: 1000 << 10, Elapsed: 2 * time.Second}
	if l.KeysPerSec() != 500 || l.MBPerSec() != 1000.0/1024/2 {
		t.Errorf("load rates = %v keys/s, %v MiB/s", l.KeysPerSec(), l.MBPerSec())
	}
	m := MixResult{Gets: 900, Sets: 100, Elapsed: time.Second / 2}
	if m.OpsPerSec() != 2000 {
		t.Errorf("mix rate = %v, want 2000", m.OpsPerSec())
	}
}
