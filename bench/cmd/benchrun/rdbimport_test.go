package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cairndb/cairn/bench/internal/procs"
)

func TestNextGroups(t *testing.T) {
	tests := []struct {
		name         string
		target, size int64
		groups, want int
	}{
		{"first pass uses the guess", 100 * rdbGroupGuess, 0, 0, 100},
		{"measured size per group", 1000, 500, 10, 20},
		{"already past the target still grows", 1000, 2000, 10, 11},
		{"tiny target makes one group", 1, 0, 0, 1},
		{"rounds to the nearest", 1050, 100, 1, 11},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := nextGroups(tc.target, tc.size, tc.groups); got != tc.want {
				t.Errorf("nextGroups(%d, %d, %d) = %d, want %d", tc.target, tc.size, tc.groups, got, tc.want)
			}
		})
	}
}

// TestRDBGroupCommands checks a group's keys and sizes, and that a group
// is the same every time (a later pass must not rewrite an earlier one).
func TestRDBGroupCommands(t *testing.T) {
	for _, g := range []int{0, 1, 7, rdbBigEvery, rdbExpireEvery + 1} {
		cmds := rdbGroupCommands(g)
		if !reflect.DeepEqual(cmds, rdbGroupCommands(g)) {
			t.Fatalf("group %d differs between calls", g)
		}
		keys := map[string]bool{}
		expires := 0
		for _, c := range cmds {
			name, key := c[0].(string), c[1].(string)
			switch name {
			case "EXPIRE":
				expires++
				if !keys[key] {
					t.Errorf("group %d: EXPIRE of %s before it is set", g, key)
				}
				continue
			case "SET":
				if v := c[2].(string); len(v) != rdbStringSize {
					t.Errorf("group %d: SET value of %d bytes", g, len(v))
				}
			}
			keys[key] = true
		}
		if got := int64(len(keys)); got != rdbGroupKeys(1) {
			t.Errorf("group %d: %d keys, rdbGroupKeys(1) = %d", g, got, rdbGroupKeys(1))
		}
		if want := map[bool]int{true: 1, false: 0}[g%rdbExpireEvery == 0]; expires != want {
			t.Errorf("group %d: %d EXPIREs, want %d", g, expires, want)
		}
		elems := rdbSmallElems
		if g%rdbBigEvery == 0 {
			elems = rdbBigElems
		}
		for _, c := range cmds {
			per := map[string]int{"HSET": 2, "RPUSH": 1, "SADD": 1, "ZADD": 2}[c[0].(string)]
			if per > 0 && len(c) != 2+per*elems {
				t.Errorf("group %d: %s has %d arguments, want %d elements", g, c[0], len(c), elems)
			}
		}
	}
	if reflect.DeepEqual(rdbGroupCommands(1), rdbGroupCommands(2)) {
		t.Error("groups 1 and 2 are the same")
	}
}

func TestImportedKeys(t *testing.T) {
	tests := []struct {
		out  string
		want int64
		err  bool
	}{
		{"read 100 bytes of an RDB version 10 file in 1ms\nloaded 3696 keys (db0: 3696), 0 function libraries\nimported x into y\n", 3696, false},
		{"progress 10%\rprogress 100%\nloaded 5 keys, 0 function libraries\n", 5, false},
		{"nothing here\n", 0, true},
		{"the summary says loaded 5 keys mid-line\n", 0, true},
	}
	for _, tc := range tests {
		got, err := importedKeys([]byte(tc.out))
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("importedKeys(%q) = %d, %v; want %d, error %v", tc.out, got, err, tc.want, tc.err)
		}
	}
}

func TestLastLines(t *testing.T) {
	if got := lastLines([]byte("a\nb\r\nc\rd\n\n"), 2); got != "c\nd" {
		t.Errorf("lastLines = %q", got)
	}
	if got := lastLines(nil, 3); got != "" {
		t.Errorf("lastLines(nil) = %q", got)
	}
}

// TestRunMeasured runs a small program and checks that its time, peak RSS
// and output are taken, and that a failing one reports its failure.
func TestRunMeasured(t *testing.T) {
	sh := "/bin/sh"
	if _, err := os.Stat(sh); err != nil {
		t.Skip("no /bin/sh")
	}
	log := filepath.Join(t.TempDir(), "out.log")
	run, out, err := runMeasured(context.Background(), sh, []string{"-c", "echo loaded 7 keys; sleep 0.05"}, log)
	if err != nil {
		t.Fatal(err)
	}
	if run.Elapsed < 50*time.Millisecond || run.PeakRSS <= 0 || string(out) != "loaded 7 keys\n" {
		t.Errorf("run = %+v, out %q", run, out)
	}
	if _, _, err := runMeasured(context.Background(), sh, []string{"-c", "exit 3"}, log); err == nil {
		t.Error("a failing program gave no error")
	}
}

func TestImportReport(t *testing.T) {
	r := &results{Settings: settings{ImportRounds: 2}}
	r.Import = &importResult{
		TargetSize: 100 << 20, FileSize: 100 << 20, Keys: 1_000_000, Groups: 1000, Passes: 2, Generate: time.Second,
		CairnCmd: "cairn import <dump.rdb> --dir <fresh dir>", RedisCmd: "redis-server --dir <d>",
		Imports:    []importRun{{Elapsed: 2 * time.Second, PeakRSS: 100 << 20, Keys: 1_000_000}, {Elapsed: 4 * time.Second, PeakRSS: 200 << 20, Keys: 1_000_000}},
		RedisReady: []time.Duration{time.Second, time.Second},
		RedisRSS:   300 << 20,
		CairnDisk:  procs.DirUsage{Apparent: 50 << 20, Allocated: 60 << 20, ByExt: map[string]int64{".sst": 50 << 20}},
		Checked:    true,
	}
	var b strings.Builder
	r.writeImport(&b)
	md := b.String()
	for _, want := range []string{
		"## RDB import",
		"100.0 MiB dump.rdb (1,000,000 keys)",
		"1,000 groups, made in 2 passes of filling",
		"| time, s | 3.000 (2.000–4.000) | 1.000 (1.000–1.000) |",
		"| MB/s of the file | 37.5 (25.0–50.0) | 100 (100–100) |",
		"| keys/s | 375,000 (250,000–500,000) | 1,000,000 (1,000,000–1,000,000) |",
		"| peak RSS | 150.0 MiB (100.0 MiB–200.0 MiB) | 300.0 MiB",
		"answered DBSIZE with all of them",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("no %q in\n%s", want, md)
		}
	}
	if err := importComplete(r.Import, 2); err != nil {
		t.Errorf("importComplete: %v", err)
	}
	if err := importComplete(r.Import, 3); err == nil {
		t.Error("importComplete accepted 2 rounds of 3")
	}
	r.Import.Imports[1].PeakRSS = 0
	if err := importComplete(r.Import, 2); err == nil {
		t.Error("importComplete accepted a run without its RSS")
	}
}

func TestRDBSizeFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want int64
		err  bool
	}{
		{nil, 1 << 30, false},
		{[]string{"--quick"}, 50 << 20, false},
		{[]string{"--smoke"}, 1 << 20, false},
		{[]string{"--rdb-size", "10mb"}, 10 << 20, false},
		{[]string{"--rdb-size", "0"}, 0, true},
		{[]string{"--rdb-size", "lots"}, 0, true},
	} {
		t.Run(fmt.Sprint(tc.args), func(t *testing.T) {
			o, err := parseArgs(append(tc.args, rdbImport), &strings.Builder{})
			if err != nil {
				t.Fatal(err)
			}
			s, err := settingsFor(o)
			if (err != nil) != tc.err {
				t.Fatalf("settingsFor: %v", err)
			}
			if err == nil && s.RDBSize != tc.want {
				t.Errorf("RDBSize = %d, want %d", s.RDBSize, tc.want)
			}
		})
	}
}
