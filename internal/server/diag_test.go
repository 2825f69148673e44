package server

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/redistest"
)

// slowScript runs for about 20ms, long enough for any threshold below.
const slowScript = "local s=redis.call('TIME') repeat local n=redis.call('TIME') until (n[1]-s[1])*1000000+(n[2]-s[2]) > 20000 return 1"

// TestDiffDiagnosticsReplies compares the deterministic replies of SLOWLOG,
// LATENCY and MONITOR with a real redis-server.
func TestDiffDiagnosticsReplies(t *testing.T) {
	d := newDiffRun(t)
	for _, cmd := range [][]string{
		{"CONFIG", "SET", "slowlog-log-slower-than", "-1"},
		{"SLOWLOG", "RESET"},
		{"SLOWLOG", "LEN"},
		{"SLOWLOG", "GET"},
		{"SLOWLOG", "GET", "-1"},
		{"SLOWLOG", "GET", "-2"},
		{"SLOWLOG", "GET", "abc"},
		{"SLOWLOG", "GET", "1", "2"},
		{"SLOWLOG", "LEN", "x"},
		{"SLOWLOG", "FOO"},
		{"SLOWLOG"},
		{"CONFIG", "SET", "slowlog-log-slower-than", "-2"},
		{"CONFIG", "SET", "slowlog-max-len", "-1"},
		{"CONFIG", "SET", "latency-monitor-threshold", "-1"},
		{"CONFIG", "GET", "slowlog-max-len"},
		{"CONFIG", "GET", "latency-monitor-threshold"},
		{"LATENCY", "LATEST"},
		{"LATENCY", "HISTORY", "command"},
		{"LATENCY", "RESET"},
		{"LATENCY", "RESET", "a", "b"},
		{"LATENCY", "GRAPH", "command"},
		{"LATENCY", "HISTORY"},
		{"LATENCY", "LATEST", "x"},
		{"MONITOR", "x"},
		{"MULTI"}, {"MONITOR"}, {"EXEC"},
	} {
		d.same(cmd...)
	}
	// Redis 7.2 says "Print this help.", 7.0 "Prints this help.".
	for _, cmd := range []string{"SLOWLOG", "LATENCY"} {
		r, c := d.send(cmd, "HELP")
		if r = bytes.Replace(r, []byte("Prints this help."), []byte("Print this help."), 1); !bytes.Equal(r, c) {
			d.mismatch([]string{cmd, "HELP"}, r, c)
		}
	}
}

// TestDiffSlowlogEntries compares what the slow log keeps of commands,
// long ones cut as Redis cuts them, with a real redis-server.
func TestDiffSlowlogEntries(t *testing.T) {
	d := newDiffRun(t)
	long := strings.Repeat("x", 200)
	many := []string{"DEL"}
	for i := range 40 {
		many = append(many, fmt.Sprintf("k%d", i))
	}
	for _, cmd := range [][]string{
		{"CLIENT", "SETNAME", "differ"},
		{"CONFIG", "SET", "slowlog-log-slower-than", "0"},
		{"SLOWLOG", "RESET"},
		{"SET", "k", long},
		many,
		{"AUTH", "secret"},
		{"AUTH", "user", "secret"},
		{"HELLO", "2", "AUTH", "user", "secret"},
		{"CONFIG", "SET", "requirepass", ""},
		{"MULTI"}, {"SET", "a", "1"}, {"EXEC"},
		{"EXEC"},
		{"EVAL", "redis.call('set','a','b') return 1", "0"},
	} {
		d.send(cmd...)
	}
	get := func(c *redistest.Conn) []any {
		r, err := c.Do("SLOWLOG", "GET", "-1")
		if err != nil {
			t.Fatal(err)
		}
		return r.([]any)
	}
	want, got := get(d.redis), get(d.cairn)
	if len(want) != len(got) {
		t.Fatalf("SLOWLOG GET: redis-server has %d entries, Cairn %d:\n%v\n%v", len(want), len(got), want, got)
	}
	for i := range want {
		we, ge := want[i].([]any), got[i].([]any)
		// id, argv and client name; not the time, duration or address.
		for _, f := range []int{0, 3, 5} {
			if fmt.Sprint(we[f]) != fmt.Sprint(ge[f]) {
				t.Errorf("entry %d field %d: redis-server %q, Cairn %q", i, f, we[f], ge[f])
			}
		}
		if ge[4] == nil || !strings.HasPrefix(string(ge[4].([]byte)), "127.0.0.1:") && string(ge[4].([]byte)) != string(we[4].([]byte)) {
			t.Errorf("entry %d: client address %q", i, ge[4])
		}
	}
}

// monitorLines reads n lines from a monitor connection, with the timestamp
// and the client's port replaced so two servers' lines compare.
func monitorLines(t *testing.T, r *bufio.Reader, n int) []string {
	t.Helper()
	ts := regexp.MustCompile(`^\+\d+\.\d{6} \[(\d+) (?:127\.0\.0\.1:\d+|lua)`)
	var out []string
	for range n {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("monitor: %v after %q", err, out)
		}
		if !ts.MatchString(line) {
			t.Errorf("monitor line %q is not in Redis's format", line)
		}
		out = append(out, ts.ReplaceAllStringFunc(line, func(m string) string {
			if strings.HasSuffix(m, "lua") {
				return "+T [" + ts.FindStringSubmatch(m)[1] + " lua"
			}
			return "+T [" + ts.FindStringSubmatch(m)[1] + " ADDR"
		}))
	}
	return out
}

func dialMonitor(t *testing.T, addr string) *bufio.Reader {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	_ = nc.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := nc.Write([]byte("*1\r\n$7\r\nMONITOR\r\n")); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(nc)
	if line, err := r.ReadString('\n'); err != nil || line != "+OK\r\n" {
		t.Fatalf("MONITOR: %q, %v", line, err)
	}
	return r
}

// TestDiffMonitorLines compares the lines monitors get, timestamps and
// ports aside, with a real redis-server's.
func TestDiffMonitorLines(t *testing.T) {
	d := newDiffRun(t)
	mr := dialMonitor(t, d.redis.Addr())
	ts := startServer(t)
	d.cairn = redistest.Dial(t, ts.addr)
	mc := dialMonitor(t, ts.addr)
	cmds := [][]string{
		{"SET", "k", "a b\x01\"\\\n\r\t\xff"},
		{"AUTH", "x"},
		{"AUTH", "a", "b"},
		{"AUTH", "a", "b", "c"},
		{"HELLO", "2", "AUTH", "u", "p", "SETNAME", "n"},
		{"CONFIG", "GET", "maxclients"},
		{"MULTI"}, {"SET", "x", "1"}, {"INCR", "x"}, {"EXEC"},
		{"EVAL", "redis.call('set','y','2') return 1", "0"},
		{"SELECT", "3"},
		{"INCR", "n"},
		{"GET", "k", "extra"},
		{"NOSUCH"},
		{"MULTI"}, {"SET", "x"}, {"EXEC"},
		{"MULTI"}, {"EVAL", "return redis.call('incr','x')", "0"}, {"EXEC"},
		{"BLPOP", "nolist", "0.01"},
		{"PING"},
	}
	for _, c := range cmds {
		d.send(c...)
	}
	want := monitorLines(t, mr, 21)
	got := monitorLines(t, mc, 21)
	if strings.Join(want, "") != strings.Join(got, "") {
		t.Errorf("monitor lines differ:\nredis-server:\n%s\nCairn:\n%s", strings.Join(want, ""), strings.Join(got, ""))
	}
}

// TestMonitorClientRules checks what a client in MONITOR mode may still
// do, as Redis rules it, and that RESET ends the mode.
func TestMonitorClientRules(t *testing.T) {
	ts := startServer(t)
	c := redistest.Dial(t, ts.addr)
	if r, err := c.DoRaw("MONITOR"); err != nil || string(r) != "+OK\r\n" {
		t.Fatalf("MONITOR: %q %v", r, err)
	}
	if r, _ := c.DoRaw("GET", "k"); string(r) != "-ERR Replica can't interact with the keyspace\r\n" {
		t.Errorf("GET from a monitor: %q", r)
	}
	if r, _ := c.DoRaw("RESET"); string(r) != "+RESET\r\n" {
		t.Errorf("RESET: %q", r)
	}
	if r, _ := c.DoRaw("SET", "k", "v"); string(r) != "+OK\r\n" {
		t.Errorf("SET after RESET: %q", r)
	}
	if ts.srv.monitoring() {
		t.Error("a client still monitors after RESET")
	}
}

// TestSlowlogAndLatencyMonitor checks the thresholds, trimming and the
// events a slow command leaves.
func TestSlowlogAndLatencyMonitor(t *testing.T) {
	ts := startServer(t, "slowlog-log-slower-than", "15000", "slowlog-max-len", "2", "latency-monitor-threshold", "15")
	c := redistest.Dial(t, ts.addr)
	do := func(args ...any) any {
		t.Helper()
		r, err := c.Do(args...)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return r
	}
	do("CLIENT", "SETNAME", "slowpoke")
	for range 3 {
		do("SET", "fast", "1")
		do("EVAL", slowScript, "0")
	}
	if n := do("SLOWLOG", "LEN"); n != int64(2) {
		t.Errorf("SLOWLOG LEN = %v, want 2 (trimmed to slowlog-max-len)", n)
	}
	entries := do("SLOWLOG", "GET").([]any)
	e := entries[0].([]any)
	// Under load a plain command may be slow too: only the scripts'
	// entries are certain.
	if fmt.Sprint(e[3]) != fmt.Sprint([]any{[]byte("EVAL"), []byte(slowScript), []byte("0")}) ||
		string(e[5].([]byte)) != "slowpoke" || e[2].(int64) < 20000 {
		t.Errorf("newest entry %q", e)
	}
	latest := do("LATENCY", "LATEST").([]any)
	found := false
	for _, ev := range latest {
		ev := ev.([]any)
		found = found || string(ev[0].([]byte)) == "command" && ev[3].(int64) >= 20
	}
	if !found {
		t.Errorf("LATENCY LATEST = %q", latest)
	}
	if h := do("LATENCY", "HISTORY", "command").([]any); len(h) < 1 {
		t.Errorf("LATENCY HISTORY = %q", h)
	}
	graph := string(do("LATENCY", "GRAPH", "command").([]byte))
	if !strings.HasPrefix(graph, "command - high ") || !strings.Contains(graph, strings.Repeat("-", 80)) {
		t.Errorf("LATENCY GRAPH = %q", graph)
	}
	if doc := string(do("LATENCY", "DOCTOR").([]byte)); !strings.Contains(doc, "command: ") {
		t.Errorf("LATENCY DOCTOR = %q", doc)
	}
	if n := do("LATENCY", "RESET", "command", "nosuch", "command"); n != int64(1) {
		t.Errorf("LATENCY RESET = %v", n)
	}
	do("CONFIG", "SET", "slowlog-log-slower-than", "-1")
	do("SLOWLOG", "RESET")
	do("EVAL", slowScript, "0")
	if n := do("SLOWLOG", "LEN"); n != int64(0) {
		t.Errorf("SLOWLOG LEN with the log off = %v", n)
	}
}

func TestSlowlogSkipsFastCommandsWithoutAllocating(t *testing.T) {
	ts := startServer(t)
	a, b := net.Pipe()
	t.Cleanup(func() { a.Close(); b.Close() })
	c := newClient(ts.srv, a)
	spec := ts.srv.table.Lookup([]byte("get"))
	args := [][]byte{[]byte("get"), []byte("k")}
	if n := testing.AllocsPerRun(100, func() { ts.srv.noteCommand(c, false, spec, args, time.Microsecond) }); n != 0 {
		t.Errorf("noteCommand allocates %v times for a fast command", n)
	}
	if n := testing.AllocsPerRun(100, func() {
		ts.srv.feedMonitors(c, spec, 0, false, args)
		_ = ts.srv.monitorClientError(c, spec)
	}); n != 0 {
		t.Errorf("feeding no monitor allocates %v times", n)
	}
}

// TestDiffMemoryReplies compares MEMORY's deterministic replies with a
// real redis-server.
func TestDiffMemoryReplies(t *testing.T) {
	d := newDiffRun(t)
	for _, cmd := range [][]string{
		{"SET", "k", "v"},
		{"MEMORY", "USAGE", "nokey"},
		{"MEMORY", "USAGE", "k", "SAMPLES", "-1"},
		{"MEMORY", "USAGE", "k", "SAMPLES", "abc"},
		{"MEMORY", "USAGE", "k", "SAMPLES"},
		{"MEMORY", "USAGE", "k", "FOO", "1"},
		{"MEMORY", "USAGE", "nokey", "SAMPLES", "0"},
		{"MEMORY", "USAGE"},
		{"MEMORY", "FOO"},
		{"MEMORY", "PURGE"},
		{"MEMORY", "STATS", "x"},
	} {
		d.same(cmd...)
	}
	r, c := d.send("MEMORY", "HELP")
	if r = bytes.Replace(r, []byte("Prints this help."), []byte("Print this help."), 1); !bytes.Equal(r, c) {
		d.mismatch([]string{"MEMORY", "HELP"}, r, c)
	}
}

// TestMemoryUsage checks that the estimate follows a key's contents, and
// that SAMPLES 0 reads every element.
func TestMemoryUsage(t *testing.T) {
	ts := startServer(t)
	c := redistest.Dial(t, ts.addr)
	do := func(args ...any) any {
		t.Helper()
		r, err := c.Do(args...)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return r
	}
	do("SET", "s", strings.Repeat("x", 1000))
	if n := do("MEMORY", "USAGE", "s").(int64); n < 1000 || n > 1100 {
		t.Errorf("MEMORY USAGE of a 1000-byte string = %d", n)
	}
	for _, typ := range [][]string{{"HSET", "h", "f%d", "%0100d"}, {"ZADD", "z", "%d", "m%0100d"}, {"SADD", "st", "m%0100d"}, {"RPUSH", "l", "%0100d"}} {
		key := typ[1]
		for i := range 200 {
			args := []any{typ[0], key}
			for _, f := range typ[2:] {
				args = append(args, fmt.Sprintf(f, i))
			}
			do(args...)
		}
		exact := do("MEMORY", "USAGE", key, "SAMPLES", "0").(int64)
		est := do("MEMORY", "USAGE", key).(int64)
		if exact < 200*100 || exact > 200*300 {
			t.Errorf("%s: exact MEMORY USAGE of 200 100-byte members = %d", key, exact)
		}
		if est < exact*8/10 || est > exact*12/10 {
			t.Errorf("%s: sampled estimate %d, exact %d", key, est, exact)
		}
	}
	stats := do("MEMORY", "STATS").([]any)
	if len(stats)%2 != 0 || !strings.Contains(fmt.Sprintf("%s", stats), "keys.count") {
		t.Errorf("MEMORY STATS = %q", stats)
	}
}

// TestMonitorOutputLimit checks that a monitor that does not read is cut
// off at its output buffer limit (the normal class, as Redis counts
// monitors) while the clients it watches run on, and that CLIENT LIST
// shows a monitor's O flag.
func TestMonitorOutputLimit(t *testing.T) {
	ts := startServer(t, "client-output-buffer-limit", "normal 65536 0 0")
	mon := redistest.Dial(t, ts.addr)
	if r, err := mon.DoRaw("MONITOR"); err != nil || string(r) != "+OK\r\n" {
		t.Fatalf("MONITOR: %q %v", r, err)
	}
	c := redistest.Dial(t, ts.addr)
	list, err := c.Do("CLIENT", "LIST")
	if err != nil || !regexp.MustCompile(`flags=O `).Match(list.([]byte)) {
		t.Errorf("CLIENT LIST with a monitor: %q %v", list, err)
	}
	value := strings.Repeat("v", 1000)
	deadline := time.Now().Add(10 * time.Second)
	for i := 0; ts.srv.monitoring(); i++ {
		if time.Now().After(deadline) {
			t.Fatalf("the monitor was not cut off after %d commands", i)
		}
		if _, err := c.Do("SET", "k", value); err != nil {
			t.Fatalf("SET %d: %v", i, err)
		}
	}
}

// unrepr decodes appendRepr's quoting, as redis-cli reads it back.
func unrepr(t *testing.T, q []byte) []byte {
	t.Helper()
	if len(q) < 2 || q[0] != '"' || q[len(q)-1] != '"' {
		t.Fatalf("%q is not quoted", q)
	}
	q = q[1 : len(q)-1]
	var out []byte
	for i := 0; i < len(q); i++ {
		if q[i] != '\\' {
			out = append(out, q[i])
			continue
		}
		i++
		switch q[i] {
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'a':
			out = append(out, '\a')
		case 'b':
			out = append(out, '\b')
		case 'x':
			var v byte
			fmt.Sscanf(string(q[i+1:i+3]), "%02x", &v)
			out = append(out, v)
			i += 2
		default:
			out = append(out, q[i])
		}
	}
	return out
}

// FuzzMonitorRepr checks that a monitor line's quoting keeps the line on
// one line of printable bytes and reads back to the argument.
func FuzzMonitorRepr(f *testing.F) {
	for _, s := range []string{"", "plain", "a b", "\x00\xff\"\\\n\r\t\a\b", "(redacted)"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, arg []byte) {
		q := appendRepr(nil, arg)
		for _, c := range q {
			if c < 0x20 || c >= 0x7f {
				t.Fatalf("appendRepr(%q) = %q holds an unprintable byte", arg, q)
			}
		}
		if back := unrepr(t, q); !bytes.Equal(back, arg) {
			t.Fatalf("appendRepr(%q) = %q reads back as %q", arg, q, back)
		}
		line := monitorLine(time.Unix(1339518083, 107412000), 0, "127.0.0.1:60866", [][]byte{[]byte("keys"), arg})
		if want := `+1339518083.107412 [0 127.0.0.1:60866] "keys" ` + string(q) + "\r\n"; string(line) != want {
			t.Fatalf("monitorLine = %q, want %q", line, want)
		}
	})
}
