package procs

import (
	"slices"
	"testing"
)

func TestQuietMonitorEnv(t *testing.T) {
	tests := []struct {
		name    string
		environ []string
		want    []string
		changed bool
	}{
		{"no GODEBUG", []string{"HOME=/root"}, []string{"HOME=/root", "GODEBUG=" + quietMonitorSetting}, true},
		{"empty GODEBUG", []string{"GODEBUG=", "A=1"}, []string{"GODEBUG=" + quietMonitorSetting, "A=1"}, true},
		{"other settings kept", []string{"GODEBUG=madvdontneed=1"}, []string{"GODEBUG=madvdontneed=1," + quietMonitorSetting}, true},
		{"schedtrace chosen by the user", []string{"GODEBUG=schedtrace=0"}, []string{"GODEBUG=schedtrace=0"}, false},
		{"schedtrace among others", []string{"GODEBUG=gctrace=1,schedtrace=1000"}, []string{"GODEBUG=gctrace=1,schedtrace=1000"}, false},
		{"already set by an earlier exec", []string{"GODEBUG=" + quietMonitorSetting}, []string{"GODEBUG=" + quietMonitorSetting}, false},
		{"a name that only contains schedtrace", []string{"GODEBUG=xschedtrace=1"}, []string{"GODEBUG=xschedtrace=1," + quietMonitorSetting}, true},
		// The environment's first GODEBUG is the one the runtime reads.
		{"duplicate GODEBUG, first decides", []string{"GODEBUG=schedtrace=0", "GODEBUG=gctrace=1"}, []string{"GODEBUG=schedtrace=0", "GODEBUG=gctrace=1"}, false},
		{"duplicate GODEBUG, first extended", []string{"GODEBUG=gctrace=1", "GODEBUG=schedtrace=0"}, []string{"GODEBUG=gctrace=1," + quietMonitorSetting, "GODEBUG=schedtrace=0"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := slices.Clone(tt.environ)
			got, changed := QuietMonitorEnv(in)
			if !slices.Equal(got, tt.want) || changed != tt.changed {
				t.Errorf("QuietMonitorEnv(%q) = %q, %v; want %q, %v", tt.environ, got, changed, tt.want, tt.changed)
			}
			if !slices.Equal(in, tt.environ) {
				t.Errorf("QuietMonitorEnv changed its argument to %q", in)
			}
		})
	}
}
