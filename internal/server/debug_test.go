package server

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/redistest"
)

const debugRefused = "ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", " +
	"you can run it from a local connection, otherwise you need to set this option in the configuration file, " +
	"and then restart the server."

const moduleRefused = "ERR MODULE command not allowed. If the enable-module-command option is set to \"local\", " +
	"you can run it from a local connection, otherwise you need to set this option in the configuration file, " +
	"and then restart the server."

// errText is the text of an error reply, "" for none.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return strings.TrimPrefix(err.Error(), "redis error reply: ")
}

// DEBUG and MODULE LOAD are refused by default (enable-debug-command and
// enable-module-command no, as in Redis 7), with Redis's text; MODULE LIST
// and MODULE HELP are not protected. Compared with a real redis-server
// where one can run.
func TestDebugAndModuleProtectedByDefault(t *testing.T) {
	ts := startServer(t)
	c := redistest.Dial(t, ts.addr)
	cases := []struct {
		args []any
		want string
	}{
		{[]any{"DEBUG", "DIGEST"}, debugRefused},
		{[]any{"DEBUG", "SLEEP", "0"}, debugRefused},
		{[]any{"MODULE", "LOAD", "/no/such/module.so"}, moduleRefused},
		{[]any{"MODULE", "LOADEX", "/no/such/module.so"}, moduleRefused},
		{[]any{"MODULE", "UNLOAD", "x"}, moduleRefused},
		{[]any{"DEBUG"}, "ERR wrong number of arguments for 'debug' command"},
	}
	var rc *redistest.Conn
	if _, err := exec.LookPath("redis-server"); err == nil {
		rc = redistest.Start(t)
	}
	for _, tc := range cases {
		_, err := c.Do(tc.args...)
		if got := errText(err); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.args, got, tc.want)
		}
		if rc != nil {
			_, rerr := rc.Do(tc.args...)
			if errText(rerr) != errText(err) {
				t.Errorf("%v: Cairn %q, Redis %q", tc.args, errText(err), errText(rerr))
			}
		}
	}
	if v := mustDo(t, c, "MODULE", "LIST"); len(v.([]any)) != 0 {
		t.Errorf("MODULE LIST: %v, want an empty array", v)
	}
	if v := mustDo(t, c, "MODULE", "HELP"); len(v.([]any)) != 11 {
		t.Errorf("MODULE HELP: %d lines, want 11", len(v.([]any)))
	}
}

// With enable-module-command yes, a module to load is refused as Redis
// refuses one that fails to load; none can be unloaded.
func TestModuleLoadRefused(t *testing.T) {
	ts := startServer(t, "enable-module-command", "yes")
	c := redistest.Dial(t, ts.addr)
	for _, tc := range []struct {
		args []any
		want string
	}{
		{[]any{"MODULE", "LOAD", "/no/such/module.so"}, "ERR Error loading the extension. Please check the server logs."},
		{[]any{"MODULE", "LOADEX", "/no/such/module.so", "CONFIG", "a", "b"}, "ERR Error loading the extension. Please check the server logs."},
		{[]any{"MODULE", "UNLOAD", "x"}, "ERR Error unloading module: no such module with that name"},
	} {
		if _, err := c.Do(tc.args...); errText(err) != tc.want {
			t.Errorf("%v: %q, want %q", tc.args, errText(err), tc.want)
		}
	}
}

// enable-debug-command local lets loopback clients run DEBUG, as Redis's
// islocalClient: exactly 127.0.0.1 or ::1, or the unix socket.
func TestDebugLocal(t *testing.T) {
	ts := startServer(t, "enable-debug-command", "local")
	c := redistest.Dial(t, ts.addr)
	if v := mustDo(t, c, "DEBUG", "DIGEST"); string(v.([]byte)) != strings.Repeat("0", 40) {
		t.Errorf("DEBUG DIGEST from loopback: %q", v)
	}
	for _, tc := range []struct {
		addr net.Addr
		want bool
	}{
		{&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)}, true},
		{&net.TCPAddr{IP: net.IPv6loopback}, true},
		{&net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}, false},
		{&net.TCPAddr{IP: net.IPv4(10, 1, 2, 3)}, false},
		{&net.UnixAddr{Name: "/tmp/s", Net: "unix"}, true},
	} {
		if got := isLocal(tc.addr); got != tc.want {
			t.Errorf("isLocal(%v) = %v, want %v", tc.addr, got, tc.want)
		}
	}
}

// DEBUG DIGEST and DIGEST-VALUE give Redis 7.0.15's digests for the same
// data (values computed by redis-server 7.0.15), 40 zeros for nothing, and
// follow every change; RELOAD keeps the data.
func TestDebugDigest(t *testing.T) {
	ts := startServer(t, "enable-debug-command", "yes")
	c := redistest.Dial(t, ts.addr)
	zeros := strings.Repeat("0", 40)
	if v := mustDo(t, c, "DEBUG", "DIGEST"); string(v.([]byte)) != zeros {
		t.Errorf("empty DEBUG DIGEST: %q", v)
	}
	mustDo(t, c, "RPUSH", "l", "a", "b", "c")
	mustDo(t, c, "SADD", "s", "x", "y", "z")
	mustDo(t, c, "ZADD", "z", "1", "a", "2.5", "b", "0.1", "c")
	mustDo(t, c, "HSET", "h", "f", "1", "g", "hello")
	mustDo(t, c, "XADD", "x", "1-1", "f", "v")
	mustDo(t, c, "XADD", "x", "2-0", "a", "b", "c", "d")
	mustDo(t, c, "SET", "e", "v", "PX", "100000")
	got := mustDo(t, c, "DEBUG", "DIGEST-VALUE", "l", "s", "z", "h", "x", "e", "nokey").([]any)
	want := []string{"8bf72d812571eea9b927f3c11beb0c4165a6ff89", "0fd9977d57e46b1b9b87439f5ac5b338416ccc24",
		"ac3f88f74ce0703ae2c86046b8b8e8180f672692", "1fd8276123c99aa11e79329c4ab80b55d47f84f3",
		"d127ad1a764bddf9f56363e13b514ba7995a1775", "311b17018163335616e089f6b951c82c477335ac", zeros}
	for i := range want {
		if string(got[i].([]byte)) != want[i] {
			t.Errorf("DIGEST-VALUE %d: %s, want %s", i, got[i], want[i])
		}
	}
	const all = "f3a4911d688d3985acbcecedfcde52036772b3a4"
	if v := mustDo(t, c, "DEBUG", "DIGEST"); string(v.([]byte)) != all {
		t.Errorf("DEBUG DIGEST: %s, want Redis's %s", v, all)
	}
	if v := mustDo(t, c, "DEBUG", "RELOAD"); string(v.([]byte)) != "OK" {
		t.Errorf("DEBUG RELOAD: %q", v)
	}
	if v := mustDo(t, c, "DEBUG", "DIGEST"); string(v.([]byte)) != all {
		t.Errorf("DEBUG DIGEST after RELOAD: %s, want %s", v, all)
	}
	if _, err := c.Do("DEBUG", "RELOAD", "FOO"); errText(err) != "ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options." {
		t.Errorf("DEBUG RELOAD FOO: %v", err)
	}
	mustDo(t, c, "LPUSH", "l", "0")
	if v := mustDo(t, c, "DEBUG", "DIGEST"); string(v.([]byte)) == all {
		t.Error("DEBUG DIGEST did not change with the data")
	}
	// The same data in another database digests differently.
	mustDo(t, c, "FLUSHALL")
	mustDo(t, c, "SET", "a", "1")
	d0 := string(mustDo(t, c, "DEBUG", "DIGEST").([]byte))
	if d0 != "943d800368fb9c0e951138f1bc0e313ac769d91f" {
		t.Errorf("DEBUG DIGEST of a=1: %s", d0)
	}
	mustDo(t, c, "MOVE", "a", "1")
	if d1 := string(mustDo(t, c, "DEBUG", "DIGEST").([]byte)); d1 == d0 || d1 == zeros {
		t.Errorf("DEBUG DIGEST after MOVE to db 1: %s", d1)
	}
}

// The other subcommands: OBJECT's line, ERROR, LOG, CHANGE-REPL-ID, HELP
// and an unknown one.
func TestDebugSubcommands(t *testing.T) {
	ts := startServer(t, "enable-debug-command", "yes")
	c := redistest.Dial(t, ts.addr)
	mustDo(t, c, "SET", "a", "1")
	mustDo(t, c, "RPUSH", "l", "a", "b", "c")
	for key, want := range map[string]string{
		"a": `^Value at:0x[0-9a-f]+ refcount:2147483647 encoding:int serializedlength:2 lru:\d+ lru_seconds_idle:\d+$`,
		"l": `^Value at:0x[0-9a-f]+ refcount:1 encoding:quicklist serializedlength:19 lru:\d+ lru_seconds_idle:\d+$`,
	} {
		v := string(mustDo(t, c, "DEBUG", "OBJECT", key).([]byte))
		if !regexp.MustCompile(want).MatchString(v) {
			t.Errorf("DEBUG OBJECT %s: %q", key, v)
		}
	}
	if _, err := c.Do("DEBUG", "OBJECT", "nokey"); errText(err) != "ERR no such key" {
		t.Errorf("DEBUG OBJECT nokey: %v", err)
	}
	if _, err := c.Do("DEBUG", "ERROR", "MYERR a\nb"); errText(err) != "MYERR a b" {
		t.Errorf("DEBUG ERROR: %v", err)
	}
	if _, err := c.Do("DEBUG", "FOO"); errText(err) != "ERR unknown subcommand or wrong number of arguments for 'FOO'. Try DEBUG HELP." {
		t.Errorf("DEBUG FOO: %v", err)
	}
	if _, err := c.Do("DEBUG", "OBJECT"); errText(err) != "ERR unknown subcommand or wrong number of arguments for 'OBJECT'. Try DEBUG HELP." {
		t.Errorf("DEBUG OBJECT without a key: %v", err)
	}
	mustDo(t, c, "DEBUG", "LOG", "hello")
	if v := mustDo(t, c, "DEBUG", "HELP").([]any); len(v) < 10 {
		t.Errorf("DEBUG HELP: %d lines", len(v))
	}
	before := infoField(t, c, "replication", "master_replid")
	mustDo(t, c, "DEBUG", "CHANGE-REPL-ID")
	if after := infoField(t, c, "replication", "master_replid"); after == before || len(after) != 40 {
		t.Errorf("master_replid after CHANGE-REPL-ID: %q (was %q)", after, before)
	}
}

// DEBUG PROTOCOL answers Redis 7's bytes for every type, in RESP2 and
// RESP3 (captured from redis-server 7.0.15).
func TestDebugProtocol(t *testing.T) {
	ts := startServer(t, "enable-debug-command", "yes")
	want := map[int]map[string]string{
		2: {
			"string": "$11\r\nHello World\r\n", "integer": ":12345\r\n", "double": "$5\r\n3.141\r\n",
			"bignum": "$37\r\n1234567999999999999999999999999999999\r\n", "null": "$-1\r\n",
			"array": "*3\r\n:0\r\n:1\r\n:2\r\n", "set": "*3\r\n:0\r\n:1\r\n:2\r\n",
			"map":    "*6\r\n:0\r\n:0\r\n:1\r\n:1\r\n:2\r\n:0\r\n",
			"attrib": "$39\r\nSome real reply following the attribute\r\n",
			"push":   "-ERR RESP2 is not supported by this command\r\n", "verbatim": "$25\r\nThis is a verbatim\nstring\r\n",
			"true": ":1\r\n", "false": ":0\r\n",
			"foo": "-ERR Wrong protocol type name. Please use one of the following: string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|true|false\r\n",
		},
		3: {
			"string": "$11\r\nHello World\r\n", "integer": ":12345\r\n", "double": ",3.141\r\n",
			"bignum": "(1234567999999999999999999999999999999\r\n", "null": "_\r\n",
			"array": "*3\r\n:0\r\n:1\r\n:2\r\n", "set": "~3\r\n:0\r\n:1\r\n:2\r\n",
			"map":      "%3\r\n:0\r\n#f\r\n:1\r\n#t\r\n:2\r\n#f\r\n",
			"attrib":   "|1\r\n$14\r\nkey-popularity\r\n*2\r\n$7\r\nkey:123\r\n:90\r\n$39\r\nSome real reply following the attribute\r\n",
			"push":     ">2\r\n$16\r\nserver-cpu-usage\r\n:42\r\n$40\r\nSome real reply following the push reply\r\n",
			"verbatim": "=29\r\ntxt:This is a verbatim\nstring\r\n", "true": "#t\r\n", "false": "#f\r\n",
		},
	}
	for proto, replies := range want {
		conn := ts.raw(t)
		if proto == 3 {
			if _, err := conn.Write([]byte("HELLO 3\r\n")); err != nil {
				t.Fatal(err)
			}
			readUntilQuiet(t, conn)
		}
		for typ, w := range replies {
			if _, err := conn.Write([]byte("DEBUG PROTOCOL " + typ + "\r\n")); err != nil {
				t.Fatal(err)
			}
			got := make([]byte, len(w))
			if _, err := io.ReadFull(conn, got); err != nil {
				t.Fatalf("RESP%d %s: %v", proto, typ, err)
			}
			if string(got) != w {
				t.Errorf("RESP%d DEBUG PROTOCOL %s: %q, want %q", proto, typ, got, w)
			}
		}
	}
}

// readUntilQuiet reads whatever a connection sends until it pauses.
func readUntilQuiet(t *testing.T, conn net.Conn) {
	t.Helper()
	buf := make([]byte, 64<<10)
	_ = conn.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	for {
		if _, err := conn.Read(buf); err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
				return
			}
			t.Fatal(err)
		}
	}
}

// DEBUG SLEEP holds every writer until it ends, as Redis stops for it: a
// SET sent while it sleeps is answered only after it.
func TestDebugSleepStopsWriters(t *testing.T) {
	ts := startServer(t, "enable-debug-command", "yes")
	sleeper := redistest.Dial(t, ts.addr)
	writer := redistest.Dial(t, ts.addr)
	const sleep = 300 * time.Millisecond
	slept := make(chan error, 1)
	began := time.Now()
	go func() {
		_, err := sleeper.Do("DEBUG", "SLEEP", strconv.FormatFloat(sleep.Seconds(), 'f', -1, 64))
		slept <- err
	}()
	// Wait until the sleep holds the key's lock (CLIENT LIST shows the
	// command a little before it takes the lock).
	for i := 0; ; i++ {
		tx := ts.st.Begin(nil)
		free := tx.TryLock([][]byte{[]byte("k")})
		tx.Close()
		if !free {
			break
		}
		if i == 1000 {
			t.Fatal("DEBUG SLEEP never held the key's lock")
		}
		time.Sleep(time.Millisecond)
	}
	if _, err := writer.Do("SET", "k", "v"); err != nil {
		t.Fatal(err)
	}
	// The SET cannot be answered before the sleep, which began after
	// began, has ended.
	if took := time.Since(began); took < sleep {
		t.Errorf("SET answered %v after DEBUG SLEEP %v began", took, sleep)
	}
	if err := <-slept; err != nil {
		t.Error(err)
	}
}

// waitCommand waits until some client of c's server runs the command.
func waitCommand(t *testing.T, c *redistest.Conn, cmd string) {
	t.Helper()
	for range 500 {
		list := string(mustDo(t, c, "CLIENT", "LIST").([]byte))
		if strings.Contains(list, "cmd="+cmd+" ") {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("no client runs %s", cmd)
}

// DEBUG SET-ACTIVE-EXPIRE 0 stops the reclaiming of expired keys (reads
// still see them gone); 1 starts it again.
func TestDebugSetActiveExpire(t *testing.T) {
	ts := startServer(t, "enable-debug-command", "yes")
	c := redistest.Dial(t, ts.addr)
	mustDo(t, c, "DEBUG", "SET-ACTIVE-EXPIRE", "0")
	mustDo(t, c, "SET", "k", "v", "PX", "1")
	time.Sleep(200 * time.Millisecond) // twenty reaper rounds in the tests
	if n := infoField(t, c, "stats", "expired_keys"); n != "0" {
		t.Fatalf("expired_keys with active expire off: %s", n)
	}
	mustDo(t, c, "DEBUG", "SET-ACTIVE-EXPIRE", "1")
	for range 500 {
		if infoField(t, c, "stats", "expired_keys") == "1" {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Error("the key was not reclaimed after SET-ACTIVE-EXPIRE 1")
}

// LOLWUT shows the version line alone for Redis 7 (as Redis 7 does), and
// art ending with the version line for versions 5 and 6.
func TestLolwut(t *testing.T) {
	ts := startServer(t)
	c := redistest.Dial(t, ts.addr)
	if v := string(mustDo(t, c, "LOLWUT").([]byte)); v != "Redis ver. "+RedisVersion+"\n" {
		t.Errorf("LOLWUT: %q", v)
	}
	if v := string(mustDo(t, c, "LOLWUT", "VERSION", "7").([]byte)); v != "Redis ver. "+RedisVersion+"\n" {
		t.Errorf("LOLWUT VERSION 7: %q", v)
	}
	v5 := string(mustDo(t, c, "LOLWUT", "VERSION", "5", "30", "4", "4").([]byte))
	if !strings.HasSuffix(v5, "\nGeorg Nees - schotter, plotter on paper, 1968. Redis ver. "+RedisVersion+"\n") || !strings.ContainsRune(v5, '⡇') {
		t.Errorf("LOLWUT VERSION 5: %q", v5)
	}
	v6 := string(mustDo(t, c, "LOLWUT", "VERSION", "6", "10", "5").([]byte))
	if !strings.HasSuffix(v6, "Redis ver. "+RedisVersion+"\n") || strings.Count(v6, "\n") != 7 || !strings.Contains(v6, "\x1b[0;30;40m ") {
		t.Errorf("LOLWUT VERSION 6: %q", v6)
	}
	for _, args := range [][]any{{"LOLWUT", "VERSION", "x"}, {"LOLWUT", "VERSION", "5", "x"}} {
		if _, err := c.Do(args...); errText(err) != "ERR value is not an integer or out of range" {
			t.Errorf("%v: %v", args, err)
		}
	}
}

// CLIENT LIST's qbuf counts the command running in its own client's query
// buffer until the pipeline it came in has run, as Redis 7.0 does (26 for
// a lone CLIENT LIST, 66 for it pipelined with a PING and a second one);
// a blocked client shows what it sent after its blocking command.
func TestClientListQbuf(t *testing.T) {
	ts := startServer(t)
	conn := ts.raw(t)
	one := "*2\r\n$6\r\nclient\r\n$4\r\nlist\r\n"
	rd := bufio.NewReader(conn)
	qbufs := func(n int) []string {
		t.Helper()
		var out []string
		for range n {
			b, err := redistest.ReadRaw(rd, nil)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(b, []byte("qbuf=")) {
				for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
					if strings.Contains(line, "cmd=client|list") {
						out = append(out, regexp.MustCompile(`qbuf=\d+`).FindString(line))
					}
				}
			}
		}
		return out
	}
	if _, err := conn.Write([]byte(one)); err != nil {
		t.Fatal(err)
	}
	if got := qbufs(1); len(got) != 1 || got[0] != "qbuf=26" {
		t.Errorf("lone CLIENT LIST: %v, want qbuf=26", got)
	}
	if _, err := conn.Write([]byte(one + "*1\r\n$4\r\nPING\r\n" + one)); err != nil {
		t.Fatal(err)
	}
	if got := qbufs(3); len(got) != 2 || got[0] != "qbuf=66" || got[1] != "qbuf=66" {
		t.Errorf("pipelined CLIENT LISTs: %v, want qbuf=66 twice", got)
	}
	blocked := ts.raw(t)
	if _, err := blocked.Write([]byte("*3\r\n$5\r\nblpop\r\n$2\r\nxx\r\n$1\r\n0\r\n*1\r\n$4\r\nPING\r\n")); err != nil {
		t.Fatal(err)
	}
	c := redistest.Dial(t, ts.addr)
	waitCommand(t, c, "blpop")
	list := string(mustDo(t, c, "CLIENT", "LIST").([]byte))
	for _, line := range strings.Split(list, "\n") {
		if strings.Contains(line, "cmd=blpop") && !strings.Contains(line, " qbuf=14 ") {
			t.Errorf("blocked client: %s, want qbuf=14 (its pipelined PING)", line)
		}
	}
}

// INFO stats shows migrate_cached_sockets: the connections MIGRATE keeps
// open to its targets.
func TestInfoMigrateCachedSockets(t *testing.T) {
	src, dst := startServer(t), startServer(t)
	c := redistest.Dial(t, src.addr)
	if n := infoField(t, c, "stats", "migrate_cached_sockets"); n != "0" {
		t.Fatalf("migrate_cached_sockets at start: %q", n)
	}
	host, port, _ := net.SplitHostPort(dst.addr)
	mustDo(t, c, "SET", "k", "v")
	mustDo(t, c, "MIGRATE", host, port, "k", "0", "5000", "COPY")
	if n := infoField(t, c, "stats", "migrate_cached_sockets"); n != "1" {
		t.Errorf("migrate_cached_sockets after a MIGRATE: %q, want 1", n)
	}
}

// The latency monitor records expire-cycle events: a reaper cycle that
// took latency-monitor-threshold or longer.
func TestLatencyExpireCycle(t *testing.T) {
	ts := startServer(t, "latency-monitor-threshold", "1")
	c := redistest.Dial(t, ts.addr)
	// Enough keys expiring at once that reclaiming them takes a
	// millisecond or more.
	conn := ts.raw(t)
	var req strings.Builder
	const n = 5000
	for i := range n {
		req.WriteString("*5\r\n$3\r\nSET\r\n$" + strconv.Itoa(len("k"+strconv.Itoa(i))) + "\r\nk" + strconv.Itoa(i) + "\r\n$1\r\nv\r\n$2\r\nPX\r\n$2\r\n50\r\n")
	}
	// Written while the replies are read, so neither side's buffers fill.
	wrote := make(chan error, 1)
	go func() {
		_, err := conn.Write([]byte(req.String()))
		wrote <- err
	}()
	rd := bufio.NewReader(conn)
	for range n {
		if _, err := redistest.ReadRaw(rd, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := <-wrote; err != nil {
		t.Fatal(err)
	}
	for range 500 {
		v := mustDo(t, c, "LATENCY", "LATEST").([]any)
		for _, ev := range v {
			if string(ev.([]any)[0].([]byte)) == "expire-cycle" {
				return
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Error("no expire-cycle event in LATENCY LATEST")
}

// COMMAND INFO and COMMAND DOCS of DEBUG, MODULE and LOLWUT are Redis
// 7.0.15's: flags (DEBUG's "protected" hidden, as Redis hides it), ACL
// categories, tips, subcommands and arguments.
func TestDebugModuleLolwutCommandInfoMatchRedis(t *testing.T) {
	rc := redistest.Start(t)
	ts := startServer(t)
	c := redistest.Dial(t, ts.addr)
	for _, name := range []string{"debug", "module", "lolwut"} {
		want, err := rc.DoRaw("COMMAND", "INFO", name)
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.DoRaw("COMMAND", "INFO", name)
		if err != nil {
			t.Fatal(err)
		}
		if string(sortSubcommands(got)) != string(sortSubcommands(want)) {
			t.Errorf("COMMAND INFO %s:\n Cairn %q\n Redis %q", name, got, want)
		}
	}
}

// sortSubcommands puts the lines of a raw reply in order, so that two
// replies listing the same subcommands in different orders compare equal.
func sortSubcommands(raw []byte) []byte {
	lines := strings.Split(string(raw), "\r\n")
	slices.Sort(lines)
	return []byte(strings.Join(lines, "\r\n"))
}
