package replication

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairndb/cairn/internal/rdb"
	"github.com/cairndb/cairn/internal/resp"
)

// fakeHost records what the replica does to the dataset.
type fakeHost struct {
	// loadDelay makes LoadRDB slow, as a large dataset's load is.
	loadDelay time.Duration

	mu     sync.Mutex
	loads  int
	keys   map[string]string // the dataset: the last RDB's string keys, then SETs
	cmds   []string
	resets int
}

func newFakeHost() *fakeHost { return &fakeHost{keys: map[string]string{}} }

func (h *fakeHost) LoadRDB(r io.Reader, size int64) error {
	keys := map[string]string{}
	err := rdb.ReadFile(r, &rdb.Handler{Key: func(e *rdb.Entry) error {
		keys[string(e.Key)] = string(e.Value.String)
		return nil
	}})
	time.Sleep(h.loadDelay)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.loads++
	h.keys = keys
	return err
}

func (h *fakeHost) Apply(args [][]byte) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = string(a)
	}
	h.cmds = append(h.cmds, strings.Join(parts, " "))
	if strings.EqualFold(parts[0], "set") && len(parts) == 3 {
		h.keys[parts[1]] = parts[2]
	}
	return nil
}

func (h *fakeHost) Sync() {}

func (h *fakeHost) ResetClient() {
	h.mu.Lock()
	h.resets++
	h.mu.Unlock()
}

func (h *fakeHost) snapshot() (int, map[string]string, []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	m := map[string]string{}
	for k, v := range h.keys {
		m[k] = v
	}
	return h.loads, m, append([]string(nil), h.cmds...)
}

// fakeMaster is the master's side of one link: it reads the replica's
// commands and writes what the test scripts.
type fakeMaster struct {
	t    *testing.T
	conn net.Conn
	in   *streamReader
}

func (m *fakeMaster) expect(want string) []string {
	m.t.Helper()
	args, err := m.in.command()
	if err != nil {
		m.t.Errorf("master reading %q: %v", want, err)
		return nil
	}
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = string(a)
	}
	if got := strings.Join(parts, " "); !strings.HasPrefix(got, want) {
		m.t.Errorf("master got %q, want %q", got, want)
	}
	return parts
}

func (m *fakeMaster) write(s string) {
	if _, err := io.WriteString(m.conn, s); err != nil {
		m.t.Errorf("master write: %v", err)
	}
}

// handshake reads the replica's handshake and answers it, returning the
// PSYNC arguments.
func (m *fakeMaster) handshake(auth string) []string {
	m.expect("PING")
	m.write("+PONG\r\n")
	if auth != "" {
		m.expect("AUTH " + auth)
		m.write("+OK\r\n")
	}
	m.expect("REPLCONF listening-port 7777")
	m.write("+OK\r\n")
	m.expect("REPLCONF capa eof capa psync2")
	m.write("+OK\r\n")
	return m.expect("PSYNC")
}

func testRDB(t *testing.T, kv ...string) []byte {
	var b bytes.Buffer
	fw := rdb.NewFileWriter(&b, [][2]string{{"redis-ver", "7.0.15"}})
	if err := fw.SelectDB(0, uint64(len(kv)/2), 0); err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if err := fw.Key([]byte(kv[i]), rdb.Object{Kind: rdb.KindString, String: []byte(kv[i+1])}, -1); err != nil {
			t.Fatal(err)
		}
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func cmd(args ...string) string { return string(resp.AppendCommand(nil, args...)) }

const replID = "0123456789012345678901234567890123456789"

// startLinks listens for the replica and hands each connection to the
// test on the returned channel.
func startLinks(t *testing.T, host Host, from Position) (*Replica, chan *fakeMaster) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	links := make(chan *fakeMaster, 8)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			links <- &fakeMaster{t: t, conn: c, in: newStreamReader(c)}
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	r := Start(Config{Host: "127.0.0.1", Port: port, ListeningPort: func() int { return 7777 },
		Auth: func() (string, string) { return "repl", "secret" }, Dir: t.TempDir,
		Log:     slog.New(slog.NewTextHandler(io.Discard, nil)),
		Timeout: 5 * time.Second, RetryMin: 10 * time.Millisecond, RetryMax: 50 * time.Millisecond,
		AckPeriod: 50 * time.Millisecond, Databases: 16}, host, from)
	t.Cleanup(func() { r.Stop(); ln.Close() })
	return r, links
}

func nextLink(t *testing.T, links chan *fakeMaster) *fakeMaster {
	t.Helper()
	select {
	case m := <-links:
		t.Cleanup(func() { m.conn.Close() })
		return m
	case <-time.After(5 * time.Second):
		t.Fatal("the replica did not connect")
		return nil
	}
}

// ackUntil reads REPLCONF ACKs until one reports want.
func (m *fakeMaster) ackUntil(want int64) {
	m.t.Helper()
	_ = m.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	for {
		parts := m.expect("REPLCONF ACK")
		if len(parts) != 3 {
			return
		}
		if n, _ := strconv.ParseInt(parts[2], 10, 64); n == want {
			return
		}
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A full resync in both transfer forms, then the stream: the data, the
// commands, the offsets and GETACK's answer are Redis's.
func TestFullSyncThenStream(t *testing.T) {
	for _, diskless := range []bool{false, true} {
		t.Run(fmt.Sprintf("diskless=%v", diskless), func(t *testing.T) {
			host := newFakeHost()
			r, links := startLinks(t, host, Position{})
			m := nextLink(t, links)
			if got := m.handshake("repl secret"); strings.Join(got, " ") != "PSYNC ? -1" {
				t.Fatalf("PSYNC = %q", got)
			}
			payload := testRDB(t, "a", "1", "b", "2")
			m.write("+FULLRESYNC " + replID + " 100\r\n\n\n")
			if diskless {
				mark := strings.Repeat("m", 40)
				m.write("$EOF:" + mark + "\r\n" + string(payload) + mark)
			} else {
				m.write("$" + strconv.Itoa(len(payload)) + "\r\n" + string(payload))
			}
			m.ackUntil(100)
			stream := cmd("SELECT", "0") + cmd("SET", "c", "3") + cmd("PING") + cmd("MULTI") + cmd("SET", "d", "4") + cmd("EXEC")
			m.write(stream)
			end := 100 + int64(len(stream))
			m.write(cmd("REPLCONF", "GETACK", "*"))
			m.ackUntil(end)
			loads, keys, cmds := host.snapshot()
			if loads != 1 || keys["a"] != "1" || keys["b"] != "2" || keys["c"] != "3" || keys["d"] != "4" {
				t.Errorf("loads %d, keys %v", loads, keys)
			}
			if want := "SELECT 0|SET c 3|PING|MULTI|SET d 4|EXEC"; strings.Join(cmds, "|") != want {
				t.Errorf("applied %q, want %q", strings.Join(cmds, "|"), want)
			}
			end += int64(len(cmd("REPLCONF", "GETACK", "*")))
			waitFor(t, "the offset", func() bool { return r.Status().Offset == end })
			st := r.Status()
			if st.State != StateConnected || st.ReplID != replID || st.ReadOffset != end || !st.Synced {
				t.Errorf("status %+v", st)
			}
		})
	}
}

// While a slow load runs, the stream that follows the RDB is spooled and
// then applied in order, and the master gets a newline every second.
func TestStreamDuringLoad(t *testing.T) {
	host := newFakeHost()
	host.loadDelay = 1500 * time.Millisecond
	r, links := startLinks(t, host, Position{})
	m := nextLink(t, links)
	m.handshake("repl secret")
	payload := testRDB(t, "a", "1")
	m.write("+FULLRESYNC " + replID + " 5\r\n$" + strconv.Itoa(len(payload)) + "\r\n" + string(payload))
	var stream strings.Builder
	for i := range 2000 {
		stream.WriteString(cmd("SET", "k"+strconv.Itoa(i), strings.Repeat("v", i%50)))
	}
	m.write(stream.String())
	_ = m.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	if line, err := m.in.line(); err != nil || len(line) != 0 {
		t.Fatalf("master read %q, %v; want the replica's newline during the load", line, err)
	}
	if st := r.Status(); st.State != StateTransfer {
		t.Errorf("state %v during the load", st.State)
	}
	end := 5 + int64(stream.Len())
	for {
		// More newlines may come before the first ACK.
		b, _ := m.in.br.Peek(1)
		if len(b) == 1 && b[0] == '\n' {
			_, _ = m.in.line()
			continue
		}
		break
	}
	m.ackUntil(end)
	_, keys, cmds := host.snapshot()
	if len(cmds) != 2000 || keys["k1999"] != strings.Repeat("v", 1999%50) || keys["a"] != "1" {
		t.Errorf("%d commands applied, keys %d", len(cmds), len(keys))
	}
	m.write(cmd("SET", "after", "1"))
	m.ackUntil(end + int64(len(cmd("SET", "after", "1"))))
}

// A link broken inside MULTI resumes with PSYNC at the MULTI; +CONTINUE
// keeps the data and discards the half transaction.
func TestPartialResync(t *testing.T) {
	host := newFakeHost()
	r, links := startLinks(t, host, Position{})
	m := nextLink(t, links)
	m.handshake("repl secret")
	payload := testRDB(t, "a", "1")
	m.write("+FULLRESYNC " + replID + " 0\r\n$" + strconv.Itoa(len(payload)) + "\r\n" + string(payload))
	m.ackUntil(0)
	first := cmd("SET", "b", "2")
	m.write(first + cmd("MULTI") + cmd("SET", "x", "1"))
	waitFor(t, "the MULTI", func() bool { _, _, c := host.snapshot(); return len(c) == 3 })
	if got := r.Status(); got.Offset != int64(len(first)) {
		t.Errorf("offset %d inside MULTI, want %d (before it)", got.Offset, len(first))
	}
	m.conn.Close()

	m = nextLink(t, links)
	if got := strings.Join(m.handshake("repl secret"), " "); got != "PSYNC "+replID+" "+strconv.Itoa(len(first)+1) {
		t.Fatalf("second PSYNC = %q", got)
	}
	m.write("+CONTINUE\r\n")
	m.ackUntil(int64(len(first)))
	again := cmd("MULTI") + cmd("SET", "x", "1") + cmd("EXEC")
	m.write(again)
	m.ackUntil(int64(len(first) + len(again)))
	loads, keys, _ := host.snapshot()
	if loads != 1 || keys["a"] != "1" || keys["b"] != "2" || keys["x"] != "1" {
		t.Errorf("loads %d keys %v", loads, keys)
	}
	if host.resets < 2 {
		t.Errorf("the master client was reset %d times, want a reset per link", host.resets)
	}
}

// A master that sends a corrupt RDB, or disconnects in the middle of one,
// leaves the data as it was, and the replica tries again.
func TestBadTransferLeavesData(t *testing.T) {
	payload := testRDB(t, "new", "1")
	corrupt := bytes.Clone(payload)
	corrupt[len(corrupt)/2] ^= 0xff
	cases := []struct {
		name string
		send string
		hang bool
	}{
		{"corrupt", "$" + strconv.Itoa(len(corrupt)) + "\r\n" + string(corrupt), false},
		{"truncated", "$" + strconv.Itoa(len(payload)) + "\r\n" + string(payload[:len(payload)-5]), true},
		{"diskless truncated", "$EOF:" + strings.Repeat("z", 40) + "\r\n" + string(payload), true},
		{"garbage header", "$abc\r\n", false},
		{"garbage instead of RDB", "$" + strconv.Itoa(len("not an rdb file at all")) + "\r\nnot an rdb file at all", false},
		{"bad mark", "$EOF:short\r\n", false},
	}
	var db20 bytes.Buffer
	fw := rdb.NewFileWriter(&db20, nil)
	_ = fw.SelectDB(20, 1, 0)
	_ = fw.Key([]byte("k"), rdb.Object{Kind: rdb.KindString, String: []byte("v")}, -1)
	_ = fw.Close()
	cases = append(cases, struct {
		name string
		send string
		hang bool
	}{"database out of range", "$" + strconv.Itoa(db20.Len()) + "\r\n" + db20.String(), false})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			host := newFakeHost()
			host.keys["old"] = "kept"
			r, links := startLinks(t, host, Position{})
			m := nextLink(t, links)
			m.handshake("repl secret")
			m.write("+FULLRESYNC " + replID + " 0\r\n" + c.send)
			if c.hang {
				m.conn.Close()
			}
			// The replica gives up on this link and connects again.
			m2 := nextLink(t, links)
			m2.handshake("repl secret")
			loads, keys, _ := host.snapshot()
			if loads != 0 || keys["old"] != "kept" {
				t.Errorf("loads %d keys %v: the data was touched", loads, keys)
			}
			if st := r.Status(); st.Synced || st.ReplID != "" {
				t.Errorf("status %+v after a failed transfer", st)
			}
		})
	}
}

// Garbage in the command stream drops the link; the replica resumes from
// the last command it applied.
func TestGarbageStream(t *testing.T) {
	host := newFakeHost()
	_, links := startLinks(t, host, Position{})
	m := nextLink(t, links)
	m.handshake("repl secret")
	payload := testRDB(t)
	m.write("+FULLRESYNC " + replID + " 10\r\n$" + strconv.Itoa(len(payload)) + "\r\n" + string(payload))
	m.ackUntil(10)
	good := cmd("SET", "k", "v")
	m.write(good + "*2\r\n$3\r\nGET\r\n$99999999999999\r\n")
	m2 := nextLink(t, links)
	if got := strings.Join(m2.handshake("repl secret"), " "); got != "PSYNC "+replID+" "+strconv.Itoa(10+len(good)+1) {
		t.Errorf("PSYNC after garbage = %q", got)
	}
	_, keys, _ := host.snapshot()
	if keys["k"] != "v" {
		t.Errorf("keys %v", keys)
	}
}

// A master refusing AUTH or PSYNC is retried, never taken for synced.
func TestHandshakeErrors(t *testing.T) {
	host := newFakeHost()
	r, links := startLinks(t, host, Position{})
	m := nextLink(t, links)
	m.expect("PING")
	m.write("-NOAUTH Authentication required.\r\n")
	m.expect("AUTH repl secret")
	m.write("-WRONGPASS invalid username-password pair or user is disabled.\r\n")
	m = nextLink(t, links)
	m.handshake("repl secret")
	m.write("-NOMASTERLINK Can't SYNC while not connected with my master\r\n")
	m = nextLink(t, links)
	if st := r.Status(); st.Synced || st.State == StateConnected {
		t.Errorf("status %+v", st)
	}
}

func FuzzCommand(f *testing.F) {
	for _, s := range []string{cmd("SET", "a", "b"), cmd("PING"), "*0\r\n", "*1\r\n$-1\r\n", "*2\r\n$1\r\na\r\n$1\r\nbx\r\n",
		"*1\r\n$5\r\nab\r\n", "+OK\r\n", "*99999999999\r\n", "\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		s := newStreamReader(bytes.NewReader(in))
		for {
			before := s.consumed()
			args, err := s.command()
			if err != nil {
				return
			}
			// What was consumed is within the input and holds the
			// arguments.
			n := 0
			for _, a := range args {
				n += len(a)
			}
			if len(args) == 0 || s.consumed() > int64(len(in)) || int64(n) > s.consumed()-before {
				t.Fatalf("%d args of %d bytes from %d consumed bytes", len(args), n, s.consumed()-before)
			}
		}
	})
}

func FuzzRDBHeader(f *testing.F) {
	for _, s := range []string{"$10\r\n", "$EOF:" + strings.Repeat("a", 40) + "\r\n", "\n\n$0\r\n", "-ERR x\r\n", "$-5\r\n", "$EOF:x\r\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		s := newStreamReader(bytes.NewReader(in))
		size, mark, err := s.rdbHeader()
		if err == nil && (size < -1 || (size == -1) != (mark != nil) || (mark != nil && len(mark) != eofMarkLen)) {
			t.Fatalf("size %d mark %q", size, mark)
		}
	})
}
