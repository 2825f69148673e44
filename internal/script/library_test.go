package script

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/resp"
)

func fcall(t *testing.T, e *Engine, h Host, proto int, name string, keys, args []string) string {
	t.Helper()
	f, ok := e.LookupFunction(name)
	if !ok {
		return "-" + ErrFunctionNotFound.Msg + "\r\n"
	}
	var buf bytes.Buffer
	w := resp.NewWriter(&buf)
	w.SetProtocol(proto)
	if err := e.FCall(context.Background(), h, f, strs(keys...), strs(args...), w); err != nil {
		t.Fatalf("FCall %s: %v", name, err)
	}
	w.Flush()
	return buf.String()
}

func mustLoad(t *testing.T, e *Engine, code string, replace bool) {
	t.Helper()
	if _, err := e.LoadLibrary(context.Background(), []byte(code), replace); err != nil {
		t.Fatalf("LoadLibrary: %v", err)
	}
}

func TestLibraryLoadErrors(t *testing.T) {
	cases := []struct{ name, code, want string }{
		{"no header", "return 1", "ERR Missing library metadata"},
		{"no newline", "#!lua name=x", "ERR Invalid library metadata"},
		{"no name", "#!lua\nredis.register_function('f', function() end)", "ERR Library name was not given"},
		{"two names", "#!lua name=a name=b\n", "ERR Invalid metadata value, name argument was given multiple times"},
		{"bad option", "#!lua foo=bar\n", "ERR Invalid metadata value given: foo=bar"},
		{"bad lib name", "#!lua name=a-b\n", "ERR Library names can only contain letters, numbers, or underscores(_) and must be at least one character long"},
		{"bad engine", "#!bad_engine name=test\nredis.register_function('f', function() end)", "ERR Engine 'bad_engine' not found"},
		{"compile", "#!lua name=test\nbad script", "ERR Error compiling function: user_function:2: unexpected symbol near 'script'"},
		{"no functions", "#!lua name=test\nlocal x = 1", "ERR No functions registered"},
		{"math at load", "#!lua name=lib2\nreturn math.random()", "ERR Error registering functions: ERR user_function:2: Script attempted to access nonexistent global variable 'math'"},
		{"call at load", "#!lua name=lib2\nreturn redis.call('ping')", "ERR Error registering functions: ERR user_function:2: Script attempted to access nonexistent global variable 'call'"},
		{"setresp at load", "#!lua name=lib2\nreturn redis.setresp(3)", "ERR Error registering functions: ERR user_function:2: Script attempted to access nonexistent global variable 'setresp'"},
		{"getmetatable at load", "#!lua name=test1\nmt = getmetatable(_G)", "ERR Error registering functions: ERR user_function:2: Script attempted to access nonexistent global variable 'getmetatable'"},
		{"bad function name", "#!lua name=lib2\nredis.register_function('a-b', function() return 1 end)", "ERR Error registering functions: ERR Library names can only contain letters, numbers, or underscores(_) and must be at least one character long"},
		{"empty function name", "#!lua name=lib2\nredis.register_function('', function() return 1 end)", "ERR Error registering functions: ERR Library names can only contain letters, numbers, or underscores(_) and must be at least one character long"},
		{"duplicate in library", "#!lua name=lib2\nredis.register_function('f', function() end)\nredis.register_function('f', function() end)", "ERR Error registering functions: ERR Function already exists in the library"},
		{"argc", "#!lua name=lib2\nredis.register_function()", "ERR Error registering functions: ERR wrong number of arguments to redis.register_function"},
		{"positional name", "#!lua name=lib2\nredis.register_function({}, function() end)", "ERR Error registering functions: ERR first argument to redis.register_function must be a string"},
		{"positional fn", "#!lua name=lib2\nredis.register_function('f', 1)", "ERR Error registering functions: ERR second argument to redis.register_function must be a function"},
		{"named not table", "#!lua name=lib2\nredis.register_function('f')", "ERR Error registering functions: ERR calling redis.register_function with a single argument is only applicable to Lua table (representing named arguments)."},
		{"named unknown", "#!lua name=lib2\nredis.register_function{function_name='f', callback=function() end, foo=1}", "ERR Error registering functions: ERR unknown argument given to redis.register_function"},
		{"named no name", "#!lua name=lib2\nredis.register_function{callback=function() end}", "ERR Error registering functions: ERR redis.register_function must get a function name argument"},
		{"named no callback", "#!lua name=lib2\nredis.register_function{function_name='f'}", "ERR Error registering functions: ERR redis.register_function must get a callback argument"},
		{"named bad flag", "#!lua name=lib2\nredis.register_function{function_name='f', callback=function() end, flags={'bad'}}", "ERR Error registering functions: ERR unknown flag given"},
		{"named flags not table", "#!lua name=lib2\nredis.register_function{function_name='f', callback=function() end, flags='no-writes'}", "ERR Error registering functions: ERR flags argument to redis.register_function must be a table representing function flags"},
		{"timeout", "#!lua name=lib2\nwhile true do end", "ERR Error registering functions: ERR FUNCTION LOAD timeout"},
		{"redis.math", "#!lua name=lib2\nredis.math.random()", "ERR Error registering functions: ERR user_function:2: Script attempted to access nonexistent global variable 'math'"},
	}
	e := NewEngine(Options{LoadTimeout: 100 * time.Millisecond})
	t.Cleanup(e.Close)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := e.LoadLibrary(context.Background(), []byte(c.code), false)
			var re *Error
			if !errors.As(err, &re) || err.Error() != c.want {
				t.Errorf("got  %v\nwant %s", err, c.want)
			}
		})
	}
	if libs, funcs := e.FunctionStats(); libs != 0 || funcs != 0 {
		t.Fatalf("failed loads left %d libraries, %d functions", libs, funcs)
	}
}

func TestLibraries(t *testing.T) {
	e := newTestEngine(t)
	h := &fakeHost{replies: map[string]string{"get k": "$1\r\nv\r\n"}}
	mustLoad(t, e, "#!lua name=lib1\nlocal n = 0\nredis.register_function('f1', function(keys, args) n = n + 1 return {keys[1], args[1], n} end)\n"+
		"redis.register_function{function_name='f2', callback=function(keys) return redis.call('get', keys[1]) end, flags={'no-writes', 'ALLOW-STALE'}, description='reads'}", false)
	if got := fcall(t, e, h, 2, "f1", []string{"a"}, []string{"b"}); got != "*3\r\n$1\r\na\r\n$1\r\nb\r\n:1\r\n" {
		t.Fatalf("f1: %q", got)
	}
	if got := fcall(t, e, h, 2, "f2", []string{"k"}, nil); got != "$1\r\nv\r\n" {
		t.Fatalf("f2: %q", got)
	}
	f, _ := e.LookupFunction("f2")
	if f.Flags != FlagNoWrites|FlagAllowStale || !f.HasDesc || f.Description != "reads" || f.Library.Name != "lib1" {
		t.Fatalf("f2: %+v", f)
	}
	if got := strings.Join(f.Flags.Names(), ","); got != "no-writes,allow-stale" {
		t.Fatalf("names %q", got)
	}
	// Errors name the function.
	mustLoad(t, e, "#!lua name=lib3\nredis.register_function('bad', function() return a end)", false)
	if got := fcall(t, e, h, 2, "bad", nil, nil); got != "-ERR user_function:2: Script attempted to access nonexistent global variable 'a' script: bad, on @user_function:2.\r\n" {
		t.Fatalf("bad: %q", got)
	}
	// Duplicates.
	if _, err := e.LoadLibrary(context.Background(), []byte("#!lua name=lib1\nredis.register_function('x', function() end)"), false); err == nil || err.Error() != "ERR Library 'lib1' already exists" {
		t.Fatalf("dup library: %v", err)
	}
	if _, err := e.LoadLibrary(context.Background(), []byte("#!lua name=lib2\nredis.register_function('f1', function() end)"), false); err == nil || err.Error() != "ERR Function f1 already exists" {
		t.Fatalf("dup function: %v", err)
	}
	// REPLACE swaps the library and its functions.
	mustLoad(t, e, "#!LUA name=lib1\nredis.register_function('f3', function() return 'three' end)", true)
	if got := fcall(t, e, h, 2, "f1", nil, nil); got != "-ERR Function not found\r\n" {
		t.Fatalf("f1 after replace: %q", got)
	}
	if got := fcall(t, e, h, 2, "f3", nil, nil); got != "$5\r\nthree\r\n" {
		t.Fatalf("f3: %q", got)
	}
	libs := e.Libraries("")
	if len(libs) != 2 || libs[0].Name != "lib1" || libs[1].Name != "lib3" || !strings.HasPrefix(string(libs[0].Code), "#!LUA name=lib1\n") {
		t.Fatalf("libraries %+v", libs)
	}
	if got := e.Libraries("LIB*3"); len(got) != 1 || got[0].Name != "lib3" {
		t.Fatalf("pattern: %+v", got)
	}
	if n, f := e.FunctionStats(); n != 2 || f != 2 {
		t.Fatalf("stats %d %d", n, f)
	}
	if err := e.DeleteLibrary("nosuch"); err == nil || err.Error() != "ERR Library not found" {
		t.Fatalf("delete: %v", err)
	}
	if err := e.DeleteLibrary("lib3"); err != nil {
		t.Fatal(err)
	}
	if got := fcall(t, e, h, 2, "bad", nil, nil); got != "-ERR Function not found\r\n" {
		t.Fatalf("bad after delete: %q", got)
	}
	e.FlushLibraries()
	if n, _ := e.FunctionStats(); n != 0 {
		t.Fatal("flush")
	}
}

// TestLibrarySmuggling is Redis's "malicious access test": the load-time
// API kept in an upvalue is read-only and useless at run time.
func TestLibrarySmuggling(t *testing.T) {
	e := newTestEngine(t)
	mustLoad(t, e, `#!lua name=lib1
local lib = redis
lib.register_function('f1', function ()
    lib.redis = redis
    lib.math = math
    return {ok='OK'}
end)
lib.register_function('f2', function ()
    lib.register_function('f1', function () return 1 end)
end)`, false)
	h := &fakeHost{}
	if got := fcall(t, e, h, 2, "f1", nil, nil); !strings.Contains(got, "Attempt to modify a readonly table") {
		t.Fatalf("f1: %q", got)
	}
	if got := fcall(t, e, h, 2, "f2", nil, nil); !strings.Contains(got, "can only be called on FUNCTION LOAD command") {
		t.Fatalf("f2: %q", got)
	}
}

func TestRestoreLibraries(t *testing.T) {
	e := newTestEngine(t)
	mustLoad(t, e, "#!lua name=a\nredis.register_function('fa', function() return 'a' end)", false)
	b := []byte("#!lua name=b\nredis.register_function('fb', function() return 'b' end)")
	a2 := []byte("#!lua name=a\nredis.register_function('fa2', function() return 'a2' end)")
	ctx := context.Background()
	if err := e.RestoreLibraries(ctx, [][]byte{b, a2}, RestoreAppend); err == nil || err.Error() != "ERR Library a already exists" {
		t.Fatalf("append: %v", err)
	}
	if _, ok := e.LookupFunction("fb"); ok {
		t.Fatal("a failed append loaded something")
	}
	if err := e.RestoreLibraries(ctx, [][]byte{b, a2}, RestoreReplace); err != nil {
		t.Fatal(err)
	}
	if got := fcall(t, e, &fakeHost{}, 2, "fa2", nil, nil); got != "$2\r\na2\r\n" {
		t.Fatalf("fa2: %q", got)
	}
	if _, ok := e.LookupFunction("fa"); ok {
		t.Fatal("fa survived replace")
	}
	if err := e.RestoreLibraries(ctx, [][]byte{b}, RestoreFlush); err != nil {
		t.Fatal(err)
	}
	if n, _ := e.FunctionStats(); n != 1 {
		t.Fatalf("flush left %d", n)
	}
}

// TestConcurrentRuns runs scripts and functions from many goroutines while
// libraries change, for the race detector.
func TestConcurrentRuns(t *testing.T) {
	e := newTestEngine(t)
	mustLoad(t, e, "#!lua name=l\nredis.register_function('f', function(k, a) return a[1] end)", false)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := &fakeHost{}
			for i := 0; i < 50; i++ {
				if got, _ := evalRaw(t, e, h, 2, "return ARGV[1]", nil, []string{"x"}); got != "$1\r\nx\r\n" {
					t.Errorf("eval: %q", got)
					return
				}
				if got := fcall(t, e, h, 2, "f", nil, []string{"y"}); got != "$1\r\ny\r\n" {
					t.Errorf("fcall: %q", got)
					return
				}
			}
		}()
	}
	for i := 0; i < 20; i++ {
		mustLoad(t, e, "#!lua name=other\nredis.register_function('g', function() return 1 end)", true)
	}
	wg.Wait()
}

// TestLoadTimeLog: redis.log while a library loads goes to Options.Log,
// once per FUNCTION LOAD, not again when a pooled state reloads it.
func TestLoadTimeLog(t *testing.T) {
	var mu sync.Mutex
	var lines []string
	e := NewEngine(Options{Log: func(level int, msg string) {
		mu.Lock()
		lines = append(lines, itoa(level)+" "+msg)
		mu.Unlock()
	}})
	t.Cleanup(e.Close)
	mustLoad(t, e, "#!lua name=l\nredis.log(redis.LOG_NOTICE, 'loading', redis.REDIS_VERSION)\nredis.register_function('f', function() redis.log(redis.LOG_WARNING, 'run') return 1 end)", false)
	h := &fakeHost{}
	for i := 0; i < 3; i++ {
		if got := fcall(t, e, h, 2, "f", nil, nil); got != ":1\r\n" {
			t.Fatalf("f: %q", got)
		}
	}
	if len(lines) != 1 || lines[0] != "2 loading 7.2.4" {
		t.Fatalf("load-time log %q", lines)
	}
	if len(h.logs) != 3 || h.logs[0] != "3 run" {
		t.Fatalf("run-time log %q", h.logs)
	}
}

// TestFCallKill: FUNCTION KILL stops a function as SCRIPT KILL stops a script.
func TestFCallKill(t *testing.T) {
	e := newTestEngine(t)
	mustLoad(t, e, "#!lua name=l\nredis.register_function('spin', function()\n  while true do end\nend)", false)
	f, _ := e.LookupFunction("spin")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	var buf bytes.Buffer
	err := e.FCall(ctx, &fakeHost{}, f, nil, nil, resp.NewWriter(&buf))
	var ke *KilledError
	if !errors.As(err, &ke) || ke.Reply != "ERR Script killed by user with SCRIPT KILL... script: spin, on @user_function:3." {
		t.Fatalf("err %v reply %q", err, ke.Reply)
	}
}
