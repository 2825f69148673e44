package main

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestStockRedisConfServes starts Cairn on Debian's stock redis.conf and on
// Redis 7.2's, with only the paths and the port moved for the test, as an
// operator would point it at an existing Redis configuration: it must start,
// serve, log the settings it does not apply on one line, and show them in
// CONFIG GET.
func TestStockRedisConfServes(t *testing.T) {
	bin := buildCairn(t)
	tests := []struct {
		file    string
		want    map[string]string // CONFIG GET
		ignored []string          // named in the log line
	}{
		{file: "debian-7.0.conf",
			want:    map[string]string{"bind": "127.0.0.1 -::1", "daemonize": "yes", "appendonly": "no", "rdbcompression": "yes", "oom-score-adj-values": "0 200 800"},
			ignored: []string{"daemonize", "appendonly", "lazyfree-lazy-user-flush", "jemalloc-bg-thread", "rdbcompression"}},
		{file: "redis-7.2.conf",
			want:    map[string]string{"bind": "127.0.0.1 -::1", "daemonize": "no", "appendonly": "no", "locale-collate": "", "list-max-listpack-size": "-2"},
			ignored: []string{"daemonize", "appendonly", "locale-collate", "aof-timestamp-enabled"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			dir := t.TempDir()
			conf, err := filepath.Abs(filepath.Join("..", "..", "internal", "config", "testdata", "redisconf", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			p := startCairn(t, bin, true, 0, conf, "--dir", dir, "--pidfile", filepath.Join(dir, "pid"), "--logfile", "")
			c := p.client(t)
			ctx := context.Background()
			if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
				t.Fatal(err)
			}
			if got, err := c.Get(ctx, "k").Result(); err != nil || got != "v" {
				t.Fatalf("GET k = %q, %v", got, err)
			}
			for name, want := range tt.want {
				got, err := c.ConfigGet(ctx, name).Result()
				if err != nil || got[name] != want {
					t.Errorf("CONFIG GET %s = %v, %v; want %q", name, got, err, want)
				}
			}
			all, err := c.ConfigGet(ctx, "*").Result()
			if err != nil || len(all) < 180 {
				t.Errorf("CONFIG GET * has %d settings, %v", len(all), err)
			}
			out := p.out.String()
			if n := strings.Count(out, "not applied by Cairn"); n != 1 {
				t.Fatalf("the ignored settings were logged %d times:\n%s", n, out)
			}
			for _, name := range tt.ignored {
				if !strings.Contains(out, " "+name+" ") && !strings.Contains(out, "\""+name+" ") {
					t.Errorf("the log does not name %s as ignored:\n%s", name, out)
				}
			}
		})
	}
}

// TestBindForms checks Redis's bind forms: a '-' address the machine does
// not have is skipped with a warning, a plain one stops the start with the
// error, and an IPv6 address listens beside an IPv4 one on the same port.
// (TEST-NET-1's 192.0.2.1 is an address this machine has not got.)
func TestBindForms(t *testing.T) {
	bin := buildCairn(t)
	p := startCairn(t, bin, true, 0, "--dir", t.TempDir(), "--bind", "127.0.0.1", "-::1", "-192.0.2.1")
	if err := p.client(t).Ping(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	if out := p.out.String(); !strings.Contains(out, "192.0.2.1") || !strings.Contains(out, "skipped") {
		t.Errorf("the missing optional address was not reported:\n%s", out)
	}

	cmd := exec.Command(bin, "--dir", t.TempDir(), "--port", strconv.Itoa(freePort(t)), "--bind", "127.0.0.1", "192.0.2.1")
	done := make(chan []byte, 1)
	go func() { out, _ := cmd.CombinedOutput(); done <- out }()
	select {
	case out := <-done:
		if cmd.ProcessState.ExitCode() != 1 || !strings.Contains(string(out), "cannot assign requested address") {
			t.Errorf("a missing required address: exit %d\n%s", cmd.ProcessState.ExitCode(), out)
		}
	case <-time.After(15 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("a missing required address did not stop the start")
	}
}

func TestBindTarget(t *testing.T) {
	tests := []struct {
		word, network, host string
		optional            bool
	}{
		{"*", "tcp4", "0.0.0.0", false},
		{"-*", "tcp4", "0.0.0.0", true},
		{"::*", "tcp6", "::", false},
		{"-::*", "tcp6", "::", true},
		{"-::1", "tcp6", "::1", true},
		{"fe80::1%eth0", "tcp6", "fe80::1%eth0", false},
		{"127.0.0.1", "tcp4", "127.0.0.1", false},
		{"localhost", "tcp4", "localhost", false},
	}
	for _, tt := range tests {
		n, h, o := bindTarget(tt.word)
		if n != tt.network || h != tt.host || o != tt.optional {
			t.Errorf("bindTarget(%q) = %s %s %v, want %s %s %v", tt.word, n, h, o, tt.network, tt.host, tt.optional)
		}
	}
}

// TestRenameCommand renames and disables commands from the command line,
// as redis-server allows, and refuses to start on a rename that names no
// command, with the directive in the error.
func TestRenameCommand(t *testing.T) {
	bin := buildCairn(t)
	p := startCairn(t, bin, true, 0, "--dir", t.TempDir(), "--rename-command", "CONFIG", "", "--rename-command", "get", "fetch")
	c := p.client(t)
	ctx := context.Background()
	if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if got, err := c.Do(ctx, "FETCH", "k").Text(); err != nil || got != "v" {
		t.Errorf("FETCH k = %q, %v", got, err)
	}
	for _, args := range [][]any{{"GET", "k"}, {"CONFIG", "GET", "port"}} {
		err := c.Do(ctx, args...).Err()
		if err == nil || !strings.HasPrefix(err.Error(), "ERR unknown command") {
			t.Errorf("%v after rename: %v", args, err)
		}
	}

	out, err := exec.Command(bin, "--dir", t.TempDir(), "--port", strconv.Itoa(freePort(t)), "--rename-command", "nosuch", "x").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "No such command in rename-command") {
		t.Errorf("a rename of no command: %v\n%s", err, out)
	}
}

// TestConfigRewrite changes settings on a server started from a
// configuration file, rewrites the file with CONFIG REWRITE, and starts a
// new server from it: the comments stay, and the new server has the values.
func TestConfigRewrite(t *testing.T) {
	bin := buildCairn(t)
	dir := t.TempDir()
	conf := filepath.Join(dir, "cairn.conf")
	var p *cairnProc
	for attempt := 0; p == nil && attempt < 5; attempt++ {
		port := freePort(t)
		text := "# my settings\nport " + strconv.Itoa(port) + "\ndir " + filepath.Join(dir, "data") + "\n# keep me\ntimeout 5\n"
		if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		p = startFromConfig(t, bin, port, conf)
	}
	if p == nil {
		t.Fatal("no free port")
	}
	c := p.client(t)
	ctx := context.Background()
	if err := c.ConfigSet(ctx, "timeout", "60").Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.ConfigSet(ctx, "maxmemory", "1gb").Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.ConfigRewrite(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(conf)
	if err != nil {
		t.Fatal(err)
	}
	want := "# my settings\nport " + strconv.Itoa(p.port) + "\ndir \"" + filepath.Join(dir, "data") + "\"\n# keep me\ntimeout 60\n\n# Generated by CONFIG REWRITE\nmaxmemory 1gb\nuser default on nopass sanitize-payload ~* &* +@all\n"
	if string(got) != want {
		t.Fatalf("rewritten file:\n%s\nwant:\n%s", got, want)
	}
	shutdown(t, p)
	if code := p.wait(t); code != 0 {
		t.Fatalf("exit %d", code)
	}
	p2 := startFromConfig(t, bin, p.port, conf)
	if p2 == nil {
		t.Skip("the port was taken meanwhile")
	}
	vals, err := p2.client(t).ConfigGet(ctx, "*m*").Result()
	if err != nil || vals["timeout"] != "60" || vals["maxmemory"] != "1073741824" {
		t.Errorf("after restart: timeout %q maxmemory %q, %v", vals["timeout"], vals["maxmemory"], err)
	}
}

// TestUnixSocket serves clients on a unix socket beside the TCP port, with
// the permissions unixsocketperm names, over a stale socket file left by an
// earlier run, and removes the socket at exit.
func TestUnixSocket(t *testing.T) {
	bin := buildCairn(t)
	dir := t.TempDir()
	sock := filepath.Join(dir, "cairn.sock")
	// A socket file left behind by a process that did not clean up.
	stale, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	stale.(*net.UnixListener).SetUnlinkOnClose(false)
	_ = stale.Close()

	p := startCairn(t, bin, true, 0, "--dir", filepath.Join(dir, "data"), "--unixsocket", sock, "--unixsocketperm", "700")
	fi, err := os.Stat(sock)
	if err != nil || fi.Mode().Perm() != 0o700 || fi.Mode()&os.ModeSocket == 0 {
		t.Fatalf("socket %v, %v", fi.Mode(), err)
	}
	c := redis.NewClient(&redis.Options{Network: "unix", Addr: sock, PoolSize: 1})
	t.Cleanup(func() { _ = c.Close() })
	ctx := context.Background()
	if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if got, err := p.client(t).Get(ctx, "k").Result(); err != nil || got != "v" {
		t.Errorf("GET over TCP of a key set over the socket = %q, %v", got, err)
	}
	if got, err := c.ConfigGet(ctx, "unixsocket*").Result(); err != nil || got["unixsocket"] != sock || got["unixsocketperm"] != "700" {
		t.Errorf("CONFIG GET unixsocket* = %v, %v", got, err)
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := p.wait(t); code != 0 {
		t.Fatalf("exit %d:\n%s", code, p.out)
	}
	if _, err := os.Stat(sock); !os.IsNotExist(err) {
		t.Errorf("the socket is still there after exit: %v", err)
	}
}

// TestSupervisedSystemd checks the sd_notify protocol: with supervised
// systemd, Cairn sends READY=1 on $NOTIFY_SOCKET once it serves and
// STOPPING=1 when it shuts down; with the default (no) it sends nothing.
func TestSupervisedSystemd(t *testing.T) {
	bin := buildCairn(t)
	for _, mode := range []string{"systemd", "auto", "no"} {
		t.Run(mode, func(t *testing.T) {
			dir := t.TempDir()
			sock := filepath.Join(dir, "notify")
			pc, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: sock, Net: "unixgram"})
			if err != nil {
				t.Fatal(err)
			}
			defer pc.Close()
			t.Setenv("NOTIFY_SOCKET", sock)
			p := startCairn(t, bin, true, 0, "--dir", filepath.Join(dir, "data"), "--supervised", mode)
			if err := p.client(t).Ping(context.Background()).Err(); err != nil {
				t.Fatal(err)
			}
			if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			if code := p.wait(t); code != 0 {
				t.Fatalf("exit %d", code)
			}
			var got []string
			buf := make([]byte, 4096)
			for {
				_ = pc.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
				n, err := pc.Read(buf)
				if err != nil {
					break
				}
				got = append(got, string(buf[:n]))
			}
			want := []string{"STATUS=Ready to accept connections\nREADY=1\n", "STOPPING=1\n"}
			if mode == "no" {
				want = nil
			}
			if strings.Join(got, "|") != strings.Join(want, "|") {
				t.Errorf("notifications %q, want %q", got, want)
			}
		})
	}
}

// TestPidFile checks that the pid file holds the process id while Cairn
// runs and is removed at exit, and that one Cairn cannot write is reported
// and does not stop the start, as in Redis.
func TestPidFile(t *testing.T) {
	bin := buildCairn(t)
	dir := t.TempDir()
	pf := filepath.Join(dir, "cairn.pid")
	p := startCairn(t, bin, true, 0, "--dir", filepath.Join(dir, "a"), "--pidfile", pf)
	if got, err := os.ReadFile(pf); err != nil || string(got) != strconv.Itoa(p.cmd.Process.Pid)+"\n" {
		t.Errorf("pid file %q, %v", got, err)
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := p.wait(t); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if _, err := os.Stat(pf); !os.IsNotExist(err) {
		t.Errorf("the pid file is still there: %v", err)
	}

	p = startCairn(t, bin, true, 0, "--dir", filepath.Join(dir, "b"), "--pidfile", filepath.Join(dir, "missing", "cairn.pid"))
	if err := p.client(t).Ping(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.out.String(), "Failed to write PID file") {
		t.Errorf("the unwritable pid file was not reported:\n%s", p.out)
	}
}
