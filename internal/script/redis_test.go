package script

import (
	"bytes"
	"context"
	"testing"

	"github.com/cairndb/cairn/internal/redistest"
	"github.com/cairndb/cairn/internal/resp"
)

// forwardHost runs a script's commands on a real Redis: the differential
// test below compares our engine, calling Redis's commands, with Redis's
// own EVAL of the same script.
type forwardHost struct {
	t      *testing.T
	c2, c3 *redistest.Conn
}

func (h *forwardHost) Call(args [][]byte, proto int) ([]byte, error) {
	c := h.c2
	if proto == 3 {
		c = h.c3
	}
	s := make([]string, len(args))
	for i, a := range args {
		s[i] = string(a)
	}
	return c.DoRaw(s...)
}

func (h *forwardHost) ACLCheck(args [][]byte) (bool, error)    { return true, nil }
func (h *forwardHost) Log(level int, msg string)               {}
func (h *forwardHost) ErrorReply(msg string, fromCommand bool) {}

// TestEvalAgainstRedis runs scripts through real Redis's EVAL and through
// the engine (with Redis running the commands) and compares the replies
// byte for byte, in RESP2 and RESP3.
func TestEvalAgainstRedis(t *testing.T) {
	c2 := redistest.Start(t)
	c3 := redistest.Dial(t, c2.Addr())
	if _, err := c3.DoRaw("HELLO", "3"); err != nil {
		t.Fatal(err)
	}
	// The engine's commands go through connections of their own, so that
	// they do not interleave with the EVALs on c2 and c3.
	f2 := redistest.Dial(t, c2.Addr())
	f3 := redistest.Dial(t, c2.Addr())
	if _, err := f3.DoRaw("HELLO", "3"); err != nil {
		t.Fatal(err)
	}
	host := &forwardHost{t: t, c2: f2, c3: f3}
	e := newTestEngine(t)
	scripts := []string{
		"return 'hello'", "return 100.5", "return -3.9", "return true", "return false", "return nil",
		"return {ok='fine'}", "return {err='ERR this is an error'}", "return {err='My Error'}",
		"return redis.error_reply('MY_ERR_CODE custom msg')", "return redis.error_reply('')",
		"return redis.error_reply('-X y')", "return redis.status_reply('MY_OK_CODE custom msg')",
		"return {1,2,3,'ciao',{1,2}}", "return {1,nil,3}", "return {true,false}",
		"return {double=3.5}", "return {double=1/0}", "return {big_number='123456789012345678901234567890'}",
		"return {verbatim_string={format='txt', string='hi'}}", "return {map={a=1}}", "return {set={a=true}}",
		"return _G", "redis.setresp(3) return true", "redis.setresp(3) return false",
		"return redis.call('get','k')", "return redis.call('get','nokey')", "return redis.call('lrange','l',0,-1)",
		"return redis.call('hgetall','h')", "redis.setresp(3) return redis.call('hgetall','h')",
		"redis.setresp(3) return redis.call('zscore','z','m')", "return redis.call('zscore','z','m')",
		"redis.setresp(3) return redis.call('smembers','s')", "return redis.call('ping')",
		"return redis.pcall('incr','k')", "return redis.call('incr','k')", "\n\nreturn redis.call('incr','k')",
		"redis.setresp(3) local r = redis.call('hgetall','h') return r.map.f",
		"redis.setresp(3) local r = redis.call('zscore','z','m') return r.double",
		"return redis.call('exists','k', 'nokey')", "return redis.call('get', 1.5)",
		"return a", "a = 10", "error('boom')", "error({err='MY boom'})", "return redis.call()",
		"local x={} return redis.call('ping', x)", "return redis.sha1hex('Pizza & Mandolino')",
		"string.upper = nil", "setmetatable(_G, {})", "local g = getmetatable(_G)\ng.__index = {}",
		"redis = function() return 1 end", "_G = {}", "redis.call = function() return 1 end",
		"loadstring('x = 1')()", "loadstring('\\n\\nx = 1', '=mine')()", "loadstring('local a = 1 local b = 2 local c = 3 local d = 4 local e = 5 x = 1')()",
		"return {loadstring('x x')}", "loadfile('x')", "dofile('x')", "print('x')", "return os.time()",
		"local function f(n) return f(n+1)+1 end return f(1)",
		"local function f() return pcall(f) end return f()",
		"local t = {} for i=1,100000 do t[i]=i end return select('#', unpack(t))",
		"redis.setresp(4)", "redis.set_repl(8)", "redis.log(9, 'y')", "redis.log('x', 'y')",
		"local ok, e = pcall(redis.call, 'incr', 'k') return {tostring(ok), e}",
		"return redis.pcall()", "return redis.replicate_commands()", "return redis.breakpoint()",
		"return redis.REPL_ALL", "return redis.LOG_WARNING",
		"#!lua flags=no-writes\nreturn redis.call('get','k')", "#!lua\nreturn a",
		"#!python\nreturn 1", "#!lua flags=bad\nreturn 1", "#!lua foo=bar\nreturn 1",
		"return +", "rawset(_G, 'x', 1)", "table.insert(string, 'x')",
		"return {map={[{1}]={2}}}", "return {set={[1.5]=true}}",
		"return {verbatim_string={format='txtx', string='hi'}}",
		"local co = coroutine.create(function() coroutine.yield(1) end) return {coroutine.resume(co)}",
		"return string.format('%d %s', 3, 'x')", "return math.random(10) > 0",
		"local t = {} t[1] = t return t", "local t = {} t.map = t return t",
		"local t = {} t.set = {} t.set[t] = true return t", "local t = {} t[1] = {map={a=t}} return t",
		"return tonumber('0x10')", "return tostring(1/3) .. tostring(1e15) .. tostring(-1/0) .. tostring(100) .. tostring(2^53)", "return #KEYS + #ARGV",
		"return getmetatable('').__index == string", "return pcall(error, {err='X y'})",
		"return {pcall(error, {err='X y'})}", "return {pcall(error, 'plain', 0)}",
	}
	for _, body := range scripts {
		for _, proto := range []int{2, 3} {
			for _, c := range []*redistest.Conn{c2, f2} {
				for _, cmd := range [][]string{{"FLUSHALL"}, {"SET", "k", "v"}, {"RPUSH", "l", "a", "b"},
					{"HSET", "h", "f", "v"}, {"ZADD", "z", "1.5", "m"}, {"SADD", "s", "x"}} {
					if _, err := c.DoRaw(cmd...); err != nil {
						t.Fatal(err)
					}
				}
			}
			c := c2
			if proto == 3 {
				c = c3
			}
			want, err := c.DoRaw("EVAL", body, "0")
			if err != nil {
				t.Fatal(err)
			}
			got := evalWith(t, e, host, proto, body)
			if got != string(want) {
				t.Errorf("RESP%d %q:\n ours  %.300q\n redis %.300q", proto, body, got, want)
			}
		}
	}
}

func evalWith(t *testing.T, e *Engine, h Host, proto int, body string) string {
	s, err := e.Load([]byte(body))
	if err != nil {
		return "-" + err.Error() + "\r\n"
	}
	var buf bytes.Buffer
	w := resp.NewWriter(&buf)
	w.SetProtocol(proto)
	if err := e.Eval(context.Background(), h, s, nil, nil, w); err != nil {
		t.Fatalf("%q: %v", body, err)
	}
	w.Flush()
	return buf.String()
}

// TestFunctionsAgainstRedis compares FUNCTION LOAD's errors and FCALL's
// replies with real Redis's.
func TestFunctionsAgainstRedis(t *testing.T) {
	c := redistest.Start(t)
	f := redistest.Dial(t, c.Addr())
	host := &forwardHost{t: t, c2: f, c3: f}
	e := newTestEngine(t)
	payloads := []string{
		"return 1", "#!lua name=x", "#!lua\nredis.register_function('f', function() end)",
		"#!lua name=a name=b\n", "#!lua foo=bar\n", "#!lua name=a-b\n",
		"#!bad_engine name=test\nredis.register_function('f', function() end)",
		"#!lua name=test\nlocal x = 1", "#!lua name=lib2\nreturn math.random()",
		"#!lua name=lib2\nreturn redis.call('ping')", "#!lua name=lib2\nerror('x')",
		"#!lua name=lib2\nredis.register_function('a-b', function() return 1 end)",
		"#!lua name=lib2\nredis.register_function('f', function() end)\nredis.register_function('f', function() end)",
		"#!lua name=lib2\nredis.register_function()", "#!lua name=lib2\nredis.register_function('f')",
		"#!lua name=lib2\nredis.register_function{function_name='f', callback=function() end, foo=1}",
		"#!lua name=lib2\nredis.register_function{callback=function() end}",
		"#!lua name=lib2\nredis.register_function{function_name='f', callback=function() end, flags={'bad'}}",
		"#!lua name=lib2\nredis.math.random()", "#!lua name=lib2\nredis.redis.call('ping')",
		"#!lua name=lib2\nmt = getmetatable(_G)",
	}
	for _, p := range payloads {
		want, err := c.DoRaw("FUNCTION", "LOAD", p)
		if err != nil {
			t.Fatal(err)
		}
		got := "$4\r\nlib2\r\n"
		if _, err := e.LoadLibrary(context.Background(), []byte(p), false); err != nil {
			got = "-" + err.Error() + "\r\n"
		}
		if got != string(want) {
			t.Errorf("FUNCTION LOAD %q:\n ours  %q\n redis %q", p, got, want)
		}
		c.DoRaw("FUNCTION", "FLUSH")
		e.FlushLibraries()
	}
	lib := "#!lua name=lib1\nlocal n = 0\n" +
		"redis.register_function('f1', function(keys, args) n = n + 1 return {keys[1], args[1], n} end)\n" +
		"redis.register_function('f2', function() return a end)\n" +
		"redis.register_function('f3', function(keys) return redis.call('incr', keys[1]) end)\n" +
		"redis.register_function('f4', function() return KEYS end)\n" +
		"redis.register_function{function_name='f5', callback=function() return redis.setresp(3) or {double=1.5} end, flags={'no-writes'}}"
	if _, err := c.DoRaw("FUNCTION", "LOAD", lib); err != nil {
		t.Fatal(err)
	}
	mustLoad(t, e, lib, false)
	for _, call := range [][]string{{"f1", "1", "k", "a"}, {"f2", "0"}, {"f3", "1", "s"}, {"f4", "0"}, {"f5", "0"}} {
		c.DoRaw("SET", "s", "x")
		want, err := c.DoRaw(append([]string{"FCALL"}, call...)...)
		if err != nil {
			t.Fatal(err)
		}
		got := fcallArgs(t, e, host, call)
		if got != string(want) {
			t.Errorf("FCALL %q:\n ours  %q\n redis %q", call, got, want)
		}
	}
}

func fcallArgs(t *testing.T, e *Engine, h Host, call []string) string {
	n := int(call[1][0] - '0')
	return fcall(t, e, h, 2, call[0], call[2:2+n], call[2+n:])
}
