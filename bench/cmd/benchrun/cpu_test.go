package main

import (
	"os"
	"strings"
	"testing"
	"time"
)

func TestParseProcStat(t *testing.T) {
	tests := []struct {
		in               string
		busy, irq, steal int64
		wantErr          bool
	}{
		{in: "cpu  100 5 50 1000 7 3 11 2 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n", busy: 155, irq: 14, steal: 2},
		{in: "cpu  1 2 3 4 5 6 7 8\n", busy: 6, irq: 13, steal: 8},
		{in: "cpu0 1 2 3 4 5 6 7 8 9 10\n", wantErr: true},
		{in: "cpu  1 2 3\n", wantErr: true},
		{in: "cpu  1 2 x 4 5 6 7 8 9 10\n", wantErr: true},
	}
	for _, tc := range tests {
		busy, irq, steal, err := parseProcStat([]byte(tc.in))
		if (err != nil) != tc.wantErr {
			t.Errorf("parseProcStat(%q) error = %v, want error %v", tc.in, err, tc.wantErr)
			continue
		}
		if !tc.wantErr && (busy != tc.busy || irq != tc.irq || steal != tc.steal) {
			t.Errorf("parseProcStat(%q) = %d, %d, %d; want %d, %d, %d", tc.in, busy, irq, steal, tc.busy, tc.irq, tc.steal)
		}
	}
}

func TestParsePidStatTicks(t *testing.T) {
	fields := func(name string) string {
		// pid (name) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime ...
		return "42 (" + name + ") S 1 42 42 0 -1 4194560 900 0 3 0 1234 567 0 0 20 0 9 0\n"
	}
	tests := []struct {
		in      string
		want    int64
		wantErr bool
	}{
		{in: fields("cairn"), want: 1801},
		{in: fields("a b) c"), want: 1801}, // a name with spaces and ')' in it
		{in: "42 cairn S 1 2 3", wantErr: true},
		{in: "42 (cairn) S 1 2 3", wantErr: true},
	}
	for _, tc := range tests {
		got, err := parsePidStatTicks([]byte(tc.in))
		if (err != nil) != tc.wantErr || (!tc.wantErr && got != tc.want) {
			t.Errorf("parsePidStatTicks(%q) = %d, %v; want %d, error %v", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestCPUSince(t *testing.T) {
	t0 := time.Unix(1000, 0)
	before := cpuSample{at: t0, busy: 1000, irq: 10, steal: 0, server: 300, self: time.Second}
	after := cpuSample{at: t0.Add(2 * time.Second), busy: 1300, irq: 50, steal: 4, server: 400, self: 2 * time.Second}
	got := after.since(before)
	// 300 busy ticks over 2 s = 1.5 cores: server 0.5, client 0.5, others 0.5.
	want := cpuUse{Server: 0.5, Client: 0.5, Others: 0.5, Interrupts: 0.2, Steal: 0.02}
	near := func(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }
	if !near(got.Server, want.Server) || !near(got.Client, want.Client) || !near(got.Others, want.Others) ||
		!near(got.Interrupts, want.Interrupts) || !near(got.Steal, want.Steal) {
		t.Errorf("since = %+v, want %+v", got, want)
	}
	// The per-process counters can run ahead of the machine's: never below zero.
	after.busy = 1100
	if got := after.since(before); got.Others != 0 {
		t.Errorf("Others = %v with processes ahead of the machine counters, want 0", got.Others)
	}
}

func TestSampleCPUReadsThisMachine(t *testing.T) {
	if _, err := os.Stat("/proc/stat"); err != nil {
		t.Skip("no /proc/stat:", err)
	}
	s, err := sampleCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if s.busy <= 0 || s.self <= 0 {
		t.Errorf("sample %+v: no CPU time counted", s)
	}
	if _, err := sampleCPU(-1); err == nil || !strings.Contains(err.Error(), "-1") {
		t.Errorf("sampleCPU(-1) error = %v, want one naming the process", err)
	}
}
