package server

import (
	"bytes"
	"errors"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/redistest"
)

// wireQuiet is how long a server may stay silent before its reply counts
// as complete and the connection as left open.
const wireQuiet = 300 * time.Millisecond

// wireOutcome is everything a server did with one input: the bytes it sent
// and whether it then closed the connection.
type wireOutcome struct {
	reply  []byte
	closed bool
}

// wireExchange writes in on a fresh connection to addr (closing our side
// for writing afterwards when halfClose is set) and reads until the server
// closes or stays quiet for wireQuiet. When later is set it is written
// after a pause, so that the server has read and judged in on its own.
func wireExchange(t *testing.T, addr string, in, later []byte, halfClose bool) wireOutcome {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	// The write runs alongside the reads: a server that stops reading
	// mid-input (a line that is too long) must not block the test.
	wrote := make(chan struct{})
	go func() {
		defer close(wrote)
		_ = nc.SetWriteDeadline(time.Now().Add(10 * time.Second))
		_, err := nc.Write(in)
		if err == nil && later != nil {
			time.Sleep(wireQuiet / 3)
			_, err = nc.Write(later)
		}
		if err == nil && halfClose {
			_ = nc.(*net.TCPConn).CloseWrite()
		}
	}()
	var out wireOutcome
	buf := make([]byte, 64<<10)
	for {
		_ = nc.SetReadDeadline(time.Now().Add(wireQuiet))
		n, err := nc.Read(buf)
		out.reply = append(out.reply, buf[:n]...)
		if err == nil {
			continue
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			break
		}
		// EOF, or a reset from a server that closed with our input unread.
		out.closed = true
		break
	}
	nc.Close()
	<-wrote
	return out
}

func TestDiffWireProtocol(t *testing.T) {
	redis := redistest.Start(t)
	ts := startServer(t)

	longInline := func(n int, tail string) string { return "ECHO " + strings.Repeat("a", n-5) + tail }

	cases := []struct {
		name      string
		in        string
		later     string
		halfClose bool
	}{
		// Malformed multibulk requests.
		{"bulk length not a number", "*1\r\n$abc\r\n", "", false},
		{"count not a number", "*abc\r\n", "", false},
		{"negative count is ignored", "*-1\r\nPING\r\n", "", false},
		{"zero count is ignored", "*0\r\nPING\r\n", "", false},
		{"empty count", "*\r\nPING\r\n", "", false},
		{"bulk instead of array runs inline", "$5\r\nhellx\r\n", "", false},
		{"bulk instead of array then PING", "$4\r\nPING\r\n", "", false},
		{"null bulk argument", "*1\r\n$-1\r\n", "", false},
		{"bulk beyond proto-max-bulk-len", "*1\r\n$536870913\r\n", "", false},
		{"bulk at proto-max-bulk-len waits", "*1\r\n$536870912\r\n", "", false},
		{"count beyond INT_MAX", "*2147483648\r\n", "", false},
		{"count at INT_MAX waits", "*2147483647\r\n", "", false},
		{"count beyond 1024*1024*1024 waits", "*1073741825\r\n", "", false},
		{"missing CRLF after bulk", "*1\r\n$4\r\nPINGxx*1\r\n$4\r\nPING\r\n", "", false},
		{"missing CRLF then more", "*2\r\n$4\r\nECHO\r\n$1\r\nab\r\n", "", false},
		{"expected dollar", "*1\r\n+PING\r\n", "", false},
		{"expected dollar got CR", "*1\r\n\r\n", "", false},
		{"count with plus sign", "*+1\r\n$4\r\nPING\r\n", "", false},
		{"bulk length with leading zero", "*1\r\n$04\r\nPING\r\n", "", false},
		{"count with trailing space", "*1 \r\n$4\r\nPING\r\n", "", false},
		{"LF alone after count", "*1\n$4\r\nPING\r\n", "", false},
		{"truncated then close", "*2\r\n$3\r\nGET\r\n", "", true},
		{"truncated count then close", "*2", "", true},
		{"complete then close", "*1\r\n$4\r\nPING\r\n", "", true},
		{"too big mbulk count string", "*" + strings.Repeat("1", 70000), "", false},
		{"too big bulk count string", "*1\r\n$" + strings.Repeat("1", 70000), "", false},

		// Inline commands.
		{"inline plain", "PING\r\n", "", false},
		{"inline LF only", "PING\n", "", false},
		{"inline double quotes", "ECHO \"hello world\"\r\n", "", false},
		{"inline single quotes", "ECHO 'hello world'\r\n", "", false},
		{"inline escapes", "ECHO \"\\x41\\n\\t\\\"\"\r\n", "", false},
		{"inline single quote escape", "ECHO 'it\\'s \\n'\r\n", "", false},
		{"inline unbalanced double", "ECHO \"abc\r\n", "", false},
		{"inline unbalanced single", "ECHO 'abc\r\n", "", false},
		{"inline closing quote then letter", "ECHO \"abc\"d\r\n", "", false},
		{"inline empty line", "\r\nPING\r\n", "", false},
		{"inline whitespace-only line", "  \t \r\nPING\r\n", "", false},
		{"inline tabs", "ECHO\tx\t\r\n", "", false},
		{"inline empty quoted arg", "ECHO \"\"\r\n", "", false},
		{"inline long line within 64 KiB", longInline(60000, "\r\n"), "", false},
		// Whether Redis takes a line longer than 64 KiB sent in one write
		// depends on how its reads split it (their sizes follow the query
		// buffer's allocation), so the long line's end comes after a pause:
		// by then Redis holds more than 64 KiB without a newline and must
		// refuse it.
		{"inline long line past 64 KiB", longInline(70000, ""), "\r\n", false},
		{"inline no newline past 64 KiB", longInline(70000, ""), "", false},
		{"inline unknown command", "NOSUCH a b\r\n", "", false},
		{"inline CR in middle", "ECHO a\rb\r\n", "", false},

		// Pipelines.
		{"pipeline inline and multibulk", "SET wire:k v\r\n*2\r\n$3\r\nGET\r\n$6\r\nwire:k\r\nPING\r\n*1\r\n$4\r\nPING\r\n", "", false},
		{"protocol error mid-pipeline", "PING\r\n*1\r\n$4\r\nPING\r\n*1\r\n$x\r\nPING\r\n", "", false},
		{"unbalanced quotes mid-pipeline", "SET wire:p 1\r\nINCR wire:p\r\nECHO \"x\r\nINCR wire:p\r\n", "", false},
		{"after mid-pipeline error the write stuck", "GET wire:p\r\n", "", false},
		{"QUIT", "QUIT\r\n", "", false},
		{"QUIT in pipeline", "PING\r\nQUIT\r\nPING\r\n", "", false},
		{"QUIT multibulk", "*1\r\n$4\r\nQUIT\r\n*1\r\n$4\r\nPING\r\n", "", false},
		{"QUIT with args", "QUIT now\r\n", "", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var later []byte
			if tc.later != "" {
				later = []byte(tc.later)
			}
			want := wireExchange(t, redis.Addr(), []byte(tc.in), later, tc.halfClose)
			got := wireExchange(t, ts.addr, []byte(tc.in), later, tc.halfClose)
			if !bytes.Equal(got.reply, want.reply) || got.closed != want.closed {
				t.Errorf("input %.120q\nredis: %.300q closed=%v\ncairn: %.300q closed=%v",
					tc.in, want.reply, want.closed, got.reply, got.closed)
			}
		})
	}
}
