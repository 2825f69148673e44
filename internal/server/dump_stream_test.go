package server

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/cairndb/cairn/internal/rdb"
	"github.com/cairndb/cairn/internal/redistest"
)

// dumpStreamRecipes build streams (key s) in redis-server: several
// listpack nodes, entries deleted inside nodes and trimmed, empty streams,
// and consumer groups with pending entries, claims, acknowledgements,
// NOACK reads, consumers without pending entries and deleted pending
// entries.
func dumpStreamRecipes() map[string][][]string {
	entries := func(n int) [][]string {
		var cmds [][]string
		for i := 1; i <= n; i++ {
			v := "v" + strconv.Itoa(i)
			if i%97 == 0 {
				v = strings.Repeat("x", 5000)
			}
			cmds = append(cmds, []string{"XADD", "s", strconv.Itoa(i) + "-1", "f" + strconv.Itoa(i%3), v, "n", strconv.Itoa(i)})
		}
		return cmds
	}
	return map[string][][]string{
		"small": {{"XADD", "s", "1-1", "a", "1", "b", "2"}, {"XADD", "s", "1-2", "a", "3", "b", "4"}, {"XADD", "s", "2-0", "c", ""}},
		"trimmed": append(entries(300),
			[]string{"XTRIM", "s", "MAXLEN", "150"},
			[]string{"XDEL", "s", "160-1", "161-1", "299-1"}),
		"big": append(entries(3000),
			[]string{"XTRIM", "s", "MINID", "1001-1"},
			[]string{"XDEL", "s", "1500-1", "1501-1", "2999-1"},
			[]string{"XGROUP", "CREATE", "s", "g1", "0"},
			[]string{"XREADGROUP", "GROUP", "g1", "a", "COUNT", "1200", "STREAMS", "s", ">"},
			[]string{"XREADGROUP", "GROUP", "g1", "b", "COUNT", "300", "STREAMS", "s", ">"}),
		"empty":    {{"XADD", "s", "5-5", "a", "1"}, {"XDEL", "s", "5-5"}, {"XGROUP", "CREATE", "s", "g", "0"}},
		"mkstream": {{"XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"}, {"XGROUP", "CREATECONSUMER", "s", "g", "c"}},
		"groups": append(entries(250),
			[]string{"XGROUP", "CREATE", "s", "g1", "0"},
			[]string{"XGROUP", "CREATE", "s", "g2", "$"},
			[]string{"XGROUP", "CREATE", "s", "g3", "5-1"},
			[]string{"XREADGROUP", "GROUP", "g1", "alice", "COUNT", "5", "STREAMS", "s", ">"},
			[]string{"XREADGROUP", "GROUP", "g1", "bob", "COUNT", "120", "STREAMS", "s", ">"},
			[]string{"XACK", "s", "g1", "2-1", "7-1"},
			[]string{"XCLAIM", "s", "g1", "bob", "0", "3-1"},
			[]string{"XDEL", "s", "4-1", "100-1"},
			[]string{"XGROUP", "CREATECONSUMER", "s", "g1", "carol"},
			[]string{"XREADGROUP", "GROUP", "g3", "dave", "NOACK", "COUNT", "2", "STREAMS", "s", ">"},
			[]string{"XREADGROUP", "GROUP", "g3", "erin", "COUNT", "2", "STREAMS", "s", ">"},
			[]string{"XGROUP", "CREATE", "s", "g4", "50-1"}),
	}
}

// streamView is what a server holds in a stream key, as comparable text:
// XINFO STREAM FULL without what only depends on the implementation
// (radix-tree-keys and -nodes) or on Redis 7.2 (active-time), XRANGE,
// XINFO GROUPS and XPENDING's summary of every group.
func streamView(t *testing.T, c *redistest.Conn, key string) string {
	t.Helper()
	do := func(args ...any) any {
		t.Helper()
		v, err := c.Do(args...)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return v
	}
	var b strings.Builder
	fmt.Fprintf(&b, "FULL %s\n", replyText(dropFields(do("XINFO", "STREAM", key, "FULL", "COUNT", "0"), "radix-tree-keys", "radix-tree-nodes", "active-time")))
	fmt.Fprintf(&b, "XRANGE %s\n", replyText(do("XRANGE", key, "-", "+")))
	groups := do("XINFO", "GROUPS", key).([]any)
	fmt.Fprintf(&b, "GROUPS %s\n", replyText(groups))
	for _, g := range groups {
		name := g.([]any)[1].([]byte)
		fmt.Fprintf(&b, "XPENDING %s %s\n", name, replyText(do("XPENDING", key, name)))
	}
	return b.String()
}

// textDiff shows where got first differs from want.
func textDiff(got, want string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	from := max(0, i-150)
	return fmt.Sprintf("at byte %d\ngot:  ...%s\nwant: ...%s", i, got[from:min(len(got), i+150)], want[from:min(len(want), i+150)])
}

// replyText renders a parsed reply: strings quoted, integers in decimal.
func replyText(v any) string {
	switch v := v.(type) {
	case []byte:
		return strconv.Quote(string(v))
	case int64:
		return strconv.FormatInt(v, 10)
	case nil:
		return "nil"
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = replyText(e)
		}
		return "[" + strings.Join(parts, " ") + "]"
	}
	return fmt.Sprintf("%T(%v)", v, v)
}

// dropFields removes the named fields from every map (a flat array of
// names and values) inside a RESP2 reply.
func dropFields(v any, names ...string) any {
	a, ok := v.([]any)
	if !ok {
		return v
	}
	isMap := len(a)%2 == 0
	for i := 0; isMap && i < len(a); i += 2 {
		_, isName := a[i].([]byte)
		isMap = isName
	}
	var out []any
	for i := 0; i < len(a); i++ {
		if isMap && i%2 == 0 {
			drop := false
			for _, n := range names {
				drop = drop || string(a[i].([]byte)) == n
			}
			if drop {
				i++
				continue
			}
		}
		out = append(out, dropFields(a[i], names...))
	}
	return out
}

// TestDumpRestoreStreamsWithRedis moves streams with consumer groups both
// ways between redis-server 7.0 and Cairn: a stream built in Redis is
// dumped there and restored in both servers, which must then hold the
// same stream (XINFO STREAM FULL, XRANGE, XINFO GROUPS, XPENDING); Cairn's
// DUMP of it, restored in Redis, must equal the original; and both go on
// alike (XREADGROUP, XACK, XCLAIM, XADD, XDEL) from the restored state.
func TestDumpRestoreStreamsWithRedis(t *testing.T) {
	for name, recipe := range dumpStreamRecipes() {
		t.Run(name, func(t *testing.T) {
			d := newDiffRun(t)
			for _, cmd := range recipe {
				args := make([]any, len(cmd))
				for i, a := range cmd {
					args[i] = a
				}
				if _, err := d.redis.Do(args...); err != nil {
					t.Fatalf("%v: %v", cmd, err)
				}
			}
			original := streamView(t, d.redis, "s")
			fromRedis := dumpOf(t, d.redis, "redis-server", "s")
			d.same("RESTORE", "r", "0", fromRedis)
			if got := streamView(t, d.cairn, "r"); got != original {
				t.Fatalf("Cairn restored Redis's stream differently: %s", textDiff(got, original))
			}
			fromCairn := dumpOf(t, d.cairn, "Cairn", "r")
			if fromCairn[0] != rdb.TypeStreamListpacks2 {
				t.Fatalf("Cairn's DUMP of a stream has type %d", fromCairn[0])
			}
			d.same("RESTORE", "c", "100000", fromCairn)
			if got := streamView(t, d.redis, "c"); got != original {
				t.Fatalf("Redis restored Cairn's DUMP differently: %s", textDiff(got, original))
			}
			if got := streamView(t, d.cairn, "c"); got != original {
				t.Fatalf("Cairn restored its own DUMP differently: %s", textDiff(got, original))
			}
			d.same("TYPE", "c")
			d.same("OBJECT", "ENCODING", "c")
			d.same("RESTORE", "c", "0", fromCairn)
			// Both go on alike from the restored state. (XCLAIM and
			// XAUTOCLAIM by a consumer that exists: Redis 7.0 creates it
			// only when it claims something, 7.2 and Cairn always.)
			for _, k := range []string{"r", "c"} {
				d.same("XREADGROUP", "GROUP", "g1", "zed", "COUNT", "3", "STREAMS", k, ">")
				d.same("XREADGROUP", "GROUP", "g1", "bob", "COUNT", "4", "STREAMS", k, "0")
				d.same("XACK", k, "g1", "1-1", "3-1", "8-1")
				d.same("XCLAIM", k, "g1", "zed", "0", "6-1", "9-1", "1200-1", "JUSTID")
				d.same("XAUTOCLAIM", k, "g1", "zed", "0", "0", "COUNT", "3", "JUSTID")
				d.same("XADD", k, "1000-1", "new", "entry")
				d.same("XDEL", k, "10-1")
				d.same("XINFO", "GROUPS", k)
				d.same("XPENDING", k, "g1")
				d.same("XLEN", k)
				d.same("XRANGE", k, "-", "+", "COUNT", "5")
				d.same("XREVRANGE", k, "+", "-", "COUNT", "5")
			}
		})
	}
}

// TestRestoreBadStreamsLikeRedis: stream payloads that Redis refuses get
// the same error from Cairn, which keeps nothing of them.
func TestRestoreBadStreamsLikeRedis(t *testing.T) {
	d := newDiffRun(t)
	d.same("XADD", "s", "1-1", "a", "1")
	d.same("XGROUP", "CREATE", "s", "g", "0")
	d.same("XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", ">")
	good := []byte(dumpOf(t, d.redis, "redis-server", "s"))
	body := good[:len(good)-10]
	withTrailer := func(b []byte) string { return string(binaryTrailer10(b)) }
	// The node key is its first string: 16 bytes after the node count.
	shortKey := append([]byte{body[0], body[1], 15}, body[3:18]...)
	shortKey = append(shortKey, body[19:]...)
	// The consumer's pending id is the last 16 bytes: make it unknown.
	unknownPending := append([]byte(nil), body...)
	unknownPending[len(unknownPending)-1] ^= 0x40
	emptyListpack := []byte{rdb.TypeStreamListpacks2, 1}
	emptyListpack = rdb.AppendString(emptyListpack, make([]byte, 16))
	emptyListpack = rdb.AppendString(emptyListpack, []byte{7, 0, 0, 0, 0, 0, 0xff})
	emptyListpack = append(emptyListpack, 0, 0, 0, 0, 0, 0, 0, 0, 0)
	for _, p := range []string{withTrailer(shortKey), withTrailer(unknownPending), withTrailer(emptyListpack), withTrailer(body[:len(body)-5])} {
		d.same("RESTORE", "n", "0", p)
		d.same("EXISTS", "n")
	}
	d.same("RESTORE", "n", "0", withTrailer(body))
	d.same("XPENDING", "n", "g")
}

// binaryTrailer10 ends body with a valid Redis 7.0 DUMP trailer.
func binaryTrailer10(body []byte) []byte {
	b := append(append([]byte(nil), body...), 10, 0)
	c := rdb.CRC64(0, b)
	for i := range 8 {
		b = append(b, byte(c>>(8*i)))
	}
	return b
}
