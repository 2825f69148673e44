//go:build unix

package fdlimit

import (
	"bytes"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// The cases change the process's own limits, so each runs in a child: the
// test binary run again with childEnv naming the case.
const childEnv = "FDLIMIT_TEST_CASE"

type fitCase struct {
	name       string
	soft, hard uint64 // the child's limits before Fit
	maxclients int
	want       int    // Fit's result
	wantSoft   uint64 // the soft limit afterwards
	wantLog    []string
	wantErr    string
}

// huge is more clients than the kernel's nr_open allows descriptors.
const huge = 1 << 21

var fitCases = []fitCase{
	{name: "fits", soft: 200, hard: 200, maxclients: 100, want: 100, wantSoft: 200},
	{name: "raised to hard", soft: 100, hard: 300, maxclients: 150, want: 150, wantSoft: 182,
		wantLog: []string{"Increased maximum number of open files to 182 (it was originally set to 100)."}},
	// The counts past nr_open cannot be had even by root.
	{name: "reduced", soft: 100, hard: 100, maxclients: huge, want: 68, wantSoft: 100,
		wantLog: []string{
			"You requested maxclients of 2097152 requiring at least 2097184 max file descriptors.",
			"Server can't set maximum open files to 2097184 because of OS error: operation not permitted.",
			"Current maximum open files is 100. maxclients has been reduced to 68 to compensate for low ulimit. If you need higher maxclients increase 'ulimit -n'.",
		}},
	{name: "raised then reduced", soft: 100, hard: 150, maxclients: huge, want: 118, wantSoft: 150,
		wantLog: []string{"maxclients has been reduced to 118"}},
	{name: "too low", soft: 32, hard: 32, maxclients: huge, wantSoft: 32,
		wantErr: "your current 'ulimit -n' of 32 is not enough for the server to start; please increase your open file limit to at least 2097184"},
}

func TestFit(t *testing.T) {
	if name := os.Getenv(childEnv); name != "" {
		for _, c := range fitCases {
			if c.name == name {
				runChild(t, c)
				return
			}
		}
		t.Fatalf("no case %q", name)
	}
	if b, err := os.ReadFile("/proc/sys/fs/nr_open"); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && n >= huge+Reserved {
			t.Skipf("nr_open is %d: the cases assume fewer than %d descriptors", n, huge+Reserved)
		}
	}
	for _, c := range fitCases {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestFit$", "-test.v")
			cmd.Env = append(os.Environ(), childEnv+"="+c.name)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("child failed: %v\n%s", err, out)
			}
		})
	}
}

func runChild(t *testing.T, c fitCase) {
	if err := setLimit(c.soft, c.hard); err != nil {
		t.Fatalf("setrlimit(%d, %d): %v", c.soft, c.hard, err)
	}
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	got, err := Fit(c.maxclients, log)
	switch {
	case c.wantErr != "":
		if err == nil || err.Error() != c.wantErr {
			t.Fatalf("Fit(%d) error = %v, want %q", c.maxclients, err, c.wantErr)
		}
	case err != nil:
		t.Fatalf("Fit(%d): %v", c.maxclients, err)
	case got != c.want:
		t.Fatalf("Fit(%d) = %d, want %d", c.maxclients, got, c.want)
	}
	if soft, _, _ := getLimit(); soft != c.wantSoft {
		t.Fatalf("soft limit after Fit = %d, want %d", soft, c.wantSoft)
	}
	logged := buf.String()
	for _, line := range c.wantLog {
		if !strings.Contains(logged, line) {
			t.Errorf("log lacks %q:\n%s", line, logged)
		}
	}
	if len(c.wantLog) == 0 && logged != "" {
		t.Errorf("unexpected log:\n%s", logged)
	}
}
