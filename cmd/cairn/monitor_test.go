package main

import (
	"bytes"
	"os"
	"strconv"
	"testing"
)

// The server replaces itself, in the same process, with an image whose
// runtime has the quiet-monitor setting, unless GODEBUG already decides
// schedtrace.
func TestQuietMonitorExec(t *testing.T) {
	bin := buildCairn(t)
	tests := []struct {
		name    string
		godebug string // "" leaves GODEBUG unset
		want    string // the child's GODEBUG
	}{
		{"added", "", "GODEBUG=schedtrace=2147483647"},
		{"added to other settings", "madvdontneed=1", "GODEBUG=madvdontneed=1,schedtrace=2147483647"},
		{"the user's choice kept", "schedtrace=0", "GODEBUG=schedtrace=0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.godebug == "" {
				t.Setenv("GODEBUG", "")
				os.Unsetenv("GODEBUG")
			} else {
				t.Setenv("GODEBUG", tt.godebug)
			}
			p := startCairn(t, bin, true, 0, "--dir", t.TempDir())
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
			if len(got) != 1 || got[0] != tt.want {
				t.Errorf("child's environment has %q, want [%q]", got, tt.want)
			}
		})
	}
}
