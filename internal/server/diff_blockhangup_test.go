package server

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/redistest"
)

// blockHangupCase is a blocking command, what would serve it, and how to
// see that what was pushed is still there.
type blockHangupCase struct {
	setup       [][]string
	block       []string
	push, check []string
	// kept is check's reply when nobody took what push added.
	kept string
}

var blockHangupCases = []blockHangupCase{
	{block: strings.Fields("BLPOP l 0"), push: strings.Fields("RPUSH l a"), check: strings.Fields("LLEN l"), kept: ":1\r\n"},
	{block: strings.Fields("BRPOP l 0"), push: strings.Fields("RPUSH l a"), check: strings.Fields("LLEN l"), kept: ":1\r\n"},
	{block: strings.Fields("BRPOPLPUSH l d 0"), push: strings.Fields("RPUSH l a"), check: strings.Fields("LLEN l"), kept: ":1\r\n"},
	{block: strings.Fields("BLMOVE l d LEFT RIGHT 0"), push: strings.Fields("RPUSH l a"), check: strings.Fields("LLEN l"), kept: ":1\r\n"},
	{block: strings.Fields("BLMPOP 0 1 l LEFT"), push: strings.Fields("RPUSH l a"), check: strings.Fields("LLEN l"), kept: ":1\r\n"},
	{block: strings.Fields("BZPOPMIN z 0"), push: strings.Fields("ZADD z 1 a"), check: strings.Fields("ZCARD z"), kept: ":1\r\n"},
	{block: strings.Fields("BZPOPMAX z 0"), push: strings.Fields("ZADD z 1 a"), check: strings.Fields("ZCARD z"), kept: ":1\r\n"},
	{block: strings.Fields("BZMPOP 0 1 z MIN"), push: strings.Fields("ZADD z 1 a"), check: strings.Fields("ZCARD z"), kept: ":1\r\n"},
	{setup: cmds("XADD s 1-1 f v"), block: strings.Fields("XREAD BLOCK 0 STREAMS s $"),
		push: strings.Fields("XADD s 5-1 f v"), check: strings.Fields("XLEN s"), kept: ":2\r\n"},
	{setup: streamWithGroup, block: blockGroup,
		push: strings.Fields("XADD s 5-1 f v"), check: strings.Fields("XPENDING s g"), kept: "*4\r\n:0\r\n$-1\r\n$-1\r\n*-1\r\n"},
}

// onCairnAndRedis runs f on a Cairn server and, when it is installed, on
// a redis-server.
func onCairnAndRedis(t *testing.T, f func(t *testing.T, addr string)) {
	t.Run("cairn", func(t *testing.T) { f(t, startServer(t).addr) })
	t.Run("redis", func(t *testing.T) { f(t, redistest.Start(t).Addr()) })
}

// TestBlockedClientThatHangsUpAfterPipeliningIsDropped: a client blocked in
// any blocking command that sends another request and then hangs up is
// dropped at once, as Redis drops it, and what is pushed next stays where
// it was pushed. (It used to stay blocked with its socket in CLOSE-WAIT and
// take the next element: the hang-up probe peeked at the socket and found
// the pipelined request before the end.)
func TestBlockedClientThatHangsUpAfterPipeliningIsDropped(t *testing.T) {
	onCairnAndRedis(t, func(t *testing.T, addr string) {
		for _, tc := range blockHangupCases {
			for _, then := range [][]string{{"PING"}, {"QUIT"}, tc.block} {
				t.Run(tc.block[0]+" then "+then[0], func(t *testing.T) {
					ctl := dialWire(t, addr)
					ctl.do("FLUSHALL")
					for _, c := range tc.setup {
						ctl.do(c...)
					}
					b := dialWire(t, addr)
					b.write(wireCmd(tc.block...))
					waitBlockedClients(ctl, 1)
					// Sent once the client is blocked, so that it reaches
					// the socket after the blocking command was read.
					b.write(wireCmd(then...))
					time.Sleep(10 * time.Millisecond)
					_ = b.nc.Close()
					waitBlockedClients(ctl, 0)
					if got := ctl.do("CLIENT", "LIST"); strings.Contains(got, "flags=b") {
						t.Fatalf("CLIENT LIST still shows a blocked client:\n%s", got)
					}
					if got := ctl.do(tc.push...); strings.HasPrefix(got, "-") {
						t.Fatalf("%v: %q", tc.push, got)
					}
					if got := ctl.do(tc.check...); got != tc.kept {
						t.Fatalf("after %v, %v = %q, want %q: the element went to the client that hung up", tc.push, tc.check, got, tc.kept)
					}
				})
			}
		}
	})
}

// TestBlockedClientRequestsRunAfterTheReply: what a live blocked client
// sends while it waits (here in pieces, one request split between two
// writes) runs after the blocking command has its reply, in order.
func TestBlockedClientRequestsRunAfterTheReply(t *testing.T) {
	onCairnAndRedis(t, func(t *testing.T, addr string) {
		ctl := dialWire(t, addr)
		b := dialWire(t, addr)
		b.write(wireCmd("BLPOP", "l", "0"))
		waitBlockedClients(ctl, 1)
		b.write(wireCmd("PING") + wireCmd("SET", "x", "1"))
		b.write(wireCmd("GET", "x") + "*2\r\n$4\r\nECHO\r\n$2\r\nh")
		time.Sleep(20 * time.Millisecond)
		b.write("i\r\n")
		// Nothing after the blocking command ran while it waited.
		if got := ctl.do("EXISTS", "x"); got != ":0\r\n" {
			t.Fatalf("EXISTS x while the client is blocked = %q", got)
		}
		ctl.do("RPUSH", "l", "a")
		for _, want := range []string{"*2\r\n$1\r\nl\r\n$1\r\na\r\n", "+PONG\r\n", "+OK\r\n", "$1\r\n1\r\n", "$2\r\nhi\r\n"} {
			if got := b.reply(); got != want {
				t.Fatalf("reply %q, want %q", got, want)
			}
		}
		// The connection goes on as before: it blocks again, and times out.
		if got := b.do("BLPOP", "l", "0.01"); got != "*-1\r\n" {
			t.Fatalf("BLPOP again = %q", got)
		}
		if got := b.do("PING"); got != "+PONG\r\n" {
			t.Fatalf("PING = %q", got)
		}
	})
}

// TestBlockedClientQueryBufferLimit: what a blocked client sends counts
// against client-query-buffer-limit, as Redis's query buffer does: a
// client that sends more while blocked is closed and leaves the queue.
func TestBlockedClientQueryBufferLimit(t *testing.T) {
	onCairnAndRedis(t, func(t *testing.T, addr string) {
		ctl := dialWire(t, addr)
		if got := ctl.do("CONFIG", "SET", "client-query-buffer-limit", "1mb"); got != "+OK\r\n" {
			t.Fatalf("CONFIG SET = %q", got)
		}
		b := dialWire(t, addr)
		b.write(wireCmd("BLPOP", "l", "0"))
		waitBlockedClients(ctl, 1)
		// A request larger than the limit, sent whole: the server may
		// close the connection while it is being written.
		big := "*3\r\n$3\r\nSET\r\n$1\r\ny\r\n$3000000\r\n" + strings.Repeat("a", 2<<20)
		_, _ = io.WriteString(b.nc, big)
		waitBlockedClients(ctl, 0)
		_ = b.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
		if n, err := b.r.Read(make([]byte, 1)); err == nil {
			t.Fatalf("the client is still connected (read %d bytes)", n)
		}
		ctl.do("RPUSH", "l", "a")
		if got := ctl.do("LLEN", "l"); got != ":1\r\n" {
			t.Fatalf("LLEN l = %q", got)
		}
	})
}

// TestPausedClientThatHangsUpIsDropped: a client held by CLIENT PAUSE is
// read like a blocked one, so when it hangs up (after pipelining more, or
// not) it is dropped at once and its held write never runs, as in Redis.
func TestPausedClientThatHangsUpIsDropped(t *testing.T) {
	onCairnAndRedis(t, func(t *testing.T, addr string) {
		for _, then := range []string{"", wireCmd("PING")} {
			ctl := dialWire(t, addr)
			ctl.do("FLUSHALL")
			if got := ctl.do("CLIENT", "PAUSE", "10000", "WRITE"); got != "+OK\r\n" {
				t.Fatalf("CLIENT PAUSE = %q", got)
			}
			b := dialWire(t, addr)
			b.write(wireCmd("SET", "k", "v"))
			waitListedBlocked(ctl, 1)
			if then != "" {
				b.write(then)
				time.Sleep(10 * time.Millisecond)
			}
			_ = b.nc.Close()
			waitListedBlocked(ctl, 0)
			ctl.do("CLIENT", "UNPAUSE")
			// A command after the unpause, on a connection of its own,
			// runs after anything the unpause let go.
			if got := dialWire(t, addr).do("EXISTS", "k"); got != ":0\r\n" {
				t.Fatalf("EXISTS k after the unpause = %q: the write of a client that hung up ran", got)
			}
		}
	})
}

// waitListedBlocked waits until CLIENT LIST shows n clients with flag b.
// (Redis's INFO counts paused clients among blocked_clients, Cairn's does
// not; both list them as blocked.)
func waitListedBlocked(rc *wireConn, n int) {
	rc.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := rc.do("CLIENT", "LIST")
		if strings.Count(got, " flags=b ") == n {
			return
		}
		if time.Now().After(deadline) {
			rc.t.Fatalf("CLIENT LIST never showed %d blocked clients:\n%s", n, got)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
