package server

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/redistest"
	"github.com/cairndb/cairn/internal/resp"
)

// hostPort splits a test server's address for MIGRATE's arguments.
func hostPort(t *testing.T, addr string) (string, string) {
	t.Helper()
	h, p, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	return h, p
}

// mustRaw runs a command and returns its raw reply.
func mustRaw(t *testing.T, c *redistest.Conn, args ...string) []byte {
	t.Helper()
	r, err := c.DoRaw(args...)
	if err != nil {
		t.Fatalf("%s: %v", quoteCommand(args), err)
	}
	return r
}

// readsOf is what tc's reads return for key on c, unordered ones in a
// canonical order.
func readsOf(t *testing.T, c *redistest.Conn, tc dumpCase, key string) string {
	t.Helper()
	var out []string
	for _, r := range tc.reads {
		args := make([]string, len(r))
		for i, a := range r {
			args[i] = strings.ReplaceAll(a, "{}", key)
		}
		reply := mustRaw(t, c, args...)
		if tc.unordered {
			reply = canonicalUnordered(reply, tc.pairs)
		}
		out = append(out, string(reply))
	}
	return strings.Join(out, "\n")
}

// TestMigrateEveryTypeBothWays moves a key of every type from Cairn to a
// real Redis, from that Redis to Cairn, and from Cairn to another Cairn,
// each into another database, and checks that the target holds the same
// value with its TTL and that the source no longer has the key (or still
// has it, with COPY).
func TestMigrateEveryTypeBothWays(t *testing.T) {
	r := redistest.Start(t)
	cairn := redistest.Dial(t, startServer(t).addr)
	other := redistest.Dial(t, startServer(t).addr)
	rHost, rPort := hostPort(t, r.Addr())
	cHost, cPort := hostPort(t, cairn.Addr())
	oHost, oPort := hostPort(t, other.Addr())
	type hop struct {
		name     string
		from, to *redistest.Conn
		host     string
		port     string
	}
	hops := []hop{
		{"cairn to redis", cairn, r, rHost, rPort},
		{"redis to cairn", r, cairn, cHost, cPort},
		{"cairn to cairn", cairn, other, oHost, oPort},
	}
	for _, tc := range dumpCases() {
		t.Run(tc.name, func(t *testing.T) {
			// The reference value is built in Redis, in database 0.
			for _, c := range []*redistest.Conn{r, cairn, other} {
				mustRaw(t, c, "SELECT", "0")
				mustRaw(t, c, "FLUSHALL")
			}
			for _, c := range tc.setup {
				mustRaw(t, r, c...)
			}
			want := readsOf(t, r, tc, "k")
			for i, h := range hops {
				key := "m" + strconv.Itoa(i)
				for _, c := range tc.setup {
					args := append([]string{c[0], key}, c[2:]...)
					mustRaw(t, h.from, args...)
				}
				mustRaw(t, h.from, "PEXPIRE", key, "5000000")
				copyOpt := i == 2
				args := []string{"MIGRATE", h.host, h.port, key, "3", "5000"}
				if copyOpt {
					args = append(args, "COPY")
				}
				if got := string(mustRaw(t, h.from, args...)); got != "+OK\r\n" {
					t.Fatalf("%s: %s = %q", h.name, quoteCommand(args), got)
				}
				exists := string(mustRaw(t, h.from, "EXISTS", key))
				if wantExists := map[bool]string{true: ":1\r\n", false: ":0\r\n"}[copyOpt]; exists != wantExists {
					t.Errorf("%s: EXISTS on the source after MIGRATE = %q, want %q", h.name, exists, wantExists)
				}
				mustRaw(t, h.to, "SELECT", "3")
				if got := readsOf(t, h.to, tc, key); got != want {
					t.Errorf("%s: the target holds\n%q\nwant\n%q", h.name, got, want)
				}
				ttl := string(mustRaw(t, h.to, "TTL", key))
				if n, err := strconv.Atoi(strings.Trim(ttl, ":\r\n")); err != nil || n < 4990 || n > 5000 {
					t.Errorf("%s: TTL on the target = %q", h.name, ttl)
				}
				mustRaw(t, h.to, "SELECT", "0")
			}
		})
	}
}

// TestMigrateRepliesLikeRedis runs MIGRATE's options and errors on Redis
// and on Cairn, each migrating to a third server (a Redis that asks for a
// password), and compares the replies and what the sources keep.
func TestMigrateRepliesLikeRedis(t *testing.T) {
	d := newDiffRun(t)
	target := redistest.Start(t)
	mustRaw(t, target, "CONFIG", "SET", "requirepass", "sesame")
	if _, err := target.Do("AUTH", "sesame"); err != nil {
		t.Fatal(err)
	}
	mustRaw(t, target, "ACL", "SETUSER", "mover", "on", ">pw", "~*", "+@all")
	h, p := hostPort(t, target.Addr())
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, closedPort := hostPort(t, closed.Addr().String())
	closed.Close()
	for _, k := range []string{"a", "b", "c", "d"} {
		d.same("SET", k, "v-"+k)
	}
	cases := [][]string{
		{"MIGRATE", h, p, "a", "0", "1000"},
		{"MIGRATE", h, p, "a", "0", "1000", "AUTH"},
		{"MIGRATE", h, p, "a", "0", "1000", "AUTH2", "x"},
		{"MIGRATE", h, p, "a", "0", "1000", "FOO"},
		{"MIGRATE", h, p, "a", "0", "1000", "KEYS", "b"},
		{"MIGRATE", h, p, "a", "x", "1000", "AUTH", "sesame"},
		{"MIGRATE", h, p, "a", "0", "1.5", "AUTH", "sesame"},
		{"MIGRATE", h, p, "nosuchkey", "0", "1000", "AUTH", "sesame"},
		{"MIGRATE", h, p, "", "0", "1000", "AUTH", "sesame", "KEYS", "x", "y"},
		{"MIGRATE", h, p, "a", "0", "1000", "AUTH", "wrong"},
		{"EXISTS", "a"},
		{"MIGRATE", "127.0.0.1", closedPort, "a", "0", "1000"},
		{"MIGRATE", h, p, "a", "0", "1000", "AUTH", "sesame", "COPY"},
		{"EXISTS", "a"},
		{"MIGRATE", h, p, "a", "0", "1000", "AUTH", "sesame", "COPY"},
		{"MIGRATE", h, p, "a", "0", "0", "AUTH", "sesame", "COPY", "REPLACE"},
		{"MIGRATE", h, p, "", "0", "1000", "AUTH2", "mover", "pw", "REPLACE", "KEYS", "a", "nosuchkey", "b"},
		{"EXISTS", "a", "b"},
		{"MIGRATE", h, p, "c", "-1", "1000", "AUTH", "sesame"},
		{"MIGRATE", h, p, "c", "5", "1000", "AUTH", "sesame"},
		{"EXISTS", "c"},
		{"MIGRATE", h, p, "c", "100", "1000", "AUTH", "sesame"},
		{"EXISTS", "c"},
	}
	for _, c := range cases {
		if c[0] != "MIGRATE" {
			d.same(c...)
			continue
		}
		// Both sources move to the same target: it is emptied before
		// each, so that the second finds what the first found.
		mustRaw(t, target, "FLUSHALL")
		r := mustRaw(t, d.redis, c...)
		mustRaw(t, target, "FLUSHALL")
		if got := mustRaw(t, d.cairn, c...); !bytes.Equal(got, r) {
			t.Errorf("%s\nredis-server: %q\nCairn:        %q", quoteCommand(c), r, got)
		}
	}
	for _, c := range [][]string{
		{"COMMAND", "GETKEYS", "MIGRATE", h, p, "a", "0", "1000"},
		{"COMMAND", "GETKEYS", "MIGRATE", h, p, "", "0", "1000", "AUTH", "KEYS", "KEYS", "x", "y"},
		{"COMMAND", "GETKEYS", "MIGRATE", h, p, "", "0", "1000", "AUTH2", "u", "KEYS", "KEYS", "x"},
		{"COMMAND", "GETKEYS", "MIGRATE", h, p, "", "0", "1000", "COPY", "KEYS", "x", "y", "z"},
		{"COMMAND", "GETKEYSANDFLAGS", "MIGRATE", h, p, "", "0", "1000", "KEYS", "x", "y"},
		{"COMMAND", "INFO", "MIGRATE"},
	} {
		d.same(c...)
	}
	// In a transaction, MIGRATE runs at EXEC.
	d.same("SET", "m", "1")
	d.same("MULTI")
	d.same("MIGRATE", h, p, "m", "0", "1000", "AUTH", "sesame")
	d.same("EXISTS", "m")
	mustRaw(t, target, "FLUSHALL")
	r := mustRaw(t, d.redis, "EXEC")
	mustRaw(t, target, "FLUSHALL")
	if got := mustRaw(t, d.cairn, "EXEC"); !bytes.Equal(got, r) {
		t.Errorf("EXEC\nredis-server: %q\nCairn:        %q", r, got)
	}
	d.same("EXISTS", "m")
	// The keys arrive.
	mustRaw(t, target, "FLUSHALL")
	d.same("SET", "e", "v-e")
	if got := string(mustRaw(t, d.cairn, "MIGRATE", h, p, "e", "2", "1000", "AUTH", "sesame")); got != "+OK\r\n" {
		t.Fatalf("MIGRATE = %q", got)
	}
	mustRaw(t, target, "SELECT", "2")
	if got := string(mustRaw(t, target, "GET", "e")); got != "$3\r\nv-e\r\n" {
		t.Fatalf("target GET e = %q", got)
	}
}

// TestMigrateTimeout: a target that never answers makes MIGRATE fail
// after its timeout, as in Redis, and the key stays.
func TestMigrateTimeout(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { _, _ = bufio.NewReader(c).WriteTo(discard{}) }()
		}
	}()
	h, p := hostPort(t, ln.Addr().String())
	d := newDiffRun(t)
	d.same("SET", "k", "v")
	start := time.Now()
	d.same("MIGRATE", h, p, "k", "0", "200")
	if el := time.Since(start); el < 400*time.Millisecond || el > 5*time.Second {
		t.Errorf("two MIGRATEs with a 200 ms timeout took %v", el)
	}
	d.same("GET", "k")
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// fakeTarget accepts one connection, reads a MIGRATE's commands up to
// the end of a RESTORE, calls between, then replies +OK to each command.
func fakeTarget(t *testing.T, commands int, between func()) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		var got []byte
		buf := make([]byte, 4096)
		for !bytes.Contains(got, []byte("RESTORE")) || !bytes.HasSuffix(got, []byte("\r\n")) {
			n, err := c.Read(buf)
			if err != nil {
				return
			}
			got = append(got, buf[:n]...)
		}
		between()
		_, _ = c.Write([]byte(strings.Repeat("+OK\r\n", commands)))
		_, _ = c.Read(buf)
	}()
	return ln.Addr().String()
}

// TestMigrateKeepsAKeyWrittenMeanwhile: Cairn does not lock the keys while
// it waits for the target; a key written before the target replied keeps
// its new value instead of being deleted.
func TestMigrateKeepsAKeyWrittenMeanwhile(t *testing.T) {
	ts := startServer(t)
	c := redistest.Dial(t, ts.addr)
	writer := redistest.Dial(t, ts.addr)
	mustRaw(t, c, "SET", "k", "old")
	mustRaw(t, c, "SET", "same", "v")
	h, p := hostPort(t, fakeTarget(t, 3, func() {
		mustRaw(t, writer, "SET", "k", "new")
	}))
	if got := string(mustRaw(t, c, "MIGRATE", h, p, "", "0", "5000", "KEYS", "k", "same")); got != "+OK\r\n" {
		t.Fatalf("MIGRATE = %q", got)
	}
	if got := string(mustRaw(t, c, "GET", "k")); got != "$3\r\nnew\r\n" {
		t.Errorf("GET k = %q, want the value written during the MIGRATE", got)
	}
	if got := string(mustRaw(t, c, "EXISTS", "same")); got != ":0\r\n" {
		t.Errorf("EXISTS same = %q, want the unchanged key deleted", got)
	}
}

// TestMigrateConnectionCache: MIGRATE reuses its connection to a target,
// and closes it once idle for long enough.
func TestMigrateConnectionCache(t *testing.T) {
	target := redistest.Start(t)
	ts := startServer(t)
	c := redistest.Dial(t, ts.addr)
	h, p := hostPort(t, target.Addr())
	for i := range 3 {
		k := "k" + strconv.Itoa(i)
		mustRaw(t, c, "SET", k, "v")
		if got := string(mustRaw(t, c, "MIGRATE", h, p, k, strconv.Itoa(i), "1000")); got != "+OK\r\n" {
			t.Fatalf("MIGRATE = %q", got)
		}
	}
	info := string(mustRaw(t, target, "INFO", "stats"))
	if !strings.Contains(info, "total_connections_received:2\r\n") {
		t.Errorf("the target saw other than 2 connections (the test's and MIGRATE's):\n%s", info)
	}
	if n := ts.srv.migrates.size(); n != 1 {
		t.Fatalf("%d cached connections, want 1", n)
	}
	mc := &ts.srv.migrates
	mc.mu.Lock()
	for _, conn := range mc.idle {
		conn.lastUse = time.Now().Add(-migrateIdle)
	}
	mc.mu.Unlock()
	mc.sweep()
	if n := mc.size(); n != 0 {
		t.Fatalf("%d cached connections after the idle sweep, want 0", n)
	}
	// A closed cached connection is replaced without an error.
	mustRaw(t, c, "SET", "again", "v")
	if got := string(mustRaw(t, c, "MIGRATE", h, p, "again", "0", "1000")); got != "+OK\r\n" {
		t.Fatalf("MIGRATE after the sweep = %q", got)
	}
	mustRaw(t, target, "CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes")
	mustRaw(t, c, "SET", "after-kill", "v")
	if got := string(mustRaw(t, c, "MIGRATE", h, p, "after-kill", "0", "1000")); got != "+OK\r\n" {
		t.Fatalf("MIGRATE over a connection the target closed = %q", got)
	}
}

// MIGRATE to the server itself moves keys between its databases, and
// refuses the same database (where REPLACE would delete the key it had
// just rewritten).
func TestMigrateToItself(t *testing.T) {
	ts := startServer(t)
	c := redistest.Dial(t, ts.addr)
	h, p := hostPort(t, ts.addr)
	mustRaw(t, c, "SET", "k", "v")
	if got := string(mustRaw(t, c, "MIGRATE", h, p, "k", "0", "1000", "REPLACE")); !strings.HasPrefix(got, "-ERR MIGRATE's target") {
		t.Fatalf("MIGRATE into its own database = %q", got)
	}
	if got := string(mustRaw(t, c, "MIGRATE", "localhost", p, "k", "1", "1000")); got != "+OK\r\n" {
		t.Fatalf("MIGRATE into its own db 1 = %q", got)
	}
	if got := string(mustRaw(t, c, "EXISTS", "k")); got != ":0\r\n" {
		t.Fatalf("EXISTS k in db 0 after the move = %q", got)
	}
	mustRaw(t, c, "SELECT", "1")
	if got := string(mustRaw(t, c, "GET", "k")); got != "$1\r\nv\r\n" {
		t.Fatalf("GET k in db 1 = %q", got)
	}
}

// TestMigrateNotifies: the keys MIGRATE removes send "del" as in Redis,
// and COPY sends nothing.
func TestMigrateNotifies(t *testing.T) {
	d := newDiffRun(t)
	target := redistest.Start(t)
	h, p := hostPort(t, target.Addr())
	d.same("CONFIG", "SET", "notify-keyspace-events", "KEA")
	var got [2][]string
	for i, c := range []*redistest.Conn{d.redis, d.cairn} {
		sub := notifySubscriber(t, c.Addr())
		for _, cmd := range [][]any{
			{"SET", "a", "1"}, {"SET", "b", "2"}, {"SET", "c", "3"},
			{"MIGRATE", h, p, "a", "0", "1000", "COPY"},
			{"MIGRATE", h, p, "", "0", "1000", "REPLACE", "KEYS", "a", "b", "nosuch"},
			{"MIGRATE", h, p, "c", "0", "1000"},
		} {
			if _, err := c.Do(cmd...); err != nil {
				t.Fatalf("%v: %v", cmd, err)
			}
		}
		mustRaw(t, target, "FLUSHALL")
		got[i] = drainEvents(t, c, sub)
	}
	if fmt.Sprint(got[0]) != fmt.Sprint(got[1]) {
		t.Fatalf("notifications differ:\nredis-server: %q\nCairn:        %q", got[0], got[1])
	}
	if !strings.Contains(fmt.Sprint(got[1]), "del") {
		t.Fatalf("no del event: %q", got[1])
	}
}

// Between two Cairns a hash keeps its fields' deadlines (Redis 7.4's
// payload, which Redis 7.0 would refuse).
func TestMigrateHashFieldTTLBetweenCairns(t *testing.T) {
	src := redistest.Dial(t, startServer(t).addr)
	dst := redistest.Dial(t, startServer(t).addr)
	h, p := hostPort(t, dst.Addr())
	mustRaw(t, src, "HSET", "h", "a", "1", "b", "2")
	mustRaw(t, src, "HEXPIRE", "h", "5000", "FIELDS", "1", "a")
	if got := string(mustRaw(t, src, "MIGRATE", h, p, "h", "0", "1000")); got != "+OK\r\n" {
		t.Fatalf("MIGRATE = %q", got)
	}
	if got := string(mustRaw(t, dst, "HTTL", "h", "FIELDS", "2", "a", "b")); got != "*2\r\n:5000\r\n:-1\r\n" && got != "*2\r\n:4999\r\n:-1\r\n" {
		t.Fatalf("HTTL on the target = %q", got)
	}
	if got := string(mustRaw(t, src, "EXISTS", "h")); got != ":0\r\n" {
		t.Fatalf("EXISTS on the source = %q", got)
	}
}

// FuzzMigrateReplies feeds arbitrary bytes to MIGRATE as the target's
// replies: it never panics, acknowledges at most the keys it sent, and
// either succeeds or names an error.
func FuzzMigrateReplies(f *testing.F) {
	for _, seed := range []string{
		"+OK\r\n+OK\r\n+OK\r\n",
		"-NOAUTH Authentication required.\r\n-ERR x\r\n-ERR y\r\n",
		"+OK\r\n-BUSYKEY Target key name already exists.\r\n+OK\r\n",
		"+OK\r\n" + strings.Repeat("x", 5000) + "\r\n",
		"\r\n\r\n",
		"+OK",
	} {
		f.Add([]byte(seed), true)
		f.Add([]byte(seed), false)
	}
	f.Fuzz(func(t *testing.T, replies []byte, auth bool) {
		local, remote := net.Pipe()
		defer local.Close()
		go func() {
			defer remote.Close()
			go func() { _, _ = bufio.NewReader(remote).WriteTo(discard{}) }()
			_, _ = remote.Write(replies)
		}()
		c := &migrateConn{conn: local, r: bufio.NewReaderSize(local, 4096), lastDB: -1}
		a := migrateArgs{db: 0, timeout: 200 * time.Millisecond, auth: auth, pass: []byte("pw")}
		items := []migrateItem{{key: []byte("a")}, {key: []byte("b")}}
		restores := resp.AppendCommand(nil, []byte("RESTORE"), []byte("a"), []byte("0"), []byte("x"))
		restores = resp.AppendCommand(restores, []byte("RESTORE"), []byte("b"), []byte("0"), []byte("y"))
		acked, errMsg, _, _ := c.exchange(a, items, restores, false)
		if len(acked) > len(items) {
			t.Fatalf("%d keys acknowledged of %d", len(acked), len(items))
		}
		if len(acked) < len(items) && errMsg == "" {
			t.Fatalf("%d keys acknowledged of %d, and no error", len(acked), len(items))
		}
	})
}

// A value larger than one 64 KiB write, and many keys at once, arrive
// whole.
func TestMigrateLargeValues(t *testing.T) {
	target := redistest.Start(t)
	c := redistest.Dial(t, startServer(t).addr)
	h, p := hostPort(t, target.Addr())
	big := strings.Repeat("0123456789abcdef", 1<<16) // 1 MiB
	mustRaw(t, c, "SET", "big", big)
	args := []string{"MIGRATE", h, p, "", "0", "5000", "KEYS", "big"}
	for i := range 500 {
		k := "k" + strconv.Itoa(i)
		mustRaw(t, c, "RPUSH", k, k, big[:1000])
		args = append(args, k)
	}
	if got := string(mustRaw(t, c, args...)); got != "+OK\r\n" {
		t.Fatalf("MIGRATE = %q", got)
	}
	if got := string(mustRaw(t, target, "GET", "big")); got != "$"+strconv.Itoa(len(big))+"\r\n"+big+"\r\n" {
		t.Fatalf("GET big on the target: %d bytes", len(got))
	}
	if got := string(mustRaw(t, target, "DBSIZE")); got != ":501\r\n" {
		t.Fatalf("DBSIZE on the target = %q", got)
	}
	if got := string(mustRaw(t, c, "DBSIZE")); got != ":0\r\n" {
		t.Fatalf("DBSIZE on the source = %q", got)
	}
}
