package main

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// pipelinedIncr runs writers connections, each sending pipelines of depth
// INCRs of its own counter and reading their replies, until its connection
// fails (the server was killed). It returns the last value acknowledged on
// each counter.
func pipelinedIncr(t *testing.T, port, writers, depth int, started chan<- struct{}) map[string]int64 {
	t.Helper()
	acked := make(map[string]int64)
	var mu sync.Mutex
	var wg sync.WaitGroup
	var once sync.Once
	for w := range writers {
		nc, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer nc.Close()
			key := fmt.Sprintf("pcounter:%d", w)
			cmd := fmt.Sprintf("*2\r\n$4\r\nINCR\r\n$%d\r\n%s\r\n", len(key), key)
			batch := []byte(strings.Repeat(cmd, depth))
			r := bufio.NewReader(nc)
			// Bounded: the kill ends the loop long before this.
			for range 1_000_000 {
				if _, err := nc.Write(batch); err != nil {
					return
				}
				for range depth {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					if !strings.HasPrefix(line, ":") {
						t.Errorf("INCR %s: %q", key, line)
						return
					}
					n, err := strconv.ParseInt(strings.TrimSpace(line[1:]), 10, 64)
					if err != nil {
						t.Errorf("INCR %s: %q", key, line)
						return
					}
					mu.Lock()
					acked[key] = n
					mu.Unlock()
					once.Do(func() { close(started) })
				}
			}
		}()
	}
	wg.Wait()
	return acked
}

// A process crash must lose no acknowledged write under any appendfsync
// setting: the WAL is written to the operating system before a reply goes
// out, and only the sync to disk waits (once a second, or never). The
// writes acknowledged in the last milliseconds before the kill, which no
// sync covered yet, are the ones this checks.
func TestAcknowledgedWritesSurviveSIGKILL(t *testing.T) {
	bin := buildCairn(t)
	for _, mode := range []string{"everysec", "no"} {
		t.Run(mode, func(t *testing.T) {
			dir := t.TempDir()
			const rounds = 3
			var base map[string]int64
			for round := range rounds {
				p := startCairn(t, bin, true, 0, "--dir", dir, "--appendfsync", mode)
				c := p.client(t)
				ctx := context.Background()
				for k, want := range base {
					got, err := c.Get(ctx, k).Int64()
					if err != nil || got < want {
						t.Fatalf("round %d: %s = %d (%v) after restart, but INCR acknowledged %d before the kill", round, k, got, err, want)
					}
				}
				started := make(chan struct{})
				done := make(chan map[string]int64)
				go func() { done <- pipelinedIncr(t, p.port, 4, 16, started) }()
				select {
				case <-started:
				case <-time.After(10 * time.Second):
					t.Fatal("no INCR acknowledged in 10 s")
				}
				// Well under a second, so that no everysec sync covers
				// the last writes.
				time.Sleep(time.Duration(150+100*round) * time.Millisecond)
				p.kill(t)
				base = <-done
			}
			q := startCairn(t, bin, true, 0, "--dir", dir, "--appendfsync", mode)
			c := q.client(t)
			if len(base) == 0 {
				t.Fatal("nothing acknowledged")
			}
			for k, want := range base {
				got, err := c.Get(context.Background(), k).Int64()
				if err != nil || got < want {
					t.Errorf("%s = %d (%v) after restart, but INCR acknowledged %d before the kill", k, got, err, want)
				}
			}
		})
	}
}
