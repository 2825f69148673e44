// Package redistest runs a real redis-server for differential tests: the
// tests that check Cairn's parsers and matchers against what Redis itself
// does. It is for tests only; a test skips when redis-server is not
// installed.
package redistest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Conn is the least RESP2 client the differential tests need.
type Conn struct {
	conn net.Conn
	r    *bufio.Reader
}

// Start runs a throwaway redis-server on a free loopback port and connects
// to it, or skips the test when none is installed. The server stops when the
// test ends.
func Start(t testing.TB) *Conn {
	t.Helper()
	return StartOn(t, t.TempDir(), "dump.rdb")
}

// StartOn is Start with the server's --dir and --dbfilename: a file
// already there is what it loads at start.
func StartOn(t testing.TB, dir, dbfilename string) *Conn {
	t.Helper()
	path, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server is not installed; skipping the comparison with real Redis")
	}
	for attempt := 0; ; attempt++ {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		var out LockedBuffer
		cmd := exec.Command(path, "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
			"--save", "", "--appendonly", "no", "--daemonize", "no", "--dir", dir, "--dbfilename", dbfilename)
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatalf("starting redis-server: %v", err)
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		stop := func() {
			cmd.Process.Kill()
			<-exited
		}
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			conn, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
			if err == nil {
				t.Cleanup(func() {
					conn.Close()
					stop()
				})
				return &Conn{conn: conn, r: bufio.NewReader(conn)}
			}
			select {
			case <-exited:
				if !strings.Contains(out.String(), "Address already in use") {
					t.Fatalf("redis-server exited:\n%s", out.String())
				}
				deadline = time.Time{} // lost the port race; try another
			case <-time.After(20 * time.Millisecond):
			}
		}
		stop()
		if attempt == 2 {
			t.Fatalf("redis-server did not accept connections on port %d:\n%s", port, out.String())
		}
	}
}

// LockedBuffer collects a child process's output while it runs, safe to
// read meanwhile.
type LockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *LockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *LockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// MustDo sends a command, each argument but a []byte as its text, and
// fails the test on an error reply or a broken connection.
func (c *Conn) MustDo(t testing.TB, args ...any) any {
	t.Helper()
	for i, a := range args {
		if _, ok := a.([]byte); !ok {
			args[i] = fmt.Sprint(a)
		}
	}
	v, err := c.Do(args...)
	if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return v
}

// Dial connects to a server that speaks RESP (Cairn under test, say) on
// addr; the connection closes when the test ends.
func Dial(t testing.TB, addr string) *Conn {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return &Conn{conn: conn, r: bufio.NewReader(conn)}
}

// ErrReply is wrapped by the errors Do returns for Redis's error replies.
var ErrReply = errors.New("redis error reply")

// Do sends one command. It returns an error reply as an error wrapping
// ErrReply, an integer as int64, a simple or bulk string as []byte and an
// array as []any.
func (c *Conn) Do(args ...any) (any, error) {
	strs := make([]string, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case string:
			strs[i] = v
		case []byte:
			strs[i] = string(v)
		default:
			panic(fmt.Sprintf("unsupported argument %T", a))
		}
	}
	if err := c.send(strs); err != nil {
		return nil, err
	}
	return c.read()
}

// DoRaw sends one command and returns its reply exactly as it came, in
// RESP bytes: tests comparing two servers see every difference, simple
// against bulk strings and null against empty included.
func (c *Conn) DoRaw(args ...string) ([]byte, error) {
	if err := c.send(args); err != nil {
		return nil, err
	}
	return ReadRaw(c.r, nil)
}

func (c *Conn) send(args []string) error {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&buf, "$%d\r\n%s\r\n", len(a), a)
	}
	c.conn.SetDeadline(time.Now().Add(10 * time.Second))
	_, err := c.conn.Write(buf.Bytes())
	return err
}

// ReadRaw reads one whole RESP2 or RESP3 reply, nested ones included, and
// appends its bytes to out.
func ReadRaw(r *bufio.Reader, out []byte) ([]byte, error) {
	line, err := r.ReadBytes('\n')
	if err != nil {
		return out, err
	}
	if len(line) < 3 {
		return out, fmt.Errorf("short reply line %q", line)
	}
	out = append(out, line...)
	n, _ := strconv.Atoi(string(line[1 : len(line)-2]))
	switch line[0] {
	case '$', '=', '!': // blob string, verbatim string, blob error
		if n >= 0 {
			b := make([]byte, n+2)
			if _, err := io.ReadFull(r, b); err != nil {
				return out, err
			}
			out = append(out, b...)
		}
	case '*', '~', '>': // array, set, push
		for range n {
			if out, err = ReadRaw(r, out); err != nil {
				return out, err
			}
		}
	case '%': // map
		for range 2 * n {
			if out, err = ReadRaw(r, out); err != nil {
				return out, err
			}
		}
	case '+', '-', ':', '_', ',', '#', '(':
	default:
		return out, fmt.Errorf("unknown reply type %q", strings.TrimSpace(string(line)))
	}
	return out, nil
}

func (c *Conn) read() (any, error) {
	line, err := c.r.ReadBytes('\n')
	if err != nil {
		return nil, err
	}
	if len(line) < 3 {
		return nil, fmt.Errorf("short reply line %q", line)
	}
	body := string(line[1 : len(line)-2])
	switch line[0] {
	case '+':
		return []byte(body), nil
	case '-':
		return nil, fmt.Errorf("%w: %s", ErrReply, body)
	case ':':
		return strconv.ParseInt(body, 10, 64)
	case '$':
		n, err := strconv.Atoi(body)
		if err != nil || n < 0 {
			return nil, err
		}
		b := make([]byte, n+2)
		if _, err := io.ReadFull(c.r, b); err != nil {
			return nil, err
		}
		return b[:n], nil
	case '*':
		n, err := strconv.Atoi(body)
		if err != nil {
			return nil, err
		}
		out := make([]any, 0, max(n, 0))
		for range n {
			v, err := c.read()
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	}
	return nil, fmt.Errorf("unknown reply type %q", strings.TrimSpace(string(line)))
}

// Addr returns the address of the server c is connected to, for tests that
// open further connections of their own, raw ones included.
func (c *Conn) Addr() string { return c.conn.RemoteAddr().String() }
