package glob

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestMatchAgainstRedis compares Match with KEYS on a real redis-server over
// a fixed key set: hand-picked patterns first, then random ones drawn from a
// small alphabet rich in special bytes.
func TestMatchAgainstRedis(t *testing.T) {
	c := startRedis(t)

	keys := [][]byte{{}} // the empty key tells "*" apart from "**"
	keys = append(keys, allStrings("ab*?[]^-\\A\x80\xff", 2)[1:]...)
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 2))
	for range 300 {
		k := randomPattern(rng, "abAB*?[]^-\\\x80\xff", 6)
		if len(k) > 0 {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		if _, err := c.do("SET", k, "1"); err != nil {
			t.Fatalf("SET %q: %v", k, err)
		}
	}
	n, err := c.do("DBSIZE")
	if err != nil {
		t.Fatal(err)
	}
	distinct := map[string]bool{}
	for _, k := range keys {
		distinct[string(k)] = true
	}
	if n != int64(len(distinct)) {
		t.Fatalf("DBSIZE = %v, want %d", n, len(distinct))
	}

	patterns := []string{
		"*", "**", "", "a", "?", "??", "*a", "a*", "*a*", "a*b", "[ab]", "[^ab]",
		"[a-b]", "[b-a]", "[A-a]", "[a-]", "[a-]]", "[]", "[^]", "[", "[^", "[a",
		"[\\]]", "[\\", "[a\\", "\\", "a\\", "\\*", "\\?", "\\[", "*\\", "[\x80-\xff]",
		"[a-\xff]", "[\xff-a]", "[-a]", "[]a]", "*[", "?[", "[*]", "[?]",
	}
	matches := 0
	for _, p := range patterns {
		matches += comparePattern(t, c, keys, []byte(p))
	}
	for range 3000 {
		matches += comparePattern(t, c, keys, randomPattern(rng, "ab*?[]^-\\A\x80\xff", 7))
		if t.Failed() {
			t.FailNow()
		}
	}
	// Guard against a comparison that passes because nothing ever matches.
	if matches < 10000 {
		t.Errorf("only %d (pattern, key) matches; the key set or patterns are too sparse", matches)
	}
}

// comparePattern checks one pattern against every key and returns how many
// keys Redis matched.
func comparePattern(t *testing.T, c *redisConn, keys [][]byte, pattern []byte) int {
	t.Helper()
	reply, err := c.do("KEYS", pattern)
	if err != nil {
		t.Fatalf("KEYS %q: %v", pattern, err)
	}
	got := map[string]bool{}
	for _, k := range reply.([]any) {
		got[string(k.([]byte))] = true
	}
	for _, k := range keys {
		ours := MatchesAll(pattern) || Match(pattern, k, false)
		if ours != got[string(k)] {
			t.Errorf("pattern %q, key %q: Match = %v, Redis KEYS = %v", pattern, k, ours, got[string(k)])
		}
	}
	return len(got)
}

// TestMatchNocaseAgainstRedis checks case folding through CONFIG GET, the
// one command that matches with nocase: its patterns run against every
// configuration name, aliases included.
func TestMatchNocaseAgainstRedis(t *testing.T) {
	c := startRedis(t)

	all, err := c.do("CONFIG", "GET", "*")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for i, v := range all.([]any) {
		if i%2 == 0 {
			names = append(names, string(v.([]byte)))
		}
	}
	if len(names) < 50 {
		t.Fatalf("CONFIG GET * returned only %d names", len(names))
	}

	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 3))
	hits := 0
	for range 1500 {
		p := mutateName(rng, names[rng.IntN(len(names))])
		// CONFIG GET looks a pattern with none of "*?[" up directly instead
		// of matching it.
		if !bytes.ContainsAny(p, "*?[") {
			continue
		}
		reply, err := c.do("CONFIG", "GET", p)
		if err != nil {
			t.Fatalf("CONFIG GET %q: %v", p, err)
		}
		got := map[string]bool{}
		for i, v := range reply.([]any) {
			if i%2 == 0 {
				got[string(v.([]byte))] = true
			}
		}
		for _, name := range names {
			if ours := Match(p, []byte(name), true); ours != got[name] {
				t.Fatalf("pattern %q, name %q: Match(nocase) = %v, Redis CONFIG GET = %v", p, name, ours, got[name])
			}
		}
		hits += len(got)
	}
	if hits < 300 {
		t.Errorf("only %d (pattern, name) matches; the patterns are too far from real names", hits)
	}
}

// mutateName turns a configuration name into a pattern likely to match some
// names: letters change case, and runs become '*', '?' or a class.
func mutateName(rng *rand.Rand, name string) []byte {
	var p []byte
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch r := rng.IntN(20); {
		case r == 0:
			p = append(p, '*')
			i += rng.IntN(4)
		case r == 1:
			p = append(p, '?')
		case r == 2:
			lo, hi := c, byte('a'+rng.IntN(26))
			if rng.IntN(2) == 0 {
				lo, hi = hi, lo
			}
			p = append(p, '[', upperMaybe(rng, lo), '-', upperMaybe(rng, hi), ']')
		case r == 3:
			p = append(p, '[', '^', byte('a'+rng.IntN(26)), ']')
		case r == 4:
			p = append(p, '\\', upperMaybe(rng, c))
		case r < 9:
			p = append(p, upperMaybe(rng, c))
		default:
			p = append(p, c)
		}
	}
	if rng.IntN(3) == 0 {
		p = append(p, '*')
	}
	return p
}

func upperMaybe(rng *rand.Rand, c byte) byte {
	if c >= 'a' && c <= 'z' && rng.IntN(2) == 0 {
		return c - 32
	}
	return c
}

// redisConn is the least RESP2 client the differential tests need.
type redisConn struct {
	conn net.Conn
	r    *bufio.Reader
}

// startRedis runs a throwaway redis-server on a free loopback port, or skips
// the test when none is installed.
func startRedis(t *testing.T) *redisConn {
	t.Helper()
	path, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server is not installed; skipping the comparison with real Redis")
	}
	for attempt := 0; ; attempt++ {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		cmd := exec.Command(path, "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
			"--save", "", "--appendonly", "no", "--daemonize", "no", "--dir", t.TempDir())
		if err := cmd.Start(); err != nil {
			t.Fatalf("starting redis-server: %v", err)
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		stop := func() {
			cmd.Process.Kill()
			<-exited
		}
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			conn, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
			if err == nil {
				t.Cleanup(func() {
					conn.Close()
					stop()
				})
				return &redisConn{conn: conn, r: bufio.NewReader(conn)}
			}
			select {
			case <-exited:
				deadline = time.Time{} // lost the port race; try another
			case <-time.After(20 * time.Millisecond):
			}
		}
		stop()
		if attempt == 2 {
			t.Fatalf("redis-server did not accept connections on port %d", port)
		}
	}
}

var errRedis = errors.New("redis error reply")

// do sends one command. It returns an error reply as an error wrapping
// errRedis, an integer as int64, a simple or bulk string as []byte and an
// array as []any.
func (c *redisConn) do(args ...any) (any, error) {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "*%d\r\n", len(args))
	for _, a := range args {
		var b []byte
		switch v := a.(type) {
		case string:
			b = []byte(v)
		case []byte:
			b = v
		default:
			panic(fmt.Sprintf("unsupported argument %T", a))
		}
		fmt.Fprintf(&buf, "$%d\r\n", len(b))
		buf.Write(b)
		buf.WriteString("\r\n")
	}
	c.conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.conn.Write(buf.Bytes()); err != nil {
		return nil, err
	}
	return c.read()
}

func (c *redisConn) read() (any, error) {
	line, err := c.r.ReadBytes('\n')
	if err != nil {
		return nil, err
	}
	if len(line) < 3 {
		return nil, fmt.Errorf("short reply line %q", line)
	}
	body := string(line[1 : len(line)-2])
	switch line[0] {
	case '+':
		return []byte(body), nil
	case '-':
		return nil, fmt.Errorf("%w: %s", errRedis, body)
	case ':':
		return strconv.ParseInt(body, 10, 64)
	case '$':
		n, err := strconv.Atoi(body)
		if err != nil || n < 0 {
			return nil, err
		}
		b := make([]byte, n+2)
		if _, err := io.ReadFull(c.r, b); err != nil {
			return nil, err
		}
		return b[:n], nil
	case '*':
		n, err := strconv.Atoi(body)
		if err != nil {
			return nil, err
		}
		out := make([]any, 0, max(n, 0))
		for range n {
			v, err := c.read()
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	}
	return nil, fmt.Errorf("unknown reply type %q", strings.TrimSpace(string(line)))
}
