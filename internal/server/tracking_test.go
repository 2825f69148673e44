package server

import (
	"bytes"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/redistest"
)

// pushConn is a raw connection whose test reads everything that arrives
// until the line goes quiet: replies and the pushes between them.
type pushConn struct {
	t  *testing.T
	nc net.Conn
}

func dialPush(t *testing.T, addr string) *pushConn {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return &pushConn{t: t, nc: nc}
}

func (p *pushConn) send(args ...string) {
	p.t.Helper()
	if _, err := p.nc.Write([]byte(wireCmd(args...))); err != nil {
		p.t.Fatal(err)
	}
}

// drain returns what arrived until nothing more came for quiet.
func (p *pushConn) drain(quiet time.Duration) string {
	var out bytes.Buffer
	buf := make([]byte, 64<<10)
	for {
		_ = p.nc.SetReadDeadline(time.Now().Add(quiet))
		n, err := p.nc.Read(buf)
		out.Write(buf[:n])
		if err != nil {
			return out.String()
		}
	}
}

// trackingStep is one command sent on connection a, b or r (a RESP2
// subscriber that receives redirected invalidations); "$a" and "$r" in its
// arguments stand for those connections' ids.
type trackingStep struct {
	on   string
	args []string
}

// runTrackingScript plays steps against the server at addr and returns,
// after each step, what each connection received.
func runTrackingScript(t *testing.T, addr string, steps []trackingStep) []string {
	conns := map[string]*pushConn{"a": dialPush(t, addr), "b": dialPush(t, addr), "r": dialPush(t, addr)}
	ids := map[string]string{}
	for name, c := range conns {
		c.send("CLIENT", "ID")
		reply := c.drain(100 * time.Millisecond)
		id, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(reply, ":")))
		if err != nil {
			t.Fatalf("CLIENT ID = %q", reply)
		}
		ids["$"+name] = strconv.Itoa(id)
	}
	var log []string
	for i, st := range steps {
		args := make([]string, len(st.args))
		for j, a := range st.args {
			if id, ok := ids[a]; ok {
				a = id
			}
			args[j] = a
		}
		conns[st.on].send(args...)
		for _, name := range []string{"a", "b", "r"} {
			got := conns[name].drain(60 * time.Millisecond)
			switch {
			case strings.EqualFold(args[0], "HELLO") && name == st.on:
				// It names the server and its version.
				got = "<hello>"
			case len(args) > 1 && strings.EqualFold(args[0], "CLIENT") && name == st.on:
				// Ids differ between servers; everything else must not.
				for n, id := range ids {
					got = strings.ReplaceAll(got, ":"+id+"\r\n", ":<"+n+">\r\n")
				}
			}
			log = append(log, fmt.Sprintf("step %d %s %q -> %s: %q", i, st.on, st.args, name, got))
		}
	}
	return log
}

// TestTrackingMatchesRedis plays client-side caching scenarios on a real
// Redis and on Cairn and compares every byte each connection receives:
// invalidation pushes in RESP3, redirection to a RESP2 subscriber, BCAST
// with prefixes, OPTIN/OPTOUT with CLIENT CACHING, NOLOOP, flushes, and
// the errors of CLIENT TRACKING.
func TestTrackingMatchesRedis(t *testing.T) {
	scripts := map[string][]trackingStep{
		"default mode": {
			{"a", []string{"HELLO", "3"}},
			{"a", []string{"CLIENT", "TRACKING", "on"}},
			{"a", []string{"GET", "k"}},
			{"b", []string{"SET", "k", "v"}},
			{"b", []string{"SET", "k", "v2"}},
			{"a", []string{"MGET", "k", "k2"}},
			{"a", []string{"SET", "k", "self"}},
			{"a", []string{"HGET", "h", "f"}},
			{"b", []string{"HSET", "h", "f", "1"}},
			{"a", []string{"GET", "x"}},
			{"b", []string{"FLUSHALL"}},
			{"a", []string{"CLIENT", "TRACKINGINFO"}},
			{"a", []string{"CLIENT", "GETREDIR"}},
			{"a", []string{"CLIENT", "TRACKING", "off"}},
			{"a", []string{"GET", "k"}},
			{"b", []string{"SET", "k", "v3"}},
		},
		"noloop and multi": {
			{"a", []string{"HELLO", "3"}},
			{"a", []string{"CLIENT", "TRACKING", "on", "NOLOOP"}},
			{"a", []string{"GET", "k"}},
			{"a", []string{"SET", "k", "1"}},
			{"a", []string{"GET", "k"}},
			{"b", []string{"MULTI"}},
			{"b", []string{"SET", "k", "2"}},
			{"b", []string{"INCR", "k"}},
			{"b", []string{"EXEC"}},
		},
		"redirect to a RESP2 subscriber": {
			{"r", []string{"SUBSCRIBE", "__redis__:invalidate"}},
			{"a", []string{"CLIENT", "TRACKING", "on", "REDIRECT", "$r"}},
			{"a", []string{"GET", "k"}},
			{"b", []string{"SET", "k", "v"}},
			{"a", []string{"CLIENT", "GETREDIR"}},
			{"b", []string{"FLUSHDB"}},
			{"a", []string{"CLIENT", "TRACKING", "on", "REDIRECT", "$a", "REDIRECT", "$r"}},
			{"a", []string{"CLIENT", "TRACKING", "on", "REDIRECT", "999999"}},
		},
		"bcast prefixes": {
			{"a", []string{"HELLO", "3"}},
			{"a", []string{"CLIENT", "TRACKING", "on", "PREFIX", "user:"}},
			{"a", []string{"CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "user:", "PREFIX", "us"}},
			{"a", []string{"CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "user:", "PREFIX", "obj:"}},
			{"a", []string{"CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "user:1"}},
			{"a", []string{"CLIENT", "TRACKING", "on", "OPTIN"}},
			{"a", []string{"CLIENT", "TRACKING", "on", "BCAST", "OPTIN"}},
			{"a", []string{"CLIENT", "TRACKINGINFO"}},
			{"b", []string{"SET", "user:1", "x"}},
			{"b", []string{"SET", "other", "y"}},
			{"b", []string{"DEL", "obj:9"}},
			{"b", []string{"SET", "obj:9", "z"}},
		},
		"optin and optout": {
			{"a", []string{"HELLO", "3"}},
			{"a", []string{"CLIENT", "CACHING", "yes"}},
			{"a", []string{"CLIENT", "TRACKING", "on", "OPTIN", "OPTOUT"}},
			{"a", []string{"CLIENT", "TRACKING", "on", "OPTIN"}},
			{"a", []string{"CLIENT", "CACHING", "no"}},
			{"a", []string{"GET", "k1"}},
			{"a", []string{"CLIENT", "CACHING", "yes"}},
			{"a", []string{"CLIENT", "TRACKINGINFO"}},
			{"a", []string{"GET", "k2"}},
			{"a", []string{"CLIENT", "TRACKINGINFO"}},
			{"b", []string{"MSET", "k1", "1", "k2", "2"}},
			{"a", []string{"CLIENT", "TRACKING", "on", "OPTOUT"}},
			{"a", []string{"CLIENT", "TRACKING", "off"}},
			{"a", []string{"CLIENT", "TRACKING", "on", "OPTOUT"}},
			{"a", []string{"CLIENT", "CACHING", "no"}},
			{"a", []string{"GET", "k3"}},
			{"a", []string{"GET", "k4"}},
			{"b", []string{"MSET", "k3", "1", "k4", "2"}},
		},
	}
	for name, steps := range scripts {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := redistest.Start(t)
			ts := startServer(t)
			want := runTrackingScript(t, r.Addr(), steps)
			got := runTrackingScript(t, ts.addr, steps)
			for i := range want {
				if want[i] != got[i] {
					t.Errorf("Redis: %s\nCairn: %s", want[i], got[i])
				}
			}
		})
	}
}

// TestTrackingTableLimit: past tracking-table-max-keys the oldest reads
// are invalidated and forgotten, so the table stays bounded.
func TestTrackingTableLimit(t *testing.T) {
	ts := startServer(t, "tracking-table-max-keys", "10")
	a := dialPush(t, ts.addr)
	a.send("HELLO", "3")
	a.drain(50 * time.Millisecond)
	a.send("CLIENT", "TRACKING", "on")
	a.drain(50 * time.Millisecond)
	for i := range 50 {
		a.send("GET", "k"+strconv.Itoa(i))
	}
	got := a.drain(200 * time.Millisecond)
	if n := strings.Count(got, "invalidate"); n < 40 {
		t.Fatalf("%d invalidations for 50 keys in a table of 10", n)
	}
	if _, keys, _, _ := ts.srv.trackingStats(); keys > 10 {
		t.Fatalf("table holds %d keys, limit 10", keys)
	}
}
