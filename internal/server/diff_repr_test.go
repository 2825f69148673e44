package server

import (
	"strconv"
	"strings"
	"testing"
)

// reprCases are the string writes after which Redis holds a value other
// than as SET would (issue 18): APPEND to a key and SETRANGE leave a raw
// buffer whatever it holds, INCRBYFLOAT a plain string even when it reads
// as an integer; INCR makes an int again, and COPY, RENAME, GETEX and
// EXPIRE keep what they find. OBJECT REFCOUNT follows: only an int is a
// shared integer.
var reprCases = [][]string{
	{"SET", "a", "123"},
	{"APPEND", "a", "4"},
	{"OBJECT", "ENCODING", "a"},
	{"OBJECT", "REFCOUNT", "a"},
	{"SET", "b", "123"},
	{"APPEND", "b", ""},
	{"OBJECT", "ENCODING", "b"},
	{"APPEND", "c", "12"},
	{"OBJECT", "ENCODING", "c"},
	{"APPEND", "c2", "hello"},
	{"OBJECT", "ENCODING", "c2"},
	{"SETRANGE", "d", "0", "12"},
	{"OBJECT", "ENCODING", "d"},
	{"SETRANGE", "d0", "0", ""},
	{"EXISTS", "d0"},
	{"SET", "e", "12"},
	{"SETRANGE", "e", "0", ""},
	{"OBJECT", "ENCODING", "e"},
	{"SETRANGE", "e", "1", "3"},
	{"OBJECT", "ENCODING", "e"},
	{"OBJECT", "REFCOUNT", "e"},
	{"SET", "f", "1234"},
	{"APPEND", "f", "5"},
	{"INCR", "f"},
	{"OBJECT", "ENCODING", "f"},
	{"OBJECT", "REFCOUNT", "f"},
	{"SET", "f2", "7"},
	{"APPEND", "f2", ""},
	{"DECRBY", "f2", "2"},
	{"OBJECT", "ENCODING", "f2"},
	{"OBJECT", "REFCOUNT", "f2"},
	{"INCRBYFLOAT", "g", "1"},
	{"OBJECT", "ENCODING", "g"},
	{"OBJECT", "REFCOUNT", "g"},
	{"SET", "h", "5"},
	{"INCRBYFLOAT", "h", "1"},
	{"OBJECT", "ENCODING", "h"},
	{"INCRBYFLOAT", "h", "0.5"},
	{"OBJECT", "ENCODING", "h"},
	{"INCRBY", "h2", "5"},
	{"INCRBYFLOAT", "h2", "123456789012345678901234567890123456789012345"},
	{"OBJECT", "ENCODING", "h2"},
	{"SET", "i", "10"},
	{"APPEND", "i", "1"},
	{"COPY", "i", "j"},
	{"OBJECT", "ENCODING", "j"},
	{"RENAME", "j", "k"},
	{"OBJECT", "ENCODING", "k"},
	{"GETEX", "k", "EX", "100"},
	{"OBJECT", "ENCODING", "k"},
	{"PERSIST", "k"},
	{"EXPIRE", "k", "100"},
	{"OBJECT", "ENCODING", "k"},
	{"GET", "k"},
	{"SET", "k", "10"},
	{"OBJECT", "ENCODING", "k"},
	{"MSET", "i", "3", "l", "4"},
	{"OBJECT", "ENCODING", "i"},
	{"GETSET", "l", "8"},
	{"OBJECT", "ENCODING", "l"},
}

func TestDiffStringRepresentation(t *testing.T) {
	d := newDiffRun(t)
	for _, args := range reprCases {
		d.same(args...)
	}
}

// TestDiffScanCursors: Redis 7.2 reads a cursor with strtoul, so "-1" is
// 2⁶⁴−1 and only a number past 2⁶⁴−1 or with other bytes is an invalid
// cursor (Redis 7.4 also refuses a negative one); a collection small enough
// for a compact encoding comes back whole whatever the cursor. A large one
// answers an arbitrary cursor with part of it, each server from its own
// idea of that position, so only the shape is compared there.
func TestDiffScanCursors(t *testing.T) {
	d := newDiffRun(t)
	d.same("HSET", "h", "a", "1", "b", "2", "c", "3")
	d.same("SADD", "s", "1", "2", "3") // an intset: Redis 7.0, installed here, has no set listpack
	d.same("ZADD", "z", "1", "x", "2", "y")
	for _, cursor := range []string{"0", "12345", "-1", "-5", "18446744073709551615", "18446744073709551616", "+7", "1x", " 1", "", "-"} {
		d.same("HSCAN", "h", cursor)
		d.same("SSCAN", "s", cursor)
		d.same("ZSCAN", "z", cursor)
		d.same("HSCAN", "nokey", cursor)
	}
	for _, cursor := range []string{"18446744073709551616", "1x", " 1", "-"} {
		d.same("SCAN", cursor)
	}
	args := []string{"HSET", "big"}
	for i := range 600 {
		args = append(args, "f"+strconv.Itoa(i), strconv.Itoa(i))
	}
	d.same(args...)
	for _, cursor := range []string{"12345", "-1", "-5"} {
		r, c := d.send("HSCAN", "big", cursor)
		for name, reply := range map[string][]byte{"redis": r, "cairn": c} {
			n := scanReplyLen(t, reply)
			if n >= 2*600 {
				t.Errorf("%s: HSCAN big %s returned every field (%d elements): a cursor not from a scan must resume somewhere, not restart", name, cursor, n)
			}
		}
	}
}

// scanReplyLen returns the number of elements of a RESP2 scan reply's
// array (the second element: *2, the cursor, then *M).
func scanReplyLen(t *testing.T, reply []byte) int {
	t.Helper()
	lines := strings.SplitN(string(reply), "\r\n", 5)
	if len(lines) < 5 || lines[0] != "*2" || !strings.HasPrefix(lines[3], "*") {
		t.Fatalf("not a scan reply: %q", reply)
	}
	n, err := strconv.Atoi(lines[3][1:])
	if err != nil {
		t.Fatalf("not a scan reply: %q", reply)
	}
	return n
}
