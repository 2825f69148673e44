package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/redistest"
	"github.com/redis/go-redis/v9"
)

// These tests run the real binary as a child process and kill it, the only
// way to check what survives a crash of the whole process.

// lockedBuffer is a child's output, read while the child writes it.
type lockedBuffer = redistest.LockedBuffer

// cairnProc is one run of the binary.
type cairnProc struct {
	cmd  *exec.Cmd
	port int
	out  *lockedBuffer
	done chan struct{}
	err  error // the exit status, once done is closed
}

// built is the binary the tests run, built once (see TestMain).
var built struct {
	once sync.Once
	dir  string
	bin  string
	err  error
}

func buildCairn(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		built.dir, built.err = os.MkdirTemp("", "cairn-bin-")
		if built.err != nil {
			return
		}
		built.bin = filepath.Join(built.dir, "cairn")
		out, err := exec.Command("go", "build", "-o", built.bin, ".").CombinedOutput()
		if err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bin
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		_ = os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// freePort returns a loopback port that was free a moment ago; startCairn
// retries if someone else takes it first.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// startCairn runs bin with args and waits until it accepts connections. With
// pickPort it adds --port with a free port, picking another if it loses the
// race for it; otherwise the port comes from args or the config file and is
// passed as port.
func startCairn(t *testing.T, bin string, pickPort bool, port int, args ...string) *cairnProc {
	t.Helper()
	for attempt := 0; ; attempt++ {
		full := append([]string(nil), args...)
		if pickPort {
			port = freePort(t)
			full = append(full, "--port", strconv.Itoa(port))
		}
		p, raced := tryStart(t, bin, port, full)
		if p != nil {
			return p
		}
		if !raced || !pickPort || attempt == 5 {
			t.Fatalf("cairn %v could not start", full)
		}
	}
}

// tryStart runs bin once. It returns nil and raced if the port was taken.
func tryStart(t *testing.T, bin string, port int, args []string) (p *cairnProc, raced bool) {
	t.Helper()
	p = &cairnProc{cmd: exec.Command(bin, args...), port: port, out: &lockedBuffer{}, done: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		<-p.done
	})
	ready := fmt.Sprintf("addr=127.0.0.1:%d", port)
	deadline := time.After(10 * time.Second)
	for !strings.Contains(p.out.String(), ready) {
		select {
		case <-p.done:
			if strings.Contains(p.out.String(), "address already in use") {
				return nil, true
			}
			t.Fatalf("cairn %v exited before accepting connections: %v\n%s", args, p.err, p.out)
		case <-deadline:
			t.Fatalf("cairn %v not ready after 10s:\n%s", args, p.out)
		case <-time.After(5 * time.Millisecond):
		}
	}
	return p, false
}

func (p *cairnProc) client(t *testing.T) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{
		Addr:        fmt.Sprintf("127.0.0.1:%d", p.port),
		PoolSize:    1,
		MaxRetries:  -1, // a retried write would blur what was acknowledged
		ReadTimeout: 5 * time.Second,
	})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// wait waits for the process to exit and returns its exit code.
func (p *cairnProc) wait(t *testing.T) int {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(15 * time.Second):
		t.Fatalf("cairn did not exit:\n%s", p.out)
	}
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		return ee.ExitCode()
	}
	if p.err != nil {
		t.Fatal(p.err)
	}
	return 0
}

func (p *cairnProc) kill(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	p.wait(t)
}

// minAcked is the fewest acknowledged SETs a crash test checks: fewer
// would prove little.
const minAcked = 50

// ackLog is what the writers were told succeeded.
type ackLog struct {
	mu   sync.Mutex
	sets map[string]string // key → value of every acknowledged SET
	incr map[string]int64  // counter → last acknowledged INCR reply
	sent int               // writes sent, acknowledged or not
}

// writeUntil runs writers concurrent clients, each alternating SET of a
// fresh key and INCR of its own counter, until stop is closed or its
// connection fails (the server was killed). It returns once all stopped.
// Each writer makes enough rounds before it heeds stop for verify to have
// something to check on a slow machine.
func writeUntil(t *testing.T, p *cairnProc, writers int, stop <-chan struct{}) *ackLog {
	t.Helper()
	acks := &ackLog{sets: map[string]string{}, incr: map[string]int64{}}
	ctx := context.Background()
	var wg sync.WaitGroup
	for w := range writers {
		c := p.client(t)
		wg.Add(1)
		go func() {
			defer wg.Done()
			counter := fmt.Sprintf("counter:%d", w)
			minRounds := minAcked/writers + 1
			for i := 0; ; i++ {
				if i >= minRounds {
					select {
					case <-stop:
						return
					default:
					}
				}
				key, val := fmt.Sprintf("key:%d:%d", w, i), fmt.Sprintf("value:%d:%d:%s", w, i, strings.Repeat("x", i%64))
				acks.mu.Lock()
				acks.sent += 2
				acks.mu.Unlock()
				if err := c.Set(ctx, key, val, 0).Err(); err != nil {
					return
				}
				acks.mu.Lock()
				acks.sets[key] = val
				acks.mu.Unlock()
				n, err := c.Incr(ctx, counter).Result()
				if err != nil {
					return
				}
				acks.mu.Lock()
				acks.incr[counter] = n
				acks.mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return acks
}

// verify checks that every acknowledged write is in the restarted server:
// each acknowledged SET's value, and each counter at its last acknowledged
// value or one more (the INCR in flight when the process died may have been
// committed without its reply reaching the client).
func (a *ackLog) verify(t *testing.T, c *redis.Client) {
	t.Helper()
	ctx := context.Background()
	if len(a.sets) < minAcked {
		t.Fatalf("only %d writes acknowledged before the kill: the test proves little", len(a.sets))
	}
	keys := make([]string, 0, len(a.sets))
	for k := range a.sets {
		keys = append(keys, k)
	}
	lost := 0
	for start := 0; start < len(keys); start += 500 {
		chunk := keys[start:min(start+500, len(keys))]
		vals, err := c.MGet(ctx, chunk...).Result()
		if err != nil {
			t.Fatal(err)
		}
		for i, k := range chunk {
			if vals[i] != a.sets[k] {
				if lost < 5 {
					t.Errorf("acknowledged SET %s = %q lost after restart: got %v", k, a.sets[k], vals[i])
				}
				lost++
			}
		}
	}
	if lost > 0 {
		t.Fatalf("%d of %d acknowledged SETs lost", lost, len(a.sets))
	}
	t.Logf("%d acknowledged SETs and %d counters found after restart", len(a.sets), len(a.incr))
	for k, want := range a.incr {
		got, err := c.Get(ctx, k).Int64()
		if err != nil || got < want || got > want+1 {
			t.Errorf("counter %s = %d (%v) after restart, last acknowledged INCR returned %d", k, got, err, want)
		}
	}
	n, err := c.DBSize(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	if n < int64(len(a.sets)+len(a.incr)) || n > int64(a.sent) {
		t.Errorf("DBSIZE %d after restart, want between %d acknowledged and %d sent", n, len(a.sets)+len(a.incr), a.sent)
	}
}

func TestProcessDurability(t *testing.T) {
	bin := buildCairn(t)

	t.Run("AcknowledgedWritesSurviveSIGKILLUnderAppendfsyncAlways", func(t *testing.T) {
		dir := t.TempDir()
		p := startCairn(t, bin, true, 0, "--dir", dir, "--appendfsync", "always")
		stop := make(chan struct{}) // never closed: the kill stops the writers
		done := make(chan *ackLog)
		go func() { done <- writeUntil(t, p, 8, stop) }()
		time.Sleep(400 * time.Millisecond)
		p.kill(t)
		acks := <-done

		q := startCairn(t, bin, true, 0, "--dir", dir, "--appendfsync", "always")
		acks.verify(t, q.client(t))
	})

	t.Run("WritesBeforeAPauseSurviveSIGKILLUnderAppendfsyncEverysec", func(t *testing.T) {
		dir := t.TempDir()
		p := startCairn(t, bin, true, 0, "--dir", dir, "--appendfsync", "everysec")
		stop := make(chan struct{})
		time.AfterFunc(300*time.Millisecond, func() { close(stop) })
		acks := writeUntil(t, p, 8, stop)
		// everysec syncs the log once a second: after 1.5 s of quiet,
		// everything written before is on disk.
		time.Sleep(1500 * time.Millisecond)
		p.kill(t)

		q := startCairn(t, bin, true, 0, "--dir", dir)
		acks.verify(t, q.client(t))
	})

	for _, tc := range []struct {
		name string
		stop func(t *testing.T, p *cairnProc)
		log  string // what the log says about why it stops
	}{
		{"SIGTERM", func(t *testing.T, p *cairnProc) { _ = p.cmd.Process.Signal(syscall.SIGTERM) }, "signal=terminated"},
		{"SIGINT", func(t *testing.T, p *cairnProc) { _ = p.cmd.Process.Signal(syscall.SIGINT) }, "signal=interrupt"},
		{"SHUTDOWN", func(t *testing.T, p *cairnProc) { shutdown(t, p) }, "user requested shutdown"},
		{"SHUTDOWN NOSAVE", func(t *testing.T, p *cairnProc) { shutdown(t, p, "NOSAVE") }, "user requested shutdown"},
		{"SHUTDOWN SAVE", func(t *testing.T, p *cairnProc) { shutdown(t, p, "SAVE") }, "user requested shutdown"},
	} {
		t.Run("CleanStopBy"+strings.ReplaceAll(tc.name, " ", ""), func(t *testing.T) {
			// everysec, stopped right after writing: only a clean close
			// syncs the last writes to disk before the process ends.
			dir := t.TempDir()
			p := startCairn(t, bin, true, 0, "--dir", dir, "--appendfsync", "everysec")
			stop := make(chan struct{})
			time.AfterFunc(100*time.Millisecond, func() { close(stop) })
			acks := writeUntil(t, p, 4, stop)
			tc.stop(t, p)
			if code := p.wait(t); code != 0 {
				t.Fatalf("exit code %d after %s, want 0:\n%s", code, tc.name, p.out)
			}
			for _, line := range []string{tc.log, "data synced to disk and storage engine closed", "ready to exit"} {
				if !strings.Contains(p.out.String(), line) {
					t.Errorf("log lacks %q:\n%s", line, p.out)
				}
			}
			q := startCairn(t, bin, true, 0, "--dir", dir)
			acks.verify(t, q.client(t))
		})
	}

	t.Run("ConfigFileSetsPortDirAndAppendfsync", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "data")
		conf := filepath.Join(t.TempDir(), "cairn.conf")
		var p *cairnProc
		for attempt := 0; p == nil; attempt++ {
			port := freePort(t)
			text := fmt.Sprintf("# written by the test\nport %d\ndir %q\nappendfsync always\nbind 127.0.0.1\n", port, dir)
			if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			if p = startFromConfig(t, bin, port, conf); p == nil && attempt == 5 {
				t.Fatal("no free port for the config file")
			}
		}
		c := p.client(t)
		ctx := context.Background()
		for name, want := range map[string]string{"port": strconv.Itoa(p.port), "dir": dir, "appendfsync": "always"} {
			got, err := c.ConfigGet(ctx, name).Result()
			if err != nil || got[name] != want {
				t.Errorf("CONFIG GET %s = %v, %v; want %q from the file", name, got, err, want)
			}
		}
		if err := c.Set(ctx, "from-config", "1", 0).Err(); err != nil {
			t.Fatal(err)
		}
		if m, _ := filepath.Glob(filepath.Join(dir, "MANIFEST-*")); len(m) == 0 {
			t.Errorf("no engine files in the configured dir %s", dir)
		}
		shutdown(t, p)
		if code := p.wait(t); code != 0 {
			t.Fatalf("exit code %d:\n%s", code, p.out)
		}

		// --port after the file wins; dir and appendfsync still come from
		// the file.
		q := startCairn(t, bin, true, 0, conf)
		if q.port == p.port {
			t.Fatal("the command line did not override the file's port")
		}
		c = q.client(t)
		got, err := c.ConfigGet(ctx, "port").Result()
		if err != nil || got["port"] != strconv.Itoa(q.port) {
			t.Errorf("CONFIG GET port = %v, %v; want %d from the command line", got, err, q.port)
		}
		if v, err := c.Get(ctx, "from-config").Result(); err != nil || v != "1" {
			t.Errorf("GET from-config = %q, %v: the restart did not use the file's dir", v, err)
		}
		got, err = c.ConfigGet(ctx, "appendfsync").Result()
		if err != nil || got["appendfsync"] != "always" {
			t.Errorf("CONFIG GET appendfsync = %v, %v", got, err)
		}
	})
}

// startFromConfig starts bin with only a config file, which names port. It
// returns nil, to be retried with another port, if the port was taken.
func startFromConfig(t *testing.T, bin string, port int, conf string) *cairnProc {
	t.Helper()
	p, _ := tryStart(t, bin, port, []string{conf})
	return p
}

func shutdown(t *testing.T, p *cairnProc, args ...string) {
	t.Helper()
	c := p.client(t)
	all := append([]any{"SHUTDOWN"}, toAny(args)...)
	err := c.Do(context.Background(), all...).Err()
	// The server closes the connection instead of replying.
	if err != nil && !isConnClosed(err) {
		t.Fatalf("SHUTDOWN: %v", err)
	}
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

func isConnClosed(err error) bool {
	return errors.Is(err, io.EOF) || strings.Contains(err.Error(), "connection reset")
}

func mustDo(t testing.TB, c *redistest.Conn, args ...any) any {
	t.Helper()
	return c.MustDo(t, args...)
}
