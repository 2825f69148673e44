package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/engine"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"
	"github.com/redis/go-redis/v9"
)

// faultLog keeps a server's log for assertions and echoes it to the test.
type faultLog struct {
	t  testing.TB
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *faultLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	l.b.Write(p)
	l.mu.Unlock()
	l.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

func (l *faultLog) count(s string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Count(l.b.String(), s)
}

// diskFault makes the chosen operations on WAL files fail once switched on.
type diskFault struct {
	errorfs.Toggle
}

func newDiskFault(kinds ...errorfs.OpKind) *diskFault {
	f := &diskFault{}
	f.Injector = errorfs.InjectorFunc(func(op errorfs.Op) error {
		if strings.HasSuffix(op.Path, ".log") && slices.Contains(kinds, op.Kind) {
			return errorfs.ErrInjected
		}
		return nil
	})
	return f
}

// startFaultyServer is startServer over an in-memory disk whose WAL
// operations fail on demand. The store's invariants are not checked at the
// end: a commit that failed may stay visible until restart (see
// internal/engine/failure.go), which the in-memory key counts do not follow.
func startFaultyServer(t *testing.T, fault *diskFault, settings ...string) (*testServer, *faultLog) {
	t.Helper()
	cfg := testConfig(t, settings...)
	logs := &faultLog{t: t}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	eng, err := engine.OpenPebble("", engine.PebbleOptions{
		FS:        errorfs.Wrap(vfs.NewMem(), fault),
		CacheSize: 8 << 20,
		Logger:    log,
	})
	if err != nil {
		t.Fatal(err)
	}
	return serveTest(t, cfg, eng, log, false), logs
}

// failedWrite reports whether err is the error reply of a write the engine
// refused, failing the test on any other error.
func failedWrite(t *testing.T, what string, err error) bool {
	t.Helper()
	if err == nil {
		return false
	}
	var re redis.Error
	if !errors.As(err, &re) || !strings.HasPrefix(err.Error(), "MISCONF Errors writing to the AOF file: ") || !strings.Contains(err.Error(), "engine failed") {
		t.Fatalf("%s: %v, want Redis's -MISCONF reply naming the engine failure", what, err)
	}
	return true
}

func TestWritesFailWithErrorRepliesWhenTheDiskFails(t *testing.T) {
	syncs := []errorfs.OpKind{errorfs.OpFileSync, errorfs.OpFileSyncData, errorfs.OpFileSyncTo}
	for _, tc := range []struct {
		fsync string
		name  string
		kinds []errorfs.OpKind
	}{
		{"always", "WAL write fails", []errorfs.OpKind{errorfs.OpFileWrite}},
		{"always", "WAL fsync fails", syncs},
		{"everysec", "WAL write fails", []errorfs.OpKind{errorfs.OpFileWrite}},
		{"everysec", "WAL fsync fails", syncs},
		{"no", "WAL write fails", []errorfs.OpKind{errorfs.OpFileWrite}},
	} {
		for _, proto := range []int{2, 3} {
			t.Run(fmt.Sprintf("appendfsync %s/%s/RESP%d", tc.fsync, tc.name, proto), func(t *testing.T) {
				fault := newDiskFault(tc.kinds...)
				ts, logs := startFaultyServer(t, fault, "appendfsync", tc.fsync)
				c := ts.client(t, proto)
				ctx := context.Background()
				if err := c.Set(ctx, "before", "1", 0).Err(); err != nil {
					t.Fatal(err)
				}
				if err := c.Incr(ctx, "counter").Err(); err != nil {
					t.Fatal(err)
				}
				fault.On()

				// Under appendfsync always the first write after the disk
				// failed is refused; under everysec and no, writes already
				// handed to the log may be acknowledged until the failure
				// is seen (as Redis acknowledges before its next fsync),
				// but not for long.
				refused := -1
				deadline := time.Now().Add(3 * time.Second)
				for i := 0; refused < 0; i++ {
					err := c.Set(ctx, fmt.Sprint("k", i), strings.Repeat("v", 512), 0).Err()
					if failedWrite(t, "SET", err) {
						refused = i
						break
					}
					if tc.fsync == "always" {
						t.Fatalf("SET %d acknowledged under appendfsync always while the WAL fails", i)
					}
					if time.Now().After(deadline) {
						t.Fatalf("%d writes acknowledged over 3s while the WAL fails", i)
					}
					time.Sleep(time.Millisecond)
				}
				t.Logf("first refused write: %d", refused)

				// From then on every write is refused, whatever the command.
				writes := [][]any{
					{"SET", "before", "2"},
					{"SET", "fresh", "x"},
					{"INCR", "counter"},
					{"DEL", "before"},
					{"APPEND", "before", "x"},
					{"MSET", "a", "1", "b", "2"},
					{"EXPIRE", "before", "100"},
					{"SETNX", "fresh2", "x"},
					{"GETDEL", "before"},
					{"FLUSHDB"},
				}
				for _, w := range writes {
					err := c.Do(ctx, w...).Err()
					if !failedWrite(t, fmt.Sprint(w...), err) {
						t.Fatalf("%v acknowledged after the disk failed", w)
					}
				}

				// A pipeline of writes, which share a transaction, gets
				// one reply per command, in order: the writes refused, the
				// unknown command still reported as such.
				pipe := c.Pipeline()
				pipe.Set(ctx, "p1", "x", 0)
				pipe.Incr(ctx, "counter")
				pipe.Do(ctx, "NOSUCHCOMMAND")
				pipe.Set(ctx, "p2", "y", 0)
				cmds, _ := pipe.Exec(ctx)
				for i, cmd := range cmds {
					if i == 2 {
						if err := cmd.Err(); err == nil || !strings.HasPrefix(err.Error(), "ERR unknown command") {
							t.Fatalf("pipelined unknown command: %v", err)
						}
						continue
					}
					if !failedWrite(t, fmt.Sprint(cmd.Args()...), cmd.Err()) {
						t.Fatalf("pipelined %v acknowledged after the disk failed", cmd.Args())
					}
				}

				// Reads keep working, on this connection and new ones, and
				// the refused writes changed nothing.
				for _, cl := range []*redis.Client{c, ts.client(t, proto)} {
					if v, err := cl.Get(ctx, "before").Result(); err != nil || v != "1" {
						t.Fatalf("GET before = %q, %v", v, err)
					}
					if v, err := cl.Get(ctx, "counter").Result(); err != nil || v != "1" {
						t.Fatalf("GET counter = %q, %v", v, err)
					}
					if v, err := cl.MGet(ctx, "before", "counter", "fresh").Result(); err != nil ||
						len(v) != 3 || v[0] != "1" || v[1] != "1" || v[2] != nil {
						t.Fatalf("MGET = %q, %v", v, err)
					}
					if n, err := cl.Exists(ctx, "before", "fresh").Result(); err != nil || n != 1 {
						t.Fatalf("EXISTS = %d, %v", n, err)
					}
				}
				info, err := c.Info(ctx).Result()
				if err != nil {
					t.Fatalf("INFO after the failure: %v", err)
				}
				if !strings.Contains(info, "engine_failed:1") {
					t.Errorf("INFO does not report the failed engine")
				}
				if n := logs.count("storage engine failed"); n != 1 {
					t.Errorf("the engine failure was logged %d times, want once", n)
				}
				if logs.count("command failed") == 0 {
					t.Errorf("no log line for the refused commands")
				}
			})
		}
	}
}

// TestConcurrentClientsAllGetRepliesWhenTheDiskFails: clients writing when
// the disk fails each get a reply (OK before, an error after), none hangs.
func TestConcurrentClientsAllGetRepliesWhenTheDiskFails(t *testing.T) {
	for _, fsync := range []string{"always", "everysec"} {
		t.Run(fsync, func(t *testing.T) {
			fault := newDiskFault(errorfs.OpFileWrite, errorfs.OpFileSync, errorfs.OpFileSyncData, errorfs.OpFileSyncTo)
			ts, _ := startFaultyServer(t, fault, "appendfsync", fsync)
			ctx := context.Background()
			if err := ts.client(t, 2).Set(ctx, "marker", "1", 0).Err(); err != nil {
				t.Fatal(err)
			}
			const clients = 16
			var wg sync.WaitGroup
			start := make(chan struct{})
			for i := range clients {
				c := ts.client(t, 2)
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					for j := 0; ; j++ {
						err := c.Incr(ctx, fmt.Sprint("c", i)).Err()
						if err != nil {
							var re redis.Error
							if !errors.As(err, &re) {
								t.Errorf("client %d: %v, want an error reply", i, err)
							}
							return
						}
					}
				}()
			}
			close(start)
			time.Sleep(20 * time.Millisecond)
			fault.On()
			done := make(chan struct{})
			go func() { wg.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("clients still waiting 5s after the disk failed")
			}
			if v, err := ts.client(t, 3).Get(ctx, "marker").Result(); err != nil || v != "1" {
				t.Fatalf("GET after the disk failed = %q, %v", v, err)
			}
		})
	}
}
