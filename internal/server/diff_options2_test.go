package server

import (
	"strings"
	"testing"
	"time"
)

// More option names spelled the ways Redis reads differently from Go's
// string functions (see diff_options_test.go): the list, sorted set,
// connection and server commands. Each site is probed with a NUL byte
// after the name, which Redis's strcasecmp stops at, and, where the name
// has an s, a k or an i, with the long s (ſ), the Kelvin sign (K) or the
// dotless i (ı), which strings.EqualFold, strings.ToUpper or
// strings.ToLower take for ASCII letters and Redis does not.

// listZsetOptionCases are sent to Redis and Cairn in order, every reply
// compared.
var listZsetOptionCases = [][]string{
	{"RPUSH", "l", "a", "b", "c", "a", "b", "c", "a"},
	{"ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d"},
	{"ZADD", "y", "1", "b", "5", "d", "9", "e"},
	{"ZADD", "one", "7", "m"},

	// LEFT and RIGHT of LMOVE, BLMOVE, LMPOP and BLMPOP; LMPOP's COUNT.
	{"LMOVE", "l", "l2", "LEFT\x00junk", "right\x00"},
	{"LMOVE", "l", "l2", "lEfT", "RIGHT"},
	{"LMOVE", "l", "l2", "LEF\x00T", "RIGHT"},
	{"LMOVE", "l", "l2", "\x00LEFT", "RIGHT"},
	{"BLMOVE", "l2", "l", "right\x00", "LEFT\x00x", "0"},
	{"BLMOVE", "l2", "l", "R\u0131GHT", "LEFT", "0"},
	{"LMPOP", "1", "l", "LEFT\x00x", "COUNT\x00y", "2"},
	{"LMPOP", "2", "nosuch", "l", "right\x00", "count\x00", "1"},
	{"LMPOP", "1", "l", "LEFT", "COUN\x00T", "1"},
	{"LMPOP", "1", "l", "LEFT", "COUNT ", "1"},
	{"BLMPOP", "0", "1", "l", "LEFT\x00", "COUNT\x00", "1"},
	{"BLMPOP", "0", "1", "l", "RIGH", "COUNT", "1"},
	{"RPUSH", "l", "a", "x", "a", "y", "a"},
	{"LRANGE", "l", "0", "-1"},

	// LINSERT's BEFORE and AFTER.
	{"LINSERT", "l", "BEFORE\x00junk", "x", "X"},
	{"LINSERT", "l", "after\x00", "x", "Y"},
	{"LINSERT", "l", "AFTER ", "x", "Z"},
	{"LINSERT", "l", "\x00AFTER", "x", "Z"},
	{"LRANGE", "l", "0", "-1"},

	// LPOS's RANK, COUNT and MAXLEN.
	{"LPOS", "l", "a", "RANK\x00x", "-1"},
	{"LPOS", "l", "a", "rank\x00", "2", "COUNT\x00", "0"},
	{"LPOS", "l", "a", "MAXLEN\x00junk", "3", "COUNT", "0"},
	{"LPOS", "l", "a", "RAN\u212A", "1"},
	{"LPOS", "l", "a", "RANK ", "1"},

	// ZADD's flags.
	{"ZADD", "z", "NX\x00junk", "1", "a"},
	{"ZADD", "z", "xx\x00", "CH\x00", "5", "a"},
	{"ZADD", "z", "INCR\x00x", "2", "a"},
	{"ZADD", "z", "GT\x00", "ch", "1", "a"},
	{"ZADD", "z", "lt\x00", "Ch\x00", "1", "a"},
	{"ZADD", "z", "N\x00X", "1", "q"},
	{"ZADD", "z", "NX", "XX\x00", "1", "a"},
	{"ZADD", "z", "GT", "lT\x00x", "1", "a"},
	{"ZRANGE", "z", "0", "-1", "WITHSCORES"},

	// ZRANGE's options and those of its older forms.
	{"ZRANGE", "z", "0", "-1", "WITHSCORES\x00junk"},
	{"ZRANGE", "z", "0", "-1", "WITH\u017FCORES"},
	{"ZRANGE", "z", "0", "-1", "W\u0131THSCORES"},
	{"ZRANGE", "z", "(1", "+inf", "BYSCORE\x00", "LIMIT\x00x", "0", "2", "WITHSCORES"},
	{"ZRANGE", "z", "+inf", "-inf", "BY\u017FCORE", "REV"},
	{"ZRANGE", "z", "[z", "-", "BYLEX\x00", "REV\x00"},
	{"ZRANGE", "z", "0", "-1", "REV ", "WITHSCORES"},
	{"ZRANGE", "z", "0", "-1", "rev\x00", "LIMIT", "0", "1"},
	{"ZRANGESTORE", "dst", "z", "5", "0", "BYSCORE\x00", "REV\x00x"},
	{"ZRANGE", "dst", "0", "-1", "WITHSCORES"},
	{"ZRANGESTORE", "dst", "z", "0", "-1", "WITHSCORES\x00"},
	{"ZRANGEBYSCORE", "z", "-inf", "+inf", "withscores\x00", "limit\x00", "1", "2"},
	{"ZRANGEBYSCORE", "z", "-inf", "+inf", "WITH\u017FCORES"},
	{"ZREVRANGEBYSCORE", "z", "+inf", "-inf", "LIMIT\x00", "0", "1"},
	{"ZRANGEBYLEX", "z", "-", "+", "LIMIT\x00x", "0", "2"},
	{"ZREVRANGEBYLEX", "z", "+", "-", "LIMIT\x00", "1", "1"},
	{"ZREVRANGE", "z", "0", "-1", "WITHSCORES\x00"},

	// ZRANDMEMBER's WITHSCORES; a one-member set makes the reply certain.
	{"ZRANDMEMBER", "one", "1", "WITHSCORES\x00junk"},
	{"ZRANDMEMBER", "one", "-2", "wItHsCoReS"},
	{"ZRANDMEMBER", "one", "1", "WITH\u017FCORES"},
	{"ZRANDMEMBER", "one", "1", "WITHSCORES\x01"},

	// The options of ZUNION, ZINTER, ZDIFF, ZINTERCARD and the STORE forms.
	{"ZUNION", "2", "z", "y", "WEIGHTS\x00", "1", "2", "AGGREGATE\x00x", "MAX\x00y", "WITHSCORES\x00"},
	{"ZUNION", "2", "z", "y", "AGGREGATE", "\u017FUM"},
	{"ZUNION", "2", "z", "y", "AGGREGATE", "MIN ", "WITHSCORES"},
	{"ZUNION", "2", "z", "y", "WEIGHT\u017F", "1", "1"},
	{"ZINTER", "2", "z", "y", "aggregate\x00", "min\x00", "withscores\x00"},
	{"ZINTER", "2", "z", "y", "WEIGHTS", "1", "1", "WITH\u017FCORES"},
	{"ZINTER", "2", "z", "y", "AGGREGATE", "sum\x00", "WITHSCORES"},
	{"ZDIFF", "2", "z", "y", "WITHSCORES\x00"},
	{"ZDIFF", "2", "z", "y", "WITH\u017FCORES"},
	{"ZINTERCARD", "2", "z", "y", "LIMIT\x00", "1"},
	{"ZINTERCARD", "2", "z", "y", "L\u0131MIT", "1"},
	{"ZUNIONSTORE", "d", "2", "z", "y", "WEIGHTS\x00x", "2", "3", "AGGREGATE\x00", "SUM\x00"},
	{"ZRANGE", "d", "0", "-1", "WITHSCORES"},
	{"ZINTERSTORE", "d", "2", "z", "y", "AGGREGATE", "MAX\x00"},
	{"ZRANGE", "d", "0", "-1", "WITHSCORES"},
	{"ZINTERSTORE", "d", "2", "z", "y", "WITHSCORES"},
	{"ZUNIONSTORE", "d", "2", "z", "y", "AGGREGATE", "\u017FUM"},

	// ZMPOP and BZMPOP's MIN, MAX and COUNT.
	{"ZMPOP", "1", "z", "MIN\x00x", "COUNT\x00", "1"},
	{"ZMPOP", "2", "nosuch", "z", "max\x00"},
	{"ZMPOP", "1", "z", "MI\x00N"},
	{"ZMPOP", "1", "z", "MAX", "COUNT ", "1"},
	{"BZMPOP", "0", "1", "z", "MAX\x00", "count\x00x", "2"},
	{"BZMPOP", "0", "1", "y", "M\u0131N"},
	{"ZRANGE", "z", "0", "-1", "WITHSCORES"},
}

func TestDiffOptionNamesListZset(t *testing.T) {
	d := newDiffRun(t)
	for _, args := range listZsetOptionCases {
		d.same(args...)
	}
}

// serverOptionCases are sent to Redis and Cairn in order, every reply
// compared: the connection and server commands, where replies that name
// the server or the connection (HELLO's map, CLIENT LIST's lines) cannot be
// compared, so most cases end in an error or an empty answer.
var serverOptionCases = [][]string{
	// HELLO's AUTH and SETNAME. Redis's default user has no password, so
	// only an unknown user fails.
	{"HELLO", "2", "AUTH\x00", "nouser", "pw"},
	{"HELLO", "2", "SETNAME\x00x", "a b"},
	{"HELLO", "2", "\u017FETNAME", "x"},
	{"HELLO", "2", "AUTH ", "default", "pw"},
	{"HELLO", "2", "BAD\x00junk"},

	// CLIENT LIST's TYPE and ID; no client is a master, a replica or a
	// subscriber, and none has the id.
	{"CLIENT", "LIST", "TYPE\x00x", "pubsub\x00y"},
	{"CLIENT", "LIST", "type", "master\x00"},
	{"CLIENT", "LIST", "TYPE", "replica\x00", "x"},
	{"CLIENT", "LIST", "TYPE", "bogus\x00x"},
	{"CLIENT", "LIST", "ID\x00", "99999"},
	{"CLIENT", "LIST", "ID ", "99999"},

	// CLIENT KILL's filters. No case may match the harness's own clients.
	{"CLIENT", "KILL", "ID\x00x", "99999"},
	{"CLIENT", "KILL", "\u0131D", "99999"},
	{"CLIENT", "KILL", "TYPE", "master\x00", "SKIPME", "no\x00"},
	{"CLIENT", "KILL", "type\x00", "slave", "skipme\x00", "yes\x00x"},
	{"CLIENT", "KILL", "TYPE", "bogus\x00x"},
	{"CLIENT", "KILL", "\u017FKIPME", "no", "ID", "99999"},
	{"CLIENT", "KILL", "SKIPME", "no ", "ID", "99999"},
	{"CLIENT", "KILL", "LADDR\x00", "1.2.3.4:5"},
	{"CLIENT", "KILL", "addr\x00x", "1.2.3.4:5"},
	// An empty address matches no client, not every client.
	{"CLIENT", "KILL", "ADDR", "", "SKIPME", "no"},
	{"CLIENT", "KILL", "ADDR", "\x00127.0.0.1:1", "SKIPME", "no"},
	{"CLIENT", "KILL", "LADDR", "", "SKIPME", "no"},
	// The user name is looked up whole, and quoted up to the NUL.
	{"CLIENT", "KILL", "USER", "default\x00"},
	{"CLIENT", "KILL", "user\x00", "nouser"},
	{"CLIENT", "KILL", "1.2.3.4:5\x00x"},

	// COMMAND LIST's FILTERBY (the list comes in one order: one command).
	{"COMMAND", "LIST", "FILTERBY\x00x", "PATTERN", "lmp*"},
	{"COMMAND", "LIST", "filterby\x00", "pattern\x00", "lmp*"},
	{"COMMAND", "LIST", "FILTERBY ", "PATTERN", "lmp*"},

	// INFO's section names: lower-cased ASCII only, up to the NUL.
	{"INFO", "cluster\x00x"},
	{"INFO", "CLUSTER\x00junk", "modules\x00"},
	{"INFO", "\u212Aeyspace"},
	{"INFO", "\u212Aeyspace", "Cluster"},
	{"INFO", "cluster "},

	// CONFIG GET finds glob characters and matches a glob up to the NUL;
	// CONFIG SET quotes an unknown name up to it.
	{"CONFIG", "GET", "timeout*\x00junk"},
	{"CONFIG", "GET", "tcp-keepalive*\x00"},
	{"CONFIG", "GET", "time\x00*"},
	{"CONFIG", "GET", "\u212Aey*"},
	{"CONFIG", "GET", "T\u0131MEOUT"},
	{"CONFIG", "SET", "", "1"},
	{"CONFIG", "SET", "\x00x", "1"},
	{"CONFIG", "SET", "bad\x00junk", "1"},

	// SHUTDOWN's options, only as far as an error: Redis refuses ABORT
	// with any other option and NOSAVE with SAVE, after reading them all.
	{"SHUTDOWN", "ABORT\x00junk"},
	{"SHUTDOWN", "abort", "abort"},
	{"SHUTDOWN", "ABORT", "NOSAVE"},
	{"SHUTDOWN", "NOSAVE", "ABORT"},
	{"SHUTDOWN", "now\x00", "ABORT"},
	{"SHUTDOWN", "ABORT", "bad"},
	{"SHUTDOWN", "ABORT ", "NOW"},
	// Cairn used to shut down on these: the last cases, so that a
	// regression stops the run here.
	{"SHUTDOWN", "NOSAVE", "SAVE"},
	{"SHUTDOWN", "\u017Fave"},
	{"SHUTDOWN", "NO\u017FAVE"},
}

// unorderedServerOptionCases reply with arrays in no defined order.
var unorderedServerOptionCases = [][]string{
	{"COMMAND", "LIST", "FILTERBY\x00x", "PATTERN", "sinter*"},
}

func TestDiffOptionNamesServer(t *testing.T) {
	d := newDiffRun(t)
	for _, args := range unorderedServerOptionCases {
		d.sameUnordered(false, args...)
	}

	// An exact CONFIG name with a NUL in it names no setting: Redis looks
	// it up whole in a dict hashed over the whole name and compared with
	// strcasecmp, so, as with command names (TestDiffOptions), in about
	// one run in the dict's size the name shares the setting's bucket
	// and Redis finds the setting. Cairn must answer as Redis otherwise
	// does.
	d.sameNULNames([]nulName{
		{[]string{"CONFIG", "GET", "timeout\x00"}, []string{"CONFIG", "GET", "timeout"}, "*0\r\n"},
		{[]string{"CONFIG", "GET", "TIMEOUT\x00x"}, []string{"CONFIG", "GET", "TIMEOUT"}, "*0\r\n"},
		{[]string{"CONFIG", "SET", "timeout\x00", "0"}, []string{"CONFIG", "SET", "timeout", "0"},
			"-ERR Unknown option or number of arguments for CONFIG SET - 'timeout'\r\n"},
	})

	for _, args := range serverOptionCases {
		d.same(args...)
	}
}

// TestOptionNamesConnServer checks what the differential tests cannot:
// syntax that Redis 7.0.15 lacks (ZRANK WITHSCORE and CLIENT SETINFO of
// 7.2, CLIENT KILL MAXAGE of 7.4), replies that name the connection or
// the server, and options that kill a connection or stop the server. The
// replies are those of the current Redis, which reads every one of these
// names with strcasecmp and compares addresses with strcmp.
func TestOptionNamesConnServer(t *testing.T) {
	ts := startServer(t)
	rc := ts.wire(t)
	tests := []struct {
		args []string
		want string // the reply, or with a trailing "…" its start
	}{
		{[]string{"ZADD", "z", "1.5", "a", "2", "b"}, ":2\r\n"},
		{[]string{"ZRANK", "z", "b", "WITHSCORE\x00junk"}, "*2\r\n:1\r\n$1\r\n2\r\n"},
		{[]string{"ZREVRANK", "z", "a", "withscore\x00"}, "*2\r\n:1\r\n$3\r\n1.5\r\n"},
		{[]string{"ZRANK", "z", "a", "WITH\u017FCORE"}, "-ERR syntax error\r\n"},
		{[]string{"ZREVRANK", "z", "a", "W\u0131THSCORE"}, "-ERR syntax error\r\n"},
		{[]string{"ZRANK", "z", "a", "WITHSCORE "}, "-ERR syntax error\r\n"},

		{[]string{"CLIENT", "SETINFO", "LIB-NAME\x00x", "mylib"}, "+OK\r\n"},
		{[]string{"CLIENT", "SETINFO", "lib-ver\x00", "1.2"}, "+OK\r\n"},
		{[]string{"CLIENT", "SETINFO", "LIB-NAME\x00x", "a b"}, "-ERR LIB-NAME cannot contain spaces, newlines or special characters.\r\n"},
		{[]string{"CLIENT", "SETINFO", "lib-name ", "x"}, "-ERR Unrecognized option 'lib-name '\r\n"},
		{[]string{"CLIENT", "SETINFO", "BAD\x00junk", "x"}, "-ERR Unrecognized option 'BAD'\r\n"},

		{[]string{"CLIENT", "KILL", "MAXAGE\x00", "100000", "SKIPME", "no"}, ":0\r\n"},
		{[]string{"CLIENT", "KILL", "MAXAGE ", "100000"}, "-ERR syntax error\r\n"},

		// HELLO's SETNAME took effect.
		{[]string{"HELLO", "2", "SETNAME\x00x", "myname"}, "*14\r\n…"},
		{[]string{"CLIENT", "GETNAME"}, "$6\r\nmyname\r\n"},
	}
	for _, tt := range tests {
		got := rc.do(tt.args...)
		if prefix, ok := strings.CutSuffix(tt.want, "…"); ok {
			if !strings.HasPrefix(got, prefix) {
				t.Errorf("%s = %q, want it to start %q", quoteCommand(tt.args), got, prefix)
			}
		} else if got != tt.want {
			t.Errorf("%s = %q, want %q", quoteCommand(tt.args), got, tt.want)
		}
	}
	if info := rc.do("CLIENT", "INFO"); !strings.Contains(info, " lib-name=mylib lib-ver=1.2\n") {
		t.Errorf("CLIENT INFO after CLIENT SETINFO = %q, want lib-name=mylib lib-ver=1.2", info)
	}
	sections := []struct {
		args      []string
		has, lack []string
	}{
		{[]string{"INFO", "everything\x00"}, []string{"# Server\r\n", "# Commandstats\r\n"}, nil},
		{[]string{"INFO", "ALL\x00junk"}, []string{"# Server\r\n", "# Commandstats\r\n", "# Keyspace\r\n"}, nil},
		{[]string{"INFO", "default\x00"}, []string{"# Server\r\n"}, []string{"# Commandstats\r\n"}},
		{[]string{"INFO", "\u212Aeyspace", "keyspace\x00x"}, []string{"# Keyspace\r\n"}, []string{"# Server\r\n"}},
		{[]string{"INFO", "\u212Aeyspace"}, nil, []string{"# Keyspace\r\n"}},
	}
	for _, s := range sections {
		got := rc.do(s.args...)
		for _, h := range s.has {
			if !strings.Contains(got, h) {
				t.Errorf("%s lacks %q", quoteCommand(s.args), h)
			}
		}
		for _, l := range s.lack {
			if strings.Contains(got, l) {
				t.Errorf("%s has %q", quoteCommand(s.args), l)
			}
		}
	}

	// CLIENT KILL compares an address up to its NUL, in both forms; each
	// kill ends the connection that sends it.
	for _, kill := range []func(addr string) []string{
		func(addr string) []string {
			return []string{"CLIENT", "KILL", "ADDR", addr + "\x00junk", "SKIPME", "no"}
		},
		func(addr string) []string {
			return []string{"CLIENT", "KILL", "laddr\x00", ts.addr + "\x00x", "ADDR", addr, "SKIPME", "no"}
		},
		func(addr string) []string { return []string{"CLIENT", "KILL", addr + "\x00junk"} },
	} {
		victim := ts.wire(t)
		args := kill(clientField(t, victim, "addr"))
		want := ":1\r\n"
		if len(args) == 3 {
			want = "+OK\r\n"
		}
		if got := victim.do(args...); got != want {
			t.Errorf("%s = %q, want %q", quoteCommand(args), got, want)
			continue
		}
		_ = victim.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
		if n, err := victim.r.ReadByte(); err == nil {
			t.Errorf("%s: the connection is still open (read %q)", quoteCommand(args), n)
		}
	}
}

// clientField is a field of CLIENT INFO on rc's connection.
func clientField(t *testing.T, rc *wireConn, name string) string {
	t.Helper()
	info := rc.do("CLIENT", "INFO")
	for _, f := range strings.Fields(info) {
		if v, ok := strings.CutPrefix(f, name+"="); ok {
			return v
		}
	}
	t.Fatalf("CLIENT INFO %q has no %s", info, name)
	return ""
}

// TestOptionNamesShutdown checks that SHUTDOWN reads its options as Redis
// does: up to the NUL, only ASCII letters folding.
func TestOptionNamesShutdown(t *testing.T) {
	ts := startServer(t)
	rc := ts.wire(t)
	for _, args := range [][]string{{"SHUTDOWN", "\u017Fave"}, {"SHUTDOWN", "FORCE", "ABORT"}, {"SHUTDOWN", "NOSAVE", "save\x00"}} {
		if got := rc.do(args...); got != "-ERR syntax error\r\n" {
			t.Errorf("%s = %q, want a syntax error", quoteCommand(args), got)
		}
	}
	select {
	case <-ts.srv.ShutdownRequested():
		t.Fatal("a refused SHUTDOWN requested a shutdown")
	default:
	}
	rc.write(wireCmd("SHUTDOWN", "nosave\x00junk", "NOW\x00"))
	select {
	case <-ts.srv.ShutdownRequested():
	case <-time.After(10 * time.Second):
		t.Fatal(`SHUTDOWN "nosave\x00junk" "NOW\x00" requested no shutdown`)
	}
}
