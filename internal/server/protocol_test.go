package server

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// wireConn is a connection for byte-exact protocol tests: requests go out as
// written and each reply comes back as the exact bytes the server sent.
type wireConn struct {
	t  testing.TB
	nc net.Conn
	r  *bufio.Reader
}

func (ts *testServer) wire(t testing.TB) *wireConn {
	t.Helper()
	nc := ts.raw(t)
	return &wireConn{t: t, nc: nc, r: bufio.NewReader(nc)}
}

// wireProto is wire, switched to RESP3 with HELLO 3 when proto is 3.
func (ts *testServer) wireProto(t testing.TB, proto int) *wireConn {
	t.Helper()
	rc := ts.wire(t)
	if proto == 3 {
		if got := rc.do("HELLO", "3"); !strings.HasPrefix(got, "%7\r\n") {
			t.Fatalf("HELLO 3 = %q", got)
		}
	}
	return rc
}

// wireCmd is a request in the multibulk form clients send.
func wireCmd(args ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	return b.String()
}

func (rc *wireConn) write(s string) {
	rc.t.Helper()
	if _, err := io.WriteString(rc.nc, s); err != nil {
		rc.t.Fatalf("write: %v", err)
	}
}

// do sends one command and returns its reply.
func (rc *wireConn) do(args ...string) string {
	rc.t.Helper()
	rc.write(wireCmd(args...))
	return rc.reply()
}

// reply reads one complete reply, nested aggregates included.
func (rc *wireConn) reply() string {
	rc.t.Helper()
	var b strings.Builder
	if err := readRawReply(rc.r, &b); err != nil {
		rc.t.Fatalf("reading a reply: %v (read so far %q)", err, b.String())
	}
	return b.String()
}

func readRawReply(r *bufio.Reader, b *strings.Builder) error {
	line, err := r.ReadString('\n')
	b.WriteString(line)
	if err != nil {
		return err
	}
	if len(line) < 3 || !strings.HasSuffix(line, "\r\n") {
		return fmt.Errorf("malformed reply line %q", line)
	}
	n, nerr := strconv.Atoi(line[1 : len(line)-2])
	switch line[0] {
	case '+', '-', ':', '_', ',', '#', '(':
		return nil
	case '$', '=', '!':
		if nerr != nil {
			return nerr
		}
		if n < 0 {
			return nil
		}
		buf := make([]byte, n+2)
		_, err := io.ReadFull(r, buf)
		b.Write(buf)
		return err
	case '*', '~', '>', '%':
		if nerr != nil {
			return nerr
		}
		if line[0] == '%' {
			n *= 2
		}
		for range max(n, 0) {
			if err := readRawReply(r, b); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("unknown reply type in %q", line)
}

// expectClosed checks that the server closes the connection with nothing
// more to say.
func (rc *wireConn) expectClosed() {
	rc.t.Helper()
	_ = rc.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	b, err := rc.r.ReadByte()
	if err == nil {
		rest, _ := rc.r.Peek(rc.r.Buffered())
		rc.t.Fatalf("connection still open; it sent %q", string(b)+string(rest))
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		rc.t.Fatal("the server did not close the connection")
	}
}

// expectSilent checks that nothing arrives for a short while and the
// connection stays open.
func (rc *wireConn) expectSilent(d time.Duration) {
	rc.t.Helper()
	_ = rc.nc.SetReadDeadline(time.Now().Add(d))
	b, err := rc.r.ReadByte()
	var ne net.Error
	if err == nil {
		rest, _ := rc.r.Peek(rc.r.Buffered())
		rc.t.Fatalf("unexpected reply %q", string(b)+string(rest))
	} else if !errors.As(err, &ne) || !ne.Timeout() {
		rc.t.Fatalf("connection closed: %v", err)
	}
	_ = rc.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
}

func TestProtocolInlineCommandsAsTelnetSendsThem(t *testing.T) {
	tests := []struct {
		name, send string
		want       []string
	}{
		{"crlf", "PING\r\n", []string{"+PONG\r\n"}},
		{"bare newline", "ping\nping\n", []string{"+PONG\r\n", "+PONG\r\n"}},
		{"arguments", "ECHO hello\r\n", []string{"$5\r\nhello\r\n"}},
		{"extra spaces", "  ECHO    hello   \r\n", []string{"$5\r\nhello\r\n"}},
		{"double quotes", "SET k \"a b\"\r\nGET k\r\n", []string{"+OK\r\n", "$3\r\na b\r\n"}},
		{"single quotes", "ECHO 'a b'\r\n", []string{"$3\r\na b\r\n"}},
		{"escapes in double quotes", "ECHO \"\\x41\\n\\t\"\r\n", []string{"$3\r\nA\n\t\r\n"}},
		{"empty quoted argument", "ECHO \"\"\r\n", []string{"$0\r\n\r\n"}},
		{"empty lines are skipped", "\r\n\r\n\nPING\r\n", []string{"+PONG\r\n"}},
		{"empty multibulk is skipped", "*0\r\n*-1\r\nPING\r\n", []string{"+PONG\r\n"}},
		{"inline and multibulk mixed", "ECHO a\r\n" + wireCmd("ECHO", "b") + "ECHO c\r\n", []string{"$1\r\na\r\n", "$1\r\nb\r\n", "$1\r\nc\r\n"}},
		{"unknown inline command", "FOO a b\r\n", []string{"-ERR unknown command 'FOO', with args beginning with: 'a' 'b' \r\n"}},
		{"arity of an inline command", "GET\r\n", []string{"-ERR wrong number of arguments for 'get' command\r\n"}},
		// Redis skips the two bytes after a bulk's payload unread.
		{"bytes after a bulk are not checked", "*2\r\n$4\r\nECHO\r\n$3\r\nabcXY*1\r\n$4\r\nPING\r\n", []string{"$3\r\nabc\r\n", "+PONG\r\n"}},
	}
	ts := startServer(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rc := ts.wire(t)
			rc.write(tt.send)
			for i, want := range tt.want {
				if got := rc.reply(); got != want {
					t.Fatalf("reply %d = %q, want %q", i, got, want)
				}
			}
			rc.expectSilent(20 * time.Millisecond)
		})
	}
}

func TestProtocolPipelineInOneWriteGetsEveryReplyInOrder(t *testing.T) {
	ts := startServer(t)
	rc := ts.wire(t)
	const n = 3000
	var req strings.Builder
	want := make([]string, 0, n)
	for i := range n {
		key := "pipe:" + strconv.Itoa((i/3)%50)
		switch i % 3 {
		case 0:
			req.WriteString(wireCmd("SET", key, strconv.Itoa(i)))
			want = append(want, "+OK\r\n")
		case 1:
			req.WriteString(wireCmd("GET", key))
			v := strconv.Itoa(i - 1)
			want = append(want, "$"+strconv.Itoa(len(v))+"\r\n"+v+"\r\n")
		case 2:
			req.WriteString("INCR counter\r\n")
			want = append(want, ":"+strconv.Itoa(i/3+1)+"\r\n")
		}
	}
	// Write from another goroutine: the replies to a pipeline this size
	// outgrow the socket buffers, and the server must not wait for them
	// to be read before it reads the rest.
	werr := make(chan error, 1)
	go func() {
		_, err := io.WriteString(rc.nc, req.String())
		werr <- err
	}()
	for i, w := range want {
		if got := rc.reply(); got != w {
			t.Fatalf("reply %d = %q, want %q", i, got, w)
		}
	}
	if err := <-werr; err != nil {
		t.Fatal(err)
	}
	rc.expectSilent(20 * time.Millisecond)
}

func TestProtocolMalformedRequestIsAnsweredAndConnectionClosed(t *testing.T) {
	tests := []struct {
		name, send string
		// before are the replies to the well-formed commands ahead of
		// the malformed one.
		before []string
		want   string
	}{
		{"bad multibulk count", "*x\r\n", nil, "-ERR Protocol error: invalid multibulk length\r\n"},
		{"multibulk count with a sign", "*+1\r\n$4\r\nPING\r\n", nil, "-ERR Protocol error: invalid multibulk length\r\n"},
		{"multibulk count over INT_MAX", "*3000000000\r\n", nil, "-ERR Protocol error: invalid multibulk length\r\n"},
		{"bad bulk length", "*1\r\n$abc\r\n", nil, "-ERR Protocol error: invalid bulk length\r\n"},
		{"negative bulk length", "*2\r\n$4\r\nECHO\r\n$-1\r\n", nil, "-ERR Protocol error: invalid bulk length\r\n"},
		{"bulk length with a space", "*1\r\n$ 4\r\nPING\r\n", nil, "-ERR Protocol error: invalid bulk length\r\n"},
		{"bulk length over proto-max-bulk-len", "*1\r\n$600000000\r\n", nil, "-ERR Protocol error: invalid bulk length\r\n"},
		{"integer instead of bulk", "*1\r\n:4\r\n", nil, "-ERR Protocol error: expected '$', got ':'\r\n"},
		{"array instead of bulk", "*2\r\n$4\r\nECHO\r\n*1\r\n", nil, "-ERR Protocol error: expected '$', got '*'\r\n"},
		{"unbalanced quotes", "PING \"a\r\n", nil, "-ERR Protocol error: unbalanced quotes in request\r\n"},
		{"quote followed by a letter", "\"ping\"x\r\n", nil, "-ERR Protocol error: unbalanced quotes in request\r\n"},
		{"after good commands", "PING\r\n" + wireCmd("ECHO", "a") + "*x\r\n", []string{"+PONG\r\n", "$1\r\na\r\n"}, "-ERR Protocol error: invalid multibulk length\r\n"},
		{"inline line over 64 KiB", strings.Repeat("x", 70000), nil, "-ERR Protocol error: too big inline request\r\n"},
		{"count line over 64 KiB", "*" + strings.Repeat("1", 70000), nil, "-ERR Protocol error: too big mbulk count string\r\n"},
		{"bulk length line over 64 KiB", "*1\r\n$" + strings.Repeat("1", 70000), nil, "-ERR Protocol error: too big bulk count string\r\n"},
	}
	ts := startServer(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rc := ts.wire(t)
			// Commands after the malformed one must not run.
			rc.write(tt.send + "\r\n" + wireCmd("SET", "after:"+tt.name, "1"))
			for i, want := range tt.before {
				if got := rc.reply(); got != want {
					t.Fatalf("reply %d = %q, want %q", i, got, want)
				}
			}
			if got := rc.reply(); got != tt.want {
				t.Fatalf("reply = %q, want %q", got, tt.want)
			}
			rc.expectClosed()
			if got := ts.wire(t).do("EXISTS", "after:"+tt.name); got != ":0\r\n" {
				t.Errorf("a command after the malformed request ran: EXISTS = %q", got)
			}
		})
	}
}

func TestProtocolBulkOverProtoMaxBulkLenIsRefusedBeforeItsBody(t *testing.T) {
	ts := startServer(t)
	admin := ts.wire(t)
	if got := admin.do("CONFIG", "SET", "proto-max-bulk-len", "1mb"); got != "+OK\r\n" {
		t.Fatalf("CONFIG SET = %q", got)
	}
	// The limit itself is accepted.
	rc := ts.wire(t)
	val := strings.Repeat("v", 1<<20)
	if got := rc.do("SET", "k", val); got != "+OK\r\n" {
		t.Fatalf("SET of a 1 MiB value = %q", got)
	}
	if got := rc.do("STRLEN", "k"); got != ":1048576\r\n" {
		t.Fatalf("STRLEN = %q", got)
	}
	// One byte more is refused as soon as the length is read: no body is
	// sent, and the error still arrives.
	rc.write("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1048577\r\n")
	if got := rc.reply(); got != "-ERR Protocol error: invalid bulk length\r\n" {
		t.Fatalf("reply = %q", got)
	}
	rc.expectClosed()
}

// TestProtocolDeclaredHugeBulkIsNotAllocatedUpFront declares bulks just
// under the default 512 MB limit and sends only part of them: the server
// must hold about what arrived, not what was declared.
func TestProtocolDeclaredHugeBulkIsNotAllocatedUpFront(t *testing.T) {
	ts := startServer(t)
	const conns = 4
	const sent = 8 << 20
	chunk := strings.Repeat("x", 1<<20)
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	for range conns {
		rc := ts.wire(t)
		rc.write("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$536870000\r\n")
		// More than the socket buffers hold, so the server has read most
		// of it when the writes return.
		for range sent / len(chunk) {
			rc.write(chunk)
		}
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	// Growing by doubling as bytes arrive allocates in all a few times
	// what was sent; allocating the declared sizes would cost 2 GB.
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 8*conns*sent {
		t.Fatalf("allocated %d MB for %d MB received", grew>>20, conns*sent>>20)
	}
	if got := ts.wire(t).do("PING"); got != "+PONG\r\n" {
		t.Fatalf("PING = %q", got)
	}
}

func TestProtocolUnauthenticatedClientLimits(t *testing.T) {
	tests := []struct {
		name, send, want string
		closed           bool
	}{
		{"more than 10 arguments", "*11\r\n", "-ERR Protocol error: unauthenticated multibulk length\r\n", true},
		{"bulk over 16384 bytes", "*2\r\n$4\r\nAUTH\r\n$16385\r\n", "-ERR Protocol error: unauthenticated bulk length\r\n", true},
		{"10 arguments of 16384 bytes", wireCmd(append([]string{"MSET"}, wireRepeat(strings.Repeat("a", 16384), 9)...)...), "-NOAUTH Authentication required.\r\n", false},
		// Inline requests are bounded by the 64 KiB line limit instead.
		{"inline with many arguments", "MSET " + strings.Repeat("a ", 20) + "\r\n", "-NOAUTH Authentication required.\r\n", false},
	}
	ts := startServer(t, "requirepass", "secret")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rc := ts.wire(t)
			rc.write(tt.send)
			if got := rc.reply(); got != tt.want {
				t.Fatalf("reply = %q, want %q", got, tt.want)
			}
			if tt.closed {
				rc.expectClosed()
			} else if got := rc.do("PING"); got != "-NOAUTH Authentication required.\r\n" {
				t.Fatalf("PING = %q", got)
			}
		})
	}
	t.Run("limits lifted by AUTH", func(t *testing.T) {
		rc := ts.wire(t)
		if got := rc.do("AUTH", "secret"); got != "+OK\r\n" {
			t.Fatalf("AUTH = %q", got)
		}
		big := strings.Repeat("b", 100000)
		args := []string{"MSET"}
		for i := range 6 {
			args = append(args, "big:"+strconv.Itoa(i), big)
		}
		if got := rc.do(args...); got != "+OK\r\n" {
			t.Fatalf("MSET of 6 large values = %.40q", got)
		}
		if got := rc.do("STRLEN", "big:5"); got != ":100000\r\n" {
			t.Fatalf("STRLEN = %q", got)
		}
	})
	t.Run("limits lifted when the password is cleared", func(t *testing.T) {
		rc := ts.wire(t)
		admin := ts.wire(t)
		if got := admin.do("AUTH", "secret"); got != "+OK\r\n" {
			t.Fatalf("AUTH = %q", got)
		}
		if got := admin.do("CONFIG", "SET", "requirepass", ""); got != "+OK\r\n" {
			t.Fatalf("CONFIG SET = %q", got)
		}
		t.Cleanup(func() { admin.do("CONFIG", "SET", "requirepass", "secret") })
		if got := rc.do("ECHO", strings.Repeat("c", 20000)); got != "$20000\r\n"+strings.Repeat("c", 20000)+"\r\n" {
			t.Fatalf("ECHO of 20000 bytes = %.40q", got)
		}
	})
}

// waitUntil polls cond until it holds, failing the test after d.
func waitUntil(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func wireRepeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// TestConnThousandConcurrentClients has 1,000 connections open at once,
// each doing a few round trips.
func TestConnThousandConcurrentClients(t *testing.T) {
	ts := startServer(t)
	const clients = 1000
	conns := make([]*wireConn, clients)
	for i := range conns {
		conns[i] = ts.wire(t)
	}
	waitUntil(t, 5*time.Second, "INFO shows 1000 clients", func() bool {
		return strings.Contains(conns[0].do("INFO", "clients"), "\r\nconnected_clients:1000\r\n")
	})
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for i, rc := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			key, val := "c:"+strconv.Itoa(i), "v"+strconv.Itoa(i)
			steps := [][2]string{
				{wireCmd("SET", key, val), "+OK\r\n"},
				{wireCmd("GET", key), "$" + strconv.Itoa(len(val)) + "\r\n" + val + "\r\n"},
				{wireCmd("APPEND", key, "!"), ":" + strconv.Itoa(len(val)+1) + "\r\n"},
				{wireCmd("INCR", "total"), ""},
			}
			for _, s := range steps {
				if _, err := io.WriteString(rc.nc, s[0]); err != nil {
					errs <- err
					return
				}
				var b strings.Builder
				if err := readRawReply(rc.r, &b); err != nil {
					errs <- fmt.Errorf("client %d: %w", i, err)
					return
				}
				if s[1] != "" && b.String() != s[1] {
					errs <- fmt.Errorf("client %d: %q = %q, want %q", i, s[0], b.String(), s[1])
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := conns[0].do("GET", "total"); got != "$4\r\n1000\r\n" {
		t.Fatalf("GET total = %q, want 1000", got)
	}
	if got := conns[0].do("DBSIZE"); got != ":1001\r\n" {
		t.Fatalf("DBSIZE = %q", got)
	}
}
