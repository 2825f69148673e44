package server

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// The tests here check connection and server commands byte for byte against
// the replies of Redis 7 (redis-server 7.0 for everything older than 7.2).

// wireBulk is s as a RESP bulk string.
func wireBulk(s string) string { return "$" + strconv.Itoa(len(s)) + "\r\n" + s + "\r\n" }

// wireNull is the null reply of the protocol.
func wireNull(proto int) string {
	if proto == 3 {
		return "_\r\n"
	}
	return "$-1\r\n"
}

// wireText is a text reply (INFO, CLIENT LIST): a bulk string in RESP2, a
// verbatim string of format txt in RESP3.
func wireText(proto int, s string) string {
	if proto == 3 {
		return "=" + strconv.Itoa(len(s)+4) + "\r\ntxt:" + s + "\r\n"
	}
	return wireBulk(s)
}

// textOf undoes wireText.
func textOf(t testing.TB, proto int, reply string) string {
	t.Helper()
	prefix := "$"
	if proto == 3 {
		prefix = "="
	}
	head, body, ok := strings.Cut(reply, "\r\n")
	if !ok || !strings.HasPrefix(head, prefix) || !strings.HasSuffix(body, "\r\n") {
		t.Fatalf("not a RESP%d text reply: %q", proto, reply)
	}
	body = strings.TrimSuffix(body, "\r\n")
	if n, err := strconv.Atoi(head[1:]); err != nil || n != len(body) {
		t.Fatalf("text reply length %q for %d bytes", head, len(body))
	}
	if proto == 3 {
		if !strings.HasPrefix(body, "txt:") {
			t.Fatalf("verbatim reply without txt format: %q", reply)
		}
		body = body[4:]
	}
	return body
}

func helloReply(proto int, id string) string {
	head := "*14\r\n"
	if proto == 3 {
		head = "%7\r\n"
	}
	return head + wireBulk("server") + wireBulk("redis") + wireBulk("version") + wireBulk(RedisVersion) +
		wireBulk("proto") + ":" + strconv.Itoa(proto) + "\r\n" + wireBulk("id") + ":" + id + "\r\n" +
		wireBulk("mode") + wireBulk("standalone") + wireBulk("role") + wireBulk("master") +
		wireBulk("modules") + "*0\r\n"
}

// clientID is the connection's CLIENT ID, as a decimal string.
func (rc *wireConn) clientID() string {
	rc.t.Helper()
	got := rc.do("CLIENT", "ID")
	if !strings.HasPrefix(got, ":") {
		rc.t.Fatalf("CLIENT ID = %q", got)
	}
	return strings.TrimSuffix(got[1:], "\r\n")
}

// wireStep is one command and its exact reply.
type wireStep struct {
	args []string
	want string
}

func wstep(want string, args ...string) wireStep { return wireStep{args: args, want: want} }

func (rc *wireConn) run(steps []wireStep) {
	rc.t.Helper()
	for i, s := range steps {
		if got := rc.do(s.args...); got != s.want {
			rc.t.Fatalf("step %d: %q = %q, want %q", i, s.args, got, s.want)
		}
	}
}

const (
	errNoAuth    = "-NOAUTH Authentication required.\r\n"
	errWrongPass = "-WRONGPASS invalid username-password pair or user is disabled.\r\n"
	errSyntax    = "-ERR syntax error\r\n"
)

func arityErr(name string) string {
	return "-ERR wrong number of arguments for '" + name + "' command\r\n"
}

func TestConnPingAndEcho(t *testing.T) {
	steps := []wireStep{
		wstep("+PONG\r\n", "PING"),
		wstep("+PONG\r\n", "ping"),
		wstep("$0\r\n\r\n", "PING", ""),
		wstep(wireBulk("hello world"), "PING", "hello world"),
		wstep(arityErr("ping"), "PING", "a", "b"),
		wstep("$0\r\n\r\n", "ECHO", ""),
		wstep(wireBulk("\x00\r\n\xff"), "ECHO", "\x00\r\n\xff"),
		wstep(wireBulk(strings.Repeat("e", 100000)), "ECHO", strings.Repeat("e", 100000)),
		wstep(arityErr("echo"), "ECHO"),
		wstep(arityErr("echo"), "ECHO", "a", "b"),
	}
	ts := startServer(t)
	for _, proto := range []int{2, 3} {
		ts.wireProto(t, proto).run(steps)
	}
}

func TestConnQuitRepliesOKAndClosesBeforeLaterCommands(t *testing.T) {
	for _, args := range [][]string{{"QUIT"}, {"quit", "extra", "args"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			ts := startServer(t, "requirepass", "secret")
			rc := ts.wire(t)
			// QUIT needs no authentication; what follows it never runs.
			rc.write(wireCmd(args...) + wireCmd("AUTH", "secret") + wireCmd("SET", "k", "v"))
			if got := rc.reply(); got != "+OK\r\n" {
				t.Fatalf("QUIT = %q", got)
			}
			rc.expectClosed()
			check := ts.wire(t)
			check.run([]wireStep{wstep("+OK\r\n", "AUTH", "secret"), wstep(":0\r\n", "EXISTS", "k")})
		})
	}
}

func TestConnResetRestoresConnectionDefaults(t *testing.T) {
	ts := startServer(t)
	rc := ts.wireProto(t, 3)
	rc.run([]wireStep{
		wstep("+OK\r\n", "SELECT", "5"),
		wstep("+OK\r\n", "CLIENT", "SETNAME", "before-reset"),
		wstep("+OK\r\n", "CLIENT", "SETINFO", "LIB-NAME", "mylib"),
		wstep("+RESET\r\n", "RESET"),
		// Back to RESP2, database 0 and no name.
		wstep("$-1\r\n", "CLIENT", "GETNAME"),
		wstep("+OK\r\n", "SET", "in-db-0", "x"),
		wstep(arityErr("reset"), "RESET", "now"),
	})
	info := textOf(t, 2, rc.do("CLIENT", "INFO"))
	// The library's name describes the connection, not its state: RESET
	// keeps it, as Redis does.
	for _, field := range []string{" db=0 ", " name= ", " resp=2 ", " lib-name=mylib "} {
		if !strings.Contains(info, field) {
			t.Errorf("CLIENT INFO after RESET = %q, want %q in it", info, field)
		}
	}
	if got := ts.wire(t).do("EXISTS", "in-db-0"); got != ":1\r\n" {
		t.Errorf("the key set after RESET is not in database 0: EXISTS = %q", got)
	}
}

func TestConnResetLogsOutWhenAPasswordIsSet(t *testing.T) {
	ts := startServer(t, "requirepass", "secret")
	ts.wire(t).run([]wireStep{
		wstep("+OK\r\n", "AUTH", "secret"),
		wstep("+PONG\r\n", "PING"),
		wstep("+RESET\r\n", "RESET"),
		wstep(errNoAuth, "PING"),
	})
}

func TestHelloSwitchesProtocolAndDescribesTheServer(t *testing.T) {
	ts := startServer(t)
	for _, proto := range []int{2, 3} {
		t.Run("RESP"+strconv.Itoa(proto), func(t *testing.T) {
			rc := ts.wire(t)
			id := rc.clientID()
			p := strconv.Itoa(proto)
			rc.run([]wireStep{
				wstep(helloReply(proto, id), "HELLO", p),
				// Later replies use the protocol.
				wstep(wireNull(proto), "CLIENT", "GETNAME"),
				// HELLO alone keeps the protocol.
				wstep(helloReply(proto, id), "HELLO"),
				wstep(helloReply(proto, id), "hello", p, "setname", "via-hello"),
				wstep(wireBulk("via-hello"), "CLIENT", "GETNAME"),
				// With no password configured the default user takes any.
				wstep(helloReply(proto, id), "HELLO", p, "AUTH", "default", "anything"),
			})
		})
	}
	t.Run("RESP3 back to RESP2", func(t *testing.T) {
		rc := ts.wireProto(t, 3)
		id := rc.clientID()
		rc.run([]wireStep{
			wstep(helloReply(2, id), "HELLO", "2"),
			wstep("$-1\r\n", "CLIENT", "GETNAME"),
		})
	})
}

func TestHelloErrorsLeaveTheConnectionUnchanged(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"HELLO", "1"}, "-NOPROTO unsupported protocol version\r\n"},
		{[]string{"HELLO", "4"}, "-NOPROTO unsupported protocol version\r\n"},
		{[]string{"HELLO", "0"}, "-NOPROTO unsupported protocol version\r\n"},
		{[]string{"HELLO", "-1"}, "-NOPROTO unsupported protocol version\r\n"},
		{[]string{"HELLO", "abc"}, "-ERR Protocol version is not an integer or out of range\r\n"},
		{[]string{"HELLO", "3.0"}, "-ERR Protocol version is not an integer or out of range\r\n"},
		{[]string{"HELLO", "99999999999999999999"}, "-ERR Protocol version is not an integer or out of range\r\n"},
		// The version is checked before the options.
		{[]string{"HELLO", "4", "bogus"}, "-NOPROTO unsupported protocol version\r\n"},
		{[]string{"HELLO", "3", "bogus"}, "-ERR Syntax error in HELLO option 'bogus'\r\n"},
		{[]string{"HELLO", "3", "AUTH", "default"}, "-ERR Syntax error in HELLO option 'AUTH'\r\n"},
		{[]string{"HELLO", "3", "setname"}, "-ERR Syntax error in HELLO option 'setname'\r\n"},
		{[]string{"HELLO", "3", "SETNAME", "ok", "extra"}, "-ERR Syntax error in HELLO option 'extra'\r\n"},
		{[]string{"HELLO", "3", "a\x00b"}, "-ERR Syntax error in HELLO option 'a'\r\n"},
		{[]string{"HELLO", "3", "a\nb"}, "-ERR Syntax error in HELLO option 'a b'\r\n"},
		{[]string{"HELLO", "3", "SETNAME", "a b"}, "-ERR Client names cannot contain spaces, newlines or special characters.\r\n"},
		{[]string{"HELLO", "3", "AUTH", "bob", "pw"}, errWrongPass},
	}
	ts := startServer(t)
	rc := ts.wire(t)
	for _, tt := range tests {
		if got := rc.do(tt.args...); got != tt.want {
			t.Errorf("%q = %q, want %q", tt.args, got, tt.want)
		}
		// Still RESP2 and unnamed.
		if got := rc.do("CLIENT", "GETNAME"); got != "$-1\r\n" {
			t.Fatalf("after %q, CLIENT GETNAME = %q", tt.args, got)
		}
	}
}

func TestHelloAuthenticatesWithRequirePass(t *testing.T) {
	const helloNoauth = "-NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time\r\n"
	ts := startServer(t, "requirepass", "secret")
	rc := ts.wire(t)
	rc.run([]wireStep{
		wstep(helloNoauth, "HELLO"),
		wstep(helloNoauth, "HELLO", "3"),
		wstep(helloNoauth, "HELLO", "3", "SETNAME", "x"),
		wstep(errWrongPass, "HELLO", "3", "AUTH", "default", "wrong"),
		wstep(errWrongPass, "HELLO", "3", "AUTH", "DEFAULT", "secret"),
		wstep(errNoAuth, "PING"),
		// A bad name fails the whole HELLO before it authenticates.
		wstep("-ERR Client names cannot contain spaces, newlines or special characters.\r\n", "HELLO", "2", "SETNAME", "a b", "AUTH", "default", "secret"),
		wstep(errNoAuth, "PING"),
		// A bad version too.
		wstep("-NOPROTO unsupported protocol version\r\n", "HELLO", "5", "AUTH", "default", "secret"),
		wstep(errNoAuth, "PING"),
	})
	// CLIENT ID needs authentication; the id is in HELLO's reply.
	got := rc.do("HELLO", "3", "AUTH", "default", "secret", "SETNAME", "authed")
	m := regexp.MustCompile(`\$2\r\nid\r\n:(\d+)\r\n`).FindStringSubmatch(got)
	if m == nil {
		t.Fatalf("HELLO = %q", got)
	}
	if want := helloReply(3, m[1]); got != want {
		t.Fatalf("HELLO = %q, want %q", got, want)
	}
	rc.run([]wireStep{
		wstep("+PONG\r\n", "PING"),
		wstep(wireBulk("authed"), "CLIENT", "GETNAME"),
		wstep(":"+m[1]+"\r\n", "CLIENT", "ID"),
	})
}

func TestAuthWithRequirePass(t *testing.T) {
	ts := startServer(t, "requirepass", "secret")
	ts.wire(t).run([]wireStep{
		wstep(errNoAuth, "GET", "k"),
		wstep(errNoAuth, "PING"),
		wstep(errNoAuth, "CLIENT", "ID"),
		wstep(errNoAuth, "CONFIG", "GET", "hz"),
		wstep(errNoAuth, "SELECT", "1"),
		// Lookup and arity are checked before authentication.
		wstep("-ERR unknown command 'FOO', with args beginning with: \r\n", "FOO"),
		wstep("-ERR unknown subcommand 'FOO'. Try CONFIG HELP.\r\n", "CONFIG", "FOO"),
		wstep(arityErr("get"), "GET"),
		wstep(arityErr("auth"), "AUTH"),
		wstep(errSyntax, "AUTH", "a", "b", "c"),
		wstep(errWrongPass, "AUTH", "wrong"),
		wstep(errNoAuth, "PING"),
		wstep(errWrongPass, "AUTH", "bob", "secret"),
		wstep(errWrongPass, "AUTH", "DEFAULT", "secret"),
		wstep(errWrongPass, "AUTH", "SECRET"),
		wstep("+OK\r\n", "AUTH", "secret"),
		wstep("+PONG\r\n", "PING"),
		// A failed AUTH does not undo an earlier one.
		wstep(errWrongPass, "AUTH", "wrong"),
		wstep("+PONG\r\n", "PING"),
	})
	ts.wire(t).run([]wireStep{
		wstep("+OK\r\n", "AUTH", "default", "secret"),
		wstep("+PONG\r\n", "PING"),
	})
}

func TestAuthWithoutAConfiguredPassword(t *testing.T) {
	ts := startServer(t)
	ts.wire(t).run([]wireStep{
		wstep("-ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?\r\n", "AUTH", "x"),
		// The default user has no password, so it takes any.
		wstep("+OK\r\n", "AUTH", "default", "x"),
		wstep(errWrongPass, "AUTH", "bob", "x"),
		wstep("+PONG\r\n", "PING"),
	})
}

func TestAuthPasswordChangesApply(t *testing.T) {
	ts := startServer(t)
	before := ts.wire(t)
	before.do("PING")
	admin := ts.wire(t)
	admin.run([]wireStep{wstep("+OK\r\n", "CONFIG", "SET", "requirepass", "s3cret")})
	// A client that was in stays in; a new one must authenticate.
	before.run([]wireStep{wstep("+PONG\r\n", "PING")})
	after := ts.wire(t)
	after.run([]wireStep{wstep(errNoAuth, "PING")})
	// Clearing the password lets the waiting client in.
	admin.run([]wireStep{wstep("+OK\r\n", "CONFIG", "SET", "requirepass", "")})
	after.run([]wireStep{wstep("+PONG\r\n", "PING")})
}

func TestClientIDsAreUniqueAndIncreasing(t *testing.T) {
	ts := startServer(t)
	var prev int64
	for i := range 5 {
		id, err := strconv.ParseInt(ts.wire(t).clientID(), 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 && id <= prev {
			t.Fatalf("client %d has id %d after %d", i, id, prev)
		}
		prev = id
	}
	ts.wire(t).run([]wireStep{wstep(arityErr("client|id"), "CLIENT", "ID", "x")})
}

func TestClientSetNameAndGetName(t *testing.T) {
	const badName = "-ERR Client names cannot contain spaces, newlines or special characters.\r\n"
	ts := startServer(t)
	for _, proto := range []int{2, 3} {
		t.Run("RESP"+strconv.Itoa(proto), func(t *testing.T) {
			rc := ts.wireProto(t, proto)
			steps := []wireStep{
				wstep(wireNull(proto), "CLIENT", "GETNAME"),
				wstep("+OK\r\n", "CLIENT", "SETNAME", "conn-1"),
				wstep(wireBulk("conn-1"), "CLIENT", "GETNAME"),
				wstep("+OK\r\n", "client", "setname", "!~{}[]\"'"),
				wstep(wireBulk("!~{}[]\"'"), "CLIENT", "GETNAME"),
			}
			for _, name := range []string{"a b", "a\nb", "tab\there", "é", "del\x7f", "nul\x00"} {
				steps = append(steps, wstep(badName, "CLIENT", "SETNAME", name))
			}
			steps = append(steps,
				// A refused name leaves the old one.
				wstep(wireBulk("!~{}[]\"'"), "CLIENT", "GETNAME"),
				// An empty name removes it.
				wstep("+OK\r\n", "CLIENT", "SETNAME", ""),
				wstep(wireNull(proto), "CLIENT", "GETNAME"),
				wstep(arityErr("client|setname"), "CLIENT", "SETNAME"),
				wstep(arityErr("client|setname"), "CLIENT", "SETNAME", "a", "b"),
				wstep(arityErr("client|getname"), "CLIENT", "GETNAME", "x"),
			)
			rc.run(steps)
		})
	}
}

// clientFields parses one CLIENT LIST line into its fields in order.
func clientFields(t testing.TB, line string) (keys []string, fields map[string]string) {
	t.Helper()
	fields = map[string]string{}
	for _, kv := range strings.Split(line, " ") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			t.Fatalf("malformed CLIENT LIST field %q in %q", kv, line)
		}
		keys = append(keys, k)
		fields[k] = v
	}
	return keys, fields
}

// clientLines splits CLIENT LIST text into lines, each ending in \n.
func clientLines(t testing.TB, text string) []string {
	t.Helper()
	if text == "" {
		return nil
	}
	if !strings.HasSuffix(text, "\n") {
		t.Fatalf("CLIENT LIST text does not end with a newline: %q", text)
	}
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}

func TestClientListFormatAndFilters(t *testing.T) {
	// Redis 7.2's fields in order; Cairn leaves out those about Redis's
	// buffers and file descriptors, but the rest keep this order.
	redisOrder := []string{"id", "addr", "laddr", "fd", "name", "age", "idle", "flags", "db", "sub", "psub", "ssub", "multi",
		"qbuf", "qbuf-free", "argv-mem", "multi-mem", "rbs", "rbp", "obl", "oll", "omem", "tot-mem", "events",
		"cmd", "user", "redir", "resp", "lib-name", "lib-ver"}
	ts := startServer(t)
	alpha := ts.wire(t)
	alpha.run([]wireStep{wstep("+OK\r\n", "CLIENT", "SETNAME", "alpha"), wstep("+OK\r\n", "SELECT", "2")})
	alphaID := alpha.clientID()
	for _, proto := range []int{2, 3} {
		t.Run("RESP"+strconv.Itoa(proto), func(t *testing.T) {
			rc := ts.wireProto(t, proto)
			myID := rc.clientID()
			lines := clientLines(t, textOf(t, proto, rc.do("CLIENT", "LIST")))
			var ids []int64
			byID := map[string]map[string]string{}
			for _, line := range lines {
				keys, f := clientFields(t, line)
				pos := -1
				for _, k := range keys {
					i := slices.Index(redisOrder, k)
					if i <= pos {
						t.Fatalf("field %q out of Redis's order in %q", k, line)
					}
					pos = i
				}
				id, err := strconv.ParseInt(f["id"], 10, 64)
				if err != nil {
					t.Fatalf("id in %q: %v", line, err)
				}
				ids = append(ids, id)
				byID[f["id"]] = f
			}
			if !slices.IsSorted(ids) {
				t.Errorf("CLIENT LIST not in id order: %v", ids)
			}
			me, a := byID[myID], byID[alphaID]
			if me == nil || a == nil {
				t.Fatalf("CLIENT LIST misses ids %s or %s: %q", myID, alphaID, lines)
			}
			want := map[string]string{
				"addr": rc.nc.LocalAddr().String(), "laddr": ts.addr, "name": "", "db": "0", "flags": "N",
				"cmd": "client|list", "user": "default", "resp": strconv.Itoa(proto), "multi": "-1",
			}
			for k, v := range want {
				if me[k] != v {
					t.Errorf("own line: %s=%q, want %q", k, me[k], v)
				}
			}
			if a["name"] != "alpha" || a["db"] != "2" || a["cmd"] != "client|id" || a["addr"] != alpha.nc.LocalAddr().String() {
				t.Errorf("other client's line = %v", a)
			}

			byType := textOf(t, proto, rc.do("CLIENT", "LIST", "TYPE", "normal"))
			if n := len(clientLines(t, byType)); n != len(lines) {
				t.Errorf("CLIENT LIST TYPE normal has %d lines, CLIENT LIST %d", n, len(lines))
			}
			listed := textOf(t, proto, rc.do("CLIENT", "LIST", "ID", myID, alphaID, alphaID, "99999", "0", "-5"))
			var got []string
			for _, line := range clientLines(t, listed) {
				_, f := clientFields(t, line)
				got = append(got, f["id"])
			}
			if !slices.Equal(got, []string{myID, alphaID, alphaID}) {
				t.Errorf("CLIENT LIST ID %s %s %s ... lists ids %v", myID, alphaID, alphaID, got)
			}
			empty := wireText(proto, "")
			rc.run([]wireStep{
				wstep(empty, "CLIENT", "LIST", "TYPE", "pubsub"),
				wstep(empty, "CLIENT", "LIST", "TYPE", "MASTER"),
				wstep(empty, "CLIENT", "LIST", "TYPE", "replica"),
				wstep(empty, "CLIENT", "LIST", "TYPE", "slave"),
				wstep(empty, "CLIENT", "LIST", "ID", "99999"),
				wstep("-ERR Unknown client type 'bogus'\r\n", "CLIENT", "LIST", "TYPE", "bogus"),
				wstep("-ERR Invalid client ID\r\n", "CLIENT", "LIST", "ID", "abc"),
				wstep("-ERR Invalid client ID\r\n", "CLIENT", "LIST", "ID", myID, "1.5"),
				wstep(errSyntax, "CLIENT", "LIST", "bogus"),
				wstep(errSyntax, "CLIENT", "LIST", "TYPE"),
				wstep(errSyntax, "CLIENT", "LIST", "ID"),
				wstep(errSyntax, "CLIENT", "LIST", "TYPE", "normal", "ID", myID),
				wstep(errSyntax, "CLIENT", "LIST", "TYPE", "normal", "extra"),
			})
		})
	}
}

func TestClientListShowsEachClientsLastCommand(t *testing.T) {
	tests := []struct {
		args    []string
		wantCmd string
	}{
		{[]string{"PING"}, "ping"},
		{[]string{"CONFIG", "GET", "hz"}, "config|get"},
		// Rejected commands count as the last command...
		{[]string{"GET"}, "get"},
		{[]string{"CLIENT", "ID", "extra"}, "client|id"},
		{[]string{"CONFIG"}, "config"},
		// ...but a command Redis does not know is none.
		{[]string{"NOSUCH"}, "NULL"},
		{[]string{"CONFIG", "NOSUCH"}, "NULL"},
	}
	ts := startServer(t)
	watcher := ts.wire(t)
	for _, tt := range tests {
		rc := ts.wire(t)
		id := rc.clientID()
		rc.do(tt.args...)
		_, f := clientFields(t, strings.TrimSuffix(textOf(t, 2, watcher.do("CLIENT", "LIST", "ID", id)), "\n"))
		if f["cmd"] != tt.wantCmd {
			t.Errorf("after %q, cmd=%q, want %q", tt.args, f["cmd"], tt.wantCmd)
		}
	}
}

func TestClientInfoDescribesTheCallingConnection(t *testing.T) {
	ts := startServer(t)
	for _, proto := range []int{2, 3} {
		t.Run("RESP"+strconv.Itoa(proto), func(t *testing.T) {
			rc := ts.wireProto(t, proto)
			rc.run([]wireStep{wstep("+OK\r\n", "SELECT", "3"), wstep("+OK\r\n", "CLIENT", "SETNAME", "me")})
			id := rc.clientID()
			lines := clientLines(t, textOf(t, proto, rc.do("CLIENT", "INFO")))
			if len(lines) != 1 {
				t.Fatalf("CLIENT INFO has %d lines", len(lines))
			}
			_, f := clientFields(t, lines[0])
			want := map[string]string{
				"id": id, "addr": rc.nc.LocalAddr().String(), "laddr": ts.addr, "name": "me", "db": "3",
				"cmd": "client|info", "resp": strconv.Itoa(proto), "user": "default",
			}
			for k, v := range want {
				if f[k] != v {
					t.Errorf("%s=%q, want %q", k, f[k], v)
				}
			}
			rc.run([]wireStep{wstep(arityErr("client|info"), "CLIENT", "INFO", "x")})
		})
	}
}

func TestClientKill(t *testing.T) {
	ts := startServer(t)
	rc := ts.wire(t)
	victim := func() (*wireConn, string) {
		v := ts.wire(t)
		return v, v.clientID()
	}

	t.Run("by address, old form", func(t *testing.T) {
		v, _ := victim()
		rc.run([]wireStep{wstep("+OK\r\n", "CLIENT", "KILL", v.nc.LocalAddr().String())})
		v.expectClosed()
		rc.run([]wireStep{wstep("-ERR No such client\r\n", "CLIENT", "KILL", "1.2.3.4:5")})
	})
	t.Run("itself by address, old form", func(t *testing.T) {
		v, _ := victim()
		v.run([]wireStep{wstep("+OK\r\n", "CLIENT", "KILL", v.nc.LocalAddr().String())})
		v.expectClosed()
	})
	t.Run("by filters", func(t *testing.T) {
		v, id := victim()
		rc.run([]wireStep{wstep(":1\r\n", "CLIENT", "KILL", "ID", id)})
		v.expectClosed()
		rc.run([]wireStep{wstep(":0\r\n", "CLIENT", "KILL", "ID", id)})
		v, _ = victim()
		rc.run([]wireStep{wstep(":1\r\n", "CLIENT", "KILL", "ADDR", v.nc.LocalAddr().String(), "SKIPME", "yes")})
		v.expectClosed()
		v, id = victim()
		rc.run([]wireStep{
			wstep(":0\r\n", "CLIENT", "KILL", "ID", id, "ADDR", "1.2.3.4:5"),
			wstep(":0\r\n", "CLIENT", "KILL", "TYPE", "pubsub"),
			wstep(":1\r\n", "client", "kill", "id", id, "type", "NORMAL", "user", "default", "laddr", ts.addr),
		})
		v.expectClosed()
	})
	t.Run("everyone else", func(t *testing.T) {
		v1, _ := victim()
		v2, _ := victim()
		// Kill the clients of earlier subtests too; none is left open.
		waitUntil(t, 5*time.Second, "killed clients are gone", func() bool {
			return strings.Contains(rc.do("INFO", "clients"), "\r\nconnected_clients:3\r\n")
		})
		rc.run([]wireStep{wstep(":2\r\n", "CLIENT", "KILL", "LADDR", ts.addr)})
		v1.expectClosed()
		v2.expectClosed()
		rc.run([]wireStep{wstep("+PONG\r\n", "PING")})
	})
	t.Run("itself with SKIPME no", func(t *testing.T) {
		v, id := victim()
		v.run([]wireStep{wstep(":1\r\n", "CLIENT", "KILL", "ID", id, "SKIPME", "no")})
		v.expectClosed()
	})
	t.Run("errors", func(t *testing.T) {
		rc.run([]wireStep{
			wstep("-ERR client-id should be greater than 0\r\n", "CLIENT", "KILL", "ID", "abc"),
			wstep("-ERR client-id should be greater than 0\r\n", "CLIENT", "KILL", "ID", "0"),
			wstep("-ERR client-id should be greater than 0\r\n", "CLIENT", "KILL", "ID", "-1"),
			// Three arguments are the old form, whatever they say.
			wstep("-ERR No such client\r\n", "CLIENT", "KILL", "ID"),
			wstep(errSyntax, "CLIENT", "KILL", "bogus", "x"),
			wstep(errSyntax, "CLIENT", "KILL", "ADDR", "1.2.3.4:5", "ID"),
			wstep(errSyntax, "CLIENT", "KILL", "SKIPME", "maybe"),
			wstep("-ERR Unknown client type 'bogus'\r\n", "CLIENT", "KILL", "TYPE", "bogus"),
			wstep("-ERR No such user 'bob'\r\n", "CLIENT", "KILL", "USER", "bob"),
			wstep(arityErr("client|kill"), "CLIENT", "KILL"),
		})
	})
}

func TestClientSetInfo(t *testing.T) {
	ts := startServer(t)
	rc := ts.wire(t)
	rc.run([]wireStep{
		wstep("+OK\r\n", "CLIENT", "SETINFO", "lib-name", "go-redis(v9)"),
		wstep("+OK\r\n", "CLIENT", "SETINFO", "LIB-VER", "9.7.0"),
		wstep("-ERR Unrecognized option 'lib-foo'\r\n", "CLIENT", "SETINFO", "lib-foo", "x"),
		wstep("-ERR Unrecognized option 'a'\r\n", "CLIENT", "SETINFO", "a\x00b", "x"),
		// Redis names the attribute as written.
		wstep("-ERR LIB-NAME cannot contain spaces, newlines or special characters.\r\n", "CLIENT", "SETINFO", "LIB-NAME", "a b"),
		wstep("-ERR lib-ver cannot contain spaces, newlines or special characters.\r\n", "CLIENT", "SETINFO", "lib-ver", "1\n2"),
		wstep(arityErr("client|setinfo"), "CLIENT", "SETINFO", "lib-name"),
	})
	info := textOf(t, 2, rc.do("CLIENT", "INFO"))
	if !strings.HasSuffix(info, " lib-name=go-redis(v9) lib-ver=9.7.0\n") {
		t.Errorf("CLIENT INFO = %q", info)
	}
	rc.run([]wireStep{wstep("+OK\r\n", "CLIENT", "SETINFO", "lib-name", "")})
	if info := textOf(t, 2, rc.do("CLIENT", "INFO")); !strings.HasSuffix(info, " lib-name= lib-ver=9.7.0\n") {
		t.Errorf("CLIENT INFO after clearing lib-name = %q", info)
	}
}

func TestClientHelpAndUnknownSubcommands(t *testing.T) {
	ts := startServer(t)
	for _, tt := range []struct{ cmd, sub string }{{"CLIENT", "KILL"}, {"CONFIG", "RESETSTAT"}, {"COMMAND", "GETKEYS"}} {
		for _, proto := range []int{2, 3} {
			rc := ts.wireProto(t, proto)
			got := rc.do(tt.cmd, "help")
			head := "+" + tt.cmd + " <subcommand> [<arg> [value] [opt] ...]. Subcommands are:\r\n"
			tail := "+HELP\r\n+    Print this help.\r\n"
			lines := strings.Count(got, "\r\n") - 1
			if !strings.HasPrefix(got, "*"+strconv.Itoa(lines)+"\r\n"+head) || !strings.HasSuffix(got, tail) || !strings.Contains(got, "\r\n+"+tt.sub) {
				t.Errorf("%s HELP = %q", tt.cmd, got)
			}
			rc.run([]wireStep{
				wstep(arityErr(strings.ToLower(tt.cmd)+"|help"), tt.cmd, "HELP", "x"),
				wstep("-ERR unknown subcommand 'bogus'. Try "+tt.cmd+" HELP.\r\n", strings.ToLower(tt.cmd), "bogus"),
			})
		}
	}
}

// infoTitles checks INFO's text layout — "# Title" lines, "key:value"
// lines, a blank line between sections — and returns the titles.
func infoTitles(t testing.TB, text string) []string {
	t.Helper()
	if text == "" {
		return nil
	}
	if !strings.HasSuffix(text, "\r\n") || strings.HasSuffix(text, "\r\n\r\n") {
		t.Fatalf("INFO text does not end with exactly one CRLF: %q", text)
	}
	var titles []string
	for i, sec := range strings.Split(strings.TrimSuffix(text, "\r\n"), "\r\n\r\n") {
		lines := strings.Split(sec, "\r\n")
		if !strings.HasPrefix(lines[0], "# ") {
			t.Fatalf("INFO section %d does not start with a \"# Title\" line: %q", i, sec)
		}
		titles = append(titles, lines[0][2:])
		for _, l := range lines[1:] {
			if !regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_|-]*:[^\r\n]*$`).MatchString(l) {
				t.Fatalf("INFO line %q is not key:value", l)
			}
		}
	}
	return titles
}

func TestInfoSectionSelection(t *testing.T) {
	dflt := []string{"Server", "Clients", "Memory", "Persistence", "Stats", "Replication", "CPU", "Modules", "Errorstats", "Cluster", "Keyspace"}
	all := []string{"Server", "Clients", "Memory", "Persistence", "Stats", "Replication", "CPU", "Modules", "Commandstats", "Errorstats", "Latencystats", "Cluster", "Keyspace"}
	tests := []struct {
		args []string
		want []string
	}{
		{nil, dflt},
		{[]string{"default"}, dflt},
		{[]string{"DEFAULT"}, dflt},
		{[]string{"all"}, all},
		// Cairn's engine section is shown as a Redis module's would be:
		// by name or with everything.
		{[]string{"everything"}, append(slices.Clone(all), "Engine")},
		{[]string{"all", "engine"}, append(slices.Clone(all), "Engine")},
		{[]string{"engine"}, []string{"Engine"}},
		{[]string{"module_list"}, []string{"Modules"}},
		{[]string{"default", "commandstats", "latencystats"}, all},
		{[]string{"latencystats"}, []string{"Latencystats"}},
		{[]string{"server"}, []string{"Server"}},
		{[]string{"CLIENTS"}, []string{"Clients"}},
		{[]string{"cpu"}, []string{"CPU"}},
		{[]string{"commandstats"}, []string{"Commandstats"}},
		// Sections come in Redis's order, each once.
		{[]string{"keyspace", "server", "keyspace"}, []string{"Server", "Keyspace"}},
		{[]string{"server", "bogus"}, []string{"Server"}},
		{[]string{"bogus"}, nil},
	}
	ts := startServer(t)
	ts.wire(t).do("SET", "k", "v")
	for _, proto := range []int{2, 3} {
		rc := ts.wireProto(t, proto)
		for _, tt := range tests {
			got := infoTitles(t, textOf(t, proto, rc.do(append([]string{"INFO"}, tt.args...)...)))
			if !slices.Equal(got, tt.want) {
				t.Errorf("RESP%d INFO %q sections = %q, want %q", proto, tt.args, got, tt.want)
			}
		}
		rc.run([]wireStep{
			wstep(wireText(proto, "# Cluster\r\ncluster_enabled:0\r\n"), "INFO", "cluster"),
			wstep(wireText(proto, "# Modules\r\n"), "INFO", "modules"),
			wstep(wireText(proto, ""), "INFO", "bogus"),
		})
	}
}

// infoFields returns the key:value lines of INFO sections as a map.
func infoFields(t testing.TB, rc *wireConn, sections ...string) map[string]string {
	t.Helper()
	text := textOf(t, 2, rc.do(append([]string{"INFO"}, sections...)...))
	infoTitles(t, text)
	out := map[string]string{}
	for _, l := range strings.Split(text, "\r\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && !strings.HasPrefix(l, "#") {
			out[k] = v
		}
	}
	return out
}

func TestInfoServerAndClients(t *testing.T) {
	ts := startServer(t)
	rc := ts.wire(t)
	f := infoFields(t, rc, "server")
	for k, v := range map[string]string{"redis_version": RedisVersion, "redis_mode": "standalone", "hz": "100"} {
		if f[k] != v {
			t.Errorf("INFO server %s = %q, want %q", k, f[k], v)
		}
	}
	if _, err := strconv.ParseInt(f["uptime_in_seconds"], 10, 64); err != nil {
		t.Errorf("uptime_in_seconds = %q", f["uptime_in_seconds"])
	}
	if want := strconv.Itoa(runtime.GOMAXPROCS(0)); f["procs"] != want {
		t.Errorf("INFO server procs = %q, want GOMAXPROCS %s", f["procs"], want)
	}
	others := []*wireConn{ts.wire(t), ts.wire(t)}
	for _, o := range others {
		o.do("PING")
	}
	rc.run([]wireStep{wstep("+OK\r\n", "CONFIG", "SET", "maxclients", "77")})
	f = infoFields(t, rc, "clients")
	if f["connected_clients"] != "3" || f["maxclients"] != "77" || f["blocked_clients"] != "0" {
		t.Errorf("INFO clients = %v", f)
	}
}

func TestInfoKeyspaceCountsKeysAndExpiresPerDatabase(t *testing.T) {
	ts := startServer(t)
	rc := ts.wire(t)
	rc.run([]wireStep{
		wstep(wireText(2, "# Keyspace\r\n"), "INFO", "keyspace"),
		wstep("+OK\r\n", "SET", "a", "1"),
		wstep("+OK\r\n", "SET", "b", "2", "PX", "100000"),
		wstep("+OK\r\n", "SELECT", "3"),
		wstep("+OK\r\n", "SET", "c", "3"),
	})
	text := textOf(t, 2, rc.do("INFO", "keyspace"))
	if !regexp.MustCompile(`^# Keyspace\r\ndb0:keys=2,expires=1,avg_ttl=\d+\r\ndb3:keys=1,expires=0,avg_ttl=0\r\n$`).MatchString(text) {
		t.Errorf("INFO keyspace = %q", text)
	}
}

func TestInfoCommandstatsCountsCallsRejectionsAndFailures(t *testing.T) {
	ts := startServer(t)
	rc := ts.wire(t)
	rc.run([]wireStep{
		wstep("+OK\r\n", "CONFIG", "RESETSTAT"),
		wstep("+PONG\r\n", "PING"),
		wstep(arityErr("get"), "GET"),
		wstep("-ERR unknown subcommand 'BOGUS'. Try CONFIG HELP.\r\n", "CONFIG", "BOGUS"),
		wstep(arityErr("config"), "CONFIG"),
		wstep(arityErr("config|get"), "CONFIG", "GET"),
		wstep("+OK\r\n", "SET", "k", "abc"),
		wstep("-ERR value is not an integer or out of range\r\n", "INCR", "k"),
	})
	want := map[string]string{
		"cmdstat_config|resetstat": "calls=1,rejected_calls=0,failed_calls=0",
		"cmdstat_ping":             "calls=1,rejected_calls=0,failed_calls=0",
		"cmdstat_get":              "calls=0,rejected_calls=1,failed_calls=0",
		"cmdstat_config":           "calls=0,rejected_calls=1,failed_calls=0",
		"cmdstat_config|get":       "calls=0,rejected_calls=1,failed_calls=0",
		"cmdstat_set":              "calls=1,rejected_calls=0,failed_calls=0",
		"cmdstat_incr":             "calls=1,rejected_calls=0,failed_calls=1",
	}
	line := regexp.MustCompile(`^calls=(\d+),usec=\d+,usec_per_call=\d+\.\d\d,rejected_calls=(\d+),failed_calls=(\d+)$`)
	got := infoFields(t, rc, "commandstats")
	for k, v := range got {
		m := line.FindStringSubmatch(v)
		if m == nil {
			t.Errorf("%s:%s is not in Redis's format", k, v)
			continue
		}
		if short := "calls=" + m[1] + ",rejected_calls=" + m[2] + ",failed_calls=" + m[3]; want[k] != short {
			t.Errorf("%s:%s, want %s", k, v, want[k])
		}
		delete(want, k)
	}
	for k := range want {
		t.Errorf("INFO commandstats has no %s", k)
	}
}

func TestInfoCommandstatsLeavesOutTheWaitOfBlockingCommands(t *testing.T) {
	ts := startServer(t)
	rc := ts.wire(t)
	rc.run([]wireStep{
		wstep("+OK\r\n", "CONFIG", "RESETSTAT"),
		wstep("*-1\r\n", "BLPOP", "nolist", "0.3"),
	})
	// Redis counts the time a command ran, not the 300 ms it waited.
	blpopUsec := func() int {
		t.Helper()
		f := infoFields(t, rc, "commandstats")
		m := regexp.MustCompile(`^calls=1,usec=(\d+),`).FindStringSubmatch(f["cmdstat_blpop"])
		if m == nil {
			t.Fatalf("cmdstat_blpop:%s", f["cmdstat_blpop"])
		}
		usec, _ := strconv.Atoi(m[1])
		return usec
	}
	if usec := blpopUsec(); usec >= 300_000 {
		t.Errorf("BLPOP that waited 0.3 s counts %d µs", usec)
	}
	// The same for one served after it waited.
	other := ts.raw(t)
	rc.run([]wireStep{wstep("+OK\r\n", "CONFIG", "RESETSTAT")})
	go func() {
		time.Sleep(300 * time.Millisecond)
		_, _ = other.Write([]byte("*3\r\n$5\r\nLPUSH\r\n$4\r\nlist\r\n$1\r\nx\r\n"))
	}()
	rc.run([]wireStep{wstep("*2\r\n$4\r\nlist\r\n$1\r\nx\r\n", "BLPOP", "list", "0")})
	if usec := blpopUsec(); usec >= 300_000 {
		t.Errorf("BLPOP served after 0.3 s counts %d µs", usec)
	}
}

func TestInfoLatencystats(t *testing.T) {
	ts := startServer(t)
	rc := ts.wire(t)
	rc.run([]wireStep{
		wstep("+OK\r\n", "CONFIG", "RESETSTAT"),
		wstep("+OK\r\n", "SET", "k", "v"),
		wstep("$1\r\nv\r\n", "GET", "k"),
		wstep("$1\r\nv\r\n", "GET", "k"),
		// A rejected command has no latency.
		wstep(arityErr("incr"), "INCR"),
	})
	line := func(ps string) *regexp.Regexp {
		return regexp.MustCompile(`^` + ps + `$`)
	}
	f := infoFields(t, rc, "latencystats")
	num := `\d+\.\d{3}`
	for _, name := range []string{"config|resetstat", "set", "get"} {
		if v := f["latency_percentiles_usec_"+name]; !line("p50=" + num + ",p99=" + num + ",p99.9=" + num).MatchString(v) {
			t.Errorf("latency_percentiles_usec_%s:%s", name, v)
		}
	}
	if v, ok := f["latency_percentiles_usec_incr"]; ok {
		t.Errorf("a rejected INCR has latencies: %s", v)
	}
	// One call's percentiles are its own time, which commandstats reports
	// in microseconds too: the bucket's top is at most 1% above it.
	set := regexp.MustCompile(`p50=(\d+\.\d+)`).FindStringSubmatch(f["latency_percentiles_usec_set"])
	stat := regexp.MustCompile(`usec_per_call=(\d+\.\d+)`).FindStringSubmatch(infoFields(t, rc, "commandstats")["cmdstat_set"])
	if set == nil || stat == nil {
		t.Fatalf("SET: latencystats %v, commandstats %v", set, stat)
	}
	p50, _ := strconv.ParseFloat(set[1], 64)
	perCall, _ := strconv.ParseFloat(stat[1], 64)
	if p50 < perCall-0.01 || p50 > perCall*1.01+0.01 {
		t.Errorf("SET once: p50 %v µs, usec_per_call %v", p50, perCall)
	}
	// The percentiles shown follow the setting, written as Redis writes them.
	rc.run([]wireStep{wstep("+OK\r\n", "CONFIG", "SET", "latency-tracking-info-percentiles", "0 50.50 100")})
	f = infoFields(t, rc, "latencystats")
	if v := f["latency_percentiles_usec_get"]; !line("p0=" + num + ",p50.5=" + num + ",p100=" + num).MatchString(v) {
		t.Errorf("latency_percentiles_usec_get:%s", v)
	}
	rc.run([]wireStep{wstep("+OK\r\n", "CONFIG", "SET", "latency-tracking-info-percentiles", "")})
	if f = infoFields(t, rc, "latencystats"); f["latency_percentiles_usec_get"] != "" {
		t.Errorf("no percentiles: latency_percentiles_usec_get:%s", f["latency_percentiles_usec_get"])
	}
	// Without tracking the section is empty and nothing is recorded; the
	// histograms kept show again once it is back on.
	rc.run([]wireStep{
		wstep("+OK\r\n", "CONFIG", "SET", "latency-tracking", "no", "latency-tracking-info-percentiles", "50"),
		wstep("$1\r\nv\r\n", "GET", "k"),
		wstep(wireText(2, "# Latencystats\r\n"), "INFO", "latencystats"),
		wstep("+OK\r\n", "CONFIG", "SET", "latency-tracking", "yes"),
	})
	if f = infoFields(t, rc, "latencystats"); !line("p50=" + num).MatchString(f["latency_percentiles_usec_get"]) {
		t.Errorf("after tracking is back: %v", f)
	}
	// CONFIG RESETSTAT drops them.
	rc.run([]wireStep{wstep("+OK\r\n", "CONFIG", "RESETSTAT")})
	f = infoFields(t, rc, "latencystats")
	if _, ok := f["latency_percentiles_usec_get"]; ok || len(f) != 1 {
		t.Errorf("after CONFIG RESETSTAT: %v", f)
	}
}

func TestLatencyHistogram(t *testing.T) {
	ts := startServer(t)
	ctx := context.Background()
	for _, proto := range []int{2, 3} {
		c := ts.client(t, proto)
		rc := ts.wireProto(t, proto)
		if err := c.ConfigResetStat(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		rc.run([]wireStep{
			wstep("+OK\r\n", "SET", "k", "v"),
			wstep("+OK\r\n", "SET", "k", "v"),
			wstep(arityErr("incr"), "INCR"),
		})
		// histogram runs LATENCY HISTOGRAM and checks every command's calls
		// against its cumulative steps, which must grow to the calls.
		histogram := func(want []string, args ...any) map[string]int64 {
			t.Helper()
			reply, err := c.Do(ctx, append([]any{"LATENCY", "HISTOGRAM"}, args...)...).Result()
			if err != nil {
				t.Fatalf("RESP%d LATENCY HISTOGRAM %v: %v", proto, args, err)
			}
			calls := map[string]int64{}
			for name, v := range mapReplyByKey(t, reply) {
				h := mapReplyByKey(t, v)
				n := h["calls"].(int64)
				var last, prevBound int64
				for _, step := range mapReplyPairs(t, h["histogram_usec"]) {
					bound, count := step[0].(int64), step[1].(int64)
					if bound <= prevBound || count <= last {
						t.Errorf("RESP%d %s: steps %v do not grow", proto, name, h["histogram_usec"])
					}
					prevBound, last = bound, count
				}
				if n == 0 || last != n {
					t.Errorf("RESP%d %s: calls %d, steps %v", proto, name, n, h["histogram_usec"])
				}
				calls[name] = n
			}
			got := slices.Sorted(maps.Keys(calls))
			if !slices.Equal(got, want) {
				t.Errorf("RESP%d LATENCY HISTOGRAM %v: commands %q, want %q", proto, args, got, want)
			}
			return calls
		}
		if calls := histogram([]string{"set"}, "set"); calls["set"] != 2 {
			t.Errorf("RESP%d: SET calls = %d, want 2", proto, calls["set"])
		}
		// Unknown and never-run (or only rejected) commands are skipped; a
		// container names its subcommands; no names means every command
		// that ran.
		histogram([]string{"config|resetstat", "set"}, "nosuch", "incr", "CONFIG", "set")
		histogram([]string{"config|resetstat", "latency|histogram", "set"})
		// A name given twice is answered twice, as in Redis.
		reply, err := c.Do(ctx, "LATENCY", "HISTOGRAM", "set", "SET").Result()
		if err != nil {
			t.Fatal(err)
		}
		if n := len(mapReplyPairs(t, reply)); proto == 2 && n != 2 {
			t.Errorf("RESP2 LATENCY HISTOGRAM set SET: %d entries, want 2", n)
		}
		// Nothing is recorded while tracking is off.
		rc.run([]wireStep{
			wstep("+OK\r\n", "CONFIG", "SET", "latency-tracking", "no"),
			wstep("+OK\r\n", "SET", "k", "v"),
			wstep("+OK\r\n", "CONFIG", "SET", "latency-tracking", "yes"),
		})
		if calls := histogram([]string{"set"}, "set"); calls["set"] != 2 {
			t.Errorf("RESP%d: SET calls = %d after a SET without tracking, want 2", proto, calls["set"])
		}
		rc.run([]wireStep{
			wstep(arityErr("latency"), "LATENCY"),
			wstep("-ERR unknown subcommand 'NOSUCH'. Try LATENCY HELP.\r\n", "LATENCY", "NOSUCH"),
		})
	}
}

// mapReplyPairs reads a map reply as go-redis returns it, a map in RESP3 and
// a flat array in RESP2, as its key-value pairs in reply order (RESP2) or
// any order (RESP3).
func mapReplyPairs(t testing.TB, v any) [][2]any {
	t.Helper()
	var out [][2]any
	switch m := v.(type) {
	case map[any]any:
		for k, v := range m {
			out = append(out, [2]any{k, v})
		}
		slices.SortFunc(out, func(a, b [2]any) int {
			x, xok := a[0].(int64)
			y, yok := b[0].(int64)
			if xok && yok {
				return cmp.Compare(x, y)
			}
			return cmp.Compare(fmt.Sprint(a[0]), fmt.Sprint(b[0]))
		})
	case []any:
		if len(m)%2 != 0 {
			t.Fatalf("odd map reply %v", m)
		}
		for i := 0; i < len(m); i += 2 {
			out = append(out, [2]any{m[i], m[i+1]})
		}
	default:
		t.Fatalf("not a map reply: %#v", v)
	}
	return out
}

// mapReplyByKey is mapReplyPairs with string keys.
func mapReplyByKey(t testing.TB, v any) map[string]any {
	t.Helper()
	out := map[string]any{}
	for _, kv := range mapReplyPairs(t, v) {
		out[fmt.Sprint(kv[0])] = kv[1]
	}
	return out
}

func TestInfoStatsCountsCommandsAndErrorReplies(t *testing.T) {
	ts := startServer(t)
	rc := ts.wire(t)
	rc.run([]wireStep{
		wstep("+OK\r\n", "CONFIG", "RESETSTAT"),
		wstep("+PONG\r\n", "PING"),
		wstep(arityErr("get"), "GET"),
		wstep("-ERR unknown command 'FOO', with args beginning with: \r\n", "FOO"),
		wstep("-ERR unknown subcommand 'FOO'. Try CONFIG HELP.\r\n", "CONFIG", "FOO"),
		wstep("+OK\r\n", "SET", "k", "abc"),
		wstep("-ERR value is not an integer or out of range\r\n", "INCR", "k"),
		wstep("+OK\r\n", "CONFIG", "SET", "requirepass", "s"),
	})
	ts.wire(t).run([]wireStep{wstep(errNoAuth, "PING")})
	bad := ts.wire(t)
	bad.write("*x\r\n")
	if got := bad.reply(); got != "-ERR Protocol error: invalid multibulk length\r\n" {
		t.Fatalf("protocol error reply = %q", got)
	}
	rc.run([]wireStep{wstep("+OK\r\n", "CONFIG", "SET", "requirepass", "")})
	// Commands that ran count, rejected ones do not; every error reply
	// counts, by its code. These are the numbers Redis 7 gives.
	want := map[string]string{
		"total_connections_received": "2",
		"total_commands_processed":   "6",
		"rejected_connections":       "0",
		"total_error_replies":        "6",
		"errorstat_ERR":              "count=5",
		"errorstat_NOAUTH":           "count=1",
	}
	got := infoFields(t, rc, "stats", "errorstats")
	for k, v := range want {
		if got[k] != v {
			t.Errorf("INFO %s = %q, want %q", k, got[k], v)
		}
	}
	for k := range got {
		if strings.HasPrefix(k, "errorstat_") && want[k] == "" {
			t.Errorf("unexpected INFO %s:%s", k, got[k])
		}
	}
	rc.run([]wireStep{wstep("+OK\r\n", "CONFIG", "RESETSTAT")})
	got = infoFields(t, rc, "stats", "errorstats")
	if got["total_error_replies"] != "0" || got["total_commands_processed"] != "1" || got["errorstat_ERR"] != "" {
		t.Errorf("after CONFIG RESETSTAT: %v", got)
	}
}

// total_reads_processed counts the socket reads that brought requests: a
// pipeline read at once is one read for all its commands, which is what
// the procs governor reads as how deeply clients pipeline.
func TestInfoStatsCountsReadsAndWrites(t *testing.T) {
	ts := startServer(t)
	rc := ts.wire(t)
	rc.run([]wireStep{wstep("+OK\r\n", "CONFIG", "RESETSTAT")})
	rc.write(strings.Repeat("*1\r\n$4\r\nPING\r\n", 5))
	for range 5 {
		if got := rc.reply(); got != "+PONG\r\n" {
			t.Fatalf("pipelined PING = %q", got)
		}
	}
	got := infoFields(t, rc, "stats")
	// RESETSTAT counts itself and its reply; INFO's read counts, its
	// reply is written after the figures are taken.
	for k, want := range map[string]string{
		"total_commands_processed": "6",
		"total_reads_processed":    "2",
		"total_writes_processed":   "2",
	} {
		if got[k] != want {
			t.Errorf("INFO %s = %q, want %q", k, got[k], want)
		}
	}
}

// A sorted set created since start has a member filter: INFO shows it, and
// the lookups it spares a ZADD of new members.
func TestInfoMemberFilters(t *testing.T) {
	ts := startServer(t)
	rc := ts.wire(t)
	rc.run([]wireStep{
		wstep(":3\r\n", "ZADD", "z", "1", "a", "2", "b", "3", "c"),
		wstep(":2\r\n", "ZADD", "z", "4", "d", "5", "a", "6", "e"),
	})
	mem, stats := infoFields(t, rc, "memory"), infoFields(t, rc, "stats")
	if mem["member_filters"] != "1" || mem["member_filter_bytes"] == "0" || mem["member_filter_bytes"] == "" {
		t.Errorf("INFO memory: member_filters %q, member_filter_bytes %q; want one filter", mem["member_filters"], mem["member_filter_bytes"])
	}
	// Five new members, each looked up in the filter alone (a false
	// positive, about one in a million here, would send one to Pebble);
	// a, already there, is read from Pebble.
	if n, err := strconv.Atoi(stats["member_lookups_filtered"]); err != nil || n < 4 || n > 5 {
		t.Errorf("INFO stats member_lookups_filtered = %q, want 5", stats["member_lookups_filtered"])
	}
}

func TestConfigGet(t *testing.T) {
	tests := []struct {
		patterns []string
		want     [][2]string
	}{
		{[]string{"maxclients"}, [][2]string{{"maxclients", "10000"}}},
		// An exact name is answered as written.
		{[]string{"MAXCLIENTS"}, [][2]string{{"MAXCLIENTS", "10000"}}},
		{[]string{"maxc*"}, [][2]string{{"maxclients", "10000"}}},
		{[]string{"*MAX-*-LEN"}, [][2]string{{"proto-max-bulk-len", "536870912"}}},
		{[]string{"[gh]z"}, [][2]string{{"hz", "100"}}},
		{[]string{"h?"}, [][2]string{{"hz", "100"}}},
		{[]string{"timeout", "hz"}, [][2]string{{"timeout", "0"}, {"hz", "100"}}},
		// Each parameter once, however many patterns match it.
		{[]string{"hz", "h?", "hz"}, [][2]string{{"hz", "100"}}},
		{[]string{"nosuch"}, nil},
		{[]string{"nosuch*"}, nil},
	}
	ts := startServer(t)
	for _, proto := range []int{2, 3} {
		rc := ts.wireProto(t, proto)
		for _, tt := range tests {
			got := rc.do(append([]string{"CONFIG", "GET"}, tt.patterns...)...)
			// Redis's order among several parameters is its hash table's,
			// so any order of the pairs is right.
			ok := false
			for perm := range permutations(tt.want) {
				head := "*" + strconv.Itoa(2*len(perm)) + "\r\n"
				if proto == 3 {
					head = "%" + strconv.Itoa(len(perm)) + "\r\n"
				}
				for _, kv := range perm {
					head += wireBulk(kv[0]) + wireBulk(kv[1])
				}
				ok = ok || got == head
			}
			if !ok {
				t.Errorf("RESP%d CONFIG GET %q = %q, want %q", proto, tt.patterns, got, tt.want)
			}
		}
		rc.run([]wireStep{wstep(arityErr("config|get"), "CONFIG", "GET")})
	}
}

// permutations yields every order of pairs (few enough in these tests).
func permutations(pairs [][2]string) func(func([][2]string) bool) {
	return func(yield func([][2]string) bool) {
		var rec func(done, rest [][2]string) bool
		rec = func(done, rest [][2]string) bool {
			if len(rest) == 0 {
				return yield(done)
			}
			for i := range rest {
				next := append(slices.Clone(done), rest[i])
				others := append(slices.Clone(rest[:i]), rest[i+1:]...)
				if !rec(next, others) {
					return false
				}
			}
			return true
		}
		rec(nil, pairs)
	}
}

func TestConfigSet(t *testing.T) {
	failed := func(name, reason string) string {
		return "-ERR CONFIG SET failed (possibly related to argument '" + name + "') - " + reason + "\r\n"
	}
	ts := startServer(t)
	rc := ts.wire(t)
	rc.run([]wireStep{
		wstep("+OK\r\n", "CONFIG", "SET", "hz", "20", "MaxClients", "50"),
		wstep("*4\r\n"+wireBulk("hz")+wireBulk("20")+wireBulk("maxclients")+wireBulk("50"), "CONFIG", "GET", "hz", "maxclients"),
		// Every pair is applied or none is.
		wstep(failed("timeout", "argument couldn't be parsed into an integer"), "CONFIG", "SET", "hz", "30", "timeout", "x"),
		wstep("*2\r\n"+wireBulk("hz")+wireBulk("20"), "CONFIG", "GET", "hz"),
		wstep("-ERR Unknown option or number of arguments for CONFIG SET - 'nosuch'\r\n", "CONFIG", "SET", "nosuch", "1"),
		// Unknown names are reported before any other problem...
		wstep("-ERR Unknown option or number of arguments for CONFIG SET - 'nosuch'\r\n", "CONFIG", "SET", "nosuch", "1", "databases", "2"),
		// ...but only up to the first parameter that fails.
		wstep(failed("databases", "can't set immutable config"), "CONFIG", "SET", "databases", "1", "nosuch", "2"),
		wstep(failed("databases", "can't set immutable config"), "CONFIG", "SET", "databases", "1"),
		// Name errors quote the name as written, value errors the
		// parameter's own name.
		wstep(failed("HZ", "duplicate parameter"), "CONFIG", "SET", "hz", "10", "HZ", "11"),
		wstep(failed("Databases", "can't set immutable config"), "CONFIG", "SET", "Databases", "1"),
		wstep(failed("hz", "argument couldn't be parsed into an integer"), "CONFIG", "SET", "HZ", "x"),
		wstep(failed("maxclients", "argument must be between 1 and 4294967295 inclusive"), "CONFIG", "SET", "maxclients", "0"),
		wstep(failed("timeout", "argument must be between 0 and 2147483647 inclusive"), "CONFIG", "SET", "timeout", "-1"),
		wstep(failed("appendfsync", "argument(s) must be one of the following: everysec, always, no"), "CONFIG", "SET", "appendfsync", "sometimes"),
		wstep(failed("proto-max-bulk-len", "argument must be between 1048576 and 9223372036854775807 inclusive"), "CONFIG", "SET", "proto-max-bulk-len", "100"),
		// hz is clamped to 1..500 rather than refused.
		wstep("+OK\r\n", "CONFIG", "SET", "hz", "0"),
		wstep("*2\r\n"+wireBulk("hz")+wireBulk("1"), "CONFIG", "GET", "hz"),
		wstep("+OK\r\n", "CONFIG", "SET", "hz", "1000"),
		wstep("*2\r\n"+wireBulk("hz")+wireBulk("500"), "CONFIG", "GET", "hz"),
		wstep("+OK\r\n", "CONFIG", "SET", "proto-max-bulk-len", "2mb"),
		wstep("*2\r\n"+wireBulk("proto-max-bulk-len")+wireBulk("2097152"), "CONFIG", "GET", "proto-max-bulk-len"),
		wstep(errSyntax, "CONFIG", "SET", "hz", "10", "timeout"),
		wstep(arityErr("config|set"), "CONFIG", "SET", "hz"),
		wstep(arityErr("config|resetstat"), "CONFIG", "RESETSTAT", "x"),
	})
}

func TestConfigSetMaxClientsRejectsExtraConnections(t *testing.T) {
	ts := startServer(t)
	admin := ts.wire(t)
	admin.run([]wireStep{wstep("+OK\r\n", "CONFIG", "SET", "maxclients", "5")})
	conns := []*wireConn{admin}
	for range 4 {
		c := ts.wire(t)
		c.run([]wireStep{wstep("+PONG\r\n", "PING")})
		conns = append(conns, c)
	}
	sixth := ts.wire(t)
	if got := sixth.reply(); got != "-ERR max number of clients reached\r\n" {
		t.Fatalf("sixth connection got %q", got)
	}
	sixth.expectClosed()
	if f := infoFields(t, admin, "stats", "clients"); f["rejected_connections"] != "1" || f["connected_clients"] != "5" {
		t.Errorf("INFO after the refusal: rejected_connections=%s connected_clients=%s", f["rejected_connections"], f["connected_clients"])
	}
	// A freed place can be taken again.
	_ = conns[4].nc.Close()
	waitUntil(t, 5*time.Second, "the closed client is gone", func() bool {
		return infoFields(t, admin, "clients")["connected_clients"] == "4"
	})
	ts.wire(t).run([]wireStep{wstep("+PONG\r\n", "PING")})
}

func TestConfigSetTimeoutClosesIdleClients(t *testing.T) {
	ts := startServer(t)
	idle := ts.wire(t)
	idle.run([]wireStep{wstep("+PONG\r\n", "PING")})
	busy := ts.wire(t)
	busy.run([]wireStep{wstep("+OK\r\n", "CONFIG", "SET", "timeout", "1")})
	// The client that was already waiting is closed about a second later;
	// one that keeps talking is not.
	start := time.Now()
	closed := make(chan time.Duration, 1)
	go func() {
		var b strings.Builder
		_ = idle.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
		err := readRawReply(idle.r, &b)
		if err != nil && b.Len() == 0 && !isTimeout(err) {
			closed <- time.Since(start)
		}
		close(closed)
	}()
	for time.Since(start) < 1500*time.Millisecond {
		busy.run([]wireStep{wstep("+PONG\r\n", "PING")})
		time.Sleep(100 * time.Millisecond)
	}
	d, ok := <-closed
	if !ok {
		t.Fatal("the idle client was not closed")
	}
	if d < 500*time.Millisecond {
		t.Errorf("the idle client was closed after %v, before the timeout", d)
	}
	// Turning the timeout off frees a client already waiting under it.
	idle2 := ts.wire(t)
	idle2.run([]wireStep{wstep("+PONG\r\n", "PING")})
	busy.run([]wireStep{wstep("+OK\r\n", "CONFIG", "SET", "timeout", "0")})
	idle2.expectSilent(1500 * time.Millisecond)
	idle2.run([]wireStep{wstep("+PONG\r\n", "PING")})
}

func isTimeout(err error) bool {
	ne, ok := err.(interface{ Timeout() bool })
	return ok && ne.Timeout()
}

func TestCommandCountListAndInfo(t *testing.T) {
	const configGetInfo2 = "*10\r\n$10\r\nconfig|get\r\n:-3\r\n*4\r\n+admin\r\n+noscript\r\n+loading\r\n+stale\r\n:0\r\n:0\r\n:0\r\n*3\r\n+@admin\r\n+@slow\r\n+@dangerous\r\n*0\r\n*0\r\n*0\r\n"
	const configGetInfo3 = "*10\r\n$10\r\nconfig|get\r\n:-3\r\n~4\r\n+admin\r\n+noscript\r\n+loading\r\n+stale\r\n:0\r\n:0\r\n:0\r\n~3\r\n+@admin\r\n+@slow\r\n+@dangerous\r\n~0\r\n~0\r\n~0\r\n"
	const pingInfo2 = "*10\r\n$4\r\nping\r\n:-1\r\n*1\r\n+fast\r\n:0\r\n:0\r\n:0\r\n*2\r\n+@fast\r\n+@connection\r\n*2\r\n$25\r\nrequest_policy:all_shards\r\n$29\r\nresponse_policy:all_succeeded\r\n*0\r\n*0\r\n"
	const pingInfo3 = "*10\r\n$4\r\nping\r\n:-1\r\n~1\r\n+fast\r\n:0\r\n:0\r\n:0\r\n~2\r\n+@fast\r\n+@connection\r\n~2\r\n$25\r\nrequest_policy:all_shards\r\n$29\r\nresponse_policy:all_succeeded\r\n~0\r\n~0\r\n"
	ts := startServer(t)
	for _, proto := range []int{2, 3} {
		t.Run("RESP"+strconv.Itoa(proto), func(t *testing.T) {
			rc := ts.wireProto(t, proto)
			count := rc.do("COMMAND", "COUNT")
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(count, ":"), "\r\n"))
			if err != nil || n < 50 {
				t.Fatalf("COMMAND COUNT = %q", count)
			}
			// COMMAND LIST names every command and, after each container,
			// its subcommands, as Redis does.
			list := rc.do("COMMAND", "LIST")
			subs := 0
			for _, s := range ts.srv.table.All() {
				subs += len(s.Subcommands)
			}
			if subs == 0 || !strings.HasPrefix(list, "*"+strconv.Itoa(n+subs)+"\r\n") {
				t.Errorf("COMMAND LIST does not list the %d commands and %d subcommands: %.200q", n, subs, list)
			}
			if !strings.Contains(list, wireBulk("config")+wireBulk("config|get")) {
				t.Errorf("COMMAND LIST does not follow CONFIG with its subcommands: %.300q", list)
			}
			for _, name := range []string{"get", "ping", "config", "command", "client", "hello", "client|list", "object|encoding"} {
				if !strings.Contains(list, wireBulk(name)) {
					t.Errorf("COMMAND LIST lacks %s", name)
				}
			}
			// COMMAND alone and COMMAND INFO alone describe every command.
			for _, args := range [][]string{{"COMMAND"}, {"COMMAND", "INFO"}} {
				if got := rc.do(args...); !strings.HasPrefix(got, "*"+strconv.Itoa(n)+"\r\n*10\r\n") || !strings.Contains(got, pingInfo2[:20]) {
					t.Errorf("%q = %.100q, want %d entries", args, got, n)
				}
			}
			cg, pi := configGetInfo2, pingInfo2
			if proto == 3 {
				cg, pi = configGetInfo3, pingInfo3
			}
			rc.run([]wireStep{
				wstep("*4\r\n"+cg+cg+pi+wireNull(proto), "COMMAND", "INFO", "config|get", "CONFIG|GET", "PING", "nosuch"),
				wstep("*2\r\n"+wireNull(proto)+wireNull(proto), "COMMAND", "INFO", "get|nosuch", "nosuch|get"),
				wstep(arityErr("command|count"), "COMMAND", "COUNT", "x"),
			})
			info := rc.do("COMMAND", "INFO", "command", "command|getkeys")
			if !strings.HasPrefix(info, "*2\r\n*10\r\n$7\r\ncommand\r\n:-1\r\n") || !strings.Contains(info, "$15\r\ncommand|getkeys\r\n:-4\r\n") ||
				!strings.Contains(info, wireBulk("nondeterministic_output_order")) {
				t.Errorf("COMMAND INFO command command|getkeys = %.300q", info)
			}
		})
	}
}

func TestCommandDocs(t *testing.T) {
	ts := startServer(t)
	for _, proto := range []int{2, 3} {
		rc := ts.wireProto(t, proto)
		empty, one := "*0\r\n", "*2\r\n"
		if proto == 3 {
			empty, one = "%0\r\n", "%1\r\n"
		}
		rc.run([]wireStep{wstep(empty, "COMMAND", "DOCS", "nosuch")})
		got := rc.do("COMMAND", "DOCS", "get", "nosuch")
		if !strings.HasPrefix(got, one+wireBulk("get")) || !strings.Contains(got, wireBulk("since")+wireBulk("1.0.0")) ||
			!strings.Contains(got, wireBulk("group")+wireBulk("string")) || !strings.Contains(got, wireBulk("summary")) {
			t.Errorf("RESP%d COMMAND DOCS get = %q", proto, got)
		}
		sub := rc.do("COMMAND", "DOCS", "config|get")
		if !strings.HasPrefix(sub, one+wireBulk("config|get")) {
			t.Errorf("RESP%d COMMAND DOCS config|get = %q", proto, sub)
		}
	}
}

func TestCommandListFilterBy(t *testing.T) {
	tests := []struct {
		args []string
		// want must all be listed, notWant none of them.
		want, notWant []string
		exact         bool
	}{
		{args: []string{"PATTERN", "client|*"}, want: []string{"client|id", "client|setname", "client|getname", "client|list", "client|info", "client|kill", "client|setinfo", "client|tracking", "client|caching", "client|getredir", "client|trackinginfo", "client|reply", "client|unblock", "client|pause", "client|unpause", "client|no-evict", "client|no-touch", "client|help"}, exact: true},
		{args: []string{"pattern", "CONFIG|G*"}, want: []string{"config|get"}, exact: true},
		{args: []string{"pattern", "cl*"}, want: []string{"client", "client|id"}, notWant: []string{"config"}},
		// The CLIENT container itself is only @slow, its subcommands
		// @connection.
		{args: []string{"ACLCAT", "connection"}, want: []string{"ping", "echo", "auth", "hello", "client|id", "command", "command|info", "select", "quit", "reset"}, notWant: []string{"get", "config|get", "client"}},
		{args: []string{"aclcat", "ADMIN"}, want: []string{"config|get", "client|kill", "client|list"}, notWant: []string{"ping", "client|id"}},
		{args: []string{"aclcat", "nosuch"}, exact: true},
		{args: []string{"module", "foo"}, exact: true},
	}
	ts := startServer(t)
	rc := ts.wire(t)
	for _, tt := range tests {
		got := rc.do(append([]string{"COMMAND", "LIST", "FILTERBY"}, tt.args...)...)
		var names []string
		for _, l := range strings.Split(got, "\r\n")[1:] {
			if l != "" && !strings.HasPrefix(l, "$") {
				names = append(names, l)
			}
		}
		for _, w := range tt.want {
			if !slices.Contains(names, w) {
				t.Errorf("FILTERBY %q lacks %s: %q", tt.args, w, names)
			}
		}
		for _, w := range tt.notWant {
			if slices.Contains(names, w) {
				t.Errorf("FILTERBY %q lists %s", tt.args, w)
			}
		}
		if tt.exact && len(names) != len(tt.want) {
			t.Errorf("FILTERBY %q = %q, want exactly %q", tt.args, names, tt.want)
		}
	}
	rc.run([]wireStep{
		wstep(errSyntax, "COMMAND", "LIST", "FILTERBY", "bogus", "x"),
		wstep(errSyntax, "COMMAND", "LIST", "FILTERBY", "pattern"),
		wstep(errSyntax, "COMMAND", "LIST", "FILTERBY", "pattern", "x", "y"),
		wstep(errSyntax, "COMMAND", "LIST", "bogus"),
	})
}

func TestCommandGetKeys(t *testing.T) {
	keys := func(ks ...string) string {
		out := "*" + strconv.Itoa(len(ks)) + "\r\n"
		for _, k := range ks {
			out += wireBulk(k)
		}
		return out
	}
	ts := startServer(t)
	ts.wire(t).run([]wireStep{
		wstep(keys("a"), "COMMAND", "GETKEYS", "get", "a"),
		wstep(keys("a"), "COMMAND", "GETKEYS", "SET", "a", "b", "EX", "10"),
		wstep(keys("a", "c"), "COMMAND", "GETKEYS", "mset", "a", "b", "c", "d"),
		wstep(keys("a", "b", "c"), "COMMAND", "GETKEYS", "del", "a", "b", "c"),
		wstep(keys("src", "dst"), "COMMAND", "GETKEYS", "rename", "src", "dst"),
		wstep("-ERR The command has no key arguments\r\n", "COMMAND", "GETKEYS", "ping", "x"),
		wstep("-ERR The command has no key arguments\r\n", "COMMAND", "GETKEYS", "echo", "x"),
		wstep("-ERR The command has no key arguments\r\n", "COMMAND", "GETKEYS", "config", "get", "x"),
		wstep("-ERR Invalid command specified\r\n", "COMMAND", "GETKEYS", "nosuch", "a"),
		wstep("-ERR Invalid number of arguments specified for command\r\n", "COMMAND", "GETKEYS", "get", "a", "b"),
		// GETKEYS needs a command and at least one argument for it.
		wstep(arityErr("command|getkeys"), "COMMAND", "GETKEYS", "get"),
		wstep(arityErr("command|getkeys"), "COMMAND", "GETKEYS", "ping"),
		wstep(arityErr("command|getkeys"), "COMMAND", "GETKEYS"),
	})
}

func TestTimeAndLastSave(t *testing.T) {
	ts := startServer(t)
	rc := ts.wire(t)
	got := rc.do("TIME")
	m := regexp.MustCompile(`^\*2\r\n\$\d+\r\n(\d+)\r\n\$\d+\r\n(\d+)\r\n$`).FindStringSubmatch(got)
	if m == nil {
		t.Fatalf("TIME = %q", got)
	}
	sec, _ := strconv.ParseInt(m[1], 10, 64)
	usec, _ := strconv.ParseInt(m[2], 10, 64)
	if now := time.Now().Unix(); sec < now-5 || sec > now+5 || usec > 999999 {
		t.Errorf("TIME = %d s %d µs, now is %d", sec, usec, now)
	}
	got = rc.do("LASTSAVE")
	last, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimPrefix(got, ":"), "\r\n"), 10, 64)
	if err != nil || last <= 0 || last > time.Now().Unix() {
		t.Errorf("LASTSAVE = %q", got)
	}
	rc.run([]wireStep{
		wstep(arityErr("time"), "TIME", "x"),
		wstep(arityErr("lastsave"), "LASTSAVE", "x"),
	})
}

func TestUnknownCommandAndArityErrors(t *testing.T) {
	unknown := func(name string, args ...string) string {
		s := "-ERR unknown command '" + name + "', with args beginning with: "
		for _, a := range args {
			s += "'" + a + "' "
		}
		return s + "\r\n"
	}
	a30 := strings.Repeat("a", 30)
	ts := startServer(t)
	ts.wire(t).run([]wireStep{
		wstep(unknown("foo"), "foo"),
		wstep(unknown("FOO", "a", "b"), "FOO", "a", "b"),
		wstep(unknown("foo", ""), "foo", ""),
		wstep(unknown("", "a"), "", "a"),
		wstep(unknown("foo", "%s%d"), "foo", "%s%d"),
		// Names and arguments are cut to 128 bytes, the quoted arguments
		// stop once 128 bytes of them are written.
		wstep(unknown(strings.Repeat("x", 128), strings.Repeat("y", 128)), strings.Repeat("x", 200), strings.Repeat("y", 200)),
		wstep(unknown("foo", a30, a30, a30, a30[:29]), append([]string{"foo"}, wireRepeat(a30, 10)...)...),
		// Redis formats them with %s, which ends at a NUL, and error
		// replies cannot hold CR or LF.
		wstep(unknown("fo", "a", "c"), "fo\x00o", "a\x00b", "c"),
		wstep(unknown("fo  o", "a b"), "fo\r\no", "a\nb"),
		wstep("-ERR unknown subcommand 'nosuch'. Try CONFIG HELP.\r\n", "config", "nosuch"),
		wstep("-ERR unknown subcommand 'a'. Try CLIENT HELP.\r\n", "Client", "a\x00b"),
		wstep("-ERR unknown subcommand '"+strings.Repeat("s", 128)+"'. Try COMMAND HELP.\r\n", "command", strings.Repeat("s", 300)),
		wstep(arityErr("config"), "CONFIG"),
		wstep(arityErr("client"), "client"),
		wstep(arityErr("config|get"), "CONFIG", "GET"),
		wstep(arityErr("config|get"), "config", "get"),
		wstep(arityErr("client|id"), "CLIENT", "ID", "x"),
		wstep(arityErr("echo"), "ECHO"),
		wstep(arityErr("select"), "SELECT"),
		wstep("-ERR DB index is out of range\r\n", "SELECT", "16"),
		wstep("-ERR DB index is out of range\r\n", "SELECT", "-1"),
		wstep("-ERR value is not an integer or out of range\r\n", "SELECT", "x"),
	})
}

// TestHelloThroughGoRedis checks that a real client library negotiates
// both protocols and reads the replies the tests above check by bytes.
func TestHelloThroughGoRedis(t *testing.T) {
	bothProtocols(t, func(t *testing.T, ts *testServer, c *redis.Client) {
		ctx := context.Background()
		if err := c.Do(ctx, "CLIENT", "SETNAME", "gr").Err(); err != nil {
			t.Fatal(err)
		}
		name, err := c.ClientGetName(ctx).Result()
		if err != nil || name != "gr" {
			t.Fatalf("CLIENT GETNAME = %q, %v", name, err)
		}
		info, err := c.Info(ctx, "server").Result()
		if err != nil || !strings.HasPrefix(info, "# Server\r\nredis_version:"+RedisVersion+"\r\n") {
			t.Fatalf("INFO server = %q, %v", info, err)
		}
		cfg, err := c.ConfigGet(ctx, "hz").Result()
		if err != nil || cfg["hz"] != "100" {
			t.Fatalf("CONFIG GET hz = %v, %v", cfg, err)
		}
		list, err := c.ClientList(ctx).Result()
		if err != nil || !strings.Contains(list, " name=gr ") {
			t.Fatalf("CLIENT LIST = %q, %v", list, err)
		}
	})
}
