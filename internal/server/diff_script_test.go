package server

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/redistest"
	"github.com/cairndb/cairn/internal/script"
)

// Differential tests of scripts and functions against real Redis: what
// other clients are answered while a script is busy, which scripts SCRIPT
// KILL and FUNCTION KILL stop, and the errors of FCALL, FUNCTION and the
// script sandbox.

// spinFor is a Lua loop that ends by itself after about ms milliseconds
// (TIME reads no key), so a test never leaves a server spinning when a
// kill fails.
func spinFor(ms int) string {
	return fmt.Sprintf("local t0 = redis.call('TIME') while true do local t = redis.call('TIME') if (t[1] - t0[1]) * 1000000 + (t[2] - t0[2]) > %d then break end end return 'done'", ms*1000)
}

// busyCase is a command that keeps the server busy (run, on its own
// connection), commands sent on a second connection before it (setup),
// while it is busy (during) and after its reply (after).
type busyCase struct {
	name          string
	setup         [][]string
	run           []string
	during, after [][]string
}

// busyReplies runs c on the server at addr and returns every reply: the
// setup's, the during's, the run's and the after's, in that order.
func busyReplies(t *testing.T, addr string, c busyCase) [][]byte {
	t.Helper()
	runner, other, poll := redistest.Dial(t, addr), redistest.Dial(t, addr), redistest.Dial(t, addr)
	var out [][]byte
	do := func(conn *redistest.Conn, args []string) []byte {
		t.Helper()
		r, err := conn.DoRaw(args...)
		if err != nil {
			t.Fatalf("%s: %q: %v", addr, args, err)
		}
		return r
	}
	do(poll, []string{"CONFIG", "SET", "busy-reply-threshold", "100"})
	for _, a := range c.setup {
		out = append(out, do(other, a))
	}
	done := make(chan []byte, 1)
	go func() {
		r, err := runner.DoRaw(c.run...)
		if err != nil {
			r = []byte("connection error: " + err.Error())
		}
		done <- r
	}()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r := do(poll, []string{"PING"})
		if bytes.HasPrefix(r, []byte("-BUSY")) {
			break
		}
		select {
		case r := <-done:
			t.Fatalf("%s: %q ended before it was busy: %q", addr, c.run, r)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: never busy while %q runs", addr, c.run)
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, a := range c.during {
		out = append(out, do(other, a))
	}
	select {
	case r := <-done:
		out = append(out, r)
	case <-time.After(60 * time.Second):
		t.Fatalf("%s: %q still runs a minute after the kill", addr, c.run)
	}
	for _, a := range c.after {
		out = append(out, do(other, a))
	}
	return out
}

// durationRE masks FUNCTION STATS's duration_ms, the one field that
// differs between two runs.
var durationRE = regexp.MustCompile(`duration_ms\r\n:\d+`)

func TestDiffScriptBusy(t *testing.T) {
	redis := redistest.Start(t)
	ts := startServer(t)
	spinLib := "#!lua name=spinlib\nredis.register_function('spin', function(keys, args) redis.call('GET', 'k') " + spinFor(3000) + " end)"
	cases := []busyCase{
		{
			name:   "a script that only read is killed",
			setup:  [][]string{{"SET", "k", "v"}},
			run:    []string{"EVAL", "redis.call('GET', 'k') " + spinFor(3000), "0"},
			during: [][]string{{"FUNCTION", "KILL"}, {"SCRIPT", "KILL"}},
			after:  [][]string{{"SCRIPT", "KILL"}, {"GET", "k"}},
		},
		{
			name:   "a script that pinged is killed",
			run:    []string{"EVAL", "redis.call('PING') " + spinFor(3000), "0"},
			during: [][]string{{"SCRIPT", "KILL"}},
		},
		{
			name:   "a write refused for its arity leaves the script killable",
			run:    []string{"EVAL", "redis.pcall('SET', 'k') " + spinFor(3000), "0"},
			during: [][]string{{"SCRIPT", "KILL"}},
		},
		{
			name:   "a write that changed nothing makes it unkillable",
			run:    []string{"EVAL", "redis.call('DEL', 'nokey') " + spinFor(1500), "0"},
			during: [][]string{{"SCRIPT", "KILL"}, {"FUNCTION", "KILL"}},
		},
		{
			name:   "a write that failed makes it unkillable",
			setup:  [][]string{{"SET", "k", "v"}},
			run:    []string{"EVAL", "redis.pcall('INCR', 'k') " + spinFor(1500), "0"},
			during: [][]string{{"SCRIPT", "KILL"}},
		},
		{
			name:   "FUNCTION KILL stops a function, SCRIPT KILL does not",
			setup:  [][]string{{"FUNCTION", "LOAD", "REPLACE", spinLib}},
			run:    []string{"FCALL", "SPIN", "0", "arg"},
			during: [][]string{{"SCRIPT", "KILL"}, {"FUNCTION", "STATS"}, {"FUNCTION", "KILL"}},
			after:  [][]string{{"FUNCTION", "KILL"}, {"FUNCTION", "STATS"}},
		},
		{
			name:   "EXEC while busy aborts the transaction",
			setup:  [][]string{{"MULTI"}, {"SET", "x", "1"}},
			run:    []string{"EVAL", spinFor(3000), "0"},
			during: [][]string{{"EXEC"}, {"PING"}, {"MULTI"}, {"PING"}, {"EXEC"}, {"WATCH", "x"}, {"EXEC"}, {"MULTI"}, {"DISCARD"}, {"SCRIPT", "KILL"}},
			after:  [][]string{{"PING"}, {"EXEC"}, {"GET", "x"}, {"MULTI"}, {"PING"}, {"EXEC"}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := busyReplies(t, redis.Addr(), c)
			got := busyReplies(t, ts.addr, c)
			cmds := append(append(append(append([][]string{}, c.setup...), c.during...), c.run), c.after...)
			for i := range max(len(want), len(got)) {
				var w, g []byte
				if i < len(want) {
					w = durationRE.ReplaceAll(want[i], []byte("duration_ms\r\n:N"))
				}
				if i < len(got) {
					g = durationRE.ReplaceAll(got[i], []byte("duration_ms\r\n:N"))
				}
				if !bytes.Equal(w, g) {
					t.Errorf("%s:\nredis-server: %q\nCairn:        %q", quoteCommand(cmds[i]), w, g)
				}
			}
		})
	}
}

// TestDiffScriptErrors: the errors of FCALL, FUNCTION and the script
// sandbox, and what INFO counts of the errors scripts meet, are Redis's.
func TestDiffScriptErrors(t *testing.T) {
	d := newDiffRun(t)
	lib := "#!lua name=lib\nredis.register_function('test', function(k, a) return 1 end)\n" +
		"redis.register_function('reg', function(k, a) redis.register_function('x', function() return 1 end) end)\n" +
		"redis.register_function{function_name='Mixed', callback=function() return 2 end}"
	for _, c := range [][]string{
		{"FUNCTION", "LOAD", lib},
		// Function names are case-insensitive, library names are not.
		{"FCALL", "TEST", "0"}, {"FCALL", "mixed", "0"}, {"FCALL_RO", "MIXED", "0"},
		{"FUNCTION", "LOAD", "#!lua name=lib2\nredis.register_function('TEST', function() return 1 end)"},
		{"FUNCTION", "LOAD", "#!lua name=LIB\nredis.register_function('other', function() return 3 end)"},
		{"FUNCTION", "DELETE", "Lib"},
		{"FCALL", "OTHER", "0"},
		// numkeys: FCALL finds the function first, and has its own text.
		{"FCALL", "test", "x"}, {"FCALL_RO", "test", "x"}, {"FCALL", "nosuch", "x"}, {"FCALL", "nosuch", "5"},
		{"FCALL", "test", "-1"}, {"FCALL", "test", "2", "a"},
		{"EVAL", "return 1", "x"}, {"EVAL", "return 1", "-1"}, {"EVAL", "return 1", "2", "a"},
		{"FUNCTION", "RESTORE", "x", "FLUSH", "extra"}, {"FUNCTION", "restore", "x", "bogus", "extra"},
		{"FUNCTION", "RESTORE", "x", "bogus"},
		{"FUNCTION", "LIST", "LIBRARYNAME", "a", "LIBRARYNAME", "b"}, {"FUNCTION", "LIST", "libraryname", "a", "LibraryName"},
		{"FUNCTION", "LIST", "LIBRARYNAME"}, {"FUNCTION", "LIST", "WITHCODE", "WithCode"}, {"FUNCTION", "LIST", "bogus"},
		{"FUNCTION", "LIST", "LIBRARYNAME", ""},
		// The sandbox.
		{"XADD", "s", "1-1", "f", "v"},
		{"EVAL", "return redis.call('xread', 'block', '0', 'streams', 's', '0')", "0"},
		{"EVAL", "return redis.pcall('XREADGROUP', 'GROUP', 'g', 'c', 'BLOCK', '10', 'STREAMS', 's', '>')", "0"},
		{"EVAL", "return redis.pcall('xread', 'count', '1', 'streams', 's', '0')", "0"},
		{"EVAL", "return redis.pcall('xread', 'BLOCK')", "0"},
		{"MULTI"}, {"XREAD", "BLOCK", "0", "STREAMS", "s", "1-1"}, {"EXEC"},
		{"EVAL", "return redis.pcall('multi')", "0"}, {"EVAL", "return redis.pcall('subscribe', 'x')", "0"},
		{"EVAL", "return redis.pcall('eval', 'return 1', '0')", "0"}, {"EVAL", "return redis.pcall('script', 'load', 'return 1')", "0"},
		{"EVAL", "return redis.pcall('watch', 'x')", "0"}, {"EVAL", "return redis.pcall('client', 'pause', '1')", "0"},
		{"EVAL", "math.randomseed('12') return math.random(100)", "0"},
		{"EVAL", "math.randomseed(' 0x10 ') return math.random(100)", "0"},
		{"EVAL", "math.randomseed('x') return 1", "0"},
		{"EVAL", "return string.format('%y', 1)", "0"},
		{"EVAL", "return string.format('%d %5.1f %s %q %x', 3.7, 2.25, 1e15, 'a\\0', -1)", "0"},
	} {
		d.same(c...)
	}

	// What INFO counts: an error a command replied with once, when it
	// replied, even if the script then returns it; an error the script
	// makes once, when the script replies with it; a command a script may
	// not call as a rejected call of that command.
	d.same("SET", "k", "v")
	d.same("CONFIG", "RESETSTAT")
	for _, body := range []string{
		"redis.pcall('incr', 'nokey', 'x') return 1",
		"return redis.pcall('incr', 'nokey', 'x')",
		"return redis.pcall('nosuch')",
		"redis.pcall('multi') return 1",
		"return redis.error_reply('MY x')",
		"return redis.error_reply('noprefix')",
		"return {err='CUSTOM thing'}",
		"return redis.pcall('lpush', 'k', 'v')",
		"return {1, redis.pcall('lpush', 'k', 'v')}",
		"local r = redis.pcall('lpush', 'k', 'v') return redis.error_reply(r.err)",
		"local r = redis.pcall('lpush', 'k', 'v') return r.ignore_error_stats_update",
		"error('x')",
		"return redis.call('lpush', 'k', 'v')",
		"redis.pcall('XREAD', 'BLOCK', '0', 'streams', 's', '0') return 1",
		"redis.pcall('xreadgroup', 'group', 'g', 'c', 'streams', 's', '>') return 1",
	} {
		d.same("EVAL", body, "0")
	}
	d.same("MULTI")
	d.same("EVAL", "return redis.error_reply('MULTIERR x')", "0")
	d.same("EXEC")
	if d.mismatches > 0 {
		return
	}
	want := scriptStats(t, d.redis)
	got := scriptStats(t, d.cairn)
	if got != want {
		t.Errorf("INFO after the scripts:\nredis-server:\n%s\nCairn:\n%s", want, got)
	}
}

// scriptStats is INFO's errorstats and the calls, rejected and failed
// calls of the commands TestDiffScriptErrors runs, sorted.
func scriptStats(t *testing.T, c *redistest.Conn) string {
	t.Helper()
	var lines []string
	for _, section := range []string{"errorstats", "commandstats"} {
		v, err := c.Do("INFO", section)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(v.([]byte)), "\r\n") {
			switch {
			case strings.HasPrefix(l, "errorstat_"):
				lines = append(lines, l)
			case strings.HasPrefix(l, "cmdstat_") && !strings.HasPrefix(l, "cmdstat_info") && !strings.HasPrefix(l, "cmdstat_config"):
				name, rest, _ := strings.Cut(l, ":")
				var keep []string
				for _, f := range strings.Split(rest, ",") {
					if !strings.Contains(f, "usec") {
						keep = append(keep, f)
					}
				}
				lines = append(lines, name+":"+strings.Join(keep, ","))
			}
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// TestScriptKillInsideLibraryCall: SCRIPT KILL stops a script inside one
// long library call, a backtracking pattern that would run for minutes
// (Redis itself runs such a call to its end before it sees the kill).
func TestScriptKillInsideLibraryCall(t *testing.T) {
	ts := startServer(t)
	for _, body := range []string{
		"return string.find(('a'):rep(26), ('a*'):rep(15)..'b')",
		"return string.gsub(('a'):rep(26), ('a-'):rep(15)..'b', '')",
	} {
		start := time.Now()
		got := busyReplies(t, ts.addr, busyCase{
			run:    []string{"EVAL", body, "0"},
			during: [][]string{{"SCRIPT", "KILL"}},
			after:  [][]string{{"PING"}},
		})
		want := []string{
			"+OK\r\n",
			"-ERR Script killed by user with SCRIPT KILL... script: " + script.SHA1Hex([]byte(body)) + ", on @user_script:1.\r\n",
			"+PONG\r\n",
		}
		if len(got) != len(want) {
			t.Fatalf("%s: replies %q", body, got)
		}
		for i := range want {
			if string(got[i]) != want[i] {
				t.Errorf("%s: reply %d %q, want %q", body, i, got[i], want[i])
			}
		}
		t.Logf("%s: killed after %v", body, time.Since(start))
	}
}

// TestDiffLuaPatterns runs string.find, match, gmatch and gsub on random
// subjects and patterns, malformed ones included, in Redis and in Cairn
// and compares every result and error.
func TestDiffLuaPatterns(t *testing.T) {
	d := newDiffRun(t)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 2))
	items := []string{"a", "b", ".", "%a", "%d", "%s", "%w", "%p", "%u", "%x", "%z", "[ab]", "[^a]", "[a-c]", "[%d.]", "[]", "%", "%%",
		"%b()", "%f[%w]", "%f", "%1", "(", ")", "()", "x", "1", " ", "[", "]", "-", "^", "$", "%A"}
	reps := []string{"", "", "", "*", "+", "-", "?"}
	const chars = "ab1 x%()[].-\x00B"
	body := `local out = {}
for i = 1, #ARGV, 2 do
  local s, p = ARGV[i], ARGV[i+1]
  local function put(ok, ...)
    local t = {tostring(ok)}
    for j = 1, select('#', ...) do t[#t+1] = tostring((select(j, ...))) end
    out[#out+1] = table.concat(t, '|')
  end
  put(pcall(string.find, s, p))
  put(pcall(string.find, s, p, -3))
  put(pcall(string.match, s, p, 2))
  put(pcall(string.gsub, s, p, '<%0>'))
  put(pcall(string.gsub, s, p, {a = 'A', ['1'] = 1}, 2))
  put(pcall(function()
    local n = {}
    for a, b in string.gmatch(s, p) do n[#n+1] = tostring(a) .. ',' .. tostring(b) if #n > 20 then break end end
    return table.concat(n, ';')
  end))
end
return out`
	for batch := 0; batch < 20; batch++ {
		args := []string{"EVAL", body, "0"}
		for range 50 {
			var p strings.Builder
			for range rng.IntN(6) {
				p.WriteString(items[rng.IntN(len(items))])
				p.WriteString(reps[rng.IntN(len(reps))])
			}
			s := make([]byte, rng.IntN(10))
			for i := range s {
				s[i] = chars[rng.IntN(len(chars))]
			}
			args = append(args, string(s), p.String())
		}
		anyArgs := make([]any, len(args))
		for i, a := range args {
			anyArgs[i] = a
		}
		want, err := d.redis.Do(anyArgs...)
		if err != nil {
			t.Fatal(err)
		}
		got, err := d.cairn.Do(anyArgs...)
		if err != nil {
			t.Fatal(err)
		}
		w, g := want.([]any), got.([]any)
		if len(w) != len(g) {
			t.Fatalf("%d results, Redis %d", len(g), len(w))
		}
		calls := []string{"find", "find -3", "match 2", "gsub '<%0>'", "gsub table 2", "gmatch"}
		for i := range w {
			if !bytes.Equal(w[i].([]byte), g[i].([]byte)) {
				c := i / len(calls)
				t.Errorf("string.%s of %q, %q: got %q, Redis %q", calls[i%len(calls)], args[3+2*c], args[4+2*c], g[i], w[i])
			}
		}
		if t.Failed() {
			break
		}
	}
}

// TestDiffLuaFormat runs string.format with random directives and values
// in Redis and in Cairn and compares the results and errors.
func TestDiffLuaFormat(t *testing.T) {
	d := newDiffRun(t)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 3))
	flags := []string{"", "", "-", "+", " ", "#", "0", "-0", "+ ", "#0", "-+ #0", "--+ #0"}
	widths := []string{"", "", "1", "5", "12", "99", "100"}
	precs := []string{"", "", ".", ".0", ".1", ".3", ".10", ".99", ".100"}
	convs := []string{"d", "i", "u", "c", "o", "x", "X", "e", "E", "f", "g", "G", "q", "s", "%", "y", "l", "", "a"}
	values := []string{"0", "1", "-1", "3.7", "-2.5", "255", "1e15", "1e20", "123456.789", "1e-5", "0.1", "inf", "-inf", "nan",
		"65", "abc", "a\x00b", "\"q\"\\\n\r", "", "9007199254740993", "-9.3e18", "1e300"}
	body := `local out = {}
for i = 1, #ARGV, 2 do
  local f, v = ARGV[i], ARGV[i+1]
  local n = tonumber(v)
  if v == 'inf' then n = 1/0 elseif v == '-inf' then n = -1/0 elseif v == 'nan' then n = nil end
  local ok, r = pcall(string.format, f, n or v)
  out[#out+1] = tostring(ok) .. '|' .. tostring(r)
  ok, r = pcall(string.format, f, v)
  out[#out+1] = tostring(ok) .. '|' .. tostring(r)
  ok, r = pcall(function() return string.format(f .. '|%s', n or v, v) end)
  out[#out+1] = tostring(ok) .. '|' .. tostring(r)
end
return out`
	for batch := 0; batch < 20; batch++ {
		args := []any{"EVAL", body, "0"}
		for range 50 {
			var f strings.Builder
			f.WriteString("<")
			f.WriteString("%" + flags[rng.IntN(len(flags))] + widths[rng.IntN(len(widths))] + precs[rng.IntN(len(precs))] + convs[rng.IntN(len(convs))])
			f.WriteString(">")
			args = append(args, f.String(), values[rng.IntN(len(values))])
		}
		want, err := d.redis.Do(args...)
		if err != nil {
			t.Fatal(err)
		}
		got, err := d.cairn.Do(args...)
		if err != nil {
			t.Fatal(err)
		}
		w, g := want.([]any), got.([]any)
		if len(w) != len(g) {
			t.Fatalf("%d results, Redis %d", len(g), len(w))
		}
		for i := range w {
			if !bytes.Equal(w[i].([]byte), g[i].([]byte)) {
				c := i / 3
				t.Errorf("case %d of string.format(%q, %q): got %q, Redis %q", i%3, args[3+2*c], args[4+2*c], g[i], w[i])
			}
		}
		if t.Failed() {
			break
		}
	}
}
