package main

import (
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// Protected mode's decision is unit-tested in internal/server with made-up
// remote addresses: tests never send traffic to a non-loopback address,
// even one of this machine's own.
func TestDataDirLocked(t *testing.T) {
	bin := buildCairn(t)
	dir := t.TempDir()
	first := startCairn(t, bin, true, 0, "--dir", dir)
	cmd := exec.Command(bin, "--dir", dir, "--port", strconv.Itoa(freePort(t)))
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("a second server on the same dir started:\n%s", out)
	}
	want := fmt.Sprintf("is in use by another process (pid %d)", first.cmd.Process.Pid)
	if !strings.Contains(string(out), want) || !strings.Contains(string(out), dir) {
		t.Fatalf("second server's error lacks %q and the dir:\n%s", want, out)
	}
	if err := first.client(t).Ping(context.Background()).Err(); err != nil {
		t.Fatalf("the first server after the second's attempt: %v", err)
	}
}

func TestParseLocks(t *testing.T) {
	text := "1: POSIX  ADVISORY  WRITE 4242 08:01:123456 0 EOF\n" +
		"2: FLOCK  ADVISORY  WRITE 77 fd:02:999 0 EOF\n" +
		"2: -> FLOCK  ADVISORY  WRITE 78 fd:02:999 0 EOF\n"
	dev := func(ma, mi uint64) uint64 { return ma<<8 | mi } // small numbers encode this way
	for _, tc := range []struct {
		dev, ino uint64
		self     int
		want     int
	}{
		{dev(8, 1), 123456, 1, 4242},
		{dev(0xfd, 2), 999, 1, 77},
		{dev(0xfd, 2), 999, 77, 78},
		{dev(8, 1), 123457, 1, 0},
		{dev(8, 2), 123456, 1, 0},
	} {
		if got := parseLocks(text, tc.dev, tc.ino, tc.self); got != tc.want {
			t.Errorf("parseLocks(dev %x, ino %d, self %d) = %d, want %d", tc.dev, tc.ino, tc.self, got, tc.want)
		}
	}
}

func TestHelpAndVersion(t *testing.T) {
	bin := buildCairn(t)
	for _, args := range [][]string{{"--version"}, {"--port", "0", "--version"}, {"/nonexistent.conf", "-v"}} {
		out, err := exec.Command(bin, args...).CombinedOutput()
		if err != nil || !strings.HasPrefix(string(out), "Cairn v=") {
			t.Errorf("cairn %v: %q, %v", args, out, err)
		}
	}
	out, err := exec.Command(bin, "--loglevel", "debug", "--help").CombinedOutput()
	if err != nil {
		t.Fatalf("--help: %v\n%s", err, out)
	}
	for _, want := range []string{"Usage: cairn", "--port <int>  (default 6379, live)", "--tls-auth-clients <no|yes|optional>  (default yes, live)", "--dir <string>  (default ./cairn-data)", "--tls-port <int>  (default 0)\n",
		"--protected-mode <yes|no>  (default yes, live)", "--requirepass <string>  (default \"\", live)",
		"--maxmemory <memory>  (default 0, live)\n      accepted and not applied", "Cairn replicates from a Redis master but does not serve replicas yet:\n      bind-source-addr min-replicas-max-lag",
		" rdbchecksum rdbcompression", "Refused with the reason"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("--help lacks %q:\n%s", want, out)
		}
	}
}
