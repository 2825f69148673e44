package main

import (
	"context"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// The procs setting fixes the processor count at start and under CONFIG
// SET; 0 hands it back to the governor, which starts from the runtime's
// default count.
func TestProcsSetting(t *testing.T) {
	bin := buildCairn(t)
	// The child's default is the runtime's, like this process's unless
	// GOMAXPROCS is set here.
	defaultProcs := runtime.GOMAXPROCS(0)
	p := startCairn(t, bin, true, 0, "--dir", t.TempDir(), "--procs", "1")
	c := p.client(t)
	ctx := context.Background()
	active := func() int {
		t.Helper()
		info, err := c.Info(ctx, "server").Result()
		if err != nil {
			t.Fatal(err)
		}
		for line := range strings.SplitSeq(info, "\r\n") {
			if v, ok := strings.CutPrefix(line, "procs:"); ok {
				n, err := strconv.Atoi(v)
				if err != nil {
					t.Fatalf("INFO procs:%s", v)
				}
				return n
			}
		}
		t.Fatalf("INFO server has no procs field:\n%s", info)
		return 0
	}
	if got := active(); got != 1 {
		t.Fatalf("procs %d with --procs 1", got)
	}
	steps := []struct {
		set  string
		want int
	}{
		{"2", 2},
		{"1", 1},
		// Idle, the governor keeps the count it starts from.
		{"0", defaultProcs},
	}
	for _, s := range steps {
		if err := c.ConfigSet(ctx, "procs", s.set).Err(); err != nil {
			t.Fatalf("CONFIG SET procs %s: %v", s.set, err)
		}
		if got := active(); got != s.want {
			t.Errorf("procs %d after CONFIG SET procs %s, want %d", got, s.set, s.want)
		}
	}
	for _, bad := range []string{"-1", "1025", "two"} {
		if err := c.ConfigSet(ctx, "procs", bad).Err(); err == nil {
			t.Errorf("CONFIG SET procs %s succeeded", bad)
		}
	}
}
