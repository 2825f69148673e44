package server

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Under appendfsync always replies wait for a WAL sync in the durable
// writer, small ones queued there and large ones sent by the client's own
// goroutine once its queued ones are out. Concurrent clients that mix the
// two must each still get every reply, in order, with the right content.
func TestAlwaysRepliesKeepTheirOrder(t *testing.T) {
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) {
			ts := startServer(t, "appendfsync", "always")
			ctx := context.Background()
			big := strings.Repeat("b", 3*maxQueuedReply)
			if err := ts.client(t, proto).Set(ctx, "big", big, 0).Err(); err != nil {
				t.Fatal(err)
			}
			const clients, rounds = 8, 40
			var wg sync.WaitGroup
			errs := make(chan error, clients)
			for n := range clients {
				c := ts.client(t, proto)
				wg.Add(1)
				go func() {
					defer wg.Done()
					errs <- orderedRounds(ctx, c, n, rounds, big)
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Error(err)
				}
			}
		})
	}
}

// orderedRounds runs pipelines of writes and reads on client n's own keys
// and checks each reply against what the writes before it must give.
func orderedRounds(ctx context.Context, c *redis.Client, n, rounds int, big string) error {
	key, counter, log := fmt.Sprint("k", n), fmt.Sprint("c", n), fmt.Sprint("l", n)
	for i := 1; i <= rounds; i++ {
		p := c.Pipeline()
		set := p.Set(ctx, key, fmt.Sprint("v", i), 0)
		incr := p.Incr(ctx, counter)
		get := p.Get(ctx, key)
		bigGet := p.Get(ctx, "big")
		appendLen := p.Append(ctx, log, "x")
		strlen := p.StrLen(ctx, log)
		if _, err := p.Exec(ctx); err != nil {
			return fmt.Errorf("client %d round %d: %w", n, i, err)
		}
		switch {
		case set.Val() != "OK":
			return fmt.Errorf("client %d round %d: SET %q", n, i, set.Val())
		case incr.Val() != int64(i):
			return fmt.Errorf("client %d round %d: INCR %d", n, i, incr.Val())
		case get.Val() != fmt.Sprint("v", i):
			return fmt.Errorf("client %d round %d: GET %q", n, i, get.Val())
		case bigGet.Val() != big:
			return fmt.Errorf("client %d round %d: GET big gave %d bytes", n, i, len(bigGet.Val()))
		case appendLen.Val() != int64(i) || strlen.Val() != int64(i):
			return fmt.Errorf("client %d round %d: APPEND %d STRLEN %d", n, i, appendLen.Val(), strlen.Val())
		}
	}
	return nil
}

// A QUIT right behind a write under appendfsync always: both replies are
// queued for the sync, and both reach the client before the connection
// closes.
func TestAlwaysQuitRepliesBeforeClosing(t *testing.T) {
	ts := startServer(t, "appendfsync", "always")
	conn := ts.raw(t)
	if _, err := conn.Write([]byte("SET k v\r\nINCR n\r\nQUIT\r\n")); err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(conn)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != "+OK\r\n:1\r\n+OK\r\n" {
		t.Fatalf("got %q, want +OK, :1 and +OK, then the close", got)
	}
}

// The durable writer never waits on one client's socket: a reply the
// socket cannot take goes, with the client's later replies, to a goroutine
// of that client's own, and every byte still arrives in order once the
// client reads.
func TestDurableWriterDoesNotWaitForAStalledClient(t *testing.T) {
	// Small buffers on both ends, so that the socket fills quickly.
	reader, c := smallSocketClient(t, 4096)

	var sent bytes.Buffer
	send := func(i int) {
		reply := []byte(fmt.Sprintf("%06d:%s\n", i, strings.Repeat("r", 1000)))
		sent.Write(reply)
		c.queuedReplies.Add(1)
		c.sendQueued(reply)
	}
	stalled := func() bool {
		c.stallMu.Lock()
		defer c.stallMu.Unlock()
		return c.stalled
	}
	// Until the socket is full. Each call returns without waiting, so this
	// loop ends; a writer that blocked would hang it (the test's timeout).
	i := 0
	for ; !stalled(); i++ {
		if i == 1<<16 {
			t.Fatal("64 MiB of replies and the socket never filled")
		}
		send(i)
	}
	// Replies after the stall join it, still without waiting.
	for range 100 {
		send(i)
		i++
	}
	if c.queuedReplies.Load() == 0 {
		t.Fatal("every reply settled while the reader has read nothing")
	}
	got := make([]byte, sent.Len())
	_ = reader.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadFull(reader, got); err != nil {
		t.Fatalf("reading %d bytes of replies: %v", sent.Len(), err)
	}
	if !bytes.Equal(got, sent.Bytes()) {
		t.Fatal("the replies arrived out of order or damaged")
	}
	c.waitQueued()
	if stalled() {
		t.Fatal("still stalled after every reply was written")
	}
	// The socket writes from now on without the goroutine.
	send(i)
	c.waitQueued()
	last := make([]byte, 1008)
	if _, err := io.ReadFull(reader, last); err != nil || !bytes.HasPrefix(last, []byte(fmt.Sprintf("%06d:", i))) {
		t.Fatalf("reply after the stall: %q, %v", last[:8], err)
	}
}

// A client that sends without reading cannot make the durable writer hold
// an unbounded amount of its replies: past maxRepliesQueued its goroutine
// waits, as it would on its own full socket.
func TestDurableWriterBoundsAClientsQueue(t *testing.T) {
	// A small socket, so that the replies pile up; but not a tiny receive
	// window, which TCP would refill only after delayed acknowledgements.
	reader, c := smallSocketClient(t, 64<<10)

	const replies = 4 * maxRepliesQueued
	var want bytes.Buffer
	for i := range replies {
		fmt.Fprintf(&want, "%06d:%s\n", i, strings.Repeat("r", 2000))
	}
	done := make(chan error, 1)
	go func() {
		// As the client's goroutine does after a deferred commit.
		w := syncingWriter{c}
		for i := range replies {
			c.needSync = true
			reply := want.Bytes()[i*2008 : (i+1)*2008]
			if _, err := w.Write(reply); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	got := make([]byte, 0, want.Len())
	buf := make([]byte, 64<<10)
	_ = reader.SetReadDeadline(time.Now().Add(30 * time.Second))
	for len(got) < want.Len() {
		if n := c.queuedReplies.Load(); n > maxRepliesQueued {
			t.Fatalf("%d replies queued for one client, bound %d", n, maxRepliesQueued)
		}
		n, err := reader.Read(buf)
		if err != nil {
			t.Fatalf("after %d of %d bytes: %v", len(got), want.Len(), err)
		}
		got = append(got, buf[:n]...)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatal("the replies arrived out of order or damaged")
	}
}

// Shutdown may be called again (after a timeout, or twice by mistake)
// once the durable writer has run.
func TestShutdownTwiceWithTheDurableWriter(t *testing.T) {
	ts := startServer(t, "appendfsync", "always")
	if err := ts.client(t, 2).Set(context.Background(), "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := ts.srv.Shutdown(ctx)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
	}
}

// A killed client's requests that were already read are not run, as in
// Redis: the connection is done. Here the client is killed by another
// while it waits in BLPOP, with a SET read behind it.
func TestKilledClientRunsNoBufferedRequests(t *testing.T) {
	ts := startServer(t, "appendfsync", "always")
	c := ts.client(t, 2)
	ctx := context.Background()
	conn := ts.raw(t)
	if _, err := conn.Write([]byte("CLIENT ID\r\n")); err != nil {
		t.Fatal(err)
	}
	line := make([]byte, 64)
	n, err := conn.Read(line)
	if err != nil || n < 4 || line[0] != ':' {
		t.Fatalf("CLIENT ID: %q, %v", line[:n], err)
	}
	id := strings.TrimSpace(string(line[1:n]))
	if _, err := conn.Write([]byte("BLPOP nothing 0\r\nSET after-kill 1\r\n")); err != nil {
		t.Fatal(err)
	}
	// Kill it once it waits in BLPOP, so that the SET is read by then.
	deadline := time.Now().Add(10 * time.Second)
	for {
		info, err := c.Info(ctx, "clients").Result()
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(info, "blocked_clients:1\r\n") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the client never blocked in BLPOP")
		}
	}
	if killed, err := c.Do(ctx, "CLIENT", "KILL", "ID", id).Int(); err != nil || killed != 1 {
		t.Fatalf("CLIENT KILL ID %s = %d, %v", id, killed, err)
	}
	_, _ = io.ReadAll(conn) // until the server closes the connection
	if n, err := c.Exists(ctx, "after-kill").Result(); err != nil || n != 0 {
		t.Fatalf("EXISTS after-kill = %d, %v: the killed client's next request ran", n, err)
	}
}

// smallSocketClient returns a client of a server running appendfsync
// always whose connection is a loopback socket with a 4 KiB send buffer,
// and the other end of it, reading into readBuf bytes of buffer. The
// client is not served: the test drives its writer itself.
func smallSocketClient(t *testing.T, readBuf int) (reader net.Conn, c *client) {
	t.Helper()
	ts := startServer(t, "appendfsync", "always")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	reader, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = reader.Close() })
	sc, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	_ = reader.(*net.TCPConn).SetReadBuffer(readBuf)
	_ = sc.(*net.TCPConn).SetWriteBuffer(4096)
	c = newClient(ts.srv, sc)
	t.Cleanup(func() { _ = c.nc.Close() })
	return reader, c
}
