package main

import (
	"bytes"
	"os"
	"slices"
	"strconv"
	"testing"
)

// With quiet-monitor yes, the server replaces itself, in the same process,
// with an image whose runtime has the quiet-monitor setting, unless GODEBUG
// already decides schedtrace; by default it does not re-execute at all.
func TestQuietMonitorExec(t *testing.T) {
	bin := buildCairn(t)
	tests := []struct {
		name    string
		setting string // the quiet-monitor setting; "" leaves it out
		godebug string // "" leaves GODEBUG unset
		want    []string
	}{
		{"off by default", "", "", nil},
		{"off", "no", "madvdontneed=1", []string{"GODEBUG=madvdontneed=1"}},
		{"added", "yes", "", []string{"GODEBUG=schedtrace=2147483647"}},
		{"added to other settings", "yes", "madvdontneed=1", []string{"GODEBUG=madvdontneed=1,schedtrace=2147483647"}},
		{"the user's choice kept", "yes", "schedtrace=0", []string{"GODEBUG=schedtrace=0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.godebug == "" {
				t.Setenv("GODEBUG", "")
				os.Unsetenv("GODEBUG")
			} else {
				t.Setenv("GODEBUG", tt.godebug)
			}
			args := []string{"--dir", t.TempDir()}
			if tt.setting != "" {
				args = append(args, "--quiet-monitor", tt.setting)
			}
			p := startCairn(t, bin, true, 0, args...)
			if err := p.client(t).Ping(t.Context()).Err(); err != nil {
				t.Fatal(err)
			}
			// The process the test started is the one serving: exec keeps
			// its ID, and its environment is the new image's.
			environ, err := os.ReadFile("/proc/" + strconv.Itoa(p.cmd.Process.Pid) + "/environ")
			if err != nil {
				t.Skipf("no /proc here: %v", err)
			}
			var got []string
			for _, kv := range bytes.Split(environ, []byte{0}) {
				if bytes.HasPrefix(kv, []byte("GODEBUG=")) {
					got = append(got, string(kv))
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("child's environment has %q, want %q", got, tt.want)
			}
		})
	}
}
