package server

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/config"
	"github.com/cairndb/cairn/internal/engine"
	"github.com/cairndb/cairn/internal/redistest"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// ACL behaviour of Redis 7.2 that the differential tests cannot compare
// with the installed 7.0: the NOPERM texts, ACL LOG, disconnections, the
// aclfile, user lines and requirepass.

// aclDo runs a command and returns the reply as redistest parses it, with
// an error reply as an error string "ERR..." prefixed by "-".
func aclDo(t *testing.T, c *redistest.Conn, args ...string) any {
	t.Helper()
	v, err := c.Do(toAny(args)...)
	if err != nil {
		return "-" + strings.TrimPrefix(err.Error(), "redis error reply: ")
	}
	return v
}

// render shows a reply as text, arrays as [a b c].
func render(v any) string {
	if list, ok := v.([]any); ok {
		parts := make([]string, len(list))
		for i, e := range list {
			parts[i] = render(e)
		}
		return "[" + strings.Join(parts, " ") + "]"
	}
	return asString(v)
}

func wantReply(t *testing.T, c *redistest.Conn, want string, args ...string) {
	t.Helper()
	if got := render(aclDo(t, c, args...)); got != want {
		t.Errorf("%s = %q, want %q", quoteCommand(args), got, want)
	}
}

// logEntries is ACL LOG's entries as maps of their fields.
func logEntries(t *testing.T, c *redistest.Conn) []map[string]string {
	t.Helper()
	v := aclDo(t, c, "ACL", "LOG")
	list, ok := v.([]any)
	if !ok {
		t.Fatalf("ACL LOG = %v", v)
	}
	var out []map[string]string
	for _, e := range list {
		fields := e.([]any)
		m := map[string]string{}
		for i := 0; i+1 < len(fields); i += 2 {
			m[asString(fields[i])] = asString(fields[i+1])
		}
		out = append(out, m)
	}
	return out
}

func TestACLNoPermTexts(t *testing.T) {
	ts := startServer(t)
	admin := redistest.Dial(t, ts.addr)
	wantReply(t, admin, "OK", "ACL", "SETUSER", "u", "on", ">pw", "-@all", "+get", "+publish", "+multi", "+exec", "+eval", "~k*", "&ch*")
	u := redistest.Dial(t, ts.addr)
	wantReply(t, u, "OK", "AUTH", "u", "pw")
	wantReply(t, u, "-NOPERM User u has no permissions to run the 'set' command", "SET", "k", "v")
	wantReply(t, u, "-NOPERM User u has no permissions to run the 'config|get' command", "CONFIG", "GET", "x")
	wantReply(t, u, "-NOPERM No permissions to access a key", "GET", "x")
	wantReply(t, u, "-NOPERM No permissions to access a channel", "PUBLISH", "x", "m")
	wantReply(t, u, "0", "PUBLISH", "ch1", "m")
	// Arity and unknown commands come first.
	wantReply(t, u, "-ERR wrong number of arguments for 'set' command", "SET", "k")
	// Scripts: the caller's permissions apply to redis.call.
	got := asString(aclDo(t, u, "EVAL", "return redis.call('get', 'x')", "0"))
	if !strings.HasPrefix(got, "-ERR ACL failure in script: No permissions to access a key") {
		t.Errorf("EVAL denied key: %q", got)
	}
	got = asString(aclDo(t, u, "EVAL", "return redis.call('set', 'k', 'v')", "0"))
	if !strings.HasPrefix(got, "-ERR ACL failure in script: User u has no permissions to run the 'set' command") {
		t.Errorf("EVAL denied command: %q", got)
	}
	wantReply(t, u, "1", "EVAL", "return redis.acl_check_cmd('get', 'k1') and 1 or 0", "0")
	wantReply(t, u, "0", "EVAL", "return redis.acl_check_cmd('get', 'x') and 1 or 0", "0")
	wantReply(t, u, "0", "EVAL", "return redis.acl_check_cmd('set', 'k', 'v') and 1 or 0", "0")
	// MULTI: a denied command dooms the transaction at once.
	wantReply(t, u, "OK", "MULTI")
	wantReply(t, u, "-NOPERM No permissions to access a key", "GET", "x")
	wantReply(t, u, "-EXECABORT Transaction discarded because of previous errors.", "EXEC")
	// Permissions changed between queueing and EXEC.
	wantReply(t, u, "OK", "MULTI")
	wantReply(t, u, "QUEUED", "GET", "k1")
	wantReply(t, admin, "OK", "ACL", "SETUSER", "u", "resetkeys")
	raw, err := u.DoRaw("EXEC")
	if want := "*1\r\n-NOPERM ACLs rules changed between the moment the transaction was accumulated and the EXEC call. This command is no longer allowed for the following reason: no permission to touch the specified keys\r\n"; err != nil || string(raw) != want {
		t.Errorf("EXEC after a change: %q, %v", raw, err)
	}
	// DRYRUN names the user and the object.
	wantReply(t, admin, "User u has no permissions to access the 'x' key", "ACL", "DRYRUN", "u", "get", "x")
	wantReply(t, admin, "User u has no permissions to run the 'set' command", "ACL", "DRYRUN", "u", "set", "x", "v")
	wantReply(t, admin, "OK", "ACL", "SETUSER", "u", "~*")
	wantReply(t, admin, "OK", "ACL", "DRYRUN", "u", "get", "x")
	wantReply(t, admin, "User u has no permissions to access the 'zz' channel", "ACL", "DRYRUN", "u", "publish", "zz", "m")
	info := asString(aclDo(t, admin, "INFO", "stats"))
	for _, f := range []string{"acl_access_denied_cmd:", "acl_access_denied_key:", "acl_access_denied_channel:1"} {
		if !strings.Contains(info, f) {
			t.Errorf("INFO stats lacks %s", f)
		}
	}
}

func TestACLLog(t *testing.T) {
	ts := startServer(t)
	admin := redistest.Dial(t, ts.addr)
	wantReply(t, admin, "OK", "ACL", "SETUSER", "u", "on", ">pw", "+@all", "-flushall", "~k*", "&ch*")
	c := redistest.Dial(t, ts.addr)
	wantReply(t, c, "-WRONGPASS invalid username-password pair or user is disabled.", "AUTH", "u", "bad")
	wantReply(t, c, "-WRONGPASS invalid username-password pair or user is disabled.", "auth", "u", "bad")
	wantReply(t, c, "-WRONGPASS invalid username-password pair or user is disabled.", "HELLO", "2", "AUTH", "nosuch", "x")
	wantReply(t, c, "OK", "AUTH", "u", "pw")
	wantReply(t, c, "-NOPERM User u has no permissions to run the 'flushall' command", "FLUSHALL")
	wantReply(t, c, "-NOPERM User u has no permissions to run the 'flushall' command", "FLUSHALL")
	wantReply(t, c, "OK", "MULTI")
	wantReply(t, c, "-NOPERM No permissions to access a key", "GET", "x")
	wantReply(t, c, "-EXECABORT Transaction discarded because of previous errors.", "EXEC")
	aclDo(t, c, "EVAL", "return redis.call('publish', 'x', 'm')", "0")
	got := logEntries(t, admin)
	want := []struct{ count, reason, context, object, user string }{
		{"1", "channel", "lua", "x", "u"},
		{"1", "key", "multi", "x", "u"},
		{"2", "command", "toplevel", "flushall", "u"},
		{"1", "auth", "toplevel", "HELLO", "nosuch"},
		{"1", "auth", "toplevel", "auth", "u"},
		{"1", "auth", "toplevel", "AUTH", "u"},
	}
	if len(got) != len(want) {
		t.Fatalf("ACL LOG has %d entries, want %d: %v", len(got), len(want), got)
	}
	for i, w := range want {
		e := got[i]
		if e["count"] != w.count || e["reason"] != w.reason || e["context"] != w.context || e["object"] != w.object || e["username"] != w.user {
			t.Errorf("entry %d = %v, want %+v", i, e, w)
		}
		if !strings.Contains(e["client-info"], "user=") || e["entry-id"] == "" || e["timestamp-created"] == "" || e["age-seconds"] == "" {
			t.Errorf("entry %d lacks fields: %v", i, e)
		}
	}
	if got[2]["timestamp-created"] > got[2]["timestamp-last-updated"] {
		t.Errorf("grouped entry times: %v", got[2])
	}
	if v := aclDo(t, admin, "ACL", "LOG", "2"); len(v.([]any)) != 2 {
		t.Errorf("ACL LOG 2 = %v", v)
	}
	if v := aclDo(t, admin, "ACL", "LOG", "-1"); len(v.([]any)) != 0 {
		t.Errorf("ACL LOG -1 = %v", v)
	}
	wantReply(t, admin, "OK", "CONFIG", "SET", "acllog-max-len", "1")
	wantReply(t, c, "-NOPERM No permissions to access a key", "GET", "y")
	if n := len(logEntries(t, admin)); n != 1 {
		t.Errorf("acllog-max-len 1: %d entries", n)
	}
	wantReply(t, admin, "OK", "ACL", "LOG", "RESET")
	if n := len(logEntries(t, admin)); n != 0 {
		t.Errorf("after RESET: %d entries", n)
	}
	if info := asString(aclDo(t, admin, "INFO", "stats")); !strings.Contains(info, "acl_access_denied_auth:3") {
		t.Errorf("INFO: %s", info)
	}
}

// waitClosed waits for the server to close c's connection.
func waitClosed(t *testing.T, c *redistest.Conn) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := c.Do("PING"); err != nil && !strings.HasPrefix(err.Error(), "NOAUTH") {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the connection stayed open")
}

func TestACLDelUserDisconnects(t *testing.T) {
	ts := startServer(t)
	admin := redistest.Dial(t, ts.addr)
	wantReply(t, admin, "OK", "ACL", "SETUSER", "u", "on", "nopass", "+@all", "~*", "&*")
	a, b, other := redistest.Dial(t, ts.addr), redistest.Dial(t, ts.addr), redistest.Dial(t, ts.addr)
	wantReply(t, a, "OK", "AUTH", "u", "x")
	wantReply(t, b, "OK", "AUTH", "u", "x")
	wantReply(t, a, "u", "ACL", "WHOAMI")
	if list := asString(aclDo(t, admin, "CLIENT", "LIST")); strings.Count(list, "user=u ") != 2 {
		t.Errorf("CLIENT LIST: %s", list)
	}
	// Changing the rules keeps the connections.
	wantReply(t, admin, "OK", "ACL", "SETUSER", "u", "-@all", "+ping", "+acl")
	wantReply(t, a, "PONG", "PING")
	// Deleting the user closes them; the one deleting gets its reply first.
	wantReply(t, b, "1", "ACL", "DELUSER", "u")
	waitClosed(t, a)
	waitClosed(t, b)
	wantReply(t, other, "PONG", "PING")
}

func TestACLChannelRevocationDisconnectsSubscribers(t *testing.T) {
	ts := startServer(t)
	admin := redistest.Dial(t, ts.addr)
	wantReply(t, admin, "OK", "ACL", "SETUSER", "u", "on", "nopass", "+@all", "~*", "&a", "&b*")
	sub, psub, plain := redistest.Dial(t, ts.addr), redistest.Dial(t, ts.addr), redistest.Dial(t, ts.addr)
	for _, c := range []*redistest.Conn{sub, psub, plain} {
		wantReply(t, c, "OK", "AUTH", "u", "x")
	}
	aclDo(t, sub, "SUBSCRIBE", "a")
	aclDo(t, psub, "PSUBSCRIBE", "b*")
	// Adding a channel revokes nothing.
	wantReply(t, admin, "OK", "ACL", "SETUSER", "u", "&c")
	wantReply(t, sub, "[pong ]", "PING")
	// Dropping "a" closes its subscriber only.
	wantReply(t, admin, "OK", "ACL", "SETUSER", "u", "resetchannels", "&b*")
	waitClosed(t, sub)
	wantReply(t, psub, "[pong ]", "PING")
	wantReply(t, plain, "PONG", "PING")
}

func TestACLFileSaveLoad(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "users.acl")
	if err := os.WriteFile(file, []byte("user default on nopass ~* &* +@all\nuser alice on >pw ~k* +get\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, "aclfile", file)
	if err := ts.srv.LoadUsers(); err != nil {
		t.Fatal(err)
	}
	admin := redistest.Dial(t, ts.addr)
	wantReply(t, admin, "[alice default]", "ACL", "USERS")
	alice := redistest.Dial(t, ts.addr)
	wantReply(t, alice, "OK", "AUTH", "alice", "pw")
	wantReply(t, admin, "OK", "ACL", "SETUSER", "bob", "on", ">b", "%R~r*", "(+set ~s*)")
	wantReply(t, admin, "OK", "ACL", "SAVE")
	saved, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join(asStrings(aclDo(t, admin, "ACL", "LIST")), "\n") + "\n"
	if string(saved) != want {
		t.Errorf("saved:\n%s\nACL LIST:\n%s", saved, want)
	}
	// LOAD replaces the users: alice's connection goes, the default's stays.
	wantReply(t, admin, "OK", "ACL", "LOAD")
	waitClosed(t, alice)
	wantReply(t, admin, "PONG", "PING")
	if got := strings.Join(asStrings(aclDo(t, admin, "ACL", "LIST")), "\n") + "\n"; got != want {
		t.Errorf("after LOAD:\n%s\nwant\n%s", got, want)
	}
	// A corrupt file is refused with its line, and nothing changes.
	if err := os.WriteFile(file, []byte("user a on\n\nuser b bogus\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wantReply(t, admin, "-ERR "+file+":3: Syntax error. WARNING: ACL errors detected, no change to the previously active ACL rules was performed", "ACL", "LOAD")
	wantReply(t, admin, "[alice bob default]", "ACL", "USERS")
	// The same file stops a start.
	ts2 := startServer(t, "aclfile", file)
	if err := ts2.srv.LoadUsers(); err == nil || !strings.Contains(err.Error(), file+":3: Syntax error.") {
		t.Errorf("start with a corrupt aclfile: %v", err)
	}
}

// TestACLFileNamesRedisOnlyCommands: an aclfile hardened as usual for
// Redis, with rules on commands Cairn does not implement (-debug, -module,
// +cluster|info, ...), loads at start, and ACL LIST and ACL SAVE show the
// rules as written.
func TestACLFileNamesRedisOnlyCommands(t *testing.T) {
	file := filepath.Join(t.TempDir(), "users.acl")
	lines := "user default on nopass sanitize-payload ~* &* +@all -debug\n" +
		"user ops on nopass sanitize-payload ~* resetchannels +@all -module -lolwut -wait -config|set -failover\n" +
		"user probe on nopass sanitize-payload resetchannels -@all +cluster|info +client|kill +debug|sleep +ping\n"
	if err := os.WriteFile(file, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, "aclfile", file)
	if err := ts.srv.LoadUsers(); err != nil {
		t.Fatalf("start with -debug in the aclfile: %v", err)
	}
	c := redistest.Dial(t, ts.addr)
	if got := strings.Join(asStrings(aclDo(t, c, "ACL", "LIST")), "\n") + "\n"; got != lines {
		t.Errorf("ACL LIST:\n%s\nwant\n%s", got, lines)
	}
	wantReply(t, c, "OK", "ACL", "SAVE")
	if saved, err := os.ReadFile(file); err != nil || string(saved) != lines {
		t.Errorf("ACL SAVE wrote:\n%s (%v)\nwant\n%s", saved, err, lines)
	}
	wantReply(t, c, "-ERR Error in ACL SETUSER modifier '-foo': Unknown command or category name in ACL", "ACL", "SETUSER", "u", "-foo")
	wantReply(t, c, "OK", "ACL", "SETUSER", "u", "+@all", "-debug", "-cluster")
	// The rules on what Cairn lacks take nothing else away.
	probe := redistest.Dial(t, ts.addr)
	wantReply(t, probe, "OK", "AUTH", "probe", "x")
	wantReply(t, probe, "PONG", "PING")
	wantReply(t, probe, "-NOPERM User probe has no permissions to run the 'get' command", "GET", "k")
	ops := redistest.Dial(t, ts.addr)
	wantReply(t, ops, "OK", "AUTH", "ops", "x")
	wantReply(t, ops, "OK", "SET", "k", "v")
	wantReply(t, ops, "-NOPERM User ops has no permissions to run the 'config|set' command", "CONFIG", "SET", "timeout", "0")
}

// startServerWith is startServer with a configuration of the test's own.
func startServerWith(t *testing.T, cfg *config.Config) *testServer {
	t.Helper()
	eng, err := engine.OpenPebble("", engine.PebbleOptions{FS: vfs.NewMem(), CacheSize: 8 << 20})
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	return serveTest(t, cfg, eng, log, true)
}

func asStrings(v any) []string {
	var out []string
	for _, e := range v.([]any) {
		out = append(out, asString(e))
	}
	return out
}

func TestACLNoFileConfigured(t *testing.T) {
	ts := startServer(t)
	c := redistest.Dial(t, ts.addr)
	for _, sub := range []string{"SAVE", "LOAD"} {
		wantReply(t, c, "-ERR This Redis instance is not configured to use an ACL file. You may want to specify users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis configuration file set) in order to store users in the Redis configuration.", "ACL", sub)
	}
}

func TestACLUserLinesAndRequirePass(t *testing.T) {
	cfg := testConfig(t, "requirepass", "old")
	path := filepath.Join(t.TempDir(), "cairn.conf")
	if err := os.WriteFile(path, []byte("user alice on >pw ~* +@read\nuser default on >dpw ~* &* +@all\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := cfg.LoadFile(path); err != nil {
		t.Fatal(err)
	}
	ts := startServerWith(t, cfg)
	if err := ts.srv.LoadUsers(); err != nil {
		t.Fatal(err)
	}
	c := redistest.Dial(t, ts.addr)
	wantReply(t, c, "-NOAUTH Authentication required.", "PING")
	wantReply(t, c, "-WRONGPASS invalid username-password pair or user is disabled.", "AUTH", "old")
	wantReply(t, c, "OK", "AUTH", "dpw")
	wantReply(t, c, "default", "ACL", "WHOAMI")
	wantReply(t, c, "OK", "AUTH", "alice", "pw")
	wantReply(t, c, "-NOPERM User alice has no permissions to run the 'set' command", "SET", "k", "v")
	// CONFIG SET requirepass sets the default user's password.
	wantReply(t, c, "OK", "AUTH", "default", "dpw")
	wantReply(t, c, "OK", "CONFIG", "SET", "requirepass", "new")
	wantReply(t, redistest.Dial(t, ts.addr), "-WRONGPASS invalid username-password pair or user is disabled.", "AUTH", "dpw")
	wantReply(t, redistest.Dial(t, ts.addr), "OK", "AUTH", "new")
	wantReply(t, c, "OK", "CONFIG", "SET", "requirepass", "")
	wantReply(t, redistest.Dial(t, ts.addr), "PONG", "PING")
	// RESET goes back to the default user.
	wantReply(t, c, "OK", "AUTH", "alice", "pw")
	wantReply(t, c, "RESET", "RESET")
	wantReply(t, c, "default", "ACL", "WHOAMI")

	// User lines and an aclfile together are refused.
	cfg2 := testConfig(t, "aclfile", filepath.Join(t.TempDir(), "x.acl"))
	if err := cfg2.LoadFile(path); err != nil {
		t.Fatal(err)
	}
	if err := startServerWith(t, cfg2).srv.LoadUsers(); err == nil || !strings.Contains(err.Error(), "but not both") {
		t.Errorf("user lines with an aclfile: %v", err)
	}
	// A bad rule in a user line stops the start.
	cfg3 := testConfig(t)
	bad := filepath.Join(t.TempDir(), "bad.conf")
	if err := os.WriteFile(bad, []byte("user bob on +nosuch\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := cfg3.LoadFile(bad); err != nil {
		t.Fatal(err)
	}
	if err := startServerWith(t, cfg3).srv.LoadUsers(); err == nil || !strings.Contains(err.Error(), "Error in user declaration '+nosuch': Unknown command or category name in ACL") {
		t.Errorf("bad user line: %v", err)
	}
}

func TestACLClientKillUser(t *testing.T) {
	ts := startServer(t)
	admin := redistest.Dial(t, ts.addr)
	wantReply(t, admin, "OK", "ACL", "SETUSER", "u", "on", "nopass", "+@all", "~*")
	a, other := redistest.Dial(t, ts.addr), redistest.Dial(t, ts.addr)
	wantReply(t, a, "OK", "AUTH", "u", "x")
	wantReply(t, admin, "-ERR No such user 'nosuch'", "CLIENT", "KILL", "USER", "nosuch")
	wantReply(t, admin, "1", "CLIENT", "KILL", "USER", "u")
	waitClosed(t, a)
	wantReply(t, other, "PONG", "PING")
}

// TestACLGetUserRESP3: ACL GETUSER's shape in both protocols, flags as a
// set in RESP3, selectors as maps, as Redis 7.2 replies.
func TestACLGetUserRESP3(t *testing.T) {
	ts := startServer(t)
	b := wireBulk
	for _, proto := range []int{2, 3} {
		rc := ts.wireProto(t, proto)
		if got := rc.do("ACL", "SETUSER", "u", "reset", "on", "nopass", "~k*", "&c", "+get", "(%R~r* +set)"); got != "+OK\r\n" {
			t.Fatalf("SETUSER = %q", got)
		}
		mapHdr, setHdr, selHdr := "*12\r\n", "*2\r\n", "*6\r\n"
		if proto == 3 {
			mapHdr, setHdr, selHdr = "%6\r\n", "~2\r\n", "%3\r\n"
		}
		// nopass: any password; on: enabled.
		want := mapHdr + b("flags") + strings.Replace(setHdr, "2", "3", 1) + b("on") + b("nopass") + b("sanitize-payload") +
			b("passwords") + "*0\r\n" +
			b("commands") + b("-@all +get") + b("keys") + b("~k*") + b("channels") + b("&c") +
			b("selectors") + "*1\r\n" + selHdr + b("commands") + b("-@all +set") + b("keys") + b("%R~r*") + b("channels") + b("")
		if got := rc.do("ACL", "GETUSER", "u"); got != want {
			t.Errorf("RESP%d GETUSER:\n got  %q\n want %q", proto, got, want)
		}
		if got, want := rc.do("ACL", "GETUSER", "nosuch"), wireNull(proto); got != want {
			t.Errorf("RESP%d GETUSER nosuch = %q", proto, got)
		}
	}
}

// TestACLSetUserRedacted: ACL SETUSER's name and rules (passwords) never
// reach the slow log, as Redis redacts them.
func TestACLSetUserRedacted(t *testing.T) {
	ts := startServer(t)
	c := redistest.Dial(t, ts.addr)
	wantReply(t, c, "OK", "CONFIG", "SET", "slowlog-log-slower-than", "0")
	wantReply(t, c, "OK", "ACL", "SETUSER", "u", ">secret")
	got := render(aclDo(t, c, "SLOWLOG", "GET", "2"))
	if strings.Contains(got, "secret") || !strings.Contains(got, "[ACL SETUSER (redacted) (redacted)]") {
		t.Errorf("SLOWLOG: %s", got)
	}
}
