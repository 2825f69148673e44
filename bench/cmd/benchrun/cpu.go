package main

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"
)

// cpuUse is where the machine's CPU went during a measurement, in cores
// (CPU-seconds per second). The load generator runs on the same machine as
// the server, and so may anything else: on a small machine a latency
// percentile means little without knowing what else wanted the CPU.
type cpuUse struct {
	Server float64 // the server process
	Client float64 // this process: the load generator (and the idle harness)
	// Others is every other process; Interrupts the kernel's interrupt
	// work, mostly the loopback network stack serving both sides.
	Others     float64
	Interrupts float64
	Steal      float64 // time the hypervisor gave to other machines
}

// clockTicks is USER_HZ, the unit of /proc's CPU times: 100 on every Linux
// architecture Go supports.
const clockTicks = 100

// cpuSample is one reading of the counters cpuUse is computed from.
type cpuSample struct {
	at               time.Time
	busy, irq, steal int64 // machine-wide ticks: user+nice+system, irq+softirq, steal
	server           int64 // the server's utime+stime, ticks
	self             time.Duration
}

func sampleCPU(serverPid int) (cpuSample, error) {
	s := cpuSample{at: time.Now()}
	stat, err := os.ReadFile("/proc/stat")
	if err != nil {
		return s, err
	}
	if s.busy, s.irq, s.steal, err = parseProcStat(stat); err != nil {
		return s, err
	}
	if s.server, err = serverTicks(serverPid); err != nil {
		return s, err
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return s, fmt.Errorf("getrusage: %w", err)
	}
	s.self = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	return s, nil
}

// since returns the use between before and s. The machine-wide and
// per-process counters tick separately, so Others is approximate to a few
// hundredths of a core and never reported below zero.
func (s cpuSample) since(before cpuSample) cpuUse {
	secs := s.at.Sub(before.at).Seconds()
	if secs <= 0 {
		return cpuUse{}
	}
	cores := func(ticks int64) float64 { return float64(ticks) / clockTicks / secs }
	u := cpuUse{
		Server:     cores(s.server - before.server),
		Client:     (s.self - before.self).Seconds() / secs,
		Interrupts: cores(s.irq - before.irq),
		Steal:      cores(s.steal - before.steal),
	}
	u.Others = max(cores(s.busy-before.busy)-u.Server-u.Client, 0)
	return u
}

// serverTicks is the CPU time (utime+stime) process pid has used, in ticks.
func serverTicks(pid int) (int64, error) {
	pstat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	return parsePidStatTicks(pstat)
}

// parseProcStat reads the machine-wide "cpu" line of /proc/stat.
func parseProcStat(data []byte) (busy, irq, steal int64, err error) {
	line, _, _ := bytes.Cut(data, []byte("\n"))
	f := bytes.Fields(line)
	if len(f) < 9 || string(f[0]) != "cpu" {
		return 0, 0, 0, fmt.Errorf("/proc/stat: unexpected first line %q", line)
	}
	var v [8]int64 // user nice system idle iowait irq softirq steal
	for i := range v {
		if v[i], err = strconv.ParseInt(string(f[i+1]), 10, 64); err != nil {
			return 0, 0, 0, fmt.Errorf("/proc/stat: %w", err)
		}
	}
	return v[0] + v[1] + v[2], v[5] + v[6], v[7], nil
}

// parsePidStatTicks returns utime+stime from /proc/PID/stat.
func parsePidStatTicks(data []byte) (int64, error) {
	// The command name, field 2, may hold spaces and parentheses: the
	// fields after it are counted from its last ')'.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/PID/stat: no command name in %q", data)
	}
	f := bytes.Fields(data[i+1:])
	// f[0] is field 3 (state); utime and stime are fields 14 and 15.
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/PID/stat: %d fields after the name", len(f))
	}
	utime, err := strconv.ParseInt(string(f[11]), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("/proc/PID/stat utime: %w", err)
	}
	stime, err := strconv.ParseInt(string(f[12]), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("/proc/PID/stat stime: %w", err)
	}
	return utime + stime, nil
}
