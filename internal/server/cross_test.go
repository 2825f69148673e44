package server

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/config"
	"github.com/cairndb/cairn/internal/engine"
	"github.com/cairndb/cairn/internal/rdb"
	"github.com/cairndb/cairn/internal/redistest"
	"github.com/cairndb/cairn/internal/store"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// Tests where features that landed separately meet: ACL with the bit
// commands, fragmented strings with DUMP/MIGRATE/replication, and so on.

// BITFIELD's key is only read when every operation is a GET, as Redis's
// bitfieldGetKeys says: a user with read-only access to the key may run
// it, and COMMAND GETKEYSANDFLAGS reports RO. Compared with a real Redis
// where one is installed.
func TestCrossBitfieldKeyFlags(t *testing.T) {
	ts := startServer(t)
	c := redistest.Dial(t, ts.addr)
	var r *redistest.Conn
	if redisInstalled() {
		r = redistest.Start(t)
	}
	for _, conn := range []*redistest.Conn{c, r} {
		if conn != nil {
			mustDo(t, conn, "ACL", "SETUSER", "u", "on", "nopass", "+@all", "%R~r*", "%W~w*", "~rw*")
		}
	}
	tests := []struct {
		args    []string
		allowed bool
		flags   string
	}{
		{[]string{"BITFIELD", "r1", "GET", "u8", "0"}, true, "RO access"},
		{[]string{"BITFIELD", "r1", "get", "u8", "0", "OVERFLOW", "SAT", "GET", "i5", "#3"}, true, "RO access"},
		{[]string{"BITFIELD", "r1"}, true, "RO access"},
		{[]string{"BITFIELD", "r1", "GET", "u8"}, false, "RW access update"},
		{[]string{"BITFIELD", "r1", "GET", "u8", "0", "SET", "u8", "0", "1"}, false, "RW access update"},
		{[]string{"BITFIELD", "r1", "INCRBY", "u8", "0", "1"}, false, "RW access update"},
		{[]string{"BITFIELD", "r1", "OVERFLOW", "WRAP", "BOGUS"}, false, "RW access update"},
		{[]string{"BITFIELD", "w1", "GET", "u8", "0"}, false, "RO access"},
		{[]string{"BITFIELD", "w1", "SET", "u8", "0", "1"}, false, "RW access update"},
		{[]string{"BITFIELD", "rw1", "SET", "u8", "0", "1"}, true, "RW access update"},
		{[]string{"BITFIELD_RO", "r1", "GET", "u8", "0"}, true, "RO access"},
	}
	for _, tc := range tests {
		for _, conn := range []*redistest.Conn{c, r} {
			if conn == nil {
				continue
			}
			name := "Cairn"
			if conn == r {
				name = "redis-server"
			}
			dry := mustRaw(t, conn, append([]string{"ACL", "DRYRUN", "u"}, tc.args...)...)
			if got := bytes.Equal(dry, []byte("+OK\r\n")); got != tc.allowed {
				t.Errorf("%s: ACL DRYRUN u %s = %q, want allowed=%t", name, quoteCommand(tc.args), dry, tc.allowed)
			}
			kf := mustDo(t, conn, append([]any{"COMMAND", "GETKEYSANDFLAGS"}, anys(tc.args)...)...).([]any)
			var flags [][]byte
			if len(kf) == 1 {
				for _, f := range kf[0].([]any)[1].([]any) {
					flags = append(flags, f.([]byte))
				}
			}
			if got := string(bytes.Join(flags, []byte(" "))); len(kf) != 1 || got != tc.flags {
				t.Errorf("%s: COMMAND GETKEYSANDFLAGS %s = %q, want one key with flags %q", name, quoteCommand(tc.args), kf, tc.flags)
			}
		}
	}
}

func redisInstalled() bool {
	_, err := exec.LookPath("redis-server")
	return err == nil
}

// startFromFile starts a server from the configuration file path, as
// cmd/cairn does (users from its user lines), on an in-memory store.
func startFromFile(t *testing.T, path string) *redistest.Conn {
	t.Helper()
	cfg := config.Default()
	if err := cfg.LoadFile(path); err != nil {
		t.Fatal(err)
	}
	eng, err := engine.OpenPebble("", engine.PebbleOptions{FS: vfs.NewMem(), CacheSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(eng, store.Options{Databases: cfg.Databases()})
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	srv, err := Build(Options{Config: cfg, Store: st, Logger: log, ConfigFile: path})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.LoadUsers(); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		<-done
		_ = st.Close()
		_ = eng.Close()
	})
	return redistest.Dial(t, ln.Addr().String())
}

// CONFIG REWRITE writes the live ACL users as user lines, replacing the
// file's, as Redis's rewriteConfigUserOption does, so that ACL SETUSER and
// DELUSER survive a restart from the file; with an aclfile the file's
// user lines go (Redis refuses both at start).
func TestCrossConfigRewriteUsers(t *testing.T) {
	tests := []struct {
		name  string
		file  string
		acl   [][]any
		users []string // expected user lines, in order, in the file
	}{
		{
			name: "setuser and deluser",
			file: "# users\nuser bob on >pw ~b* +get\nuser carol on nopass ~* +@all\nrename-command FLUSHALL \"\"\n",
			acl: [][]any{
				{"ACL", "SETUSER", "alice", "on", ">pw", "~*", "+get"},
				{"ACL", "SETUSER", "bob", "+set"},
				{"ACL", "DELUSER", "carol"},
			},
			users: []string{
				"user alice on sanitize-payload #30c952fab122c3f9759f02a6d95c3758b246b4fee239957b2d4fee46e26170c4 ~* resetchannels -@all +get",
				"user bob on sanitize-payload #30c952fab122c3f9759f02a6d95c3758b246b4fee239957b2d4fee46e26170c4 ~b* resetchannels -@all +get +set",
				"user default on nopass sanitize-payload ~* &* +@all",
			},
		},
		{
			name: "selectors",
			file: "port 0\n",
			acl:  [][]any{{"ACL", "SETUSER", "sel", "on", "nopass", "~a*", "+get", "(~b* +set)", "(%R~c* +@read)"}},
			users: []string{
				"user default on nopass sanitize-payload ~* &* +@all",
				"user sel on nopass sanitize-payload ~a* resetchannels -@all +get (~b* resetchannels -@all +set) (%R~c* resetchannels -@all +@read)",
			},
		},
		{
			// Rules on commands Cairn does not implement, as Redis 7.2
			// keeps them.
			name: "commands Cairn lacks",
			file: "user ops on nopass ~* +@all -debug -module -lolwut -wait -config|set\nuser probe on nopass -@all +cluster|info +client|kill +debug|sleep\n",
			acl:  [][]any{{"ACL", "SETUSER", "ops", "-failover"}},
			users: []string{
				"user default on nopass sanitize-payload ~* &* +@all",
				"user ops on nopass sanitize-payload ~* resetchannels +@all -debug -module -lolwut -wait -config|set -failover",
				"user probe on nopass sanitize-payload resetchannels -@all +cluster|info +client|kill +debug|sleep",
			},
		},
		{
			name:  "no users configured",
			file:  "timeout 5\n",
			acl:   [][]any{{"ACL", "SETUSER", "default", "resetkeys", "~k*"}},
			users: []string{"user default on nopass sanitize-payload ~k* &* +@all"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "cairn.conf")
			if err := os.WriteFile(path, []byte(tc.file), 0o644); err != nil {
				t.Fatal(err)
			}
			c := startFromFile(t, path)
			for _, a := range tc.acl {
				mustDo(t, c, a...)
			}
			live := mustDo(t, c, "ACL", "LIST")
			mustDo(t, c, "CONFIG", "REWRITE")
			text, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, l := range strings.Split(string(text), "\n") {
				if strings.HasPrefix(l, "user ") {
					got = append(got, l)
				}
			}
			if !slices.Equal(got, tc.users) {
				t.Errorf("user lines after CONFIG REWRITE:\n%s\nwant:\n%s\nfile:\n%s", strings.Join(got, "\n"), strings.Join(tc.users, "\n"), text)
			}
			if !strings.Contains(string(text), "rename-command") && strings.Contains(tc.file, "rename-command") {
				t.Errorf("the rename-command line was lost:\n%s", text)
			}
			// A server started from the rewritten file has the same users.
			c2 := startFromFile(t, path)
			if again := mustDo(t, c2, "ACL", "LIST"); !reflect.DeepEqual(again, live) {
				t.Errorf("ACL LIST after a restart from the rewritten file:\n%q\nbefore:\n%q", again, live)
			}
		})
	}

	// With an aclfile the users live there: the file's user lines go.
	dir := t.TempDir()
	path := filepath.Join(dir, "cairn.conf")
	acl := filepath.Join(dir, "users.acl")
	if err := os.WriteFile(acl, []byte("user default on nopass ~* &* +@all\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("aclfile "+acl+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := startFromFile(t, path)
	mustDo(t, c, "ACL", "SETUSER", "alice", "on")
	mustDo(t, c, "CONFIG", "REWRITE")
	if text, _ := os.ReadFile(path); strings.Contains(string(text), "user ") {
		t.Errorf("CONFIG REWRITE with an aclfile wrote user lines:\n%s", text)
	}
}

// ACL rules may name a command that rename-command disabled (renamed to
// ""), as Redis looks rules up in its orig_commands: the common hardening
// of rename-command FLUSHALL "" with users that have "+@all -flushall"
// must still load. A renamed command keeps its original name for ACL.
// Compared with a real Redis where one is installed.
func TestCrossACLRulesNameRenamedCommands(t *testing.T) {
	renames := []string{"--rename-command", "GETBIT", "", "--rename-command", "FLUSHALL", "", "--rename-command", "SET", "MYSET"}
	cfg := testConfig(t)
	if err := cfg.ApplyArgs(renames); err != nil {
		t.Fatal(err)
	}
	c := redistest.Dial(t, startServerWith(t, cfg).addr)
	var r *redistest.Conn
	if redisInstalled() {
		r = startRedisArgs(t, "--rename-command", "GETBIT", "", "--rename-command", "FLUSHALL", "", "--rename-command", "SET", "MYSET")
	}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"ACL", "SETUSER", "a", "on", "nopass", "~*", "+@all", "-flushall", "-getbit"}, "+OK\r\n"},
		{[]string{"ACL", "SETUSER", "b", "on", "nopass", "~*", "+getbit"}, "+OK\r\n"},
		{[]string{"ACL", "SETUSER", "c", "on", "nopass", "~*", "+set"}, "+OK\r\n"},
		{[]string{"ACL", "SETUSER", "d", "on", "nopass", "~*", "+myset"}, "-ERR Error in ACL SETUSER modifier '+myset': Unknown command or category name in ACL\r\n"},
		{[]string{"ACL", "SETUSER", "e", "on", "nopass", "~*", "+nosuch"}, "-ERR Error in ACL SETUSER modifier '+nosuch': Unknown command or category name in ACL\r\n"},
		{[]string{"ACL", "DRYRUN", "a", "getbit", "k", "0"}, "-ERR Command 'getbit' not found\r\n"},
		{[]string{"ACL", "DRYRUN", "c", "myset", "k", "v"}, "+OK\r\n"},
		{[]string{"ACL", "DRYRUN", "a", "myset", "k", "v"}, "+OK\r\n"},
	}
	for _, tc := range tests {
		if got := string(mustRaw(t, c, tc.args...)); got != tc.want {
			t.Errorf("Cairn: %s = %q, want %q", quoteCommand(tc.args), got, tc.want)
		}
		if r != nil {
			if got := string(mustRaw(t, r, tc.args...)); got != tc.want {
				t.Errorf("redis-server: %s = %q, want %q", quoteCommand(tc.args), got, tc.want)
			}
		}
	}
	// ACL CAT still lists a disabled command under its category, as Redis.
	cat := mustDo(t, c, "ACL", "CAT", "bitmap").([]any)
	if !slices.ContainsFunc(cat, func(v any) bool { return string(v.([]byte)) == "getbit" }) {
		t.Errorf("ACL CAT bitmap = %q, want getbit listed", cat)
	}
}

// startRedisArgs starts a redis-server with extra arguments, stopped when
// the test ends.
func startRedisArgs(t *testing.T, args ...string) *redistest.Conn {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.Command("redis-server", append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"}, args...)...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	waitUntil(t, 10*time.Second, "redis-server to listen", func() bool {
		conn, err := net.Dial("tcp", addr)
		if err == nil {
			conn.Close()
		}
		return err == nil
	})
	return redistest.Dial(t, addr)
}

// MIGRATE's AUTH password and AUTH2 user and password are shown as
// "(redacted)" in the slow log (and to monitors), as migrateCommand
// redacts them while it reads its options: only up to KEYS (whose
// arguments are keys) or a syntax error. Compared with a real Redis where
// one is installed.
func TestCrossMigrateCredentialsRedacted(t *testing.T) {
	ts := startServer(t, "slowlog-log-slower-than", "0")
	conns := []*redistest.Conn{redistest.Dial(t, ts.addr)}
	if redisInstalled() {
		conns = append(conns, startRedisArgs(t, "--slowlog-log-slower-than", "0"))
	}
	const r = "(redacted)"
	tests := []struct {
		args, logged []string
	}{
		{[]string{"MIGRATE", "127.0.0.1", "1", "nokey", "0", "100", "AUTH", "secret"},
			[]string{"MIGRATE", "127.0.0.1", "1", "nokey", "0", "100", "AUTH", r}},
		{[]string{"MIGRATE", "127.0.0.1", "1", "", "0", "100", "COPY", "auth2", "alice", "secret", "REPLACE", "KEYS", "nokey"},
			[]string{"MIGRATE", "127.0.0.1", "1", "", "0", "100", "COPY", "auth2", r, r, "REPLACE", "KEYS", "nokey"}},
		{[]string{"MIGRATE", "127.0.0.1", "1", "nokey", "0", "100", "AUTH", "secret", "BOGUS", "AUTH", "again"},
			[]string{"MIGRATE", "127.0.0.1", "1", "nokey", "0", "100", "AUTH", r, "BOGUS", "AUTH", "again"}},
		{[]string{"MIGRATE", "127.0.0.1", "1", "nokey", "0", "100", "AUTH2", "alice"},
			[]string{"MIGRATE", "127.0.0.1", "1", "nokey", "0", "100", "AUTH2", "alice"}},
		{[]string{"MIGRATE", "127.0.0.1", "1", "", "0", "100", "KEYS", "AUTH", "notsecret"},
			[]string{"MIGRATE", "127.0.0.1", "1", "", "0", "100", "KEYS", "AUTH", "notsecret"}},
	}
	for _, c := range conns {
		for _, tc := range tests {
			mustDo(t, c, "SLOWLOG", "RESET")
			_, _ = c.Do(anys(tc.args)...)
			entries := mustDo(t, c, "SLOWLOG", "GET", "1").([]any)
			var got []string
			if len(entries) == 1 {
				for _, a := range entries[0].([]any)[3].([]any) {
					got = append(got, string(a.([]byte)))
				}
			}
			if !slices.Equal(got, tc.logged) {
				t.Errorf("%s: %s logged as %q, want %q", c.Addr(), quoteCommand(tc.args), got, tc.logged)
			}
		}
	}
}

// SAVE and BGSAVE leave sortedint keys out, since the RDB format has no
// such type (docs/operations.md), rather than failing the whole file; the
// file loads in Redis with every other key.
func TestCrossSaveLeavesSortedintsOut(t *testing.T) {
	tests := []struct {
		name  string
		setup [][]any
		keys  []string // what Redis loads
	}{
		{"sortedint among others", [][]any{{"SIADD", "si", 1, 2}, {"SET", "k", "v"}, {"RPUSH", "l", "a"}}, []string{"k", "l"}},
		{"only sortedints", [][]any{{"SIADD", "si", 1}, {"SIADD", "si2", 5}}, nil},
		{"sortedint in another db", [][]any{{"SET", "k", "v"}, {"SELECT", 2}, {"SIADD", "si", 1}, {"SELECT", 0}}, []string{"k"}},
	}
	for _, tc := range tests {
		for _, cmd := range []string{"SAVE", "BGSAVE"} {
			t.Run(tc.name+"/"+cmd, func(t *testing.T) {
				dir := t.TempDir()
				ts := startServer(t, "dir", dir)
				c := redistest.Dial(t, ts.addr)
				for _, a := range tc.setup {
					mustDo(t, c, a...)
				}
				mustDo(t, c, cmd)
				waitUntil(t, 10*time.Second, "the save to end", func() bool {
					return infoField(t, c, "persistence", "rdb_bgsave_in_progress") == "0"
				})
				if st := infoField(t, c, "persistence", "rdb_last_bgsave_status"); cmd == "BGSAVE" && st != "ok" {
					t.Fatalf("rdb_last_bgsave_status = %q", st)
				}
				if !redisInstalled() {
					return
				}
				r := startRedisOn(t, dir)
				var got []string
				for _, db := range []int{0, 2} {
					mustDo(t, r, "SELECT", db)
					for _, k := range mustDo(t, r, "KEYS", "*").([]any) {
						got = append(got, string(k.([]byte)))
					}
				}
				slices.Sort(got)
				if !slices.Equal(got, tc.keys) {
					t.Errorf("Redis loaded keys %q, want %q", got, tc.keys)
				}
			})
		}
	}
}

// A replica applies the master's SETBIT, BITFIELD, SETRANGE and APPEND
// whatever its own proto-max-bulk-len, as Redis's mustObeyClient exempts
// the master client from the limit; its own clients still get the error.
func TestCrossReplicaIgnoresProtoMaxBulkLenForMaster(t *testing.T) {
	master := startRedisOn(t, t.TempDir())
	_, port, _ := net.SplitHostPort(master.Addr())
	ts := startServer(t, "dir", t.TempDir(), "proto-max-bulk-len", "1mb")
	c := redistest.Dial(t, ts.addr)
	mustDo(t, master, "CONFIG", "SET", "repl-diskless-sync-delay", "0")
	mustDo(t, c, "REPLICAOF", "127.0.0.1", port)
	// The writes come through the command stream, not the initial sync.
	waitInSync(t, master, c)
	const past = 1<<20 + 5000 // beyond the replica's limit
	writes := [][]any{
		{"SETBIT", "bit", past * 8, 1},
		{"BITFIELD", "field", "SET", "u8", past * 8, 255},
		{"SETRANGE", "range", past, "tail"},
		{"SET", "app", strings.Repeat("a", 1<<20-10)},
		{"APPEND", "app", strings.Repeat("b", 100)},
	}
	for _, w := range writes {
		mustDo(t, master, w...)
	}
	waitInSync(t, master, c)
	for _, k := range []string{"bit", "field", "range", "app"} {
		want := mustDo(t, master, "STRLEN", k)
		if got := mustDo(t, c, "STRLEN", k); got != want {
			t.Errorf("STRLEN %s: replica %v, master %v", k, got, want)
		}
		if a, b := mustDo(t, master, "BITCOUNT", k), mustDo(t, c, "BITCOUNT", k); a != b {
			t.Errorf("BITCOUNT %s: replica %v, master %v", k, b, a)
		}
	}
	// The replica's own clients are held to its limit.
	mustDo(t, c, "REPLICAOF", "NO", "ONE")
	for _, tc := range []struct {
		args []any
		want string
	}{
		{[]any{"SETBIT", "x", past * 8, 1}, "ERR bit offset is not an integer or out of range"},
		{[]any{"SETRANGE", "x", past, "y"}, "ERR string exceeds maximum allowed size (proto-max-bulk-len)"},
		{[]any{"APPEND", "app", "y"}, "ERR string exceeds maximum allowed size (proto-max-bulk-len)"},
	} {
		for i, a := range tc.args {
			tc.args[i] = fmt.Sprint(a)
		}
		if _, err := c.Do(tc.args...); err == nil || !strings.HasSuffix(err.Error(), tc.want) {
			t.Errorf("%v on the promoted replica: %v, want %q", tc.args, err, tc.want)
		}
	}
}

// A Redis master propagates XADD and XTRIM with "~" rewritten to "=" and
// the exact threshold, keeping any LIMIT: the replica trims to it, as
// Redis does for a client it must obey, instead of refusing "LIMIT
// without ~" and losing the entries.
func TestCrossReplicaStreamTrimWithLimit(t *testing.T) {
	master := startRedisOn(t, t.TempDir())
	mustDo(t, master, "CONFIG", "SET", "repl-diskless-sync-delay", "0")
	mustDo(t, master, "CONFIG", "SET", "stream-node-max-entries", "10")
	_, port, _ := net.SplitHostPort(master.Addr())
	ts := startServer(t, "dir", t.TempDir())
	c := redistest.Dial(t, ts.addr)
	mustDo(t, c, "REPLICAOF", "127.0.0.1", port)
	waitInSync(t, master, c)
	tests := []struct {
		key    string
		writes func(i int) []any
		trim   []any
	}{
		{"maxlen", func(i int) []any { return []any{"XADD", "maxlen", "MAXLEN", "~", 20, "LIMIT", 10, "*", "i", i} },
			[]any{"XTRIM", "maxlen", "MAXLEN", "~", 5, "LIMIT", 10}},
		{"minid", func(i int) []any {
			return []any{"XADD", "minid", "MINID", "~", i * 2, "LIMIT", 10, fmt.Sprintf("%d-1", i+1), "i", i}
		}, []any{"XTRIM", "minid", "MINID", "~", 90, "LIMIT", 10}},
		{"nolimit", func(i int) []any { return []any{"XADD", "nolimit", "MAXLEN", "~", 15, "*", "i", i} },
			[]any{"XTRIM", "nolimit", "MAXLEN", "=", 7}},
	}
	for _, tc := range tests {
		for i := range 100 {
			mustDo(t, master, tc.writes(i)...)
		}
		mustDo(t, master, tc.trim...)
	}
	waitInSync(t, master, c)
	for _, tc := range tests {
		want := mustRaw(t, master, "XRANGE", tc.key, "-", "+")
		if got := mustRaw(t, c, "XRANGE", tc.key, "-", "+"); !bytes.Equal(got, want) {
			t.Errorf("%s: replica XRANGE %.200q, master %.200q", tc.key, got, want)
		}
	}
}

// Fragmented strings (above 16 KiB, and sparse bitmaps) and streams with
// groups cross to a real Redis and back: MIGRATE both ways, DUMP/RESTORE
// both ways, and SAVE loaded by redis-server, each keeping the value (as
// its decoded DUMP) and the deadline.
func TestCrossFragmentsAndStreamsWithRedis(t *testing.T) {
	if !redisInstalled() {
		t.Skip("redis-server is not installed")
	}
	dir := t.TempDir()
	ts := startServer(t, "dir", dir)
	c := redistest.Dial(t, ts.addr)
	seed := [][]any{
		{"SET", "big", strings.Repeat("xy", 12000)},
		{"SETRANGE", "big", 40000, "tail"},
		{"SETBIT", "sparse", 3000000, 1},
		{"SETBIT", "sparse", 5, 1},
		{"SET", "zeros", strings.Repeat("\x00", 30000)},
		{"SET", "ttlbig", strings.Repeat("t", 20000), "PX", 900000},
		{"XADD", "st", "1-1", "a", "1"},
		{"XADD", "st", "2-1", "b", "2"},
		{"XADD", "st", "3-1", "c", strings.Repeat("v", 20000)},
		{"XGROUP", "CREATE", "st", "g", "0"},
		{"XGROUP", "CREATE", "st", "g2", "$", "ENTRIESREAD", 3},
		{"XREADGROUP", "GROUP", "g", "alice", "COUNT", 2, "STREAMS", "st", ">"},
		{"XACK", "st", "g", "1-1"},
		{"XDEL", "st", "1-1"},
	}
	for _, a := range seed {
		mustDo(t, c, a...)
	}
	keys := []string{"big", "sparse", "zeros", "ttlbig", "st"}
	type state struct {
		value    rdb.Object
		deadline int64
	}
	snapshot := func(conn *redistest.Conn) map[string]state {
		out := map[string]state{}
		for _, k := range keys {
			d, ok := mustDo(t, conn, "DUMP", k).([]byte)
			if !ok {
				t.Fatalf("%s: no key %s", conn.Addr(), k)
			}
			out[k] = state{normalizedDump(t, d), mustDo(t, conn, "PEXPIRETIME", k).(int64)}
		}
		return out
	}
	compare := func(what string, want, got map[string]state) {
		t.Helper()
		for _, k := range keys {
			w, g := want[k], got[k]
			if !reflect.DeepEqual(w.value, g.value) {
				t.Errorf("%s: %s differs", what, k)
			}
			if (w.deadline < 0) != (g.deadline < 0) || w.deadline-g.deadline > 1000 || g.deadline-w.deadline > 1000 {
				t.Errorf("%s: %s deadline %d, want %d", what, k, g.deadline, w.deadline)
			}
		}
	}
	want := snapshot(c)

	mustDo(t, c, "SAVE")
	saved := startRedisOn(t, dir)
	compare("SAVE loaded by redis-server", want, snapshot(saved))

	r := redistest.Start(t)
	h, p := hostPort(t, r.Addr())
	if got := string(mustRaw(t, c, append([]string{"MIGRATE", h, p, "", "0", "5000", "KEYS"}, keys...)...)); got != "+OK\r\n" {
		t.Fatalf("MIGRATE to Redis = %q", got)
	}
	compare("MIGRATE to Redis", want, snapshot(r))
	h, p = hostPort(t, ts.addr)
	if got := string(mustRaw(t, r, append([]string{"MIGRATE", h, p, "", "0", "5000", "KEYS"}, keys...)...)); got != "+OK\r\n" {
		t.Fatalf("MIGRATE from Redis = %q", got)
	}
	compare("MIGRATE from Redis", want, snapshot(c))

	// DUMP/RESTORE both ways.
	for _, k := range keys {
		ttl := mustDo(t, c, "PTTL", k).(int64)
		mustDo(t, r, "RESTORE", k, max(ttl, 0), mustDo(t, c, "DUMP", k).([]byte))
	}
	compare("RESTORE in Redis of Cairn's DUMP", want, snapshot(r))
	for _, k := range keys {
		ttl := mustDo(t, r, "PTTL", k).(int64)
		mustDo(t, c, "RESTORE", k, max(ttl, 0), mustDo(t, r, "DUMP", k).([]byte), "REPLACE")
	}
	compare("RESTORE in Cairn of Redis's DUMP", want, snapshot(c))
}
