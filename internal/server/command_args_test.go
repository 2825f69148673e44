package server

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/cairndb/cairn/internal/command"
	"github.com/cairndb/cairn/internal/config"
	"github.com/cairndb/cairn/internal/redistest"
	"github.com/redis/go-redis/v9"
)

// argsNewerThan70 are the commands whose documented arguments follow a Redis
// later than 7.0.15, because Cairn implements the later syntax; the
// comparison with redis-server 7.0.15 checks that they do differ from it.
var argsNewerThan70 = map[string]string{
	"zrank":       "7.2 WITHSCORE",
	"zrevrank":    "7.2 WITHSCORE",
	"hscan":       "7.4 NOVALUES",
	"client|kill": "7.4 MAXAGE, with 7.2's argument names",
	"bitop":       "8.2 DIFF, DIFF1, ANDOR and ONE",
}

// undocumentedArgs take arguments that Redis 7.0.15 documents none for
// either: QUIT ignores its arguments, and GETKEYS and GETKEYSANDFLAGS take
// a whole command line; REPLCONF takes option-value pairs.
var undocumentedArgs = map[string]bool{"debug": true, "quit": true, "replconf": true, "command|getkeys": true, "command|getkeysandflags": true}

// TestCommandArgsMatchRedis compares the arguments of COMMAND DOCS, command
// by command, with those of a real redis-server 7.0.15.
func TestCommandArgsMatchRedis(t *testing.T) {
	rc := redistest.Start(t)
	reply, err := rc.Do("COMMAND", "DOCS")
	if err != nil {
		t.Fatal(err)
	}
	want, err := docsArguments(reply)
	if err != nil {
		t.Fatalf("redis-server's COMMAND DOCS: %v", err)
	}
	ts := startServer(t)
	got, err := cairnDocsArguments(ts.client(t, 2))
	if err != nil {
		t.Fatalf("Cairn's COMMAND DOCS: %v", err)
	}
	compared := 0
	for name, args := range got {
		redisArgs, ok := want[name]
		if !ok {
			continue
		}
		g, w := mustFormat(t, name, args), mustFormat(t, name, redisArgs)
		if why, newer := argsNewerThan70[name]; newer {
			if g == w {
				t.Errorf("%s: Cairn's arguments equal Redis 7.0.15's although %q says they follow %s", name, name, why)
			}
			continue
		}
		compared++
		if g != w {
			t.Errorf("%s: COMMAND DOCS arguments\n  Cairn: %s\n  Redis: %s", name, g, w)
		}
	}
	// Guard against a comparison that passes because it compared nothing.
	if compared < 150 {
		t.Errorf("compared the arguments of only %d commands", compared)
	}
}

// TestCommandArgsTable checks the argument table against the command
// table: every command that takes arguments documents them, every entry
// names a command, and every entry is written as FormatArgs writes it, so
// the table reads the same everywhere.
func TestCommandArgsTable(t *testing.T) {
	srv := New(Options{Config: config.Default()})
	seen := map[string]bool{}
	check := func(s *command.Spec, minArity int) {
		seen[s.Name] = true
		takesArgs := s.Arity < 0 || s.Arity > minArity
		if len(s.Subcommands) == 0 && takesArgs && len(s.Args) == 0 && !undocumentedArgs[s.Name] {
			t.Errorf("%s takes arguments but documents none", s.Name)
		}
		if !takesArgs && len(s.Args) > 0 {
			t.Errorf("%s takes no arguments but documents %d", s.Name, len(s.Args))
		}
	}
	for _, s := range srv.table.All() {
		check(s, 1)
		for _, sub := range s.Subcommands {
			check(sub, 2)
		}
	}
	for name, syntax := range commandArgs {
		if !seen[name] {
			t.Errorf("commandArgs has %q, which is not a command", name)
			continue
		}
		if got := mustFormat(t, name, command.MustParseArgs(syntax)); got != syntax {
			t.Errorf("commandArgs[%q] is not in canonical form:\n  have %s\n  want %s", name, syntax, got)
		}
	}
}

func mustFormat(t *testing.T, name string, args []command.Arg) string {
	t.Helper()
	s, err := command.FormatArgs(args)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return s
}

func cairnDocsArguments(c *redis.Client) (map[string][]command.Arg, error) {
	reply, err := c.Do(context.Background(), "COMMAND", "DOCS").Result()
	if err != nil {
		return nil, err
	}
	return docsArguments(reply)
}

// docsArguments reads a RESP2 COMMAND DOCS reply, from go-redis or
// redistest, into each command's and subcommand's arguments by full name.
func docsArguments(reply any) (map[string][]command.Arg, error) {
	pairs, ok := reply.([]any)
	if !ok || len(pairs)%2 != 0 {
		return nil, fmt.Errorf("not a flat map: %T", reply)
	}
	out := map[string][]command.Arg{}
	for i := 0; i < len(pairs); i += 2 {
		name, ok := replyString(pairs[i])
		if !ok {
			return nil, fmt.Errorf("entry %d: name is %T", i/2, pairs[i])
		}
		if err := addDocs(out, name, pairs[i+1]); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	return out, nil
}

func addDocs(out map[string][]command.Arg, name string, docs any) error {
	fields, err := replyMap(docs)
	if err != nil {
		return err
	}
	out[name] = nil
	if v, ok := fields["arguments"]; ok {
		if out[name], err = replyArgs(v); err != nil {
			return err
		}
	}
	if v, ok := fields["subcommands"]; ok {
		subs, ok := v.([]any)
		if !ok || len(subs)%2 != 0 {
			return fmt.Errorf("subcommands: not a flat map")
		}
		for i := 0; i < len(subs); i += 2 {
			sub, _ := replyString(subs[i])
			if err := addDocs(out, sub, subs[i+1]); err != nil {
				return fmt.Errorf("%s: %w", sub, err)
			}
		}
	}
	return nil
}

func replyArgs(v any) ([]command.Arg, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("arguments: %T", v)
	}
	var out []command.Arg
	for _, e := range list {
		m, err := replyMap(e)
		if err != nil {
			return nil, err
		}
		var a command.Arg
		for k, v := range m {
			s, _ := replyString(v)
			switch k {
			case "name":
				a.Name = s
			case "type":
				a.Type = command.ArgType(s)
			case "token":
				a.Token = s
			case "since":
				a.Since = s
			case "deprecated_since":
				a.DeprecatedSince = s
			case "display_text":
				a.DisplayText = s
			case "key_spec_index":
				n, ok := v.(int64)
				if !ok {
					return nil, fmt.Errorf("key_spec_index: %T", v)
				}
				a.KeySpecIndex = int(n)
			case "flags":
				flags, ok := v.([]any)
				if !ok {
					return nil, fmt.Errorf("flags: %T", v)
				}
				for _, f := range flags {
					switch f, _ := replyString(f); f {
					case "optional":
						a.Optional = true
					case "multiple":
						a.Multiple = true
					case "multiple_token":
						a.MultipleToken = true
					default:
						return nil, fmt.Errorf("unknown argument flag %q", f)
					}
				}
			case "arguments":
				var err error
				if a.Args, err = replyArgs(v); err != nil {
					return nil, err
				}
			default:
				return nil, fmt.Errorf("unknown argument field %q", k)
			}
		}
		out = append(out, a)
	}
	return out, nil
}

func replyMap(v any) (map[string]any, error) {
	list, ok := v.([]any)
	if !ok || len(list)%2 != 0 {
		return nil, fmt.Errorf("not a flat map: %T", v)
	}
	m := make(map[string]any, len(list)/2)
	for i := 0; i < len(list); i += 2 {
		k, ok := replyString(list[i])
		if !ok {
			return nil, fmt.Errorf("map key %T", list[i])
		}
		m[k] = list[i+1]
	}
	return m, nil
}

func replyString(v any) (string, bool) {
	switch s := v.(type) {
	case string:
		return s, true
	case []byte:
		return string(s), true
	}
	return "", false
}

// canonReply turns a reply from go-redis or redistest into comparable
// values: strings for both kinds of string, error text without
// redistest's prefix.
func canonReply(v any, err error) any {
	if err != nil {
		var re redis.Error
		if errors.As(err, &re) {
			return "error: " + re.Error()
		}
		return "error: " + strings.TrimPrefix(strings.TrimPrefix(err.Error(), redistest.ErrReply.Error()), ": ")
	}
	switch v := v.(type) {
	case []byte:
		return string(v)
	case []any:
		out := make([]any, len(v))
		for i := range v {
			out[i] = canonReply(v[i], nil)
		}
		return out
	}
	return v
}

// getKeysLines are command lines for COMMAND GETKEYS and GETKEYSANDFLAGS:
// every way of finding keys Cairn has, and each error.
var getKeysLines = [][]string{
	{"get", "a"}, {"set", "a", "b"}, {"set", "a", "b", "GET"}, {"set", "a", "b", "nx", "get", "px", "1"},
	{"set", "a", "b", "EX", "10"}, {"mset", "a", "1", "b", "2"}, {"msetnx", "a", "1", "b", "2"},
	{"del", "a", "b"}, {"unlink", "a"}, {"exists", "a", "b"}, {"rename", "a", "b"}, {"copy", "a", "b"},
	{"getdel", "a"}, {"getex", "a", "persist"}, {"append", "a", "b"}, {"lcs", "a", "b"}, {"incr", "a"},
	{"expire", "a", "1"}, {"object", "encoding", "a"}, {"type", "a"}, {"touch", "a", "b"},
	{"hset", "h", "f", "v"}, {"hgetall", "h"},
	{"lmove", "a", "b", "left", "right"}, {"blmove", "a", "b", "left", "right", "0"}, {"rpoplpush", "a", "b"},
	{"blpop", "a", "b", "0"}, {"lmpop", "2", "a", "b", "left"}, {"blmpop", "0", "2", "a", "b", "left"},
	{"lmpop", "3", "a", "b", "left"}, {"lpush", "a", "x"}, {"lrange", "a", "0", "1"},
	{"sadd", "s", "m"}, {"smove", "a", "b", "m"}, {"sinterstore", "d", "a", "b"}, {"sdiffstore", "d", "a"},
	{"sintercard", "2", "a", "b"}, {"sunion", "a", "b"},
	{"zadd", "z", "1", "m"}, {"zrangestore", "d", "s", "0", "-1"}, {"zunionstore", "d", "2", "a", "b"},
	{"zinterstore", "d", "2", "a", "b", "weights", "1", "2"}, {"zdiffstore", "d", "1", "a"}, {"zinter", "2", "a", "b"},
	{"zintercard", "2", "a", "b"}, {"zmpop", "2", "a", "b", "min"}, {"bzmpop", "0", "1", "a", "max"},
	{"bzpopmin", "a", "b", "0"}, {"zunion", "2", "a", "b"},
	// Errors: unknown command, no keys, wrong arity, no keys in the line.
	{"nosuch", "a"}, {"ping", "x"}, {"config", "get", "x"}, {"get", "a", "b"}, {"zunionstore", "d", "x", "a"},
	{"zunionstore", "d", "3", "a", "b"}, {"lmpop", "x", "a", "left"}, {"sintercard", "0", "a"},
}

// numKeysCounts are counts of keys in every shape that Redis's two readings
// of them tell apart: its key specs take a count with string2ll and then as
// a C int (4294967298 is 2), its getkeys procs with atoi (spaces, a sign,
// leading zeros and trailing garbage pass; overflow saturates, then keeps
// 32 bits).
var numKeysCounts = []string{
	"2", "1", "3", "0", "-1", "-0", "+0", "00", "02", "+2", " 2", "2 ", "\t2", "\n\v\f\r 2x", "2abc", "2.0", "1e1",
	"0x2", "abc", "", " ", "+", "-", "-2", "2147483647", "2147483648", "-2147483648", "4294967295",
	"4294967296", "4294967297", "4294967298", "-4294967294", "-4294967295", "6442450946",
	"9223372036854775807", "9223372036854775808", "-9223372036854775808", "18446744073709551617",
	"99999999999999999999",
}

// numKeysLines are the lines of every command whose keys follow a count,
// with each of numKeysCounts, for COMMAND GETKEYS and the commands
// themselves.
func numKeysLines() [][]string {
	var out [][]string
	for _, tmpl := range []string{
		"zunionstore d N a b", "zinterstore d N a b", "zdiffstore d N a b", "zunionstore d N a b weights 1 2",
		"zunion N a b", "zinter N a b", "zdiff N a b", "zintercard N a b", "sintercard N a b",
		"lmpop N a b left", "blmpop 0 N a b left", "zmpop N a b min", "bzmpop 0 N a b min",
	} {
		for _, n := range numKeysCounts {
			line := strings.Fields(tmpl)
			for i, f := range line {
				if f == "N" {
					line[i] = n
				}
			}
			out = append(out, line)
		}
	}
	return out
}

// TestCommandGetKeysAndFlagsMatchRedis compares COMMAND GETKEYSANDFLAGS
// (and GETKEYS) with a real redis-server for getKeysLines and numKeysLines.
func TestCommandGetKeysAndFlagsMatchRedis(t *testing.T) {
	rc := redistest.Start(t)
	ts := startServer(t)
	c := ts.client(t, 2)
	ctx := context.Background()
	for _, line := range append(getKeysLines, numKeysLines()...) {
		for _, sub := range []string{"GETKEYSANDFLAGS", "GETKEYS"} {
			args := append([]any{"COMMAND", sub}, toAny(line)...)
			want := canonReply(rc.Do(args...))
			got := canonReply(c.Do(ctx, args...).Result())
			if !reflect.DeepEqual(got, want) {
				t.Errorf("COMMAND %s %s\n  Cairn: %v\n  Redis: %v", sub, strings.Join(line, " "), got, want)
			}
		}
	}
}

// TestNumKeysCommandsMatchRedis runs numKeysLines themselves against a real
// redis-server: the commands read their count strictly (string2ll), so
// every count the key specs or atoi would bend is an error, and the same
// error as Redis's.
func TestNumKeysCommandsMatchRedis(t *testing.T) {
	rc := redistest.Start(t)
	ts := startServer(t)
	c := ts.client(t, 2)
	ctx := context.Background()
	both := func(args ...any) (got, want any) {
		return canonReply(c.Do(ctx, args...).Result()), canonReply(rc.Do(args...))
	}
	for _, line := range numKeysLines() {
		setup := [][]any{{"FLUSHALL"}, {"ZADD", "a", "1", "x", "2", "y"}, {"ZADD", "b", "3", "x"}}
		switch line[0] {
		case "sintercard":
			setup = [][]any{{"FLUSHALL"}, {"SADD", "a", "x", "y"}, {"SADD", "b", "x"}}
		case "lmpop", "blmpop":
			setup = [][]any{{"FLUSHALL"}, {"RPUSH", "a", "x", "y"}, {"RPUSH", "b", "z"}}
		}
		if line[0] == "blmpop" || line[0] == "bzmpop" {
			// Never block for long when a count is taken.
			line = append([]string{line[0], "0.01"}, line[2:]...)
		}
		for _, cmd := range setup {
			if got, want := both(cmd...); !reflect.DeepEqual(got, want) {
				t.Fatalf("%v: Cairn %v, Redis %v", cmd, got, want)
			}
		}
		for _, cmd := range [][]any{toAny(line), {"EXISTS", "a", "b", "d"}} {
			if got, want := both(cmd...); !reflect.DeepEqual(got, want) {
				t.Errorf("%q\n  Cairn: %v\n  Redis: %v", cmd, got, want)
			}
		}
	}
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// TestCommandGetKeysAndFlags checks exact replies, RESP2 and RESP3, which
// are redis-server 7.0.15's: a key and its flags, the flags a set.
func TestCommandGetKeysAndFlags(t *testing.T) {
	ts := startServer(t)
	for _, proto := range []int{2, 3} {
		set := "*"
		if proto == 3 {
			set = "~"
		}
		key := func(name string, flags ...string) string {
			out := "*2\r\n" + wireBulk(name) + set + strconv.Itoa(len(flags)) + "\r\n"
			for _, f := range flags {
				out += "+" + f + "\r\n"
			}
			return out
		}
		ts.wireProto(t, proto).run([]wireStep{
			wstep("*1\r\n"+key("a", "RO", "access"), "COMMAND", "GETKEYSANDFLAGS", "get", "a"),
			wstep("*1\r\n"+key("a", "OW", "update"), "COMMAND", "GETKEYSANDFLAGS", "set", "a", "b"),
			wstep("*1\r\n"+key("a", "RW", "access", "update"), "COMMAND", "GETKEYSANDFLAGS", "set", "a", "b", "get"),
			wstep("*2\r\n"+key("a", "RW", "access", "delete")+key("b", "RW", "insert"),
				"COMMAND", "GETKEYSANDFLAGS", "LMOVE", "a", "b", "left", "left"),
			wstep("*3\r\n"+key("d", "OW", "update")+key("a", "RO", "access")+key("b", "RO", "access"),
				"COMMAND", "GETKEYSANDFLAGS", "zunionstore", "d", "2", "a", "b"),
			wstep("*2\r\n"+key("a", "RM", "delete")+key("b", "RM", "delete"), "COMMAND", "GETKEYSANDFLAGS", "del", "a", "b"),
			wstep("-ERR The command has no key arguments\r\n", "COMMAND", "GETKEYSANDFLAGS", "ping", "x"),
			wstep("-ERR Invalid command specified\r\n", "COMMAND", "GETKEYSANDFLAGS", "nosuch", "a"),
			wstep("-ERR Invalid number of arguments specified for command\r\n", "COMMAND", "GETKEYSANDFLAGS", "get", "a", "b"),
			wstep("-ERR Invalid arguments specified for command\r\n", "COMMAND", "GETKEYSANDFLAGS", "zunionstore", "d", "3", "a", "b"),
			wstep(arityErr("command|getkeysandflags"), "COMMAND", "GETKEYSANDFLAGS", "get"),
			// A count the key specs reject but atoi takes: Redis's getkeys
			// proc finds the keys, destination last, without flags.
			wstep("*3\r\n"+key("a")+key("b")+key("d"), "COMMAND", "GETKEYSANDFLAGS", "zunionstore", "d", "02", "a", "b"),
			wstep("*3\r\n"+wireBulk("a")+wireBulk("b")+wireBulk("d"), "COMMAND", "GETKEYS", "zinterstore", "d", " 2", "a", "b"),
			wstep("*2\r\n"+key("a")+key("b"), "COMMAND", "GETKEYSANDFLAGS", "sintercard", "2abc", "a", "b"),
			wstep("*3\r\n"+wireBulk("a")+wireBulk("b")+wireBulk("left"), "COMMAND", "GETKEYS", "lmpop", "+3", "a", "b", "left"),
			wstep("*2\r\n"+wireBulk("a")+wireBulk("b"), "COMMAND", "GETKEYS", "bzmpop", "0", "2.0", "a", "b", "min"),
			// The key specs read 4294967298 as a C int: 2.
			wstep("*3\r\n"+key("d", "OW", "update")+key("a", "RO", "access")+key("b", "RO", "access"),
				"COMMAND", "GETKEYSANDFLAGS", "zdiffstore", "d", "4294967298", "a", "b"),
			// atoi saturates and keeps 32 bits: -1.
			wstep("-ERR Invalid arguments specified for command\r\n", "COMMAND", "GETKEYS", "zunion", "99999999999999999999", "a", "b"),
			wstep("-ERR Invalid arguments specified for command\r\n", "COMMAND", "GETKEYS", "zmpop", "0", "a", "min"),
			// Commands newer than 7.0, with the flags of Redis 7.4 and 8.0.
			wstep("*1\r\n"+key("h", "RW", "update"), "COMMAND", "GETKEYSANDFLAGS", "hexpire", "h", "1", "FIELDS", "1", "f"),
			wstep("*1\r\n"+key("h", "RW", "access", "delete"), "COMMAND", "GETKEYSANDFLAGS", "hgetdel", "h", "FIELDS", "1", "f"),
		})
	}
}

// TestCommandDocsArgumentsWire checks the arguments of one reply byte for
// byte, as redis-server 7.0.15 sends them: redis-cli builds its hints from
// exactly this.
func TestCommandDocsArgumentsWire(t *testing.T) {
	ts := startServer(t)
	rc := ts.wire(t)
	for _, tt := range []struct{ cmd, args string }{
		{"getdel", "*1\r\n*6\r\n$4\r\nname\r\n$3\r\nkey\r\n$4\r\ntype\r\n$3\r\nkey\r\n$14\r\nkey_spec_index\r\n:0\r\n"},
		{"lpop", "*2\r\n*6\r\n$4\r\nname\r\n$3\r\nkey\r\n$4\r\ntype\r\n$3\r\nkey\r\n$14\r\nkey_spec_index\r\n:0\r\n" +
			"*8\r\n$4\r\nname\r\n$5\r\ncount\r\n$4\r\ntype\r\n$7\r\ninteger\r\n$5\r\nsince\r\n$5\r\n6.2.0\r\n$5\r\nflags\r\n*1\r\n+optional\r\n"},
	} {
		got := rc.do("COMMAND", "DOCS", tt.cmd)
		if want := wireBulk("arguments") + tt.args; !strings.HasSuffix(got, want) {
			t.Errorf("COMMAND DOCS %s = %q, want it to end with %q", tt.cmd, got, want)
		}
	}
}
