package script

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/cairndb/cairn/internal/resp"
)

func sha(body string) string { return SHA1Hex([]byte(body)) }

// TestScriptErrors checks the error replies of failing scripts against
// Redis 7.2's texts (script_lua.c luaCallFunction, eval.c, scripting.tcl).
func TestScriptErrors(t *testing.T) {
	cases := []struct {
		name, body string
		want       string // the error reply; {sha} stands for the script's SHA1
	}{
		{"undefined global", "return a", "ERR user_script:1: Script attempted to access nonexistent global variable 'a' script: {sha}, on @user_script:1."},
		{"set global", "a = 10", "ERR user_script:1: Attempt to modify a readonly table script: {sha}, on @user_script:1."},
		{"redis.call error", "\nreturn redis.call('nosuch')", "ERR unknown command 'nosuch' script: {sha}, on @user_script:2."},
		{"redis.call error code kept", "return redis.call('wrongtype')", "WRONGTYPE Operation against a key holding the wrong kind of value script: {sha}, on @user_script:1."},
		{"no arguments", "return redis.call()", "ERR Please specify at least one argument for this redis lib call script: {sha}, on @user_script:1."},
		{"bad argument", "local x={} return redis.call('ping', x)", "ERR Lua redis lib command arguments must be strings or integers script: {sha}, on @user_script:1."},
		{"error()", "error('boom')", "ERR user_script:1: boom script: {sha}, on @user_script:1."},
		{"error table", "error({err='MY boom'})", "MY boom script: {sha}, on @user_script:1."},
		{"compile error", "return +", "ERR Error compiling script (new function): user_script:1: unexpected symbol near '+'"},
		{"shebang engine", "#!python\nreturn 1", "ERR Unexpected engine in script shebang: #!python"},
		{"shebang flag", "#!lua flags=no-writes,bad\nreturn 1", "ERR Unexpected flag in script shebang: bad"},
		{"shebang option", "#!lua name=x\nreturn 1", "ERR Unknown lua shebang option: name=x"},
		{"shebang no newline", "#!lua", "ERR Invalid script shebang"},
		{"setresp arg", "redis.setresp(4)", "ERR RESP version must be 2 or 3. script: {sha}, on @user_script:1."},
		{"setresp argc", "redis.setresp()", "ERR redis.setresp() requires one argument. script: {sha}, on @user_script:1."},
		{"set_repl bad", "redis.set_repl(8)", "ERR Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE. script: {sha}, on @user_script:1."},
		{"log argc", "redis.log(redis.LOG_WARNING)", "ERR redis.log() requires two arguments or more. script: {sha}, on @user_script:1."},
		{"log level type", "redis.log('x', 'y')", "ERR First argument must be a number (log level). script: {sha}, on @user_script:1."},
		{"log level range", "redis.log(9, 'y')", "ERR Invalid debug level. script: {sha}, on @user_script:1."},
		{"sha1hex argc", "return redis.sha1hex()", "ERR wrong number of arguments script: {sha}, on @user_script:1."},
		{"acl unknown", "return redis.acl_check_cmd('invalid-cmd','arg')", "ERR Invalid command passed to redis.acl_check_cmd() script: {sha}, on @user_script:1."},
		{"modify redis", "redis.call = function() return 1 end", "ERR user_script:1: Attempt to modify a readonly table script: {sha}, on @user_script:1."},
		{"modify string", "string.upper = nil", "ERR user_script:1: Attempt to modify a readonly table script: {sha}, on @user_script:1."},
		{"setmetatable _G", "setmetatable(_G, {})", "ERR Attempt to modify a readonly table script: {sha}, on @user_script:1."},
		{"getmetatable _G", "local g = getmetatable(_G)\ng.__index = {}", "ERR user_script:2: Attempt to modify a readonly table script: {sha}, on @user_script:2."},
		{"replace redis", "redis = function() return 1 end", "ERR user_script:1: Attempt to modify a readonly table script: {sha}, on @user_script:1."},
		{"replace _G", "_G = {}", "ERR user_script:1: Attempt to modify a readonly table script: {sha}, on @user_script:1."},
		{"rawset _G", "rawset(_G, 'x', 1)", "ERR Attempt to modify a readonly table script: {sha}, on @user_script:1."},
		{"table.insert view", "table.insert(string, 'x')", "ERR Attempt to modify a readonly table script: {sha}, on @user_script:1."},
		{"loadfile", "loadfile('x')", "ERR user_script:1: Script attempted to access nonexistent global variable 'loadfile' script: {sha}, on @user_script:1."},
		{"dofile", "dofile('x')", "ERR user_script:1: Script attempted to access nonexistent global variable 'dofile' script: {sha}, on @user_script:1."},
		{"print", "print('x')", "ERR user_script:1: Script attempted to access nonexistent global variable 'print' script: {sha}, on @user_script:1."},
		{"os", "return os.time()", "ERR user_script:1: Script attempted to access nonexistent global variable 'os' script: {sha}, on @user_script:1."},
		{"io", "return io.open('x')", "ERR user_script:1: Script attempted to access nonexistent global variable 'io' script: {sha}, on @user_script:1."},
		{"require", "return require('x')", "ERR user_script:1: Script attempted to access nonexistent global variable 'require' script: {sha}, on @user_script:1."},
		{"debug", "return debug.getinfo(1)", "ERR user_script:1: Script attempted to access nonexistent global variable 'debug' script: {sha}, on @user_script:1."},
		{"loadstring global", "loadstring('x = 1')()", "ERR [string \"x = 1\"]:1: Attempt to modify a readonly table script: {sha}, on x = 1:1."},
		{"loadstring named", "loadstring('\\n\\nx = 1', '=mine')()", "ERR mine:3: Attempt to modify a readonly table script: {sha}, on =mine:3."},
		{"register_function in eval", "redis.register_function('f', function() end)", "ERR user_script:1: attempt to call a non-function object script: {sha}, on @user_script:1."},
	}
	e := newTestEngine(t)
	h := &fakeHost{replies: map[string]string{
		"wrongtype": "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n",
	}, acl: map[string]bool{"get": true}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := evalRaw(t, e, h, 2, c.body, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			want := "-" + strings.ReplaceAll(c.want, "{sha}", sha(c.body)) + "\r\n"
			if got != want {
				t.Errorf("got  %q\nwant %q", got, want)
			}
		})
	}
}

func TestPcall(t *testing.T) {
	cases := []struct{ body, want string }{
		{"local status, res = pcall(function() return 1 end); return 'status: ' .. tostring(status) .. ' result: ' .. res",
			"status: true result: 1"},
		{"local status, res = pcall(function() return foo end); return 'status: ' .. tostring(status) .. ' result: ' .. res",
			"status: false result: user_script:1: Script attempted to access nonexistent global variable 'foo'"},
		{"local ok, e = pcall(redis.call, 'nosuch'); return tostring(ok) .. ' ' .. e", "false ERR unknown command 'nosuch'"},
		{"local r = redis.pcall('nosuch'); return r.err", "ERR unknown command 'nosuch'"},
		{"local r = redis.pcall(); return r.err", "ERR Please specify at least one argument for this redis lib call"},
		{"local ok, e = xpcall(function() error('x') end, function(m) return 'h:' .. m end) return tostring(ok) .. e", "falseh:user_script:1: x"},
		{"return redis.sha1hex('Pizza & Mandolino')", "74822d82031af7493c20eefa13bd07ec4fada82f"},
		{"return redis.sha1hex('')", "da39a3ee5e6b4b0d3255bfef95601890afd80709"},
		{"return tostring(redis.replicate_commands())", "true"},
		{"return tostring(redis.breakpoint())", "false"},
		{"return tostring(select('#', redis.debug('x')))", "0"},
		{"return redis.REDIS_VERSION .. ' ' .. redis.REDIS_VERSION_NUM", "7.2.4 459268"},
		{"return redis.REPL_ALL .. redis.REPL_AOF .. redis.REPL_REPLICA .. redis.REPL_SLAVE .. redis.REPL_NONE", "31220"},
		{"return redis.LOG_DEBUG .. redis.LOG_VERBOSE .. redis.LOG_NOTICE .. redis.LOG_WARNING", "0123"},
		{"return tostring(redis.acl_check_cmd('get', 'k'))", "true"},
		{"return tostring(redis.acl_check_cmd('set', 'k', 'v'))", "false"},
		{"local n = 0 for k in pairs(string) do n = n + 1 end return tostring(n > 5)", "true"},
		{"return rawget(string, 'upper') == string.upper and 'y' or 'n'", "y"},
		{"return ('abc'):upper()", "ABC"},
		{"return tostring(getmetatable('').__index == string)", "true"},
		{"return redis.call('ping', 1.5) .. redis.call('ping', 10) .. redis.call('ping', 1e20)", "1.5101e+20"},
		{"return type(getfenv(tostring))", "table"},
	}
	e := newTestEngine(t)
	h := &fakeHost{acl: map[string]bool{"get": true, "set": false}}
	for _, c := range cases {
		got, err := evalRaw(t, e, h, 2, c.body, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := "$" + itoa(len(c.want)) + "\r\n" + c.want + "\r\n"
		if got != want {
			t.Errorf("%s:\n got  %q\n want %q", c.body, got, want)
		}
	}
}

func TestKeysArgvAndLog(t *testing.T) {
	e := newTestEngine(t)
	h := &fakeHost{replies: map[string]string{"get mykey": "$5\r\nmyval\r\n"}}
	got, err := evalRaw(t, e, h, 2, "return {KEYS[1],KEYS[2],ARGV[1],ARGV[2]}", []string{"a", "b"}, []string{"c", "d"})
	if err != nil || got != "*4\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n$1\r\nd\r\n" {
		t.Fatalf("got %q %v", got, err)
	}
	got, _ = evalRaw(t, e, h, 2, "return redis.call('get',KEYS[1])", []string{"mykey"}, nil)
	if got != "$5\r\nmyval\r\n" {
		t.Fatalf("got %q", got)
	}
	// KEYS of one run are not seen by the next.
	got, _ = evalRaw(t, e, h, 2, "return #KEYS", nil, nil)
	if got != ":0\r\n" {
		t.Fatalf("got %q", got)
	}
	evalRaw(t, e, h, 2, "redis.log(redis.LOG_WARNING, 'hello', 1, 'world')", nil, nil)
	if len(h.logs) != 1 || h.logs[0] != "3 hello 1 world" {
		t.Fatalf("logs %q", h.logs)
	}
}

func TestShebangFlags(t *testing.T) {
	e := newTestEngine(t)
	for body, want := range map[string]Flags{
		"return 1":                        FlagEvalCompat,
		"#!lua\nreturn 1":                 0,
		"#!lua flags=no-writes\nreturn 1": FlagNoWrites,
		"#!lua flags=no-writes,allow-oom,allow-stale,no-cluster,allow-cross-slot-keys\nreturn 1": FlagNoWrites | FlagAllowOOM | FlagAllowStale | FlagNoCluster | FlagAllowCrossSlot,
		"#!lua flags=\nreturn 1": 0,
	} {
		s, err := e.Load([]byte(body))
		if err != nil {
			t.Fatalf("%q: %v", body, err)
		}
		if s.Flags != want {
			t.Errorf("%q: flags %b, want %b", body, s.Flags, want)
		}
	}
	// The shebang's line does not shift line numbers.
	got, _ := evalRaw(t, e, &fakeHost{}, 2, "#!lua\nreturn a", nil, nil)
	if !strings.Contains(got, "user_script:2: Script attempted") {
		t.Fatalf("got %q", got)
	}
}

func TestScriptCache(t *testing.T) {
	e := newTestEngine(t)
	s, err := e.Load([]byte("return redis.call('get',KEYS[1])"))
	if err != nil {
		t.Fatal(err)
	}
	if s.SHA != "fd758d1589d044dd850a6f05d52f2eefd27f033f" {
		t.Fatalf("sha %s", s.SHA)
	}
	if !e.Exists(s.SHA) || !e.Exists(strings.ToUpper(s.SHA)) || e.Exists(s.SHA[1:]) {
		t.Fatal("Exists")
	}
	if got, ok := e.Lookup(strings.ToUpper(s.SHA)); !ok || got != s {
		t.Fatal("Lookup upper case")
	}
	if _, ok := e.Lookup("NotValidShaSUM"); ok {
		t.Fatal("Lookup bad sha")
	}
	var buf strings.Builder
	w := resp.NewWriter(&buf)
	h := &fakeHost{replies: map[string]string{"get k": "$1\r\nv\r\n"}}
	if err := e.EvalSHA(context.Background(), h, s.SHA, strs("k"), nil, w); err != nil {
		t.Fatal(err)
	}
	if err := e.EvalSHA(context.Background(), h, "ffd632c7d33e571e9f24556ebed26c3479a87130", nil, nil, w); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	if buf.String() != "$1\r\nv\r\n-NOSCRIPT No matching script. Please use EVAL.\r\n" {
		t.Fatalf("got %q", buf.String())
	}
	e.Flush()
	if e.Exists(s.SHA) || e.Scripts() != 0 {
		t.Fatal("Flush")
	}
}

// TestHostAbort: a failing Call stops the script even under pcall, and the
// error comes back from Eval with nothing written.
func TestHostAbort(t *testing.T) {
	boom := errors.New("boom")
	for _, body := range []string{
		"redis.call('x') return 1",
		"pcall(redis.call, 'x') return 1",
		"redis.pcall('x') return 1",
		"local ok = pcall(function() redis.call('x') end) while true do end",
		"xpcall(function() redis.call('x') end, function() return 1 end) return 2",
		"local co = coroutine.create(function() redis.call('x') end) coroutine.resume(co) return 3",
	} {
		e := newTestEngine(t)
		h := &fakeHost{fail: boom}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		s, _ := e.Load([]byte(body))
		var buf strings.Builder
		w := resp.NewWriter(&buf)
		err := e.Eval(ctx, h, s, nil, nil, w)
		cancel()
		w.Flush()
		if !errors.Is(err, boom) || buf.Len() != 0 {
			t.Errorf("%s: err %v, wrote %q", body, err, buf.String())
		}
	}
}

// TestKill: a cancelled context stops an endless loop, even one that
// catches errors with pcall.
func TestKill(t *testing.T) {
	for _, body := range []string{
		"while true do end",
		"\nwhile true do pcall(function() while true do end end) end",
		"local function f() return f() end while true do pcall(f) end",
		"local co = coroutine.wrap(function() while true do end end) co()",
	} {
		e := newTestEngine(t)
		s, err := e.Load([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(50*time.Millisecond, cancel)
		var buf strings.Builder
		w := resp.NewWriter(&buf)
		start := time.Now()
		err = e.Eval(ctx, &fakeHost{}, s, nil, nil, w)
		var ke *KilledError
		if !errors.Is(err, ErrKilled) || !errors.As(err, &ke) {
			t.Fatalf("%s: err %v", body, err)
		}
		if !strings.HasPrefix(ke.Reply, "ERR Script killed by user with SCRIPT KILL... script: "+s.SHA+", on @user_script:") {
			t.Errorf("reply %q", ke.Reply)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: took %v", body, d)
		}
		w.Flush()
		if buf.Len() != 0 {
			t.Errorf("wrote %q", buf.String())
		}
		// The engine still works.
		if got, _ := evalRaw(t, e, &fakeHost{}, 2, "return 1", nil, nil); got != ":1\r\n" {
			t.Fatalf("after kill: %q", got)
		}
	}
}

// TestLimits: deep recursion, huge tables and huge unpacks are errors.
func TestLimits(t *testing.T) {
	e := NewEngine(Options{MaxReplyElements: 2_000_000})
	t.Cleanup(e.Close)
	cases := []struct{ name, body, prefix string }{
		{"recursion", "local function f(n) return f(n+1)+1 end return f(1)", "-ERR user_script:1: stack overflow script: d2f9f93b96f501830d28382031d5a8cf56e23d5a, on @user_script:1.\r\n"},
		{"pcall recursion", "local function f() return pcall(f) end return f()", ":1\r\n"},
		{"unpack limit", "local t = {} for i=1,100000 do t[i]=i end return select('#', unpack(t))", "-ERR user_script:1: too many results to unpack script: "},
		{"unpack 300", "local t = {} for i=1,300 do t[i]=i end return select('#', unpack(t))", ":300\r\n"},
		{"string.rep huge", "return string.rep('x', 1e12)", "-ERR user_script:1: not enough memory script: "},
		{"unpack", "local t = {} for i=1,2000000 do t[i]=i end return select('#', unpack(t))", "-ERR user_script:1: "},
		{"million elements", "local t = {} for i=1,1000000 do t[i]=i end return t", "*1000000\r\n:1\r\n"},
		{"too many elements", "local t = {} for i=1,3000000 do t[i]=i end return t", "-ERR reply of more than 2000000 elements"},
		{"wide self reference", "local t = {} for i=1,100 do t[i]=t end return t", "-ERR reply of more than"},
		{"map self reference", "local t = {} t.map = t return t", "%"},
		{"string.rep", "return #string.rep('x', 1000)", ":1000\r\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := evalRaw(t, e, &fakeHost{}, 3, c.body, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(got, c.prefix) {
				n := min(len(got), 200)
				t.Errorf("got %q..., want prefix %q", got[:n], c.prefix)
			}
		})
	}
}

// TestIsolation: nothing a script does is seen by the next one.
func TestIsolation(t *testing.T) {
	e := NewEngine(Options{PoolSize: 1})
	t.Cleanup(e.Close)
	h := &fakeHost{}
	for _, body := range []string{
		"rawset(getmetatable(_G), 1, 1)",
		"setfenv(1, {})",
		"math.randomseed(5)",
	} {
		evalRaw(t, e, h, 2, body, nil, nil)
		got, _ := evalRaw(t, e, h, 2, "return {#_G, #string, type(string.upper)}", nil, nil)
		if got != "*3\r\n:0\r\n:0\r\n$8\r\nfunction\r\n" {
			t.Fatalf("after %q: %q", body, got)
		}
	}
}

// TestCoroutines runs the wrapped base functions inside coroutines, where
// the running thread is not the state's main one.
func TestCoroutines(t *testing.T) {
	e := newTestEngine(t)
	h := &fakeHost{}
	body := `local co = coroutine.create(function(a)
  local ok, err = pcall(error, 'x', 0)
  local n = 0 for _ in pairs(string) do n = n + 1 end
  coroutine.yield(tostring(ok) .. err .. tostring(n > 3) .. tostring(0.5) .. redis.call('ping', 'y'))
  return select('#', unpack({1, 2, 3}))
end)
local _, a = coroutine.resume(co)
local _, b = coroutine.resume(co)
local f = coroutine.wrap(function() coroutine.yield(string.rep('ab', 2)) end)
return {a, b, f()}`
	got, err := evalRaw(t, e, h, 2, body, nil, nil)
	if err != nil || got != "*3\r\n$14\r\nfalsextrue0.5y\r\n:3\r\n$4\r\nabab\r\n" {
		t.Fatalf("got %q %v", got, err)
	}
}

// TestNestedLibraryTablesReadOnly: a library's nested tables are
// read-only too.
func TestNestedLibraryTablesReadOnly(t *testing.T) {
	e := NewEngine(Options{Libraries: func(L *lua.LState) {
		lib := L.NewTable()
		inner := L.NewTable()
		inner.RawSetString("x", lua.LNumber(1))
		lib.RawSetString("inner", inner)
		L.SetGlobal("cjson", lib)
		L.SetGlobal("notallowed", lib)
	}})
	t.Cleanup(e.Close)
	h := &fakeHost{}
	if got, _ := evalRaw(t, e, h, 2, "return cjson.inner.x", nil, nil); got != ":1\r\n" {
		t.Fatalf("read: %q", got)
	}
	if got, _ := evalRaw(t, e, h, 2, "cjson.inner.x = 2", nil, nil); !strings.Contains(got, "Attempt to modify a readonly table") {
		t.Fatalf("write: %q", got)
	}
	if got, _ := evalRaw(t, e, h, 2, "return notallowed", nil, nil); !strings.Contains(got, "nonexistent global variable 'notallowed'") {
		t.Fatalf("global outside the allow list: %q", got)
	}
}
