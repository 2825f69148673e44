package server

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"
)

// tcpPair returns both ends of a loopback TCP connection.
func tcpPair(t *testing.T) (server, client net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			accepted <- nil
			return
		}
		accepted <- c
	}()
	client, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server = <-accepted
	if server == nil {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { server.Close(); client.Close() })
	return server, client
}

func TestSockIOUsesRawCallsOnTCP(t *testing.T) {
	srv, _ := tcpPair(t)
	if newSockIO(srv).rc == nil {
		t.Fatal("a TCP connection should be read and written through its file descriptor")
	}
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if newSockIO(a).rc != nil {
		t.Fatal("net.Pipe has no file descriptor; sockIO must fall back to net.Conn")
	}
}

func TestSockIOReadWrite(t *testing.T) {
	for _, tc := range []struct {
		name string
		pair func(t *testing.T) (net.Conn, net.Conn)
	}{
		{"tcp", tcpPair},
		{"pipe", func(t *testing.T) (net.Conn, net.Conn) {
			a, b := net.Pipe()
			t.Cleanup(func() { a.Close(); b.Close() })
			return a, b
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, cli := tc.pair(t)
			s := newSockIO(srv)
			go func() { _, _ = cli.Write([]byte("PING\r\n")) }()
			buf := make([]byte, 64)
			n, err := s.Read(buf)
			if err != nil || string(buf[:n]) != "PING\r\n" {
				t.Fatalf("Read = %q, %v", buf[:n], err)
			}
			if n, err := s.Read(nil); n != 0 || err != nil {
				t.Fatalf("empty Read = %d, %v", n, err)
			}
			got := make(chan []byte, 1)
			go func() {
				b := make([]byte, 7)
				_, _ = io.ReadFull(cli, b)
				got <- b
			}()
			if n, err := s.Write([]byte("+PONG\r\n")); n != 7 || err != nil {
				t.Fatalf("Write = %d, %v", n, err)
			}
			if b := <-got; string(b) != "+PONG\r\n" {
				t.Fatalf("peer read %q", b)
			}
			cli.Close()
			if _, err := s.Read(buf); !errors.Is(err, io.EOF) {
				t.Fatalf("Read after the peer closed = %v, want io.EOF", err)
			}
		})
	}
}

// A reply larger than the socket's buffers takes several writes, with
// waits in between for the peer to read; every byte arrives, in order.
func TestSockIOWriteLargerThanSocketBuffer(t *testing.T) {
	srv, cli := tcpPair(t)
	// Small buffers, so the write cannot finish without waiting.
	_ = srv.(*net.TCPConn).SetWriteBuffer(4096)
	_ = cli.(*net.TCPConn).SetReadBuffer(4096)
	s := newSockIO(srv)
	want := bytes.Repeat([]byte("0123456789abcdef"), 1<<18) // 4 MiB
	got := make(chan []byte, 1)
	go func() {
		time.Sleep(50 * time.Millisecond) // let the buffers fill first
		b, _ := io.ReadAll(io.LimitReader(cli, int64(len(want))))
		got <- b
	}()
	n, err := s.Write(want)
	if n != len(want) || err != nil {
		t.Fatalf("Write = %d, %v", n, err)
	}
	if b := <-got; !bytes.Equal(b, want) {
		t.Fatalf("peer read %d bytes, not the %d written", len(b), len(want))
	}
}

// The idle timeout arms a read deadline: it must surface as a net.Error
// that reports a timeout, as net.Conn's does.
func TestSockIOReadDeadline(t *testing.T) {
	srv, _ := tcpPair(t)
	s := newSockIO(srv)
	_ = srv.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	_, err := s.Read(make([]byte, 8))
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("Read past its deadline = %v, want a timeout", err)
	}
}

// CLIENT KILL and shutdown close the connection from another goroutine: a
// read waiting on the socket must return.
func TestSockIOCloseWakesRead(t *testing.T) {
	srv, _ := tcpPair(t)
	s := newSockIO(srv)
	done := make(chan error, 1)
	go func() {
		_, err := s.Read(make([]byte, 8))
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	srv.Close()
	select {
	case err := <-done:
		if !errors.Is(err, net.ErrClosed) {
			t.Fatalf("Read on a closed connection = %v, want net.ErrClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Read did not return after Close")
	}
	if _, err := s.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("Write on a closed connection = %v, want net.ErrClosed", err)
	}
}

// A peer that resets the connection makes a write fail with the system's
// error, wrapped as net.Conn wraps it.
func TestSockIOWriteAfterReset(t *testing.T) {
	srv, cli := tcpPair(t)
	s := newSockIO(srv)
	_ = cli.(*net.TCPConn).SetLinger(0)
	cli.Close() // RST
	time.Sleep(20 * time.Millisecond)
	var err error
	for i := 0; i < 10 && err == nil; i++ {
		_, err = s.Write([]byte("+OK\r\n"))
	}
	var op *net.OpError
	if !errors.As(err, &op) || op.Op != "write" {
		t.Fatalf("Write to a reset connection = %v, want a *net.OpError from write", err)
	}
}
