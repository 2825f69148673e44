package main

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"
)

// TestLowOpenFileLimit runs the server under `ulimit -n 100`: it must lower
// maxclients to fit (100 - 32 reserved = 68, logged as Redis logs it),
// refuse CONFIG SET maxclients beyond that with Redis's error, and keep
// serving when more clients connect than it has descriptors for. It used
// to exit with "accept4: too many open files".
func TestLowOpenFileLimit(t *testing.T) {
	bin := buildCairn(t)
	dir := t.TempDir()
	p := startCairn(t, "/bin/sh", true, 0, "-c", `ulimit -n 100 && exec "$0" "$@"`, bin, "--dir", dir)
	if !strings.Contains(p.out.String(), "maxclients has been reduced to 68 to compensate for low ulimit") {
		t.Fatalf("no log of the lowered maxclients:\n%s", p.out)
	}
	ctx := context.Background()
	c := p.client(t)
	if got, err := c.ConfigGet(ctx, "maxclients").Result(); err != nil || got["maxclients"] != "68" {
		t.Fatalf("CONFIG GET maxclients = %v, %v; want 68", got, err)
	}
	err := c.ConfigSet(ctx, "maxclients", "5000").Err()
	want := "ERR CONFIG SET failed (possibly related to argument 'maxclients') - The operating system is not able to handle the specified number of clients, try with 68"
	if err == nil || err.Error() != want {
		t.Fatalf("CONFIG SET maxclients 5000 = %v, want %q", err, want)
	}

	// Three times as many connections as the limit: those past maxclients
	// are told so and closed; none takes the server down.
	var conns []net.Conn
	defer func() {
		for _, nc := range conns {
			_ = nc.Close()
		}
	}()
	served, refused := 0, 0
	for range 300 {
		nc, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", p.port), 5*time.Second)
		if err != nil {
			t.Fatalf("dial after %d served, %d refused: %v\n%s", served, refused, err, p.out)
		}
		conns = append(conns, nc)
		_ = nc.SetDeadline(time.Now().Add(10 * time.Second))
		if _, err := nc.Write([]byte("PING\r\n")); err != nil {
			t.Fatal(err)
		}
		line, err := bufio.NewReader(nc).ReadString('\n')
		switch {
		case line == "+PONG\r\n":
			served++
		case line == "-ERR max number of clients reached\r\n":
			refused++
		default:
			t.Fatalf("after %d served, %d refused: reply %q, %v\n%s", served, refused, line, err, p.out)
		}
	}
	if served+1 > 68 || refused == 0 {
		t.Fatalf("%d served and %d refused beside the test's own client; want at most 67 served", served, refused)
	}
	select {
	case <-p.done:
		t.Fatalf("cairn exited: %v\n%s", p.err, p.out)
	default:
	}
	if err := c.Set(ctx, "still", "serving", 0).Err(); err != nil {
		t.Fatalf("SET on the first client: %v", err)
	}
}
