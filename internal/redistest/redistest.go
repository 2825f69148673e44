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
func Start(t *testing.T) *Conn {
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
		cmd := exec.Command(path, "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
			"--save", "", "--appendonly", "no", "--daemonize", "no", "--dir", t.TempDir())
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
				deadline = time.Time{} // lost the port race; try another
			case <-time.After(20 * time.Millisecond):
			}
		}
		stop()
		if attempt == 2 {
			t.Fatalf("redis-server did not accept connections on port %d", port)
		}
	}
}

// ErrReply is wrapped by the errors Do returns for Redis's error replies.
var ErrReply = errors.New("redis error reply")

// Do sends one command. It returns an error reply as an error wrapping
// ErrReply, an integer as int64, a simple or bulk string as []byte and an
// array as []any.
func (c *Conn) Do(args ...any) (any, error) {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "*%d\r\n", len(args))
	for _, a := range args {
		var b []byte
		switch v := a.(type) {
		case string:
			b = []byte(v)
		case []byte:
			b = v
		default:
			panic(fmt.Sprintf("unsupported argument %T", a))
		}
		fmt.Fprintf(&buf, "$%d\r\n", len(b))
		buf.Write(b)
		buf.WriteString("\r\n")
	}
	c.conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.conn.Write(buf.Bytes()); err != nil {
		return nil, err
	}
	return c.read()
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
