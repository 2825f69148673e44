package server

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// rss is the resident set size of this process, from /proc.
func rss() uint64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseUint(f[1], 10, 64)
	return pages * uint64(os.Getpagesize())
}

func systemMemory() uint64 {
	var si syscall.Sysinfo_t
	if syscall.Sysinfo(&si) != nil {
		return 0
	}
	return si.Totalram * uint64(si.Unit)
}

// cpuTimes returns the process's user and system CPU seconds, and those of
// its waited-for children.
func cpuTimes() (user, sys, childUser, childSys float64) {
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	var ru, cru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		user, sys = tv(ru.Utime), tv(ru.Stime)
	}
	if syscall.Getrusage(syscall.RUSAGE_CHILDREN, &cru) == nil {
		childUser, childSys = tv(cru.Utime), tv(cru.Stime)
	}
	return user, sys, childUser, childSys
}
