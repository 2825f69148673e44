package procs

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"syscall"
)

// The Go runtime's monitor thread (sysmon) sleeps deeply while every
// processor is idle, and the next goroutine to enter a system call wakes it
// again, resetting its period to 20 µs. A server of unpipelined clients
// goes idle between nearly every pair of requests, so the monitor is woken
// thousands of times a second and then polls every 20 µs, each poll a
// timer, a context switch and a look at the processors, during which it
// also hands processors in short socket calls to fresh threads. Measured on
// 2 cores under redis-benchmark -P 1 (200,000 GETs, 50 clients): 24,000
// context switches of the monitor thread and about 23,000 more of the
// threads it woke, against 250 and 9,000 with the deep sleep disabled; CPU
// per command fell by a quarter for GET and by a tenth to a fifth for SET.
//
// The only way to disable the deep sleep is the runtime's scheduler trace
// setting: with schedtrace set, the monitor never sleeps deeply and backs
// its period off to 10 ms while it finds nothing to do, as it does under a
// load that never lets the processors idle. quietMonitorSetting sets the
// trace's period to its largest value (2^31-1 ms, 24.8 days of the
// machine's uptime), so the trace itself prints one line to stderr every
// 24.8 days of uptime. The setting is read once, at the program's start,
// so it is given to a fresh image of the program through the environment.
const quietMonitorSetting = "schedtrace=2147483647"

// QuietMonitorEnv returns environ with the quiet-monitor setting added to
// GODEBUG, and whether it added it. It adds nothing when GODEBUG already
// names schedtrace, so that GODEBUG=schedtrace=0 keeps the runtime's own
// behaviour (and a program started with the setting does not add it again).
func QuietMonitorEnv(environ []string) ([]string, bool) {
	const prefix = "GODEBUG="
	// The runtime reads the first GODEBUG in the environment.
	at := slices.IndexFunc(environ, func(kv string) bool { return strings.HasPrefix(kv, prefix) })
	if at < 0 {
		return append(environ[:len(environ):len(environ)], prefix+quietMonitorSetting), true
	}
	current := environ[at][len(prefix):]
	for _, field := range strings.Split(current, ",") {
		if name, _, _ := strings.Cut(field, "="); name == "schedtrace" {
			return environ, false
		}
	}
	out := make([]string, len(environ))
	copy(out, environ)
	if current == "" {
		out[at] = prefix + quietMonitorSetting
	} else {
		out[at] = prefix + current + "," + quietMonitorSetting
	}
	return out, true
}

// ExecWithQuietMonitor replaces the running program with a fresh image of
// itself (same process ID, arguments and environment) whose runtime has
// the quiet-monitor setting, unless its environment already decides
// schedtrace. It returns only if it did not replace the program: nil when
// there was nothing to do, an error when the exec failed (the program can
// carry on with the runtime's default behaviour). Call it early in main,
// once the settings are read (it is the quiet-monitor setting, off by
// default) and before any file or listener is opened.
func ExecWithQuietMonitor() error {
	env, changed := QuietMonitorEnv(os.Environ())
	if !changed {
		return nil
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("quiet monitor: find own executable: %w", err)
	}
	if err := syscall.Exec(self, os.Args, env); err != nil {
		return fmt.Errorf("quiet monitor: exec %s: %w", self, err)
	}
	return nil
}
