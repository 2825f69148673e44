package loadgen

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
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
	r := NewRecorder()
	// 1000 values: 1..1000 µs.
	for v := int64(1); v <= 1000; v++ {
		r.Record(time.Duration(v) * time.Microsecond)
	}
	l := r.Latency()
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

// fakeServer answers PING, HELLO (with an error), GET (with "x") and SET over RESP2 on a loopback
// listener, holding the reply to the first GET for stall.
func fakeServer(t *testing.T, stall time.Duration) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var stalled atomic.Bool
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					args, err := readCommand(r)
					if err != nil {
						return
					}
					reply := "+OK\r\n"
					switch strings.ToUpper(args[0]) {
					case "PING":
						reply = "+PONG\r\n"
					case "HELLO": // go-redis's handshake; a RESP2-only server refuses it
						reply = "-ERR unknown command 'HELLO'\r\n"
					case "GET":
						reply = "$1\r\nx\r\n"
						if stalled.CompareAndSwap(false, true) {
							time.Sleep(stall)
						}
					}
					if _, err := io.WriteString(c, reply); err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}

func readCommand(r *bufio.Reader) ([]string, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "*")))
	if err != nil || n < 1 {
		return nil, fmt.Errorf("bad array header %q", line)
	}
	args := make([]string, n)
	for i := range args {
		if line, err = r.ReadString('\n'); err != nil {
			return nil, err
		}
		size, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "$")))
		if err != nil {
			return nil, fmt.Errorf("bad bulk header %q", line)
		}
		buf := make([]byte, size+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, err
		}
		args[i] = string(buf[:size])
	}
	return args, nil
}

// TestMixOpenLoopCountsStalls checks the open-loop accounting: one client
// scheduled every millisecond meets a server that holds one reply for
// 60 ms. Every command due during the stall is charged from its scheduled
// time, so more than 1% of them are at least 50 ms late and p99 shows it
// (measured from the actual send, only the one stalled command would be),
// and every scheduled command is either sent or counted as unsent.
func TestMixOpenLoopCountsStalls(t *testing.T) {
	addr := fakeServer(t, 60*time.Millisecond)
	c := NewClient(addr, 1)
	defer c.Close()
	cfg := Config{Keys: 10, KeyPrefix: "k:", ValueSize: 8, Conns: 1, GetRatio: 1,
		Duration: 150 * time.Millisecond, Rate: 1000, Seed: 1}
	m, err := Mix(context.Background(), c, cfg)
	if err != nil {
		t.Fatal(err)
	}
	// Sends due at 0, 1, ..., 150 ms.
	if got := m.Gets + m.Unsent; got != 151 || m.Sets != 0 {
		t.Errorf("%d GETs sent + %d unsent = %d, %d SETs; want 151 scheduled GETs", m.Gets, m.Unsent, got, m.Sets)
	}
	if m.Get.P99 < 50*time.Millisecond || m.Get.Max < 60*time.Millisecond {
		t.Errorf("GET p99 %v, max %v: the 60 ms stall was not charged to the commands it delayed", m.Get.P99, m.Get.Max)
	}
	if m.GetSent.Max < 60*time.Millisecond || m.GetSent.Count != m.Gets || m.Lag.Count != m.Gets {
		t.Errorf("from-send latency %+v, lag %+v for %d GETs", m.GetSent, m.Lag, m.Gets)
	}
	if m.Rate != 1000 {
		t.Errorf("Rate = %v, want 1000", m.Rate)
	}
}

func TestMixRejectsBadConfig(t *testing.T) {
	for _, cfg := range []Config{
		{Keys: 0, Conns: 1, Duration: time.Second},
		{Keys: 1, Conns: 0, Duration: time.Second},
		{Keys: 1, Conns: 1, Duration: time.Second, Rate: -1},
	} {
		if _, err := Mix(context.Background(), nil, cfg); err == nil {
			t.Errorf("Mix(%+v) accepted a bad config", cfg)
		}
	}
}

// TestPacerNeverEarly checks that a wait ends no sooner than its time,
// including when the time has passed or is a tick away: a send before its
// scheduled time would shorten the latency measured from that time.
func TestPacerNeverEarly(t *testing.T) {
	p, err := newPacer()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for _, d := range []time.Duration{-time.Millisecond, 0, time.Microsecond, 50 * time.Microsecond, 2 * time.Millisecond} {
		at := time.Now().Add(d)
		if err := p.waitUntil(at); err != nil {
			t.Fatalf("waitUntil(now%+v): %v", d, err)
		}
		if now := time.Now(); now.Before(at) {
			t.Errorf("waitUntil(now%+v) returned %v early", d, at.Sub(now))
		}
	}
}

func TestSchedHistLatency(t *testing.T) {
	buckets := []float64{0, 1e-6, 1e-5, 1e-4, 1e-3, math.Inf(1)}
	us := time.Microsecond
	tests := []struct {
		name   string
		before []uint64
		after  []uint64
		want   Latency
	}{
		{"empty", []uint64{0, 0, 0, 0, 0}, []uint64{0, 0, 0, 0, 0}, Latency{}},
		{"all in one bucket", []uint64{0, 0, 0, 0, 0}, []uint64{0, 10, 0, 0, 0},
			Latency{Count: 10, P50: 10 * us, P99: 10 * us, P999: 10 * us, Max: 10 * us}},
		{"tail in a later bucket", []uint64{0, 0, 0, 0, 0}, []uint64{990, 0, 9, 1, 0},
			Latency{Count: 1000, P50: us, P99: us, P999: 100 * us, Max: 1000 * us}},
		{"only the difference counts", []uint64{500, 0, 0, 0, 7}, []uint64{600, 0, 0, 100, 7},
			Latency{Count: 200, P50: us, P99: 1000 * us, P999: 1000 * us, Max: 1000 * us}},
		{"open last bucket reports its lower bound", []uint64{0, 0, 0, 0, 0}, []uint64{0, 0, 0, 0, 1},
			Latency{Count: 1, P50: 1000 * us, P99: 1000 * us, P999: 1000 * us, Max: 1000 * us}},
	}
	for _, tc := range tests {
		b := schedHist{counts: tc.before, buckets: buckets}
		a := schedHist{counts: tc.after, buckets: buckets}
		if got := a.minus(b).latency(); got != tc.want {
			t.Errorf("%s: latency = %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

func TestSchedLatenciesReadsRuntime(t *testing.T) {
	h := schedLatencies()
	if len(h.counts) == 0 || len(h.buckets) != len(h.counts)+1 {
		t.Fatalf("runtime histogram %s: %d counts, %d bucket bounds", schedMetric, len(h.counts), len(h.buckets))
	}
}
