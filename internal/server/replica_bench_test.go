package server

import (
	"bufio"
	"fmt"
	"net"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/redistest"
)

// BenchmarkReplicaLag measures how far a Cairn replica trails a real Redis
// master under a steady write load: b.N SETs of 128-byte values sent to the
// master at about 50,000 a second (pipelines of 500 every 10 ms), with a
// marker key holding its write time set between pipelines. A reader on the
// replica reports, for every marker it sees, the time since the master took
// it: lag_p50_ms and lag_p99_ms; applied_ops/s is the replica's rate.
//
//	go test ./internal/server -run XXX -bench ReplicaLag -benchtime 200000x
func BenchmarkReplicaLag(b *testing.B) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		b.Skip("redis-server is not installed")
	}
	master := startRedisOn(b, b.TempDir())
	_, port, _ := net.SplitHostPort(master.Addr())
	ts := startServer(b, "dir", b.TempDir())
	c := redistest.Dial(b, ts.addr)
	if _, err := c.Do("REPLICAOF", "127.0.0.1", port); err != nil {
		b.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; {
		v, _ := c.Do("INFO", "replication")
		if s, ok := v.([]byte); ok && strings.Contains(string(s), "master_link_status:up") {
			break
		}
		if time.Now().After(deadline) {
			b.Fatal("the replica did not connect")
		}
		time.Sleep(20 * time.Millisecond)
	}

	conn, err := net.Dial("tcp", master.Addr())
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	br := bufio.NewReader(conn)
	value := strings.Repeat("v", 128)
	lags := make(chan []time.Duration, 1)
	stop := make(chan struct{})
	go func() {
		// The reader: polls the marker on the replica.
		var out []time.Duration
		r := redistest.Dial(b, ts.addr)
		last := ""
		for {
			select {
			case <-stop:
				lags <- out
				return
			default:
			}
			v, err := r.Do("GET", "marker")
			if s, ok := v.([]byte); err == nil && ok && string(s) != last {
				last = string(s)
				if ns, err := strconv.ParseInt(last, 10, 64); err == nil {
					out = append(out, time.Since(time.Unix(0, ns)))
				}
			}
			time.Sleep(500 * time.Microsecond)
		}
	}()

	const batch = 500
	b.ResetTimer()
	start := time.Now()
	var buf []byte
	for sent := 0; sent < b.N; {
		n := min(batch, b.N-sent)
		buf = buf[:0]
		for i := range n {
			k := strconv.Itoa((sent + i) % 100000)
			buf = fmt.Appendf(buf, "*3\r\n$3\r\nSET\r\n$%d\r\nk:%s\r\n$%d\r\n%s\r\n", len(k)+2, k, len(value), value)
		}
		ts := strconv.FormatInt(time.Now().UnixNano(), 10)
		buf = fmt.Appendf(buf, "*3\r\n$3\r\nSET\r\n$6\r\nmarker\r\n$%d\r\n%s\r\n", len(ts), ts)
		if _, err := conn.Write(buf); err != nil {
			b.Fatal(err)
		}
		for range n + 1 {
			if _, err := redistest.ReadRaw(br, nil); err != nil {
				b.Fatal(err)
			}
		}
		sent += n
		// About 50,000 writes a second.
		if ahead := time.Duration(sent)*time.Second/50000 - time.Since(start); ahead > 0 {
			time.Sleep(ahead)
		}
	}
	// Wait for the replica to apply everything.
	for deadline := time.Now().Add(60 * time.Second); ; {
		m := infoFieldB(b, master, "master_repl_offset")
		if m != "" && infoFieldB(b, c, "slave_repl_offset") == m {
			break
		}
		if time.Now().After(deadline) {
			b.Fatal("the replica did not catch up")
		}
		time.Sleep(5 * time.Millisecond)
	}
	elapsed := time.Since(start)
	b.StopTimer()
	close(stop)
	got := <-lags
	if len(got) == 0 {
		b.Fatal("no marker seen on the replica")
	}
	slices.Sort(got)
	b.ReportMetric(float64(got[len(got)/2].Microseconds())/1000, "lag_p50_ms")
	b.ReportMetric(float64(got[len(got)*99/100].Microseconds())/1000, "lag_p99_ms")
	b.Logf("lags: n=%d p90=%v p95=%v max=%v first=%v", len(got), got[len(got)*90/100], got[len(got)*95/100], got[len(got)-1], got[:min(5, len(got))])
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "applied_ops/s")
}

func infoFieldB(b *testing.B, c *redistest.Conn, field string) string {
	v, err := c.Do("INFO", "replication")
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(v.([]byte)), "\r\n") {
		if k, val, ok := strings.Cut(line, ":"); ok && k == field {
			return val
		}
	}
	return ""
}
