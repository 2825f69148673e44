package server

import (
	"context"
	"log/slog"
	"net"
	"os"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/engine"
	"github.com/cairndb/cairn/internal/store"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/redis/go-redis/v9"
)

// faultyListener fails its first faults Accepts with err, as a listener
// does when the process is out of descriptors.
type faultyListener struct {
	net.Listener
	faults atomic.Int64
	err    error
}

func (l *faultyListener) Accept() (net.Conn, error) {
	if l.faults.Add(-1) >= 0 {
		return nil, l.err
	}
	return l.Listener.Accept()
}

// TestAcceptOutOfDescriptorsKeepsServing: accept failing with EMFILE or
// ENFILE is a shortage that ends when descriptors are freed, not the end of
// the server (it used to return from Serve, which shut the process down).
func TestAcceptOutOfDescriptorsKeepsServing(t *testing.T) {
	for _, errno := range []syscall.Errno{syscall.EMFILE, syscall.ENFILE} {
		t.Run(errno.Error(), func(t *testing.T) {
			eng, err := engine.OpenPebble("", engine.PebbleOptions{FS: vfs.NewMem(), CacheSize: 8 << 20})
			if err != nil {
				t.Fatal(err)
			}
			log := slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelError}))
			st, err := store.Open(eng, store.Options{Databases: 16, Logger: log})
			if err != nil {
				t.Fatal(err)
			}
			defer eng.Close()
			defer st.Close()
			inner, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			ln := &faultyListener{Listener: inner, err: &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", errno)}}
			ln.faults.Store(6)
			srv := New(Options{Config: testConfig(t), Store: st, Logger: log})
			done := make(chan error, 1)
			go func() { done <- srv.Serve(ln) }()
			c := redis.NewClient(&redis.Options{Addr: inner.Addr().String(), PoolSize: 1, ReadTimeout: 10 * time.Second})
			defer c.Close()
			if err := c.Ping(context.Background()).Err(); err != nil {
				t.Fatalf("PING after accept failed with %v: %v", errno, err)
			}
			select {
			case err := <-done:
				t.Fatalf("Serve returned %v", err)
			default:
			}
			if err := srv.Shutdown(context.Background()); err != nil {
				t.Fatal(err)
			}
			if err := <-done; err != ErrServerClosed {
				t.Fatalf("Serve after Shutdown = %v", err)
			}
		})
	}
}
