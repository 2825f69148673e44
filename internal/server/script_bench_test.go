package server

import (
	"bufio"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/engine"
)

// Benchmarks of atomic groups on disjoint keys: scripts and MULTI/EXEC lock
// only the keys they declare, so groups on different keys should run in
// parallel. Run them at more than one GOMAXPROCS to see whether they scale:
//
//	go test ./internal/server -run '^$' -bench 'DisjointKeys' -cpu 1,2
//
// The server runs on Pebble on disk, in this process: the client
// goroutines share the processors with it, as they share the machine's
// cores with bench/run's servers. b.RunParallel starts GOMAXPROCS goroutines, each with its own connection
// and its own keys; each pipelines parallelBatch units at a time, so that
// the loopback round trip does not hide the server's cost. ns/op is per
// unit (one EVALSHA, one MULTI … EXEC) across all goroutines: it falls as
// -cpu rises if the groups do not serialize.

const parallelBatch = 16

// unitCycle is how many distinct units each goroutine cycles through.
const unitCycle = 64

// incrScriptText is the script of bench/run's scripting-pubsub scenario.
const incrScriptText = "return redis.call('INCR', KEYS[1])"

// benchParallelUnits runs b.N units from RunParallel goroutines. unit
// returns goroutine g's i-th unit, RESP-encoded, and the number of replies
// it gets. setup commands run first on a connection of their own; a setup
// command answered "unknown command" skips the benchmark.
func benchParallelUnits(b *testing.B, setup []string, unit func(g, i int) (string, int)) {
	ts := startDiskServer(b)
	if len(setup) > 0 {
		conn := ts.raw(b)
		r := bufio.NewReader(conn)
		for _, s := range setup {
			if _, err := conn.Write([]byte(s)); err != nil {
				b.Fatal(err)
			}
			if err := skipReply(r); err != nil {
				if strings.Contains(err.Error(), "unknown command") {
					b.Skipf("the server does not have this command yet: %v", err)
				}
				b.Fatalf("setup %q: %v", s, err)
			}
		}
	}
	var nextG atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		g := int(nextG.Add(1))
		conn, err := net.Dial("tcp", ts.addr)
		if err != nil {
			b.Error(err)
			return
		}
		defer conn.Close()
		r := bufio.NewReader(conn)
		// The goroutine's units, encoded once: the client's own
		// allocations stay out of the server's allocs/op.
		cmds := make([]string, unitCycle)
		replyCount := make([]int, unitCycle)
		for i := range cmds {
			cmds[i], replyCount[i] = unit(g, i)
		}
		var buf []byte
		i := 0
		for more := true; more; {
			buf = buf[:0]
			replies := 0
			for n := 0; n < parallelBatch; n++ {
				if more = pb.Next(); !more {
					break
				}
				buf = append(buf, cmds[i%unitCycle]...)
				replies += replyCount[i%unitCycle]
				i++
			}
			if replies == 0 {
				break
			}
			_ = conn.SetDeadline(time.Now().Add(time.Minute))
			if _, err := conn.Write(buf); err != nil {
				b.Error(err)
				return
			}
			for range replies {
				if err := skipReply(r); err != nil {
					b.Errorf("goroutine %d: %v", g, err)
					return
				}
			}
		}
	})
}

// startDiskServer is startServer over Pebble on disk (appendfsync everysec,
// the default) rather than in memory: the in-memory file system keeps the
// whole WAL in one growing slice, whose copying would be a large part of
// a write benchmark's time and none of a real server's.
func startDiskServer(b *testing.B) *testServer {
	b.Helper()
	log := slog.New(slog.NewTextHandler(testWriter{b}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	eng, err := engine.OpenPebble(b.TempDir(), engine.PebbleOptions{CacheSize: 64 << 20, Logger: log})
	if err != nil {
		b.Fatal(err)
	}
	return serveTest(b, testConfig(b), eng, log, false)
}

// skipReply reads one RESP2 reply, arrays with their elements, and returns
// an error reply as an error.
func skipReply(r *bufio.Reader) error {
	line, err := r.ReadString('\n')
	if err != nil {
		return err
	}
	if len(line) < 3 {
		return fmt.Errorf("short reply line %q", line)
	}
	body := strings.TrimSuffix(line[1:], "\r\n")
	switch line[0] {
	case '+', ':':
		return nil
	case '-':
		return errors.New(body)
	case '$':
		n, err := strconv.Atoi(body)
		if err != nil {
			return fmt.Errorf("bad bulk length %q", line)
		}
		if n < 0 {
			return nil
		}
		_, err = r.Discard(n + 2)
		return err
	case '*':
		n, err := strconv.Atoi(body)
		if err != nil {
			return fmt.Errorf("bad array length %q", line)
		}
		for range max(n, 0) {
			if err := skipReply(r); err != nil {
				return err
			}
		}
		return nil
	default:
		return fmt.Errorf("unexpected reply %q", line)
	}
}

// disjointKey is goroutine g's key number i: keys of its own, none shared
// with another goroutine.
func disjointKey(g, i int) string { return fmt.Sprintf("g%d:key:%03d", g, i) }

// BenchmarkIncrDisjointKeys is the baseline: plain INCRs on the same keys.
func BenchmarkIncrDisjointKeys(b *testing.B) {
	benchParallelUnits(b, nil, func(g, i int) (string, int) {
		return encodeCommand("INCR", disjointKey(g, i)), 1
	})
}

// BenchmarkEvalDisjointKeys runs EVALSHA of a one-key INCR script.
func BenchmarkEvalDisjointKeys(b *testing.B) {
	sum := sha1.Sum([]byte(incrScriptText))
	sha := hex.EncodeToString(sum[:])
	benchParallelUnits(b, []string{encodeCommand("SCRIPT", "LOAD", incrScriptText)}, func(g, i int) (string, int) {
		return encodeCommand("EVALSHA", sha, "1", disjointKey(g, i)), 1
	})
}

// BenchmarkExecDisjointKeys runs MULTI, five SETs, EXEC: one unit, seven
// replies.
func BenchmarkExecDisjointKeys(b *testing.B) {
	benchParallelUnits(b, nil, func(g, i int) (string, int) {
		var sb strings.Builder
		sb.WriteString(encodeCommand("MULTI"))
		for k := range 5 {
			sb.WriteString(encodeCommand("SET", disjointKey(g, i*5+k), value128))
		}
		sb.WriteString(encodeCommand("EXEC"))
		return sb.String(), 7
	})
}
