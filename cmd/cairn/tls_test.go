package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/tlsconf/tlstest"
	"github.com/redis/go-redis/v9"
)

// startTLS runs the binary with a plain port and a TLS port, the TLS files
// made by the test, and tls-auth-clients auth.
func startTLS(t *testing.T, auth string) (*cairnProc, int, *tlstest.Files) {
	t.Helper()
	bin := buildCairn(t)
	dir := t.TempDir()
	f, err := tlstest.Generate(dir)
	if err != nil {
		t.Fatal(err)
	}
	tlsPort := freePort(t)
	p := startCairn(t, bin, true, 0, "--dir", t.TempDir(), "--tls-port", strconv.Itoa(tlsPort),
		"--tls-cert-file", f.ServerCert, "--tls-key-file", f.ServerKey, "--tls-ca-cert-file", f.CACert,
		"--tls-auth-clients", auth)
	// Each listener logs its ready line when it opens: the TLS one may
	// come just after the plain one that startCairn waited for.
	ready := fmt.Sprintf("addr=127.0.0.1:%d tls=true", tlsPort)
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(p.out.String(), ready); {
		if time.Now().After(deadline) {
			t.Fatalf("no %q in the log:\n%s", ready, p.out)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return p, tlsPort, f
}

func tlsClient(t *testing.T, port int, f *tlstest.Files, withCert bool) *redis.Client {
	t.Helper()
	pool := x509.NewCertPool()
	pool.AddCert(f.CA)
	tc := &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"}
	if withCert {
		cert, err := tls.LoadX509KeyPair(f.ClientCert, f.ClientKey)
		if err != nil {
			t.Fatal(err)
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	c := redis.NewClient(&redis.Options{Addr: fmt.Sprintf("127.0.0.1:%d", port), TLSConfig: tc, MaxRetries: -1, DialTimeout: 5 * time.Second, ReadTimeout: 5 * time.Second})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func TestTLSAuthClients(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		auth                string
		withCert, withoutOK bool
	}{
		{"yes", true, false},
		{"optional", true, true},
		{"no", true, true},
	} {
		t.Run(tc.auth, func(t *testing.T) {
			p, port, f := startTLS(t, tc.auth)
			c := tlsClient(t, port, f, true)
			if err := c.Set(ctx, "k", "over tls", 0).Err(); err != nil {
				t.Fatalf("with a client certificate: %v", err)
			}
			// The plain port serves the same data beside it.
			if v, err := p.client(t).Get(ctx, "k").Result(); err != nil || v != "over tls" {
				t.Fatalf("plain GET = %q, %v", v, err)
			}
			err := tlsClient(t, port, f, false).Ping(ctx).Err()
			if tc.withoutOK && err != nil {
				t.Fatalf("without a certificate, tls-auth-clients %s: %v", tc.auth, err)
			}
			if !tc.withoutOK && err == nil {
				t.Fatalf("without a certificate, tls-auth-clients %s: PING succeeded", tc.auth)
			}
			// An untrusted client certificate (its own CA) is refused when given.
			other, err := tlstest.Generate(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			o := tlsClient(t, port, other, true)
			o.Options().TLSConfig.RootCAs.AddCert(f.CA)
			if err := o.Ping(ctx).Err(); err == nil && tc.auth != "no" {
				t.Fatalf("an untrusted client certificate was accepted with tls-auth-clients %s", tc.auth)
			}
			if err := c.Ping(ctx).Err(); err != nil {
				t.Fatalf("the good client after the refusals: %v", err)
			}
		})
	}
}

func TestTLSPlainClientAndSlowloris(t *testing.T) {
	ctx := context.Background()
	p, port, f := startTLS(t, "no")
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	slow, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	_, _ = slow.Write([]byte{0x16, 0x03}) // a handshake begun and never finished
	plain, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	_, _ = plain.Write([]byte("*1\r\n$4\r\nPING\r\n"))
	_ = plain.SetReadDeadline(time.Now().Add(10 * time.Second))
	got, _ := io.ReadAll(plain)
	if strings.Contains(string(got), "PONG") {
		t.Fatalf("a plain client on the TLS port got %q", got)
	}
	start := time.Now()
	c := tlsClient(t, port, f, false)
	for i := range 20 {
		if err := c.Set(ctx, "k"+strconv.Itoa(i), i, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.client(t).Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("clients took %v beside a stalled handshake", d)
	}
}

func TestTLSRedisCli(t *testing.T) {
	cli, err := exec.LookPath("redis-cli")
	if err != nil {
		t.Skip("no redis-cli")
	}
	if help, _ := exec.Command(cli, "--help").CombinedOutput(); !strings.Contains(string(help), "--tls") {
		t.Skip("redis-cli is built without TLS")
	}
	_, port, f := startTLS(t, "yes")
	out, err := exec.Command(cli, "-p", strconv.Itoa(port), "--tls", "--cacert", f.CACert, "--cert", f.ClientCert, "--key", f.ClientKey,
		"SET", "greeting", "hello").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "OK" {
		t.Fatalf("redis-cli --tls SET: %q, %v", out, err)
	}
	out, err = exec.Command(cli, "-p", strconv.Itoa(port), "--tls", "--cacert", f.CACert, "--cert", f.ClientCert, "--key", f.ClientKey,
		"GET", "greeting").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "hello" {
		t.Fatalf("redis-cli --tls GET: %q, %v", out, err)
	}
	// Without a client certificate the handshake fails.
	out, _ = exec.Command(cli, "-p", strconv.Itoa(port), "--tls", "--cacert", f.CACert, "PING").CombinedOutput()
	if strings.Contains(string(out), "PONG") {
		t.Fatalf("redis-cli without a certificate got %q", out)
	}
}

func TestTLSConfigSet(t *testing.T) {
	ctx := context.Background()
	p, port, f := startTLS(t, "yes")
	admin := p.client(t)
	if err := tlsClient(t, port, f, false).Ping(ctx).Err(); err == nil {
		t.Fatal("tls-auth-clients yes let a client without a certificate in")
	}
	err := admin.ConfigSet(ctx, "tls-cert-file", "/nonexistent.crt").Err()
	if err == nil || !strings.Contains(err.Error(), "Unable to update TLS configuration") {
		t.Fatalf("CONFIG SET of a missing certificate: %v", err)
	}
	if err := admin.ConfigSet(ctx, "tls-auth-clients", "no").Err(); err != nil {
		t.Fatal(err)
	}
	if err := tlsClient(t, port, f, false).Ping(ctx).Err(); err != nil {
		t.Fatalf("after CONFIG SET tls-auth-clients no: %v", err)
	}
	// New certificates, from a new CA, take effect together.
	g, err := tlstest.Generate(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := admin.Do(ctx, "CONFIG", "SET", "tls-cert-file", g.ServerCert, "tls-key-file", g.ServerKey, "tls-ca-cert-file", g.CACert).Err(); err != nil {
		t.Fatal(err)
	}
	if err := tlsClient(t, port, g, false).Ping(ctx).Err(); err != nil {
		t.Fatalf("a client trusting the new CA: %v", err)
	}
	if err := tlsClient(t, port, f, false).Ping(ctx).Err(); err == nil {
		t.Fatal("a client trusting only the old CA accepted the new certificate")
	}
}

// TestTLSOnly checks port 0 with a tls-port: only the TLS port listens.
func TestTLSOnly(t *testing.T) {
	bin := buildCairn(t)
	f, err := tlstest.Generate(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tlsPort := freePort(t)
	p := startCairn(t, bin, false, tlsPort, "--dir", t.TempDir(), "--port", "0", "--tls-port", strconv.Itoa(tlsPort),
		"--tls-cert-file", f.ServerCert, "--tls-key-file", f.ServerKey, "--tls-auth-clients", "no")
	if strings.Contains(p.out.String(), "tls=false") {
		t.Fatalf("a plain port was opened:\n%s", p.out)
	}
	if err := tlsClient(t, tlsPort, f, false).Ping(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "--dir", t.TempDir(), "--port", "0").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "configured to not listen anywhere") {
		t.Fatalf("port 0 without tls-port: %v\n%s", err, out)
	}
}

// TestTLSBlockedClient: a blocked client's connection is read while it
// waits (to notice a hang-up), and that read is interrupted when the wait
// ends: over TLS too, what the client sent meanwhile runs after the reply,
// and a client that hangs up behind a pipelined request leaves the queue.
func TestTLSBlockedClient(t *testing.T) {
	ctx := context.Background()
	p, port, f := startTLS(t, "no")
	ctl := p.client(t)
	pool := x509.NewCertPool()
	pool.AddCert(f.CA)
	dial := func() *tls.Conn {
		conn, err := tls.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port), &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"})
		if err != nil {
			t.Fatal(err)
		}
		_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
		t.Cleanup(func() { _ = conn.Close() })
		return conn
	}
	blocked := func(n int64) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			info, err := ctl.Info(ctx, "clients").Result()
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(info, fmt.Sprintf("blocked_clients:%d\r\n", n)) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("blocked_clients never %d:\n%s", n, info)
			}
		}
	}
	conn := dial()
	io.WriteString(conn, "*3\r\n$5\r\nBLPOP\r\n$1\r\nl\r\n$1\r\n0\r\n")
	blocked(1)
	io.WriteString(conn, "*1\r\n$4\r\nPING\r\n")
	time.Sleep(20 * time.Millisecond)
	if err := ctl.RPush(ctx, "l", "a").Err(); err != nil {
		t.Fatal(err)
	}
	want := "*2\r\n$1\r\nl\r\n$1\r\na\r\n+PONG\r\n"
	got := make([]byte, len(want))
	if _, err := io.ReadFull(conn, got); err != nil || string(got) != want {
		t.Fatalf("replies %q, %v; want %q", got, err, want)
	}
	// The connection reads on normally after the interrupted read.
	io.WriteString(conn, "*2\r\n$4\r\nECHO\r\n$2\r\nhi\r\n")
	want = "$2\r\nhi\r\n"
	got = make([]byte, len(want))
	if _, err := io.ReadFull(conn, got); err != nil || string(got) != want {
		t.Fatalf("ECHO after the wait = %q, %v", got, err)
	}

	gone := dial()
	io.WriteString(gone, "*3\r\n$5\r\nBLPOP\r\n$1\r\nl\r\n$1\r\n0\r\n")
	blocked(1)
	io.WriteString(gone, "*1\r\n$4\r\nPING\r\n")
	time.Sleep(20 * time.Millisecond)
	gone.Close()
	blocked(0)
	if err := ctl.RPush(ctx, "l", "b").Err(); err != nil {
		t.Fatal(err)
	}
	if n, err := ctl.LLen(ctx, "l").Result(); err != nil || n != 1 {
		t.Fatalf("LLEN after the hang-up and a push = %d, %v", n, err)
	}
}

// CONFIG SET port moves the plain port and CONFIG SET bind reopens both
// the plain and the TLS listeners, while the process goes on serving (a
// listener a CONFIG SET retired is no failure that stops it).
func TestConfigSetPortAndBindLive(t *testing.T) {
	ctx := context.Background()
	p, tlsPort, f := startTLS(t, "no")
	admin := p.client(t)
	next := freePort(t)
	if err := admin.ConfigSet(ctx, "port", strconv.Itoa(next)).Err(); err != nil {
		t.Fatal(err)
	}
	moved := redis.NewClient(&redis.Options{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(next))})
	defer moved.Close()
	if err := moved.Ping(ctx).Err(); err != nil {
		t.Fatalf("PING on the new port: %v", err)
	}
	if err := moved.ConfigSet(ctx, "bind", "127.0.0.1 -192.0.2.1").Err(); err != nil {
		t.Fatal(err)
	}
	if err := tlsClient(t, tlsPort, f, false).Ping(ctx).Err(); err != nil {
		t.Fatalf("TLS PING after CONFIG SET bind: %v", err)
	}
	if err := moved.Ping(ctx).Err(); err != nil {
		t.Fatalf("PING after CONFIG SET bind: %v", err)
	}
	select {
	case <-p.done:
		t.Fatalf("the server stopped:\n%s", p.out)
	default:
	}
}
