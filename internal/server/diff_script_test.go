package server

import (
	"bytes"
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/redistest"
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
