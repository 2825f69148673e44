package server

import (
	"bufio"
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cairndb/cairn/internal/redistest"
)

// diffRun sends the same commands to a real redis-server and to Cairn and
// compares the replies byte for byte: the randomized differential tests
// (diff_*_test.go) use Redis itself as the model. It skips when
// redis-server is not installed.
type diffRun struct {
	t     *testing.T
	redis *redistest.Conn
	cairn *redistest.Conn
	// history holds the commands sent so far, for the report of a
	// mismatch: the sequence that led to it reproduces it.
	history []string
	// mismatches counts the differences reported; a run stops reporting
	// after maxMismatches, since one bug tends to cause many.
	mismatches int
}

const maxMismatches = 10

// newDiffRun starts a redis-server and a Cairn server, each empty, and
// talks RESP2 to both.
func newDiffRun(t *testing.T) *diffRun { return newDiffRunProto(t, 2) }

// newDiffRunProto is newDiffRun speaking protocol proto (2 or 3).
func newDiffRunProto(t *testing.T, proto int) *diffRun {
	t.Helper()
	r := redistest.Start(t)
	ts := startServer(t)
	d := &diffRun{t: t, redis: r, cairn: redistest.Dial(t, ts.addr)}
	if proto == 3 {
		// HELLO's reply names the server: it is not compared.
		for _, c := range []*redistest.Conn{d.redis, d.cairn} {
			if _, err := c.DoRaw("HELLO", "3"); err != nil {
				t.Fatalf("HELLO 3: %v", err)
			}
		}
	}
	return d
}

// send runs one command on both servers and returns both raw replies.
func (d *diffRun) send(args ...string) (redisReply, cairnReply []byte) {
	d.t.Helper()
	d.history = append(d.history, quoteCommand(args))
	var err error
	if redisReply, err = d.redis.DoRaw(args...); err != nil {
		d.t.Fatalf("redis-server: %s: %v", quoteCommand(args), err)
	}
	if cairnReply, err = d.cairn.DoRaw(args...); err != nil {
		d.t.Fatalf("Cairn: %s: %v\nhistory:\n%s", quoteCommand(args), err, d.recent())
	}
	return redisReply, cairnReply
}

// same runs a command on both servers and reports any difference in the
// replies. It returns Redis's reply.
func (d *diffRun) same(args ...string) []byte {
	d.t.Helper()
	r, c := d.send(args...)
	if !bytes.Equal(r, c) {
		d.mismatch(args, r, c)
	}
	return r
}

// sameUnordered is same for commands whose arrays come in no defined order
// (SMEMBERS, HGETALL, SUNION ...): it compares the arrays as multisets, each
// element (or, with pairs, each pair of elements) as a unit.
func (d *diffRun) sameUnordered(pairs bool, args ...string) []byte {
	d.t.Helper()
	r, c := d.send(args...)
	if !bytes.Equal(canonicalUnordered(r, pairs), canonicalUnordered(c, pairs)) {
		d.mismatch(args, r, c)
	}
	return r
}

func (d *diffRun) mismatch(args []string, r, c []byte) {
	d.t.Helper()
	d.mismatches++
	if d.mismatches > maxMismatches {
		return
	}
	d.t.Errorf("%s\nredis-server: %q\nCairn:        %q\nhistory (oldest first):\n%s", quoteCommand(args), r, c, d.recent())
	if d.mismatches == maxMismatches {
		d.t.Errorf("stopping the reports after %d mismatches", maxMismatches)
	}
}

// recent is the tail of the history, enough to reproduce most mismatches.
func (d *diffRun) recent() string {
	h := d.history[max(0, len(d.history)-40):]
	return "  " + strings.Join(h, "\n  ")
}

// quoteCommand renders a command as redis-cli would take it.
func quoteCommand(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = strconv.Quote(a)
	}
	return strings.Join(q, " ")
}

// canonicalUnordered sorts the elements (or element pairs) of a top-level
// array, set or map reply (a map's entries always as pairs); any other
// reply comes back unchanged.
func canonicalUnordered(reply []byte, pairs bool) []byte {
	if len(reply) == 0 || (reply[0] != '*' && reply[0] != '~' && reply[0] != '%') {
		return reply
	}
	br := bufio.NewReader(bytes.NewReader(reply))
	head, err := br.ReadBytes('\n')
	if err != nil {
		return reply
	}
	n, err := strconv.Atoi(string(bytes.TrimSpace(head[1:])))
	if err != nil || n <= 0 {
		return reply
	}
	if reply[0] == '%' {
		n, pairs = 2*n, true
	}
	var elems []string
	for range n {
		e, err := rawElement(br)
		if err != nil {
			return reply
		}
		elems = append(elems, e)
	}
	if pairs && n%2 == 0 {
		var joined []string
		for i := 0; i < n; i += 2 {
			joined = append(joined, elems[i]+elems[i+1])
		}
		elems = joined
	}
	slices.Sort(elems)
	return []byte(string(head) + strings.Join(elems, ""))
}

// rawElement reads one whole element as bytes.
func rawElement(br *bufio.Reader) (string, error) {
	b, err := redistest.ReadRaw(br, nil)
	return string(b), err
}

func TestDiffHarness(t *testing.T) {
	d := newDiffRun(t)
	d.same("SET", "k", "v")
	d.same("GET", "k")
	d.same("GET", "missing")
	d.same("SADD", "s", "a", "b", "c")
	d.sameUnordered(false, "SMEMBERS", "s")
	d.same("HSET", "h", "f1", "1", "f2", "2")
	d.sameUnordered(true, "HGETALL", "h")
	d.same("INCR", "k")
	if d.mismatches != 0 {
		t.Fatalf("%d mismatches on commands both servers agree on", d.mismatches)
	}
	if got := canonicalUnordered([]byte("*2\r\n$1\r\nb\r\n$1\r\na\r\n"), false); string(got) != "*2\r\n$1\r\na\r\n$1\r\nb\r\n" {
		t.Errorf("canonicalUnordered did not sort: %q", got)
	}
	if got := canonicalUnordered([]byte("%2\r\n+b\r\n:1\r\n+a\r\n:2\r\n"), false); string(got) != "%2\r\n+a\r\n:2\r\n+b\r\n:1\r\n" {
		t.Errorf("canonicalUnordered did not sort a map by its entries: %q", got)
	}
	d3 := newDiffRunProto(t, 3)
	d3.same("HSET", "h", "f1", "1", "f2", "2")
	d3.sameUnordered(false, "HGETALL", "h")
	d3.same("ZADD", "z", "1.5", "m")
	d3.same("ZSCORE", "z", "m")
	d3.same("GET", "missing")
	if d3.mismatches != 0 {
		t.Fatalf("%d mismatches over RESP3 on commands both servers agree on", d3.mismatches)
	}
}

// diffSeeds runs a random differential test: for each seed, a subtest
// named after it on a fresh diffRun speaking protocol proto, taking n steps
// from the generator that gen builds for the seed, and stopping once the
// run has reported maxMismatches.
func diffSeeds(t *testing.T, proto int, seeds []uint64, n int, gen func(d *diffRun, seed uint64) (step func())) {
	for _, seed := range seeds {
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			d := newDiffRunProto(t, proto)
			step := gen(d, seed)
			for range n {
				step()
				if d.mismatches >= maxMismatches {
					t.FailNow()
				}
			}
		})
	}
}
