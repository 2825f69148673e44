package script

import (
	"context"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestMemoryLimit: a run that grows the heap past the limit is stopped
// with the OOM error, which pcall cannot catch; functions that would
// build a string past the limit refuse with Lua's "not enough memory";
// a run within the limit, or with no limit, is left alone.
func TestMemoryLimit(t *testing.T) {
	const limit = 16 << 20
	var freed atomic.Int64
	e := NewEngine(Options{
		MemoryLimit: func() int64 { return limit },
		Freed:       func(n int64) { freed.Add(n) },
	})
	t.Cleanup(e.Close)
	// grow keeps 256 KiB strings until it is stopped, slowly enough for
	// the watchdog to see it long before it reaches its bound (256 MiB).
	const grow = `local t = {} for i = 1, 1024 do t[i] = string.rep('x', 262144) .. i for j = 1, 1000 do end end`
	oom := "-OOM Script used more memory than 'script-memory-limit' allows (16777216 bytes) script: "
	cases := []struct{ name, body, prefix string }{
		{"grows", grow + " return 'not stopped'", oom},
		{"in pcall", "local ok = pcall(function() " + grow + " end) return 'caught'", oom},
		// Ends in the instruction that crosses the limit: found at the end.
		{"ends crossing", "local s = string.rep('x', 4 * 1048576) for j = 1, 200000 do end return {s:upper(), s:lower(), s:upper(), s:lower(), s:reverse()}", "-OOM Script used more memory than 'script-memory-limit' allows (16777216 bytes)"},
		// .. is bounded before it allocates (concat.go), in a chain too.
		{"dot dot", "local s = string.rep('x', 9 * 1048576) return #(s .. s)", "-ERR user_script:1: not enough memory script: "},
		{"dot dot chain", "local s = string.rep('x', 4 * 1048576) return #(s .. 1 .. s .. s .. s .. s)", "-ERR user_script:1: not enough memory script: "},
		{"dot dot doubling", "local s = 'x' while true do s = s .. s end", "-ERR user_script:1: not enough memory script: "},
		{"within", "local s = string.rep('x', 1048576) return #(s .. s)", ":2097152\r\n"},
		{"rep", "return #string.rep('x', 20 * 1048576)", "-ERR user_script:1: not enough memory script: "},
		{"concat", "local s = string.rep('x', 1048576) local t = {} for i = 1, 20 do t[i] = s end return #table.concat(t)", "-ERR user_script:1: not enough memory script: "},
		{"concat sep", "local s = string.rep('x', 1048576) return #table.concat({s, s, s}, s:rep(7))", "-ERR user_script:1: not enough memory script: "},
		{"concat small", "return table.concat({'a', 1, 'b'}, '-')", "$5\r\na-1-b\r\n"},
		{"format", "local s = string.rep('x', 9 * 1048576) return #string.format('%s%s', s, s)", "-ERR user_script:1: not enough memory script: "},
		{"format small", "return string.format('%s=%d', 'a', 5)", "$3\r\na=5\r\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// The baseline is the live heap as of the last collection:
			// make it this case's, not what the last case left.
			runtime.GC()
			e.mem.refresh()
			got, err := evalRaw(t, e, &fakeHost{}, 2, c.body, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(got, c.prefix) {
				t.Errorf("got %q, want prefix %q", got[:min(len(got), 200)], c.prefix)
			}
		})
	}
	if freed.Load() < limit {
		t.Errorf("Freed was told of %d bytes after the stopped runs, want at least %d", freed.Load(), limit)
	}

	unlimited := NewEngine(Options{MemoryLimit: func() int64 { return 0 }})
	t.Cleanup(unlimited.Close)
	got, err := evalRaw(t, unlimited, &fakeHost{}, 2, "return #string.rep('x', 20 * 1048576)", nil, nil)
	if err != nil || got != ":20971520\r\n" {
		t.Errorf("no limit: got %q, %v", got, err)
	}
}

// TestMemoryLimitStateNotPooled: the state of a run stopped for memory is
// not reused, since its stacks may still hold what the run built.
func TestMemoryLimitStateNotPooled(t *testing.T) {
	e := NewEngine(Options{MemoryLimit: func() int64 { return 8 << 20 }})
	t.Cleanup(e.Close)
	got, _ := evalRaw(t, e, &fakeHost{}, 2, "return 1", nil, nil)
	if got != ":1\r\n" || len(e.pool) != 1 {
		t.Fatalf("got %q with %d pooled states, want :1 and 1", got, len(e.pool))
	}
	got, _ = evalRaw(t, e, &fakeHost{}, 2, `local t = {} for i = 1, 1024 do t[i] = string.rep('x', 262144) .. i for j = 1, 1000 do end end`, nil, nil)
	if !strings.HasPrefix(got, "-OOM ") {
		t.Fatalf("got %q, want an OOM error", got)
	}
	if len(e.pool) != 0 {
		t.Errorf("%d states pooled after the stopped run, want 0", len(e.pool))
	}
}

// TestMemoryLimitKilledStillKilled: SCRIPT KILL's cancellation is still
// reported as a kill, not as memory.
func TestMemoryLimitKilledStillKilled(t *testing.T) {
	e := newTestEngine(t)
	s, err := e.Load([]byte("while true do end"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err = e.Eval(ctx, &fakeHost{}, s, nil, nil, nil)
	if _, ok := err.(*KilledError); !ok {
		t.Fatalf("got %v, want a *KilledError", err)
	}
}
