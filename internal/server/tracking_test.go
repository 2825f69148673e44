package server

import (
	"bytes"
	"fmt"
	"net"
	"regexp"
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
		"bcast one message per prefix": {
			// Redis sends, per prefix, the keys that matched it since
			// its last event loop: sorted, each once, prefixes in order.
			{"a", []string{"HELLO", "3"}},
			{"a", []string{"CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "b", "PREFIX", "a"}},
			{"b", []string{"HELLO", "3"}},
			{"b", []string{"CLIENT", "TRACKING", "on", "BCAST", "NOLOOP", "PREFIX", "ab"}},
			{"r", []string{"SUBSCRIBE", "__redis__:invalidate"}},
			{"a", []string{"CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "c"}},
			{"a", []string{"CLIENT", "TRACKINGINFO"}},
			{"b", []string{"MSET", "b2", "1", "a2", "1", "ab1", "x", "a1", "2", "zz", "3", "a2", "4"}},
			{"b", []string{"MULTI"}},
			{"b", []string{"SET", "a9", "1"}},
			{"b", []string{"SET", "b1", "1"}},
			{"b", []string{"SET", "ab3", "1"}},
			{"b", []string{"SET", "a9", "2"}},
			{"b", []string{"SET", "c", "2"}},
			{"b", []string{"EXEC"}},
			{"a", []string{"MSET", "a7", "1", "b7", "1", "c7", "1"}},
			{"a", []string{"EVAL", "redis.call('set','b8','1'); redis.call('set','a8','1'); return redis.call('del','ab8','zz')", "0"}},
			{"b", []string{"CLIENT", "TRACKING", "off"}},
			{"b", []string{"CLIENT", "TRACKING", "on", "BCAST", "REDIRECT", "$r", "PREFIX", "x", "PREFIX", "y"}},
			{"a", []string{"MSET", "y1", "1", "x1", "1", "x2", "2", "a3", "3"}},
		},
		"default mode one message per key": {
			{"a", []string{"HELLO", "3"}},
			{"a", []string{"CLIENT", "TRACKING", "on"}},
			{"a", []string{"MGET", "k1", "k2", "k3", "k4"}},
			{"b", []string{"MSET", "k3", "1", "k1", "1", "k9", "1", "k2", "2"}},
			{"a", []string{"MGET", "k1", "k2", "k3", "k4"}},
			{"b", []string{"MULTI"}},
			{"b", []string{"SET", "k4", "1"}},
			{"b", []string{"DEL", "k2", "k1"}},
			{"b", []string{"SET", "k4", "2"}},
			{"b", []string{"EXEC"}},
			{"a", []string{"MSET", "k3", "x", "k5", "y"}},
			{"a", []string{"MGET", "k1", "k2"}},
			{"a", []string{"CLIENT", "TRACKING", "on", "REDIRECT", "$r"}},
			{"r", []string{"SUBSCRIBE", "__redis__:invalidate"}},
			{"b", []string{"DEL", "k1", "k2"}},
		},
		"script reads tracked by declared keys": {
			{"a", []string{"HELLO", "3"}},
			{"a", []string{"CLIENT", "TRACKING", "on"}},
			{"a", []string{"EVAL", "return redis.call('get', KEYS[1])", "1", "k1"}},
			{"a", []string{"EVAL", "redis.call('get','u1'); return 1", "1", "k2"}},
			{"a", []string{"EVAL", "return redis.call('get','u2')", "0"}},
			{"a", []string{"EVAL", "return redis.call('set',KEYS[1],'x')", "1", "k3"}},
			{"a", []string{"EVAL_RO", "return redis.call('get','u3')", "2", "k4", "k5"}},
			{"a", []string{"EVAL", "redis.call('set','u5','x'); redis.call('get','u5'); return 1", "1", "k6"}},
			{"a", []string{"EVAL", "return 1", "1", "k7"}},
			{"b", []string{"HSET", "h", "f", "v"}},
			{"a", []string{"EVAL", "return redis.pcall('get', 'h')", "1", "k8"}},
			{"a", []string{"EVAL", "return redis.call('ping')", "1", "k10"}},
			{"a", []string{"EVAL", "#!lua flags=no-writes\nreturn redis.call('get','u6')", "1", "k11"}},
			{"a", []string{"EVAL", "redis.call('get', KEYS[1]); return redis.call('set', KEYS[1], 'y')", "1", "k12"}},
			{"a", []string{"MULTI"}},
			{"a", []string{"EVAL", "return redis.call('exists','u7')", "1", "k13"}},
			{"a", []string{"GET", "u8"}},
			{"a", []string{"EXEC"}},
			{"b", []string{"MSET", "k1", "1", "k2", "1", "k3", "1", "k4", "1", "k5", "1", "k6", "1", "k7", "1", "k8", "1", "k10", "1", "k11", "1", "k12", "1", "k13", "1"}},
			{"b", []string{"MSET", "u1", "1", "u2", "1", "u3", "1", "u5", "1", "u6", "1", "u7", "1", "u8", "1"}},
			{"b", []string{"FUNCTION", "LOAD", "#!lua name=tl\nredis.register_function('rd', function(k, a) return redis.call('get', 'u9') end)\nredis.register_function{function_name='rdro', callback=function(k, a) return redis.call('get', 'u9') end, flags={'no-writes'}}"}},
			{"a", []string{"FCALL", "rd", "1", "f1"}},
			{"a", []string{"FCALL_RO", "rdro", "2", "f2", "f3"}},
			{"a", []string{"CLIENT", "TRACKING", "on", "OPTIN"}},
			{"a", []string{"EVAL", "return redis.call('get', KEYS[1])", "1", "f4"}},
			{"a", []string{"CLIENT", "CACHING", "yes"}},
			{"a", []string{"EVAL", "redis.call('get', 'u9'); return redis.call('get', 'u9')", "2", "f5", "f6"}},
			{"a", []string{"EVAL", "return redis.call('get', KEYS[1])", "1", "f7"}},
			{"b", []string{"MSET", "f1", "1", "f2", "1", "f3", "1", "f4", "1", "f5", "1", "f6", "1", "f7", "1", "u9", "1"}},
			{"b", []string{"FUNCTION", "DELETE", "tl"}},
		},
		"under CLIENT REPLY OFF and SKIP": {
			// Invalidations are pushes: those modes do not silence them.
			{"a", []string{"HELLO", "3"}},
			{"a", []string{"CLIENT", "TRACKING", "on"}},
			{"a", []string{"GET", "k"}},
			{"a", []string{"CLIENT", "REPLY", "OFF"}},
			{"a", []string{"SET", "k", "1"}},
			{"a", []string{"GET", "k2"}},
			{"b", []string{"SET", "k2", "2"}},
			{"a", []string{"GET", "k3"}},
			{"a", []string{"CLIENT", "REPLY", "ON"}},
			{"a", []string{"CLIENT", "REPLY", "SKIP"}},
			{"a", []string{"SET", "k3", "1"}},
			{"a", []string{"GET", "k3"}},
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
	compareTrackingScripts(t, scripts)
}

// compareTrackingScripts runs each named script of steps on a real Redis
// and on Cairn, in parallel subtests, and reports every step whose
// replies and pushes differ.
func compareTrackingScripts(t *testing.T, scripts map[string][]trackingStep) {
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

// TestTrackingTableLimitMatchesRedis checks, on a real Redis and on Cairn
// alike, what tracking-table-max-keys does: CONFIG GET and SET, a table
// over the limit losing random keys with one invalidation per key and
// reader (a RESP3 push, a message to a RESP2 subscriber it redirects to),
// a lowered limit applied without another read, 0 for no limit, and INFO's
// tracking_total_* agreeing with what was sent.
func TestTrackingTableLimitMatchesRedis(t *testing.T) {
	r := redistest.Start(t)
	ts := startServer(t)
	for _, srv := range []struct{ name, addr string }{{"Redis", r.Addr()}, {"Cairn", ts.addr}} {
		t.Run(srv.name, func(t *testing.T) { checkTrackingTableLimit(t, srv.addr) })
	}
}

var (
	pushInvalidation = regexp.MustCompile(`>2\r\n\$10\r\ninvalidate\r\n\*1\r\n\$\d+\r\n(k\d+)\r\n`)
	msgInvalidation  = regexp.MustCompile(`\*3\r\n\$7\r\nmessage\r\n\$20\r\n__redis__:invalidate\r\n\*1\r\n\$\d+\r\n(k\d+)\r\n`)
	infoTracking     = regexp.MustCompile(`tracking_total_(keys|items|prefixes):(\d+)`)
)

func checkTrackingTableLimit(t *testing.T, addr string) {
	quiet := 150 * time.Millisecond
	a, c, r, b := dialPush(t, addr), dialPush(t, addr), dialPush(t, addr), dialPush(t, addr)
	do := func(p *pushConn, args ...string) string {
		t.Helper()
		p.send(args...)
		return p.drain(quiet)
	}
	expect := func(p *pushConn, want string, args ...string) {
		t.Helper()
		if got := do(p, args...); got != want {
			t.Fatalf("%q = %q, want %q", args, got, want)
		}
	}
	info := func() map[string]int {
		t.Helper()
		got := map[string]int{}
		for _, m := range infoTracking.FindAllStringSubmatch(do(b, "INFO", "stats"), -1) {
			got[m[1]], _ = strconv.Atoi(m[2])
		}
		return got
	}
	// invalidated counts the invalidations in out, each of one key, and
	// fails on any other.
	invalidated := func(out string, re *regexp.Regexp, marker string) int {
		t.Helper()
		n := len(re.FindAllString(out, -1))
		if all := strings.Count(out, marker); all != n {
			t.Fatalf("%d invalidations, %d of them of one key: %q", all, n, out)
		}
		return n
	}
	countA := func(out string) int { return invalidated(out, pushInvalidation, "invalidate\r\n") }
	countR := func(out string) int { return invalidated(out, msgInvalidation, "__redis__:invalidate\r\n*") }

	expect(b, "*2\r\n$23\r\ntracking-table-max-keys\r\n$7\r\n1000000\r\n", "CONFIG", "GET", "tracking-table-max-keys")
	expect(b, "-ERR CONFIG SET failed (possibly related to argument 'tracking-table-max-keys') - argument must be between 0 and 9223372036854775807 inclusive\r\n", "CONFIG", "SET", "tracking-table-max-keys", "-1")
	expect(b, "+OK\r\n", "CONFIG", "SET", "tracking-table-max-keys", "3")
	expect(b, "*2\r\n$23\r\ntracking-table-max-keys\r\n$1\r\n3\r\n", "CONFIG", "GET", "tracking-table-max-keys")
	do(a, "HELLO", "3")
	expect(a, "+OK\r\n", "CLIENT", "TRACKING", "on")
	rID := strings.TrimSpace(strings.TrimPrefix(do(r, "CLIENT", "ID"), ":"))
	do(r, "SUBSCRIBE", "__redis__:invalidate")
	expect(c, "+OK\r\n", "CLIENT", "TRACKING", "on", "REDIRECT", rID)

	// Ten reads (a 5 keys, c 5, sharing 2) into a table of 3: each
	// eviction tells each reader of the key, one message per key.
	gotA := countA(do(a, "MGET", "k1", "k2", "k3", "k4", "k5"))
	do(c, "MGET", "k4", "k5", "k6", "k7", "k8")
	do(b, "PING") // Redis evicts before a command (or in its cron)
	gotA += countA(a.drain(quiet))
	gotR := countR(r.drain(quiet))
	in := info()
	if in["keys"] != 3 || in["items"] > 6 || in["prefixes"] != 0 {
		t.Fatalf("INFO tracking after reads over the limit: %v", in)
	}
	if gotA+gotR != 10-in["items"] {
		t.Fatalf("%d invalidations to a, %d to r, %d items left of 10", gotA, gotR, in["items"])
	}

	// A lower limit evicts at once, with no read.
	before := in["items"]
	expect(b, "+OK\r\n", "CONFIG", "SET", "tracking-table-max-keys", "1")
	in = info()
	gotA, gotR = countA(a.drain(quiet)), countR(r.drain(quiet))
	if in["keys"] != 1 || gotA+gotR != before-in["items"] {
		t.Fatalf("limit lowered to 1: INFO %v, %d invalidations to a, %d to r, %d items before", in, gotA, gotR, before)
	}

	// 0 lifts the limit.
	expect(b, "+OK\r\n", "CONFIG", "SET", "tracking-table-max-keys", "0")
	do(a, "MGET", "k11", "k12", "k13", "k14", "k15")
	do(b, "PING")
	if got := countA(a.drain(quiet)); got != 0 {
		t.Fatalf("%d invalidations with no limit", got)
	}
	if in = info(); in["keys"] < 5 {
		t.Fatalf("INFO tracking with no limit: %v", in)
	}
}
